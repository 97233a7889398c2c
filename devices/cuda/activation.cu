// The activation family's CUDA kernels (launchers in devices/cuda/activation_launch.h).
//
// LeakyReLU on the GPU: leaky, elu, selu, gelu, prelu and rrelu, with their
// gradients; hard_sigmoid and its gradient.
#include "devices/cuda/activation_launch.h"
#include "devices/cuda/elem_types.cuh"

namespace symx {
namespace cuda {
namespace {

constexpr double kSeluAlpha = 1.6732632423543772848170429916717;

constexpr double kSeluLambda = 1.0507009873554804934193349852946;

constexpr double kInvSqrt2Pi = 0.39894228040143267794;

// Phi(x), the standard normal CDF, from CUDA's normcdf (erfc inside): the
// tails do not cancel as (1 + erf(x / sqrt(2))) / 2 does for x < -3.
__device__ __forceinline__ float NormalCdf(float x) { return normcdff(x); }

__device__ __forceinline__ double NormalCdf(double x) { return normcdf(x); }

template <typename C>
__device__ __forceinline__ C Leaky(LeakyFn f, C x, C slope) {
  switch (f) {
    case LeakyFn::kLeaky:
      return x > C(0) ? x : x * slope;
    case LeakyFn::kELU:
      return x > C(0) ? x : expm1(x) * slope;
    case LeakyFn::kSELU:
      return x > C(0) ? x * C(kSeluLambda) : expm1(x) * C(kSeluLambda * kSeluAlpha);
    case LeakyFn::kGELU:
      return x * NormalCdf(x);
  }
  return x;
}

template <typename C>
__device__ __forceinline__ C LeakyGrad(LeakyFn f, C g, C x, C y, C slope) {
  switch (f) {
    case LeakyFn::kLeaky:
      return x > C(0) ? g : g * slope;
    case LeakyFn::kELU:
      return x > C(0) ? g : g * (y + slope);
    case LeakyFn::kSELU:
      return x > C(0) ? g * C(kSeluLambda) : g * (y + C(kSeluLambda * kSeluAlpha));
    case LeakyFn::kGELU:
      return g * (NormalCdf(x) + x * exp(x * x * C(-0.5)) * C(kInvSqrt2Pi));
  }
  return g;
}

template <typename T>
__global__ void LeakyKernel(LeakyFn f, const T* x, Acc<T> slope, T* y, int64_t n) {
  SYMX_GRID_STRIDE(i, n) { Store(y, i, Leaky<Acc<T>>(f, Load(x, i), slope)); }
}

template <typename T>
__global__ void LeakyGradKernel(LeakyFn f, const T* g, const T* x, const T* y, Acc<T> slope, T* dx,
                                int64_t n) {
  SYMX_GRID_STRIDE(i, n) {
    Store(dx, i, LeakyGrad<Acc<T>>(f, Load(g, i), Load(x, i), Load(y, i), slope));
  }
}

template <typename T>
__device__ __forceinline__ Acc<T> SlopeAt(const T* gamma, const T* mask, const ChannelDims& d,
                                          int64_t i) {
  if (gamma == nullptr) return Load(mask, i);
  return Load(gamma, d.shared ? 0 : (i / d.inner) % d.channels);
}

template <typename T>
__global__ void PReLUKernel(const T* x, const T* gamma, const T* mask, ChannelDims d, T* y,
                            int64_t n) {
  SYMX_GRID_STRIDE(i, n) {
    const Acc<T> v = Load(x, i);
    Store(y, i, v > Acc<T>(0) ? v : SlopeAt(gamma, mask, d, i) * v);
  }
}

template <typename T>
__global__ void PReLUGradKernel(const T* g, const T* x, const T* gamma, const T* mask,
                                ChannelDims d, T* dx, T* terms, int64_t n) {
  SYMX_GRID_STRIDE(i, n) {
    const Acc<T> v = Load(x, i), gv = Load(g, i);
    const bool pos = v > Acc<T>(0);
    if (dx != nullptr) Store(dx, i, pos ? gv : SlopeAt(gamma, mask, d, i) * gv);
    if (terms != nullptr) Store(terms, i, pos ? Acc<T>(0) : v * gv);
  }
}

__device__ __forceinline__ uint64_t Mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

template <typename T>
__global__ void UniformKernel(uint64_t seed, double lo, double width, T* y, int64_t n) {
  SYMX_GRID_STRIDE(i, n) {
    const uint64_t r = Mix(seed + static_cast<uint64_t>(i + 1) * 0x9e3779b97f4a7c15ull);
    const double u = static_cast<double>(r >> 11) * 0x1.0p-53;  // [0, 1)
    Store(y, i, static_cast<Acc<T>>(lo + width * u));
  }
}

// hard_sigmoid in the compute type (alpha and beta float32 values), the sum
// rounded to the dtype once before the clip, as on the CPU.
template <typename T>
__global__ void HardSigmoidKernel(const T* x, Acc<T> alpha, Acc<T> beta, T* y, int64_t n) {
  SYMX_GRID_STRIDE(i, n) {
    Acc<T> r = alpha * Load(x, i) + beta;
    Store(y, i, r);
    r = Load(y, i);
    Store(y, i, r > Acc<T>(1) ? Acc<T>(1) : (r < Acc<T>(0) ? Acc<T>(0) : r));
  }
}

template <typename T>
__global__ void HardSigmoidGradKernel(const T* g, const T* x, Acc<T> alpha, Acc<T> beta, T* dx,
                                      int64_t n) {
  SYMX_GRID_STRIDE(i, n) {
    const Acc<T> v = alpha * Load(x, i) + beta;
    Store(dx, i, v > Acc<T>(0) && v < Acc<T>(1) ? Load(g, i) * alpha : Acc<T>(0));
  }
}

}  // namespace

cudaError_t LaunchLeaky(LeakyFn f, Elem t, const void* x, double slope, void* y, int64_t n,
                        cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    LeakyKernel<T><<<GridFor(n), kThreads, 0, s>>>(
        f, static_cast<const T*>(x), static_cast<Acc<T>>(slope), static_cast<T*>(y), n);
  });
  return LastLaunchError();
}

