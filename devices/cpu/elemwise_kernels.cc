// CPU kernels of the elementwise unary ops (exp, log, sqrt, ...), the
// array-with-scalar ops (_plus_scalar, ...) and the miscellaneous ops
// (ElementWiseSum, zeros_like, ones_like, BlockGrad, _copy, Cast, where,
// clip), with their backward ops.
//
// Math ops run in float32, float64 and float16 (computed as Eigen::half);
// the data-movement ops (zeros_like, ones_like, BlockGrad, _copy, Cast,
// where) handle every storage dtype. Each kernel is one Eigen expression
// assigned through cpu::Assign, which stays on the calling thread for small
// arrays: a one-element op costs a dtype switch and a scalar loop.
#include "devices/cpu/elemwise_kernels.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "devices/cpu/kernel_util.h"
#include "devices/cpu/vector_math.h"
#include "graph/error.h"
#include "graph/ops/elemwise.h"

namespace symx {
namespace cpu {
namespace {

// The scalar type of an Eigen tensor expression argument.
template <typename X>
using ScalarOf = typename std::decay_t<X>::Scalar;

// ---------------------------------------------------------------------------
// Unary: out = f(in). `f` maps a flat TensorMap to an expression; it must
// take the map by reference (expressions keep references to their leaves).

template <typename F>
absl::Status Unary(const KernelContext& ctx, F f) {
  const Tensor& in = ctx.inputs[0];
  const Tensor& out = ctx.outputs[0];
  SYMX_FLOAT16_SWITCH(ctx, in.dtype(), T, {
    auto x = Flat<T>(in);
    Assign(ctx, Flat<T>(out), f(x), in.size());
  });
  return absl::OkStatus();
}

// Two inputs of one shape: out = f(a, b).
template <typename F>
absl::Status Binary(const KernelContext& ctx, F f) {
  const Tensor& a = ctx.inputs[0];
  const Tensor& b = ctx.inputs[1];
  const Tensor& out = ctx.outputs[0];
  SYMX_FLOAT16_SWITCH(ctx, a.dtype(), T, {
    auto am = Flat<T>(a);
    auto bm = Flat<T>(b);
    Assign(ctx, Flat<T>(out), f(am, bm), a.size());
  });
  return absl::OkStatus();
}

// Unary with the op's scalar attribute: out = f(in, T(scalar)).
template <typename F>
absl::Status WithScalar(const KernelContext& ctx, F f) {
  const double s = ctx.param<ScalarParam>().scalar;
  const Tensor& in = ctx.inputs[0];
  const Tensor& out = ctx.outputs[0];
  SYMX_FLOAT16_SWITCH(ctx, in.dtype(), T, {
    auto x = Flat<T>(in);
    Assign(ctx, Flat<T>(out), f(x, FromAttr<T>(s)), in.size());
  });
  return absl::OkStatus();
}

// Backward of a scalar op: out = f(ograd, v, T(scalar), scalar), v being the
// forward input or output.
template <typename F>
absl::Status GradWithScalar(const KernelContext& ctx, F f) {
  const double s = ctx.param<ScalarParam>().scalar;
  const Tensor& g = ctx.inputs[0];
  const Tensor& v = ctx.inputs[1];
  const Tensor& out = ctx.outputs[0];
  SYMX_FLOAT16_SWITCH(ctx, g.dtype(), T, {
    auto gm = Flat<T>(g);
    auto vm = Flat<T>(v);
    Assign(ctx, Flat<T>(out), f(gm, vm, FromAttr<T>(s), s), g.size());
  });
  return absl::OkStatus();
}

// pow(x, e) with a tensor base and a scalar exponent, or the reverse.
template <typename T>
struct PowScalarBase {
  T base;
  T operator()(T e) const {
    using Eigen::numext::pow;
    using std::pow;
    return pow(base, e);
  }
};

#define SYMX_UNARY_KERNEL(op, expr)                             \
  SYMX_REGISTER_KERNEL(                                         \
      op, kCPU, +[](const KernelContext& ctx) -> absl::Status { \
        return Unary(ctx, [](const auto& x) {                   \
          using T = ScalarOf<decltype(x)>;                      \
          [[maybe_unused]] const T zero(0), one(1);             \
          return expr;                                          \
        });                                                     \
      })

// Backward ops of unary math: (ograd g, v) -> grad, v the forward input or output.
#define SYMX_UNARY_GRAD_KERNEL(op, expr)                        \
  SYMX_REGISTER_KERNEL(                                         \
      op, kCPU, +[](const KernelContext& ctx) -> absl::Status { \
        return Binary(ctx, [](const auto& g, const auto& v) {   \
          using T = ScalarOf<decltype(g)>;                      \
          [[maybe_unused]] const T zero(0), one(1);             \
          return expr;                                          \
        });                                                     \
      })

// exp, log, sqrt, sigmoid and tanh: accurate to the last bits over every
// input (devices/cpu/vector_math.h, docs/numerics.md).
SYMX_UNARY_KERNEL("exp", Accurate<ExpOp>(x));
SYMX_UNARY_KERNEL("log", Accurate<LogOp>(x));
SYMX_UNARY_KERNEL("negative", -x);
SYMX_UNARY_KERNEL("sqrt", AccurateSqrt(x));
SYMX_UNARY_KERNEL("square", x.square());
SYMX_UNARY_KERNEL("abs", x.abs());
// MXNet's relu is max(x, 0) with NaN passing through.
SYMX_UNARY_KERNEL("relu", x.template cwiseMax<Eigen::PropagateNaN>(zero));
SYMX_UNARY_KERNEL("sigmoid", Accurate<SigmoidOp>(x));
SYMX_UNARY_KERNEL("tanh", Accurate<TanhOp>(x));

// d sqrt(x) = dx / (2 sqrt(x)), from the output.
SYMX_UNARY_GRAD_KERNEL("_backward_sqrt", g / (v * T(2)));
// relu's derivative from the output: 1 where y > 0.
SYMX_UNARY_GRAD_KERNEL("_backward_relu", (v > v.constant(zero)).select(g, g.constant(zero)));
SYMX_UNARY_GRAD_KERNEL("_backward_sigmoid", (g * v * (v.constant(one) - v)));
SYMX_UNARY_GRAD_KERNEL("_backward_tanh", (g * (v.constant(one) - v.square())));
// From the input: 2x and sign(x) (0 at 0, as MXNet).
SYMX_UNARY_GRAD_KERNEL("_backward_square", (g * v * T(2)));
SYMX_UNARY_GRAD_KERNEL(
    "_backward_abs",
    (v > v.constant(zero)).select(g, (v < v.constant(zero)).select(-g, g.constant(zero))));

// ---------------------------------------------------------------------------
// Array with scalar.

#define SYMX_SCALAR_KERNEL(op, expr)                                        \
  SYMX_REGISTER_KERNEL(                                                     \
      op, kCPU, +[](const KernelContext& ctx) -> absl::Status {             \
        return WithScalar(ctx, [](const auto& x, auto s) { return expr; }); \
      })

#define SYMX_SCALAR_GRAD_KERNEL(op, expr)                                                \
  SYMX_REGISTER_KERNEL(                                                                  \
      op, kCPU, +[](const KernelContext& ctx) -> absl::Status {                          \
        return GradWithScalar(ctx, [](const auto& g, const auto& v, auto s, double sd) { \
          using T = decltype(s);                                                         \
          [[maybe_unused]] const T zero(0);                                              \
          return expr;                                                                   \
        });                                                                              \
      })

SYMX_SCALAR_KERNEL("_plus_scalar", x + s);
SYMX_SCALAR_KERNEL("_minus_scalar", x - s);
SYMX_SCALAR_KERNEL("_rminus_scalar", x.constant(s) - x);
SYMX_SCALAR_KERNEL("_mul_scalar", (x * s));
SYMX_SCALAR_KERNEL("_div_scalar", x / s);
SYMX_SCALAR_KERNEL("_rdiv_scalar", x.constant(s) / x);
// NaN propagates, as in MXNet's maximum/minimum.
SYMX_SCALAR_KERNEL("_maximum_scalar", x.template cwiseMax<Eigen::PropagateNaN>(s));
SYMX_SCALAR_KERNEL("_minimum_scalar", x.template cwiseMin<Eigen::PropagateNaN>(s));
SYMX_SCALAR_KERNEL("_power_scalar", x.pow(s));
SYMX_SCALAR_KERNEL("_rpower_scalar", x.unaryExpr(PowScalarBase<decltype(s)>{s}));

// d(c / x) = -c / x^2 dx.
SYMX_SCALAR_GRAD_KERNEL("_backward_rdiv_scalar", (g * (v.square().inverse() * (-s))));
// MXNet routes the gradient to x where x >= c (max) or x <= c (min), ties included.
SYMX_SCALAR_GRAD_KERNEL("_backward_maximum_scalar",
                        (v >= v.constant(s)).select(g, g.constant(zero)));
SYMX_SCALAR_GRAD_KERNEL("_backward_minimum_scalar",
                        (v <= v.constant(s)).select(g, g.constant(zero)));
// d(x^c) = c x^(c-1) dx.
SYMX_SCALAR_GRAD_KERNEL("_backward_power_scalar", (g * (v.pow(FromAttr<T>(sd - 1.0)) * s)));
// d(c^x) = ln(c) c^x dx, from the output c^x.
SYMX_SCALAR_GRAD_KERNEL("_backward_rpower_scalar", (g * v * FromAttr<T>(std::log(sd))));

// ---------------------------------------------------------------------------
// Data movement over any dtype.

// dst[0, n) = src[0, n) for `bytes`-sized elements; nothing when in place.
void CopyBytes(const KernelContext& ctx, const void* src, void* dst, size_t bytes) {
  if (src == dst || bytes == 0) return;
  const char* s = static_cast<const char*>(src);
  char* d = static_cast<char*>(dst);
  // Chunks of 64 KiB; memcpy runs near bandwidth, the pool only helps for big copies.
  constexpr int64_t kChunk = 1 << 16;
  int64_t chunks = static_cast<int64_t>((bytes + kChunk - 1) / kChunk);
  ParallelFor(ctx, chunks, kChunk / 4.0, [&](int64_t begin, int64_t end) {
    size_t from = static_cast<size_t>(begin) * kChunk;
    size_t to = std::min(bytes, static_cast<size_t>(end) * kChunk);
    std::memcpy(d + from, s + from, to - from);
  });
}

absl::Status IdentityKernel(const KernelContext& ctx) {
  const Tensor& in = ctx.inputs[0];
  CopyBytes(ctx, in.raw_data(), ctx.outputs[0].raw_data(), in.nbytes());
  return absl::OkStatus();
}

absl::Status ZerosLikeKernel(const KernelContext& ctx) {
  const Tensor& out = ctx.outputs[0];
  // Zero is the all-zero bit pattern in every storage dtype.
  if (out.nbytes() > 0) std::memset(out.raw_data(), 0, out.nbytes());
  return absl::OkStatus();
}

absl::Status OnesLikeKernel(const KernelContext& ctx) {
  const Tensor& out = ctx.outputs[0];
  if (out.dtype() == DType::kUnknown) return UnsupportedDType(ctx, out.dtype());
  SYMX_DTYPE_SWITCH_ALL(out.dtype(), T, {
    const T one = FromDouble<T>(1.0);
    T* p = out.data<T>();
    ParallelFor(ctx, out.size(), 1.0,
                [&](int64_t begin, int64_t end) { std::fill(p + begin, p + end, one); });
  });
  return absl::OkStatus();
}

// Converts `n` elements in parallel chunks.
void ConvertParallel(const KernelContext& ctx, const Tensor& src, const Tensor& dst) {
  const int64_t n = src.size();
  const size_t sb = DTypeSize(src.dtype());
  const size_t db = DTypeSize(dst.dtype());
  const char* s = static_cast<const char*>(src.raw_data());
  char* d = static_cast<char*>(dst.raw_data());
  if (src.dtype() == dst.dtype()) {
    CopyBytes(ctx, s, d, static_cast<size_t>(n) * sb);
    return;
  }
  ParallelFor(ctx, n, 4.0, [&](int64_t begin, int64_t end) {
    ConvertElements(s + begin * sb, src.dtype(), d + begin * db, dst.dtype(), end - begin);
  });
}

// Cast: every storage dtype to every other, through double (exact for all
// but 64-bit integers beyond 2^53); float to integer truncates toward zero
// as static_cast does.
absl::Status CastKernel(const KernelContext& ctx) {
  const Tensor& in = ctx.inputs[0];
  const Tensor& out = ctx.outputs[0];
  if (in.dtype() == DType::kUnknown) return UnsupportedDType(ctx, in.dtype());
  if (out.dtype() == DType::kUnknown) return UnsupportedDType(ctx, out.dtype());
  if (in.size() != out.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat(ctx.Where(), ": input has ", in.size(), " elements, output ", out.size()));
  }
  ConvertParallel(ctx, in, out);
  return absl::OkStatus();
}

// Cast's gradient is the head gradient converted back to the input's dtype.
absl::Status BackwardCastKernel(const KernelContext& ctx) { return CastKernel(ctx); }

absl::Status ElementWiseSumKernel(const KernelContext& ctx) {
  const Tensor& out = ctx.outputs[0];
  const size_t n = ctx.inputs.size();
  const int64_t size = out.size();
  SYMX_FLOAT16_SWITCH(ctx, out.dtype(), T, {
    auto o = Flat<T>(out);
    auto a = Flat<T>(ctx.inputs[0]);
    if (n == 1) {
      CopyBytes(ctx, ctx.inputs[0].raw_data(), out.raw_data(), out.nbytes());
    } else if (n == 2) {
      auto b = Flat<T>(ctx.inputs[1]);
      Assign(ctx, o, a + b, size);
    } else {
      // Output may alias input 0 only, which is read in the first step.
      auto b = Flat<T>(ctx.inputs[1]);
      auto c = Flat<T>(ctx.inputs[2]);
      Assign(ctx, o, a + b + c, size);
      size_t i = 3;
      for (; i + 1 < n; i += 2) {
        auto d = Flat<T>(ctx.inputs[i]);
        auto e = Flat<T>(ctx.inputs[i + 1]);
        Assign(ctx, o, o + d + e, size);
      }
      if (i < n) {
        auto d = Flat<T>(ctx.inputs[i]);
        Assign(ctx, o, o + d, size);
      }
    }
  });
  return absl::OkStatus();
}

// Unsigned integers of each element size: where moves elements as raw bits.
template <size_t kBytes>
struct Bits;
template <>
struct Bits<1> {
  using type = uint8_t;
};
template <>
struct Bits<2> {
  using type = uint16_t;
};
template <>
struct Bits<4> {
  using type = uint32_t;
};
template <>
struct Bits<8> {
  using type = uint64_t;
};

template <typename C>
inline bool NonZero(C c) {
  return c != C(0);
}
// float16/bfloat16: anything but +-0 (NaN counts as true, as c != 0 does).
template <>
inline bool NonZero(float16_t c) {
  return (c.bits & 0x7fffu) != 0;
}
template <>
inline bool NonZero(bfloat16_t c) {
  return (c.bits & 0x7fffu) != 0;
}

// Calls fn.template operator()<C, B>() with C the condition's storage type and
// B the unsigned type of x's element size.
template <typename Fn>
absl::Status WhereDispatch(const KernelContext& ctx, DType cond, DType x, Fn&& fn) {
  if (cond == DType::kUnknown) return UnsupportedDType(ctx, cond);
  if (x == DType::kUnknown) return UnsupportedDType(ctx, x);
  SYMX_DTYPE_SWITCH_ALL(cond, C, {
    switch (DTypeSize(x)) {
      case 1:
        fn(C{}, Bits<1>::type{});
        break;
      case 2:
        fn(C{}, Bits<2>::type{});
        break;
      case 4:
        fn(C{}, Bits<4>::type{});
        break;
      case 8:
        fn(C{}, Bits<8>::type{});
        break;
      default:
        return UnsupportedDType(ctx, x);
    }
  });
  return absl::OkStatus();
}

absl::Status WhereCheckShapes(const KernelContext& ctx, const Tensor& cond, const Tensor& x,
                              int64_t* row) {
  if (cond.size() == x.size()) {
    *row = 1;
    return absl::OkStatus();
  }
  // A 1-D condition picks whole rows of x.
  if (cond.shape().ndim() == 1 && x.shape().ndim() >= 1 && cond.size() == x.shape()[0]) {
    *row = x.shape()[0] == 0 ? 0 : x.size() / x.shape()[0];
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(
      absl::StrCat(ctx.Where(), ": condition of shape ", cond.shape().ToString(),
                   " does not match x of shape ", x.shape().ToString()));
}

// where(cond, x, y): x where cond != 0, else y; elementwise, or by row for a
// 1-D condition. Any dtypes.
absl::Status WhereKernel(const KernelContext& ctx) {
  const Tensor& cond = ctx.inputs[0];
  const Tensor& x = ctx.inputs[1];
  const Tensor& y = ctx.inputs[2];
  const Tensor& out = ctx.outputs[0];
  int64_t row = 1;
  SYMX_RETURN_IF_ERROR(WhereCheckShapes(ctx, cond, x, &row));
  return WhereDispatch(ctx, cond.dtype(), x.dtype(), [&](auto c_tag, auto b_tag) {
    using C = decltype(c_tag);
    using B = decltype(b_tag);
    const C* c = cond.data<C>();
    const B* xp = x.data<B>();
    const B* yp = y.data<B>();
    B* o = out.data<B>();
    if (row == 1) {
      ParallelFor(ctx, out.size(), 1.0, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) o[i] = NonZero(c[i]) ? xp[i] : yp[i];
      });
    } else {
      ParallelFor(ctx, cond.size(), static_cast<double>(row), [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) {
          const B* src = NonZero(c[r]) ? xp : yp;
          std::memcpy(o + r * row, src + r * row, static_cast<size_t>(row) * sizeof(B));
        }
      });
    }
  });
}

