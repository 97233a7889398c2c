// CUDA kernels of the binary family (graph/ops/binary.cc): _hypot,
// _hypot_scalar, _maximum, _minimum, _mod, _mod_scalar, _power, _rmod_scalar,
// broadcast_add, broadcast_axis, broadcast_div, broadcast_hypot,
// broadcast_like, broadcast_maximum, broadcast_minimum, broadcast_mod,
// broadcast_mul, broadcast_power, broadcast_sub, broadcast_to, elemwise_add,
// elemwise_div, elemwise_mul, elemwise_sub, with their backward ops.
//
// The gradients of the broadcasting binary ops (_backward_broadcast_*, and
// _backward_maximum/minimum/power of the one-shape ops) compute gradient terms
// over the full shape, then sum them down to each operand's shape.
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/cuda/binary_launch.h"
#include "devices/cuda/elemwise_kernels.h"
#include "devices/cuda/elemwise_launch.h"
#include "devices/cuda/kernel_util.h"
#include "devices/cuda/reduce_kernels.h"
#include "devices/cuda/reduce_launch.h"
#include "devices/cuda/strided_launch.h"
#include "devices/dtype_switch.h"
#include "graph/ops/elemwise.h"

namespace symx {
namespace cuda {
namespace {}  // namespace

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

}  // namespace cuda

namespace cuda {
namespace {

// Sums (or max/min) `full` (shape `full_shape`) down to `out`, whose shape
// right-aligns with it and has 1 (or no dim) where it is reduced.
absl::Status ReduceToShape(const KernelContext& ctx, CudaDevice* device, ReduceFn f, Elem t,
                           const void* full, const Shape& full_shape, const Tensor& out,
                           double scale) {
  const int n = full_shape.ndim();
  if (n > kMaxDims) return TooManyDims(ctx, full_shape);
  std::vector<bool> mask(n);
  for (int k = 0; k < n; ++k) {
    const int ok = k - (n - out.shape().ndim());
    mask[k] = ok < 0 || (out.shape()[ok] == 1 && full_shape[k] != 1);
  }
  StridedDims kept, reduced;
  SplitAxes(full_shape, mask, &kept, &reduced);
  if (out.size() == 0) return absl::OkStatus();
  SYMX_CUDA_LAUNCH(ctx, LaunchReduceStrided(f, t, full, kept, reduced, scale, out.raw_data(),
                                            out.size(), device->stream()));
  return absl::OkStatus();
}

// The full-shape scratch the gradient terms are written to before summing.
size_t TermsWorkspace(const NodeAttrs&, const std::vector<Shape>& in, const std::vector<Shape>&,
                      DType dtype) {
  return in.empty() ? 0 : static_cast<size_t>(in[0].Size()) * DTypeSize(dtype);
}

// Inputs: ograd (the output's shape), lhs, rhs. Outputs: grad lhs, grad rhs.
template <BinaryFn F>
absl::Status BinaryBackward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& g = ctx.inputs[0];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, g.dtype()));
  // The operands' shapes are the gradients'. add and sub never read the
  // operands (their backward may not take them): any in-bounds pointer does.
  SYMX_ASSIGN_OR_RETURN(BroadcastDims d, MakeBroadcastDims(ctx, ctx.outputs[0].shape(),
                                                           ctx.outputs[1].shape(), g.shape()));
  const bool operands = ctx.inputs.size() >= 3;
  if (!operands && F != BinaryFn::kAdd && F != BinaryFn::kSub) {
    return absl::InternalError(absl::StrCat(ctx.Where(), ": the operands are missing"));
  }
  const void* a = operands ? ctx.inputs[1].read_raw_data() : g.read_raw_data();
  const void* b = operands ? ctx.inputs[2].read_raw_data() : g.read_raw_data();
  for (int side = 0; side < 2; ++side) {
    if (!OutputWanted(ctx.req, side) || !ctx.outputs[side].defined()) continue;
    const Tensor& out = ctx.outputs[side];
    if (g.size() == 0) {
      SYMX_RETURN_IF_ERROR(device->Memset(out.raw_data(), 0, out.nbytes()));
      continue;
    }
    // Terms straight into the output when it has the full shape.
    const bool direct = out.size() == g.size();
    void* terms = direct ? out.raw_data() : ctx.workspace.raw_data();
    SYMX_CUDA_LAUNCH(ctx, LaunchBroadcastGradTerms(F, side == 1, t, g.read_raw_data(), a, b, d,
                                                   terms, g.size(), device->stream()));
    if (!direct) {
      SYMX_RETURN_IF_ERROR(ReduceToShape(ctx, device, ReduceFn::kSum, t, terms, g.shape(), out, 1));
    }
  }
  return absl::OkStatus();
}

}  // namespace

