// Parameters of the norm family (graph/ops/norm.cc), shared by the schema
// and the kernels.
#ifndef SYMX_GRAPH_OPS_NORM_H_
#define SYMX_GRAPH_OPS_NORM_H_

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/status.h"
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

// _contrib_SyncBatchNorm: BatchNorm whose batch statistics MXNet sums over
// `ndev` devices meeting at `key`. symx sums them over the replicas of the
// data-parallel job when ndev > 1 (devices/geometry/sync_batch_norm.h).
struct SyncBatchNormParam : BatchNormParam {
  int64_t ndev = 1;
  std::string key;
};

struct LayerNormParam : OpParam {
  int64_t axis = -1;
  double eps = 1e-5;
  bool output_mean_var = false;
};

struct L2NormalizationParam : OpParam {
  double eps = 1e-10;
  std::string mode = "instance";  // instance, channel or spatial
};

struct InstanceNormParam : OpParam {
  double eps = 1e-3;
};

struct GroupNormParam : OpParam {
  int64_t num_groups = 1;
  double eps = 1e-5;
  bool output_mean_var = false;
};

}  // namespace symx

#endif  // SYMX_GRAPH_OPS_NORM_H_
