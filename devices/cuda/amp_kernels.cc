// CUDA kernels of the amp family (graph/ops/amp.cc): amp_cast, amp_multicast
// and their backward ops, each output its input converted (the elementwise
// launchers' LaunchCast) or copied where the dtypes agree.
#include "absl/strings/str_cat.h"
#include "devices/cuda/elemwise_launch.h"
#include "devices/cuda/kernel_util.h"

namespace symx {
namespace cuda {
namespace {

absl::Status ConvertEach(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  if (ctx.inputs.size() != ctx.outputs.size()) {
    return absl::InternalError(absl::StrCat(ctx.Where(), ": ", ctx.inputs.size(), " inputs for ",
                                            ctx.outputs.size(), " outputs"));
  }
  for (size_t i = 0; i < ctx.inputs.size(); ++i) {
    if (!OutputWanted(ctx.req, i)) continue;
    const Tensor& in = ctx.inputs[i];
    const Tensor& out = ctx.outputs[i];
    if (in.size() != out.size()) {
      return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": input ", i, " has ", in.size(),
                                                     " elements, output ", out.size()));
    }
    if (in.dtype() == out.dtype()) {
      SYMX_RETURN_IF_ERROR(CopyOnStream(ctx, in, out));
      continue;
    }
    SYMX_ASSIGN_OR_RETURN(Elem from, AnyElem(ctx, in.dtype()));
    SYMX_ASSIGN_OR_RETURN(Elem to, AnyElem(ctx, out.dtype()));
    SYMX_CUDA_LAUNCH(
        ctx, LaunchCast(from, in.read_raw_data(), to, out.raw_data(), in.size(), device->stream()));
  }
  return absl::OkStatus();
}

}  // namespace

SYMX_REGISTER_KERNEL("amp_cast", kGPU, ConvertEach);
SYMX_REGISTER_KERNEL("_backward_amp_cast", kGPU, ConvertEach);
SYMX_REGISTER_KERNEL("amp_multicast", kGPU, ConvertEach);
SYMX_REGISTER_KERNEL("_backward_amp_multicast", kGPU, ConvertEach);

}  // namespace cuda
}  // namespace symx
