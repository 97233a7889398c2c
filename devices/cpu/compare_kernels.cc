// CPU kernels of the comparison and logic ops (graph/ops/compare.cc): the
// one-shape, scalar and broadcast forms of equal, not_equal, greater,
// greater_equal, lesser, lesser_equal, logical_and/or/xor, logical_not and
// _contrib_allclose.
//
// Dtypes: float32, float64, float16 (compared in float), uint8, int8, int32,
// int64 (MXNet's legacy type switch). The output has the input's dtype and
// holds 0 or 1. A scalar is first converted to the array's dtype, as MXNet
// does: an integer array compares with the scalar truncated toward zero, a
// float16 array with the scalar rounded to float16.
//
// Plain loops over cpu::ParallelFor: broadcasting walks output rows with an
// odometer over the outer dims and a contiguous or stride-0 inner loop.
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "devices/cpu/elemwise_kernels.h"
#include "devices/cpu/kernel_util.h"
#include "graph/error.h"
#include "graph/ops/compare.h"
#include "graph/ops/elemwise.h"

// float32, float64, float16 (as Eigen::half) and the integer dtypes MXNet's
// legacy comparison ops take.
#define SYMX_COMPARE_SWITCH(ctx, dtype, T, ...)             \
  switch (dtype) {                                          \
    SYMX_DTYPE_CASE_(kFloat32, float, T, __VA_ARGS__)       \
    SYMX_DTYPE_CASE_(kFloat64, double, T, __VA_ARGS__)      \
    SYMX_DTYPE_CASE_(kFloat16, Eigen::half, T, __VA_ARGS__) \
    SYMX_DTYPE_CASE_(kUint8, uint8_t, T, __VA_ARGS__)       \
    SYMX_DTYPE_CASE_(kInt8, int8_t, T, __VA_ARGS__)         \
    SYMX_DTYPE_CASE_(kInt32, int32_t, T, __VA_ARGS__)       \
    SYMX_DTYPE_CASE_(kInt64, int64_t, T, __VA_ARGS__)       \
    default:                                                \
      return ::symx::UnsupportedDType(ctx, dtype);          \
  }

namespace symx {
namespace cpu {
namespace {

// The ops, on values in the compute type C (float for float16).
struct EqOp {
  template <typename C>
  static bool Apply(C a, C b) {
    return a == b;
  }
};
struct NeOp {
  template <typename C>
  static bool Apply(C a, C b) {
    return a != b;
  }
};
struct GtOp {
  template <typename C>
  static bool Apply(C a, C b) {
    return a > b;
  }
};
struct GeOp {
  template <typename C>
  static bool Apply(C a, C b) {
    return a >= b;
  }
};
struct LtOp {
  template <typename C>
  static bool Apply(C a, C b) {
    return a < b;
  }
};
struct LeOp {
  template <typename C>
  static bool Apply(C a, C b) {
    return a <= b;
  }
};
// Truth is "!= 0": NaN is true.
struct AndOp {
  template <typename C>
  static bool Apply(C a, C b) {
    return a != C(0) && b != C(0);
  }
};
struct OrOp {
  template <typename C>
  static bool Apply(C a, C b) {
    return a != C(0) || b != C(0);
  }
};
struct XorOp {
  template <typename C>
  static bool Apply(C a, C b) {
    return (a != C(0)) != (b != C(0));
  }
};

// The scalar attribute converted to T, then to the compute type.
template <typename T>
ComputeType<T> ScalarAs(double s) {
  if constexpr (std::is_integral_v<T>) {
    // Through int64 so that a negative scalar wraps for unsigned types
    // instead of being undefined (MXNet on x86 gives the same bits).
    if (std::isnan(s)) return 0;
    if (s >= 9.2e18) return static_cast<T>(INT64_MAX);
    if (s <= -9.2e18) return static_cast<T>(INT64_MIN);
    return static_cast<T>(static_cast<int64_t>(s));
  } else {
    return static_cast<ComputeType<T>>(FromAttr<T>(s));
  }
}

template <typename T>
inline T FromBool(bool b) {
  return b ? T(1) : T(0);
}

template <typename Op>
absl::Status ElemwiseKernel(const KernelContext& ctx) {
  const Tensor& a = ctx.inputs[0];
  const Tensor& b = ctx.inputs[1];
  const Tensor& out = ctx.outputs[0];
  if (a.size() != out.size() || b.size() != out.size()) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": operands of shapes ",
                                                   a.shape().ToString(), " and ",
                                                   b.shape().ToString(), " differ"));
  }
  SYMX_COMPARE_SWITCH(ctx, a.dtype(), T, {
    using C = ComputeType<T>;
    const T* ap = a.data<T>();
    const T* bp = b.data<T>();
    T* op = out.data<T>();
    ParallelFor(ctx, out.size(), 1.0, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        op[i] = FromBool<T>(Op::Apply(static_cast<C>(ap[i]), static_cast<C>(bp[i])));
      }
    });
  });
  return absl::OkStatus();
}

