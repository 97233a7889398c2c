// The contributed optimizer family's element rules (graph/ops/optimizer_contrib.cc),
// written once for the CPU kernels and (compiled by nvcc) the GPU kernels.
//
// Each is MXNet 1.9.1's kernel (src/operator/contrib/) operand for operand in
// the compute type C: float for float32, float16 and the master-copy forms,
// double for float64.
#ifndef SYMX_DEVICES_GEOMETRY_UPDATE_RULES_CONTRIB_H_
#define SYMX_DEVICES_GEOMETRY_UPDATE_RULES_CONTRIB_H_

#include <math.h>

#include "devices/host_device.h"

namespace symx {

// AdamW's parameters in the compute type; `rescale` is the call's
// rescale_grad[0]. lr, wd and eta are one weight's (the multi_ forms' lrs,
// wds, etas).
template <typename C>
struct AdamWScalars {
  C lr = 0, beta1 = 0, beta2 = 0, epsilon = 0, wd = 0, eta = 0, clip_gradient = -1, rescale = 1;
};

// Whether rescale_grad[0] lets an AdamW step happen: MXNet skips the whole
// update when it is 0, NaN or infinite (AMP's overflowed step).
SYMX_HOST_DEVICE inline bool AdamWStepTaken(float rescale) {
  return rescale != 0.0f && isfinite(rescale);
}

// One AdamW element: the states updated, the new weight returned.
// `multi_form`: the multi-tensor kernels' moving averages, beta * (s - x) + x,
// the same value with other roundings than beta * s + (1 - beta) * x.
template <typename C>
SYMX_HOST_DEVICE inline C AdamWElement(const AdamWScalars<C>& p, C w, C g, C* mean, C* var,
                                       bool multi_form) {
  const C one = C(1);
  g = p.rescale * g;
  if (p.clip_gradient >= C(0)) {
    g = g > p.clip_gradient ? p.clip_gradient : (g < -p.clip_gradient ? -p.clip_gradient : g);
  }
  if (multi_form) {
    *mean = p.beta1 * (*mean - g) + g;
    *var = p.beta2 * (*var - g * g) + g * g;
  } else {
    *mean = p.beta1 * *mean + (one - p.beta1) * g;
    *var = p.beta2 * *var + (one - p.beta2) * (g * g);
  }
  return w - p.eta * (p.lr * *mean / (sqrt(*var) + p.epsilon) + p.wd * w);
}

// GroupAdaGrad's gradient element: clip(rescale_grad * grad).
template <typename C>
SYMX_HOST_DEVICE inline C GroupAdagradGrad(C g, C rescale_grad, C clip_gradient) {
  g = g * rescale_grad;
  if (clip_gradient >= C(0)) {
    g = g > clip_gradient ? clip_gradient : (g < -clip_gradient ? -clip_gradient : g);
  }
  return g;
}

// multi_lars: one layer's rate from the sums of squares of its weight and
// gradient; the rate as it is unless both norms are positive (a NaN fails).
SYMX_HOST_DEVICE inline float LarsRate(float lr, float weights_sum_sq, float grads_sum_sq, float wd,
                                       float eta, float eps, float rescale_grad) {
  const float w_norm = sqrtf(weights_sum_sq);
  if (!(w_norm > 0.0f && grads_sum_sq > 0.0f)) return lr;
  return lr * eta * w_norm / (sqrtf(grads_sum_sq) * rescale_grad + wd * w_norm + eps);
}

// Multi-tensor LAMB's parameters in the compute type, for one tensor:
// beta1_t and beta2_t are beta^step_count, taken in the compute type.
template <typename C>
struct LambScalars {
  C beta1 = 0, beta2 = 0, epsilon = 0, clip_gradient = -1, rescale_grad = 1, wd = 0;
  C beta1_t = 0, beta2_t = 0;
  bool bias_correction = true;
};

// LAMB's first step for one element: the moving averages updated, the
// direction (Adam's, plus wd * weight) returned as float, as MXNet keeps it.
template <typename C>
SYMX_HOST_DEVICE inline float LambDirection(const LambScalars<C>& p, C w, C g, C* mean, C* var) {
  const C one = C(1);
  g = g * p.rescale_grad;
  if (p.clip_gradient >= C(0)) {
    g = g > p.clip_gradient ? p.clip_gradient : (g < -p.clip_gradient ? -p.clip_gradient : g);
  }
  *mean = p.beta1 * *mean + (one - p.beta1) * g;
  *var = p.beta2 * *var + (one - p.beta2) * g * g;
  if (p.bias_correction) {
    const C mean_hat = *mean / (one - p.beta1_t);
    const C var_hat = *var / (one - p.beta2_t);
    return static_cast<float>(mean_hat / (sqrt(var_hat) + p.epsilon) + p.wd * w);
  }
  return static_cast<float>(*mean / (sqrt(*var) + p.epsilon) + p.wd * w);
}

// LAMB's trust ratio from the sums of squares of the weight and of the
// direction: |w| bounded by lower_bound and upper_bound (each when >= 0,
// so 0 is a bound), then |w| / |d|, or 1 when either is 0.
SYMX_HOST_DEVICE inline float LambTrustRatio(float weight_sum_sq, float direction_sum_sq,
                                             float lower_bound, float upper_bound) {
  float r1 = sqrtf(weight_sum_sq);
  const float r2 = sqrtf(direction_sum_sq);
  if (lower_bound >= 0.0f) r1 = r1 > lower_bound ? r1 : lower_bound;
  if (upper_bound >= 0.0f) r1 = r1 < upper_bound ? r1 : upper_bound;
  if (r1 == 0.0f || r2 == 0.0f) return 1.0f;
  return r1 / r2;
}

}  // namespace symx

#endif  // SYMX_DEVICES_GEOMETRY_UPDATE_RULES_CONTRIB_H_
