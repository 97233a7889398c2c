// CUDA kernels of the dropout family (graph/ops/dropout.cc): Dropout, with
// their backward ops.
#include <utility>

#include "absl/strings/str_cat.h"
#include "devices/geometry/axis_layout.h"
#include "devices/cuda/kernel_util.h"
#include "graph/infer_util.h"
#include "graph/ops/dropout.h"
#include "devices/cuda/dropout_launch.h"
#include "devices/cuda/elemwise_launch.h"

namespace symx {
namespace cuda {
namespace {

// dst = src * mask, the mask broadcast along the axes where it has size 1.
absl::Status MultiplyByMask(const KernelContext& ctx, CudaDevice* device, Elem t, const Tensor& src,
                            const Tensor& mask, const Tensor& dst) {
  if (mask.shape().ndim() != src.shape().ndim() || dst.size() != src.size()) {
    return Fail(
        ctx, absl::StrCat("mask ", mask.DebugString(), " does not fit data ", src.DebugString()));
  }
  for (int d = 0; d < src.shape().ndim(); ++d) {
    if (mask.shape()[d] != src.shape()[d] && mask.shape()[d] != 1) {
      return Fail(
          ctx, absl::StrCat("mask ", mask.DebugString(), " does not fit data ", src.DebugString()));
    }
  }
  SYMX_ASSIGN_OR_RETURN(BroadcastDims d,
                        MakeBroadcastDims(ctx, src.shape(), mask.shape(), src.shape()));
  SYMX_CUDA_LAUNCH(ctx,
                   LaunchBroadcast(BinaryFn::kMul, t, src.read_raw_data(), mask.read_raw_data(),
                                   dst.raw_data(), d, src.size(), device->stream()));
  return absl::OkStatus();
}

// Outputs: out, mask. Training (or mode='always') with p > 0 draws the mask
// from the device's generator as the CPU kernel does; otherwise the output is
// the data and the mask ones.
absl::Status DropoutForward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const auto& p = ctx.param<DropoutParam>();
  const Tensor& x = ctx.inputs[0];
  const Tensor& y = ctx.outputs[0];
  const Tensor& mask = ctx.outputs[1];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, x.dtype()));
  const bool active = (ctx.is_train || p.mode == "always") && p.p > 0;
  if (!active) {
    if (x.size() != y.size()) return Fail(ctx, "output size differs from the data's");
    SYMX_RETURN_IF_ERROR(CopyOnStream(ctx, x, y));
    SYMX_CUDA_LAUNCH(ctx, LaunchFill(t, 1.0, mask.raw_data(), mask.size(), device->stream()));
    return absl::OkStatus();
  }
  const double keep = 1.0 - p.p;
  SYMX_CUDA_LAUNCH(ctx, LaunchDropoutMask(t, device->rng()(), keep, 1.0 / keep, mask.raw_data(),
                                          mask.size(), device->stream()));
  return MultiplyByMask(ctx, device, t, x, mask, y);
}

// Inputs: ograd, mask.
absl::Status DropoutBackward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, ctx.outputs[0].dtype()));
  return MultiplyByMask(ctx, device, t, ctx.inputs[0], ctx.inputs[1], ctx.outputs[0]);
}

}  // namespace

SYMX_REGISTER_KERNEL("Dropout", kGPU, DropoutForward);
SYMX_REGISTER_KERNEL("_backward_Dropout", kGPU, DropoutBackward);

}  // namespace cuda

}  // namespace symx
