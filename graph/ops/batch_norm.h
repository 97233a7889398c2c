// BatchNorm parameters, shared by the schema and the kernels.
#ifndef SYMX_GRAPH_OPS_BATCH_NORM_H_
#define SYMX_GRAPH_OPS_BATCH_NORM_H_

#include <cstdint>
#include <optional>

#include "graph/param.h"

namespace symx {

struct BatchNormParam : OpParam {
  double eps = 1e-3;
  double momentum = 0.9;
  bool fix_gamma = true;
  bool use_global_stats = false;
  bool output_mean_var = false;
  int64_t axis = 1;
  bool cudnn_off = false;
  std::optional<double> min_calib_range;
  std::optional<double> max_calib_range;
};

}  // namespace symx

#endif  // SYMX_GRAPH_OPS_BATCH_NORM_H_
