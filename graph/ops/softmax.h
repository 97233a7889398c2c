// softmax / log_softmax parameters, shared by the schema and the kernels.
#ifndef SYMX_GRAPH_OPS_SOFTMAX_H_
#define SYMX_GRAPH_OPS_SOFTMAX_H_

#include <cstdint>
#include <optional>

#include "graph/dtype.h"
#include "graph/param.h"

namespace symx {

struct SoftmaxParam : OpParam {
  int64_t axis = -1;
  std::optional<double> temperature;
  std::optional<DType> dtype;  // the output's type when given
  bool use_length = false;
};

}  // namespace symx

#endif  // SYMX_GRAPH_OPS_SOFTMAX_H_
