// The binary family's own CUDA kernels (launchers in devices/cuda/binary_launch.h):
// mod and hypot, on arrays, with broadcasting and with a scalar, and their
// gradient terms. The rest of the family runs on the elementwise launchers.
#include <cmath>

#include "devices/cuda/binary_launch.h"
#include "devices/cuda/elem_types.cuh"

namespace symx {
namespace cuda {
namespace {

// float32, float64, float16 and the integer types MXNet's mod and hypot take.
#define SYMX_CUDA_ARITH_SWITCH(elem, T, ...)            \
  switch (elem) {                                       \
    SYMX_CUDA_CASE(Elem::kF32, T, float, __VA_ARGS__)   \
    SYMX_CUDA_CASE(Elem::kF64, T, double, __VA_ARGS__)  \
    SYMX_CUDA_CASE(Elem::kF16, T, __half, __VA_ARGS__)  \
    SYMX_CUDA_CASE(Elem::kU8, T, uint8_t, __VA_ARGS__)  \
    SYMX_CUDA_CASE(Elem::kI8, T, int8_t, __VA_ARGS__)   \
    SYMX_CUDA_CASE(Elem::kI32, T, int32_t, __VA_ARGS__) \
    SYMX_CUDA_CASE(Elem::kI64, T, int64_t, __VA_ARGS__) \
    default:                                            \
      return cudaErrorInvalidValue;                     \
  }

#define SYMX_CUDA_ARITH_FLOAT_SWITCH(elem, T, ...)     \
  switch (elem) {                                      \
    SYMX_CUDA_CASE(Elem::kF32, T, float, __VA_ARGS__)  \
    SYMX_CUDA_CASE(Elem::kF64, T, double, __VA_ARGS__) \
    SYMX_CUDA_CASE(Elem::kF16, T, __half, __VA_ARGS__) \
    default:                                           \
      return cudaErrorInvalidValue;                    \
  }

template <typename C>
__device__ __forceinline__ C ModOf(C a, C b) {
  const double x = static_cast<double>(a), y = static_cast<double>(b);
  if (y == 0) return C(0);
  if constexpr (std::is_unsigned_v<C>) {
    return static_cast<C>(fmod(x, y));
  } else {
    if (y < 0) {
      if (x < 0) return static_cast<C>(-fmod(-x, -y));
      const double r = fmod(x, -y);
      return static_cast<C>(r != 0 ? r + y : r);
    }
    if (x < 0) {
      const double r = fmod(-x, y);
      return static_cast<C>(r != 0 ? -r + y : -r);
    }
    return static_cast<C>(fmod(x, y));
  }
}

template <typename C>
__device__ __forceinline__ C HypotOf(C a, C b) {
  if constexpr (std::is_integral_v<C>) {
    const float h = hypotf(static_cast<float>(a), static_cast<float>(b));
    return static_cast<C>(static_cast<int64_t>(h));
  } else {
    return hypot(a, b);
  }
}

template <typename C>
__device__ __forceinline__ C ApplyArith(ArithFn f, C a, C b) {
  return f == ArithFn::kMod ? ModOf(a, b) : HypotOf(a, b);
}

template <typename C>
__device__ __forceinline__ C ArithTerm(ArithFn f, bool rhs, C g, C a, C b) {
  if (f == ArithFn::kMod) return rhs ? -floor(a / b) * g : g;
  return (rhs ? b : a) * g / hypot(a, b);
}

// Offsets of output element i in a and b.
__device__ __forceinline__ void Offsets(const BroadcastDims& d, int64_t i, int64_t* ai,
                                        int64_t* bi) {
  int64_t rest = i;
  *ai = 0;
  *bi = 0;
  for (int k = d.ndim - 1; k >= 0; --k) {
    const int64_t idx = rest % d.out_dims[k];
    rest /= d.out_dims[k];
    *ai += idx * d.a_strides[k];
    *bi += idx * d.b_strides[k];
  }
}

template <typename T>
__global__ void ArithKernel(ArithFn f, const T* a, const T* b, T* out, BroadcastDims d, int64_t n) {
  SYMX_GRID_STRIDE(i, n) {
    int64_t ai, bi;
    Offsets(d, i, &ai, &bi);
    Store(out, i, ApplyArith<Acc<T>>(f, Load(a, ai), Load(b, bi)));
  }
}

template <typename T>
__global__ void ArithTermsKernel(ArithFn f, bool rhs, const T* g, const T* a, const T* b, T* out,
                                 BroadcastDims d, int64_t n) {
  SYMX_GRID_STRIDE(i, n) {
    int64_t ai, bi;
    Offsets(d, i, &ai, &bi);
    Store(out, i, ArithTerm<Acc<T>>(f, rhs, Load(g, i), Load(a, ai), Load(b, bi)));
  }
}

template <typename T>
__global__ void ArithScalarKernel(ArithScalarFn f, const T* x, Acc<T> s, T* y, int64_t n) {
  SYMX_GRID_STRIDE(i, n) {
    const Acc<T> v = Load(x, i);
    Acc<T> r;
    if (f == ArithScalarFn::kMod) {
      r = ModOf(v, s);
    } else if (f == ArithScalarFn::kRMod) {
      r = ModOf(s, v);
    } else {
      r = HypotOf(v, s);
    }
    Store(y, i, r);
  }
}

template <typename T>
__global__ void ArithScalarGradKernel(ArithScalarFn f, const T* g, const T* x, Acc<T> s, T* dx,
                                      int64_t n) {
  SYMX_GRID_STRIDE(i, n) {
    const Acc<T> gv = Load(g, i), v = Load(x, i);
    Acc<T> r;
    if (f == ArithScalarFn::kMod) {
      r = gv;
    } else if (f == ArithScalarFn::kRMod) {
      r = -floor(s / v) * gv;
    } else {
      r = gv * v / hypot(v, s);
    }
    Store(dx, i, r);
  }
}

}  // namespace

cudaError_t LaunchArith(ArithFn f, Elem t, const void* a, const void* b, void* out,
                        const BroadcastDims& d, int64_t n, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  if (d.ndim < 0 || d.ndim > kMaxDims) return cudaErrorInvalidValue;
  SYMX_CUDA_ARITH_SWITCH(t, T, {
    ArithKernel<T><<<GridFor(n), kThreads, 0, s>>>(
        f, static_cast<const T*>(a), static_cast<const T*>(b), static_cast<T*>(out), d, n);
  });
  return LastLaunchError();
}

cudaError_t LaunchArithGradTerms(ArithFn f, bool rhs, Elem t, const void* g, const void* a,
                                 const void* b, const BroadcastDims& d, void* out, int64_t n,
                                 cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  if (d.ndim < 0 || d.ndim > kMaxDims) return cudaErrorInvalidValue;
  SYMX_CUDA_ARITH_FLOAT_SWITCH(t, T, {
    ArithTermsKernel<T>
        <<<GridFor(n), kThreads, 0, s>>>(f, rhs, static_cast<const T*>(g), static_cast<const T*>(a),
                                         static_cast<const T*>(b), static_cast<T*>(out), d, n);
  });
  return LastLaunchError();
}

cudaError_t LaunchArithScalar(ArithScalarFn f, Elem t, const void* x, double scalar, void* y,
                              int64_t n, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  SYMX_CUDA_ARITH_SWITCH(t, T, {
    ArithScalarKernel<T><<<GridFor(n), kThreads, 0, s>>>(
        f, static_cast<const T*>(x), static_cast<Acc<T>>(scalar), static_cast<T*>(y), n);
  });
  return LastLaunchError();
}

cudaError_t LaunchArithScalarGrad(ArithScalarFn f, Elem t, const void* g, const void* x,
                                  double scalar, void* dx, int64_t n, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  SYMX_CUDA_ARITH_FLOAT_SWITCH(t, T, {
    ArithScalarGradKernel<T>
        <<<GridFor(n), kThreads, 0, s>>>(f, static_cast<const T*>(g), static_cast<const T*>(x),
                                         static_cast<Acc<T>>(scalar), static_cast<T*>(dx), n);
  });
  return LastLaunchError();
}

}  // namespace cuda
}  // namespace symx
