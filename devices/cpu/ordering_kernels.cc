// CPU kernels for sort, argsort, topk, argmax, argmin, argmax_channel,
// cumsum (_np_cumsum) and their backward ops.
//
// Sorting reproduces MXNet 1.9.1's CPU order exactly (see graph/ops/ordering.cc):
// each row's positions 0..n-1 are ordered by std::sort (std::partial_sort for
// topk when 8 k <= n) with the plain < or > comparison of the values, so ties
// and NaNs land where MXNet puts them. Rows along a non-last axis are gathered
// into the workspace first. Values of every numeric dtype are compared in
// their own type (float16 as float).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/cpu/kernel_util.h"
#include "graph/error.h"
#include "graph/ops/ordering.h"

namespace symx {
namespace cpu {
namespace {

absl::Status Problem(const KernelContext& ctx, const std::string& what) {
  return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": ", what));
}

// The comparison key of a stored value: half types compare as float.
template <typename T>
struct KeyOf {
  using type = T;
  static T Get(T v) { return v; }
};
template <>
struct KeyOf<float16_t> {
  using type = float;
  static float Get(float16_t v) { return static_cast<float>(ToDouble(v)); }
};
template <>
struct KeyOf<bfloat16_t> {
  using type = float;
  static float Get(bfloat16_t v) { return static_cast<float>(ToDouble(v)); }
};

template <typename K>
bool IsNan(K v) {
  if constexpr (std::is_floating_point_v<K>) {
    return std::isnan(v);
  } else {
    return false;
  }
}

// Numeric dtypes the ordering kernels take (every storage type but bool).
#define SYMX_ORDER_SWITCH(ctx, dtype, T, ...)                       \
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
    default:                                                        \
      return ::symx::UnsupportedDType(ctx, dtype);                  \
  }

std::optional<int> NormalizedAxis(std::optional<int64_t> axis, int ndim) {
  if (!axis.has_value()) return std::nullopt;
  return static_cast<int>(*axis < 0 ? *axis + ndim : *axis);
}

// ----------------------------------------------------------------------------- sort/argsort/topk

size_t TopKWorkspace(const NodeAttrs&, const std::vector<Shape>& in, const std::vector<Shape>&,
                     DType) {
  // Per element: a key (at most 8 bytes) and an int64 position.
  return static_cast<size_t>(in[0].Size()) * 16 + 64;
}

template <typename T>
absl::Status TopKForwardT(const KernelContext& ctx) {
  using K = typename KeyOf<T>::type;
  const auto& p = ctx.param<TopKParam>();
  const Tensor& data = ctx.inputs[0];
  const AxisLayout l = MakeAxisLayout(data.shape(), NormalizedAxis(p.axis, data.shape().ndim()));
  const int64_t n = l.n;
  const int64_t k = p.k <= 0 ? n : p.k;
  if (k < 1 || k > n) {
    return Problem(ctx, absl::StrCat("k = ", p.k, " does not fit an axis of ", n, " elements"));
  }
  const int64_t rows = l.outer * l.inner;
  const size_t need = static_cast<size_t>(data.size()) * (sizeof(K) + sizeof(int64_t));
  if (ctx.workspace.nbytes() < need) {
    return Problem(ctx,
                   absl::StrCat("workspace of ", ctx.workspace.nbytes(), " bytes, need ", need));
  }
  const int64_t out_k = p.ret == TopKReturn::kMask ? n : k;
  for (const Tensor& o : ctx.outputs) {
    if (o.size() != rows * out_k) {
      return Problem(ctx, absl::StrCat("output ", o.DebugString(), " should have ", rows * out_k,
                                       " elements"));
    }
  }
  int64_t* pos_all = static_cast<int64_t*>(ctx.workspace.raw_data());
  K* keys_all = reinterpret_cast<K*>(pos_all + data.size());
  const T* x = data.data<T>();
  const bool full = k * 8 > n;
  const bool asc = p.is_ascend;
  const TopKReturn ret = p.ret;
  // Index outputs are written through a double, in their own dtype.
  const Tensor* index_out = ret == TopKReturn::kIndices ? &ctx.outputs[0]
                            : (ret == TopKReturn::kValue || ret == TopKReturn::kBoth)
                                ? &ctx.outputs[1]
                                : nullptr;
  ParallelFor(ctx, rows, static_cast<double>(n) * 8.0, [&](int64_t b, int64_t e) {
    for (int64_t row = b; row < e; ++row) {
      const int64_t o = row / l.inner, r = row % l.inner;
      const int64_t base = o * n * l.inner + r;  // element j of the row: base + j * inner
      int64_t* pos = pos_all + row * n;
      K* keys = keys_all + row * n;
      for (int64_t j = 0; j < n; ++j) {
        keys[j] = KeyOf<T>::Get(x[base + j * l.inner]);
        pos[j] = j;
      }
      auto less = [keys](int64_t a, int64_t c) { return keys[a] < keys[c]; };
      auto greater = [keys](int64_t a, int64_t c) { return keys[a] > keys[c]; };
      if (asc) {
        if (full) {
          std::sort(pos, pos + n, less);
        } else {
          std::partial_sort(pos, pos + k, pos + n, less);
        }
      } else {
        if (full) {
          std::sort(pos, pos + n, greater);
        } else {
          std::partial_sort(pos, pos + k, pos + n, greater);
        }
      }
      const int64_t obase = o * out_k * l.inner + r;
      if (ret == TopKReturn::kMask) {
        T* y = ctx.outputs[0].data<T>();
        for (int64_t j = 0; j < n; ++j) y[obase + j * l.inner] = CastValue<T>(0.0);
        for (int64_t j = 0; j < k; ++j) y[obase + pos[j] * l.inner] = CastValue<T>(1.0);
        continue;
      }
      if (ret == TopKReturn::kValue || ret == TopKReturn::kBoth) {
        T* y = ctx.outputs[0].data<T>();
        for (int64_t j = 0; j < k; ++j) y[obase + j * l.inner] = x[base + pos[j] * l.inner];
      }
      SYMX_DTYPE_SWITCH_ALL(index_out->dtype(), I, {
        I* yi = index_out->data<I>();
        for (int64_t j = 0; j < k; ++j) {
          yi[obase + j * l.inner] = CastValue<I>(static_cast<double>(pos[j]));
        }
      });
    }
  });
  return absl::OkStatus();
}