cudaError_t LaunchLeakyGrad(LeakyFn f, Elem t, const void* g, const void* x, const void* y,
                            double slope, void* dx, int64_t n, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    LeakyGradKernel<T><<<GridFor(n), kThreads, 0, s>>>(
        f, static_cast<const T*>(g), static_cast<const T*>(x), static_cast<const T*>(y),
        static_cast<Acc<T>>(slope), static_cast<T*>(dx), n);
  });
  return LastLaunchError();
}

cudaError_t LaunchPReLU(Elem t, const void* x, const void* gamma, const void* mask,
                        const ChannelDims& d, void* y, cudaStream_t s) {
  const int64_t n = d.outer * d.channels * d.inner;
  if (n == 0) return cudaSuccess;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    PReLUKernel<T>
        <<<GridFor(n), kThreads, 0, s>>>(static_cast<const T*>(x), static_cast<const T*>(gamma),
                                         static_cast<const T*>(mask), d, static_cast<T*>(y), n);
  });
  return LastLaunchError();
}

cudaError_t LaunchPReLUGrad(Elem t, const void* g, const void* x, const void* gamma,
                            const void* mask, const ChannelDims& d, void* dx, void* terms,
                            cudaStream_t s) {
  const int64_t n = d.outer * d.channels * d.inner;
  if (n == 0) return cudaSuccess;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    PReLUGradKernel<T><<<GridFor(n), kThreads, 0, s>>>(
        static_cast<const T*>(g), static_cast<const T*>(x), static_cast<const T*>(gamma),
        static_cast<const T*>(mask), d, static_cast<T*>(dx), static_cast<T*>(terms), n);
  });
  return LastLaunchError();
}

cudaError_t LaunchUniform(Elem t, uint64_t seed, double lo, double hi, void* y, int64_t n,
                          cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    UniformKernel<T><<<GridFor(n), kThreads, 0, s>>>(seed, lo, hi - lo, static_cast<T*>(y), n);
  });
  return LastLaunchError();
}

cudaError_t LaunchHardSigmoid(Elem t, const void* x, double alpha, double beta, void* y,
                              int64_t n, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    HardSigmoidKernel<T><<<GridFor(n), kThreads, 0, s>>>(
        static_cast<const T*>(x), static_cast<Acc<T>>(alpha), static_cast<Acc<T>>(beta),
        static_cast<T*>(y), n);
  });
  return LastLaunchError();
}

cudaError_t LaunchHardSigmoidGrad(Elem t, const void* g, const void* x, double alpha, double beta,
                                  void* dx, int64_t n, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    HardSigmoidGradKernel<T><<<GridFor(n), kThreads, 0, s>>>(
        static_cast<const T*>(g), static_cast<const T*>(x), static_cast<Acc<T>>(alpha),
        static_cast<Acc<T>>(beta), static_cast<T*>(dx), n);
  });
  return LastLaunchError();
}

}  // namespace cuda
}  // namespace symx
