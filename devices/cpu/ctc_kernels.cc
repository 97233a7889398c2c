// CPU kernels for CTCLoss (schema in graph/ops/ctc_loss.cc) and _backward_CTCLoss.
//
// Forward, per sample b (samples run in parallel): softmax over the alphabet for
// the first T_b steps (T_b = data_lengths[b] or T), the extended label
// l' = (blank, l1, blank, l2, ..., blank) of S = 2L + 1 symbols, forward
// variables alpha_t(s) (probability of the prefixes ending in l'_s at t, y_t
// included) and backward variables beta_t(s) (probability of completing from
// l'_s at t, y_t excluded), both in log space. Loss = -log p; the hidden
// gradient to the scores u is y_tk - sum_{s: l'_s = k} alpha_t(s) beta_t(s) / p
// for t < T_b and 0 after. A label that cannot fit (L + repeats > T_b) gets
// loss 0 and gradient 0, as MXNet.
//
// Scratch (log softmax, alpha, beta per sample) comes from the workspace.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "devices/cpu/kernel_util.h"
#include "devices/dtype_switch.h"
#include "graph/ops/ctc_loss.h"

namespace symx {
namespace cpu {
namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

inline double LogAdd(double a, double b) {
  if (a == kNegInf) return b;
  if (b == kNegInf) return a;
  const double m = std::max(a, b);
  return m + std::log1p(std::exp(-std::fabs(a - b)));
}

// Doubles of scratch per sample: log softmax (T * A), alpha and beta (T * S each).
int64_t ScratchPerSample(int64_t t, int64_t a, int64_t l) { return t * a + 2 * t * (2 * l + 1); }

size_t CTCWorkspace(const NodeAttrs&, const std::vector<Shape>& in, const std::vector<Shape>&,
                    DType) {
  if (in.size() < 2 || in[0].ndim() != 3 || in[1].ndim() != 2) return 0;
  return static_cast<size_t>(in[0][1] * ScratchPerSample(in[0][0], in[0][2], in[1][1])) *
         sizeof(double);
}

// Element i of a numeric tensor as double (labels and lengths may be any dtype).
double ValueAt(const Tensor& t, int64_t i) {
  double v = 0;
  SYMX_DTYPE_SWITCH_ALL(t.dtype(), T, v = ToDouble(t.data<T>()[i]));
  return v;
}

struct Sample {
  int64_t steps = 0;        // T_b
  std::vector<int64_t> lab;  // the label, padding removed
};

absl::StatusOr<Sample> ReadSample(const KernelContext& ctx, int64_t b) {
  const auto& p = ctx.param<CTCLossParam>();
  const Tensor& data = ctx.inputs[0];
  const Tensor& label = ctx.inputs[1];
  const int64_t t = data.shape()[0], a = data.shape()[2], lmax = label.shape()[1];
  Sample s;
  s.steps = t;
  int next = 2;
  if (p.use_data_lengths) {
    const double v = ValueAt(ctx.inputs[next++], b);
    if (!(v >= 0 && v <= static_cast<double>(t))) {
      return Fail(ctx, absl::StrCat("data_lengths[", b, "] = ", v, " is outside [0, ", t, "]"));
    }
    s.steps = static_cast<int64_t>(v);
  }
  int64_t len = lmax;
  if (p.use_label_lengths) {
    const double v = ValueAt(ctx.inputs[next], b);
    if (!(v >= 0 && v <= static_cast<double>(lmax))) {
      return Fail(ctx, absl::StrCat("label_lengths[", b, "] = ", v, " is outside [0, ", lmax, "]"));
    }
    len = static_cast<int64_t>(v);
  }
  const double pad = p.blank_first ? 0 : -1;
  const int64_t lo = p.blank_first ? 1 : 0, hi = p.blank_first ? a - 1 : a - 2;
  for (int64_t j = 0; j < len; ++j) {
    const double v = ValueAt(label, b * lmax + j);
    if (!p.use_label_lengths && v == pad) break;
    const int64_t k = static_cast<int64_t>(std::llround(v));
    if (k < lo || k > hi || static_cast<double>(k) != v) {
      return Fail(ctx, absl::StrCat("label[", b, ", ", j, "] = ", v, " is not a class in [", lo,
                                    ", ", hi, "] (blank_label=",
                                    p.blank_first ? "first" : "last", ")"));
    }
    s.lab.push_back(k);
  }
  return s;
}

// Loss and gradient of one sample; x, g index (t, b, k) with stride `bstride` over t.
template <typename T>
void SampleCTC(const T* x, T* g, int64_t b, int64_t nb, int64_t a, int64_t tmax, int64_t blank,
               const Sample& smp, double* scratch, T* loss) {
  const int64_t tb = smp.steps, L = static_cast<int64_t>(smp.lab.size()), S = 2 * L + 1;
  auto at = [&](int64_t t, int64_t k) { return (t * nb + b) * a + k; };
  for (int64_t t = tb; t < tmax; ++t) {
    for (int64_t k = 0; k < a; ++k) g[at(t, k)] = FromDouble<T>(0);
  }
  int64_t repeats = 0;
  for (int64_t j = 1; j < L; ++j) repeats += smp.lab[j] == smp.lab[j - 1];
  if (L + repeats > tb) {
    for (int64_t t = 0; t < tb; ++t) {
      for (int64_t k = 0; k < a; ++k) g[at(t, k)] = FromDouble<T>(0);
    }
    *loss = FromDouble<T>(0);
    return;
  }
  double* ly = scratch;             // log softmax, (tb, a)
  double* al = ly + tmax * a;       // log alpha, (tb, S)
  double* be = al + tmax * S;       // log beta, (tb, S)
  for (int64_t t = 0; t < tb; ++t) {
    double m = kNegInf;
    for (int64_t k = 0; k < a; ++k) m = std::max(m, ToDouble(x[at(t, k)]));
    double sum = 0;
    for (int64_t k = 0; k < a; ++k) sum += std::exp(ToDouble(x[at(t, k)]) - m);
    const double lse = m + std::log(sum);
    for (int64_t k = 0; k < a; ++k) ly[t * a + k] = ToDouble(x[at(t, k)]) - lse;
  }
  auto sym = [&](int64_t s) { return (s & 1) ? smp.lab[s / 2] : blank; };
  // May a path skip from s - 2 to s (l'_s a label differing from l'_{s-2})?
  auto skip = [&](int64_t s) { return s >= 2 && (s & 1) && sym(s) != sym(s - 2); };
  double log_p = 0;
  if (tb == 0) {
    log_p = L == 0 ? 0 : kNegInf;
  } else {
    for (int64_t s = 0; s < S; ++s) al[s] = s < 2 ? ly[sym(s)] : kNegInf;
    for (int64_t t = 1; t < tb; ++t) {
      for (int64_t s = 0; s < S; ++s) {
        double v = al[(t - 1) * S + s];
        if (s >= 1) v = LogAdd(v, al[(t - 1) * S + s - 1]);
        if (skip(s)) v = LogAdd(v, al[(t - 1) * S + s - 2]);
        al[t * S + s] = v == kNegInf ? kNegInf : v + ly[t * a + sym(s)];
      }
    }
    for (int64_t s = 0; s < S; ++s) be[(tb - 1) * S + s] = s >= S - 2 ? 0.0 : kNegInf;
    for (int64_t t = tb - 2; t >= 0; --t) {
      for (int64_t s = 0; s < S; ++s) {
        const double* nx = be + (t + 1) * S;
        const double* y1 = ly + (t + 1) * a;
        double v = nx[s] + y1[sym(s)];
        if (s + 1 < S) v = LogAdd(v, nx[s + 1] + y1[sym(s + 1)]);
        if (s + 2 < S && skip(s + 2)) v = LogAdd(v, nx[s + 2] + y1[sym(s + 2)]);
        be[t * S + s] = v;
      }
    }
    log_p = al[(tb - 1) * S + S - 1];
    if (S >= 2) log_p = LogAdd(log_p, al[(tb - 1) * S + S - 2]);
  }
  *loss = FromDouble<T>(-log_p);
  std::vector<double> post(a);
  for (int64_t t = 0; t < tb; ++t) {
    std::fill(post.begin(), post.end(), kNegInf);
    for (int64_t s = 0; s < S; ++s) {
      post[sym(s)] = LogAdd(post[sym(s)], al[t * S + s] + be[t * S + s]);
    }
    for (int64_t k = 0; k < a; ++k) {
      g[at(t, k)] = FromDouble<T>(std::exp(ly[t * a + k]) - std::exp(post[k] - log_p));
    }
  }
}

absl::Status CTCForward(const KernelContext& ctx) {
  const auto& p = ctx.param<CTCLossParam>();
  const Tensor& data = ctx.inputs[0];
  const Tensor& label = ctx.inputs[1];
  const Tensor& loss = ctx.outputs[0];
  const Tensor& grad = ctx.outputs[1];
  if (data.shape().ndim() != 3 || label.shape().ndim() != 2) {
    return Fail(ctx, absl::StrCat("data ", data.DebugString(), " must be 3-D and label ",
                                  label.DebugString(), " 2-D"));
  }
  const int64_t tmax = data.shape()[0], nb = data.shape()[1], a = data.shape()[2];
  const int64_t lmax = label.shape()[1];
  if (loss.dtype() != data.dtype() || grad.dtype() != data.dtype()) {
    return UnsupportedDType(ctx, loss.dtype());
  }
  const int64_t per = ScratchPerSample(tmax, a, lmax);
  const size_t need = static_cast<size_t>(nb * per) * sizeof(double);
  if (need > 0 && (!ctx.workspace.defined() || ctx.workspace.nbytes() < need)) {
    return absl::InternalError(absl::StrCat(ctx.Where(), ": workspace smaller than ", need));
  }
  std::vector<Sample> samples(nb);
  for (int64_t b = 0; b < nb; ++b) {
    SYMX_ASSIGN_OR_RETURN(samples[b], ReadSample(ctx, b));
  }
  const int64_t blank = p.blank_first ? 0 : a - 1;
  double* scratch = need > 0 ? ctx.workspace.data<double>() : nullptr;
  auto run = [&](auto tag) {
    using T = decltype(tag);
    const T* x = data.data<T>();
    T* g = grad.data<T>();
    T* l = loss.data<T>();
    ParallelFor(ctx, nb, 20.0 * tmax * (a + 4 * lmax), [&](int64_t b0, int64_t b1) {
      for (int64_t b = b0; b < b1; ++b) {
        SampleCTC<T>(x, g, b, nb, a, tmax, blank, samples[b], scratch + b * per, l + b);
      }
    });
  };
  switch (data.dtype()) {
    case DType::kFloat32:
      run(float{});
      break;
    case DType::kFloat64:
      run(double{});
      break;
    default:
      return UnsupportedDType(ctx, data.dtype());
  }
  return absl::OkStatus();
}

// gdata[t, b, k] = ograd[b] * grad[t, b, k].
absl::Status CTCBackward(const KernelContext& ctx) {
  if (!OutputWanted(ctx.req, 0)) return absl::OkStatus();
  const Tensor& og = ctx.inputs[0];
  const Tensor& grad = ctx.inputs[1];
  const Tensor& out = ctx.outputs[0];
  if (grad.shape().ndim() != 3 || out.size() != grad.size() ||
      og.size() != grad.shape()[1]) {
    return Fail(ctx, absl::StrCat("gradient ", grad.DebugString(), " does not match ograd ",
                                  og.DebugString(), " and output ", out.DebugString()));
  }
  if (og.dtype() != grad.dtype() || out.dtype() != grad.dtype()) {
    return UnsupportedDType(ctx, og.dtype());
  }
  const int64_t nb = grad.shape()[1], a = grad.shape()[2];
  SYMX_FLOAT_SWITCH(ctx, grad.dtype(), T, {
    const T* o = og.data<T>();
    const T* g = grad.data<T>();
    T* y = out.data<T>();
    const int64_t n = grad.size();
    for (int64_t i = 0; i < n; ++i) y[i] = o[(i / a) % nb] * g[i];
  });
  return absl::OkStatus();
}

}  // namespace

SYMX_REGISTER_KERNEL("CTCLoss", kCPU, CTCForward, CTCWorkspace);
SYMX_REGISTER_KERNEL("_backward_CTCLoss", kCPU, CTCBackward);

}  // namespace cpu
}  // namespace symx