SYMX_REGISTER_KERNEL("_backward_broadcast_add", kGPU, .fn = BinaryBackward<BinaryFn::kAdd>,
                     .workspace = TermsWorkspace);
SYMX_REGISTER_KERNEL("_backward_broadcast_sub", kGPU, .fn = BinaryBackward<BinaryFn::kSub>,
                     .workspace = TermsWorkspace);
SYMX_REGISTER_KERNEL("_backward_broadcast_mul", kGPU, .fn = BinaryBackward<BinaryFn::kMul>,
                     .workspace = TermsWorkspace);
SYMX_REGISTER_KERNEL("_backward_broadcast_div", kGPU, .fn = BinaryBackward<BinaryFn::kDiv>,
                     .workspace = TermsWorkspace);
SYMX_REGISTER_KERNEL("_backward_broadcast_maximum", kGPU, .fn = BinaryBackward<BinaryFn::kMax>,
                     .workspace = TermsWorkspace);
SYMX_REGISTER_KERNEL("_backward_broadcast_minimum", kGPU, .fn = BinaryBackward<BinaryFn::kMin>,
                     .workspace = TermsWorkspace);
SYMX_REGISTER_KERNEL("_backward_broadcast_power", kGPU, .fn = BinaryBackward<BinaryFn::kPow>,
                     .workspace = TermsWorkspace);
SYMX_REGISTER_KERNEL("_backward_maximum", kGPU, .fn = BinaryBackward<BinaryFn::kMax>,
                     .workspace = TermsWorkspace);
SYMX_REGISTER_KERNEL("_backward_minimum", kGPU, .fn = BinaryBackward<BinaryFn::kMin>,
                     .workspace = TermsWorkspace);
SYMX_REGISTER_KERNEL("_backward_power", kGPU, .fn = BinaryBackward<BinaryFn::kPow>,
                     .workspace = TermsWorkspace);

// ---------------------------------------------------------------------------
// mod and hypot (binary.cu), in the integer dtypes too.

namespace {

// The launcher type of the dtypes mod and hypot take.
absl::StatusOr<Elem> ArithElem(const KernelContext& ctx, DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
    case DType::kFloat64:
    case DType::kFloat16:
    case DType::kUint8:
    case DType::kInt8:
    case DType::kInt32:
    case DType::kInt64:
      return static_cast<Elem>(static_cast<int>(dtype));
    default:
      return UnsupportedDType(ctx, dtype);
  }
}

// Strides of one flat run, for operands of the output's size.
BroadcastDims FlatDims(int64_t n) {
  BroadcastDims d;
  d.ndim = 1;
  d.out_dims[0] = n;
  d.a_strides[0] = 1;
  d.b_strides[0] = 1;
  return d;
}

template <ArithFn F>
absl::Status ArithForward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& a = ctx.inputs[0];
  const Tensor& b = ctx.inputs[1];
  const Tensor& out = ctx.outputs[0];
  SYMX_ASSIGN_OR_RETURN(Elem t, ArithElem(ctx, out.dtype()));
  BroadcastDims d = FlatDims(out.size());
  if (a.size() != out.size() || b.size() != out.size()) {
    SYMX_ASSIGN_OR_RETURN(d, MakeBroadcastDims(ctx, a.shape(), b.shape(), out.shape()));
  }
  SYMX_CUDA_LAUNCH(ctx, LaunchArith(F, t, a.read_raw_data(), b.read_raw_data(), out.raw_data(), d,
                                    out.size(), device->stream()));
  return absl::OkStatus();
}