// _backward_where(ograd, cond) -> (zeros for cond, ograd where cond, ograd where !cond).
absl::Status BackwardWhereKernel(const KernelContext& ctx) {
  const Tensor& g = ctx.inputs[0];
  const Tensor& cond = ctx.inputs[1];
  int64_t row = 1;
  SYMX_RETURN_IF_ERROR(WhereCheckShapes(ctx, cond, g, &row));
  if (!SkipOutput(ctx, 0) && ctx.outputs[0].nbytes() > 0) {
    std::memset(ctx.outputs[0].raw_data(), 0, ctx.outputs[0].nbytes());
  }
  const bool want_x = !SkipOutput(ctx, 1);
  const bool want_y = !SkipOutput(ctx, 2);
  return WhereDispatch(ctx, cond.dtype(), g.dtype(), [&](auto c_tag, auto b_tag) {
    using C = decltype(c_tag);
    using B = decltype(b_tag);
    const C* c = cond.data<C>();
    const B* gp = g.data<B>();
    B* gx = want_x ? ctx.outputs[1].data<B>() : nullptr;
    B* gy = want_y ? ctx.outputs[2].data<B>() : nullptr;
    const int64_t rows = row == 1 ? g.size() : cond.size();
    ParallelFor(ctx, rows, static_cast<double>(std::max<int64_t>(row, 1)),
                [&](int64_t begin, int64_t end) {
                  for (int64_t r = begin; r < end; ++r) {
                    const bool take = NonZero(c[r]);
                    for (int64_t i = r * row; i < (r + 1) * row; ++i) {
                      // Zero is the all-zero bit pattern in every dtype.
                      if (gx != nullptr) gx[i] = take ? gp[i] : B(0);
                      if (gy != nullptr) gy[i] = take ? B(0) : gp[i];
                    }
                  }
                });
  });
}

