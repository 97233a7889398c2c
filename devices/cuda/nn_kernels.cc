// CUDA kernels of Activation, BatchNorm, Pooling and softmax/log_softmax,
// forward and backward.
#include "absl/strings/str_cat.h"
#include "devices/axis_layout.h"
#include "devices/cuda/kernel_util.h"
#include "devices/pool_geom.h"
#include "graph/infer_util.h"
#include "graph/ops/activation.h"
#include "graph/ops/norm.h"
#include "graph/ops/pooling.h"
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

// The data as (outer, channels, inner) around BatchNorm's axis, and inputs
// [first, last) holding one value per channel in the data's dtype.
absl::StatusOr<BatchNormDims> BatchNormView(const KernelContext& ctx, const Tensor& data,
                                            int first, int last) {
  const auto& p = ctx.param<BatchNormParam>();
  const Shape& s = data.shape();
  const int nd = s.ndim();
  const int64_t axis = p.axis < 0 ? p.axis + nd : p.axis;
  if (nd < 1 || axis < 0 || axis >= nd) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": axis ", p.axis,
                                                   " is out of range for data ", s.ToString()));
  }
  BatchNormDims d;
  for (int k = 0; k < axis; ++k) d.outer *= s[k];
  d.channels = s[static_cast<int>(axis)];
  for (int k = static_cast<int>(axis) + 1; k < nd; ++k) d.inner *= s[k];
  for (int i = first; i < last; ++i) {
    const Tensor& t = ctx.inputs[i];
    if (t.size() != d.channels || t.dtype() != data.dtype()) {
      return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": input ", i, " is ",
                                                     t.DebugString(), ", expected ", d.channels,
                                                     " values of the data's dtype"));
    }
  }
  return d;
}

// Inputs: data, gamma, beta, moving_mean, moving_var. Outputs: out, mean, var.
absl::Status BatchNorm(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const auto& p = ctx.param<BatchNormParam>();
  const Tensor& x = ctx.inputs[0];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, x.dtype()));
  SYMX_ASSIGN_OR_RETURN(BatchNormDims d, BatchNormView(ctx, x, 1, 5));
  SYMX_CUDA_LAUNCH(ctx, LaunchBatchNormForward(
                            t, x.read_raw_data(), ctx.inputs[1].read_raw_data(),
                            ctx.inputs[2].read_raw_data(), ctx.inputs[3].raw_data(),
                            ctx.inputs[4].raw_data(), ctx.outputs[0].raw_data(),
                            ctx.outputs[1].raw_data(), ctx.outputs[2].raw_data(), d, p.eps,
                            p.momentum, p.fix_gamma, ctx.is_train && !p.use_global_stats,
                            device->stream()));
  return absl::OkStatus();
}

// Inputs: ograd, data, gamma, beta, mean, var, moving_mean, moving_var.
// Outputs: grad data, grad gamma, grad beta.
absl::Status BatchNormBackward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const auto& p = ctx.param<BatchNormParam>();
  const Tensor& x = ctx.inputs[1];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, x.dtype()));
  SYMX_ASSIGN_OR_RETURN(BatchNormDims d, BatchNormView(ctx, x, 2, 6));
  auto wanted = [&](size_t j) {
    return OutputWanted(ctx.req, j) && ctx.outputs[j].defined() ? ctx.outputs[j].raw_data()
                                                                  : nullptr;
  };
  SYMX_CUDA_LAUNCH(ctx, LaunchBatchNormBackward(
                            t, ctx.inputs[0].read_raw_data(), x.read_raw_data(),
                            ctx.inputs[2].read_raw_data(), ctx.inputs[4].read_raw_data(),
                            ctx.inputs[5].read_raw_data(), wanted(0), wanted(1), wanted(2), d,
                            p.eps, p.fix_gamma, ctx.is_train && !p.use_global_stats,
                            device->stream()));
  return absl::OkStatus();
}

absl::StatusOr<PoolDims> PoolDimsOf(const KernelContext& ctx, const Shape& data,
                                    const Shape& out) {
  PoolGeom g;
  SYMX_RETURN_IF_ERROR(MakePoolGeom(ctx, data, out, &g));
  PoolDims d;
  d.planes = g.planes;
  for (int k = 0; k < 3; ++k) {
    d.in[k] = g.in[k];
    d.out[k] = g.out[k];
    d.kernel[k] = g.kernel[k];
    d.stride[k] = g.stride[k];
    d.pad[k] = g.pad[k];
  }
  switch (g.type) {
    case PoolType::kMax:
      d.type = PoolFn::kMax;
      break;
    case PoolType::kAvg:
      d.type = PoolFn::kAvg;
      break;
    case PoolType::kSum:
      d.type = PoolFn::kSum;
      break;
    case PoolType::kLp:
      d.type = PoolFn::kLp;
      break;
  }
  d.count_include_pad = g.count_include_pad;
  d.p = g.p;
  return d;
}

absl::Status Pooling(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& x = ctx.inputs[0];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, x.dtype()));
  SYMX_ASSIGN_OR_RETURN(PoolDims d, PoolDimsOf(ctx, x.shape(), ctx.outputs[0].shape()));
  SYMX_CUDA_LAUNCH(ctx, LaunchPoolForward(t, x.read_raw_data(), d, ctx.outputs[0].raw_data(),
                                          device->stream()));
  return absl::OkStatus();
}

// Inputs: ograd, data, output. Output: grad data.
absl::Status PoolingBackward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& x = ctx.inputs[1];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, x.dtype()));
  SYMX_ASSIGN_OR_RETURN(PoolDims d, PoolDimsOf(ctx, x.shape(), ctx.inputs[2].shape()));
  void* workspace = ctx.workspace.defined() && ctx.workspace.nbytes() > 0
                        ? ctx.workspace.raw_data()
                        : nullptr;
  SYMX_CUDA_LAUNCH(ctx, LaunchPoolBackward(t, ctx.inputs[0].read_raw_data(), x.read_raw_data(),
                                           ctx.inputs[2].read_raw_data(), d, workspace,
                                           ctx.outputs[0].raw_data(), device->stream()));
  return absl::OkStatus();
}

// Max pooling's backward keeps one window argmax (int64) per output.
size_t PoolingBackwardWorkspace(const NodeAttrs& attrs, const std::vector<Shape>& in,
                                const std::vector<Shape>&, DType) {
  if (Param<PoolParam>(attrs).pool_type != "max" || in.empty()) return 0;
  return static_cast<size_t>(in[0].Size()) * sizeof(int64_t);
}

}  // namespace

SYMX_REGISTER_KERNEL("Pooling", kGPU, Pooling);
SYMX_REGISTER_KERNEL("_backward_Pooling", kGPU, .fn = PoolingBackward,
                     .workspace = PoolingBackwardWorkspace);
SYMX_REGISTER_KERNEL("BatchNorm", kGPU, BatchNorm);
SYMX_REGISTER_KERNEL("_backward_BatchNorm", kGPU, BatchNormBackward);
SYMX_REGISTER_KERNEL("Activation", kGPU, Activation);
SYMX_REGISTER_KERNEL("_backward_Activation", kGPU, BackwardActivation);
SYMX_REGISTER_KERNEL("softmax", kGPU, Softmax<false>);
SYMX_REGISTER_KERNEL("log_softmax", kGPU, Softmax<true>);
SYMX_REGISTER_KERNEL("_backward_softmax", kGPU, SoftmaxGrad<false>);
SYMX_REGISTER_KERNEL("_backward_log_softmax", kGPU, SoftmaxGrad<true>);

}  // namespace cuda
}  // namespace symx
