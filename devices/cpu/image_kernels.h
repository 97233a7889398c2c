// What the CPU kernels of the image families (image_kernels.cc,
// image_random_kernels.cc) share: MXNet's image dtypes, its compute type
// (float, double for float64 data), the store of a computed value, and the
// PCA lighting step.
#ifndef SYMX_DEVICES_CPU_IMAGE_KERNELS_H_
#define SYMX_DEVICES_CPU_IMAGE_KERNELS_H_

#include <algorithm>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "absl/status/status.h"
#include "devices/cpu/kernel_util.h"
#include "devices/dtype_switch.h"

namespace symx {
namespace cpu {

// The image dtypes, as storage types (float16 as float16_t).
#define SYMX_IMAGE_SWITCH(ctx, dtype, T, ...)                     \
  switch (dtype) {                                                \
    SYMX_DTYPE_CASE_(kFloat32, float, T, __VA_ARGS__)             \
    SYMX_DTYPE_CASE_(kFloat64, double, T, __VA_ARGS__)            \
    SYMX_DTYPE_CASE_(kFloat16, ::symx::float16_t, T, __VA_ARGS__) \
    SYMX_DTYPE_CASE_(kUint8, uint8_t, T, __VA_ARGS__)             \
    SYMX_DTYPE_CASE_(kInt8, int8_t, T, __VA_ARGS__)               \
    SYMX_DTYPE_CASE_(kInt32, int32_t, T, __VA_ARGS__)             \
    SYMX_DTYPE_CASE_(kInt64, int64_t, T, __VA_ARGS__)             \
    default:                                                      \
      return ::symx::UnsupportedDType(ctx, dtype);                \
  }

// MXNet's compute type for a storage type: double for float64, else float.
template <typename T>
using ImageCalc = std::conditional_t<std::is_same_v<T, double>, double, float>;

template <typename T>
inline ImageCalc<T> ImageLoad(const T* p, int64_t i) {
  return static_cast<ImageCalc<T>>(ToDouble(p[i]));
}

// A computed value stored as T: uint8 clamped to [0, 255] and truncated (as
// MXNet), other integers truncated and saturated (MXNet's cast is undefined
// out of range; NaN stores 0), floats rounded.
template <typename T, typename C>
inline T ImageStore(C v) {
  if constexpr (std::is_same_v<T, uint8_t>) {
    return static_cast<uint8_t>(std::min(std::max(v, C(0)), C(255)));
  } else if constexpr (std::is_integral_v<T>) {
    if (v != v) return T(0);
    if (v <= static_cast<C>(std::numeric_limits<T>::lowest())) {
      return std::numeric_limits<T>::lowest();
    }
    if (v >= static_cast<C>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
    return static_cast<T>(v);
  } else {
    return FromDouble<T>(static_cast<double>(v));
  }
}

// The (H, W, C) image of input 0 plus the PCA offsets `pca` (R, G, B) into
// output 0; a 1-channel image is copied (MXNet leaves it unwritten).
template <typename T>
absl::Status AddLighting(const KernelContext& ctx, const float pca[3]) {
  const Tensor& in = ctx.inputs[0];
  const T* x = in.data<T>();
  T* y = ctx.outputs[0].data<T>();
  const int64_t n = in.shape().Size();
  if (in.shape()[2] == 1) {
    if (y != x) std::copy(x, x + n, y);
    return absl::OkStatus();
  }
  ParallelFor(ctx, n, 2.0, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      y[i] = ImageStore<T>(ImageLoad(x, i) + static_cast<ImageCalc<T>>(pca[i % 3]));
    }
  });
  return absl::OkStatus();
}

}  // namespace cpu
}  // namespace symx

#endif  // SYMX_DEVICES_CPU_IMAGE_KERNELS_H_
