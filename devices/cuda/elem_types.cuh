// Element types on the device for the .cu files: the storage type of each
// Elem, the type it computes in (float for the half types) and conversions.
#ifndef SYMX_DEVICES_CUDA_ELEM_TYPES_CUH_
#define SYMX_DEVICES_CUDA_ELEM_TYPES_CUH_

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <limits>
#include <type_traits>

#include "devices/cuda/launch.h"

namespace symx {
namespace cuda {

template <typename T>
struct AccOf {
  using type = T;
};
template <>
struct AccOf<__half> {
  using type = float;
};
template <>
struct AccOf<__nv_bfloat16> {
  using type = float;
};
template <typename T>
using Acc = typename AccOf<T>::type;

template <typename T>
__device__ __forceinline__ double ToDouble(T v) {
  if constexpr (std::is_same_v<T, __half>) {
    return static_cast<double>(__half2float(v));
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return static_cast<double>(__bfloat162float(v));
  } else {
    return static_cast<double>(v);
  }
}

// Saturating for integers (NaN -> 0), like the host's ConvertElements. Also
// used on the host (fill values).
template <typename T>
__host__ __device__ __forceinline__ T FromDouble(double v) {
  if constexpr (std::is_same_v<T, __half>) {
    return __double2half(v);
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __double2bfloat16(v);
  } else if constexpr (std::is_same_v<T, bool>) {
    return v != 0.0;
  } else if constexpr (std::is_integral_v<T>) {
    if (v != v) return T(0);
    constexpr double lo = static_cast<double>(std::numeric_limits<T>::lowest());
    constexpr double hi = static_cast<double>(std::numeric_limits<T>::max());
    if (v <= lo) return std::numeric_limits<T>::lowest();
    if (v >= hi) return std::numeric_limits<T>::max();
    return static_cast<T>(v);
  } else {
    return static_cast<T>(v);
  }
}

// A value stored as T the way the host's CastValue (devices/dtype_switch.h)
// does it: integers through int64, so out-of-range values wrap (beyond int64's
// range, and NaN, read 0); other types as FromDouble.
template <typename T>
__host__ __device__ __forceinline__ T CastValueOnDevice(double v) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    if (!(v < 9.2e18 && v > -9.2e18)) return T(0);
    return static_cast<T>(static_cast<int64_t>(v));
  } else {
    return FromDouble<T>(v);
  }
}

template <typename T>
__device__ __forceinline__ Acc<T> Load(const T* p, int64_t i) {
  if constexpr (std::is_same_v<T, __half>) {
    return __half2float(p[i]);
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    return __bfloat162float(p[i]);
  } else {
    return p[i];
  }
}

template <typename T>
__device__ __forceinline__ void Store(T* p, int64_t i, Acc<T> v) {
  if constexpr (std::is_same_v<T, __half>) {
    p[i] = __float2half(v);
  } else if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    p[i] = __float2bfloat16(v);
  } else {
    p[i] = v;
  }
}

// The compute type of kernels whose float arithmetic is shared with the CPU
// (box and ROI geometry): float for float and the half types, double for
// double, as the CPU kernels compute; loads and stores through it.
template <typename T>
using GeomC = std::conditional_t<std::is_same_v<T, double>, double, float>;

template <typename T>
__device__ __forceinline__ GeomC<T> Rd(const T* p, int64_t i) {
  return static_cast<GeomC<T>>(Load(p, i));
}

template <typename T>
__device__ __forceinline__ void Wr(T* p, int64_t i, GeomC<T> v) {
  Store(p, i, static_cast<Acc<T>>(v));
}

// Threads per block of the elementwise kernels, and a grid that covers n
// with grid-stride loops (capped: each thread then takes several elements).
constexpr int kThreads = 256;
inline unsigned GridFor(int64_t n) {
  int64_t blocks = (n + kThreads - 1) / kThreads;
  if (blocks > 65535 * 8) blocks = 65535 * 8;
  return static_cast<unsigned>(blocks < 1 ? 1 : blocks);
}

#define SYMX_GRID_STRIDE(i, n)                                                     \
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < (n); \
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)

// One case of the dtype switches below: body with `using T = type`.
#define SYMX_CUDA_CASE(value, T, type, ...) \
  case value: {                             \
    using T = type;                         \
    __VA_ARGS__;                            \
  } break;

// Calls body with `using T = <storage type>` for the floating Elem types;
// cudaErrorInvalidValue for the others.
#define SYMX_CUDA_FLOAT_SWITCH(elem, T, ...)                      \
  switch (elem) {                                                 \
    SYMX_CUDA_CASE(Elem::kF32, T, float, __VA_ARGS__)             \
    SYMX_CUDA_CASE(Elem::kF64, T, double, __VA_ARGS__)            \
    SYMX_CUDA_CASE(Elem::kF16, T, __half, __VA_ARGS__)            \
    SYMX_CUDA_CASE(Elem::kBF16, T, __nv_bfloat16, __VA_ARGS__)    \
    default:                                                      \
      return cudaErrorInvalidValue;                               \
  }

// float32 and float64 only (kernels whose CPU twins have no half types);
// cudaErrorInvalidValue for the others.
#define SYMX_CUDA_F32_F64_SWITCH(elem, T, ...)           \
  switch (elem) {                                        \
    SYMX_CUDA_CASE(Elem::kF32, T, float, __VA_ARGS__)    \
    SYMX_CUDA_CASE(Elem::kF64, T, double, __VA_ARGS__)   \
    default:                                             \
      return cudaErrorInvalidValue;                      \
  }

// Calls body with `using U = <unsigned integer of elem_bytes bytes>` (copies
// that move any dtype); cudaErrorInvalidValue for other widths.
#define SYMX_CUDA_WIDTH_SWITCH(elem_bytes, U, ...)   \
  switch (elem_bytes) {                              \
    SYMX_CUDA_CASE(1, U, uint8_t, __VA_ARGS__)       \
    SYMX_CUDA_CASE(2, U, uint16_t, __VA_ARGS__)      \
    SYMX_CUDA_CASE(4, U, uint32_t, __VA_ARGS__)      \
    SYMX_CUDA_CASE(8, U, uint64_t, __VA_ARGS__)      \
    default:                                         \
      return cudaErrorInvalidValue;                  \
  }

// Every Elem type.
#define SYMX_CUDA_ALL_SWITCH(elem, T, ...)                \
  switch (elem) {                                         \
    SYMX_CUDA_CASE(Elem::kU8, T, uint8_t, __VA_ARGS__)    \
    SYMX_CUDA_CASE(Elem::kI32, T, int32_t, __VA_ARGS__)   \
    SYMX_CUDA_CASE(Elem::kI8, T, int8_t, __VA_ARGS__)     \
    SYMX_CUDA_CASE(Elem::kI64, T, int64_t, __VA_ARGS__)   \
    SYMX_CUDA_CASE(Elem::kBool, T, bool, __VA_ARGS__)     \
    default:                                              \
      SYMX_CUDA_FLOAT_SWITCH(elem, T, __VA_ARGS__);       \
  }

// The launch's own error (configuration, no device).
inline cudaError_t LastLaunchError() { return cudaGetLastError(); }

}  // namespace cuda
}  // namespace symx

#endif  // SYMX_DEVICES_CUDA_ELEM_TYPES_CUH_
