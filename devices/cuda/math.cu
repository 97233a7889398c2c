// The unary math ops and their gradients on floating types (float16 and
// bfloat16 computed in float), and _contrib_quadratic (integers too).
#include "devices/cuda/elem_types.cuh"
#include "devices/cuda/math_launch.h"
#include "devices/geometry/special_functions.h"

namespace symx {
namespace cuda {
namespace {

constexpr double kPi = 3.14159265358979323846;

// MXNet 1.9.1's rint: a tie goes to the lower neighbour.
template <typename C>
__device__ __forceinline__ C RintTiesDown(C x) {
  const C lo = floor(x), hi = ceil(x);
  return (x - lo) <= (hi - x) ? lo : hi;
}

template <typename C>
__device__ C ApplyMath(MathFn f, C x, C param) {
  switch (f) {
    case MathFn::kLog2:
      return log2(x);
    // float through double where CUDA's float function is several ulp off
    // (the CPU does the same; docs/numerics.md).
    case MathFn::kLog10:
      return static_cast<C>(log10(static_cast<double>(x)));
    case MathFn::kLog1p:
      return log1p(x);
    case MathFn::kExpm1:
      return expm1(x);
    case MathFn::kSin:
      return sin(x);
    case MathFn::kCos:
      return cos(x);
    case MathFn::kTan:
      return tan(x);
    case MathFn::kArcsin:
      return asin(x);
    case MathFn::kArccos:
      return acos(x);
    case MathFn::kArctan:
      return atan(x);
    case MathFn::kSinh:
      return sinh(x);
    case MathFn::kCosh:
      return cosh(x);
    case MathFn::kArcsinh:
      return asinh(x);
    case MathFn::kArccosh:
      return acosh(x);
    case MathFn::kArctanh:
      return atanh(x);
    case MathFn::kDegrees:
      return x * static_cast<C>(180.0 / kPi);
    case MathFn::kRadians:
      return x * static_cast<C>(kPi / 180.0);
    case MathFn::kReciprocal:
      return C(1) / x;
    case MathFn::kRsqrt:
      return static_cast<C>(1.0 / sqrt(static_cast<double>(x)));
    case MathFn::kCbrt:
      return static_cast<C>(cbrt(static_cast<double>(x)));
    case MathFn::kRcbrt:
      return static_cast<C>(1.0 / cbrt(static_cast<double>(x)));
    case MathFn::kErf:
      return erf(x);
    case MathFn::kErfinv:
      return static_cast<C>(erfinv(static_cast<double>(x)));
    case MathFn::kGamma:
      return static_cast<C>(tgamma(static_cast<double>(x)));
    case MathFn::kGammaln:
      return static_cast<C>(lgamma(static_cast<double>(x)));
    case MathFn::kFloor:
      return floor(x);
    case MathFn::kCeil:
      return ceil(x);
    case MathFn::kRound:
      return round(x);
    case MathFn::kRint:
      return RintTiesDown(x);
    case MathFn::kTrunc:
      return trunc(x);
    case MathFn::kSign:
      return x > C(0) ? C(1) : (x < C(0) ? C(-1) : C(0));
    case MathFn::kSmoothL1: {
      const C s2 = param * param;
      const C a = fabs(x);
      return a < C(1) / s2 ? C(0.5) * s2 * x * x : a - C(0.5) / s2;
    }
  }
  return x;
}

template <typename C>
__device__ C ApplyMathGrad(MathGradFn f, C g, C v, C param) {
  switch (f) {
    case MathGradFn::kLog2:
      return g / (v * static_cast<C>(0.69314718055994530942));
    case MathGradFn::kLog10:
      return g / (v * static_cast<C>(2.30258509299404568402));
    case MathGradFn::kLog1p:
      return g / (v + C(1));
    case MathGradFn::kExpm1FromOut:
      return g * (v + C(1));
    case MathGradFn::kSin:
      return g * cos(v);
    case MathGradFn::kCos:
      return -g * sin(v);
    case MathGradFn::kTanFromOut:
      return g * (C(1) + v * v);
    case MathGradFn::kArcsin:
      return g / sqrt(C(1) - v * v);
    case MathGradFn::kArccos:
      return -g / sqrt(C(1) - v * v);
    case MathGradFn::kArctan:
      return g / (C(1) + v * v);
    case MathGradFn::kSinh:
      return g * cosh(v);
    case MathGradFn::kCosh:
      return g * sinh(v);
    // No x^2: it overflows float from |x| = 1.8e19 (as on the CPU).
    case MathGradFn::kArcsinh:
      return g / hypot(v, C(1));
    case MathGradFn::kArccosh:
      return g / (sqrt(v - C(1)) * sqrt(v + C(1)));
    case MathGradFn::kArctanh:
      return g / (C(1) - v * v);
    case MathGradFn::kDegrees:
      return g * static_cast<C>(180.0 / kPi);
    case MathGradFn::kRadians:
      return g * static_cast<C>(kPi / 180.0);
    case MathGradFn::kReciprocal:
      return -g / (v * v);
    case MathGradFn::kRsqrt:
      return g * (C(-0.5) / (v * sqrt(v)));
    case MathGradFn::kCbrtFromOut:
      return g / (C(3) * v * v);
    case MathGradFn::kRcbrt:
      return -g / (C(3) * v * cbrt(v));
    case MathGradFn::kErf:
      return g * static_cast<C>(1.12837916709551257390) * exp(-v * v);
    case MathGradFn::kErfinvFromOut:
      return g * static_cast<C>(0.88622692545275801365) * exp(v * v);
    case MathGradFn::kGamma: {
      const double d = static_cast<double>(v);
      return g * static_cast<C>(tgamma(d) * Digamma(d));
    }
    case MathGradFn::kGammaln:
      return g * static_cast<C>(Digamma(static_cast<double>(v)));
    case MathGradFn::kSmoothL1: {
      const C s2 = param * param;
      if (fabs(v) < C(1) / s2) return g * s2 * v;
      return v > C(0) ? g : (v < C(0) ? -g : C(0));
    }
  }
  return g;
}

template <typename T>
__global__ void MathKernel(MathFn f, const T* x, Acc<T> param, T* y, int64_t n) {
  SYMX_GRID_STRIDE(i, n) { Store(y, i, ApplyMath<Acc<T>>(f, Load(x, i), param)); }
}

template <typename T>
__global__ void MathGradKernel(MathGradFn f, const T* g, const T* v, Acc<T> param, T* dx,
                               int64_t n) {
  SYMX_GRID_STRIDE(i, n) { Store(dx, i, ApplyMathGrad<Acc<T>>(f, Load(g, i), Load(v, i), param)); }
}

template <typename T>
using QuadC = std::conditional_t<std::is_same_v<T, double>, double, float>;

template <typename T>
__global__ void QuadraticKernel(const T* x, QuadC<T> a, QuadC<T> b, QuadC<T> c, T* y, int64_t n) {
  SYMX_GRID_STRIDE(i, n) {
    const QuadC<T> v = static_cast<QuadC<T>>(Load(x, i));
    const QuadC<T> r = v * (a * v + b) + c;
    if constexpr (std::is_integral_v<T>) {
      y[i] = CastValueOnDevice<T>(static_cast<double>(r));
    } else {
      Store(y, i, static_cast<Acc<T>>(r));
    }
  }
}

template <typename T>
__global__ void QuadraticGradKernel(const T* g, const T* x, Acc<T> a, Acc<T> b, T* dx,
                                    int64_t n) {
  SYMX_GRID_STRIDE(i, n) { Store(dx, i, Load(g, i) * (Acc<T>(2) * a * Load(x, i) + b)); }
}

}  // namespace

cudaError_t LaunchQuadratic(Elem t, const void* x, double a, double b, double c, void* y,
                            int64_t n, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  switch (t) {
    SYMX_CUDA_CASE(Elem::kU8, T, uint8_t, QuadraticKernel<T><<<GridFor(n), kThreads, 0, s>>>(
                                              static_cast<const T*>(x), a, b, c,
                                              static_cast<T*>(y), n))
    SYMX_CUDA_CASE(Elem::kI8, T, int8_t, QuadraticKernel<T><<<GridFor(n), kThreads, 0, s>>>(
                                             static_cast<const T*>(x), a, b, c,
                                             static_cast<T*>(y), n))
    SYMX_CUDA_CASE(Elem::kI32, T, int32_t, QuadraticKernel<T><<<GridFor(n), kThreads, 0, s>>>(
                                               static_cast<const T*>(x), a, b, c,
                                               static_cast<T*>(y), n))
    SYMX_CUDA_CASE(Elem::kI64, T, int64_t, QuadraticKernel<T><<<GridFor(n), kThreads, 0, s>>>(
                                               static_cast<const T*>(x), a, b, c,
                                               static_cast<T*>(y), n))
    default:
      SYMX_CUDA_FLOAT_SWITCH(t, T, {
        QuadraticKernel<T><<<GridFor(n), kThreads, 0, s>>>(
            static_cast<const T*>(x), static_cast<QuadC<T>>(a), static_cast<QuadC<T>>(b),
            static_cast<QuadC<T>>(c), static_cast<T*>(y), n);
      });
  }
  return LastLaunchError();
}

cudaError_t LaunchQuadraticGrad(Elem t, const void* g, const void* x, double a, double b, void* dx,
                                int64_t n, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    QuadraticGradKernel<T><<<GridFor(n), kThreads, 0, s>>>(
        static_cast<const T*>(g), static_cast<const T*>(x), static_cast<Acc<T>>(a),
        static_cast<Acc<T>>(b), static_cast<T*>(dx), n);
  });
  return LastLaunchError();
}

cudaError_t LaunchMath(MathFn f, Elem t, const void* x, double param, void* y, int64_t n,
                       cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    MathKernel<T><<<GridFor(n), kThreads, 0, s>>>(
        f, static_cast<const T*>(x), static_cast<Acc<T>>(param), static_cast<T*>(y), n);
  });
  return LastLaunchError();
}

cudaError_t LaunchMathGrad(MathGradFn f, Elem t, const void* g, const void* v, double param,
                           void* dx, int64_t n, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    MathGradKernel<T>
        <<<GridFor(n), kThreads, 0, s>>>(f, static_cast<const T*>(g), static_cast<const T*>(v),
                                         static_cast<Acc<T>>(param), static_cast<T*>(dx), n);
  });
  return LastLaunchError();
}

}  // namespace cuda
}  // namespace symx
