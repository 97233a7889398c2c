// Parameters of the scatter family (_slice_assign, _slice_assign_scalar,
// scatter_nd, _scatter_set_nd, _contrib_index_copy), shared by the schemas
// (graph/ops/scatter.cc) and the kernels of both devices.
#ifndef SYMX_GRAPH_OPS_SCATTER_H_
#define SYMX_GRAPH_OPS_SCATTER_H_

#include <cstdint>
#include <vector>

#include "graph/ops/tensor.h"
#include "graph/param.h"

namespace symx {

// _slice_assign (_crop_assign) and _slice_assign_scalar
// (_crop_assign_scalar): slice's begin/end/step, read by slice's own parser,
// and the scalar of the _scalar form.
struct SliceAssignParam : OpParam {
  SliceParam slice;
  double scalar = 0.0;
};

// scatter_nd and _scatter_set_nd: the output's shape.
struct ScatterNdParam : OpParam {
  std::vector<int64_t> shape;
};

}  // namespace symx

#endif  // SYMX_GRAPH_OPS_SCATTER_H_
