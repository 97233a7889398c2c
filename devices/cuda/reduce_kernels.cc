// CUDA kernels of the reductions (sum, mean, max and their backward ops,
// argmax/argmin/argmax_channel) and
// of the gradients of broadcasting binary ops (_backward_broadcast_*, and
// _backward_maximum/minimum/power of the one-shape ops): gradient terms over
// the full shape, then summed down to each operand's shape.
#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/cuda/kernel_util.h"
#include "graph/ops/ordering.h"
#include "graph/ops/reduce.h"

namespace symx {
namespace cuda {
namespace {

absl::Status TooManyDims(const KernelContext& ctx, const Shape& s) {
  return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": ", s.ToString(), " has more than ",
                                                 kMaxDims, " dims, the most the GPU kernel takes"));
}

// The axes of `shape` split into the kept and the reduced ones, each with
// its row-major strides in `shape`.
void SplitAxes(const Shape& shape, const std::vector<bool>& reduced, StridedDims* kept,
               StridedDims* red) {
  const std::vector<int64_t> st = StridesOf(shape);
  for (int k = 0; k < shape.ndim(); ++k) {
    StridedDims& d = reduced[k] ? *red : *kept;
    d.dims[d.ndim] = shape[k];
    d.src_strides[d.ndim] = st[k];
    ++d.ndim;
  }
}

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

enum class Kind { kSum, kMean, kMax };

struct ReducePlan {
  std::vector<bool> reduced;  // per input axis
  int64_t count = 1;          // reduced elements per output
};

absl::StatusOr<ReducePlan> PlanFor(const KernelContext& ctx, const Shape& in) {
  absl::StatusOr<std::vector<bool>> mask =
      ReducedAxes(ctx.param<ReduceParam>(), in.ndim());
  if (!mask.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": ", mask.status().message()));
  }
  if (in.ndim() > kMaxDims) return TooManyDims(ctx, in);
  ReducePlan p;
  p.reduced = *mask;
  for (int k = 0; k < in.ndim(); ++k) {
    if (p.reduced[k]) p.count *= in[k];
  }
  return p;
}

template <Kind K>
absl::Status ReduceForward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& in = ctx.inputs[0];
  const Tensor& out = ctx.outputs[0];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, in.dtype()));
  SYMX_ASSIGN_OR_RETURN(ReducePlan plan, PlanFor(ctx, in.shape()));
  if (out.size() == 0) return absl::OkStatus();
  if (plan.count == 0) {
    if constexpr (K == Kind::kMax) {
      return absl::InvalidArgumentError(
          absl::StrCat(ctx.Where(), ": cannot take the max of empty input ", in.DebugString()));
    }
    const double fill = K == Kind::kSum ? 0.0 : std::numeric_limits<double>::quiet_NaN();
    SYMX_CUDA_LAUNCH(ctx, LaunchFill(t, fill, out.raw_data(), out.size(), device->stream()));
    return absl::OkStatus();
  }
  const ReduceFn f = K == Kind::kMax ? ReduceFn::kMax : ReduceFn::kSum;
  const double scale = K == Kind::kMean ? 1.0 / static_cast<double>(plan.count) : 1.0;
  // One contiguous run of reduced axes: the (outer, len, inner) kernels.
  const int n = in.shape().ndim();
  int first = -1, last = -1;
  for (int k = 0; k < n; ++k) {
    if (plan.reduced[k] && in.shape()[k] != 1) {
      if (first < 0) first = k;
      last = k;
    }
  }
  bool contiguous = first >= 0;
  for (int k = first; contiguous && k <= last; ++k) {
    contiguous = plan.reduced[k] || in.shape()[k] == 1;
  }
  if (first < 0) return CopyOnStream(ctx, in, out);  // only size-1 axes reduced
  if (contiguous) {
    int64_t outer = 1, len = 1, inner = 1;
    for (int k = 0; k < first; ++k) outer *= in.shape()[k];
    for (int k = first; k <= last; ++k) len *= in.shape()[k];
    for (int k = last + 1; k < n; ++k) inner *= in.shape()[k];
    SYMX_CUDA_LAUNCH(ctx, LaunchReduce(f, t, in.read_raw_data(), outer, len, inner, scale,
                                       out.raw_data(), device->stream()));
    return absl::OkStatus();
  }
  StridedDims kept, reduced;
  SplitAxes(in.shape(), plan.reduced, &kept, &reduced);
  SYMX_CUDA_LAUNCH(ctx, LaunchReduceStrided(f, t, in.read_raw_data(), kept, reduced, scale,
                                            out.raw_data(), out.size(), device->stream()));
  return absl::OkStatus();
}

