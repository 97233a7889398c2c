// Parameters of the shape family (graph/ops/shape.cc), shared by the schema
// and the kernels.
//
// transpose's parameters, shared by the schema and the kernel.
//
// Parameters of Concat, SliceChannel and slice_axis, shared by the schemas and the kernels.
#ifndef SYMX_GRAPH_OPS_SHAPE_H_
#define SYMX_GRAPH_OPS_SHAPE_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "graph/param.h"

namespace symx {

struct TransposeParam : OpParam {
  std::vector<int64_t> axes;  // normalized to non-negative; empty = reverse
};

// The permutation for an `n`-dim input: output dim i is input dim perm[i].
std::vector<int> TransposePermutation(const TransposeParam& p, int n);

struct ConcatParam : OpParam {
  int64_t num_args = 0;
  int64_t dim = 1;
};

struct SliceChannelParam : OpParam {
  int64_t num_outputs = 0;
  int64_t axis = 1;
  bool squeeze_axis = false;
};

struct SliceAxisParam : OpParam {
  int64_t axis = 0;
  int64_t begin = 0;
  std::optional<int64_t> end;  // None = to the end
};

}  // namespace symx

#endif  // SYMX_GRAPH_OPS_SHAPE_H_
