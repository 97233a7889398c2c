// Dispatch on a runtime DType to a C++ storage type.
//
//   SYMX_DTYPE_SWITCH_ALL(t.dtype(), T, { Fill<T>(t); });
//
// float16 and bfloat16 map to distinct 16-bit wrapper types (symx::float16_t,
// symx::bfloat16_t) so overloads can tell them apart; kernels that compute in
// half precision reinterpret float16_t as Eigen::half (same layout).
#ifndef SYMX_DEVICES_DTYPE_SWITCH_H_
#define SYMX_DEVICES_DTYPE_SWITCH_H_

#include <cstdint>
#include <type_traits>

#include "devices/half.h"
#include "graph/dtype.h"

namespace symx {

struct float16_t {
  uint16_t bits;
};
struct bfloat16_t {
  uint16_t bits;
};

// Element conversions through double for every storage type.
template <typename T>
inline double ToDouble(T v) {
  return static_cast<double>(v);
}
template <>
inline double ToDouble(float16_t v) {
  return HalfToFloat(v.bits);
}
template <>
inline double ToDouble(bfloat16_t v) {
  return BFloat16ToFloat(v.bits);
}
template <typename T>
inline T FromDouble(double v) {
  return static_cast<T>(v);
}
template <>
inline bool FromDouble(double v) {
  return v != 0.0;
}
template <>
inline float16_t FromDouble(double v) {
  return float16_t{FloatToHalf(static_cast<float>(v))};
}
template <>
inline bfloat16_t FromDouble(double v) {
  return bfloat16_t{FloatToBFloat16(static_cast<float>(v))};
}

// A scalar attribute value (one_hot's on_value) in storage type T as MXNet
// casts it: integers through int64, so an out-of-range value wraps rather
// than being undefined (beyond int64's range it reads 0).
template <typename T>
inline T CastValue(double v) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    if (!(v < 9.2e18 && v > -9.2e18)) return T(0);
    return static_cast<T>(static_cast<int64_t>(v));
  } else {
    return FromDouble<T>(v);
  }
}

// A fill value (_full, _arange's start and step) in storage type T: as
// CastValue, but beyond int64's range it saturates to int64's extremes first.
template <typename T>
inline T CastFillValue(double v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v != 0.0;
  } else if constexpr (std::is_integral_v<T>) {
    if (v != v) return T{0};
    if (v >= 9.2e18 || v <= -9.2e18) return static_cast<T>(v < 0 ? INT64_MIN : INT64_MAX);
    return static_cast<T>(static_cast<int64_t>(v));
  } else {
    return FromDouble<T>(v);
  }
}

}  // namespace symx

#define SYMX_DTYPE_CASE_(flag, ctype, T, ...) \
  case ::symx::DType::flag: {                 \
    using T = ctype;                          \
    __VA_ARGS__;                              \
    break;                                    \
  }

// float32, float64 and float16 with float16 as its storage type (`float16_t`,
// read and written through ToDouble/FromDouble); any other dtype returns
// UnsupportedDType(ctx, dtype) (devices/kernel.h) from the enclosing kernel.
#define SYMX_FLOAT_STORAGE_SWITCH(ctx, dtype, T, ...)             \
  switch (dtype) {                                                \
    SYMX_DTYPE_CASE_(kFloat32, float, T, __VA_ARGS__)             \
    SYMX_DTYPE_CASE_(kFloat64, double, T, __VA_ARGS__)            \
    SYMX_DTYPE_CASE_(kFloat16, ::symx::float16_t, T, __VA_ARGS__) \
    default:                                                      \
      return ::symx::UnsupportedDType(ctx, dtype);                \
  }

// Every storage dtype; `unknown` runs for DType::kUnknown.
#define SYMX_DTYPE_SWITCH_ALL(dtype, T, ...)                        \
  switch (dtype) {                                                  \
    SYMX_DTYPE_CASE_(kFloat32, float, T, __VA_ARGS__)               \
    SYMX_DTYPE_CASE_(kFloat64, double, T, __VA_ARGS__)              \
    SYMX_DTYPE_CASE_(kFloat16, ::symx::float16_t, T, __VA_ARGS__)   \
    SYMX_DTYPE_CASE_(kBFloat16, ::symx::bfloat16_t, T, __VA_ARGS__) \
    SYMX_DTYPE_CASE_(kUint8, uint8_t, T, __VA_ARGS__)               \
    SYMX_DTYPE_CASE_(kInt8, int8_t, T, __VA_ARGS__)                 \
    SYMX_DTYPE_CASE_(kInt16, int16_t, T, __VA_ARGS__)               \
    SYMX_DTYPE_CASE_(kUint16, uint16_t, T, __VA_ARGS__)             \
    SYMX_DTYPE_CASE_(kInt32, int32_t, T, __VA_ARGS__)               \
    SYMX_DTYPE_CASE_(kUint32, uint32_t, T, __VA_ARGS__)             \
    SYMX_DTYPE_CASE_(kInt64, int64_t, T, __VA_ARGS__)               \
    SYMX_DTYPE_CASE_(kUint64, uint64_t, T, __VA_ARGS__)             \
    SYMX_DTYPE_CASE_(kBool, bool, T, __VA_ARGS__)                   \
    case ::symx::DType::kUnknown:                                   \
      break;                                                        \
  }

#endif  // SYMX_DEVICES_DTYPE_SWITCH_H_
