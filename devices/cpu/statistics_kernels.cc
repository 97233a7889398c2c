// CPU kernels of the statistics family (graph/ops/statistics.cc): _histogram.
// Each value's bin follows devices/geometry/histogram_bins.h; values are read
// through double (exact for every dtype the op takes). The count is one pass
// over the data (it is memory-bound; integer counts make any order exact).
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "devices/cpu/kernel_util.h"
#include "devices/dtype_switch.h"
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

}  // namespace

SYMX_REGISTER_KERNEL("_histogram", kCPU, Histogram);

}  // namespace cpu
}  // namespace symx