// clip: MXNet's x < lo ? lo : (x > hi ? hi : x).
absl::Status ClipKernel(const KernelContext& ctx) {
  const ClipParam& p = ctx.param<ClipParam>();
  const Tensor& in = ctx.inputs[0];
  SYMX_FLOAT16_SWITCH(ctx, in.dtype(), T, {
    auto x = Flat<T>(in);
    const T lo = FromAttr<T>(p.a_min);
    const T hi = FromAttr<T>(p.a_max);
    Assign(
        ctx, Flat<T>(ctx.outputs[0]),
        (x < x.constant(lo)).select(x.constant(lo), (x > x.constant(hi)).select(x.constant(hi), x)),
        in.size());
  });
  return absl::OkStatus();
}

// The gradient passes where a_min <= x <= a_max (bounds included, as MXNet).
absl::Status BackwardClipKernel(const KernelContext& ctx) {
  const ClipParam& p = ctx.param<ClipParam>();
  const Tensor& g = ctx.inputs[0];
  SYMX_FLOAT16_SWITCH(ctx, g.dtype(), T, {
    auto gm = Flat<T>(g);
    auto x = Flat<T>(ctx.inputs[1]);
    const T lo = FromAttr<T>(p.a_min);
    const T hi = FromAttr<T>(p.a_max);
    Assign(ctx, Flat<T>(ctx.outputs[0]),
           ((x < x.constant(lo)) || (x > x.constant(hi))).select(gm.constant(T(0)), gm), g.size());
  });
  return absl::OkStatus();
}

