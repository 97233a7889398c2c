// CUDA kernels of the transfer family (graph/ops/transfer.cc):
// _CrossDeviceCopy, _recv, _send, with their backward ops.
#include <cstring>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "devices/cuda/elemwise_kernels.h"
#include "devices/cuda/kernel_util.h"
#include "devices/dtype_switch.h"

namespace symx {
namespace cuda {
namespace {

// The executor's copy between devices, run by the destination: from the host
// (a CPU producer has finished: the executor waited for it) or another GPU
// (ordered by events inside CopyTensor).
absl::Status CrossDeviceCopy(const KernelContext& ctx) {
  SYMX_RETURN_IF_ERROR(StepDevice(ctx).status());
  return CopyTensor(ctx.inputs[0], ctx.outputs[0]);
}

}  // namespace

SYMX_REGISTER_KERNEL("_CrossDeviceCopy", kGPU, CrossDeviceCopy);

}  // namespace cuda

}  // namespace symx