template <typename Op>
absl::Status ScalarKernel(const KernelContext& ctx) {
  const double s = ctx.param<ScalarParam>().scalar;
  const Tensor& a = ctx.inputs[0];
  const Tensor& out = ctx.outputs[0];
  SYMX_COMPARE_SWITCH(ctx, a.dtype(), T, {
    using C = ComputeType<T>;
    const C sc = ScalarAs<T>(s);
    const T* ap = a.data<T>();
    T* op = out.data<T>();
    ParallelFor(ctx, out.size(), 1.0, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        op[i] = FromBool<T>(Op::Apply(static_cast<C>(ap[i]), sc));
      }
    });
  });
  return absl::OkStatus();
}

absl::Status LogicalNotKernel(const KernelContext& ctx) {
  const Tensor& a = ctx.inputs[0];
  const Tensor& out = ctx.outputs[0];
  SYMX_COMPARE_SWITCH(ctx, a.dtype(), T, {
    using C = ComputeType<T>;
    const T* ap = a.data<T>();
    T* op = out.data<T>();
    ParallelFor(ctx, out.size(), 1.0, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) op[i] = FromBool<T>(!(static_cast<C>(ap[i]) != C(0)));
    });
  });
  return absl::OkStatus();
}

// Element strides of `s` right-aligned into `out`'s dims, 0 where `s` is
// broadcast; false if `s` does not broadcast to `out`.
bool AlignedStrides(const Shape& s, const Shape& out, std::vector<int64_t>* strides) {
  const int n = out.ndim();
  if (s.ndim() > n) return false;
  strides->assign(n, 0);
  int64_t stride = 1;
  for (int i = n - 1; i >= 0; --i) {
    const int j = i - (n - s.ndim());
    if (j < 0) continue;
    if (s[j] != out[i] && s[j] != 1) return false;
    if (s[j] != 1) (*strides)[i] = stride;
    stride *= s[j];
  }
  return true;
}

template <typename Op>
absl::Status BroadcastKernel(const KernelContext& ctx) {
  const Tensor& a = ctx.inputs[0];
  const Tensor& b = ctx.inputs[1];
  const Tensor& out = ctx.outputs[0];
  const int64_t n = out.size();
  if (a.size() == n && b.size() == n) return ElemwiseKernel<Op>(ctx);
  std::vector<int64_t> sa, sb;
  const Shape& os = out.shape();
  if (!AlignedStrides(a.shape(), os, &sa) || !AlignedStrides(b.shape(), os, &sb)) {
    return absl::InvalidArgumentError(absl::StrCat(
        ctx.Where(), ": operands of shapes ", a.shape().ToString(), " and ", b.shape().ToString(),
        " do not broadcast to the output shape ", os.ToString()));
  }
  if (n == 0) return absl::OkStatus();
  const int nd = os.ndim();
  // n > 0 and the sizes differ, so nd >= 1.
  const int64_t inner = os[nd - 1];
  const int64_t ia = sa[nd - 1];
  const int64_t ib = sb[nd - 1];
  const int64_t rows = n / inner;
  SYMX_COMPARE_SWITCH(ctx, a.dtype(), T, {
    using C = ComputeType<T>;
    const T* ap = a.data<T>();
    const T* bp = b.data<T>();
    T* op = out.data<T>();
    ParallelFor(ctx, rows, static_cast<double>(inner), [&](int64_t begin, int64_t end) {
      for (int64_t row = begin; row < end; ++row) {
        // Offsets of this row's first element in each operand.
        int64_t rest = row;
        int64_t oa = 0;
        int64_t ob = 0;
        for (int d = nd - 2; d >= 0; --d) {
          const int64_t coord = rest % os[d];
          rest /= os[d];
          oa += coord * sa[d];
          ob += coord * sb[d];
        }
        T* o = op + row * inner;
        const T* x = ap + oa;
        const T* y = bp + ob;
        for (int64_t t = 0; t < inner; ++t) {
          o[t] = FromBool<T>(Op::Apply(static_cast<C>(x[t * ia]), static_cast<C>(y[t * ib])));
        }
      }
    });
  });
  return absl::OkStatus();
}

