// What the CPU and CUDA kernels of _contrib_SyncBatchNorm share when its
// batch statistics span the replicas of a data-parallel job (devices/
// kernel.h, ReplicaSync): when a step syncs, the data's (outer, channels,
// inner) view, and the three meetings of a training step, each a sum over
// every replica of every rank (in double, in one fixed order):
//   forward:  [count, sum x per channel]            -> the job's mean
//             [sum (x - mean)^2 per channel]          -> the job's variance
//   backward: [count, sum dy, sum dy (x - mean)]      -> the job's sums
// Each replica normalizes its own rows with the job's statistics; its data
// gradient uses the job's sums (SyncDataGradientOf, on both devices), its gamma and beta gradients
// stay its own (the gradient reducer adds them over the replicas, as any weight's).
#ifndef SYMX_DEVICES_GEOMETRY_SYNC_BATCH_NORM_H_
#define SYMX_DEVICES_GEOMETRY_SYNC_BATCH_NORM_H_

#include <cmath>
#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "devices/kernel.h"

namespace symx {

// Whether this _contrib_SyncBatchNorm (or its backward) step sums over the
// job's replicas: training with batch statistics, ndev > 1 (MXNet's
// "sync"), and bound as one of several replicas. Otherwise it is BatchNorm
// over the rows it has.
bool SyncsOverReplicas(const KernelContext& ctx);

// The data (input `data`) as (outer, channels, inner); channels-last data is
// (rows, channels, 1). Inputs [first, last) must hold one value per channel.
struct SyncBatchNormView {
  int64_t outer = 1, channels = 1, inner = 1;
  int64_t count() const { return outer * inner; }
};
absl::StatusOr<SyncBatchNormView> SyncBatchNormViewOf(const KernelContext& ctx, int data, int first,
                                                      int last);

// The job's per-channel mean from this replica's per-channel sums and row
// count; `count` becomes the job's.
absl::StatusOr<std::vector<double>> JobMean(const KernelContext& ctx,
                                            const std::vector<double>& sums, double* count);
// The job's per-channel (biased) variance from this replica's sums of
// squared deviations from the job's mean.
absl::StatusOr<std::vector<double>> JobVariance(const KernelContext& ctx,
                                                const std::vector<double>& squares, double count);
// The job's [sum dy per channel, sum dy (x - mean) per channel] from this
// replica's; `count` becomes the job's row count.
absl::StatusOr<std::vector<double>> JobGradientSums(const KernelContext& ctx,
                                                    const std::vector<double>& sums, double* count);

// 1 / sqrt(var + eps) for a channel's job variance; 0 where var + eps is not
// positive.
inline double SyncInvStd(double var, double eps) {
  const double denom = var + eps;
  return denom > 0 ? 1.0 / std::sqrt(denom) : 0.0;
}

// A channel's data gradient over the job's rows:
//   dx = scale * (dy - mean_dy - (x - mean) * slope),
// scale = gamma (1 with fix_gamma) / sqrt(var + eps), mean_dy the job's mean
// of dy, slope = mean(dy (x - mean)) / (var + eps). `job_sum_dy` and
// `job_sum_dy_xc` are the job's sums (JobGradientSums), `count` its rows.
struct SyncDataGradient {
  double scale = 0, mean_dy = 0, slope = 0;
};
inline SyncDataGradient SyncDataGradientOf(double gamma, bool fix_gamma, double var, double eps,
                                           double job_sum_dy, double job_sum_dy_xc, double count) {
  const double inv = SyncInvStd(var, eps);
  SyncDataGradient g;
  g.scale = (fix_gamma ? 1.0 : gamma) * inv;
  g.mean_dy = count > 0 ? job_sum_dy / count : 0.0;
  g.slope = count > 0 ? inv * inv * job_sum_dy_xc / count : 0.0;
  return g;
}

}  // namespace symx

#endif  // SYMX_DEVICES_GEOMETRY_SYNC_BATCH_NORM_H_
