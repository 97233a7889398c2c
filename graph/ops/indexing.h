// Parameters of the indexing family (graph/ops/indexing.cc), shared by the
// schema and the kernels.
//
// Parameters of the indexing ops (one_hot, pick, take, gather_nd), shared by the
// schemas (graph/ops/indexing.cc) and the CPU kernels.
//
// Index values follow MXNet 1.9.1: float indices are truncated toward zero;
// out-of-range indices are clipped, wrapped (Python-style modulo) or rejected
// according to each op's mode (see indexing.cc).
//
// Embedding's parameters, shared by the schema and the kernels.
#ifndef SYMX_GRAPH_OPS_INDEXING_H_
#define SYMX_GRAPH_OPS_INDEXING_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "graph/dtype.h"
#include "graph/param.h"

namespace symx {

enum class IndexMode { kClip, kWrap, kRaise };

struct OneHotParam : OpParam {
  int64_t depth = 0;
  double on_value = 1.0;
  double off_value = 0.0;
  DType dtype = DType::kFloat32;
};

struct PickParam : OpParam {
  std::optional<int64_t> axis = -1;  // None is rejected at shape inference, as in MXNet
  bool keepdims = false;
  IndexMode mode = IndexMode::kClip;
};

struct TakeParam : OpParam {
  int64_t axis = 0;
  IndexMode mode = IndexMode::kClip;
};

struct EmbeddingParam : OpParam {
  int64_t input_dim = 0;
  int64_t output_dim = 0;
  DType dtype = DType::kFloat32;
  bool sparse_grad = false;
};

// _ravel_multi_index / _unravel_index: the shape the flat indices refer to.
struct RavelParam : OpParam {
  std::vector<int64_t> shape;
};

// _contrib_boolean_mask: the axis whose entries index selects.
struct BooleanMaskParam : OpParam {
  int64_t axis = 0;
};

// _contrib_index_array: the axes whose coordinates are listed (None: all).
struct IndexArrayParam : OpParam {
  std::optional<std::vector<int64_t>> axes;
};

// index_array's axes for `ndim` dims, negative ones counted from the end; an
// error naming an axis out of range.
absl::Status IndexArrayAxes(const IndexArrayParam& p, int ndim, std::vector<int>* axes);

}  // namespace symx

#endif  // SYMX_GRAPH_OPS_INDEXING_H_
