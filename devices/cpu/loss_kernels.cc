// CPU kernels of the loss family (graph/ops/loss.cc): SoftmaxOutput,
// Linear/Logistic/MAERegressionOutput, MakeLoss, SVMOutput,
// softmax_cross_entropy and IdentityAttachKLSparseReg, with their backward ops.
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
// - SVMOutput: forward identity; backward per row r of the last axis with
//   class k = (int) label[r], score s: for the class, L2 -2 reg (margin - s)
//   where margin > s, L1 -reg where margin > s; for every other class, L2
//   2 reg (margin + s) where margin > -s, L1 reg where margin > -s; else 0
//   (a label matching no class leaves every score an "other" one, as MXNet).
//
// Not loss heads:
// - softmax_cross_entropy: sum over rows of -log(max(softmax(row)[label], 1e-8)),
//   one value; backward g (softmax - onehot). A label outside [0, classes)
//   is an error (MXNet reads past the row).
// - IdentityAttachKLSparseReg: forward identity; backward first moves the
//   aux moving_avg toward the per-channel mean of data (axis 1, averaged
//   over every other axis), then adds penalty (-target / avg +
//   (1 - target) / (1 - avg)) to the head gradient, as MXNet's backward.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/cpu/elemwise_kernels.h"
#include "devices/cpu/kernel_util.h"
#include "devices/cpu/softmax_kernels.h"
#include "devices/cpu/vector_math.h"
#include "devices/geometry/axis_layout.h"
#include "devices/stable_math.h"
#include "graph/error.h"
#include "graph/infer_util.h"
#include "graph/ops/loss.h"

namespace symx {
namespace cpu {
namespace {

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
  return SoftmaxAlong(ctx, l, x, y);
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

// ----------------------------------------------------------------------------- SVMOutput

template <typename T>
absl::Status SVMOutputGrad(const KernelContext& ctx) {
  const auto& p = ctx.param<SVMOutputParam>();
  const Tensor& out = ctx.inputs[0];
  const Tensor& label = ctx.inputs[1];
  const Tensor& grad = ctx.outputs[0];
  SYMX_RETURN_IF_ERROR(CheckSameSize(ctx, out, grad));
  if (label.dtype() != out.dtype()) return LabelTypeMismatch(ctx, out, label);
  if (ctx.outputs.size() > 1 && ctx.outputs[1].defined()) {
    std::memset(ctx.outputs[1].raw_data(), 0, ctx.outputs[1].nbytes());
  }
  if (out.size() == 0) return absl::OkStatus();
  const int64_t cols = out.shape()[out.shape().ndim() - 1];
  const int64_t rows = out.size() / cols;
  if (label.size() != rows) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": label ", label.DebugString(),
                                                   " needs one class per row of ",
                                                   out.DebugString()));
  }
  const T margin = static_cast<T>(p.margin);
  const T reg = static_cast<T>(p.regularization_coefficient);
  const T* y = out.data<T>();
  const T* lab = label.data<T>();
  T* gx = grad.data<T>();
  ParallelFor(ctx, rows, static_cast<double>(cols) * 2, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const int64_t k = ClassOf(lab[r]);
      for (int64_t x = 0; x < cols; ++x) {
        const T v = y[r * cols + x];
        T d;
        if (p.use_linear) {
          d = x == k ? (margin > v ? -reg : T(0)) : (margin > -v ? reg : T(0));
        } else if (x == k) {
          d = (margin > v ? T(2) * (margin - v) : T(0)) * -reg;
        } else {
          d = (margin > -v ? T(-2) * (margin + v) : T(0)) * -reg;
        }
        gx[r * cols + x] = d;
      }
    }
  });
  return absl::OkStatus();
}

absl::Status SVMOutputBackward(const KernelContext& ctx) {
  SYMX_FLOAT_SWITCH(ctx, ctx.inputs[0].dtype(), T, return SVMOutputGrad<T>(ctx));
  return absl::OkStatus();
}

