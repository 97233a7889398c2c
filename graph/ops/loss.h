// Parameters of the loss heads (SoftmaxOutput, the regression outputs, MakeLoss), shared by
// the schema and the kernels.
#ifndef SYMX_GRAPH_OPS_LOSS_H_
#define SYMX_GRAPH_OPS_LOSS_H_

#include <string>

#include "graph/param.h"

namespace symx {

struct SoftmaxOutputParam : OpParam {
  double grad_scale = 1;
  double ignore_label = -1;
  bool multi_output = false;
  bool use_ignore = false;
  bool preserve_shape = false;
  std::string normalization = "null";
  bool out_grad = false;
  double smooth_alpha = 0;
};

struct RegressionParam : OpParam {
  double grad_scale = 1;
};

struct MakeLossParam : OpParam {
  double grad_scale = 1;
  double valid_thresh = 0;
  std::string normalization = "null";
};

// SVMOutput's float32 parameters.
struct SVMOutputParam : OpParam {
  double margin = 1;
  double regularization_coefficient = 1;
  bool use_linear = false;
};

// IdentityAttachKLSparseReg's float32 parameters.
struct KLSparseRegParam : OpParam {
  double sparseness_target = static_cast<float>(0.1);
  double penalty = static_cast<float>(0.001);
  double momentum = static_cast<float>(0.9);
};

}  // namespace symx

#endif  // SYMX_GRAPH_OPS_LOSS_H_