// (ograd, lhs, rhs) -> (grad lhs, grad rhs), summed down to each operand.
template <ArithFn F>
absl::Status ArithBackward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& g = ctx.inputs[0];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, g.dtype()));
  if (t == Elem::kBF16) return UnsupportedDType(ctx, g.dtype());
  BroadcastDims d = FlatDims(g.size());
  if (ctx.outputs[0].size() != g.size() || ctx.outputs[1].size() != g.size()) {
    SYMX_ASSIGN_OR_RETURN(
        d, MakeBroadcastDims(ctx, ctx.outputs[0].shape(), ctx.outputs[1].shape(), g.shape()));
  }
  for (int side = 0; side < 2; ++side) {
    if (!OutputWanted(ctx.req, side) || !ctx.outputs[side].defined()) continue;
    const Tensor& out = ctx.outputs[side];
    if (g.size() == 0) {
      SYMX_RETURN_IF_ERROR(device->Memset(out.raw_data(), 0, out.nbytes()));
      continue;
    }
    const bool direct = out.size() == g.size();
    void* terms = direct ? out.raw_data() : ctx.workspace.raw_data();
    SYMX_CUDA_LAUNCH(ctx, LaunchArithGradTerms(
                              F, side == 1, t, g.read_raw_data(), ctx.inputs[1].read_raw_data(),
                              ctx.inputs[2].read_raw_data(), d, terms, g.size(), device->stream()));
    if (!direct) {
      SYMX_RETURN_IF_ERROR(ReduceToShape(ctx, device, ReduceFn::kSum, t, terms, g.shape(), out, 1));
    }
  }
  return absl::OkStatus();
}

// The scalar in the array's type, as MXNet converts it (integers truncate).
double ScalarInType(const KernelContext& ctx, DType dtype) {
  double scalar = ctx.param<ScalarParam>().scalar;
  SYMX_DTYPE_SWITCH_ALL(dtype, T, { scalar = ToDouble(CastValue<T>(scalar)); });
  return scalar;
}

template <ArithScalarFn F>
absl::Status ArithScalarForward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& x = ctx.inputs[0];
  SYMX_ASSIGN_OR_RETURN(Elem t, ArithElem(ctx, x.dtype()));
  SYMX_CUDA_LAUNCH(ctx, LaunchArithScalar(F, t, x.read_raw_data(), ScalarInType(ctx, x.dtype()),
                                          ctx.outputs[0].raw_data(), x.size(), device->stream()));
  return absl::OkStatus();
}

template <ArithScalarFn F>
absl::Status ArithScalarBackward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& g = ctx.inputs[0];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, g.dtype()));
  if (t == Elem::kBF16) return UnsupportedDType(ctx, g.dtype());
  SYMX_CUDA_LAUNCH(
      ctx, LaunchArithScalarGrad(F, t, g.read_raw_data(), ctx.inputs[1].read_raw_data(),
                                 ScalarInType(ctx, g.dtype()), ctx.outputs[0].raw_data(), g.size(),
                                 device->stream()));
  return absl::OkStatus();
}

