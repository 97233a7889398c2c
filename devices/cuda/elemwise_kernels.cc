// CUDA kernels of the elemwise family (graph/ops/elemwise.cc): _copy,
// _copyto, _div_scalar, _identity_with_attr_like_rhs, _maximum_scalar, _minimum_scalar,
// _minus_scalar, _mul_scalar, _plus_scalar, _power_scalar, _rdiv_scalar, _rminus_scalar,
// _rpower_scalar, _symx_loss_scale, abs, BlockGrad, Cast, clip, ElementWiseSum, exp, log, negative,
// ones_like, relu, sigmoid, sqrt, square, tanh, where, zeros_like, with their backward ops.
#include "devices/cuda/elemwise_kernels.h"

#include <cstring>
#include <type_traits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "devices/geometry/axis_layout.h"
#include "devices/cuda/kernel_util.h"
#include "devices/dtype_switch.h"
#include "graph/infer_util.h"
#include "graph/ops/elemwise.h"
#include "devices/cuda/elemwise_launch.h"

namespace symx {
namespace cuda {
namespace {

absl::StatusOr<int64_t> WhereRow(const KernelContext& ctx, const Tensor& cond, const Tensor& x) {
  if (cond.size() == x.size()) return 1;
  if (cond.shape().ndim() == 1 && x.shape().ndim() >= 1 && cond.size() == x.shape()[0]) {
    return x.shape()[0] == 0 ? 1 : x.size() / x.shape()[0];
  }
  return Fail(ctx, absl::StrCat("condition of shape ", cond.shape().ToString(),
                                " does not match x of shape ", x.shape().ToString()));
}

// Inputs: condition, x, y.
absl::Status Where(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& cond = ctx.inputs[0];
  const Tensor& x = ctx.inputs[1];
  SYMX_ASSIGN_OR_RETURN(int64_t row, WhereRow(ctx, cond, x));
  SYMX_ASSIGN_OR_RETURN(Elem ct, AnyElem(ctx, cond.dtype()));
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, x.dtype()));
  SYMX_CUDA_LAUNCH(ctx, LaunchWhere(ct, cond.read_raw_data(), t, x.read_raw_data(),
                                    ctx.inputs[2].read_raw_data(), row, ctx.outputs[0].raw_data(),
                                    x.size(), device->stream()));
  return absl::OkStatus();
}

// Inputs: ograd, condition. Outputs: grad condition (zero), grad x, grad y.
absl::Status WhereBackward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& g = ctx.inputs[0];
  const Tensor& cond = ctx.inputs[1];
  SYMX_ASSIGN_OR_RETURN(int64_t row, WhereRow(ctx, cond, g));
  if (OutputWanted(ctx.req, 0) && ctx.outputs[0].defined()) {
    SYMX_RETURN_IF_ERROR(device->Memset(ctx.outputs[0].raw_data(), 0, ctx.outputs[0].nbytes()));
  }
  SYMX_ASSIGN_OR_RETURN(Elem ct, AnyElem(ctx, cond.dtype()));
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, g.dtype()));
  void* gx = OutputWanted(ctx.req, 1) ? ctx.outputs[1].raw_data() : nullptr;
  void* gy = OutputWanted(ctx.req, 2) ? ctx.outputs[2].raw_data() : nullptr;
  SYMX_CUDA_LAUNCH(ctx, LaunchWhereGrad(ct, cond.read_raw_data(), t, g.read_raw_data(), row, gx, gy,
                                        g.size(), device->stream()));
  return absl::OkStatus();
}

absl::Status Clip(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const auto& p = ctx.param<ClipParam>();
  const Tensor& x = ctx.inputs[0];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, x.dtype()));
  SYMX_CUDA_LAUNCH(ctx, LaunchClip(t, x.read_raw_data(), p.a_min, p.a_max,
                                   ctx.outputs[0].raw_data(), x.size(), device->stream()));
  return absl::OkStatus();
}

// Inputs: ograd, data.
absl::Status ClipBackward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const auto& p = ctx.param<ClipParam>();
  const Tensor& g = ctx.inputs[0];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, g.dtype()));
  SYMX_CUDA_LAUNCH(
      ctx, LaunchClipGrad(t, g.read_raw_data(), ctx.inputs[1].read_raw_data(), p.a_min, p.a_max,
                          ctx.outputs[0].raw_data(), g.size(), device->stream()));
  return absl::OkStatus();
}

}  // namespace

