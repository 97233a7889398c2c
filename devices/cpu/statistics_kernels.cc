// CPU kernels of the statistics family (graph/ops/statistics.cc): _histogram,
// and _contrib_hawkesll with its backward.
//
// _histogram: each value's bin follows devices/geometry/histogram_bins.h;
// values are read through double (exact for every dtype the op takes). The
// count is one pass over the data (it is memory-bound; integer counts make
// any order exact).
//
// hawkesll: samples are independent (devices/geometry/hawkes.h walks one), so
// they are spread over the device's pool; alpha's and beta's gradients sum the
// samples' rows afterwards in sample order.
#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "devices/cpu/kernel_util.h"
#include "devices/dtype_switch.h"
#include "devices/geometry/hawkes.h"
#include "devices/geometry/histogram_bins.h"
#include "graph/ops/statistics.h"

namespace symx {
namespace cpu {
namespace {

template <typename T>
absl::Status HistogramT(const KernelContext& ctx) {
  const auto& p = ctx.param<HistogramParam>();
  const Tensor& data = ctx.inputs[0];
  const T* x = data.data<T>();
  int64_t* counts = ctx.outputs[0].data<int64_t>();
  T* edges = ctx.outputs[1].data<T>();
  const int64_t nbins = ctx.outputs[0].shape().Size();
  if (ctx.outputs[1].shape().Size() != nbins + 1) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": ", nbins, " counts need ",
                                                   nbins + 1, " edges, got ",
                                                   ctx.outputs[1].shape().ToString()));
  }
  if (p.uniform) {
    for (int64_t i = 0; i <= nbins; ++i) {
      edges[i] = CastValue<T>(UniformEdge(i, nbins, p.lo, p.hi));
    }
  } else {
    const T* given = ctx.inputs[1].data<T>();
    for (int64_t i = 0; i <= nbins; ++i) edges[i] = given[i];
  }
  std::vector<double> edge(nbins + 1);
  for (int64_t i = 0; i <= nbins; ++i) edge[i] = ToDouble(edges[i]);
  auto edge_at = [&](int64_t i) { return edge[i]; };
  for (int64_t i = 0; i < nbins; ++i) counts[i] = 0;
  const int64_t n = data.shape().Size();
  for (int64_t i = 0; i < n; ++i) {
    const double v = ToDouble(x[i]);
    const int64_t b =
        p.uniform ? UniformBin(v, nbins, p.lo, p.hi, edge_at) : EdgeBin(v, nbins, edge_at);
    if (b >= 0) ++counts[b];
  }
  return absl::OkStatus();
}

absl::Status Histogram(const KernelContext& ctx) {
  const DType t = ctx.inputs[0].dtype();
  switch (t) {
    case DType::kFloat32:
    case DType::kFloat64:
    case DType::kFloat16:
    case DType::kUint8:
    case DType::kInt8:
    case DType::kInt32:
    case DType::kInt64:
      break;
    default:
      return UnsupportedDType(ctx, t);
  }
  SYMX_DTYPE_SWITCH_ALL(t, T, return HistogramT<T>(ctx));
  return UnsupportedDType(ctx, t);
}

// The events each sample walks, with its marks checked against K (inputs in
// the forward's order starting at `first`: lda, ..., max_time).
template <typename Mark>
absl::StatusOr<std::vector<int64_t>> HawkesEventCounts(const KernelContext& ctx, size_t first,
                                                       int64_t n, int64_t k, int64_t t) {
  const Mark* marks = ctx.inputs[first + 5].data<Mark>();
  const Tensor& valid = ctx.inputs[first + 6];
  std::vector<double> lengths = valid.ToDoubles();
  std::vector<int64_t> events(n);
  for (int64_t i = 0; i < n; ++i) {
    if (!(lengths[i] <= static_cast<double>(t))) {
      return Fail(ctx, absl::StrCat("valid_length[", i, "] = ", lengths[i], " exceeds the ", t,
                                    " events of lags"));
    }
    events[i] = HawkesEvents(lengths[i], t);
    for (int64_t j = 0; j < events[i]; ++j) {
      const double m = static_cast<double>(marks[i * t + j]);
      if (!(m > -1.0 && m < static_cast<double>(k))) {
        return Fail(ctx, absl::StrCat("marks[", i, ", ", j, "] = ", m, " is not a process in [0, ",
                                      k, ")"));
      }
    }
  }
  return events;
}

// The forward inputs from input `first` on (lda (N, K), alpha, beta, state,
// lags (N, T), marks, valid_length, max_time), their sizes and each sample's
// event count.
template <typename T, typename Mark>
struct HawkesInputs {
  int64_t n = 0, k = 0, t = 0;
  std::vector<int64_t> events;
  const T* mu = nullptr;
  const T* alpha = nullptr;
  const T* beta = nullptr;
  const T* state = nullptr;
  const T* lags = nullptr;
  const Mark* marks = nullptr;
  const T* max_time = nullptr;
};