// -----------------------------------------------------------------------------
// softmax_cross_entropy

// Row r's softmax into p (max-shifted, in T as MXNet's); the label's class,
// or an error naming the label.
template <typename T>
absl::Status RowSoftmax(const KernelContext& ctx, const T* x, T label, int64_t r, int64_t cols,
                        T* p, int64_t* k) {
  *k = ClassOf(label);
  if (*k < 0 || *k >= cols) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": label ",
                                                   static_cast<double>(label), " of row ", r,
                                                   " is not a class in [0, ", cols, ")"));
  }
  T mx = x[0];
  for (int64_t c = 1; c < cols; ++c) mx = std::max(mx, x[c]);
  T sum = 0;
  for (int64_t c = 0; c < cols; ++c) {
    p[c] = std::exp(x[c] - mx);
    sum += p[c];
  }
  for (int64_t c = 0; c < cols; ++c) p[c] /= sum;
  return absl::OkStatus();
}

template <typename T>
absl::Status SoftmaxCrossEntropyLoss(const KernelContext& ctx) {
  const Tensor& data = ctx.inputs[0];
  const Tensor& label = ctx.inputs[1];
  if (label.dtype() != data.dtype()) return LabelTypeMismatch(ctx, data, label);
  const int64_t rows = data.shape()[0], cols = data.shape()[1];
  std::vector<T> p(static_cast<size_t>(cols));
  const T* x = data.data<T>();
  const T* lab = label.data<T>();
  T loss = 0;
  for (int64_t r = 0; r < rows; ++r) {
    int64_t k = 0;
    SYMX_RETURN_IF_ERROR(RowSoftmax(ctx, x + r * cols, lab[r], r, cols, p.data(), &k));
    loss += -std::log(std::max(p[k], static_cast<T>(1e-8f)));
  }
  ctx.outputs[0].data<T>()[0] = loss;
  return absl::OkStatus();
}

absl::Status SoftmaxCrossEntropyForward(const KernelContext& ctx) {
  SYMX_FLOAT_SWITCH(ctx, ctx.inputs[0].dtype(), T, return SoftmaxCrossEntropyLoss<T>(ctx));
  return absl::OkStatus();
}

// (ograd, data, label) -> (ograd (softmax - onehot), 0).
template <typename T>
absl::Status SoftmaxCrossEntropyGrad(const KernelContext& ctx) {
  const Tensor& g = ctx.inputs[0];
  const Tensor& data = ctx.inputs[1];
  const Tensor& label = ctx.inputs[2];
  if (label.dtype() != data.dtype()) return LabelTypeMismatch(ctx, data, label);
  if (ctx.outputs.size() > 1 && ctx.outputs[1].defined()) {
    std::memset(ctx.outputs[1].raw_data(), 0, ctx.outputs[1].nbytes());
  }
  if (SkipOutput(ctx, 0)) return absl::OkStatus();
  const int64_t rows = data.shape()[0], cols = data.shape()[1];
  const T scale = g.data<T>()[0];
  const T* x = data.data<T>();
  const T* lab = label.data<T>();
  T* gx = ctx.outputs[0].data<T>();
  for (int64_t r = 0; r < rows; ++r) {
    int64_t k = 0;
    T* row = gx + r * cols;
    SYMX_RETURN_IF_ERROR(RowSoftmax(ctx, x + r * cols, lab[r], r, cols, row, &k));
    row[k] -= T(1);
    for (int64_t c = 0; c < cols; ++c) row[c] *= scale;
  }
  return absl::OkStatus();
}

absl::Status SoftmaxCrossEntropyBackward(const KernelContext& ctx) {
  SYMX_FLOAT_SWITCH(ctx, ctx.inputs[1].dtype(), T, return SoftmaxCrossEntropyGrad<T>(ctx));
  return absl::OkStatus();
}

// -----------------------------------------------------------------------------
// IdentityAttachKLSparseReg

