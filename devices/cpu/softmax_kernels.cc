// CPU kernels of the softmax family (graph/ops/softmax.cc): softmax,
// log_softmax, softmin and SoftmaxActivation, with their backward ops.
//
// Softmax along an axis views the tensor as (outer, n, inner) and normalizes
// over n, a row (or a block of up to kBlock adjacent columns when inner > 1)
// at a time: a pass for the maximum, then softmax writes exp(x - max) into the
// output and rescales it (one exp per element), log_softmax sums the exps and
// writes (x - max) - log(sum), the log taken as log1p of the exps other than
// the maximum's 1. Each output element is written only after its own
// input element was last read, so the in-place pair (output over data) is
// safe. Rows are stabilized by subtracting their maximum (of x / temperature)
// and computed in double when either side is.
//
// softmin and SoftmaxActivation are plain loops (legacy ops, kept cheap to
// compile) reducing in double through devices/cpu/column_loops.h, over
// (outer, n, inner) views: SoftmaxActivation instance (N, rest, 1), channel
// (N, C, rest); softmin (prod dims before axis, dim axis, prod dims after).
// In place: the forward ops that declare it (SoftmaxActivation, softmin without
// dtype, L2Normalization) read each input element of a column before writing
// the same position, so the output may alias the input.
#include "devices/cpu/softmax_kernels.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "devices/geometry/axis_layout.h"
#include "devices/cpu/column_loops.h"
#include "devices/cpu/kernel_util.h"
#include "devices/cpu/vector_math.h"
#include "devices/dtype_switch.h"
#include "devices/geometry/resize_map.h"
#include "devices/stable_math.h"
#include "devices/geometry/strided_view.h"
#include "graph/error.h"
#include "graph/infer_util.h"
#include "graph/ops/softmax.h"