// broadcast_to/axis/like: a strided copy whose source strides are 0 along
// the broadcast axes, any dtype.
absl::Status BroadcastCopy(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& in = ctx.inputs[0];
  const Tensor& out = ctx.outputs[0];
  if (in.size() == out.size()) return CopyOnStream(ctx, in, out);
  const Shape& os = out.shape();
  if (os.ndim() > kMaxDims) return TooManyDims(ctx, os);
  if (in.shape().ndim() != os.ndim()) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": the input ",
                                                   in.shape().ToString(), " and the output ",
                                                   os.ToString(), " differ in rank"));
  }
  StridedDims d;
  d.ndim = os.ndim();
  const std::vector<int64_t> in_strides = StridesOf(in.shape());
  const std::vector<int64_t> out_strides = StridesOf(os);
  for (int k = 0; k < os.ndim(); ++k) {
    d.dims[k] = os[k];
    d.src_strides[k] = in.shape()[k] == os[k] ? in_strides[k] : 0;
    d.dst_strides[k] = out_strides[k];
  }
  SYMX_CUDA_LAUNCH(ctx, LaunchStridedCopy(DTypeSize(out.dtype()), in.read_raw_data(),
                                          out.raw_data(), d, out.size(), device->stream()));
  return absl::OkStatus();
}

// (ograd) -> the gradient of input 0: ograd summed down to its shape.
absl::Status BroadcastSumBack(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& g = ctx.inputs[0];
  const Tensor& gx = ctx.outputs[0];
  if (!OutputWanted(ctx.req, 0) || !gx.defined()) return absl::OkStatus();
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, g.dtype()));
  if (g.size() == 0) return device->Memset(gx.raw_data(), 0, gx.nbytes());
  if (gx.size() == g.size()) return CopyOnStream(ctx, g, gx);
  return ReduceToShape(ctx, device, ReduceFn::kSum, t, g.read_raw_data(), g.shape(), gx, 1);
}

}  // namespace

SYMX_REGISTER_KERNEL("_mod", kGPU, ArithForward<ArithFn::kMod>);
SYMX_REGISTER_KERNEL("_hypot", kGPU, ArithForward<ArithFn::kHypot>);
SYMX_REGISTER_KERNEL("broadcast_mod", kGPU, ArithForward<ArithFn::kMod>);
SYMX_REGISTER_KERNEL("broadcast_hypot", kGPU, ArithForward<ArithFn::kHypot>);
SYMX_REGISTER_KERNEL("_backward_mod", kGPU, .fn = ArithBackward<ArithFn::kMod>,
                     .workspace = TermsWorkspace);
SYMX_REGISTER_KERNEL("_backward_hypot", kGPU, .fn = ArithBackward<ArithFn::kHypot>,
                     .workspace = TermsWorkspace);
SYMX_REGISTER_KERNEL("_backward_broadcast_mod", kGPU, .fn = ArithBackward<ArithFn::kMod>,
                     .workspace = TermsWorkspace);
SYMX_REGISTER_KERNEL("_backward_broadcast_hypot", kGPU, .fn = ArithBackward<ArithFn::kHypot>,
                     .workspace = TermsWorkspace);
SYMX_REGISTER_KERNEL("_mod_scalar", kGPU, ArithScalarForward<ArithScalarFn::kMod>);
SYMX_REGISTER_KERNEL("_rmod_scalar", kGPU, ArithScalarForward<ArithScalarFn::kRMod>);
SYMX_REGISTER_KERNEL("_hypot_scalar", kGPU, ArithScalarForward<ArithScalarFn::kHypot>);
SYMX_REGISTER_KERNEL("_backward_rmod_scalar", kGPU, ArithScalarBackward<ArithScalarFn::kRMod>);
SYMX_REGISTER_KERNEL("_backward_hypot_scalar", kGPU, ArithScalarBackward<ArithScalarFn::kHypot>);
SYMX_REGISTER_KERNEL("broadcast_to", kGPU, BroadcastCopy);
SYMX_REGISTER_KERNEL("broadcast_axis", kGPU, BroadcastCopy);
SYMX_REGISTER_KERNEL("broadcast_like", kGPU, BroadcastCopy);
SYMX_REGISTER_KERNEL("_backward_broadcast_to", kGPU, BroadcastSumBack);
SYMX_REGISTER_KERNEL("_backward_broadcast_axis", kGPU, BroadcastSumBack);
SYMX_REGISTER_KERNEL("_backward_broadcast_like", kGPU, BroadcastSumBack);

}  // namespace cuda

}  // namespace symx
