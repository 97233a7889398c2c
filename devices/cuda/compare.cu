// The compare family's own CUDA kernels (launchers in devices/cuda/compare_launch.h):
// _contrib_allclose.
#include "devices/cuda/compare_launch.h"
#include "devices/cuda/elem_types.cuh"

namespace symx {
namespace cuda {
namespace {

template <typename T>
__device__ __forceinline__ bool Close(T a, T b, float rtol, float atol, bool equal_nan) {
  using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
  const C x = static_cast<C>(Load(&a, 0)), y = static_cast<C>(Load(&b, 0));
  if constexpr (!std::is_integral_v<T>) {
    const bool na = x != x, nb = y != y;
    if (na || nb) return equal_nan && na == nb;
  }
  C diff;
  if constexpr (std::is_integral_v<T>) {
    diff = static_cast<C>(a > b ? a - b : b - a);
  } else {
    // The difference rounded to the dtype, as the CPU computes it.
    T d = a;
    Store(&d, 0, static_cast<Acc<T>>(x > y ? x - y : y - x));
    diff = static_cast<C>(Load(&d, 0));
  }
  const C bound =
      static_cast<C>(atol) + (y > C(0) ? static_cast<C>(rtol) * y : -static_cast<C>(rtol) * y);
  return x == y || diff <= bound;
}

// out starts at 1; any element that fails writes 0 (every writer writes the
// same value).
template <typename T>
__global__ void AllCloseKernel(const T* a, const T* b, int64_t n, float rtol, float atol,
                               bool equal_nan, uint8_t* out) {
  SYMX_GRID_STRIDE(i, n) {
    if (!Close(a[i], b[i], rtol, atol, equal_nan)) *out = 0;
  }
}

__global__ void SetOne(uint8_t* out) { *out = 1; }

}  // namespace

cudaError_t LaunchAllClose(Elem t, const void* a, const void* b, int64_t n, float rtol, float atol,
                           bool equal_nan, uint8_t* out, cudaStream_t s) {
  SetOne<<<1, 1, 0, s>>>(out);
  if (n == 0) return LastLaunchError();
  switch (t) {
    SYMX_CUDA_CASE(
        Elem::kU8, T, uint8_t,
        AllCloseKernel<T><<<GridFor(n), kThreads, 0, s>>>(
            static_cast<const T*>(a), static_cast<const T*>(b), n, rtol, atol, equal_nan, out))
    SYMX_CUDA_CASE(
        Elem::kI8, T, int8_t,
        AllCloseKernel<T><<<GridFor(n), kThreads, 0, s>>>(
            static_cast<const T*>(a), static_cast<const T*>(b), n, rtol, atol, equal_nan, out))
    SYMX_CUDA_CASE(
        Elem::kI32, T, int32_t,
        AllCloseKernel<T><<<GridFor(n), kThreads, 0, s>>>(
            static_cast<const T*>(a), static_cast<const T*>(b), n, rtol, atol, equal_nan, out))
    SYMX_CUDA_CASE(
        Elem::kI64, T, int64_t,
        AllCloseKernel<T><<<GridFor(n), kThreads, 0, s>>>(
            static_cast<const T*>(a), static_cast<const T*>(b), n, rtol, atol, equal_nan, out))
    default:
      SYMX_CUDA_FLOAT_SWITCH(t, T, {
        AllCloseKernel<T><<<GridFor(n), kThreads, 0, s>>>(
            static_cast<const T*>(a), static_cast<const T*>(b), n, rtol, atol, equal_nan, out);
      });
  }
  return LastLaunchError();
}

}  // namespace cuda
}  // namespace symx
