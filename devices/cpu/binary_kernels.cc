// CPU kernels of the binary ops: elemwise_{add,sub,mul,div}, _maximum,
// _minimum, _power, _mod, _hypot (one shape), broadcast_{add,sub,mul,div,
// maximum,minimum,power,mod,hypot} (numpy broadcasting), _mod_scalar,
// _rmod_scalar, _hypot_scalar, and broadcast_to/axis/like, with their
// backward ops. float32, float64 and float16 (computed in float); the mod and
// hypot forwards also take uint8, int8, int32 and int64, and the explicit
// broadcasts copy any dtype.
//
// Equal shapes run as one flat Eigen expression. Broadcasting first collapses
// the output's dims: size-1 dims are dropped and neighbours where each
// operand either follows the output or is broadcast in both are merged, so
// (N,C,H,W) + (1,C,1,1) becomes (N, C, H*W) + (1, C, 1). The forward then
// walks output rows along the last collapsed dim with a contiguous or
// stride-0 inner loop; the backward reduces the head gradient over each
// operand's broadcast dims, either by summing contiguous runs (last dim
// reduced) or by accumulating whole rows into a small buffer (last dim kept),
// parallel over the operand's elements so no two threads write one element.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "devices/cpu/elemwise_kernels.h"
#include "devices/cpu/kernel_util.h"
#include "devices/dtype_switch.h"
#include "graph/error.h"
#include "graph/ops/elemwise.h"

// The dtypes MXNet's mod and hypot take: float32, float64, float16 (as
// Eigen::half, computed in float) and uint8, int8, int32, int64.
#define SYMX_ARITH_SWITCH(ctx, dtype, T, ...)               \
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

// ---------------------------------------------------------------------------
// The ops. Forward: Map(a, b) on scalars, Expr(a, b) on flat Eigen maps.
// Backward: Lhs(g, l, r) and Rhs(g, l, r) are the terms summed into each
// operand's gradient.

struct AddOp {
  template <typename C>
  static C Map(C a, C b) {
    return a + b;
  }
  template <typename A, typename B>
  static auto Expr(const A& a, const B& b) {
    return a + b;
  }
  template <typename C>
  static C Lhs(C g, C l, C r) {
    return g;
  }
  template <typename C>
  static C Rhs(C g, C l, C r) {
    return g;
  }
  static constexpr bool kNeedsInputs = false;
};

struct SubOp {
  template <typename C>
  static C Map(C a, C b) {
    return a - b;
  }
  template <typename A, typename B>
  static auto Expr(const A& a, const B& b) {
    return a - b;
  }
  template <typename C>
  static C Lhs(C g, C l, C r) {
    return g;
  }
  template <typename C>
  static C Rhs(C g, C l, C r) {
    return -g;
  }
  static constexpr bool kNeedsInputs = false;
};

struct MulOp {
  template <typename C>
  static C Map(C a, C b) {
    return a * b;
  }
  template <typename A, typename B>
  static auto Expr(const A& a, const B& b) {
    return a * b;
  }
  template <typename C>
  static C Lhs(C g, C l, C r) {
    return g * r;
  }
  template <typename C>
  static C Rhs(C g, C l, C r) {
    return g * l;
  }
  static constexpr bool kNeedsInputs = true;
};

struct DivOp {
  template <typename C>
  static C Map(C a, C b) {
    return a / b;
  }
  template <typename A, typename B>
  static auto Expr(const A& a, const B& b) {
    return a / b;
  }
  template <typename C>
  static C Lhs(C g, C l, C r) {
    return g / r;
  }
  template <typename C>
  static C Rhs(C g, C l, C r) {
    return -g * l / (r * r);
  }
  static constexpr bool kNeedsInputs = true;
};

// max/min propagate NaN from either side, as MXNet's. The gradient goes to
// lhs on ties (lhs >= rhs for max, lhs <= rhs for min), as MXNet routes it.
struct MaxOp {
  template <typename C>
  static C Map(C a, C b) {
    return (a > b || a != a) ? a : b;
  }
  template <typename A, typename B>
  static auto Expr(const A& a, const B& b) {
    return a.template cwiseMax<Eigen::PropagateNaN>(b);
  }
  template <typename C>
  static C Lhs(C g, C l, C r) {
    return l >= r ? g : C(0);
  }
  template <typename C>
  static C Rhs(C g, C l, C r) {
    return l < r ? g : C(0);
  }
  static constexpr bool kNeedsInputs = true;
};

