// The norm family's plain-loop CPU kernels (devices/cpu/column_norms.cc),
// registered with the family's others in devices/cpu/norm_kernels.cc.
#ifndef SYMX_DEVICES_CPU_COLUMN_NORMS_H_
#define SYMX_DEVICES_CPU_COLUMN_NORMS_H_

#include "absl/status/status.h"
#include "devices/kernel.h"

namespace symx {
namespace cpu {

absl::Status L2NormalizationForward(const KernelContext& ctx);
absl::Status L2NormalizationBackward(const KernelContext& ctx);
absl::Status InstanceNormForward(const KernelContext& ctx);
absl::Status InstanceNormBackward(const KernelContext& ctx);
absl::Status GroupNormForward(const KernelContext& ctx);
absl::Status GroupNormBackward(const KernelContext& ctx);

}  // namespace cpu
}  // namespace symx

#endif  // SYMX_DEVICES_CPU_COLUMN_NORMS_H_