// The reduced output's strides over the input's axes (0 on reduced axes): the
// output is contiguous over the kept axes in order, keepdims or not.
StridedDims BroadcastBack(const Shape& full, const std::vector<bool>& reduced) {
  StridedDims d;
  d.ndim = full.ndim();
  int64_t stride = 1;
  for (int k = full.ndim() - 1; k >= 0; --k) {
    d.dims[k] = full[k];
    d.src_strides[k] = reduced[k] ? 0 : stride;
    if (!reduced[k]) stride *= full[k];
  }
  int64_t dst = 1;
  for (int k = full.ndim() - 1; k >= 0; --k) {
    d.dst_strides[k] = dst;
    dst *= full[k];
  }
  return d;
}

// grad (input shape) from ograd (reduced); max also reads (data, out).
template <Kind K>
absl::Status ReduceBackward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& ograd = ctx.inputs[0];
  const Tensor& grad = ctx.outputs[0];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, grad.dtype()));
  SYMX_ASSIGN_OR_RETURN(ReducePlan plan, PlanFor(ctx, grad.shape()));
  if (grad.size() == 0) return absl::OkStatus();
  const StridedDims d = BroadcastBack(grad.shape(), plan.reduced);
  if (grad.size() / plan.count != ograd.size()) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": head gradient ",
                                                   ograd.DebugString(), " does not match ",
                                                   grad.DebugString()));
  }
  if constexpr (K == Kind::kMax) {
    SYMX_CUDA_LAUNCH(ctx, LaunchMaxReduceGrad(t, ctx.inputs[1].read_raw_data(),
                                              ctx.inputs[2].read_raw_data(),
                                              ograd.read_raw_data(), d, grad.raw_data(),
                                              grad.size(), device->stream()));
    return absl::OkStatus();
  }
  SYMX_CUDA_LAUNCH(ctx, LaunchStridedCopy(DTypeSize(grad.dtype()), ograd.read_raw_data(),
                                          grad.raw_data(), d, grad.size(), device->stream()));
  if constexpr (K == Kind::kMean) {
    SYMX_CUDA_LAUNCH(ctx, LaunchScalar(ScalarFn::kMul, t, grad.read_raw_data(),
                                       1.0 / static_cast<double>(plan.count), grad.raw_data(),
                                       grad.size(), device->stream()));
  }
  return absl::OkStatus();
}

// The full-shape scratch the gradient terms are written to before summing.
size_t TermsWorkspace(const NodeAttrs&, const std::vector<Shape>& in,
                      const std::vector<Shape>&, DType dtype) {
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

// The (outer, n, inner) view along an optional axis (None: flattened),
// checked against the data.
absl::StatusOr<AxisLayout> ColumnsAlong(const KernelContext& ctx, const Tensor& data,
                                        std::optional<int64_t> axis) {
  const int nd = data.shape().ndim();
  std::optional<int> ax;
  if (axis.has_value()) {
    const int64_t a = *axis < 0 ? *axis + nd : *axis;
    if (a < 0 || a >= nd) {
      return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": axis ", *axis,
                                                     " is out of range for ", data.DebugString()));
    }
    ax = static_cast<int>(a);
  }
  return MakeAxisLayout(data.shape(), ax);
}

