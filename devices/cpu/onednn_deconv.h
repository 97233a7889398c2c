// Deconvolution through oneDNN's deconvolution primitives (forward, data and
// weight+bias gradients): float32, 1-3-D, groups, stride, dilation, pad, adj
// and target_shape, on plain values (oneDNN converts them to the layout it
// picks). The im2col kernels take the rest (other dtypes, empty tensors).
#ifndef SYMX_DEVICES_CPU_ONEDNN_DECONV_H_
#define SYMX_DEVICES_CPU_ONEDNN_DECONV_H_

#include <cstddef>

#include "absl/status/status.h"
#include "devices/kernel.h"

namespace symx {
namespace cpu {

// PrepareFn of Deconvolution (inputs data, weight[, bias]) and, with
// `backward`, of _backward_Deconvolution (ograd, data, weight -> data,
// weight[, bias] gradients). The prepared step runs through RunOnednnStep.
absl::Status PrepareOnednnDeconv(KernelContext* ctx, bool backward, size_t* workspace_bytes);

}  // namespace cpu
}  // namespace symx

#endif  // SYMX_DEVICES_CPU_ONEDNN_DECONV_H_
