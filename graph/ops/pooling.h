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

// Pooling_v1, MXNet's first pooling operator (2-D only): max pooling sees the
// zero padding, avg divides by the whole kernel even where the window is cut
// at the padded border, and max's gradient goes to every element equal to the
// window's maximum.
struct PoolV1Param : OpParam {
  int64_t kernel[2] = {1, 1}, stride[2] = {1, 1}, pad[2] = {0, 0};
  std::string pool_type;  // max, avg or sum
  bool global_pool = false;
  bool full = false;  // pooling_convention 'full' (ceil) instead of 'valid' (floor)
};

}  // namespace symx

#endif  // SYMX_GRAPH_OPS_POOLING_H_