SYMX_REGISTER_KERNEL("where", kGPU, Where);
SYMX_REGISTER_KERNEL("_backward_where", kGPU, WhereBackward);
SYMX_REGISTER_KERNEL("clip", kGPU, Clip);
SYMX_REGISTER_KERNEL("_backward_clip", kGPU, ClipBackward);

}  // namespace cuda

namespace cuda {
namespace {

// (ograd, v) -> grad, v the forward input or output as the rule says.
template <UnaryGradFn F>
absl::Status UnaryGrad(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& g = ctx.inputs[0];
  const Tensor& v = ctx.inputs[1];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, g.dtype()));
  SYMX_CUDA_LAUNCH(ctx,
                   LaunchUnaryGrad(F, t, g.read_raw_data(), v.read_raw_data(), v.read_raw_data(),
                                   ctx.outputs[0].raw_data(), g.size(), device->stream()));
  return absl::OkStatus();
}

// (ograd, v) -> grad.
template <ScalarGradFn F>
absl::Status ScalarGrad(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& g = ctx.inputs[0];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, g.dtype()));
  SYMX_CUDA_LAUNCH(ctx, LaunchScalarGrad(F, t, g.read_raw_data(), ctx.inputs[1].read_raw_data(),
                                         ctx.param<ScalarParam>().scalar, ctx.outputs[0].raw_data(),
                                         g.size(), device->stream()));
  return absl::OkStatus();
}

absl::Status ZerosLike(const KernelContext& ctx) { return FillWith(ctx, 0.0); }

absl::Status OnesLike(const KernelContext& ctx) { return FillWith(ctx, 1.0); }

absl::Status Cast(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& in = ctx.inputs[0];
  const Tensor& out = ctx.outputs[0];
  if (in.size() != out.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat(ctx.Where(), ": input has ", in.size(), " elements, output ", out.size()));
  }
  if (in.dtype() == out.dtype()) return CopyOnStream(ctx, in, out);
  SYMX_ASSIGN_OR_RETURN(Elem from, AnyElem(ctx, in.dtype()));
  SYMX_ASSIGN_OR_RETURN(Elem to, AnyElem(ctx, out.dtype()));
  SYMX_CUDA_LAUNCH(
      ctx, LaunchCast(from, in.read_raw_data(), to, out.raw_data(), in.size(), device->stream()));
  return absl::OkStatus();
}

absl::Status ElementWiseSum(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& out = ctx.outputs[0];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, out.dtype()));
  if (ctx.inputs.size() == 1) return CopyOnStream(ctx, ctx.inputs[0], out);
  // out = in0 + in1, then out += in_k. The output may alias input 0 only,
  // which the first launch reads before anything is written.
  SYMX_CUDA_LAUNCH(ctx, LaunchBinary(BinaryFn::kAdd, t, ctx.inputs[0].read_raw_data(),
                                     ctx.inputs[1].read_raw_data(), out.raw_data(), out.size(),
                                     device->stream()));
  for (size_t i = 2; i < ctx.inputs.size(); ++i) {
    SYMX_CUDA_LAUNCH(
        ctx, LaunchBinary(BinaryFn::kAdd, t, out.read_raw_data(), ctx.inputs[i].read_raw_data(),
                          out.raw_data(), out.size(), device->stream()));
  }
  return absl::OkStatus();
}

}  // namespace

