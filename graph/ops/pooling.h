// Pooling parameters, shared by the schema and the kernels.
#ifndef SYMX_GRAPH_OPS_POOLING_H_
#define SYMX_GRAPH_OPS_POOLING_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "graph/param.h"

namespace symx {

struct PoolParam : OpParam {
  std::vector<int64_t> kernel, stride, pad;  // kernel may be empty with global_pool
  std::string pool_type;
  bool global_pool = false;
  std::string convention;
  std::optional<int64_t> p_value;
  std::optional<bool> count_include_pad;
  bool cudnn_off = false;
  std::string layout;
};

}  // namespace symx

#endif  // SYMX_GRAPH_OPS_POOLING_H_
