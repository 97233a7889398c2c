// CUDA kernels of the softmax family (graph/ops/softmax.cc): log_softmax,
// softmax, SoftmaxActivation, softmin, with their backward ops.
#include <utility>

#include "absl/strings/str_cat.h"
#include "devices/geometry/axis_layout.h"
#include "devices/cuda/kernel_util.h"
#include "devices/geometry/pool_geom.h"
#include "graph/infer_util.h"
#include "graph/ops/softmax.h"
#include "devices/cuda/softmax_launch.h"

namespace symx {
namespace cuda {
namespace {

// The GPU kernels keep one dtype: an output dtype other than the input's
// (softmax's `dtype`) is refused by name.
absl::Status SameDType(const KernelContext& ctx, const Tensor& a, const Tensor& b) {
  if (a.dtype() == b.dtype()) return absl::OkStatus();
  return absl::UnimplementedError(absl::StrCat(ctx.Where(), ": ", DTypeName(a.dtype()), " in, ",
                                               DTypeName(b.dtype()),
                                               " out is not supported on the GPU yet"));
}

template <bool kLog>
absl::Status Softmax(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const auto& p = ctx.param<SoftmaxParam>();
  const Tensor& x = ctx.inputs[0];
  const Tensor& y = ctx.outputs[0];
  SYMX_RETURN_IF_ERROR(SameDType(ctx, x, y));
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, x.dtype()));
  SYMX_ASSIGN_OR_RETURN(AxisLayout l, LayoutAlong(ctx, x.shape(), p.axis));
  SYMX_CUDA_LAUNCH(
      ctx, LaunchSoftmax(t, x.read_raw_data(), l.outer, l.n, l.inner, p.temperature.value_or(1.0),
                         kLog, y.raw_data(), device->stream()));
  return absl::OkStatus();
}

// (ograd, output) -> grad.
template <bool kLog>
absl::Status SoftmaxGrad(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const auto& p = ctx.param<SoftmaxParam>();
  const Tensor& g = ctx.inputs[0];
  const Tensor& y = ctx.inputs[1];
  const Tensor& gx = ctx.outputs[0];
  SYMX_RETURN_IF_ERROR(SameDType(ctx, g, gx));
  SYMX_RETURN_IF_ERROR(SameDType(ctx, y, gx));
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, gx.dtype()));
  SYMX_ASSIGN_OR_RETURN(AxisLayout l, LayoutAlong(ctx, gx.shape(), p.axis));
  SYMX_CUDA_LAUNCH(
      ctx, LaunchSoftmaxGrad(t, g.read_raw_data(), y.read_raw_data(), l.outer, l.n, l.inner,
                             p.temperature.value_or(1.0), kLog, gx.raw_data(), device->stream()));
  return absl::OkStatus();
}

}  // namespace

SYMX_REGISTER_KERNEL("softmax", kGPU, Softmax<false>);
SYMX_REGISTER_KERNEL("log_softmax", kGPU, Softmax<true>);
SYMX_REGISTER_KERNEL("_backward_softmax", kGPU, SoftmaxGrad<false>);
SYMX_REGISTER_KERNEL("_backward_log_softmax", kGPU, SoftmaxGrad<true>);

}  // namespace cuda

namespace cuda {
namespace {

absl::Status SameTypes(const KernelContext& ctx, const Tensor& a, const Tensor& b) {
  if (a.dtype() == b.dtype() && a.size() == b.size()) return absl::OkStatus();
  return absl::UnimplementedError(
      absl::StrCat(ctx.Where(), ": ", a.DebugString(), " and ", b.DebugString(),
                   " (a dtype change is not supported on the GPU yet)"));
}

// softmax of x over rows, scaled: softmin is softmax(-x / T), i.e. a negative
// temperature; SoftmaxActivation is the plain softmax over its mode's rows.
absl::Status SoftmaxRows(const KernelContext& ctx, const AxisLayout& r, double temperature) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& x = ctx.inputs[0];
  const Tensor& y = ctx.outputs[0];
  SYMX_RETURN_IF_ERROR(SameTypes(ctx, x, y));
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, x.dtype()));
  SYMX_CUDA_LAUNCH(ctx, LaunchSoftmax(t, x.read_raw_data(), r.outer, r.n, r.inner, temperature,
                                      false, y.raw_data(), device->stream()));
  return absl::OkStatus();
}

// Inputs: ograd, output.
absl::Status SoftmaxRowsGrad(const KernelContext& ctx, const AxisLayout& r, double temperature) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& g = ctx.inputs[0];
  const Tensor& gx = ctx.outputs[0];
  SYMX_RETURN_IF_ERROR(SameTypes(ctx, g, gx));
  SYMX_RETURN_IF_ERROR(SameTypes(ctx, ctx.inputs[1], gx));
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, gx.dtype()));
  SYMX_CUDA_LAUNCH(
      ctx, LaunchSoftmaxGrad(t, g.read_raw_data(), ctx.inputs[1].read_raw_data(), r.outer, r.n,
                             r.inner, temperature, false, gx.raw_data(), device->stream()));
  return absl::OkStatus();
}

absl::Status Softmin(const KernelContext& ctx) {
  const auto& p = ctx.param<SoftmaxParam>();
  SYMX_ASSIGN_OR_RETURN(AxisLayout r, LayoutAlong(ctx, ctx.inputs[0].shape(), p.axis));
  return SoftmaxRows(ctx, r, -p.temperature.value_or(1.0));
}

absl::Status SoftminBackward(const KernelContext& ctx) {
  const auto& p = ctx.param<SoftmaxParam>();
  SYMX_ASSIGN_OR_RETURN(AxisLayout r, LayoutAlong(ctx, ctx.outputs[0].shape(), p.axis));
  return SoftmaxRowsGrad(ctx, r, -p.temperature.value_or(1.0));
}

absl::Status SoftmaxActivation(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(AxisLayout r, SoftmaxActivationLayout(ctx, ctx.inputs[0].shape()));
  return SoftmaxRows(ctx, r, 1.0);
}

absl::Status SoftmaxActivationBackward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(AxisLayout r, SoftmaxActivationLayout(ctx, ctx.outputs[0].shape()));
  return SoftmaxRowsGrad(ctx, r, 1.0);
}

}  // namespace

SYMX_REGISTER_KERNEL("softmin", kGPU, Softmin);
SYMX_REGISTER_KERNEL("_backward_softmin", kGPU, SoftminBackward);
SYMX_REGISTER_KERNEL("SoftmaxActivation", kGPU, SoftmaxActivation);
SYMX_REGISTER_KERNEL("_backward_SoftmaxActivation", kGPU, SoftmaxActivationBackward);

}  // namespace cuda

}  // namespace symx