absl::Status TopKForward(const KernelContext& ctx) {
  const DType dt = ctx.inputs[0].dtype();
  for (const Tensor& o : ctx.outputs) {
    if (o.dtype() == DType::kUnknown) return UnsupportedDType(ctx, o.dtype());
  }
  SYMX_ORDER_SWITCH(ctx, dt, T, return TopKForwardT<T>(ctx));
  return absl::OkStatus();
}

// grad (data's shape) = 0, then grad[.., pos[j], ..] += ograd[.., j, ..].
template <typename T>
absl::Status TopKBackwardT(const KernelContext& ctx) {
  const auto& p = ctx.param<TopKParam>();
  const Tensor& og = ctx.inputs[0];
  const Tensor& pos = ctx.inputs[1];
  const Tensor& grad = ctx.outputs[0];
  const AxisLayout l = MakeAxisLayout(grad.shape(), NormalizedAxis(p.axis, grad.shape().ndim()));
  const int64_t rows = l.outer * l.inner;
  const int64_t k = rows == 0 ? 0 : og.size() / rows;
  if (og.size() != rows * k || pos.size() != og.size() || k > l.n) {
    return Problem(
        ctx, absl::StrCat("output gradient ", og.DebugString(), " and indices ", pos.DebugString(),
                          " do not fit data ", grad.shape().ToString()));
  }
  if (og.dtype() != grad.dtype()) return UnsupportedDType(ctx, og.dtype());
  T* gx = grad.data<T>();
  const T* gy = og.data<T>();
  std::fill(gx, gx + grad.size(), T(0));
  absl::Status st = absl::OkStatus();
  SYMX_DTYPE_SWITCH_ALL(pos.dtype(), I, {
    const I* ix = pos.data<I>();
    for (int64_t row = 0; row < rows && st.ok(); ++row) {
      const int64_t o = row / l.inner, r = row % l.inner;
      for (int64_t j = 0; j < k; ++j) {
        const int64_t at = o * k * l.inner + r + j * l.inner;
        const double v = ToDouble(ix[at]);
        if (!(v >= 0 && v < static_cast<double>(l.n))) {
          st = Problem(ctx, absl::StrCat("index ", v, " outside an axis of ", l.n, " elements"));
          break;
        }
        gx[o * l.n * l.inner + r + static_cast<int64_t>(v) * l.inner] += gy[at];
      }
    }
  });
  if (pos.dtype() == DType::kUnknown) return UnsupportedDType(ctx, pos.dtype());
  return st;
}

absl::Status TopKBackward(const KernelContext& ctx) {
  SYMX_FLOAT16_SWITCH(ctx, ctx.outputs[0].dtype(), T, return TopKBackwardT<T>(ctx));
  return absl::OkStatus();
}

// ----------------------------------------------------------------------------- argmax/argmin

