// Parameters of the ordering ops (sort, argsort, topk, argmax, argmin,
// argmax_channel, cumsum), shared by the schemas (graph/ops/ordering.cc) and
// the CPU kernels.
#ifndef SYMX_GRAPH_OPS_ORDERING_H_
#define SYMX_GRAPH_OPS_ORDERING_H_

#include <cstdint>
#include <optional>

#include "graph/dtype.h"
#include "graph/param.h"
#include "graph/shape.h"

namespace symx {

enum class TopKReturn { kValue, kIndices, kMask, kBoth };

// sort and argsort parse into this too (k = 0: every element; ret value / indices).
struct TopKParam : OpParam {
  std::optional<int64_t> axis = -1;  // nullopt: the flattened array
  int64_t k = 1;                     // <= 0: every element along the axis
  TopKReturn ret = TopKReturn::kIndices;
  bool is_ascend = false;
  DType dtype = DType::kFloat32;  // of returned indices
};

// argmax / argmin (argmax_channel uses axis 1, keepdims false).
struct ArgReduceParam : OpParam {
  std::optional<int64_t> axis;  // nullopt: the flattened array
  bool keepdims = false;
};

struct CumsumParam : OpParam {
  std::optional<int64_t> axis;  // nullopt: the flattened array
  std::optional<DType> dtype;
};

// How an op that works along one axis sees its input: `outer` blocks of `n`
// elements along the axis, each element `inner` apart.
// (Also the view of softmax and the loss heads: devices/geometry/axis_layout.h.)
struct AxisLayout {
  int64_t outer = 1;
  int64_t n = 1;
  int64_t inner = 1;
  int64_t columns() const { return outer * inner; }
  int64_t size() const { return outer * n * inner; }
};

// The layout of `shape` along `axis` (nullopt: flattened; the axis is already
// normalized and valid).
inline AxisLayout MakeAxisLayout(const Shape& shape, std::optional<int> axis) {
  AxisLayout l;
  if (!axis.has_value()) {
    l.n = shape.Size();
    return l;
  }
  for (int d = 0; d < shape.ndim(); ++d) {
    if (d < *axis) l.outer *= shape[d];
    if (d == *axis) l.n = shape[d];
    if (d > *axis) l.inner *= shape[d];
  }
  return l;
}

}  // namespace symx

#endif  // SYMX_GRAPH_OPS_ORDERING_H_