SYMX_REGISTER_KERNEL("exp", kGPU, Unary<UnaryFn::kExp>);
SYMX_REGISTER_KERNEL("log", kGPU, Unary<UnaryFn::kLog>);
SYMX_REGISTER_KERNEL("negative", kGPU, Unary<UnaryFn::kNegative>);
SYMX_REGISTER_KERNEL("sqrt", kGPU, Unary<UnaryFn::kSqrt>);
SYMX_REGISTER_KERNEL("square", kGPU, Unary<UnaryFn::kSquare>);
SYMX_REGISTER_KERNEL("abs", kGPU, Unary<UnaryFn::kAbs>);
SYMX_REGISTER_KERNEL("relu", kGPU, Unary<UnaryFn::kRelu>);
SYMX_REGISTER_KERNEL("sigmoid", kGPU, Unary<UnaryFn::kSigmoid>);
SYMX_REGISTER_KERNEL("tanh", kGPU, Unary<UnaryFn::kTanh>);
SYMX_REGISTER_KERNEL("_backward_sqrt", kGPU, UnaryGrad<UnaryGradFn::kSqrtFromOut>);
SYMX_REGISTER_KERNEL("_backward_relu", kGPU, UnaryGrad<UnaryGradFn::kReluFromOut>);
SYMX_REGISTER_KERNEL("_backward_sigmoid", kGPU, UnaryGrad<UnaryGradFn::kSigmoidFromOut>);
SYMX_REGISTER_KERNEL("_backward_tanh", kGPU, UnaryGrad<UnaryGradFn::kTanhFromOut>);
SYMX_REGISTER_KERNEL("_backward_square", kGPU, UnaryGrad<UnaryGradFn::kSquareFromIn>);
SYMX_REGISTER_KERNEL("_backward_abs", kGPU, UnaryGrad<UnaryGradFn::kAbsFromIn>);
SYMX_REGISTER_KERNEL("_plus_scalar", kGPU, WithScalar<ScalarFn::kPlus>);
SYMX_REGISTER_KERNEL("_minus_scalar", kGPU, WithScalar<ScalarFn::kMinus>);
SYMX_REGISTER_KERNEL("_rminus_scalar", kGPU, WithScalar<ScalarFn::kRMinus>);
SYMX_REGISTER_KERNEL("_mul_scalar", kGPU, WithScalar<ScalarFn::kMul>);
SYMX_REGISTER_KERNEL("_div_scalar", kGPU, WithScalar<ScalarFn::kDiv>);
SYMX_REGISTER_KERNEL("_rdiv_scalar", kGPU, WithScalar<ScalarFn::kRDiv>);
SYMX_REGISTER_KERNEL("_maximum_scalar", kGPU, WithScalar<ScalarFn::kMax>);
SYMX_REGISTER_KERNEL("_minimum_scalar", kGPU, WithScalar<ScalarFn::kMin>);
SYMX_REGISTER_KERNEL("_power_scalar", kGPU, WithScalar<ScalarFn::kPow>);
SYMX_REGISTER_KERNEL("_rpower_scalar", kGPU, WithScalar<ScalarFn::kRPow>);
SYMX_REGISTER_KERNEL("_backward_rdiv_scalar", kGPU, ScalarGrad<ScalarGradFn::kRDivFromIn>);
SYMX_REGISTER_KERNEL("_backward_maximum_scalar", kGPU, ScalarGrad<ScalarGradFn::kMaxFromIn>);
SYMX_REGISTER_KERNEL("_backward_minimum_scalar", kGPU, ScalarGrad<ScalarGradFn::kMinFromIn>);
SYMX_REGISTER_KERNEL("_backward_power_scalar", kGPU, ScalarGrad<ScalarGradFn::kPowFromIn>);
SYMX_REGISTER_KERNEL("_backward_rpower_scalar", kGPU, ScalarGrad<ScalarGradFn::kRPowFromOut>);
SYMX_REGISTER_KERNEL("_copy", kGPU, Identity);
SYMX_REGISTER_KERNEL("_identity_with_attr_like_rhs", kGPU, Identity);
SYMX_REGISTER_KERNEL("_copyto", kGPU, Cast);
SYMX_REGISTER_KERNEL("_backward_copyto", kGPU, Cast);
SYMX_REGISTER_KERNEL("BlockGrad", kGPU, Identity);
SYMX_REGISTER_KERNEL("_symx_loss_scale", kGPU, Identity);
SYMX_REGISTER_KERNEL("zeros_like", kGPU, ZerosLike);
SYMX_REGISTER_KERNEL("ones_like", kGPU, OnesLike);
SYMX_REGISTER_KERNEL("Cast", kGPU, Cast);
SYMX_REGISTER_KERNEL("_backward_Cast", kGPU, Cast);
SYMX_REGISTER_KERNEL("ElementWiseSum", kGPU, ElementWiseSum);

}  // namespace cuda

}  // namespace symx