template <typename T, bool kMax>
absl::Status ArgExtremeT(const KernelContext& ctx, std::optional<int> axis) {
  using K = typename KeyOf<T>::type;
  const Tensor& data = ctx.inputs[0];
  const Tensor& out = ctx.outputs[0];
  const AxisLayout l = MakeAxisLayout(data.shape(), axis);
  const int64_t rows = l.outer * l.inner;
  if (out.size() != rows || (l.n == 0 && rows > 0)) {
    return Problem(
        ctx, absl::StrCat("output ", out.DebugString(), " does not fit data ", data.DebugString()));
  }
  const T* x = data.data<T>();
  T* y = out.data<T>();
  ParallelFor(ctx, rows, static_cast<double>(l.n), [&](int64_t b, int64_t e) {
    for (int64_t row = b; row < e; ++row) {
      const int64_t o = row / l.inner, r = row % l.inner;
      const T* line = x + o * l.n * l.inner + r;
      int64_t best = 0;
      K bv = KeyOf<T>::Get(line[0]);
      for (int64_t j = 1; j < l.n && !IsNan(bv); ++j) {
        const K v = KeyOf<T>::Get(line[j * l.inner]);
        if (IsNan(v) || (kMax ? v > bv : v < bv)) {
          bv = v;
          best = j;
        }
      }
      y[row] = CastValue<T>(static_cast<double>(best));
    }
  });
  return absl::OkStatus();
}

template <bool kMax>
absl::Status ArgExtreme(const KernelContext& ctx, std::optional<int> axis) {
  const DType dt = ctx.inputs[0].dtype();
  if (ctx.outputs[0].dtype() != dt) return UnsupportedDType(ctx, ctx.outputs[0].dtype());
  SYMX_ORDER_SWITCH(ctx, dt, T, return (ArgExtremeT<T, kMax>(ctx, axis)));
  return absl::OkStatus();
}

absl::Status ArgmaxForward(const KernelContext& ctx) {
  const auto& p = ctx.param<ArgReduceParam>();
  return ArgExtreme<true>(ctx, NormalizedAxis(p.axis, ctx.inputs[0].shape().ndim()));
}
absl::Status ArgminForward(const KernelContext& ctx) {
  const auto& p = ctx.param<ArgReduceParam>();
  return ArgExtreme<false>(ctx, NormalizedAxis(p.axis, ctx.inputs[0].shape().ndim()));
}
absl::Status ArgmaxChannelForward(const KernelContext& ctx) { return ArgExtreme<true>(ctx, 1); }

// ----------------------------------------------------------------------------- cumsum

// Every element converted to O, then summed in O (float16 rounds at each step).
template <typename I, typename O>
void CumsumT(const KernelContext& ctx, const AxisLayout& l, const Tensor& in, const Tensor& out) {
  const I* x = in.data<I>();
  O* y = out.data<O>();
  constexpr bool kHalf = std::is_same_v<O, float16_t> || std::is_same_v<O, bfloat16_t>;
  constexpr bool kHalfIn = std::is_same_v<I, float16_t> || std::is_same_v<I, bfloat16_t>;
  ParallelFor(ctx, l.outer * l.inner, static_cast<double>(l.n), [&](int64_t b, int64_t e) {
    for (int64_t row = b; row < e; ++row) {
      const int64_t base = (row / l.inner) * l.n * l.inner + row % l.inner;
      if constexpr (kHalf || kHalfIn) {
        double acc = 0;
        for (int64_t j = 0; j < l.n; ++j) {
          const int64_t at = base + j * l.inner;
          const O v = CastValue<O>(ToDouble(x[at]));
          const O s = CastValue<O>(acc + ToDouble(v));
          y[at] = s;
          acc = ToDouble(s);
        }
      } else {
        O acc = O(0);
        for (int64_t j = 0; j < l.n; ++j) {
          const int64_t at = base + j * l.inner;
          acc = static_cast<O>(acc + static_cast<O>(x[at]));
          y[at] = acc;
        }
      }
    }
  });
}

#define SYMX_CUMSUM_OUT_SWITCH(ctx, dtype, T, ...)                \
  switch (dtype) {                                                \
    SYMX_DTYPE_CASE_(kFloat32, float, T, __VA_ARGS__)             \
    SYMX_DTYPE_CASE_(kFloat64, double, T, __VA_ARGS__)            \
    SYMX_DTYPE_CASE_(kFloat16, ::symx::float16_t, T, __VA_ARGS__) \
    SYMX_DTYPE_CASE_(kInt8, int8_t, T, __VA_ARGS__)               \
    SYMX_DTYPE_CASE_(kUint8, uint8_t, T, __VA_ARGS__)             \
    SYMX_DTYPE_CASE_(kInt32, int32_t, T, __VA_ARGS__)             \
    SYMX_DTYPE_CASE_(kInt64, int64_t, T, __VA_ARGS__)             \
    default:                                                      \
      return ::symx::UnsupportedDType(ctx, dtype);                \
  }

#define SYMX_CUMSUM_IN_SWITCH(ctx, dtype, T, ...)  \
  switch (dtype) {                                 \
    SYMX_CUMSUM_OUT_CASES_(T, __VA_ARGS__)         \
    SYMX_DTYPE_CASE_(kBool, bool, T, __VA_ARGS__)  \
    default:                                       \
      return ::symx::UnsupportedDType(ctx, dtype); \
  }