namespace symx {
namespace cpu {
namespace {

// Adjacent columns handled together when the softmax axis is not innermost.
constexpr int64_t kBlock = 64;

template <typename A, typename B>
using AccOf =
    std::conditional_t<std::is_same_v<A, double> || std::is_same_v<B, double>, double, float>;

// Calls fn(row) or fn(o, i0, w) over the layout in parallel: `rows` when
// inner == 1 (row r covers [r * n, (r + 1) * n)), else blocks of w <= kBlock
// columns starting at column i0 of outer index o.
template <typename RowFn, typename BlockFn>
void ForEachRow(const KernelContext& ctx, const AxisLayout& l, double cost_per_elem, RowFn&& row,
                BlockFn&& block) {
  if (l.size() == 0) return;
  if (l.inner == 1) {
    ParallelFor(ctx, l.outer, cost_per_elem * static_cast<double>(l.n), [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) row(r);
    });
    return;
  }
  const int64_t blocks = (l.inner + kBlock - 1) / kBlock;
  ParallelFor(ctx, l.outer * blocks,
              cost_per_elem * static_cast<double>(l.n * std::min(l.inner, kBlock)),
              [&](int64_t b, int64_t e) {
                for (int64_t u = b; u < e; ++u) {
                  const int64_t o = u / blocks;
                  const int64_t i0 = (u % blocks) * kBlock;
                  block(o, i0, std::min(kBlock, l.inner - i0));
                }
              });
}

// y = softmax(x * inv_t) (or its log) along the layout's middle axis. log:
// y = (x - max) - log(sum of exps), the difference first, exact near the
// max, and the log as log1p of the exps beside the maximum's 1 (strided
// blocks: stable_math.h's LogSumOfExps; rows: from the first maximum's
// position, in a second pass only where it matters).
template <typename TI, typename TO>
void SoftmaxForward(const KernelContext& ctx, const AxisLayout& l, const TI* x, TO* y,
                    double inv_temperature, bool log) {
  using A = AccOf<TI, TO>;
  const A inv_t = static_cast<A>(inv_temperature);
  const int64_t n = l.n, inner = l.inner;
  auto row = [&](int64_t r) {
    ConstArrayMap<TI> xr(x + r * n, n);
    ArrayMap<TO> yr(y + r * n, n);
    const A m = (xr.template cast<A>() * inv_t).maxCoeff();
    if (log) {
      const auto z = xr.template cast<A>() * inv_t - m;
      const A sum = z.unaryExpr(ExpOp<A>()).sum();
      // Below 2, log(sum) would lose the digits of the exps beside the
      // maximum's 1: log1p of those, from the first maximum's position k (a
      // second pass over the row, only where it matters; a NaN row has no
      // element equal to m and keeps its NaN sum).
      int64_t k = n;
      if (sum < A(2)) {
        k = 0;
        while (k < n && !(static_cast<A>(xr[k]) * inv_t == m)) ++k;
      }
      const A lse = k < n ? std::log1p(z.head(k).unaryExpr(ExpOp<A>()).sum() +
                                       z.tail(n - k - 1).unaryExpr(ExpOp<A>()).sum())
                          : std::log(sum);
      yr = (z - lse).template cast<TO>();
    } else {
      // exp once into the output (x is not read again), then normalize.
      yr = (xr.template cast<A>() * inv_t - m).unaryExpr(ExpOp<A>()).template cast<TO>();
      const A sum = yr.template cast<A>().sum();
      yr *= static_cast<TO>(A(1) / sum);
    }
  };
  auto block = [&](int64_t o, int64_t i0, int64_t w) {
    A mx[kBlock], sm[kBlock];
    const int64_t base = o * n * inner + i0;
    for (int64_t t = 0; t < w; ++t) {
      mx[t] = -std::numeric_limits<A>::infinity();
      sm[t] = 0;
    }
    for (int64_t k = 0; k < n; ++k) {
      const TI* xk = x + base + k * inner;
      for (int64_t t = 0; t < w; ++t) mx[t] = std::max(mx[t], static_cast<A>(xk[t]) * inv_t);
    }
    if (log) {
      A at_max[kBlock] = {};
      for (int64_t k = 0; k < n; ++k) {
        const TI* xk = x + base + k * inner;
        for (int64_t t = 0; t < w; ++t) {
          SoftmaxExpTerm(static_cast<A>(xk[t]) * inv_t - mx[t], &sm[t], &at_max[t]);
        }
      }
      for (int64_t t = 0; t < w; ++t) sm[t] = LogSumOfExps(at_max[t], sm[t]);
      for (int64_t k = 0; k < n; ++k) {
        const TI* xk = x + base + k * inner;
        TO* yk = y + base + k * inner;
        for (int64_t t = 0; t < w; ++t) {
          yk[t] = static_cast<TO>((static_cast<A>(xk[t]) * inv_t - mx[t]) - sm[t]);
        }
      }
      return;
    }
    // exp once into the output (x is not read again), then normalize.
    for (int64_t k = 0; k < n; ++k) {
      const TI* xk = x + base + k * inner;
      TO* yk = y + base + k * inner;
      for (int64_t t = 0; t < w; ++t) {
        const A e = std::exp(static_cast<A>(xk[t]) * inv_t - mx[t]);
        yk[t] = static_cast<TO>(e);
        sm[t] += static_cast<A>(yk[t]);
      }
    }
    for (int64_t t = 0; t < w; ++t) sm[t] = A(1) / sm[t];
    for (int64_t k = 0; k < n; ++k) {
      TO* yk = y + base + k * inner;
      for (int64_t t = 0; t < w; ++t) yk[t] = static_cast<TO>(static_cast<A>(yk[t]) * sm[t]);
    }
  };
  ForEachRow(ctx, l, 20.0, row, block);
}

// gx from g (output gradient) and y (forward output):
//   softmax:     gx = (g - sum(g * y)) * y * inv_t
//   log_softmax: gx = (g - exp(y) * sum(g)) * inv_t
template <typename TI, typename TO>
void SoftmaxBackward(const KernelContext& ctx, const AxisLayout& l, const TO* g, const TO* y,
                     TI* gx, double inv_temperature, bool log) {
  using A = AccOf<TI, TO>;
  const A inv_t = static_cast<A>(inv_temperature);
  const int64_t n = l.n, inner = l.inner;
  auto row = [&](int64_t r) {
    ConstArrayMap<TO> gr(g + r * n, n), yr(y + r * n, n);
    ArrayMap<TI> out(gx + r * n, n);
    if (log) {
      const A s = gr.template cast<A>().sum();
      out = ((gr.template cast<A>() - yr.template cast<A>().unaryExpr(ExpOp<A>()) * s) * inv_t)
                .template cast<TI>();
    } else {
      const A s = (gr.template cast<A>() * yr.template cast<A>()).sum();
      out = ((gr.template cast<A>() - s) * yr.template cast<A>() * inv_t).template cast<TI>();
    }
  };
  auto block = [&](int64_t o, int64_t i0, int64_t w) {
    A sm[kBlock];
    const int64_t base = o * n * inner + i0;
    for (int64_t t = 0; t < w; ++t) sm[t] = 0;
    for (int64_t k = 0; k < n; ++k) {
      const TO* gk = g + base + k * inner;
      const TO* yk = y + base + k * inner;
      for (int64_t t = 0; t < w; ++t) {
        sm[t] += log ? static_cast<A>(gk[t]) : static_cast<A>(gk[t]) * static_cast<A>(yk[t]);
      }
    }
    for (int64_t k = 0; k < n; ++k) {
      const TO* gk = g + base + k * inner;
      const TO* yk = y + base + k * inner;
      TI* ok = gx + base + k * inner;
      for (int64_t t = 0; t < w; ++t) {
        const A gv = static_cast<A>(gk[t]), yv = static_cast<A>(yk[t]);
        ok[t] =
            static_cast<TI>(log ? (gv - std::exp(yv) * sm[t]) * inv_t : (gv - sm[t]) * yv * inv_t);
      }
    }
  };
  ForEachRow(ctx, l, 8.0, row, block);
}

// Runs fn(TI{}, TO{}) for float32/float64 pairs.
template <typename Fn>
absl::Status FloatPair(const KernelContext& ctx, DType a, DType b, Fn&& fn) {
  auto second = [&](auto ta) -> absl::Status {
    switch (b) {
      case DType::kFloat32:
        fn(ta, float{});
        return absl::OkStatus();
      case DType::kFloat64:
        fn(ta, double{});
        return absl::OkStatus();
      default:
        return UnsupportedDType(ctx, b);
    }
  };
  switch (a) {
    case DType::kFloat32:
      return second(float{});
    case DType::kFloat64:
      return second(double{});
    default:
      return UnsupportedDType(ctx, a);
  }
}

template <bool kLog>
absl::Status Softmax(const KernelContext& ctx) {
  const auto& p = ctx.param<SoftmaxParam>();
  const Tensor& x = ctx.inputs[0];
  const Tensor& y = ctx.outputs[0];
  SYMX_RETURN_IF_ERROR(CheckSameSize(ctx, x, y));
  SYMX_ASSIGN_OR_RETURN(AxisLayout l, LayoutAlong(ctx, x.shape(), p.axis));
  const double inv_t = 1.0 / p.temperature.value_or(1.0);
  return FloatPair(ctx, x.dtype(), y.dtype(), [&](auto ti, auto to) {
    using TI = decltype(ti);
    using TO = decltype(to);
    SoftmaxForward<TI, TO>(ctx, l, x.data<TI>(), y.data<TO>(), inv_t, kLog);
  });
}

template <bool kLog>
absl::Status SoftmaxGrad(const KernelContext& ctx) {
  const auto& p = ctx.param<SoftmaxParam>();
  const Tensor& g = ctx.inputs[0];
  const Tensor& y = ctx.inputs[1];
  const Tensor& gx = ctx.outputs[0];
  SYMX_RETURN_IF_ERROR(CheckSameSize(ctx, g, gx));
  SYMX_RETURN_IF_ERROR(CheckSameSize(ctx, y, gx));
  if (g.dtype() != y.dtype()) return UnsupportedDType(ctx, g.dtype());
  SYMX_ASSIGN_OR_RETURN(AxisLayout l, LayoutAlong(ctx, gx.shape(), p.axis));
  const double inv_t = 1.0 / p.temperature.value_or(1.0);
  return FloatPair(ctx, gx.dtype(), y.dtype(), [&](auto ti, auto to) {
    using TI = decltype(ti);
    using TO = decltype(to);
    SoftmaxBackward<TI, TO>(ctx, l, g.data<TO>(), y.data<TO>(), gx.data<TI>(), inv_t, kLog);
  });
}

SYMX_REGISTER_KERNEL("softmax", kCPU, .fn = Softmax<false>,
                     .widening = HalfWidening::kFloat16AndBFloat16);
SYMX_REGISTER_KERNEL("log_softmax", kCPU, .fn = Softmax<true>,
                     .widening = HalfWidening::kFloat16AndBFloat16);
SYMX_REGISTER_KERNEL("_backward_softmax", kCPU, .fn = SoftmaxGrad<false>,
                     .widening = HalfWidening::kFloat16AndBFloat16);
SYMX_REGISTER_KERNEL("_backward_log_softmax", kCPU, .fn = SoftmaxGrad<true>,
                     .widening = HalfWidening::kFloat16AndBFloat16);

}  // namespace

absl::Status SoftmaxAlong(const KernelContext& ctx, const AxisLayout& l, const Tensor& x,
                          const Tensor& y) {
  SYMX_FLOAT_SWITCH(ctx, x.dtype(), T,
                    SoftmaxForward<T, T>(ctx, l, x.data<T>(), y.data<T>(), 1.0, false));
  return absl::OkStatus();
}

}  // namespace cpu

