// FullyConnected's parameters, shared by the schema and the kernels.
#ifndef SYMX_GRAPH_OPS_FULLY_CONNECTED_H_
#define SYMX_GRAPH_OPS_FULLY_CONNECTED_H_

#include <cstdint>

#include "graph/param.h"

namespace symx {

struct FullyConnectedParam : OpParam {
  int64_t num_hidden = 1;
  bool no_bias = false;
  bool flatten = true;
};

}  // namespace symx

#endif  // SYMX_GRAPH_OPS_FULLY_CONNECTED_H_
