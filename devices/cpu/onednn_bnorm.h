// BatchNorm through oneDNN (forward with batch or moving statistics, and the
// backward), float32 with the channel axis 1, plain or channels-last data: used
// by the CPU BatchNorm kernels when oneDNN and its BatchNorm switch are on
// (EngineOptions::onednn_batchnorm, devices/engine_options.h: off by default, as the Eigen
// kernels measured faster on 2 cores); the Eigen kernels take float64, other
// axes, empty batches, and a backward whose data gradient nobody reads.
#ifndef SYMX_DEVICES_CPU_ONEDNN_BNORM_H_
#define SYMX_DEVICES_CPU_ONEDNN_BNORM_H_

#include <cstddef>

#include "absl/status/status.h"
#include "devices/kernel.h"

namespace symx {
namespace cpu {

// PrepareFn of BatchNorm: inputs data, gamma, beta, moving_mean, moving_var;
// outputs out, mean, var. The step updates the moving statistics after a
// training forward as the Eigen kernel does.
absl::Status PrepareOnednnBatchNorm(KernelContext* ctx, size_t* workspace_bytes);
// PrepareFn of _backward_BatchNorm: inputs ograd, data, gamma, beta, mean,
// var, moving_mean, moving_var; outputs the data, gamma and beta gradients.
absl::Status PrepareOnednnBatchNormBackward(KernelContext* ctx, size_t* workspace_bytes);

}  // namespace cpu
}  // namespace symx

#endif  // SYMX_DEVICES_CPU_ONEDNN_BNORM_H_
