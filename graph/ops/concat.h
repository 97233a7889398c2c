// Parameters of Concat, SliceChannel and slice_axis, shared by the schemas and the kernels.
#ifndef SYMX_GRAPH_OPS_CONCAT_H_
#define SYMX_GRAPH_OPS_CONCAT_H_

#include <cstdint>
#include <optional>

#include "graph/param.h"

namespace symx {

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

#endif  // SYMX_GRAPH_OPS_CONCAT_H_
