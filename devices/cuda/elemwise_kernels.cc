// CUDA kernels of the elementwise ops: unary math and their gradients,
// elemwise_*/broadcast_* forward, array-with-scalar ops, data movement
// (copies, reshapes, fills, Cast) and the executor's _CrossDeviceCopy.
#include <cstring>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "devices/cuda/kernel_util.h"
#include "devices/dtype_switch.h"
#include "graph/ops/elemwise.h"
#include "graph/ops/init.h"

namespace symx {
namespace cuda {
namespace {

template <UnaryFn F>
absl::Status Unary(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& x = ctx.inputs[0];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, x.dtype()));
  SYMX_CUDA_LAUNCH(ctx, LaunchUnary(F, t, x.read_raw_data(), ctx.outputs[0].raw_data(), x.size(),
                                    device->stream()));
  return absl::OkStatus();
}

// (ograd, v) -> grad, v the forward input or output as the rule says.
template <UnaryGradFn F>
absl::Status UnaryGrad(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& g = ctx.inputs[0];
  const Tensor& v = ctx.inputs[1];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, g.dtype()));
  SYMX_CUDA_LAUNCH(ctx, LaunchUnaryGrad(F, t, g.read_raw_data(), v.read_raw_data(),
                                        v.read_raw_data(), ctx.outputs[0].raw_data(), g.size(),
                                        device->stream()));
  return absl::OkStatus();
}

template <BinaryFn F>
absl::Status Binary(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& a = ctx.inputs[0];
  const Tensor& b = ctx.inputs[1];
  const Tensor& out = ctx.outputs[0];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, out.dtype()));
  if (a.size() == out.size() && b.size() == out.size()) {
    SYMX_CUDA_LAUNCH(ctx, LaunchBinary(F, t, a.read_raw_data(), b.read_raw_data(), out.raw_data(),
                                       out.size(), device->stream()));
    return absl::OkStatus();
  }
  SYMX_ASSIGN_OR_RETURN(BroadcastDims d, MakeBroadcastDims(ctx, a.shape(), b.shape(), out.shape()));
  SYMX_CUDA_LAUNCH(ctx, LaunchBroadcast(F, t, a.read_raw_data(), b.read_raw_data(),
                                        out.raw_data(), d, out.size(), device->stream()));
  return absl::OkStatus();
}

template <ScalarFn F>
absl::Status WithScalar(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& x = ctx.inputs[0];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, x.dtype()));
  double scalar = ctx.param<ScalarParam>().scalar;
  if (F >= ScalarFn::kEqual) {
    // Comparisons see the scalar in the array's dtype, as MXNet does (a
    // float16 array compares with the scalar rounded to float16).
    char buf[8];
    ConvertElements(&scalar, DType::kFloat64, buf, x.dtype(), 1);
    ConvertElements(buf, x.dtype(), &scalar, DType::kFloat64, 1);
  }
  SYMX_CUDA_LAUNCH(ctx, LaunchScalar(F, t, x.read_raw_data(), scalar, ctx.outputs[0].raw_data(),
                                     x.size(), device->stream()));
  return absl::OkStatus();
}

// (ograd, v) -> grad.
template <ScalarGradFn F>
absl::Status ScalarGrad(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& g = ctx.inputs[0];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, g.dtype()));
  SYMX_CUDA_LAUNCH(ctx, LaunchScalarGrad(F, t, g.read_raw_data(), ctx.inputs[1].read_raw_data(),
                                         ctx.param<ScalarParam>().scalar,
                                         ctx.outputs[0].raw_data(), g.size(), device->stream()));
  return absl::OkStatus();
}

// Same bytes, maybe another shape: _copy, BlockGrad, Reshape and kin.
absl::Status Identity(const KernelContext& ctx) {
  return CopyOnStream(ctx, ctx.inputs[0], ctx.outputs[0]);
}

// The value cast on the host as the CPU kernels cast fill values
// (CastFillValue: integers wrap), stored as its bits.
absl::Status FillWith(const KernelContext& ctx, double value) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& out = ctx.outputs[0];
  SYMX_RETURN_IF_ERROR(AnyElem(ctx, out.dtype()).status());
  uint64_t bits = 0;
  SYMX_DTYPE_SWITCH_ALL(out.dtype(), T, {
    const T v = CastFillValue<T>(value);
    std::memcpy(&bits, &v, sizeof(T));
  });
  SYMX_CUDA_LAUNCH(ctx, LaunchFillBits(DTypeSize(out.dtype()), bits, out.raw_data(), out.size(),
                                       device->stream()));
  return absl::OkStatus();
}

// `v` cast to integer type T (bool included) and widened to int64 (0 for
// other types).
template <typename T>
int64_t IntegerFill(double v) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<int64_t>(CastFillValue<T>(v));
  } else {
    return 0;
  }
}

// _arange, with the CPU kernel's rules (devices/cpu/init_kernels.cc).
absl::Status Arange(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const auto& p = ctx.param<ArangeParam>();
  const Tensor& out = ctx.outputs[0];
  // With infer_range, or a stop, the range starts at start; else it is [0, start).
  const double start = p.stop || p.infer_range ? p.start : 0.0;
  if (p.repeat <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": repeat must be positive"));
  }
  SYMX_ASSIGN_OR_RETURN(Elem t, AnyElem(ctx, out.dtype()));
  int64_t s0 = 0, st = 0;
  SYMX_DTYPE_SWITCH_ALL(out.dtype(), T, {
    s0 = IntegerFill<T>(start);
    st = IntegerFill<T>(p.step);
  });
  SYMX_CUDA_LAUNCH(ctx, LaunchArange(t, start, p.step, s0, st, p.repeat, out.raw_data(),
                                     out.size(), device->stream()));
  return absl::OkStatus();
}

