// CUDA kernels of the activation family (graph/ops/activation.cc): Activation,
// LeakyReLU, hard_sigmoid, softsign, with their backward ops.
#include <utility>

#include "absl/strings/str_cat.h"
#include "devices/cuda/activation_launch.h"
#include "devices/cuda/elemwise_kernels.h"
#include "devices/cuda/elemwise_launch.h"
#include "devices/cuda/kernel_util.h"
#include "devices/cuda/reduce_launch.h"
#include "devices/cuda/strided_launch.h"
#include "devices/dtype_switch.h"
#include "devices/geometry/axis_layout.h"
#include "devices/geometry/pool_geom.h"
#include "graph/infer_util.h"
#include "graph/ops/activation.h"

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
  SYMX_CUDA_LAUNCH(ctx,
                   LaunchUnary(ForwardFn(ctx.param<ActivationParam>().type), t, x.read_raw_data(),
                               ctx.outputs[0].raw_data(), x.size(), device->stream()));
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

// hard_sigmoid; the gradient's alpha and beta rounded to the dtype, as the
// CPU kernel takes them.
absl::Status HardSigmoid(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& x = ctx.inputs[0];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, x.dtype()));
  const HardSigmoidParam& p = ctx.param<HardSigmoidParam>();
  SYMX_CUDA_LAUNCH(ctx, LaunchHardSigmoid(t, x.read_raw_data(), p.alpha, p.beta,
                                          ctx.outputs[0].raw_data(), x.size(), device->stream()));
  return absl::OkStatus();
}

double InDtype(double v, DType dtype) {
  double r = v;
  SYMX_DTYPE_SWITCH_ALL(dtype, T, { r = ToDouble(FromDouble<T>(v)); });
  return r;
}

absl::Status HardSigmoidGrad(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& g = ctx.inputs[0];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, g.dtype()));
  const HardSigmoidParam& p = ctx.param<HardSigmoidParam>();
  SYMX_CUDA_LAUNCH(ctx,
                   LaunchHardSigmoidGrad(t, g.read_raw_data(), ctx.inputs[1].read_raw_data(),
                                         InDtype(p.alpha, g.dtype()), InDtype(p.beta, g.dtype()),
                                         ctx.outputs[0].raw_data(), g.size(), device->stream()));
  return absl::OkStatus();
}

// softsign: Activation's softsign; (ograd, data) -> g / (1 + |x|)^2.
absl::Status SoftSignGrad(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& g = ctx.inputs[0];
  const Tensor& x = ctx.inputs[1];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, g.dtype()));
  SYMX_CUDA_LAUNCH(ctx, LaunchUnaryGrad(UnaryGradFn::kSoftSignFromIn, t, g.read_raw_data(),
                                        x.read_raw_data(), x.read_raw_data(),
                                        ctx.outputs[0].raw_data(), g.size(), device->stream()));
  return absl::OkStatus();
}

}  // namespace

SYMX_REGISTER_KERNEL("hard_sigmoid", kGPU, HardSigmoid);
SYMX_REGISTER_KERNEL("_backward_hard_sigmoid", kGPU, HardSigmoidGrad);
SYMX_REGISTER_KERNEL("softsign", kGPU, Unary<UnaryFn::kSoftSign>);
SYMX_REGISTER_KERNEL("_backward_softsign", kGPU, SoftSignGrad);

SYMX_REGISTER_KERNEL("Activation", kGPU, Activation);
SYMX_REGISTER_KERNEL("_backward_Activation", kGPU, BackwardActivation);

}  // namespace cuda

