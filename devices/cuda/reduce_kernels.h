// Axis helpers of the CUDA reduction kernels, shared by the reduce family and
// the gradients of the binary family (summed down to each operand).
#ifndef SYMX_DEVICES_CUDA_REDUCE_KERNELS_H_
#define SYMX_DEVICES_CUDA_REDUCE_KERNELS_H_

#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/cuda/kernel_util.h"
#include "graph/ops/ordering.h"
#include "graph/ops/reduce.h"
#include "devices/cuda/strided_launch.h"

namespace symx {
namespace cuda {

inline absl::Status TooManyDims(const KernelContext& ctx, const Shape& s) {
  return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": ", s.ToString(), " has more than ",
                                                 kMaxDims, " dims, the most the GPU kernel takes"));
}

// The axes of `shape` split into the kept and the reduced ones, each with
// its row-major strides in `shape`.
inline void SplitAxes(const Shape& shape, const std::vector<bool>& reduced, StridedDims* kept,
                      StridedDims* red) {
  const std::vector<int64_t> st = StridesOf(shape);
  for (int k = 0; k < shape.ndim(); ++k) {
    StridedDims& d = reduced[k] ? *red : *kept;
    d.dims[d.ndim] = shape[k];
    d.src_strides[d.ndim] = st[k];
    ++d.ndim;
  }
}

}  // namespace cuda
}  // namespace symx

#endif  // SYMX_DEVICES_CUDA_REDUCE_KERNELS_H_