namespace cpu {
namespace {

using column_loops::ForColumns;
using column_loops::Layout;
using column_loops::Ld;
using column_loops::St;

// ------------------------------------------------------------------ softmax family

// y = softmax(scale * x) over n.
template <typename TI, typename TO>
void SoftmaxFwd(const KernelContext& ctx, const Layout& l, const TI* x, TO* y, double scale) {
  const int64_t n = l.n, inner = l.inner;
  ForColumns(ctx, l, 30.0, [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) {
      const int64_t base = (c / inner) * n * inner + c % inner;
      double m = -std::numeric_limits<double>::infinity();
      for (int64_t k = 0; k < n; ++k) m = std::max(m, scale * Ld(x, base + k * inner));
      double sum = 0;
      for (int64_t k = 0; k < n; ++k) sum += std::exp(scale * Ld(x, base + k * inner) - m);
      const double inv = 1.0 / sum;
      for (int64_t k = 0; k < n; ++k) {
        const int64_t at = base + k * inner;
        St(y, at, std::exp(scale * Ld(x, at) - m) * inv);
      }
    }
  });
}

// gx = scale * y * (g - sum(g * y)) over n.
template <typename TI, typename TO>
void SoftmaxBwd(const KernelContext& ctx, const Layout& l, const TO* g, const TO* y, TI* gx,
                double scale) {
  const int64_t n = l.n, inner = l.inner;
  ForColumns(ctx, l, 6.0, [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) {
      const int64_t base = (c / inner) * n * inner + c % inner;
      double s = 0;
      for (int64_t k = 0; k < n; ++k) {
        const int64_t at = base + k * inner;
        s += Ld(g, at) * Ld(y, at);
      }
      for (int64_t k = 0; k < n; ++k) {
        const int64_t at = base + k * inner;
        St(gx, at, scale * Ld(y, at) * (Ld(g, at) - s));
      }
    }
  });
}

