// CUDA kernels of the reduce family (graph/ops/reduce.cc): max, mean, min,
// moments, nanprod, nansum, norm, prod, sum, with their backward ops.
//
// Reductions over any axes are strided reductions (devices/cuda/strided.cu)
// or middle-axis ones (reduce.cu); max's and min's gradients go to every tied
// position; the others are MXNet's ograd * f(x, out) (devices/cpu's kernels
// say which).
#include "devices/cuda/reduce_kernels.h"

#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/cuda/kernel_util.h"
#include "graph/ops/reduce.h"
#include "devices/cuda/elemwise_launch.h"
#include "devices/cuda/reduce_launch.h"
#include "devices/cuda/strided_launch.h"

namespace symx {
namespace cuda {
namespace {

enum class Kind { kSum, kMean, kMax, kMin, kProd, kNanSum, kNanProd, kNorm1, kNorm2 };

constexpr ReduceFn FnOf(Kind k) {
  switch (k) {
    case Kind::kMax:
      return ReduceFn::kMax;
    case Kind::kMin:
      return ReduceFn::kMin;
    case Kind::kProd:
      return ReduceFn::kProd;
    case Kind::kNanSum:
      return ReduceFn::kNanSum;
    case Kind::kNanProd:
      return ReduceFn::kNanProd;
    case Kind::kNorm1:
      return ReduceFn::kNorm1;
    case Kind::kNorm2:
      return ReduceFn::kNorm2;
    default:
      return ReduceFn::kSum;
  }
}

// The gradient kinds that read the forward input and output.
enum class GradKind { kSum, kMean, kEqual, kProd, kNanSum, kNanProd, kNorm1, kNorm2 };

constexpr ReduceGradFn GradFnOf(GradKind k) {
  switch (k) {
    case GradKind::kProd:
      return ReduceGradFn::kProd;
    case GradKind::kNanSum:
      return ReduceGradFn::kNanSum;
    case GradKind::kNanProd:
      return ReduceGradFn::kNanProd;
    case GradKind::kNorm1:
      return ReduceGradFn::kNorm1;
    case GradKind::kNorm2:
      return ReduceGradFn::kNorm2;
    default:
      return ReduceGradFn::kEqual;
  }
}

struct ReducePlan {
  std::vector<bool> reduced;  // per input axis
  int64_t count = 1;          // reduced elements per output
};

absl::StatusOr<ReducePlan> PlanFor(const KernelContext& ctx, const Shape& in) {
  absl::StatusOr<std::vector<bool>> mask = ReducedAxes(ctx.param<ReduceParam>(), in.ndim());
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

// The kinds MXNet also computes on integers (int8, uint8, int32, int64);
// mean, norm and moments stay floating-point only (the CPU kernels say why).
constexpr bool TakesIntegers(Kind k) {
  return k != Kind::kMean && k != Kind::kNorm1 && k != Kind::kNorm2;
}

template <Kind K>
absl::StatusOr<Elem> ReduceElem(const KernelContext& ctx, DType dtype) {
  if (TakesIntegers(K) && (dtype == DType::kInt8 || dtype == DType::kUint8 ||
                           dtype == DType::kInt32 || dtype == DType::kInt64)) {
    return AnyElem(ctx, dtype);
  }
  return FloatElem(ctx, dtype);
}

template <Kind K>
absl::Status ReduceForward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& in = ctx.inputs[0];
  const Tensor& out = ctx.outputs[0];
  SYMX_ASSIGN_OR_RETURN(Elem t, ReduceElem<K>(ctx, in.dtype()));
  SYMX_ASSIGN_OR_RETURN(ReducePlan plan, PlanFor(ctx, in.shape()));
  if (out.size() == 0) return absl::OkStatus();
  if (plan.count == 0) {
    if constexpr (K == Kind::kMax || K == Kind::kMin) {
      return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": cannot take the ",
                                                     K == Kind::kMax ? "max" : "min",
                                                     " of empty input ", in.DebugString()));
    }
    const double fill = K == Kind::kMean ? std::numeric_limits<double>::quiet_NaN()
                        : K == Kind::kProd || K == Kind::kNanProd ? 1.0
                                                                  : 0.0;
    SYMX_CUDA_LAUNCH(ctx, LaunchFill(t, fill, out.raw_data(), out.size(), device->stream()));
    return absl::OkStatus();
  }
  constexpr ReduceFn f = FnOf(K);
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
  // Only size-1 axes reduced: a copy, unless the elements are mapped (the
  // middle-axis kernels map them over a length-1 axis).
  const bool mapped =
      f != ReduceFn::kSum && f != ReduceFn::kMax && f != ReduceFn::kMin && f != ReduceFn::kProd;
  if (first < 0 && !mapped) return CopyOnStream(ctx, in, out);
  if (first < 0) {
    first = 0;
    last = -1;
    contiguous = true;
  }
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

// grad (input shape) from ograd (reduced); the kinds past kMean also read
// (data, out).
template <GradKind K>
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
  if constexpr (K != GradKind::kSum && K != GradKind::kMean) {
    SYMX_CUDA_LAUNCH(ctx, LaunchReduceGrad(GradFnOf(K), t, ctx.inputs[1].read_raw_data(),
                                           ctx.inputs[2].read_raw_data(), ograd.read_raw_data(), d,
                                           grad.raw_data(), grad.size(), device->stream()));
    return absl::OkStatus();
  }
  SYMX_CUDA_LAUNCH(ctx, LaunchStridedCopy(DTypeSize(grad.dtype()), ograd.read_raw_data(),
                                          grad.raw_data(), d, grad.size(), device->stream()));
  if constexpr (K == GradKind::kMean) {
    SYMX_CUDA_LAUNCH(ctx, LaunchScalar(ScalarFn::kMul, t, grad.read_raw_data(),
                                       1.0 / static_cast<double>(plan.count), grad.raw_data(),
                                       grad.size(), device->stream()));
  }
  return absl::OkStatus();
}

// The GPU norm and moments keep one dtype: norm's out_dtype other than the
// input's is refused by name (the CPU kernel converts).
absl::Status SameDTypes(const KernelContext& ctx) {
  const DType t = ctx.inputs[0].dtype();
  for (const std::vector<Tensor>* v : {&ctx.inputs, &ctx.outputs}) {
    for (const Tensor& x : *v) {
      if (x.dtype() != t) {
        return absl::UnimplementedError(absl::StrCat(ctx.Where(), ": ", DTypeName(t), " and ",
                                                     DTypeName(x.dtype()),
                                                     " (norm's out_dtype other than the input's "
                                                     "dtype) are not implemented on the GPU"));
      }
    }
  }
  return absl::OkStatus();
}

absl::Status NormForward(const KernelContext& ctx) {
  SYMX_RETURN_IF_ERROR(SameDTypes(ctx));
  return ctx.param<NormParam>().ord == 1 ? ReduceForward<Kind::kNorm1>(ctx)
                                         : ReduceForward<Kind::kNorm2>(ctx);
}

absl::Status NormBackward(const KernelContext& ctx) {
  SYMX_RETURN_IF_ERROR(SameDTypes(ctx));
  return ctx.param<NormParam>().ord == 1 ? ReduceBackward<GradKind::kNorm1>(ctx)
                                         : ReduceBackward<GradKind::kNorm2>(ctx);
}

absl::Status MomentsForward(const KernelContext& ctx) {
  SYMX_RETURN_IF_ERROR(SameDTypes(ctx));
  SYMX_RETURN_IF_ERROR(ReduceForward<Kind::kMean>(ctx));
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& in = ctx.inputs[0];
  const Tensor& var = ctx.outputs[1];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, in.dtype()));
  SYMX_ASSIGN_OR_RETURN(ReducePlan plan, PlanFor(ctx, in.shape()));
  if (var.size() == 0) return absl::OkStatus();
  if (plan.count == 0) {
    SYMX_CUDA_LAUNCH(ctx, LaunchFill(t, std::numeric_limits<double>::quiet_NaN(), var.raw_data(),
                                     var.size(), device->stream()));
    return absl::OkStatus();
  }
  StridedDims kept, reduced;
  SplitAxes(in.shape(), plan.reduced, &kept, &reduced);
  SYMX_CUDA_LAUNCH(ctx, LaunchVarianceStrided(t, in.read_raw_data(), ctx.outputs[0].read_raw_data(),
                                              kept, reduced, 1.0 / static_cast<double>(plan.count),
                                              var.raw_data(), var.size(), device->stream()));
  return absl::OkStatus();
}

