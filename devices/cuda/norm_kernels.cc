// CUDA kernels of the norm family (graph/ops/norm.cc): BatchNorm (and BatchNorm_v1,
// _contrib_SyncBatchNorm, _contrib_BatchNormWithReLU), GroupNorm,
// InstanceNorm, L2Normalization, LayerNorm, with their backward ops.
//
// CUDA kernels of LayerNorm, InstanceNorm, GroupNorm and L2Normalization (and
// their backwards), over devices/geometry/axis_layout.h's views, shared with the CPU.
#include <string>

#include "absl/strings/str_cat.h"
#include "devices/cuda/elemwise_launch.h"
#include "devices/cuda/kernel_util.h"
#include "devices/cuda/norm_launch.h"
#include "devices/geometry/axis_layout.h"
#include "devices/geometry/pool_geom.h"
#include "devices/kernel.h"
#include "graph/infer_util.h"
#include "graph/ops/norm.h"

namespace symx {
namespace cuda {
namespace {

// The data as (outer, channels, inner) around BatchNorm's axis, and inputs
// [first, last) holding one value per channel in the data's dtype.
absl::StatusOr<BatchNormDims> BatchNormView(const KernelContext& ctx, const Tensor& data, int first,
                                            int last) {
  const auto& p = ctx.param<BatchNormParam>();
  const Shape& s = data.shape();
  const int nd = s.ndim();
  const int64_t axis = p.axis < 0 ? p.axis + nd : p.axis;
  if (nd < 1 || axis < 0 || axis >= nd) {
    return absl::InvalidArgumentError(
        absl::StrCat(ctx.Where(), ": axis ", p.axis, " is out of range for data ", s.ToString()));
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
  SYMX_CUDA_LAUNCH(
      ctx, LaunchBatchNormForward(
               t, x.read_raw_data(), ctx.inputs[1].read_raw_data(), ctx.inputs[2].read_raw_data(),
               ctx.inputs[3].raw_data(), ctx.inputs[4].raw_data(), ctx.outputs[0].raw_data(),
               ctx.outputs[1].raw_data(), ctx.outputs[2].raw_data(), d, p.eps, p.momentum,
               p.fix_gamma, ctx.is_train && !p.use_global_stats, device->stream()));
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
  SYMX_CUDA_LAUNCH(
      ctx, LaunchBatchNormBackward(t, ctx.inputs[0].read_raw_data(), x.read_raw_data(),
                                   ctx.inputs[2].read_raw_data(), ctx.inputs[4].read_raw_data(),
                                   ctx.inputs[5].read_raw_data(), wanted(0), wanted(1), wanted(2),
                                   d, p.eps, p.fix_gamma, ctx.is_train && !p.use_global_stats,
                                   device->stream()));
  return absl::OkStatus();
}

// _contrib_SyncBatchNorm: statistics over the job's replicas when it syncs
// (devices/cuda/sync_batch_norm.h), else BatchNorm.
absl::Status SyncBatchNorm(const KernelContext& ctx) {
  if (SyncsOverReplicas(ctx)) return SyncBatchNormOverReplicas(ctx);
  return BatchNorm(ctx);
}

absl::Status SyncBatchNormBackward(const KernelContext& ctx) {
  if (SyncsOverReplicas(ctx)) return SyncBatchNormBackwardOverReplicas(ctx);
  return BatchNormBackward(ctx);
}

// _contrib_BatchNormWithReLU: BatchNorm, then relu in place.
absl::Status BatchNormRelu(const KernelContext& ctx) {
  SYMX_RETURN_IF_ERROR(BatchNorm(ctx));
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& y = ctx.outputs[0];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, y.dtype()));
  SYMX_CUDA_LAUNCH(
      ctx, LaunchUnary(UnaryFn::kRelu, t, y.raw_data(), y.raw_data(), y.size(), device->stream()));
  return absl::OkStatus();
}

}  // namespace

SYMX_REGISTER_KERNEL("BatchNorm", kGPU, BatchNorm);
SYMX_REGISTER_KERNEL("_backward_BatchNorm", kGPU, BatchNormBackward);
SYMX_REGISTER_KERNEL("BatchNorm_v1", kGPU, BatchNorm);
SYMX_REGISTER_KERNEL("_contrib_SyncBatchNorm", kGPU, SyncBatchNorm);
SYMX_REGISTER_KERNEL("_backward_SyncBatchNorm", kGPU, SyncBatchNormBackward);
SYMX_REGISTER_KERNEL("_contrib_BatchNormWithReLU", kGPU, BatchNormRelu);

}  // namespace cuda

