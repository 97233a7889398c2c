// CUDA kernels of the unary math ops (graph/ops/math.cc) and their
// backward ops, floating types only: the rounding ops and sign on integer
// tensors stay on the CPU for now (an unsupported-dtype error names them).
// _contrib_quadratic takes the integer types too, and
// _contrib_gradientmultiplier (the identity) any dtype.
#include "devices/cuda/elemwise_kernels.h"
#include "devices/cuda/kernel_util.h"
#include "devices/cuda/math_launch.h"
#include "graph/ops/elemwise.h"
#include "graph/ops/math.h"

namespace symx {
namespace cuda {
namespace {

double SmoothL1Sigma(const KernelContext& ctx, bool smooth) {
  return smooth ? ctx.param<ScalarParam>().scalar : 0.0;
}

template <MathFn F>
absl::Status Math(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& x = ctx.inputs[0];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, x.dtype()));
  SYMX_CUDA_LAUNCH(ctx,
                   LaunchMath(F, t, x.read_raw_data(), SmoothL1Sigma(ctx, F == MathFn::kSmoothL1),
                              ctx.outputs[0].raw_data(), x.size(), device->stream()));
  return absl::OkStatus();
}

// (ograd, v) -> grad.
template <MathGradFn F>
absl::Status MathGrad(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& g = ctx.inputs[0];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, g.dtype()));
  SYMX_CUDA_LAUNCH(ctx, LaunchMathGrad(F, t, g.read_raw_data(), ctx.inputs[1].read_raw_data(),
                                       SmoothL1Sigma(ctx, F == MathGradFn::kSmoothL1),
                                       ctx.outputs[0].raw_data(), g.size(), device->stream()));
  return absl::OkStatus();
}

absl::Status Quadratic(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& x = ctx.inputs[0];
  switch (x.dtype()) {
    case DType::kFloat32:
    case DType::kFloat64:
    case DType::kFloat16:
    case DType::kUint8:
    case DType::kInt8:
    case DType::kInt32:
    case DType::kInt64:
      break;
    default:
      return UnsupportedDType(ctx, x.dtype());
  }
  const QuadraticParam& p = ctx.param<QuadraticParam>();
  SYMX_CUDA_LAUNCH(
      ctx, LaunchQuadratic(static_cast<Elem>(static_cast<int>(x.dtype())), x.read_raw_data(), p.a,
                           p.b, p.c, ctx.outputs[0].raw_data(), x.size(), device->stream()));
  return absl::OkStatus();
}

absl::Status QuadraticGrad(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& g = ctx.inputs[0];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, g.dtype()));
  const QuadraticParam& p = ctx.param<QuadraticParam>();
  SYMX_CUDA_LAUNCH(
      ctx, LaunchQuadraticGrad(t, g.read_raw_data(), ctx.inputs[1].read_raw_data(), p.a, p.b,
                               ctx.outputs[0].raw_data(), g.size(), device->stream()));
  return absl::OkStatus();
}

}  // namespace

SYMX_REGISTER_KERNEL("_contrib_quadratic", kGPU, Quadratic);
SYMX_REGISTER_KERNEL("_contrib_backward_quadratic", kGPU, QuadraticGrad);
SYMX_REGISTER_KERNEL("_contrib_gradientmultiplier", kGPU, Identity);

#define SYMX_GPU_MATH(op, fn) SYMX_REGISTER_KERNEL(op, kGPU, Math<MathFn::fn>)
#define SYMX_GPU_MATH_GRAD(op, fn) SYMX_REGISTER_KERNEL(op, kGPU, MathGrad<MathGradFn::fn>)