absl::Status SoftmaxActivationForward(const KernelContext& ctx) {
  const Tensor& x = ctx.inputs[0];
  const Tensor& y = ctx.outputs[0];
  SYMX_ASSIGN_OR_RETURN(Layout l, SoftmaxActivationLayout(ctx, x.shape()));
  SYMX_RETURN_IF_ERROR(CheckSize(ctx, y, x.size(), "output"));
  if (y.dtype() != x.dtype()) return UnsupportedDType(ctx, y.dtype());
  SYMX_FLOAT_STORAGE_SWITCH(ctx, x.dtype(), T,
                            SoftmaxFwd<T, T>(ctx, l, x.data<T>(), y.data<T>(), 1.0));
  return absl::OkStatus();
}

absl::Status SoftmaxActivationBackward(const KernelContext& ctx) {
  const Tensor& g = ctx.inputs[0];
  const Tensor& y = ctx.inputs[1];
  const Tensor& gx = ctx.outputs[0];
  SYMX_ASSIGN_OR_RETURN(Layout l, SoftmaxActivationLayout(ctx, gx.shape()));
  SYMX_RETURN_IF_ERROR(CheckSize(ctx, g, gx.size(), "ograd"));
  SYMX_RETURN_IF_ERROR(CheckSize(ctx, y, gx.size(), "output"));
  if (g.dtype() != gx.dtype() || y.dtype() != gx.dtype()) return UnsupportedDType(ctx, g.dtype());
  SYMX_FLOAT_STORAGE_SWITCH(ctx, gx.dtype(), T,
                            SoftmaxBwd<T, T>(ctx, l, g.data<T>(), y.data<T>(), gx.data<T>(), 1.0));
  return absl::OkStatus();
}