namespace cuda {
namespace {

// Every tensor of the step in the data's dtype, and the ones named with the
// element counts the view implies.
absl::Status CheckTensors(const KernelContext& ctx, DType dtype,
                          std::initializer_list<std::pair<const Tensor*, int64_t>> sized) {
  for (const auto& [t, size] : sized) {
    if (t->dtype() != dtype) return UnsupportedDType(ctx, t->dtype());
    if (t->size() != size) {
      return absl::InvalidArgumentError(
          absl::StrCat(ctx.Where(), ": ", t->DebugString(), " should hold ", size, " values"));
    }
  }
  return absl::OkStatus();
}

ColumnNormDims DimsOf(const AxisLayout& l, int64_t groups) {
  ColumnNormDims d;
  d.columns = l.columns();
  d.n = l.n;
  d.inner = l.inner;
  d.groups = groups;
  return d;
}

void* Wanted(const KernelContext& ctx, size_t j) {
  return OutputWanted(ctx.req, j) && ctx.outputs[j].defined() ? ctx.outputs[j].raw_data() : nullptr;
}

// Inputs: data, gamma, beta. Outputs: out, mean, std.
absl::Status LayerNorm(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const auto& p = ctx.param<LayerNormParam>();
  const Tensor& x = ctx.inputs[0];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, x.dtype()));
  SYMX_ASSIGN_OR_RETURN(AxisLayout l, LayoutAlong(ctx, x.shape(), p.axis));
  SYMX_RETURN_IF_ERROR(CheckTensors(ctx, x.dtype(),
                                    {{&ctx.inputs[1], l.n},
                                     {&ctx.inputs[2], l.n},
                                     {&ctx.outputs[0], x.size()},
                                     {&ctx.outputs[1], l.columns()},
                                     {&ctx.outputs[2], l.columns()}}));
  SYMX_CUDA_LAUNCH(
      ctx, LaunchColumnNormForward(
               ColumnNormFn::kLayer, t, x.read_raw_data(), ctx.inputs[1].read_raw_data(),
               ctx.inputs[2].read_raw_data(), ctx.outputs[0].raw_data(), ctx.outputs[1].raw_data(),
               ctx.outputs[2].raw_data(), DimsOf(l, 1), p.eps, device->stream()));
  return absl::OkStatus();
}

// Inputs: ograd, data, gamma, mean, std. Outputs: grad data, gamma, beta.
absl::Status LayerNormBackward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const auto& p = ctx.param<LayerNormParam>();
  const Tensor& x = ctx.inputs[1];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, x.dtype()));
  SYMX_ASSIGN_OR_RETURN(AxisLayout l, LayoutAlong(ctx, x.shape(), p.axis));
  SYMX_RETURN_IF_ERROR(CheckTensors(ctx, x.dtype(),
                                    {{&ctx.inputs[0], x.size()},
                                     {&ctx.inputs[2], l.n},
                                     {&ctx.inputs[3], l.columns()},
                                     {&ctx.inputs[4], l.columns()},
                                     {&ctx.outputs[0], x.size()},
                                     {&ctx.outputs[1], l.n},
                                     {&ctx.outputs[2], l.n}}));
  SYMX_CUDA_LAUNCH(
      ctx, LaunchColumnNormBackward(ColumnNormFn::kLayer, t, ctx.inputs[0].read_raw_data(),
                                    x.read_raw_data(), ctx.inputs[2].read_raw_data(),
                                    ctx.inputs[3].read_raw_data(), ctx.inputs[4].read_raw_data(),
                                    Wanted(ctx, 0), Wanted(ctx, 1), Wanted(ctx, 2), DimsOf(l, 1),
                                    p.eps, device->stream()));
  return absl::OkStatus();
}

// InstanceNorm (kInstance: G = C, second statistic var) or GroupNorm (G =
// num_groups, second statistic std).
template <bool kInstance>
struct Grouped {
  static int64_t Groups(const KernelContext& ctx) {
    return kInstance ? -1 : ctx.param<GroupNormParam>().num_groups;
  }
  static double Eps(const KernelContext& ctx) {
    return kInstance ? ctx.param<InstanceNormParam>().eps : ctx.param<GroupNormParam>().eps;
  }
  static constexpr ColumnNormFn kFn = kInstance ? ColumnNormFn::kGroupVar : ColumnNormFn::kGroupStd;

