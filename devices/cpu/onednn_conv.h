// Convolution through oneDNN (forward, data and weight gradients): used by the
// CPU Convolution kernels when oneDNN is on and the case is float32 with a
// padding oneDNN can express; the im2col kernels cover everything else.
#ifndef SYMX_DEVICES_CPU_ONEDNN_CONV_H_
#define SYMX_DEVICES_CPU_ONEDNN_CONV_H_

#include <cstddef>

#include "absl/status/status.h"
#include "devices/kernel.h"
#include "graph/ops/convolution.h"

namespace symx {
namespace cpu {

// Builds the primitives into ctx->state when the oneDNN path takes this case
// (float32, shapes and padding oneDNN can express, oneDNN on), and sets
// *workspace_bytes to what they need; else leaves the step to the im2col
// kernel. Forward inputs: data, weight[, bias]; backward: ograd, data, weight.
absl::Status PrepareOnednnConv(KernelContext* ctx, bool backward, size_t* workspace_bytes);
// (A prepared step runs through RunOnednnStep, devices/cpu/onednn.h.)

}  // namespace cpu
}  // namespace symx

#endif  // SYMX_DEVICES_CPU_ONEDNN_CONV_H_
