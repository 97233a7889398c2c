// The optimizer family's update rules (graph/ops/optimizer.cc), one element at
// a time, written once for the CPU kernels and (compiled by nvcc) the GPU
// kernels, so both devices compute the same numbers.
//
// Each rule is MXNet 1.9.1's update kernel (src/operator/optimizer_op-inl.h)
// operand for operand, in the compute type C (the weight's type; float for
// float16 weights and for the multi-precision forms, whose weight is the
// float32 master copy): the same products in the same order, so float32
// results match MXNet's bit for bit where MXNet's build does not contract
// them into fused multiply-adds.
#ifndef SYMX_DEVICES_GEOMETRY_UPDATE_RULES_H_
#define SYMX_DEVICES_GEOMETRY_UPDATE_RULES_H_

#include <math.h>

#include "devices/host_device.h"

namespace symx {

enum class UpdateRule : int {
  kSGD,          // sgd_update, mp_sgd_update
  kSGDMom,       // sgd_mom_update, mp_sgd_mom_update; s0 = momentum
  kNAGMom,       // nag_mom_update, mp_nag_mom_update; s0 = momentum
  kAdam,         // adam_update; s0 = mean, s1 = var
  kRMSProp,      // rmsprop_update; s0 = n
  kRMSPropAlex,  // rmspropalex_update; s0 = n, s1 = g, s2 = delta
  kFtrl,         // ftrl_update; s0 = z, s1 = n
  kFTML,         // ftml_update; s0 = d, s1 = v, s2 = z
  kSignSGD,      // signsgd_update
  kSignum,       // signum_update; s0 = momentum
  kLambPhase1,   // lamb_update_phase1 (returns the direction g); s0 = mean, s1 = var
  kLambPhase2,   // lamb_update_phase2 (g in the gradient's place); scale = lr * r1 / r2
};

// The rules' parameters in the compute type, as MXNet casts its float
// parameters to the kernel's type before the first element. clip_gradient
// (FTML's clip_grad), clip_weights, lower_bound, upper_bound < 0: off.
template <typename C>
struct UpdateScalars {
  C lr = 0, wd = 0, rescale_grad = 1, clip_gradient = -1, momentum = 0;
  C beta1 = 0, beta2 = 0, epsilon = 0, gamma1 = 0, gamma2 = 0, clip_weights = -1;
  C lamda1 = 0, beta = 0, wd_lh = 0, t = 0, lower_bound = -1, upper_bound = -1;
  C beta1_t = 0, beta2_t = 0;  // LAMB's beta^t, computed once per call
  bool bias_correction = true;
};

template <typename C>
SYMX_HOST_DEVICE inline C ClipTo(C x, C bound) {
  return x > bound ? bound : (x < -bound ? -bound : x);
}

template <typename C>
SYMX_HOST_DEVICE inline C SignOf(C x) {
  return static_cast<C>((x > C(0)) - (x < C(0)));
}

// One element: `w` the weight (read), `g` the gradient, s0..s2 the states
// (read and written); returns what the op writes to its output. `w_after`
// (NAG only) is where the output goes: MXNet's nag_mom_update writes the
// output before it updates the momentum, whose weight decay then reads the
// output when it is the weight itself (out=weight); the multi-precision form
// always reads the new master weight. Pass &result's storage or nullptr.
template <typename C>
SYMX_HOST_DEVICE inline C ApplyUpdate(UpdateRule rule, const UpdateScalars<C>& p, C w, C g, C* s0,
                                      C* s1, C* s2, bool nag_reads_new_weight) {
  const C one = C(1);
  switch (rule) {
    case UpdateRule::kSGD:
      if (p.clip_gradient >= C(0)) {
        return (one - p.lr * p.wd) * w - p.lr * ClipTo(p.rescale_grad * g, p.clip_gradient);
      }
      return (one - p.lr * p.wd) * w - (p.lr * p.rescale_grad) * g;
    case UpdateRule::kSGDMom:
      if (p.clip_gradient >= C(0)) {
        *s0 =
            p.momentum * *s0 - p.lr * p.wd * w - p.lr * ClipTo(p.rescale_grad * g, p.clip_gradient);
      } else {
        *s0 = p.momentum * *s0 - p.lr * p.wd * w - p.lr * p.rescale_grad * g;
      }
      return w + *s0;
    case UpdateRule::kNAGMom: {
      const C rg = p.clip_gradient >= C(0) ? ClipTo(p.rescale_grad * g, p.clip_gradient)
                                           : p.rescale_grad * g;
      *s0 = p.momentum * *s0;
      const C out = w - *s0 + (p.momentum + one) * (*s0 - (p.lr * (rg + (p.wd * w))));
      const C w_decay = nag_reads_new_weight ? out : w;
      *s0 = *s0 - (p.lr * (rg + (p.wd * w_decay)));
      return out;
    }
    case UpdateRule::kAdam: {
      C gr = g * p.rescale_grad + w * p.wd;
      if (p.clip_gradient >= C(0)) gr = ClipTo(gr, p.clip_gradient);
      *s0 = p.beta1 * *s0 + (one - p.beta1) * gr;
      *s1 = p.beta2 * *s1 + (one - p.beta2) * gr * gr;
      return w - p.lr * *s0 / (sqrt(*s1) + p.epsilon);
    }
    case UpdateRule::kRMSProp: {
      C gr = p.rescale_grad * g + p.wd * w;
      if (p.clip_gradient >= C(0)) gr = ClipTo(gr, p.clip_gradient);
      *s0 = (one - p.gamma1) * (gr * gr) + p.gamma1 * *s0;
      C out = w - p.lr * (gr / sqrt(*s0 + p.epsilon));
      if (p.clip_weights >= C(0)) out = ClipTo(out, p.clip_weights);
      return out;
    }
    case UpdateRule::kRMSPropAlex: {
      C gr = p.rescale_grad * g + p.wd * w;
      if (p.clip_gradient >= C(0)) gr = ClipTo(gr, p.clip_gradient);
      *s0 = (one - p.gamma1) * gr * gr + p.gamma1 * *s0;
      *s1 = (one - p.gamma1) * gr + p.gamma1 * *s1;
      *s2 = p.gamma2 * *s2 - (p.lr * (gr) / (sqrt(*s0 - *s1 * *s1 + p.epsilon)));
      if (p.clip_weights >= C(0)) return ClipTo(w + *s2, p.clip_weights);
      return w + *s2;
    }
    case UpdateRule::kFtrl: {
      C gr = g * p.rescale_grad;
      if (p.clip_gradient >= C(0)) gr = ClipTo(gr, p.clip_gradient);
      // s0 = z, s1 = n (the inputs' order, weight, grad, z, n).
      *s0 += gr - (sqrt(*s1 + gr * gr) - sqrt(*s1)) * w / p.lr;
      *s1 += gr * gr;
      const C abs_z = *s0 < C(0) ? -*s0 : *s0;
      return (SignOf(*s0) * p.lamda1 - *s0) / ((p.beta + sqrt(*s1)) / p.lr + p.wd) *
             static_cast<C>(abs_z > p.lamda1);
    }
    case UpdateRule::kFTML: {
      // s0 = d, s1 = v, s2 = z.
      const C gi = p.clip_gradient >= C(0) ? ClipTo(p.rescale_grad * g + p.wd * w, p.clip_gradient)
                                           : (p.rescale_grad * g + p.wd * w);
      *s1 = p.beta2 * *s1 + (one - p.beta2) * (gi * gi);
      const C d_t =
          (one - pow(p.beta1, p.t)) / p.lr * (sqrt(*s1 / (one - pow(p.beta2, p.t))) + p.epsilon);
      *s2 = p.beta1 * *s2 + (one - p.beta1) * gi - (d_t - p.beta1 * *s0) * w;
      *s0 = d_t;
      return -*s2 / d_t;
    }
    case UpdateRule::kSignSGD:
      // clip_gradient does not matter: only the sign does (as MXNet).
      return (one - p.lr * p.wd) * w - (p.lr) * SignOf(g);
    case UpdateRule::kSignum:
      if (p.clip_gradient >= C(0)) {
        *s0 = p.momentum * *s0 - (one - p.momentum) * p.wd * w -
              (one - p.momentum) * ClipTo(p.rescale_grad * g, p.clip_gradient);
      } else {
        *s0 = p.momentum * *s0 - (one - p.momentum) * p.wd * w -
              (one - p.momentum) * p.rescale_grad * g;
      }
      return (one - p.lr * p.wd_lh) * w + (p.lr) * SignOf(*s0);
    case UpdateRule::kLambPhase1: {
      C gr = g * p.rescale_grad;
      if (p.clip_gradient >= C(0)) gr = ClipTo(gr, p.clip_gradient);
      *s0 = p.beta1 * *s0 + (one - p.beta1) * gr;
      *s1 = p.beta2 * *s1 + (one - p.beta2) * gr * gr;
      if (p.bias_correction) {
        // MXNet divides the mean by (1. - beta1^t) in double, the variance
        // by (1 - beta2^t) in the kernel's type.
        const C mean_hat =
            static_cast<C>(static_cast<double>(*s0) / (1.0 - static_cast<double>(p.beta1_t)));
        const C var_hat = *s1 / (one - p.beta2_t);
        return mean_hat / (sqrt(var_hat) + p.epsilon) + p.wd * w;
      }
      return *s0 / (sqrt(*s1) + p.epsilon) + p.wd * w;
    }
    case UpdateRule::kLambPhase2:
      // p.lr holds the call's scaled rate (LambScale).
      return w - p.lr * g;
  }
  return w;
}

// lamb_update_phase2's rate: lr * r1 / r2 with r1 bounded by lower_bound and
// upper_bound (each when >= 0), or lr when either norm is 0.
template <typename C>
SYMX_HOST_DEVICE inline C LambScale(const UpdateScalars<C>& p, C r1, C r2) {
  if (p.lower_bound >= C(0)) r1 = r1 > p.lower_bound ? r1 : p.lower_bound;
  if (p.upper_bound >= C(0)) r1 = r1 < p.upper_bound ? r1 : p.upper_bound;
  if (r1 == C(0) || r2 == C(0)) return p.lr * C(1);
  return p.lr * r1 / r2;
}

}  // namespace symx

#endif  // SYMX_DEVICES_GEOMETRY_UPDATE_RULES_H_