struct MinOp {
  template <typename C>
  static C Map(C a, C b) {
    return (a < b || a != a) ? a : b;
  }
  template <typename A, typename B>
  static auto Expr(const A& a, const B& b) {
    return a.template cwiseMin<Eigen::PropagateNaN>(b);
  }
  template <typename C>
  static C Lhs(C g, C l, C r) {
    return l <= r ? g : C(0);
  }
  template <typename C>
  static C Rhs(C g, C l, C r) {
    return l > r ? g : C(0);
  }
  static constexpr bool kNeedsInputs = true;
};

// d(l^r) = r l^(r-1) dl + l^r ln(l) dr.
struct PowOp {
  template <typename C>
  static C Map(C a, C b) {
    return std::pow(a, b);
  }
  template <typename A, typename B>
  static auto Expr(const A& a, const B& b) {
    using T = typename A::Scalar;
    return a.binaryExpr(b, Eigen::internal::scalar_pow_op<T, T>());
  }
  template <typename C>
  static C Lhs(C g, C l, C r) {
    return g * r * std::pow(l, r - C(1));
  }
  template <typename C>
  static C Rhs(C g, C l, C r) {
    return g * std::pow(l, r) * std::log(l);
  }
  static constexpr bool kNeedsInputs = true;
};

// MXNet's modulo, computed in double whatever the type: the result takes the
// divisor's sign (Python's %), and a zero divisor gives 0. An element of the
// compute type C (float for float16, the integer itself for integers).
template <typename C>
C ModOf(C a, C b) {
  const double x = static_cast<double>(a), y = static_cast<double>(b);
  if (y == 0) return C(0);
  if constexpr (std::is_unsigned_v<C>) {
    return static_cast<C>(std::fmod(x, y));
  } else {
    if (y < 0) {
      if (x < 0) return static_cast<C>(-std::fmod(-x, -y));
      const double r = std::fmod(x, -y);
      return static_cast<C>(r != 0 ? r + y : r);
    }
    if (x < 0) {
      const double r = std::fmod(-x, y);
      return static_cast<C>(r != 0 ? -r + y : -r);
    }
    return static_cast<C>(std::fmod(x, y));
  }
}

// hypot in float for the narrow types, as MXNet computes it; an integer
// result truncates (through int64, so a narrow type wraps as MXNet's does).
template <typename C>
C HypotOf(C a, C b) {
  if constexpr (std::is_integral_v<C>) {
    const float h = std::hypot(static_cast<float>(a), static_cast<float>(b));
    return static_cast<C>(static_cast<int64_t>(h));
  } else {
    return std::hypot(a, b);
  }
}

// d(a mod b) = g da - floor(a / b) g db, as MXNet's.
struct ModOp {
  template <typename C>
  static C Map(C a, C b) {
    return ModOf(a, b);
  }
  template <typename A, typename B>
  static auto Expr(const A& a, const B& b) {
    using T = typename A::Scalar;
    using C = ComputeType<T>;
    return a.binaryExpr(
        b, [](T x, T y) { return static_cast<T>(ModOf(static_cast<C>(x), static_cast<C>(y))); });
  }
  template <typename C>
  static C Lhs(C g, C l, C r) {
    return g;
  }
  template <typename C>
  static C Rhs(C g, C l, C r) {
    return -std::floor(l / r) * g;
  }
  static constexpr bool kNeedsInputs = true;
};

// d hypot(a, b) = (a da + b db) / hypot(a, b).
struct HypotOp {
  template <typename C>
  static C Map(C a, C b) {
    return HypotOf(a, b);
  }
  template <typename A, typename B>
  static auto Expr(const A& a, const B& b) {
    using T = typename A::Scalar;
    using C = ComputeType<T>;
    return a.binaryExpr(
        b, [](T x, T y) { return static_cast<T>(HypotOf(static_cast<C>(x), static_cast<C>(y))); });
  }
  template <typename C>
  static C Lhs(C g, C l, C r) {
    return g * l / std::hypot(l, r);
  }
  template <typename C>
  static C Rhs(C g, C l, C r) {
    return g * r / std::hypot(l, r);
  }
  static constexpr bool kNeedsInputs = true;
};

// ---------------------------------------------------------------------------
// Broadcast plans.

// std::vector, not absl::InlinedVector: GCC 12 at -O2 reports a false
// maybe-uninitialized inside InlinedVector here, and -Werror makes it fatal.
using DimVec = std::vector<int64_t>;

