// Convolution through oneDNN (forward, data and weight gradients): used by the
// CPU Convolution kernels when oneDNN is on and the case is float32 with a
// padding oneDNN can express; the im2col kernels cover everything else.
#ifndef SYMX_DEVICES_CPU_ONEDNN_CONV_H_
#define SYMX_DEVICES_CPU_ONEDNN_CONV_H_

#include <cstddef>
#include <vector>

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
// The same for a _symx_fused_conv (graph/ops/fused_conv.h): one convolution
// primitive with the BatchNorm, sum and activation as post-ops. Inputs and
// outputs as the op's; it runs the inference semantics (moving statistics).
absl::Status PrepareOnednnFusedConv(KernelContext* ctx, size_t* workspace_bytes);
// ChannelsLastFn (devices/kernel.h) of Convolution and _symx_fused_conv:
// data and output (and the sum operand) when oneDNN's direct kernels run the
// case on channels-last values.
void ConvChannelsLast(const NodeAttrs& attrs, const std::vector<Shape>& in,
                      const std::vector<Shape>& out, DType dtype, const EngineOptions& options,
                      std::vector<bool>* in_cl, std::vector<bool>* out_cl);
// _backward_Convolution's: ograd, data and the data gradient, when oneDNN's
// direct kernels run both backward halves channels-last.
void ConvBackwardChannelsLast(const NodeAttrs& attrs, const std::vector<Shape>& in,
                              const std::vector<Shape>& out, DType dtype,
                              const EngineOptions& options, std::vector<bool>* in_cl,
                              std::vector<bool>* out_cl);
void FusedConvChannelsLast(const NodeAttrs& attrs, const std::vector<Shape>& in,
                           const std::vector<Shape>& out, DType dtype, const EngineOptions& options,
                           std::vector<bool>* in_cl, std::vector<bool>* out_cl);
// (A prepared step runs through RunOnednnStep, devices/cpu/onednn.h.)

}  // namespace cpu
}  // namespace symx

#endif  // SYMX_DEVICES_CPU_ONEDNN_CONV_H_
