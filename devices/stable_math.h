// Accurate scalar forms of the logistic family, shared by the CPU kernels'
// scalar paths, the RNN gates and the CUDA kernels (nvcc compiles this too),
// so every device computes one formula.
//
// Why not 1 / (1 + exp(-x)) everywhere: for x < -88.7 (float) exp(-x)
// overflows and the quotient is 0, where the true value is a denormal down
// to x = -103.9; e / (1 + e) with e = exp(x) keeps it. For x >= 0 the two
// forms are the same, and that one is MXNet's, so ties near 1 (detection
// scores) round as MXNet rounds them. Error: within 2 ulp of the correctly
// rounded value (tools/ulp measures it over every float32).
#ifndef SYMX_DEVICES_STABLE_MATH_H_
#define SYMX_DEVICES_STABLE_MATH_H_

#include <math.h>

#include "devices/host_device.h"

namespace symx {

// 1 / (1 + e^-x): one exp of -|x| (never overflows) and one division.
template <typename C>
SYMX_HOST_DEVICE inline C StableSigmoid(C x) {
  const C e = exp(-fabs(x));
  return (x < C(0) ? e : C(1)) / (C(1) + e);
}

// log(1 + e^x) = max(x, 0) + log1p(e^-|x|), finite for every finite x.
template <typename C>
SYMX_HOST_DEVICE inline C StableSoftplus(C x) {
  return fmax(x, C(0)) + log1p(exp(-fabs(x)));
}

// log(sigmoid(x)) = min(x, 0) - log1p(e^-|x|).
template <typename C>
SYMX_HOST_DEVICE inline C StableLogSigmoid(C x) {
  return fmin(x, C(0)) - log1p(exp(-fabs(x)));
}

// tanh(softplus(x)), mish's factor, rewritten exactly in u = e^-|x| so that
// nothing overflows or cancels: x >= 0: (1 + 2u) / (1 + 2u + 2u^2); x < 0:
// u (2 + u) / (2 + 2u + u^2). Where u is denormal (x below -80 in float,
// -700 in double) it has lost its digits; StableMish widens there.
template <typename C>
SYMX_HOST_DEVICE inline C StableTanhSoftplus(C x) {
  const C u = exp(-fabs(x));
  return x >= C(0) ? (C(1) + C(2) * u) / (C(1) + C(2) * u + C(2) * u * u)
                   : u * (C(2) + u) / (C(2) + C(2) * u + u * u);
}

// mish(x) = x tanh(softplus(x)); float computes below -80 in double.
template <typename C>
SYMX_HOST_DEVICE inline C StableMish(C x) {
  if (sizeof(C) == sizeof(float) && x < C(-80)) {
    const double w = static_cast<double>(x);
    return static_cast<C>(w * StableTanhSoftplus(w));
  }
  return x * StableTanhSoftplus(x);
}

// log_softmax's log of the sum of exps, log(sum_j e^z_j) for z = x - max(x),
// gathered as the number of z that are 0 (the maxima) and the sum of the
// others' exps, so it is log1p of that sum when the maximum is unique: the
// largest element's log-probability keeps its digits (log_softmax([28.2, 0])
// is -5.6e-13, not log(1 + 5.6e-13) = 0). Shared by the CPU's strided blocks
// and the GPU's kernels. SoftmaxExpTerm adds one z; a NaN z reaches `others`
// (z * 0), so a NaN row stays NaN throughout.
template <typename C>
SYMX_HOST_DEVICE inline void SoftmaxExpTerm(C z, C* others, C* at_max) {
  *others += z < C(0) ? exp(z) : z * C(0);
  *at_max += z == C(0);
}
template <typename C>
SYMX_HOST_DEVICE inline C LogSumOfExps(C at_max, C others) {
  return at_max == C(1) ? log1p(others) : log(at_max + others);
}

}  // namespace symx

#endif  // SYMX_DEVICES_STABLE_MATH_H_
