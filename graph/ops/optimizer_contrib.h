// The contributed optimizer ops' parameters (graph/ops/optimizer_contrib.cc),
// shared by the schemas and the kernels: MXNet 1.9.1's LARS and AMP helpers
// (multi_sum_sq, multi_lars, all_finite, multi_all_finite, reset_arrays) and
// its contrib update ops (AdamW, GroupAdaGrad, multi-tensor LAMB and AdamW).
#ifndef SYMX_GRAPH_OPS_OPTIMIZER_CONTRIB_H_
#define SYMX_GRAPH_OPS_OPTIMIZER_CONTRIB_H_

#include <cstdint>
#include <vector>

#include "graph/param.h"

namespace symx {

// multi_sum_sq, multi_all_finite, reset_arrays (num_arrays) and all_finite
// (one array): how many arrays, and whether the finite flag starts at 1.
struct ArrayListParam : OpParam {
  int64_t num_arrays = 1;
  bool init_output = true;
};

// multi_lars: lr * eta * |w| / (|g| * rescale_grad + wd * |w| + eps).
struct LarsParam : OpParam {
  float eta = 0, eps = 0, rescale_grad = 1;
};

// _adamw_update and _mp_adamw_update (lr, eta, wd), and their multi forms
// (lrs, etas, wds, one per weight); MXNet's float32 fields.
struct AdamWParam : OpParam {
  float lr = 0, beta1 = 0.9f, beta2 = 0.999f, epsilon = 1e-8f, wd = 0, eta = 0;
  float clip_gradient = -1;
  int64_t num_weights = 1;
  std::vector<float> lrs, wds, etas;
};

// _contrib_group_adagrad_update.
struct GroupAdagradParam : OpParam {
  float lr = 0, rescale_grad = 1, clip_gradient = -1, epsilon = 1e-5f;
};

// _multi_lamb_update and _multi_mp_lamb_update.
struct MultiLambParam : OpParam {
  std::vector<float> learning_rates, wds;
  float beta1 = 0.9f, beta2 = 0.999f, epsilon = 1e-6f, rescale_grad = 1;
  float lower_bound = -1, upper_bound = -1, clip_gradient = -1;
  bool bias_correction = true;
  std::vector<int64_t> step_count;
  int64_t num_tensors = 1;
};

// MXNet's limits on the multi-tensor updates' counts (their kernels take a
// fixed-size parameter block).
constexpr int64_t kMaxAdamWWeights = 50;
constexpr int64_t kMaxLambTensors = 45;

}  // namespace symx

#endif  // SYMX_GRAPH_OPS_OPTIMIZER_CONTRIB_H_