// Runs fn(TI{}, TO{}) for the float dtype pairs (softmin's dtype may change the type).
template <typename Fn>
absl::Status FloatStoragePair(const KernelContext& ctx, DType a, DType b, Fn&& fn) {
  auto second = [&](auto ta) -> absl::Status {
    SYMX_FLOAT_STORAGE_SWITCH(ctx, b, TO, fn(ta, TO{}));
    return absl::OkStatus();
  };
  SYMX_FLOAT_STORAGE_SWITCH(ctx, a, TI, return second(TI{}));
  return absl::OkStatus();
}

absl::Status SoftminForward(const KernelContext& ctx) {
  const auto& p = ctx.param<SoftmaxParam>();
  const Tensor& x = ctx.inputs[0];
  const Tensor& y = ctx.outputs[0];
  SYMX_RETURN_IF_ERROR(CheckSize(ctx, y, x.size(), "output"));
  SYMX_ASSIGN_OR_RETURN(Layout l, LayoutAlong(ctx, x.shape(), p.axis));
  const double scale = -1.0 / p.temperature.value_or(1.0);
  return FloatStoragePair(ctx, x.dtype(), y.dtype(), [&](auto ti, auto to) {
    using TI = decltype(ti);
    using TO = decltype(to);
    SoftmaxFwd<TI, TO>(ctx, l, x.data<TI>(), y.data<TO>(), scale);
  });
}

absl::Status SoftminBackward(const KernelContext& ctx) {
  const auto& p = ctx.param<SoftmaxParam>();
  const Tensor& g = ctx.inputs[0];
  const Tensor& y = ctx.inputs[1];
  const Tensor& gx = ctx.outputs[0];
  SYMX_RETURN_IF_ERROR(CheckSize(ctx, g, gx.size(), "ograd"));
  SYMX_RETURN_IF_ERROR(CheckSize(ctx, y, gx.size(), "output"));
  if (g.dtype() != y.dtype()) return UnsupportedDType(ctx, g.dtype());
  SYMX_ASSIGN_OR_RETURN(Layout l, LayoutAlong(ctx, gx.shape(), p.axis));
  const double scale = -1.0 / p.temperature.value_or(1.0);
  return FloatStoragePair(ctx, gx.dtype(), y.dtype(), [&](auto ti, auto to) {
    using TI = decltype(ti);
    using TO = decltype(to);
    SoftmaxBwd<TI, TO>(ctx, l, g.data<TO>(), y.data<TO>(), gx.data<TI>(), scale);
  });
}

SYMX_REGISTER_KERNEL("SoftmaxActivation", kCPU, SoftmaxActivationForward);
SYMX_REGISTER_KERNEL("_backward_SoftmaxActivation", kCPU, SoftmaxActivationBackward);
SYMX_REGISTER_KERNEL("softmin", kCPU, SoftminForward);
SYMX_REGISTER_KERNEL("_backward_softmin", kCPU, SoftminBackward);

}  // namespace
}  // namespace cpu

}  // namespace symx
