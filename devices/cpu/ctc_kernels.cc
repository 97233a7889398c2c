// CPU kernels for CTCLoss (schema in graph/ops/ctc.cc) and _backward_CTCLoss.
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
// Scratch (log softmax, alpha, beta per sample) comes from the workspace. The
// samples' labels are read and checked by devices/geometry/ctc_plan.h and the
// recurrences are devices/geometry/ctc_math.h's, both shared with the GPU kernel.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "devices/cpu/kernel_util.h"
#include "devices/geometry/ctc_math.h"
#include "devices/geometry/ctc_plan.h"
#include "devices/dtype_switch.h"
#include "graph/ops/ctc.h"

namespace symx {
namespace cpu {
namespace {

size_t CTCWorkspace(const NodeAttrs&, const std::vector<Shape>& in, const std::vector<Shape>&,
                    DType) {
  const CtcDims d = CtcDimsOf(in, true);
  return static_cast<size_t>(d.batch * CtcScratchPerSample(d)) * sizeof(double);
}

// Loss and gradient of one sample; x and g index (t, b, k).
template <typename T>
void SampleCTC(const T* x, T* g, int64_t b, const CtcDims& d, const CtcSample& smp,
               double* scratch, T* loss) {
  const int64_t tb = smp.steps, S = static_cast<int64_t>(smp.sym.size()), a = d.alphabet;
  const int64_t* sym = smp.sym.data();
  auto at = [&](int64_t t, int64_t k) { return (t * d.batch + b) * a + k; };
  for (int64_t t = smp.feasible ? tb : 0; t < d.tmax; ++t) {
    for (int64_t k = 0; k < a; ++k) g[at(t, k)] = FromDouble<T>(0);
  }
  if (!smp.feasible) {
    *loss = FromDouble<T>(0);
    return;
  }
  double* ly = scratch;             // log softmax, (tb, a)
  double* al = ly + d.tmax * a;     // log alpha, (tb, S)
  double* be = al + d.tmax * S;     // log beta, (tb, S)
  for (int64_t t = 0; t < tb; ++t) {
    double m = CtcNegInf();
    for (int64_t k = 0; k < a; ++k) m = std::max(m, ToDouble(x[at(t, k)]));
    double sum = 0;
    for (int64_t k = 0; k < a; ++k) sum += std::exp(ToDouble(x[at(t, k)]) - m);
    const double lse = m + std::log(sum);
    for (int64_t k = 0; k < a; ++k) ly[t * a + k] = ToDouble(x[at(t, k)]) - lse;
  }
  double log_p = 0;
  if (tb == 0) {
    log_p = S == 1 ? 0 : CtcNegInf();
  } else {
    for (int64_t s = 0; s < S; ++s) al[s] = s < 2 ? ly[sym[s]] : CtcNegInf();
    for (int64_t t = 1; t < tb; ++t) {
      for (int64_t s = 0; s < S; ++s)
        al[t * S + s] = CtcAlpha(al + (t - 1) * S, sym, s, ly + t * a);
    }
    for (int64_t s = 0; s < S; ++s) be[(tb - 1) * S + s] = s >= S - 2 ? 0.0 : CtcNegInf();
    for (int64_t t = tb - 2; t >= 0; --t) {
      for (int64_t s = 0; s < S; ++s) {
        be[t * S + s] = CtcBeta(be + (t + 1) * S, sym, S, s, ly + (t + 1) * a);
      }
    }
    log_p = al[(tb - 1) * S + S - 1];
    if (S >= 2) log_p = CtcLogAdd(log_p, al[(tb - 1) * S + S - 2]);
  }
  *loss = FromDouble<T>(-log_p);
  std::vector<double> post(a);
  for (int64_t t = 0; t < tb; ++t) {
    std::fill(post.begin(), post.end(), CtcNegInf());
    for (int64_t s = 0; s < S; ++s) {
      post[sym[s]] = CtcLogAdd(post[sym[s]], al[t * S + s] + be[t * S + s]);
    }
    for (int64_t k = 0; k < a; ++k) {
      g[at(t, k)] = FromDouble<T>(std::exp(ly[t * a + k]) - std::exp(post[k] - log_p));
    }
  }
}

absl::Status CTCForward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(const CtcDims d, CheckCtcCall(ctx));
  const int64_t per = CtcScratchPerSample(d);
  const size_t need = static_cast<size_t>(d.batch * per) * sizeof(double);
  if (need > 0 && (!ctx.workspace.defined() || ctx.workspace.nbytes() < need)) {
    return absl::InternalError(absl::StrCat(ctx.Where(), ": workspace smaller than ", need));
  }
  SYMX_ASSIGN_OR_RETURN(const std::vector<CtcSample> samples, ReadCtcSamples(ctx, d));
  double* scratch = need > 0 ? ctx.workspace.data<double>() : nullptr;
  auto run = [&](auto tag) {
    using T = decltype(tag);
    const T* x = ctx.inputs[0].data<T>();
    T* g = ctx.outputs[1].data<T>();
    T* l = ctx.outputs[0].data<T>();
    ParallelFor(ctx, d.batch, 20.0 * d.tmax * (d.alphabet + 4 * d.lmax),
                [&](int64_t b0, int64_t b1) {
                  for (int64_t b = b0; b < b1; ++b) {
                    SampleCTC<T>(x, g, b, d, samples[b], scratch + b * per, l + b);
                  }
                });
  };
  switch (ctx.inputs[0].dtype()) {
    case DType::kFloat32:
      run(float{});
      break;
    case DType::kFloat64:
      run(double{});
      break;
    default:
      return UnsupportedDType(ctx, ctx.inputs[0].dtype());
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

SYMX_REGISTER_KERNEL("CTCLoss", kCPU, .fn = CTCForward, .workspace = CTCWorkspace);
SYMX_REGISTER_KERNEL("_backward_CTCLoss", kCPU, CTCBackward);

}  // namespace cpu
}  // namespace symx