SYMX_GPU_MATH("log2", kLog2);
SYMX_GPU_MATH("log10", kLog10);
SYMX_GPU_MATH("log1p", kLog1p);
SYMX_GPU_MATH("expm1", kExpm1);
SYMX_GPU_MATH("sin", kSin);
SYMX_GPU_MATH("cos", kCos);
SYMX_GPU_MATH("tan", kTan);
SYMX_GPU_MATH("arcsin", kArcsin);
SYMX_GPU_MATH("arccos", kArccos);
SYMX_GPU_MATH("arctan", kArctan);
SYMX_GPU_MATH("sinh", kSinh);
SYMX_GPU_MATH("cosh", kCosh);
SYMX_GPU_MATH("arcsinh", kArcsinh);
SYMX_GPU_MATH("arccosh", kArccosh);
SYMX_GPU_MATH("arctanh", kArctanh);
SYMX_GPU_MATH("degrees", kDegrees);
SYMX_GPU_MATH("radians", kRadians);
SYMX_GPU_MATH("reciprocal", kReciprocal);
SYMX_GPU_MATH("rsqrt", kRsqrt);
SYMX_GPU_MATH("cbrt", kCbrt);
SYMX_GPU_MATH("rcbrt", kRcbrt);
SYMX_GPU_MATH("erf", kErf);
SYMX_GPU_MATH("erfinv", kErfinv);
SYMX_GPU_MATH("gamma", kGamma);
SYMX_GPU_MATH("gammaln", kGammaln);
SYMX_GPU_MATH("floor", kFloor);
SYMX_GPU_MATH("ceil", kCeil);
SYMX_GPU_MATH("round", kRound);
SYMX_GPU_MATH("rint", kRint);
SYMX_GPU_MATH("fix", kTrunc);
SYMX_GPU_MATH("trunc", kTrunc);
SYMX_GPU_MATH("sign", kSign);
SYMX_GPU_MATH("_contrib_round_ste", kRound);
SYMX_GPU_MATH("_contrib_sign_ste", kSign);
SYMX_GPU_MATH("smooth_l1", kSmoothL1);

SYMX_GPU_MATH_GRAD("_backward_log2", kLog2);
SYMX_GPU_MATH_GRAD("_backward_log10", kLog10);
SYMX_GPU_MATH_GRAD("_backward_log1p", kLog1p);
SYMX_GPU_MATH_GRAD("_backward_expm1", kExpm1FromOut);
SYMX_GPU_MATH_GRAD("_backward_sin", kSin);
SYMX_GPU_MATH_GRAD("_backward_cos", kCos);
SYMX_GPU_MATH_GRAD("_backward_tan", kTanFromOut);
SYMX_GPU_MATH_GRAD("_backward_arcsin", kArcsin);
SYMX_GPU_MATH_GRAD("_backward_arccos", kArccos);
SYMX_GPU_MATH_GRAD("_backward_arctan", kArctan);
SYMX_GPU_MATH_GRAD("_backward_sinh", kSinh);
SYMX_GPU_MATH_GRAD("_backward_cosh", kCosh);
SYMX_GPU_MATH_GRAD("_backward_arcsinh", kArcsinh);
SYMX_GPU_MATH_GRAD("_backward_arccosh", kArccosh);
SYMX_GPU_MATH_GRAD("_backward_arctanh", kArctanh);
SYMX_GPU_MATH_GRAD("_backward_degrees", kDegrees);
SYMX_GPU_MATH_GRAD("_backward_radians", kRadians);
SYMX_GPU_MATH_GRAD("_backward_reciprocal", kReciprocal);
SYMX_GPU_MATH_GRAD("_backward_rsqrt", kRsqrt);
SYMX_GPU_MATH_GRAD("_backward_cbrt", kCbrtFromOut);
SYMX_GPU_MATH_GRAD("_backward_rcbrt", kRcbrt);
SYMX_GPU_MATH_GRAD("_backward_erf", kErf);
SYMX_GPU_MATH_GRAD("_backward_erfinv", kErfinvFromOut);
SYMX_GPU_MATH_GRAD("_backward_gamma", kGamma);
SYMX_GPU_MATH_GRAD("_backward_gammaln", kGammaln);
SYMX_GPU_MATH_GRAD("_backward_smooth_l1", kSmoothL1);

}  // namespace cuda
}  // namespace symx
