// Pooling through oneDNN, forward and backward: max, and avg where oneDNN's
// divisor is MXNet's, float32, 1-3-D windows and global pooling; the Eigen
// kernels take the rest (sum, lp, other dtypes, windows past the padding).
#ifndef SYMX_DEVICES_CPU_ONEDNN_POOL_H_
#define SYMX_DEVICES_CPU_ONEDNN_POOL_H_

#include <cstddef>
#include <vector>

#include "absl/status/status.h"
#include "devices/kernel.h"

namespace symx {
namespace cpu {

// PrepareFn of Pooling: builds the primitive into ctx->state when oneDNN
// takes the case (see above) with a real (not its reference) implementation.
absl::Status PrepareOnednnPooling(KernelContext* ctx, size_t* workspace_bytes);
// PrepareFn of _backward_Pooling (ograd, data, out -> data gradient).
absl::Status PrepareOnednnPoolingBackward(KernelContext* ctx, size_t* workspace_bytes);
// ChannelsLastFn of Pooling: data and output when oneDNN takes the case.
void PoolingChannelsLast(const NodeAttrs& attrs, const std::vector<Shape>& in,
                         const std::vector<Shape>& out, DType dtype, const EngineOptions& options,
                         std::vector<bool>* in_cl, std::vector<bool>* out_cl);

}  // namespace cpu
}  // namespace symx

#endif  // SYMX_DEVICES_CPU_ONEDNN_POOL_H_
