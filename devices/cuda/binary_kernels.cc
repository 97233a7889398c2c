// CUDA kernels of the binary family (graph/ops/binary.cc): _maximum, _minimum,
// _power, broadcast_add, broadcast_div, broadcast_maximum, broadcast_minimum,
// broadcast_mul, broadcast_power, broadcast_sub, elemwise_add, elemwise_div,
// elemwise_mul, elemwise_sub, with their backward ops.
//
// The gradients of the broadcasting binary ops (_backward_broadcast_*, and
// _backward_maximum/minimum/power of the one-shape ops) compute gradient terms
// over the full shape, then sum them down to each operand's shape.
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/cuda/elemwise_kernels.h"
#include "devices/cuda/kernel_util.h"
#include "devices/cuda/reduce_kernels.h"
#include "devices/dtype_switch.h"
#include "devices/cuda/elemwise_launch.h"
#include "devices/cuda/reduce_launch.h"
#include "devices/cuda/strided_launch.h"

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

}  // namespace cuda

}  // namespace symx
