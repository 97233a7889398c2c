// Dropout's parameters, shared by the schema and the kernels.
#ifndef SYMX_GRAPH_OPS_DROPOUT_H_
#define SYMX_GRAPH_OPS_DROPOUT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "graph/param.h"

namespace symx {

struct DropoutParam : OpParam {
  double p = 0.5;
  std::string mode;
  std::vector<int64_t> axes;  // dims along which one mask value is shared
  bool cudnn_off = false;
};

}  // namespace symx

#endif  // SYMX_GRAPH_OPS_DROPOUT_H_