struct Plan {
  DimVec dims;  // collapsed output dims, all > 1; empty for a one-element output
  DimVec out_stride;
  DimVec stride[2];  // lhs, rhs element strides; 0 where the operand is broadcast
};

absl::Status MakePlan(const KernelContext& ctx, const Shape& lhs, const Shape& rhs,
                      const Shape& out, Plan* plan) {
  const int n = out.ndim();
  auto mismatch = [&] {
    return absl::InvalidArgumentError(
        absl::StrCat(ctx.Where(), ": operands of shapes ", lhs.ToString(), " and ", rhs.ToString(),
                     " do not broadcast to the output shape ", out.ToString()));
  };
  if (lhs.ndim() > n || rhs.ndim() > n) return mismatch();
  std::vector<bool> full[2];
  for (int i = 0; i < n; ++i) {
    const int64_t o = out[i];
    const int64_t l = i < n - lhs.ndim() ? 1 : lhs[i - (n - lhs.ndim())];
    const int64_t r = i < n - rhs.ndim() ? 1 : rhs[i - (n - rhs.ndim())];
    if ((l != o && l != 1) || (r != o && r != 1) || (o != 1 && l != o && r != o)) {
      return mismatch();
    }
    if (o == 1) continue;
    const bool lf = l == o;
    const bool rf = r == o;
    if (!plan->dims.empty() && full[0].back() == lf && full[1].back() == rf) {
      plan->dims.back() *= o;
    } else {
      plan->dims.push_back(o);
      full[0].push_back(lf);
      full[1].push_back(rf);
    }
  }
  const size_t m = plan->dims.size();
  plan->out_stride.assign(m, 0);
  plan->stride[0].assign(m, 0);
  plan->stride[1].assign(m, 0);
  int64_t os = 1;
  int64_t s[2] = {1, 1};
  for (size_t k = m; k-- > 0;) {
    plan->out_stride[k] = os;
    os *= plan->dims[k];
    for (int x = 0; x < 2; ++x) {
      if (full[x][k]) {
        plan->stride[x][k] = s[x];
        s[x] *= plan->dims[k];
      }
    }
  }
  return absl::OkStatus();
}

// An odometer over a subset of the plan's dims that tracks the offsets of the
// output and both operands.
struct Odometer {
  DimVec which;  // plan dims iterated, outermost first
  DimVec idx;
  int64_t off[3] = {0, 0, 0};  // output, lhs, rhs

  Odometer(const Plan& p, DimVec dims) : which(std::move(dims)), idx(which.size(), 0) {}

  // Positions the odometer at linear index `pos` of its dims (row-major).
  void Seek(const Plan& p, int64_t pos) {
    off[0] = off[1] = off[2] = 0;
    for (size_t k = which.size(); k-- > 0;) {
      const int64_t d = which[k];
      idx[k] = pos % p.dims[d];
      pos /= p.dims[d];
      off[0] += idx[k] * p.out_stride[d];
      off[1] += idx[k] * p.stride[0][d];
      off[2] += idx[k] * p.stride[1][d];
    }
  }

  void Next(const Plan& p) {
    for (size_t k = which.size(); k-- > 0;) {
      const int64_t d = which[k];
      off[0] += p.out_stride[d];
      off[1] += p.stride[0][d];
      off[2] += p.stride[1][d];
      if (++idx[k] < p.dims[d]) return;
      off[0] -= p.out_stride[d] * p.dims[d];
      off[1] -= p.stride[0][d] * p.dims[d];
      off[2] -= p.stride[1][d] * p.dims[d];
      idx[k] = 0;
    }
  }
};

// out = Op(lhs, rhs) with broadcasting.
template <typename Op, typename T>
void ForwardStrided(const KernelContext& ctx, const Plan& p, const T* l, const T* r, T* o,
                    int64_t n) {
  using C = ComputeType<T>;
  const size_t m = p.dims.size();
  if (m == 0) {
    o[0] = static_cast<T>(Op::Map(static_cast<C>(l[0]), static_cast<C>(r[0])));
    return;
  }
  const int64_t inner = p.dims[m - 1];
  const int64_t sl = p.stride[0][m - 1];
  const int64_t sr = p.stride[1][m - 1];
  DimVec outer;
  for (size_t d = 0; d + 1 < m; ++d) outer.push_back(static_cast<int64_t>(d));
  ParallelFor(ctx, n / inner, static_cast<double>(inner), [&](int64_t begin, int64_t end) {
    Odometer od(p, outer);
    od.Seek(p, begin);
    for (int64_t row = begin; row < end; ++row, od.Next(p)) {
      T* op = o + row * inner;
      const T* lp = l + od.off[1];
      const T* rp = r + od.off[2];
      if (sl != 0 && sr != 0) {
        for (int64_t t = 0; t < inner; ++t) {
          op[t] = static_cast<T>(Op::Map(static_cast<C>(lp[t]), static_cast<C>(rp[t])));
        }
      } else if (sl != 0) {
        const C rv = static_cast<C>(*rp);
        for (int64_t t = 0; t < inner; ++t) {
          op[t] = static_cast<T>(Op::Map(static_cast<C>(lp[t]), rv));
        }
      } else {
        const C lv = static_cast<C>(*lp);
        for (int64_t t = 0; t < inner; ++t) {
          op[t] = static_cast<T>(Op::Map(lv, static_cast<C>(rp[t])));
        }
      }
    }
  });
}

