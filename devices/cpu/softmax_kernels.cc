// CPU kernels for softmax and log_softmax (with their backward ops) and for
// the loss heads: SoftmaxOutput, Linear/Logistic/MAERegressionOutput, MakeLoss.
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
// Loss heads follow MXNet 1.x (legacy operators):
// - SoftmaxOutput's classes are axis 1 with multi_output (data (N, C, ...)),
//   the last axis with preserve_shape, otherwise data is seen as
//   (N, size / N) with label entry r for row r. Backward with a label of
//   data's shape is
//   (out - label) * grad_scale; otherwise out minus the one-hot label
//   (label values truncated to int; a label outside [0, C) matches no class,
//   so its row's gradient is just `out`, never a crash), with smooth_alpha
//   giving 1 - alpha to the label's class and alpha / (C - 1) to the others,
//   rows whose label equals ignore_label zeroed when use_ignore, then scaled:
//     normalization null:  grad_scale          (/ spatial size with multi_output)
//                   batch: grad_scale / label entries (multi_output: / (N * spatial))
//                   valid: grad_scale / #labels != ignore_label (at least 1)
//   ("valid" counts labels unequal to ignore_label whether or not use_ignore).
// - Regression outputs: forward identity (Linear, MAE) or sigmoid (Logistic);
//   grad = grad_scale / num_output * d(out, label), num_output =
//   label.size / label.shape[0], d = out - label (Linear, Logistic) or
//   (out - label > 0 ? 1 : -1) (MAE, as MXNet: -1 at a tie).
// - MakeLoss: forward identity; its gradient is grad_scale filled in data's
//   shape, divided for normalization=batch by the rows of data seen as 2-D
//   (the product of every dim but the last, so 1 for a 1-D loss, exactly as
//   MXNet's FlatTo2D does) and for normalization=valid by the number of loss
//   values above valid_thresh (at least 1).
// The label's gradient is zero for every loss head.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/axis_layout.h"
#include "devices/cpu/kernel_util.h"
#include "devices/cpu/vector_math.h"
#include "devices/stable_math.h"
#include "graph/error.h"
#include "graph/infer_util.h"
#include "graph/ops/loss.h"
#include "graph/ops/softmax.h"

