// The contributed optimizer family's parameters (graph/ops/optimizer_contrib.h)
// as its element rules take them (devices/geometry/update_rules_contrib.h),
// for the CPU and the CUDA kernels alike.
#ifndef SYMX_DEVICES_GEOMETRY_UPDATE_SCALARS_CONTRIB_H_
#define SYMX_DEVICES_GEOMETRY_UPDATE_SCALARS_CONTRIB_H_

#include <cmath>
#include <cstdint>

#include "devices/geometry/update_rules_contrib.h"
#include "graph/ops/optimizer_contrib.h"

namespace symx {

// AdamW's scalars in the kernel's type C (rescale is read per call: the CPU
// sets it, the CUDA kernel reads it on the device).
template <typename C>
AdamWScalars<C> AdamWScalarsOf(const AdamWParam& p) {
  AdamWScalars<C> s;
  s.lr = static_cast<C>(p.lr);
  s.beta1 = static_cast<C>(p.beta1);
  s.beta2 = static_cast<C>(p.beta2);
  s.epsilon = static_cast<C>(p.epsilon);
  s.wd = static_cast<C>(p.wd);
  s.eta = static_cast<C>(p.eta);
  s.clip_gradient = static_cast<C>(p.clip_gradient);
  return s;
}

// Tensor k's LAMB scalars: beta^t with t its step count, the power taken in
// the kernel's type as MXNet's CPU kernel does.
template <typename C>
LambScalars<C> LambScalarsOf(const MultiLambParam& p, int64_t k) {
  LambScalars<C> s;
  s.beta1 = static_cast<C>(p.beta1);
  s.beta2 = static_cast<C>(p.beta2);
  s.epsilon = static_cast<C>(p.epsilon);
  s.clip_gradient = static_cast<C>(p.clip_gradient);
  s.rescale_grad = static_cast<C>(p.rescale_grad);
  s.wd = static_cast<C>(p.wds[k]);
  s.bias_correction = p.bias_correction;
  const C t = static_cast<C>(p.step_count[k]);
  s.beta1_t = std::pow(s.beta1, t);
  s.beta2_t = std::pow(s.beta2, t);
  return s;
}

}  // namespace symx

#endif  // SYMX_DEVICES_GEOMETRY_UPDATE_SCALARS_CONTRIB_H_
