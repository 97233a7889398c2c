#include "devices/geometry/sync_batch_norm.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "graph/ops/norm.h"

namespace symx {
namespace {

// One meeting of this node's replicas: `values` summed over the job.
absl::Status Meet(const KernelContext& ctx, const char* what, std::vector<double>* values) {
  // The node's place names the meeting (MXNet meets by `key`; a node is one
  // key, and its name is the same on every replica).
  const std::string key = absl::StrCat(ctx.Where(), " ", what);
  return ctx.replica_sync->Sum(key, ctx.replica, values);
}

}  // namespace

bool SyncsOverReplicas(const KernelContext& ctx) {
  const auto& p = ctx.param<SyncBatchNormParam>();
  return ctx.is_train && !p.use_global_stats && p.ndev > 1 && ctx.replica_sync != nullptr &&
         ctx.replica_sync->total_replicas() > 1;
}

absl::StatusOr<SyncBatchNormView> SyncBatchNormViewOf(const KernelContext& ctx, int data, int first,
                                                      int last) {
  const auto& p = ctx.param<BatchNormParam>();
  const Shape& s = ctx.inputs[data].shape();
  const int nd = s.ndim();
  const int64_t axis = p.axis < 0 ? p.axis + nd : p.axis;
  if (nd < 1 || axis < 0 || axis >= nd) {
    return absl::InvalidArgumentError(
        absl::StrCat(ctx.Where(), ": axis ", p.axis, " is out of range for data ", s.ToString()));
  }
  SyncBatchNormView v;
  v.channels = s[static_cast<int>(axis)];
  if (ctx.InputChannelsLast(data)) {
    v.outer = v.channels > 0 ? s.Size() / v.channels : 0;
  } else {
    for (int k = 0; k < axis; ++k) v.outer *= s[k];
    for (int k = static_cast<int>(axis) + 1; k < nd; ++k) v.inner *= s[k];
  }
  for (int i = first; i < last; ++i) {
    const Tensor& t = ctx.inputs[i];
    if (t.size() != v.channels || t.dtype() != ctx.inputs[data].dtype()) {
      return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": input ", i, " is ",
                                                     t.DebugString(), ", expected ", v.channels,
                                                     " values of the data's dtype"));
    }
  }
  return v;
}

absl::StatusOr<std::vector<double>> JobMean(const KernelContext& ctx,
                                            const std::vector<double>& sums, double* count) {
  std::vector<double> v;
  v.reserve(sums.size() + 1);
  v.push_back(*count);
  v.insert(v.end(), sums.begin(), sums.end());
  SYMX_RETURN_IF_ERROR(Meet(ctx, "mean", &v));
  *count = v[0];
  std::vector<double> mean(sums.size(), 0.0);
  for (size_t c = 0; c < mean.size(); ++c) mean[c] = *count > 0 ? v[c + 1] / *count : 0.0;
  return mean;
}

absl::StatusOr<std::vector<double>> JobVariance(const KernelContext& ctx,
                                                const std::vector<double>& squares, double count) {
  std::vector<double> v = squares;
  SYMX_RETURN_IF_ERROR(Meet(ctx, "variance", &v));
  for (double& x : v) x = count > 0 ? x / count : 0.0;
  return v;
}

absl::StatusOr<std::vector<double>> JobGradientSums(const KernelContext& ctx,
                                                    const std::vector<double>& sums,
                                                    double* count) {
  std::vector<double> v;
  v.reserve(sums.size() + 1);
  v.push_back(*count);
  v.insert(v.end(), sums.begin(), sums.end());
  SYMX_RETURN_IF_ERROR(Meet(ctx, "gradient", &v));
  *count = v[0];
  return std::vector<double>(v.begin() + 1, v.end());
}

}  // namespace symx