SYMX_REGISTER_KERNEL("_copy", kCPU, IdentityKernel);
SYMX_REGISTER_KERNEL("_identity_with_attr_like_rhs", kCPU, IdentityKernel);
// _copyto converts where inference gave its output another dtype.
SYMX_REGISTER_KERNEL("_copyto", kCPU, .fn = CastKernel, .widening = HalfWidening::kNever);
SYMX_REGISTER_KERNEL("_backward_copyto", kCPU, .fn = CastKernel, .widening = HalfWidening::kNever);
SYMX_REGISTER_KERNEL("BlockGrad", kCPU, IdentityKernel);
// The loss-scaling point is the identity forward (graph/ops/elemwise.cc).
SYMX_REGISTER_KERNEL("_symx_loss_scale", kCPU, IdentityKernel);
SYMX_REGISTER_KERNEL("zeros_like", kCPU, ZerosLikeKernel);
SYMX_REGISTER_KERNEL("ones_like", kCPU, OnesLikeKernel);
SYMX_REGISTER_KERNEL("Cast", kCPU, .fn = CastKernel, .widening = HalfWidening::kNever);
SYMX_REGISTER_KERNEL("_backward_Cast", kCPU, .fn = BackwardCastKernel,
                     .widening = HalfWidening::kNever);
SYMX_REGISTER_KERNEL("ElementWiseSum", kCPU, ElementWiseSumKernel);
SYMX_REGISTER_KERNEL("where", kCPU, WhereKernel);
SYMX_REGISTER_KERNEL("_backward_where", kCPU, BackwardWhereKernel);
SYMX_REGISTER_KERNEL("clip", kCPU, ClipKernel);
SYMX_REGISTER_KERNEL("_backward_clip", kCPU, BackwardClipKernel);

}  // namespace
}  // namespace cpu
}  // namespace symx