  // Inputs: data, gamma, beta. Outputs: out, mean, var/std.
  static absl::Status Forward(const KernelContext& ctx) {
    SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
    const Tensor& x = ctx.inputs[0];
    SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, x.dtype()));
    int64_t groups = 0;
    SYMX_ASSIGN_OR_RETURN(AxisLayout l, GroupNormLayout(ctx, x.shape(), Groups(ctx), &groups));
    SYMX_RETURN_IF_ERROR(CheckTensors(ctx, x.dtype(),
                                      {{&ctx.inputs[1], groups},
                                       {&ctx.inputs[2], groups},
                                       {&ctx.outputs[0], x.size()},
                                       {&ctx.outputs[1], l.columns()},
                                       {&ctx.outputs[2], l.columns()}}));
    SYMX_CUDA_LAUNCH(
        ctx, LaunchColumnNormForward(kFn, t, x.read_raw_data(), ctx.inputs[1].read_raw_data(),
                                     ctx.inputs[2].read_raw_data(), ctx.outputs[0].raw_data(),
                                     ctx.outputs[1].raw_data(), ctx.outputs[2].raw_data(),
                                     DimsOf(l, groups), Eps(ctx), device->stream()));
    return absl::OkStatus();
  }

  // Inputs: ograd, data, gamma, mean, var/std. Outputs: grad data, gamma, beta.
  static absl::Status Backward(const KernelContext& ctx) {
    SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
    const Tensor& x = ctx.inputs[1];
    SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, x.dtype()));
    int64_t groups = 0;
    SYMX_ASSIGN_OR_RETURN(AxisLayout l, GroupNormLayout(ctx, x.shape(), Groups(ctx), &groups));
    SYMX_RETURN_IF_ERROR(CheckTensors(ctx, x.dtype(),
                                      {{&ctx.inputs[0], x.size()},
                                       {&ctx.inputs[2], groups},
                                       {&ctx.inputs[3], l.columns()},
                                       {&ctx.inputs[4], l.columns()},
                                       {&ctx.outputs[0], x.size()},
                                       {&ctx.outputs[1], groups},
                                       {&ctx.outputs[2], groups}}));
    SYMX_CUDA_LAUNCH(ctx, LaunchColumnNormBackward(
                              kFn, t, ctx.inputs[0].read_raw_data(), x.read_raw_data(),
                              ctx.inputs[2].read_raw_data(), ctx.inputs[3].read_raw_data(),
                              ctx.inputs[4].read_raw_data(), Wanted(ctx, 0), Wanted(ctx, 1),
                              Wanted(ctx, 2), DimsOf(l, groups), Eps(ctx), device->stream()));
    return absl::OkStatus();
  }
};

// Inputs: data. Outputs: out, norm.
absl::Status L2Normalization(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& x = ctx.inputs[0];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, x.dtype()));
  SYMX_ASSIGN_OR_RETURN(AxisLayout l, L2NormalizationLayout(ctx, x.shape()));
  SYMX_RETURN_IF_ERROR(
      CheckTensors(ctx, x.dtype(), {{&ctx.outputs[0], x.size()}, {&ctx.outputs[1], l.columns()}}));
  SYMX_CUDA_LAUNCH(ctx, LaunchColumnNormForward(
                            ColumnNormFn::kL2, t, x.read_raw_data(), nullptr, nullptr,
                            ctx.outputs[0].raw_data(), ctx.outputs[1].raw_data(), nullptr,
                            DimsOf(l, 1), ctx.param<L2NormalizationParam>().eps, device->stream()));
  return absl::OkStatus();
}

// Inputs: ograd, output, norm. Output: grad data.
absl::Status L2NormalizationBackward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& gx = ctx.outputs[0];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, gx.dtype()));
  SYMX_ASSIGN_OR_RETURN(AxisLayout l, L2NormalizationLayout(ctx, gx.shape()));
  SYMX_RETURN_IF_ERROR(CheckTensors(
      ctx, gx.dtype(),
      {{&ctx.inputs[0], gx.size()}, {&ctx.inputs[1], gx.size()}, {&ctx.inputs[2], l.columns()}}));
  SYMX_CUDA_LAUNCH(
      ctx, LaunchColumnNormBackward(
               ColumnNormFn::kL2, t, ctx.inputs[0].read_raw_data(), ctx.inputs[1].read_raw_data(),
               nullptr, ctx.inputs[2].read_raw_data(), nullptr, gx.raw_data(), nullptr, nullptr,
               DimsOf(l, 1), ctx.param<L2NormalizationParam>().eps, device->stream()));
  return absl::OkStatus();
}

}  // namespace

SYMX_REGISTER_KERNEL("LayerNorm", kGPU, LayerNorm);
SYMX_REGISTER_KERNEL("_backward_LayerNorm", kGPU, LayerNormBackward);
SYMX_REGISTER_KERNEL("InstanceNorm", kGPU, Grouped<true>::Forward);
SYMX_REGISTER_KERNEL("_backward_InstanceNorm", kGPU, Grouped<true>::Backward);
SYMX_REGISTER_KERNEL("GroupNorm", kGPU, Grouped<false>::Forward);
SYMX_REGISTER_KERNEL("_backward_GroupNorm", kGPU, Grouped<false>::Backward);
SYMX_REGISTER_KERNEL("L2Normalization", kGPU, L2Normalization);
SYMX_REGISTER_KERNEL("_backward_L2Normalization", kGPU, L2NormalizationBackward);

}  // namespace cuda

}  // namespace symx
