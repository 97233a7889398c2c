// The operand checks the random and random_pdf kernels of both devices share:
// a sampler's parameter arrays against its output, and a density's sample,
// parameters and output. Errors name the node (Fail, devices/kernel.h).
#ifndef SYMX_DEVICES_GEOMETRY_RANDOM_OPERANDS_H_
#define SYMX_DEVICES_GEOMETRY_RANDOM_OPERANDS_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "devices/kernel.h"
#include "graph/dtype.h"
#include "graph/shape.h"

namespace symx {

// _sample_X: the workspace holds every parameter array as float64.
size_t SampleWorkspace(const NodeAttrs&, const std::vector<Shape>& in_shapes,
                       const std::vector<Shape>&, DType);

// The size of each of a _sample_X node's parameter arrays (all equal, the
// output a whole number of draws per parameter, the workspace big enough);
// 0 when the output is empty and there is nothing to draw.
absl::StatusOr<int64_t> SampleParamCount(const KernelContext& ctx);

// A density's layout: `dists` distributions (k components each for
// dirichlet), `block` samples per distribution.
struct PdfDims {
  int64_t dists = 0, block = 0, k = 1;
};

absl::StatusOr<PdfDims> PdfOperandDims(const KernelContext& ctx, const Tensor& sample,
                                       const std::vector<const Tensor*>& params, const Tensor& out,
                                       bool dirichlet);

}  // namespace symx

#endif  // SYMX_DEVICES_GEOMETRY_RANDOM_OPERANDS_H_