// The gradient term of operand `x` (0 lhs, 1 rhs).
template <typename Op, int x>
struct Term {
  template <typename C>
  static C Get(C g, C l, C r) {
    if constexpr (x == 0) {
      return Op::Lhs(g, l, r);
    } else {
      return Op::Rhs(g, l, r);
    }
  }
};

// acc[t] += term(g[t], l[t*sl], r[t*sr]) for t in [0, len).
template <typename Op, int x, typename T, typename C>
inline void AccumulateRun(C* acc, const T* g, const T* l, const T* r, int64_t len, int64_t sl,
                          int64_t sr) {
  using F = Term<Op, x>;
  if (sl != 0 && sr != 0) {
    for (int64_t t = 0; t < len; ++t) {
      acc[t] += F::Get(static_cast<C>(g[t]), static_cast<C>(l[t]), static_cast<C>(r[t]));
    }
  } else if (sl != 0) {
    const C rv = static_cast<C>(*r);
    for (int64_t t = 0; t < len; ++t) {
      acc[t] += F::Get(static_cast<C>(g[t]), static_cast<C>(l[t]), rv);
    }
  } else if (sr != 0) {
    const C lv = static_cast<C>(*l);
    for (int64_t t = 0; t < len; ++t) {
      acc[t] += F::Get(static_cast<C>(g[t]), lv, static_cast<C>(r[t]));
    }
  } else {
    const C lv = static_cast<C>(*l);
    const C rv = static_cast<C>(*r);
    for (int64_t t = 0; t < len; ++t) acc[t] += F::Get(static_cast<C>(g[t]), lv, rv);
  }
}

// sum over t in [0, len) of term(g[t], l[t*sl], r[t*sr]).
template <typename Op, int x, typename T, typename C>
inline C SumRun(const T* g, const T* l, const T* r, int64_t len, int64_t sl, int64_t sr) {
  using F = Term<Op, x>;
  C sum(0);
  for (int64_t t = 0; t < len; ++t) {
    sum += F::Get(static_cast<C>(g[t]), static_cast<C>(l[t * sl]), static_cast<C>(r[t * sr]));
  }
  return sum;
}