namespace symx {
namespace cpu {
namespace {

// Adjacent columns handled together when the softmax axis is not innermost.
constexpr int64_t kBlock = 64;

template <typename A, typename B>
using AccOf =
    std::conditional_t<std::is_same_v<A, double> || std::is_same_v<B, double>, double, float>;

template <typename T>
using ArrayMap = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;
template <typename T>
using ConstArrayMap = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;

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

absl::Status CheckSameSize(const KernelContext& ctx, const Tensor& a, const Tensor& b) {
  if (a.size() == b.size()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": ", a.DebugString(), " and ",
                                                 b.DebugString(), " differ in size"));
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

// ----------------------------------------------------------------------------- loss heads

absl::Status LabelTypeMismatch(const KernelContext& ctx, const Tensor& data, const Tensor& label) {
  return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": label ", label.DebugString(),
                                                 " must have the data's dtype (",
                                                 DTypeName(data.dtype()), ")"));
}

absl::Status SoftmaxOutputForward(const KernelContext& ctx) {
  const Tensor& x = ctx.inputs[0];
  const Tensor& y = ctx.outputs[0];
  SYMX_RETURN_IF_ERROR(CheckSameSize(ctx, x, y));
  if (x.shape().ndim() < 2) {
    return absl::InvalidArgumentError(
        absl::StrCat(ctx.Where(), ": data ", x.DebugString(), " needs at least 2 dims"));
  }
  const AxisLayout l = SoftmaxOutputLayout(ctx.param<SoftmaxOutputParam>(), x.shape());
  SYMX_FLOAT_SWITCH(ctx, x.dtype(), T,
                    SoftmaxForward<T, T>(ctx, l, x.data<T>(), y.data<T>(), 1.0, false));
  return absl::OkStatus();
}

// A label value as a class index, truncated like a C cast; values no int can
// hold (NaN, huge) give a value that matches no class and no ignore_label.
template <typename T>
int64_t ClassOf(T v) {
  if (!(v > T(-2147483648.0) && v < T(2147483648.0))) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(static_cast<int>(v));
}

template <typename T>
absl::Status SoftmaxOutputGrad(const KernelContext& ctx) {
  const auto& p = ctx.param<SoftmaxOutputParam>();
  const Tensor& out = ctx.inputs[0];
  const Tensor& label = ctx.inputs[1];
  const Tensor& grad = ctx.outputs[0];
  SYMX_RETURN_IF_ERROR(CheckSameSize(ctx, out, grad));
  if (label.dtype() != out.dtype()) return LabelTypeMismatch(ctx, out, label);
  if (out.shape().ndim() < 2) {
    return absl::InvalidArgumentError(
        absl::StrCat(ctx.Where(), ": output ", out.DebugString(), " needs at least 2 dims"));
  }
  if (ctx.outputs.size() > 1) std::memset(ctx.outputs[1].raw_data(), 0, ctx.outputs[1].nbytes());
  const T* y = out.data<T>();
  const T* lab = label.data<T>();
  T* gx = grad.data<T>();

  if (label.shape() == out.shape()) {
    // Per-class probabilities as the label.
    const T scale = static_cast<T>(p.grad_scale);
    Assign(ctx, Flat<T>(grad), (Flat<T>(out) - Flat<T>(label)) * scale, grad.size());
    return absl::OkStatus();
  }
  const AxisLayout l = SoftmaxOutputLayout(p, out.shape());
  const int64_t positions = l.outer * l.inner;  // one class label per (outer, inner) position
  // multi_output needs exactly one label per position. Otherwise MXNet reads
  // the label flattened: position r uses entry r, while the batch and valid
  // counts run over every entry (the schema accepts a (N, d1..) label for
  // (N, d1.., C) data, which only preserve_shape uses in full).
  const int64_t entries = label.size();
  if (p.multi_output ? entries != positions : entries < positions) {
    return absl::InvalidArgumentError(
        absl::StrCat(ctx.Where(), ": label ", label.DebugString(), " should have ", positions,
                     " entries (one class per position) for output ", out.DebugString()));
  }
  const int64_t ignore = ClassOf(static_cast<T>(p.ignore_label));
  int64_t valid = entries;
  if (p.normalization == "valid") {
    for (int64_t i = 0; i < entries; ++i) valid -= ClassOf(lab[i]) == ignore ? 1 : 0;
  }
  const T s = static_cast<T>(SoftmaxOutputScale(p, l, entries, valid));
  const T alpha = static_cast<T>(p.smooth_alpha);
  const T hit = T(1) - alpha;
  const T miss = l.n > 1 ? alpha / static_cast<T>(l.n - 1) : T(0);
  const int64_t n = l.n, inner = l.inner;
  // Position u = (o, i): its class values sit at o * n * inner + c * inner + i.
  ParallelFor(ctx, positions, 3.0 * static_cast<double>(n), [&](int64_t b, int64_t e) {
    for (int64_t u = b; u < e; ++u) {
      const int64_t o = u / inner, i = u % inner;
      const int64_t k = ClassOf(lab[u]);
      const int64_t base = o * n * inner + i;
      if (p.use_ignore && k == ignore) {
        for (int64_t c = 0; c < n; ++c) gx[base + c * inner] = T(0);
        continue;
      }
      for (int64_t c = 0; c < n; ++c) {
        const int64_t at = base + c * inner;
        gx[at] = (y[at] - (c == k ? hit : miss)) * s;
      }
    }
  });
  return absl::OkStatus();
}

absl::Status SoftmaxOutputBackward(const KernelContext& ctx) {
  SYMX_FLOAT_SWITCH(ctx, ctx.inputs[0].dtype(), T, return SoftmaxOutputGrad<T>(ctx));
  return absl::OkStatus();
}

enum class Regression { kLinear, kLogistic, kMAE };

template <Regression R>
absl::Status RegressionForward(const KernelContext& ctx) {
  const Tensor& x = ctx.inputs[0];
  const Tensor& y = ctx.outputs[0];
  SYMX_RETURN_IF_ERROR(CheckSameSize(ctx, x, y));
  SYMX_FLOAT_SWITCH(ctx, x.dtype(), T, {
    if constexpr (R == Regression::kLogistic) {
      Assign(ctx, Flat<T>(y), Accurate<SigmoidOp>(Flat<T>(x)), x.size());
    } else if (x.raw_data() != y.raw_data()) {
      Assign(ctx, Flat<T>(y), Flat<T>(x), x.size());
    }
  });
  return absl::OkStatus();
}

template <Regression R, typename T>
absl::Status RegressionGrad(const KernelContext& ctx) {
  const auto& p = ctx.param<RegressionParam>();
  const Tensor& out = ctx.inputs[0];
  const Tensor& label = ctx.inputs[1];
  const Tensor& grad = ctx.outputs[0];
  SYMX_RETURN_IF_ERROR(CheckSameSize(ctx, out, grad));
  SYMX_RETURN_IF_ERROR(CheckSameSize(ctx, out, label));
  if (label.dtype() != out.dtype()) return LabelTypeMismatch(ctx, out, label);
  if (ctx.outputs.size() > 1) std::memset(ctx.outputs[1].raw_data(), 0, ctx.outputs[1].nbytes());
  if (grad.size() == 0) return absl::OkStatus();
  const T scale = static_cast<T>(RegressionScale(p, label.shape()));
  auto diff = Flat<T>(out) - Flat<T>(label);
  if constexpr (R == Regression::kMAE) {
    auto sign = (diff > diff.constant(T(0))).select(diff.constant(scale), diff.constant(-scale));
    Assign(ctx, Flat<T>(grad), sign, grad.size());
  } else {
    Assign(ctx, Flat<T>(grad), diff * scale, grad.size());
  }
  return absl::OkStatus();
}

template <Regression R>
absl::Status RegressionBackward(const KernelContext& ctx) {
  SYMX_FLOAT_SWITCH(ctx, ctx.inputs[0].dtype(), T, return (RegressionGrad<R, T>(ctx)));
  return absl::OkStatus();
}

// Forward identity for any dtype.
absl::Status MakeLossForward(const KernelContext& ctx) {
  const Tensor& x = ctx.inputs[0];
  const Tensor& y = ctx.outputs[0];
  if (x.nbytes() != y.nbytes()) return CheckSameSize(ctx, x, y);
  if (x.raw_data() != y.raw_data()) std::memcpy(y.raw_data(), x.raw_data(), x.nbytes());
  return absl::OkStatus();
}

template <typename T>
absl::Status MakeLossGrad(const KernelContext& ctx) {
  const auto& p = ctx.param<MakeLossParam>();
  const Tensor& grad = ctx.outputs[0];
  if (grad.size() == 0) return absl::OkStatus();
  double scale = MakeLossScale(p, grad.shape());
  if (p.normalization == "valid") {
    if (ctx.inputs.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(ctx.Where(), ": normalization=valid needs the forward output as an input"));
    }
    const Tensor& out = ctx.inputs[0];
    SYMX_RETURN_IF_ERROR(CheckSameSize(ctx, out, grad));
    if (out.dtype() != grad.dtype()) return UnsupportedDType(ctx, out.dtype());
    const T thresh = static_cast<T>(p.valid_thresh);
    const T* v = out.data<T>();
    int64_t count = 0;
    for (int64_t i = 0; i < out.size(); ++i) count += v[i] > thresh ? 1 : 0;
    scale /= static_cast<double>(std::max<int64_t>(count, 1));
  }
  Assign(ctx, Flat<T>(grad), Flat<T>(grad).constant(static_cast<T>(scale)), grad.size());
  return absl::OkStatus();
}