#define SYMX_COMPARE_KERNELS(name, OpT)                              \
  SYMX_REGISTER_KERNEL("_" name, kCPU, ElemwiseKernel<OpT>);         \
  SYMX_REGISTER_KERNEL("_" name "_scalar", kCPU, ScalarKernel<OpT>); \
  SYMX_REGISTER_KERNEL("broadcast_" name, kCPU, BroadcastKernel<OpT>)

SYMX_COMPARE_KERNELS("equal", EqOp);
SYMX_COMPARE_KERNELS("not_equal", NeOp);
SYMX_COMPARE_KERNELS("greater", GtOp);
SYMX_COMPARE_KERNELS("greater_equal", GeOp);
SYMX_COMPARE_KERNELS("lesser", LtOp);
SYMX_COMPARE_KERNELS("lesser_equal", LeOp);
SYMX_COMPARE_KERNELS("logical_and", AndOp);
SYMX_COMPARE_KERNELS("logical_or", OrOp);
SYMX_COMPARE_KERNELS("logical_xor", XorOp);
SYMX_REGISTER_KERNEL("logical_not", kCPU, LogicalNotKernel);

// _contrib_allclose: MXNet's test per element, in float (double for
// float64; integers' difference compared as a float), NaN only in the float
// types; one uint8 out.
template <typename T>
bool Close(T a, T b, float rtol, float atol, bool equal_nan) {
  using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
  if constexpr (!std::is_integral_v<T>) {
    const bool na = a != a, nb = b != b;
    if (na || nb) return equal_nan && na == nb;
  }
  const C diff = static_cast<C>(a > b ? a - b : b - a);
  const C bound = static_cast<C>(atol) + (b > T(0) ? static_cast<C>(rtol) * static_cast<C>(b)
                                                   : -static_cast<C>(rtol) * static_cast<C>(b));
  return a == b || diff <= bound;
}

absl::Status AllCloseKernel(const KernelContext& ctx) {
  const auto& p = ctx.param<AllCloseParam>();
  const Tensor& a = ctx.inputs[0];
  const Tensor& b = ctx.inputs[1];
  if (a.size() != b.size() || a.dtype() != b.dtype()) {
    return absl::InvalidArgumentError(
        absl::StrCat(ctx.Where(), ": a ", a.DebugString(), " and b ", b.DebugString(), " differ"));
  }
  const float rtol = static_cast<float>(p.rtol), atol = static_cast<float>(p.atol);
  bool all = true;
  SYMX_COMPARE_SWITCH(ctx, a.dtype(), T, {
    const T* x = a.data<T>();
    const T* y = b.data<T>();
    for (int64_t i = 0; i < a.size() && all; ++i) all = Close(x[i], y[i], rtol, atol, p.equal_nan);
  });
  ctx.outputs[0].data<uint8_t>()[0] = all ? 1 : 0;
  return absl::OkStatus();
}

SYMX_REGISTER_KERNEL("_contrib_allclose", kCPU, AllCloseKernel);

}  // namespace
}  // namespace cpu
}  // namespace symx
