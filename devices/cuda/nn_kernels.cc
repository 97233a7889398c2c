// CUDA kernels of Activation and softmax/log_softmax, forward and backward.
#include "absl/strings/str_cat.h"
#include "devices/cuda/kernel_util.h"
#include "graph/infer_util.h"
#include "graph/ops/activation.h"
#include "graph/ops/softmax.h"

namespace symx {
namespace cuda {
namespace {

UnaryFn ForwardFn(ActivationType type) {
  switch (type) {
    case ActivationType::kRelu:
      return UnaryFn::kRelu;
    case ActivationType::kSigmoid:
      return UnaryFn::kSigmoid;
    case ActivationType::kLogSigmoid:
      return UnaryFn::kLogSigmoid;
    case ActivationType::kMish:
      return UnaryFn::kMish;
    case ActivationType::kTanh:
      return UnaryFn::kTanh;
    case ActivationType::kSoftRelu:
      return UnaryFn::kSoftRelu;
    case ActivationType::kSoftSign:
      return UnaryFn::kSoftSign;
  }
  return UnaryFn::kIdentity;
}

UnaryGradFn BackwardFn(ActivationType type) {
  switch (type) {
    case ActivationType::kRelu:
      return UnaryGradFn::kReluFromOut;
    case ActivationType::kSigmoid:
      return UnaryGradFn::kSigmoidFromOut;
    case ActivationType::kLogSigmoid:
      return UnaryGradFn::kLogSigmoidFromOut;
    case ActivationType::kMish:
      return UnaryGradFn::kMishFromIn;
    case ActivationType::kTanh:
      return UnaryGradFn::kTanhFromOut;
    case ActivationType::kSoftRelu:
      return UnaryGradFn::kSoftReluFromOut;
    case ActivationType::kSoftSign:
      return UnaryGradFn::kSoftSignFromIn;
  }
  return UnaryGradFn::kReluFromOut;
}

absl::Status Activation(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& x = ctx.inputs[0];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, x.dtype()));
  SYMX_CUDA_LAUNCH(ctx, LaunchUnary(ForwardFn(ctx.param<ActivationParam>().type), t,
                                    x.read_raw_data(), ctx.outputs[0].raw_data(), x.size(),
                                    device->stream()));
  return absl::OkStatus();
}

// (ograd, output[, data]) -> grad; data only for the types that need it
// (ActivationNeedsData).
absl::Status BackwardActivation(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& g = ctx.inputs[0];
  const Tensor& y = ctx.inputs[1];
  const Tensor& x = ctx.inputs.size() > 2 ? ctx.inputs[2] : ctx.inputs[1];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, g.dtype()));
  SYMX_CUDA_LAUNCH(ctx, LaunchUnaryGrad(BackwardFn(ctx.param<ActivationParam>().type), t,
                                        g.read_raw_data(), y.read_raw_data(), x.read_raw_data(),
                                        ctx.outputs[0].raw_data(), g.size(), device->stream()));
  return absl::OkStatus();
}

struct AxisLayout {
  int64_t outer = 1, n = 1, inner = 1;
};

absl::StatusOr<AxisLayout> LayoutAlong(const KernelContext& ctx, const Shape& s, int64_t axis) {
  int ax = 0;
  absl::Status st = NormalizeAxis(axis, s.ndim(), "axis", &ax);
  if (!st.ok()) return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": ", st.message()));
  AxisLayout l;
  for (int d = 0; d < ax; ++d) l.outer *= s[d];
  l.n = s[ax];
  for (int d = ax + 1; d < s.ndim(); ++d) l.inner *= s[d];
  return l;
}

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
  SYMX_CUDA_LAUNCH(ctx, LaunchSoftmax(t, x.read_raw_data(), l.outer, l.n, l.inner,
                                      p.temperature.value_or(1.0), kLog, y.raw_data(),
                                      device->stream()));
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
  SYMX_CUDA_LAUNCH(ctx, LaunchSoftmaxGrad(t, g.read_raw_data(), y.read_raw_data(), l.outer, l.n,
                                          l.inner, p.temperature.value_or(1.0), kLog,
                                          gx.raw_data(), device->stream()));
  return absl::OkStatus();
}

}  // namespace

SYMX_REGISTER_KERNEL("Activation", kGPU, Activation);
SYMX_REGISTER_KERNEL("_backward_Activation", kGPU, BackwardActivation);
SYMX_REGISTER_KERNEL("softmax", kGPU, Softmax<false>);
SYMX_REGISTER_KERNEL("log_softmax", kGPU, Softmax<true>);
SYMX_REGISTER_KERNEL("_backward_softmax", kGPU, SoftmaxGrad<false>);
SYMX_REGISTER_KERNEL("_backward_log_softmax", kGPU, SoftmaxGrad<true>);

}  // namespace cuda
}  // namespace symx