// argmax/argmin (axis None: the flattened array) and argmax_channel (axis
// 1): positions as values of the data's type, as on CPU.
absl::Status ArgExtreme(const KernelContext& ctx, std::optional<int64_t> axis, bool max) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& data = ctx.inputs[0];
  const Tensor& out = ctx.outputs[0];
  if (out.dtype() != data.dtype()) return UnsupportedDType(ctx, out.dtype());
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, data.dtype()));
  SYMX_ASSIGN_OR_RETURN(AxisLayout l, ColumnsAlong(ctx, data, axis));
  const int64_t rows = l.outer * l.inner;
  if (out.size() != rows || (l.n == 0 && rows > 0)) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": output ", out.DebugString(),
                                                   " does not fit data ", data.DebugString()));
  }
  SYMX_CUDA_LAUNCH(ctx, LaunchArgExtreme(t, data.read_raw_data(), l.outer, l.n, l.inner, max,
                                         out.raw_data(), device->stream()));
  return absl::OkStatus();
}

absl::Status Argmax(const KernelContext& ctx) {
  return ArgExtreme(ctx, ctx.param<ArgReduceParam>().axis, true);
}
absl::Status Argmin(const KernelContext& ctx) {
  return ArgExtreme(ctx, ctx.param<ArgReduceParam>().axis, false);
}
absl::Status ArgmaxChannel(const KernelContext& ctx) { return ArgExtreme(ctx, 1, true); }

absl::Status Cumsum(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& in = ctx.inputs[0];
  const Tensor& out = ctx.outputs[0];
  if (out.size() != in.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        ctx.Where(), ": output ", out.DebugString(), " does not fit input ", in.DebugString()));
  }
  SYMX_ASSIGN_OR_RETURN(Elem it, AnyElem(ctx, in.dtype()));
  SYMX_ASSIGN_OR_RETURN(Elem ot, AnyElem(ctx, out.dtype()));
  if (out.dtype() == DType::kBool) return UnsupportedDType(ctx, out.dtype());
  SYMX_ASSIGN_OR_RETURN(AxisLayout l, ColumnsAlong(ctx, in, ctx.param<CumsumParam>().axis));
  SYMX_CUDA_LAUNCH(ctx, LaunchCumsum(it, in.read_raw_data(), ot, out.raw_data(), l.outer, l.n,
                                     l.inner, device->stream()));
  return absl::OkStatus();
}

// Inputs: ograd. Output: grad data.
absl::Status CumsumBackward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& og = ctx.inputs[0];
  const Tensor& grad = ctx.outputs[0];
  if (og.size() != grad.size()) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": output gradient ",
                                                   og.DebugString(), " does not fit ",
                                                   grad.DebugString()));
  }
  SYMX_ASSIGN_OR_RETURN(Elem ot, FloatElem(ctx, og.dtype()));
  SYMX_ASSIGN_OR_RETURN(Elem gt, FloatElem(ctx, grad.dtype()));
  SYMX_ASSIGN_OR_RETURN(AxisLayout l, ColumnsAlong(ctx, grad, ctx.param<CumsumParam>().axis));
  SYMX_CUDA_LAUNCH(ctx, LaunchCumsumGrad(ot, og.read_raw_data(), gt, grad.raw_data(), l.outer,
                                         l.n, l.inner, device->stream()));
  return absl::OkStatus();
}

}  // namespace

SYMX_REGISTER_KERNEL("argmax", kGPU, Argmax);
SYMX_REGISTER_KERNEL("argmin", kGPU, Argmin);
SYMX_REGISTER_KERNEL("argmax_channel", kGPU, ArgmaxChannel);
SYMX_REGISTER_KERNEL("_np_cumsum", kGPU, Cumsum);
SYMX_REGISTER_KERNEL("_backward_np_cumsum", kGPU, CumsumBackward);
SYMX_REGISTER_KERNEL("sum", kGPU, ReduceForward<Kind::kSum>);
SYMX_REGISTER_KERNEL("mean", kGPU, ReduceForward<Kind::kMean>);
SYMX_REGISTER_KERNEL("max", kGPU, ReduceForward<Kind::kMax>);
SYMX_REGISTER_KERNEL("_backward_sum", kGPU, ReduceBackward<Kind::kSum>);
SYMX_REGISTER_KERNEL("_backward_mean", kGPU, ReduceBackward<Kind::kMean>);
SYMX_REGISTER_KERNEL("_backward_max", kGPU, ReduceBackward<Kind::kMax>);
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