absl::Status MakeLossBackward(const KernelContext& ctx) {
  SYMX_FLOAT_SWITCH(ctx, ctx.outputs[0].dtype(), T, return MakeLossGrad<T>(ctx));
  return absl::OkStatus();
}

SYMX_REGISTER_KERNEL("softmax", kCPU, .fn = Softmax<false>,
                     .widening = HalfWidening::kFloat16AndBFloat16);
SYMX_REGISTER_KERNEL("log_softmax", kCPU, .fn = Softmax<true>,
                     .widening = HalfWidening::kFloat16AndBFloat16);
SYMX_REGISTER_KERNEL("_backward_softmax", kCPU, .fn = SoftmaxGrad<false>,
                     .widening = HalfWidening::kFloat16AndBFloat16);
SYMX_REGISTER_KERNEL("_backward_log_softmax", kCPU, .fn = SoftmaxGrad<true>,
                     .widening = HalfWidening::kFloat16AndBFloat16);
SYMX_REGISTER_KERNEL("SoftmaxOutput", kCPU, .fn = SoftmaxOutputForward,
                     .widening = HalfWidening::kFloat16AndBFloat16);
SYMX_REGISTER_KERNEL("_backward_SoftmaxOutput", kCPU, .fn = SoftmaxOutputBackward,
                     .widening = HalfWidening::kFloat16AndBFloat16);
SYMX_REGISTER_KERNEL("LinearRegressionOutput", kCPU, .fn = RegressionForward<Regression::kLinear>,
                     .widening = HalfWidening::kFloat16AndBFloat16);
SYMX_REGISTER_KERNEL("LogisticRegressionOutput", kCPU,
                     .fn = RegressionForward<Regression::kLogistic>,
                     .widening = HalfWidening::kFloat16AndBFloat16);
SYMX_REGISTER_KERNEL("MAERegressionOutput", kCPU, .fn = RegressionForward<Regression::kMAE>,
                     .widening = HalfWidening::kFloat16AndBFloat16);
SYMX_REGISTER_KERNEL("_backward_LinearRegressionOutput", kCPU,
                     .fn = RegressionBackward<Regression::kLinear>,
                     .widening = HalfWidening::kFloat16AndBFloat16);
SYMX_REGISTER_KERNEL("_backward_LogisticRegressionOutput", kCPU,
                     .fn = RegressionBackward<Regression::kLogistic>,
                     .widening = HalfWidening::kFloat16AndBFloat16);
SYMX_REGISTER_KERNEL("_backward_MAERegressionOutput", kCPU,
                     .fn = RegressionBackward<Regression::kMAE>,
                     .widening = HalfWidening::kFloat16AndBFloat16);
SYMX_REGISTER_KERNEL("MakeLoss", kCPU, .fn = MakeLossForward,
                     .widening = HalfWidening::kFloat16AndBFloat16);
SYMX_REGISTER_KERNEL("_backward_MakeLoss", kCPU, .fn = MakeLossBackward,
                     .widening = HalfWidening::kFloat16AndBFloat16);

}  // namespace
}  // namespace cpu
}  // namespace symx
