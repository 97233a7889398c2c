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

}  // namespace symx

#endif  // SYMX_DEVICES_STABLE_MATH_H_