#define SYMX_CUMSUM_OUT_CASES_(T, ...)                          \
  SYMX_DTYPE_CASE_(kFloat32, float, T, __VA_ARGS__)             \
  SYMX_DTYPE_CASE_(kFloat64, double, T, __VA_ARGS__)            \
  SYMX_DTYPE_CASE_(kFloat16, ::symx::float16_t, T, __VA_ARGS__) \
  SYMX_DTYPE_CASE_(kInt8, int8_t, T, __VA_ARGS__)               \
  SYMX_DTYPE_CASE_(kUint8, uint8_t, T, __VA_ARGS__)             \
  SYMX_DTYPE_CASE_(kInt32, int32_t, T, __VA_ARGS__)             \
  SYMX_DTYPE_CASE_(kInt64, int64_t, T, __VA_ARGS__)

absl::Status CumsumIn(const KernelContext& ctx, const AxisLayout& l, const Tensor& in,
                      const Tensor& out) {
  SYMX_CUMSUM_OUT_SWITCH(ctx, out.dtype(), O, {
    SYMX_CUMSUM_IN_SWITCH(ctx, in.dtype(), I, (CumsumT<I, O>(ctx, l, in, out)));
  });
  return absl::OkStatus();
}

absl::Status CumsumForward(const KernelContext& ctx) {
  const auto& p = ctx.param<CumsumParam>();
  const Tensor& in = ctx.inputs[0];
  const Tensor& out = ctx.outputs[0];
  if (out.size() != in.size()) {
    return Problem(
        ctx, absl::StrCat("output ", out.DebugString(), " does not fit input ", in.DebugString()));
  }
  const AxisLayout l = MakeAxisLayout(in.shape(), NormalizedAxis(p.axis, in.shape().ndim()));
  return CumsumIn(ctx, l, in, out);
}

// grad[j] = sum over j' >= j of ograd[j'] along the axis.
template <typename G, typename O>
void CumsumBackwardT(const KernelContext& ctx, const AxisLayout& l, const Tensor& og,
                     const Tensor& grad) {
  const O* gy = og.data<O>();
  G* gx = grad.data<G>();
  ParallelFor(ctx, l.outer * l.inner, static_cast<double>(l.n), [&](int64_t b, int64_t e) {
    for (int64_t row = b; row < e; ++row) {
      const int64_t base = (row / l.inner) * l.n * l.inner + row % l.inner;
      double acc = 0;
      for (int64_t j = l.n - 1; j >= 0; --j) {
        const int64_t at = base + j * l.inner;
        acc += ToDouble(gy[at]);
        gx[at] = FromDouble<G>(acc);
      }
    }
  });
}

absl::Status CumsumBackward(const KernelContext& ctx) {
  const auto& p = ctx.param<CumsumParam>();
  const Tensor& og = ctx.inputs[0];
  const Tensor& grad = ctx.outputs[0];
  if (og.size() != grad.size()) {
    return Problem(ctx, absl::StrCat("output gradient ", og.DebugString(), " does not fit ",
                                     grad.DebugString()));
  }
  const AxisLayout l = MakeAxisLayout(grad.shape(), NormalizedAxis(p.axis, grad.shape().ndim()));
  SYMX_FLOAT_STORAGE_SWITCH(ctx, grad.dtype(), G, {
    SYMX_FLOAT_STORAGE_SWITCH(ctx, og.dtype(), O, (CumsumBackwardT<G, O>(ctx, l, og, grad)));
  });
  return absl::OkStatus();
}

SYMX_REGISTER_KERNEL("sort", kCPU, .fn = TopKForward, .workspace = TopKWorkspace);
SYMX_REGISTER_KERNEL("argsort", kCPU, .fn = TopKForward, .workspace = TopKWorkspace);
SYMX_REGISTER_KERNEL("topk", kCPU, .fn = TopKForward, .workspace = TopKWorkspace);
SYMX_REGISTER_KERNEL("_backward_sort", kCPU, TopKBackward);
SYMX_REGISTER_KERNEL("_backward_topk", kCPU, TopKBackward);
SYMX_REGISTER_KERNEL("argmax", kCPU, ArgmaxForward);
SYMX_REGISTER_KERNEL("argmin", kCPU, ArgminForward);
SYMX_REGISTER_KERNEL("argmax_channel", kCPU, ArgmaxChannelForward);
SYMX_REGISTER_KERNEL("_np_cumsum", kCPU, CumsumForward);
SYMX_REGISTER_KERNEL("_backward_np_cumsum", kCPU, CumsumBackward);

}  // namespace
}  // namespace cpu
}  // namespace symx
