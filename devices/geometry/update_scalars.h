// The optimizer family's parameters (graph/ops/optimizer.h) as the update
// rules take them (devices/geometry/update_rules.h), for the CPU and the
// CUDA kernels alike.
#ifndef SYMX_DEVICES_GEOMETRY_UPDATE_SCALARS_H_
#define SYMX_DEVICES_GEOMETRY_UPDATE_SCALARS_H_

#include <cmath>

#include "devices/geometry/update_rules.h"
#include "graph/ops/optimizer.h"

namespace symx {

// MXNet casts its float32 parameters to the kernel's type C before the first
// element, and computes LAMB's beta^t once per call.
template <typename C>
UpdateScalars<C> ScalarsOf(const UpdateParam& p) {
  UpdateScalars<C> s;
  s.lr = static_cast<C>(p.lr);
  s.wd = static_cast<C>(p.wd);
  s.rescale_grad = static_cast<C>(p.rescale_grad);
  s.clip_gradient = static_cast<C>(p.clip_gradient);
  s.momentum = static_cast<C>(p.momentum);
  s.beta1 = static_cast<C>(p.beta1);
  s.beta2 = static_cast<C>(p.beta2);
  s.epsilon = static_cast<C>(p.epsilon);
  s.gamma1 = static_cast<C>(p.gamma1);
  s.gamma2 = static_cast<C>(p.gamma2);
  s.clip_weights = static_cast<C>(p.clip_weights);
  s.lamda1 = static_cast<C>(p.lamda1);
  s.beta = static_cast<C>(p.beta);
  s.wd_lh = static_cast<C>(p.wd_lh);
  s.lower_bound = static_cast<C>(p.lower_bound);
  s.upper_bound = static_cast<C>(p.upper_bound);
  s.t = static_cast<C>(p.t);
  // std::pow(float beta, int t): a double, then the kernel's type.
  s.beta1_t = static_cast<C>(std::pow(static_cast<double>(p.beta1), static_cast<int>(p.t)));
  s.beta2_t = static_cast<C>(std::pow(static_cast<double>(p.beta2), static_cast<int>(p.t)));
  s.bias_correction = p.bias_correction;
  return s;
}

}  // namespace symx

#endif  // SYMX_DEVICES_GEOMETRY_UPDATE_SCALARS_H_