template <typename T, typename Mark>
absl::StatusOr<HawkesInputs<T, Mark>> HawkesInputsOf(const KernelContext& ctx, size_t first) {
  HawkesInputs<T, Mark> in;
  const Shape& lda = ctx.inputs[first].shape();
  in.n = lda[0];
  in.k = lda[1];
  in.t = ctx.inputs[first + 4].shape()[1];
  SYMX_ASSIGN_OR_RETURN(in.events, HawkesEventCounts<Mark>(ctx, first, in.n, in.k, in.t));
  in.mu = ctx.inputs[first].data<T>();
  in.alpha = ctx.inputs[first + 1].data<T>();
  in.beta = ctx.inputs[first + 2].data<T>();
  in.state = ctx.inputs[first + 3].data<T>();
  in.lags = ctx.inputs[first + 4].data<T>();
  in.marks = ctx.inputs[first + 5].data<Mark>();
  in.max_time = ctx.inputs[first + 7].data<T>();
  return in;
}

template <typename T, typename Mark>
absl::Status HawkesT(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(const auto d, (HawkesInputsOf<T, Mark>(ctx, 0)));
  T* ll = ctx.outputs[0].data<T>();
  T* out_state = ctx.outputs[1].data<T>();
  ParallelFor(ctx, d.n, static_cast<double>(d.t + d.k) * 20, [&](int64_t begin, int64_t end) {
    std::vector<T> last(d.k);
    for (int64_t i = begin; i < end; ++i) {
      T* st = out_state + i * d.k;
      std::copy(d.state + i * d.k, d.state + (i + 1) * d.k, st);
      ll[i] = HawkesLogLikelihood<T, Mark>(d.mu + i * d.k, d.alpha, d.beta, d.lags + i * d.t,
                                           d.marks + i * d.t, d.events[i], d.max_time[i], d.k, st,
                                           last.data());
    }
  });
  return absl::OkStatus();
}

// Inputs: ll's head gradient, then the forward inputs. Outputs: the gradients
// of lda (N, K), alpha (K), beta (K).
template <typename T, typename Mark>
absl::Status HawkesBackwardT(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(const auto d, (HawkesInputsOf<T, Mark>(ctx, 1)));
  const T* g = ctx.inputs[0].data<T>();
  T* mu_g = ctx.outputs[0].data<T>();
  // Per-sample rows of alpha's and beta's gradients, summed below.
  std::vector<T> alpha_rows(d.n * d.k), beta_rows(d.n * d.k);
  ParallelFor(ctx, d.n, static_cast<double>(d.t + d.k) * 40, [&](int64_t begin, int64_t end) {
    std::vector<T> phi(d.k), phig(d.k), last(d.k);
    for (int64_t i = begin; i < end; ++i) {
      std::copy(d.state + i * d.k, d.state + (i + 1) * d.k, phi.begin());
      HawkesLogLikelihoodGrad<T, Mark>(d.mu + i * d.k, d.alpha, d.beta, d.lags + i * d.t,
                                       d.marks + i * d.t, d.events[i], d.max_time[i], d.k, g[i],
                                       phi.data(), phig.data(), last.data(), mu_g + i * d.k,
                                       alpha_rows.data() + i * d.k, beta_rows.data() + i * d.k);
    }
  });
  T* alpha_g = ctx.outputs[1].data<T>();
  T* beta_g = ctx.outputs[2].data<T>();
  for (int64_t k = 0; k < d.k; ++k) alpha_g[k] = beta_g[k] = T(0);
  for (int64_t i = 0; i < d.n; ++i) {
    for (int64_t k = 0; k < d.k; ++k) {
      alpha_g[k] += alpha_rows[i * d.k + k];
      beta_g[k] += beta_rows[i * d.k + k];
    }
  }
  return absl::OkStatus();
}

// Runs fn.template operator()<T, Mark>() for the data and marks dtypes.
template <template <typename, typename> class Body>
absl::Status HawkesDispatch(const KernelContext& ctx, DType data, DType marks) {
  if (data != DType::kFloat32 && data != DType::kFloat64) return UnsupportedDType(ctx, data);
  switch (marks) {
    case DType::kFloat32:
    case DType::kFloat64:
    case DType::kUint8:
    case DType::kInt8:
    case DType::kInt32:
    case DType::kInt64:
      break;
    default:
      return UnsupportedDType(ctx, marks);
  }
  SYMX_DTYPE_SWITCH_ALL(marks, M, {
    if constexpr (std::is_arithmetic_v<M> && !std::is_same_v<M, bool>) {
      if (data == DType::kFloat32) return Body<float, M>::Run(ctx);
      return Body<double, M>::Run(ctx);
    }
  });
  return UnsupportedDType(ctx, marks);
}

template <typename T, typename M>
struct HawkesForwardBody {
  static absl::Status Run(const KernelContext& ctx) { return HawkesT<T, M>(ctx); }
};
template <typename T, typename M>
struct HawkesBackwardBody {
  static absl::Status Run(const KernelContext& ctx) { return HawkesBackwardT<T, M>(ctx); }
};

absl::Status Hawkes(const KernelContext& ctx) {
  return HawkesDispatch<HawkesForwardBody>(ctx, ctx.inputs[0].dtype(), ctx.inputs[5].dtype());
}

absl::Status HawkesBackward(const KernelContext& ctx) {
  return HawkesDispatch<HawkesBackwardBody>(ctx, ctx.inputs[1].dtype(), ctx.inputs[6].dtype());
}

}  // namespace

SYMX_REGISTER_KERNEL("_histogram", kCPU, Histogram);
SYMX_REGISTER_KERNEL("_contrib_hawkesll", kCPU, Hawkes);
SYMX_REGISTER_KERNEL("_backward_contrib_hawkesll", kCPU, HawkesBackward);

}  // namespace cpu
}  // namespace symx