// gx = the gradient of operand x: term(g, l, r) summed over x's broadcast dims.
template <typename Op, int x, typename T>
void ReduceStrided(const KernelContext& ctx, const Plan& p, const T* g, const T* l, const T* r,
                   T* gx, int64_t n_out, int64_t n_x) {
  using C = ComputeType<T>;
  const size_t m = p.dims.size();
  if (m == 0) {
    gx[0] = static_cast<T>(
        Term<Op, x>::Get(static_cast<C>(g[0]), static_cast<C>(l[0]), static_cast<C>(r[0])));
    return;
  }
  const DimVec& xs = p.stride[x];
  DimVec kept, reduced;
  for (size_t d = 0; d < m; ++d) (xs[d] != 0 ? kept : reduced).push_back(static_cast<int64_t>(d));
  const int64_t last = static_cast<int64_t>(m - 1);
  const int64_t len = p.dims[last];
  const int64_t sl = p.stride[0][last];
  const int64_t sr = p.stride[1][last];
  const double per_element = static_cast<double>(n_out) / static_cast<double>(n_x);

  if (xs[last] == 0) {
    // The last dim is reduced: each element of gx sums contiguous runs of g.
    reduced.pop_back();
    int64_t outer_count = 1;
    for (int64_t d : reduced) outer_count *= p.dims[d];
    ParallelFor(ctx, n_x, per_element, [&](int64_t begin, int64_t end) {
      Odometer base(p, kept);
      Odometer red(p, reduced);  // wraps back to 0 after outer_count steps
      base.Seek(p, begin);
      for (int64_t j = begin; j < end; ++j, base.Next(p)) {
        C sum(0);
        for (int64_t k = 0; k < outer_count; ++k, red.Next(p)) {
          sum += SumRun<Op, x, T, C>(g + base.off[0] + red.off[0], l + base.off[1] + red.off[1],
                                     r + base.off[2] + red.off[2], len, sl, sr);
        }
        gx[j] = static_cast<T>(sum);
      }
    });
    return;
  }

  // The last dim is kept: accumulate runs of up to kWidth elements of a gx
  // row over every reduced position.
  constexpr int64_t kWidth = 512;
  kept.pop_back();
  const int64_t rows = n_x / len;
  const int64_t chunks = (len + kWidth - 1) / kWidth;
  int64_t red_count = 1;
  for (int64_t d : reduced) red_count *= p.dims[d];
  ParallelFor(ctx, rows * chunks, per_element * std::min(len, kWidth),
              [&](int64_t begin, int64_t end) {
                C acc[kWidth];
                Odometer base(p, kept);
                Odometer red(p, reduced);  // wraps back to 0 after red_count steps
                base.Seek(p, begin / chunks);
                for (int64_t u = begin; u < end; ++u) {
                  const int64_t row = u / chunks;
                  const int64_t c0 = (u % chunks) * kWidth;
                  const int64_t n = std::min(kWidth, len - c0);
                  if (u != begin && c0 == 0) base.Next(p);
                  std::fill(acc, acc + n, C(0));
                  for (int64_t k = 0; k < red_count; ++k, red.Next(p)) {
                    AccumulateRun<Op, x, T, C>(acc, g + base.off[0] + red.off[0] + c0,
                                               l + base.off[1] + red.off[1] + c0 * sl,
                                               r + base.off[2] + red.off[2] + c0 * sr, n, sl, sr);
                  }
                  T* dst = gx + row * len + c0;
                  for (int64_t t = 0; t < n; ++t) dst[t] = static_cast<T>(acc[t]);
                }
              });
}

// ---------------------------------------------------------------------------
// Kernels.

// elemwise_* and broadcast_* forward.
template <typename Op>
absl::Status BinaryForward(const KernelContext& ctx) {
  const Tensor& lhs = ctx.inputs[0];
  const Tensor& rhs = ctx.inputs[1];
  const Tensor& out = ctx.outputs[0];
  const int64_t n = out.size();
  if (lhs.size() == n && rhs.size() == n) {
    // One shape (or the same elements in another layout of 1s): flat.
    SYMX_FLOAT16_SWITCH(ctx, out.dtype(), T, {
      auto a = Flat<T>(lhs);
      auto b = Flat<T>(rhs);
      Assign(ctx, Flat<T>(out), Op::Expr(a, b), n);
    });
    return absl::OkStatus();
  }
  if (n == 0) return absl::OkStatus();
  Plan plan;
  SYMX_RETURN_IF_ERROR(MakePlan(ctx, lhs.shape(), rhs.shape(), out.shape(), &plan));
  SYMX_FLOAT16_SWITCH(ctx, out.dtype(), T, {
    ForwardStrided<Op, T>(ctx, plan, lhs.data<T>(), rhs.data<T>(), out.data<T>(), n);
  });
  return absl::OkStatus();
}

// mod and hypot: BinaryForward in the float and integer dtypes MXNet takes.
template <typename Op>
absl::Status ArithForward(const KernelContext& ctx) {
  const Tensor& lhs = ctx.inputs[0];
  const Tensor& rhs = ctx.inputs[1];
  const Tensor& out = ctx.outputs[0];
  const int64_t n = out.size();
  if (lhs.size() == n && rhs.size() == n) {
    SYMX_ARITH_SWITCH(ctx, out.dtype(), T, {
      MapBinary(ctx, lhs.data<T>(), rhs.data<T>(), out.data<T>(), n, 8.0,
                [](auto a, auto b) { return Op::Map(a, b); });
    });
    return absl::OkStatus();
  }
  if (n == 0) return absl::OkStatus();
  Plan plan;
  SYMX_RETURN_IF_ERROR(MakePlan(ctx, lhs.shape(), rhs.shape(), out.shape(), &plan));
  SYMX_ARITH_SWITCH(ctx, out.dtype(), T, {
    ForwardStrided<Op, T>(ctx, plan, lhs.data<T>(), rhs.data<T>(), out.data<T>(), n);
  });
  return absl::OkStatus();
}