namespace cuda {
namespace {

absl::StatusOr<ChannelDims> PReLUDims(const KernelContext& ctx, const Tensor& data,
                                      const Tensor& gamma) {
  const Shape& s = data.shape();
  if (s.ndim() < 2) {
    return Fail(ctx, absl::StrCat("prelu needs data with at least 2 dims, got ", s.ToString()));
  }
  ChannelDims d;
  d.outer = s[0];
  d.channels = s[1];
  for (int i = 2; i < s.ndim(); ++i) d.inner *= s[i];
  d.shared = gamma.size() == 1;
  if (!d.shared && gamma.size() != d.channels) {
    return Fail(ctx, absl::StrCat("gamma of shape ", gamma.shape().ToString(), " for data ",
                                  s.ToString(), " (expected ", d.channels, " or 1 slopes)"));
  }
  return d;
}

ChannelDims Elementwise(const Tensor& x) {
  ChannelDims d;
  d.outer = x.size();
  return d;
}

LeakyFn LeakyFnOf(LeakyReLUType type) {
  switch (type) {
    case LeakyReLUType::kELU:
      return LeakyFn::kELU;
    case LeakyReLUType::kSELU:
      return LeakyFn::kSELU;
    case LeakyReLUType::kGELU:
      return LeakyFn::kGELU;
    default:
      return LeakyFn::kLeaky;
  }
}

// Inputs: data[, gamma]. Outputs: out[, mask (rrelu)].
absl::Status LeakyReLUForward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const auto& p = ctx.param<LeakyReLUParam>();
  const Tensor& x = ctx.inputs[0];
  const Tensor& y = ctx.outputs[0];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, x.dtype()));
  if (p.type == LeakyReLUType::kPReLU) {
    SYMX_ASSIGN_OR_RETURN(ChannelDims d, PReLUDims(ctx, x, ctx.inputs[1]));
    SYMX_CUDA_LAUNCH(ctx, LaunchPReLU(t, x.read_raw_data(), ctx.inputs[1].read_raw_data(), nullptr,
                                      d, y.raw_data(), device->stream()));
    return absl::OkStatus();
  }
  if (p.type == LeakyReLUType::kRReLU) {
    // Training: a slope per element, uniform in [lower_bound, upper_bound),
    // kept in the mask; inference: the mean slope.
    const Tensor& mask = ctx.outputs[1];
    if (ctx.is_train) {
      SYMX_CUDA_LAUNCH(ctx, LaunchUniform(t, device->rng()(), p.lower_bound, p.upper_bound,
                                          mask.raw_data(), mask.size(), device->stream()));
    } else {
      SYMX_CUDA_LAUNCH(ctx, LaunchFill(t, (p.lower_bound + p.upper_bound) / 2, mask.raw_data(),
                                       mask.size(), device->stream()));
    }
    SYMX_CUDA_LAUNCH(ctx, LaunchPReLU(t, x.read_raw_data(), nullptr, mask.read_raw_data(),
                                      Elementwise(x), y.raw_data(), device->stream()));
    return absl::OkStatus();
  }
  SYMX_CUDA_LAUNCH(ctx, LaunchLeaky(LeakyFnOf(p.type), t, x.read_raw_data(), p.slope, y.raw_data(),
                                    x.size(), device->stream()));
  return absl::OkStatus();
}

// prelu's gamma gradient terms before the per-channel sum.
size_t LeakyReLUWorkspace(const NodeAttrs& attrs, const std::vector<Shape>& in,
                          const std::vector<Shape>&, DType dtype) {
  if (!Param<LeakyReLUParam>(attrs).has_gamma() || in.size() < 2) return 0;
  return static_cast<size_t>(in[1].Size()) * DTypeSize(dtype);
}

// Inputs: ograd, data, [gamma], output, [mask]. Outputs: grad data[, grad gamma].
absl::Status LeakyReLUBackward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const auto& p = ctx.param<LeakyReLUParam>();
  const Tensor& g = ctx.inputs[0];
  const Tensor& x = ctx.inputs[1];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, g.dtype()));
  void* dx = OutputWanted(ctx.req, 0) ? ctx.outputs[0].raw_data() : nullptr;
  if (p.type == LeakyReLUType::kPReLU) {
    const Tensor& gamma = ctx.inputs[2];
    SYMX_ASSIGN_OR_RETURN(ChannelDims d, PReLUDims(ctx, x, gamma));
    const bool want_gamma = ctx.outputs.size() > 1 && OutputWanted(ctx.req, 1);
    void* terms = want_gamma ? ctx.workspace.raw_data() : nullptr;
    SYMX_CUDA_LAUNCH(ctx,
                     LaunchPReLUGrad(t, g.read_raw_data(), x.read_raw_data(), gamma.read_raw_data(),
                                     nullptr, d, dx, terms, device->stream()));
    if (want_gamma) {
      StridedDims kept, reduced;
      if (!d.shared) {
        kept.ndim = 1;
        kept.dims[0] = d.channels;
        kept.src_strides[0] = d.inner;
      }
      reduced.ndim = d.shared ? 1 : 2;
      if (d.shared) {
        reduced.dims[0] = x.size();
        reduced.src_strides[0] = 1;
      } else {
        reduced.dims[0] = d.outer;
        reduced.src_strides[0] = d.channels * d.inner;
        reduced.dims[1] = d.inner;
        reduced.src_strides[1] = 1;
      }
      SYMX_CUDA_LAUNCH(
          ctx, LaunchReduceStrided(ReduceFn::kSum, t, terms, kept, reduced, 1.0,
                                   ctx.outputs[1].raw_data(), gamma.size(), device->stream()));
    }
    return absl::OkStatus();
  }
  if (dx == nullptr) return absl::OkStatus();
  if (p.type == LeakyReLUType::kRReLU) {
    SYMX_CUDA_LAUNCH(ctx, LaunchPReLUGrad(t, g.read_raw_data(), x.read_raw_data(), nullptr,
                                          ctx.inputs[3].read_raw_data(), Elementwise(x), dx,
                                          nullptr, device->stream()));
    return absl::OkStatus();
  }
  SYMX_CUDA_LAUNCH(
      ctx, LaunchLeakyGrad(LeakyFnOf(p.type), t, g.read_raw_data(), x.read_raw_data(),
                           ctx.inputs[2].read_raw_data(), p.slope, dx, g.size(), device->stream()));
  return absl::OkStatus();
}

}  // namespace

SYMX_REGISTER_KERNEL("LeakyReLU", kGPU, LeakyReLUForward);
SYMX_REGISTER_KERNEL("_backward_LeakyReLU", kGPU, .fn = LeakyReLUBackward,
                     .workspace = LeakyReLUWorkspace);

}  // namespace cuda

}  // namespace symx
