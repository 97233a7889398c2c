// CUDA kernels of the crop family (graph/ops/crop.cc): Crop, with their
// backward ops.
#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/cuda/kernel_util.h"
#include "devices/cuda/strided_kernels.h"
#include "devices/geometry/strided_view.h"
#include "graph/infer_util.h"

namespace symx {
namespace cuda {
namespace {

// Crop: the window gathered; its backward zeroes the data gradient (and a
// crop_like gradient, when there is one) and scatters the window back.
absl::Status Crop(const KernelContext& ctx) {
  StridedView v;
  SYMX_RETURN_IF_ERROR(CropView(ctx, ctx.inputs[0].shape(), ctx.outputs[0].shape(), &v));
  return CopyView(ctx, v, ctx.inputs[0], ctx.outputs[0], /*gather=*/true);
}

absl::Status CropBackward(const KernelContext& ctx) {
  StridedView v;
  SYMX_RETURN_IF_ERROR(CropView(ctx, ctx.outputs[0].shape(), ctx.inputs[0].shape(), &v));
  SYMX_RETURN_IF_ERROR(CopyView(ctx, v, ctx.outputs[0], ctx.inputs[0], false, true));
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  for (size_t i = 1; i < ctx.outputs.size(); ++i) {
    SYMX_RETURN_IF_ERROR(device->Memset(ctx.outputs[i].raw_data(), 0, ctx.outputs[i].nbytes()));
  }
  return absl::OkStatus();
}

}  // namespace

SYMX_REGISTER_KERNEL("Crop", kGPU, Crop);
SYMX_REGISTER_KERNEL("_backward_Crop", kGPU, CropBackward);

}  // namespace cuda

}  // namespace symx
