// CUDA kernels of the reduce family (graph/ops/reduce.cc): max, mean, sum, with
// their backward ops.
//
// Reductions over any axes are strided reductions (devices/cuda/strided.cu)
// or middle-axis ones (reduce.cu); max's gradient goes to every tied position.
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

enum class Kind { kSum, kMean, kMax };

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
                                              ctx.inputs[2].read_raw_data(), ograd.read_raw_data(),
                                              d, grad.raw_data(), grad.size(), device->stream()));
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

}  // namespace

SYMX_REGISTER_KERNEL("sum", kGPU, ReduceForward<Kind::kSum>);
SYMX_REGISTER_KERNEL("mean", kGPU, ReduceForward<Kind::kMean>);
SYMX_REGISTER_KERNEL("max", kGPU, ReduceForward<Kind::kMax>);
SYMX_REGISTER_KERNEL("_backward_sum", kGPU, ReduceBackward<Kind::kSum>);
SYMX_REGISTER_KERNEL("_backward_mean", kGPU, ReduceBackward<Kind::kMean>);
SYMX_REGISTER_KERNEL("_backward_max", kGPU, ReduceBackward<Kind::kMax>);

}  // namespace cuda

}  // namespace symx