absl::Status MomentsBackward(const KernelContext& ctx) {
  SYMX_RETURN_IF_ERROR(SameDTypes(ctx));
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& grad = ctx.outputs[0];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, grad.dtype()));
  SYMX_ASSIGN_OR_RETURN(ReducePlan plan, PlanFor(ctx, grad.shape()));
  if (grad.size() == 0) return absl::OkStatus();
  for (int k : {0, 1, 3}) {
    if (grad.size() / plan.count != ctx.inputs[k].size()) {
      return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": ", ctx.inputs[k].DebugString(),
                                                     " does not match ", grad.DebugString()));
    }
  }
  const StridedDims d = BroadcastBack(grad.shape(), plan.reduced);
  SYMX_CUDA_LAUNCH(
      ctx, LaunchMomentsGrad(t, ctx.inputs[0].read_raw_data(), ctx.inputs[1].read_raw_data(),
                             ctx.inputs[2].read_raw_data(), ctx.inputs[3].read_raw_data(), d,
                             1.0 / static_cast<double>(plan.count), grad.raw_data(), grad.size(),
                             device->stream()));
  return absl::OkStatus();
}

}  // namespace

SYMX_REGISTER_KERNEL("moments", kGPU, MomentsForward);
SYMX_REGISTER_KERNEL("_backward_moments", kGPU, MomentsBackward);
SYMX_REGISTER_KERNEL("norm", kGPU, NormForward);
SYMX_REGISTER_KERNEL("_backward_norm", kGPU, NormBackward);
SYMX_REGISTER_KERNEL("sum", kGPU, ReduceForward<Kind::kSum>);
SYMX_REGISTER_KERNEL("mean", kGPU, ReduceForward<Kind::kMean>);
SYMX_REGISTER_KERNEL("max", kGPU, ReduceForward<Kind::kMax>);
SYMX_REGISTER_KERNEL("min", kGPU, ReduceForward<Kind::kMin>);
SYMX_REGISTER_KERNEL("prod", kGPU, ReduceForward<Kind::kProd>);
SYMX_REGISTER_KERNEL("nansum", kGPU, ReduceForward<Kind::kNanSum>);
SYMX_REGISTER_KERNEL("nanprod", kGPU, ReduceForward<Kind::kNanProd>);
SYMX_REGISTER_KERNEL("_backward_sum", kGPU, ReduceBackward<GradKind::kSum>);
SYMX_REGISTER_KERNEL("_backward_mean", kGPU, ReduceBackward<GradKind::kMean>);
SYMX_REGISTER_KERNEL("_backward_max", kGPU, ReduceBackward<GradKind::kEqual>);
SYMX_REGISTER_KERNEL("_backward_min", kGPU, ReduceBackward<GradKind::kEqual>);
SYMX_REGISTER_KERNEL("_backward_prod", kGPU, ReduceBackward<GradKind::kProd>);
SYMX_REGISTER_KERNEL("_backward_nansum", kGPU, ReduceBackward<GradKind::kNanSum>);
SYMX_REGISTER_KERNEL("_backward_nanprod", kGPU, ReduceBackward<GradKind::kNanProd>);

}  // namespace cuda

}  // namespace symx