absl::Status ZerosLike(const KernelContext& ctx) { return FillWith(ctx, 0.0); }
absl::Status OnesLike(const KernelContext& ctx) { return FillWith(ctx, 1.0); }
absl::Status Full(const KernelContext& ctx) { return FillWith(ctx, ctx.param<InitParam>().value); }

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
  SYMX_CUDA_LAUNCH(ctx, LaunchCast(from, in.read_raw_data(), to, out.raw_data(), in.size(),
                                   device->stream()));
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
    SYMX_CUDA_LAUNCH(ctx, LaunchBinary(BinaryFn::kAdd, t, out.read_raw_data(),
                                       ctx.inputs[i].read_raw_data(), out.raw_data(), out.size(),
                                       device->stream()));
  }
  return absl::OkStatus();
}

// The executor's copy between devices, run by the destination: from the host
// (a CPU producer has finished: the executor waited for it) or another GPU
// (ordered by events inside CopyTensor).
absl::Status CrossDeviceCopy(const KernelContext& ctx) {
  SYMX_RETURN_IF_ERROR(StepDevice(ctx).status());
  return CopyTensor(ctx.inputs[0], ctx.outputs[0]);
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

SYMX_REGISTER_KERNEL("elemwise_add", kGPU, Binary<BinaryFn::kAdd>);
SYMX_REGISTER_KERNEL("elemwise_sub", kGPU, Binary<BinaryFn::kSub>);
SYMX_REGISTER_KERNEL("elemwise_mul", kGPU, Binary<BinaryFn::kMul>);
SYMX_REGISTER_KERNEL("elemwise_div", kGPU, Binary<BinaryFn::kDiv>);
SYMX_REGISTER_KERNEL("_maximum", kGPU, Binary<BinaryFn::kMax>);
SYMX_REGISTER_KERNEL("_minimum", kGPU, Binary<BinaryFn::kMin>);
SYMX_REGISTER_KERNEL("_power", kGPU, Binary<BinaryFn::kPow>);
SYMX_REGISTER_KERNEL("broadcast_add", kGPU, Binary<BinaryFn::kAdd>);
SYMX_REGISTER_KERNEL("broadcast_sub", kGPU, Binary<BinaryFn::kSub>);
SYMX_REGISTER_KERNEL("broadcast_mul", kGPU, Binary<BinaryFn::kMul>);
SYMX_REGISTER_KERNEL("broadcast_div", kGPU, Binary<BinaryFn::kDiv>);
SYMX_REGISTER_KERNEL("broadcast_maximum", kGPU, Binary<BinaryFn::kMax>);
SYMX_REGISTER_KERNEL("broadcast_minimum", kGPU, Binary<BinaryFn::kMin>);
SYMX_REGISTER_KERNEL("broadcast_power", kGPU, Binary<BinaryFn::kPow>);

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

// Comparisons and logic: one-shape, scalar and broadcast forms.
#define SYMX_GPU_COMPARE(name, fn)                                               \
  SYMX_REGISTER_KERNEL("_" name, kGPU, Binary<BinaryFn::fn>);                    \
  SYMX_REGISTER_KERNEL("_" name "_scalar", kGPU, WithScalar<ScalarFn::fn>);      \
  SYMX_REGISTER_KERNEL("broadcast_" name, kGPU, Binary<BinaryFn::fn>)
SYMX_GPU_COMPARE("equal", kEqual);
SYMX_GPU_COMPARE("not_equal", kNotEqual);
SYMX_GPU_COMPARE("greater", kGreater);
SYMX_GPU_COMPARE("greater_equal", kGreaterEqual);
SYMX_GPU_COMPARE("lesser", kLesser);
SYMX_GPU_COMPARE("lesser_equal", kLesserEqual);
SYMX_GPU_COMPARE("logical_and", kLogicalAnd);
SYMX_GPU_COMPARE("logical_or", kLogicalOr);
SYMX_GPU_COMPARE("logical_xor", kLogicalXor);
SYMX_REGISTER_KERNEL("logical_not", kGPU, Unary<UnaryFn::kLogicalNot>);

SYMX_REGISTER_KERNEL("_copy", kGPU, Identity);
SYMX_REGISTER_KERNEL("BlockGrad", kGPU, Identity);
// The loss-scaling point is the identity forward (graph/ops/elemwise.cc).
SYMX_REGISTER_KERNEL("_symx_loss_scale", kGPU, Identity);
SYMX_REGISTER_KERNEL("Flatten", kGPU, Identity);
SYMX_REGISTER_KERNEL("Reshape", kGPU, Identity);
SYMX_REGISTER_KERNEL("expand_dims", kGPU, Identity);
SYMX_REGISTER_KERNEL("squeeze", kGPU, Identity);
SYMX_REGISTER_KERNEL("_backward_reshape", kGPU, Identity);
SYMX_REGISTER_KERNEL("zeros_like", kGPU, ZerosLike);
SYMX_REGISTER_KERNEL("ones_like", kGPU, OnesLike);
SYMX_REGISTER_KERNEL("_zeros", kGPU, Full);
SYMX_REGISTER_KERNEL("_ones", kGPU, Full);
SYMX_REGISTER_KERNEL("_full", kGPU, Full);
SYMX_REGISTER_KERNEL("_arange", kGPU, Arange);
SYMX_REGISTER_KERNEL("Cast", kGPU, Cast);
SYMX_REGISTER_KERNEL("_backward_Cast", kGPU, Cast);
SYMX_REGISTER_KERNEL("ElementWiseSum", kGPU, ElementWiseSum);
SYMX_REGISTER_KERNEL("_CrossDeviceCopy", kGPU, CrossDeviceCopy);

}  // namespace cuda
}  // namespace symx
