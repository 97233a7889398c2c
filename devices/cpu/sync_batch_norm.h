// _contrib_SyncBatchNorm's CPU steps when its batch statistics span the
// replicas of a data-parallel job (devices/geometry/sync_batch_norm.h has
// the meetings); norm_kernels.cc runs them when SyncsOverReplicas(ctx), and
// BatchNorm's kernels otherwise.
#ifndef SYMX_DEVICES_CPU_SYNC_BATCH_NORM_H_
#define SYMX_DEVICES_CPU_SYNC_BATCH_NORM_H_

#include "absl/status/status.h"
#include "devices/kernel.h"

namespace symx {
namespace cpu {

// Inputs: data, gamma, beta, moving_mean, moving_var. Outputs: out, mean, var
// (the job's statistics; the moving ones move toward them).
absl::Status SyncBatchNormForwardOverReplicas(const KernelContext& ctx);
// Inputs: ograd, data, gamma, beta, mean, var, moving_mean, moving_var.
// Outputs: data gradient (from the job's sums), gamma and beta gradients
// (this replica's).
absl::Status SyncBatchNormBackwardOverReplicas(const KernelContext& ctx);

}  // namespace cpu
}  // namespace symx

#endif  // SYMX_DEVICES_CPU_SYNC_BATCH_NORM_H_