// (ograd, data, moving_avg) -> data's gradient; moving_avg is updated.
template <typename T>
absl::Status KLSparseRegGrad(const KernelContext& ctx) {
  const auto& p = ctx.param<KLSparseRegParam>();
  const Tensor& g = ctx.inputs[0];
  const Tensor& data = ctx.inputs[1];
  const Tensor& avg = ctx.inputs[2];
  if (avg.dtype() != data.dtype()) return UnsupportedDType(ctx, avg.dtype());
  const Shape& s = data.shape();
  const int64_t outer = s[0], channels = s[1];
  const int64_t inner = channels == 0 || outer == 0 ? 0 : data.size() / (outer * channels);
  if (avg.size() != channels) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": moving_avg ", avg.DebugString(),
                                                   " needs one entry per channel of ",
                                                   data.DebugString()));
  }
  const T* x = data.data<T>();
  T* m = avg.data<T>();
  const T momentum = static_cast<T>(p.momentum);
  const int64_t count = outer * inner;
  for (int64_t c = 0; c < channels; ++c) {
    double sum = 0;
    for (int64_t o = 0; o < outer; ++o) {
      const T* row = x + (o * channels + c) * inner;
      for (int64_t i = 0; i < inner; ++i) sum += static_cast<double>(row[i]);
    }
    const T mean = static_cast<T>(sum / static_cast<double>(count));
    m[c] = momentum * m[c] + (T(1) - momentum) * mean;
  }
  if (SkipOutput(ctx, 0)) return absl::OkStatus();
  const T target = static_cast<T>(p.sparseness_target);
  const T penalty = static_cast<T>(p.penalty);
  const T* gp = g.data<T>();
  T* gx = ctx.outputs[0].data<T>();
  ParallelFor(ctx, outer * channels, static_cast<double>(inner) * 2,
              [&](int64_t begin, int64_t end) {
                for (int64_t oc = begin; oc < end; ++oc) {
                  const T mc = m[oc % channels];
                  const T extra = penalty * (-target / mc + (T(1) - target) / (T(1) - mc));
                  for (int64_t i = 0; i < inner; ++i)
                    gx[oc * inner + i] = gp[oc * inner + i] + extra;
                }
              });
  return absl::OkStatus();
}

absl::Status KLSparseRegBackward(const KernelContext& ctx) {
  SYMX_FLOAT_SWITCH(ctx, ctx.inputs[1].dtype(), T, return KLSparseRegGrad<T>(ctx));
  return absl::OkStatus();
}

SYMX_REGISTER_KERNEL("SVMOutput", kCPU, .fn = MakeLossForward,
                     .widening = HalfWidening::kFloat16AndBFloat16);
SYMX_REGISTER_KERNEL("_backward_SVMOutput", kCPU, .fn = SVMOutputBackward,
                     .widening = HalfWidening::kFloat16AndBFloat16);
SYMX_REGISTER_KERNEL("softmax_cross_entropy", kCPU, .fn = SoftmaxCrossEntropyForward,
                     .widening = HalfWidening::kFloat16AndBFloat16);
SYMX_REGISTER_KERNEL("_backward_softmax_cross_entropy", kCPU, .fn = SoftmaxCrossEntropyBackward,
                     .widening = HalfWidening::kFloat16AndBFloat16);
SYMX_REGISTER_KERNEL("IdentityAttachKLSparseReg", kCPU, .fn = MakeLossForward,
                     .widening = HalfWidening::kFloat16AndBFloat16);
// Never widened: the widening kernel copies back the aux states of forward
// ops only, and this backward op moves moving_avg (float32 and float64, as
// MXNet's real_t kernel; half types are an error rather than a lost update).
SYMX_REGISTER_KERNEL("_backward_IdentityAttachKLSparseReg", kCPU, .fn = KLSparseRegBackward,
                     .widening = HalfWidening::kNever);

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
