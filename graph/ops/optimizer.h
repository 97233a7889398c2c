// The optimizer family's parameters (graph/ops/optimizer.cc), shared by the
// schemas and the kernels: one struct for every update op, each op reading
// the fields its MXNet parameter struct has.
#ifndef SYMX_GRAPH_OPS_OPTIMIZER_H_
#define SYMX_GRAPH_OPS_OPTIMIZER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "graph/param.h"

namespace symx {

struct UpdateParam : OpParam {
  // MXNet keeps these as float32 fields: the schema rounds them so.
  float lr = 0, wd = 0, rescale_grad = 1, clip_gradient = -1, momentum = 0;
  float beta1 = 0, beta2 = 0, epsilon = 0, gamma1 = 0, gamma2 = 0, clip_weights = -1;
  float lamda1 = 0, beta = 0, wd_lh = 0, lower_bound = -1, upper_bound = -1;
  int64_t t = 0;  // ftml_update's and lamb_update_phase1's step count
  bool bias_correction = true;
  // The multi_ forms: num_weights groups of inputs, each with its rate and
  // weight decay (lrs, wds; the preloaded_ forms take them as inputs).
  int64_t num_weights = 1;
  std::vector<float> lrs, wds;
};

// The inputs of each weight in a multi_ update op (weight, grad, then mom
// and/or weight32), and whether lrs and wds come last as two inputs.
struct MultiUpdateLayout {
  bool momentum = false;
  bool mixed_precision = false;
  bool preloaded = false;
  int stride() const { return 2 + (momentum ? 1 : 0) + (mixed_precision ? 1 : 0); }
};
// The layout of a multi_sgd_* / preloaded_multi_sgd_* op by name.
MultiUpdateLayout MultiUpdateLayoutOf(const std::string& op_name);

}  // namespace symx

#endif  // SYMX_GRAPH_OPS_OPTIMIZER_H_