// _backward_maximum/_minimum/_power of the one-shape ops: (ograd, lhs, rhs).
template <typename Op>
absl::Status ElemwiseBackward(const KernelContext& ctx) {
  const Tensor& g = ctx.inputs[0];
  const int64_t n = g.size();
  SYMX_FLOAT16_SWITCH(ctx, g.dtype(), T, {
    const T* gp = g.data<T>();
    const T* lp = ctx.inputs[1].data<T>();
    const T* rp = ctx.inputs[2].data<T>();
    if (!SkipOutput(ctx, 0)) {
      MapTernary(ctx, gp, lp, rp, ctx.outputs[0].data<T>(), n, 4.0,
                 [](auto gv, auto lv, auto rv) { return Op::Lhs(gv, lv, rv); });
    }
    if (!SkipOutput(ctx, 1)) {
      MapTernary(ctx, gp, lp, rp, ctx.outputs[1].data<T>(), n, 4.0,
                 [](auto gv, auto lv, auto rv) { return Op::Rhs(gv, lv, rv); });
    }
  });
  return absl::OkStatus();
}

// _backward_broadcast_*: (ograd) for add/sub, (ograd, lhs, rhs) otherwise;
// outputs take the operands' shapes.
template <typename Op>
absl::Status BroadcastBackward(const KernelContext& ctx) {
  const Tensor& g = ctx.inputs[0];
  const Tensor& gl = ctx.outputs[0];
  const Tensor& gr = ctx.outputs[1];
  const int64_t n = g.size();
  const bool want[2] = {!SkipOutput(ctx, 0), !SkipOutput(ctx, 1)};
  if (n == 0) {
    // Nothing flows; a broadcast operand may still have elements.
    for (int x = 0; x < 2; ++x) {
      const Tensor& t = ctx.outputs[x];
      if (want[x] && t.nbytes() > 0) std::memset(t.raw_data(), 0, t.nbytes());
    }
    return absl::OkStatus();
  }
  Plan plan;
  SYMX_RETURN_IF_ERROR(MakePlan(ctx, gl.shape(), gr.shape(), g.shape(), &plan));
  SYMX_FLOAT16_SWITCH(ctx, g.dtype(), T, {
    const T* gp = g.data<T>();
    // add and sub never read the operands; any in-bounds pointer will do, and
    // an operand's offsets never exceed the output's size.
    const T* lp = Op::kNeedsInputs ? ctx.inputs[1].data<T>() : gp;
    const T* rp = Op::kNeedsInputs ? ctx.inputs[2].data<T>() : gp;
    if (want[0]) ReduceStrided<Op, 0, T>(ctx, plan, gp, lp, rp, gl.data<T>(), n, gl.size());
    if (want[1]) ReduceStrided<Op, 1, T>(ctx, plan, gp, lp, rp, gr.data<T>(), n, gr.size());
  });
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------
// mod and hypot with a scalar: the scalar is first converted to the array's
// dtype, as MXNet does (integers truncate it).

template <typename T>
T ScalarIn(double v) {
  if constexpr (std::is_integral_v<T>) {
    return CastValue<T>(v);
  } else {
    return FromAttr<T>(v);
  }
}

enum class ScalarArith { kMod, kRMod, kHypot };

template <ScalarArith F>
absl::Status ArithScalarForward(const KernelContext& ctx) {
  const Tensor& x = ctx.inputs[0];
  const double scalar = ctx.param<ScalarParam>().scalar;
  SYMX_ARITH_SWITCH(ctx, x.dtype(), T, {
    using C = ComputeType<T>;
    const C s = static_cast<C>(ScalarIn<T>(scalar));
    MapUnary(ctx, x.data<T>(), ctx.outputs[0].data<T>(), x.size(), 8.0, [s](C v) {
      if constexpr (F == ScalarArith::kMod) {
        return ModOf(v, s);
      } else if constexpr (F == ScalarArith::kRMod) {
        return ModOf(s, v);
      } else {
        return HypotOf(v, s);
      }
    });
  });
  return absl::OkStatus();
}

// (ograd, data): _rmod_scalar's -floor(s / x) g and _hypot_scalar's
// x g / hypot(x, s).
template <ScalarArith F>
absl::Status ArithScalarBackward(const KernelContext& ctx) {
  const Tensor& g = ctx.inputs[0];
  const double scalar = ctx.param<ScalarParam>().scalar;
  SYMX_FLOAT16_SWITCH(ctx, g.dtype(), T, {
    using C = ComputeType<T>;
    const C s = static_cast<C>(ScalarIn<T>(scalar));
    MapBinary(ctx, g.data<T>(), ctx.inputs[1].data<T>(), ctx.outputs[0].data<T>(), g.size(), 8.0,
              [s](C gv, C v) {
                if constexpr (F == ScalarArith::kRMod) {
                  return -std::floor(s / v) * gv;
                } else {
                  return gv * v / std::hypot(v, s);
                }
              });
  });
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------
// broadcast_to, broadcast_axis, broadcast_like: the input repeated along its
// size-1 axes, by element width (any dtype). The gradient sums the head
// gradient back over them (broadcast_add's lhs gradient).

// out = in repeated along the plan's broadcast dims: contiguous rows are
// copied, broadcast rows filled.
template <typename U>
void CopyStrided(const KernelContext& ctx, const Plan& p, const U* in, U* o, int64_t n) {
  const size_t m = p.dims.size();
  if (m == 0) {
    o[0] = in[0];
    return;
  }
  const int64_t inner = p.dims[m - 1];
  const bool contiguous = p.stride[0][m - 1] != 0;
  DimVec outer;
  for (size_t d = 0; d + 1 < m; ++d) outer.push_back(static_cast<int64_t>(d));
  ParallelFor(ctx, n / inner, static_cast<double>(inner), [&](int64_t begin, int64_t end) {
    Odometer od(p, outer);
    od.Seek(p, begin);
    for (int64_t row = begin; row < end; ++row, od.Next(p)) {
      const U* ip = in + od.off[1];
      U* op = o + row * inner;
      if (contiguous) {
        std::memcpy(op, ip, static_cast<size_t>(inner) * sizeof(U));
      } else {
        std::fill(op, op + inner, *ip);
      }
    }
  });
}

absl::Status BroadcastCopy(const KernelContext& ctx) {
  const Tensor& in = ctx.inputs[0];
  const Tensor& out = ctx.outputs[0];
  const int64_t n = out.size();
  if (n == 0) return absl::OkStatus();
  if (in.size() == n) {
    if (in.raw_data() != out.raw_data()) std::memcpy(out.raw_data(), in.raw_data(), out.nbytes());
    return absl::OkStatus();
  }
  Plan plan;
  SYMX_RETURN_IF_ERROR(MakePlan(ctx, in.shape(), out.shape(), out.shape(), &plan));
  auto copy = [&](auto zero) {
    using U = decltype(zero);
    CopyStrided<U>(ctx, plan, static_cast<const U*>(in.read_raw_data()),
                   static_cast<U*>(out.raw_data()), n);
  };
  switch (DTypeSize(out.dtype())) {
    case 1:
      copy(uint8_t{0});
      break;
    case 2:
      copy(uint16_t{0});
      break;
    case 4:
      copy(uint32_t{0});
      break;
    case 8:
      copy(uint64_t{0});
      break;
    default:
      return UnsupportedDType(ctx, out.dtype());
  }
  return absl::OkStatus();
}

// (ograd) -> the gradient of input 0, in its shape.
absl::Status BroadcastSumBack(const KernelContext& ctx) {
  const Tensor& g = ctx.inputs[0];
  const Tensor& gx = ctx.outputs[0];
  if (SkipOutput(ctx, 0)) return absl::OkStatus();
  if (g.size() == 0) {
    if (gx.nbytes() > 0) std::memset(gx.raw_data(), 0, gx.nbytes());
    return absl::OkStatus();
  }
  Plan plan;
  SYMX_RETURN_IF_ERROR(MakePlan(ctx, gx.shape(), g.shape(), g.shape(), &plan));
  SYMX_FLOAT16_SWITCH(ctx, g.dtype(), T, {
    const T* gp = g.data<T>();
    ReduceStrided<AddOp, 0, T>(ctx, plan, gp, gp, gp, gx.data<T>(), g.size(), gx.size());
  });
  return absl::OkStatus();
}

SYMX_REGISTER_KERNEL("elemwise_add", kCPU, BinaryForward<AddOp>);
SYMX_REGISTER_KERNEL("elemwise_sub", kCPU, BinaryForward<SubOp>);
SYMX_REGISTER_KERNEL("elemwise_mul", kCPU, BinaryForward<MulOp>);
SYMX_REGISTER_KERNEL("elemwise_div", kCPU, BinaryForward<DivOp>);
SYMX_REGISTER_KERNEL("_maximum", kCPU, BinaryForward<MaxOp>);
SYMX_REGISTER_KERNEL("_minimum", kCPU, BinaryForward<MinOp>);
SYMX_REGISTER_KERNEL("_power", kCPU, BinaryForward<PowOp>);
SYMX_REGISTER_KERNEL("_backward_maximum", kCPU, ElemwiseBackward<MaxOp>);
SYMX_REGISTER_KERNEL("_backward_minimum", kCPU, ElemwiseBackward<MinOp>);
SYMX_REGISTER_KERNEL("_backward_power", kCPU, ElemwiseBackward<PowOp>);

SYMX_REGISTER_KERNEL("broadcast_add", kCPU, BinaryForward<AddOp>);
SYMX_REGISTER_KERNEL("broadcast_sub", kCPU, BinaryForward<SubOp>);
SYMX_REGISTER_KERNEL("broadcast_mul", kCPU, BinaryForward<MulOp>);
SYMX_REGISTER_KERNEL("broadcast_div", kCPU, BinaryForward<DivOp>);
SYMX_REGISTER_KERNEL("broadcast_maximum", kCPU, BinaryForward<MaxOp>);
SYMX_REGISTER_KERNEL("broadcast_minimum", kCPU, BinaryForward<MinOp>);
SYMX_REGISTER_KERNEL("broadcast_power", kCPU, BinaryForward<PowOp>);
SYMX_REGISTER_KERNEL("_backward_broadcast_add", kCPU, BroadcastBackward<AddOp>);
SYMX_REGISTER_KERNEL("_backward_broadcast_sub", kCPU, BroadcastBackward<SubOp>);
SYMX_REGISTER_KERNEL("_backward_broadcast_mul", kCPU, BroadcastBackward<MulOp>);
SYMX_REGISTER_KERNEL("_backward_broadcast_div", kCPU, BroadcastBackward<DivOp>);
SYMX_REGISTER_KERNEL("_backward_broadcast_maximum", kCPU, BroadcastBackward<MaxOp>);
SYMX_REGISTER_KERNEL("_backward_broadcast_minimum", kCPU, BroadcastBackward<MinOp>);
SYMX_REGISTER_KERNEL("_backward_broadcast_power", kCPU, BroadcastBackward<PowOp>);

SYMX_REGISTER_KERNEL("_mod", kCPU, ArithForward<ModOp>);
SYMX_REGISTER_KERNEL("_hypot", kCPU, ArithForward<HypotOp>);
SYMX_REGISTER_KERNEL("broadcast_mod", kCPU, ArithForward<ModOp>);
SYMX_REGISTER_KERNEL("broadcast_hypot", kCPU, ArithForward<HypotOp>);
SYMX_REGISTER_KERNEL("_backward_mod", kCPU, ElemwiseBackward<ModOp>);
SYMX_REGISTER_KERNEL("_backward_hypot", kCPU, ElemwiseBackward<HypotOp>);
SYMX_REGISTER_KERNEL("_backward_broadcast_mod", kCPU, BroadcastBackward<ModOp>);
SYMX_REGISTER_KERNEL("_backward_broadcast_hypot", kCPU, BroadcastBackward<HypotOp>);
SYMX_REGISTER_KERNEL("_mod_scalar", kCPU, ArithScalarForward<ScalarArith::kMod>);
SYMX_REGISTER_KERNEL("_rmod_scalar", kCPU, ArithScalarForward<ScalarArith::kRMod>);
SYMX_REGISTER_KERNEL("_hypot_scalar", kCPU, ArithScalarForward<ScalarArith::kHypot>);
SYMX_REGISTER_KERNEL("_backward_rmod_scalar", kCPU, ArithScalarBackward<ScalarArith::kRMod>);
SYMX_REGISTER_KERNEL("_backward_hypot_scalar", kCPU, ArithScalarBackward<ScalarArith::kHypot>);

SYMX_REGISTER_KERNEL("broadcast_to", kCPU, BroadcastCopy);
SYMX_REGISTER_KERNEL("broadcast_axis", kCPU, BroadcastCopy);
SYMX_REGISTER_KERNEL("broadcast_like", kCPU, BroadcastCopy);
SYMX_REGISTER_KERNEL("_backward_broadcast_to", kCPU, BroadcastSumBack);
SYMX_REGISTER_KERNEL("_backward_broadcast_axis", kCPU, BroadcastSumBack);
SYMX_REGISTER_KERNEL("_backward_broadcast_like", kCPU, BroadcastSumBack);

}  // namespace
}  // namespace cpu
}  // namespace symx
