// _CrossDeviceCopy between CPU devices: both sides are host memory, so the copy
// is one memcpy run by the destination device's worker (the executor orders it
// after the producer on the source device).
#include "devices/kernel.h"
#include "devices/tensor.h"

namespace symx {
namespace cpu {
namespace {

absl::Status CrossDeviceCopyKernel(const KernelContext& ctx) {
  return CopyTensor(ctx.inputs[0], ctx.outputs[0]);
}

SYMX_REGISTER_KERNEL("_CrossDeviceCopy", kCPU, .fn = CrossDeviceCopyKernel,
                     .widening = HalfWidening::kNever);

}  // namespace
}  // namespace cpu
}  // namespace symx
