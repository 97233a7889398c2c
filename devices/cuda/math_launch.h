// Launchers of the math CUDA kernels (devices/cuda/math.cu), declared in plain
// C++ for the kernel registrations (devices/cuda/launch.h says why and what
// every launcher returns).
#ifndef SYMX_DEVICES_CUDA_MATH_LAUNCH_H_
#define SYMX_DEVICES_CUDA_MATH_LAUNCH_H_

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "devices/cuda/launch.h"

namespace symx {
namespace cuda {

// The unary math ops of graph/ops/math.cc on floating types, and their
// gradients (from the input x or the output y, as each backward op takes;
// devices/cpu/math_kernels.cc has the same rules). `param` is smooth_l1's
// sigma.
enum class MathFn {
  kLog2,
  kLog10,
  kLog1p,
  kExpm1,
  kSin,
  kCos,
  kTan,
  kArcsin,
  kArccos,
  kArctan,
  kSinh,
  kCosh,
  kArcsinh,
  kArccosh,
  kArctanh,
  kDegrees,
  kRadians,
  kReciprocal,
  kRsqrt,
  kCbrt,
  kRcbrt,
  kErf,
  kErfinv,
  kGamma,
  kGammaln,
  kFloor,
  kCeil,
  kRound,
  kRint,
  kTrunc,
  kSign,
  kSmoothL1,
};
enum class MathGradFn {
  kLog2,
  kLog10,
  kLog1p,
  kExpm1FromOut,
  kSin,
  kCos,
  kTanFromOut,
  kArcsin,
  kArccos,
  kArctan,
  kSinh,
  kCosh,
  kArcsinh,
  kArccosh,
  kArctanh,
  kDegrees,
  kRadians,
  kReciprocal,
  kRsqrt,
  kCbrtFromOut,
  kRcbrt,
  kErf,
  kErfinvFromOut,
  kGamma,
  kGammaln,
  kSmoothL1,
};
cudaError_t LaunchMath(MathFn f, Elem t, const void* x, double param, void* y, int64_t n,
                       cudaStream_t s);
cudaError_t LaunchMathGrad(MathGradFn f, Elem t, const void* g, const void* v, double param,
                           void* dx, int64_t n, cudaStream_t s);

// _contrib_quadratic: y = x (a x + b) + c in float (double for float64), in
// the float types and uint8, int8, int32, int64 (the float result truncated
// through int64); the gradient dx = g (2 a x + b), float types.
cudaError_t LaunchQuadratic(Elem t, const void* x, double a, double b, double c, void* y, int64_t n,
                            cudaStream_t s);
cudaError_t LaunchQuadraticGrad(Elem t, const void* g, const void* x, double a, double b, void* dx,
                                int64_t n, cudaStream_t s);

}  // namespace cuda
}  // namespace symx

#endif  // SYMX_DEVICES_CUDA_MATH_LAUNCH_H_
