// CUDA kernels of the norm family (graph/ops/norm.cc): BatchNorm (and BatchNorm_v1,
// _contrib_SyncBatchNorm, _contrib_BatchNormWithReLU), GroupNorm,
// InstanceNorm, L2Normalization, LayerNorm, with their backward ops.
//
// CUDA kernels of LayerNorm, InstanceNorm, GroupNorm and L2Normalization (and
// their backwards), over devices/geometry/axis_layout.h's views, shared with the CPU.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/cuda/elemwise_launch.h"
#include "devices/cuda/kernel_util.h"
#include "devices/cuda/norm_launch.h"
#include "devices/geometry/axis_layout.h"
#include "devices/geometry/pool_geom.h"
#include "devices/geometry/sync_batch_norm.h"
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

// ---------------------------------------------------------------- SyncBatchNorm over replicas

// Device doubles per channel: the sums (2), the combine's coefficients (3) and
// the center (1).
size_t SyncBatchNormWorkspace(const NodeAttrs&, const std::vector<Shape>& in,
                              const std::vector<Shape>&, DType) {
  const size_t gamma = in.size() == 5 ? 1 : 2;  // forward or backward inputs
  return gamma < in.size() ? 6 * sizeof(double) * static_cast<size_t>(in[gamma].Size()) : 0;
}

// A per-channel input (gamma, statistics) in double on the host.
absl::StatusOr<std::vector<double>> HostValues(const Tensor& t) {
  SYMX_ASSIGN_OR_RETURN(Tensor host, CopyToNew(t, Context::CPU(), DType::kFloat64));
  return host.ToDoubles();
}

// Per-channel values into `dst` (a device tensor of its own dtype).
absl::Status StoreValues(const std::vector<double>& v, const Tensor& dst) {
  return CopyTensor(Tensor::FromVector(dst.shape(), v, dst.dtype()), dst);
}

// The job's sums of this replica's per-channel sums (LaunchChannelSums into
// `sums`, then to the host).
absl::StatusOr<std::vector<double>> ChannelSums(const KernelContext& ctx, CudaDevice* device,
                                                Elem t, const Tensor& x, const Tensor* dy,
                                                const double* center, const BatchNormDims& d,
                                                double* sums) {
  SYMX_CUDA_LAUNCH(
      ctx, LaunchChannelSums(t, x.read_raw_data(), dy != nullptr ? dy->read_raw_data() : nullptr,
                             center, d, sums, device->stream()));
  std::vector<double> host(static_cast<size_t>(d.channels) * (dy != nullptr ? 2 : 1));
  SYMX_RETURN_IF_ERROR(device->CopyToHost(sums, host.data(), host.size() * sizeof(double)));
  return host;
}

// Inputs: data, gamma, beta, moving_mean, moving_var. Outputs: out, mean, var.
absl::Status SyncBatchNormOverReplicas(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const auto& p = ctx.param<SyncBatchNormParam>();
  const Tensor& x = ctx.inputs[0];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, x.dtype()));
  SYMX_ASSIGN_OR_RETURN(BatchNormDims d, BatchNormView(ctx, x, 1, 5));
  const size_t c = static_cast<size_t>(d.channels);
  double* sums = static_cast<double*>(ctx.workspace.raw_data());
  double* coef = sums + 2 * c;
  double* center = coef + 3 * c;
  double count = static_cast<double>(d.outer * d.inner);
  SYMX_ASSIGN_OR_RETURN(std::vector<double> local,
                        ChannelSums(ctx, device, t, x, nullptr, nullptr, d, sums));
  SYMX_ASSIGN_OR_RETURN(std::vector<double> mean, JobMean(ctx, local, &count));
  SYMX_RETURN_IF_ERROR(device->CopyFromHost(mean.data(), center, c * sizeof(double)));
  SYMX_ASSIGN_OR_RETURN(local, ChannelSums(ctx, device, t, x, nullptr, center, d, sums));
  SYMX_ASSIGN_OR_RETURN(std::vector<double> var, JobVariance(ctx, local, count));
  SYMX_ASSIGN_OR_RETURN(std::vector<double> gamma, HostValues(ctx.inputs[1]));
  SYMX_ASSIGN_OR_RETURN(std::vector<double> beta, HostValues(ctx.inputs[2]));
  SYMX_ASSIGN_OR_RETURN(std::vector<double> moving_mean, HostValues(ctx.inputs[3]));
  SYMX_ASSIGN_OR_RETURN(std::vector<double> moving_var, HostValues(ctx.inputs[4]));
  std::vector<double> k(3 * c, 0.0);
  for (size_t i = 0; i < c; ++i) {
    const double scale = (p.fix_gamma ? 1.0 : gamma[i]) * SyncInvStd(var[i], p.eps);
    k[i] = scale;
    k[2 * c + i] = beta[i] - mean[i] * scale;
    if (count > 0) {
      moving_mean[i] = moving_mean[i] * p.momentum + mean[i] * (1 - p.momentum);
      moving_var[i] = moving_var[i] * p.momentum + var[i] * (1 - p.momentum);
    }
  }
  SYMX_RETURN_IF_ERROR(device->CopyFromHost(k.data(), coef, k.size() * sizeof(double)));
  SYMX_CUDA_LAUNCH(ctx, LaunchChannelCombine(t, x.read_raw_data(), nullptr, coef, d,
                                             ctx.outputs[0].raw_data(), device->stream()));
  SYMX_RETURN_IF_ERROR(StoreValues(mean, ctx.outputs[1]));
  SYMX_RETURN_IF_ERROR(StoreValues(var, ctx.outputs[2]));
  SYMX_RETURN_IF_ERROR(StoreValues(moving_mean, ctx.inputs[3]));
  return StoreValues(moving_var, ctx.inputs[4]);
}

// Inputs: ograd, data, gamma, beta, mean, var, moving_mean, moving_var.
// Outputs: data gradient (the job's sums), gamma and beta gradients (this
// replica's).
absl::Status SyncBatchNormBackwardOverReplicas(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const auto& p = ctx.param<SyncBatchNormParam>();
  const Tensor& dy = ctx.inputs[0];
  const Tensor& x = ctx.inputs[1];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, x.dtype()));
  SYMX_ASSIGN_OR_RETURN(BatchNormDims d, BatchNormView(ctx, x, 2, 6));
  const size_t c = static_cast<size_t>(d.channels);
  double* sums = static_cast<double*>(ctx.workspace.raw_data());
  double* coef = sums + 2 * c;
  double* center = coef + 3 * c;
  SYMX_ASSIGN_OR_RETURN(std::vector<double> gamma, HostValues(ctx.inputs[2]));
  SYMX_ASSIGN_OR_RETURN(std::vector<double> mean, HostValues(ctx.inputs[4]));
  SYMX_ASSIGN_OR_RETURN(std::vector<double> var, HostValues(ctx.inputs[5]));
  SYMX_RETURN_IF_ERROR(device->CopyFromHost(mean.data(), center, c * sizeof(double)));
  SYMX_ASSIGN_OR_RETURN(std::vector<double> local,
                        ChannelSums(ctx, device, t, x, &dy, center, d, sums));
  double count = static_cast<double>(d.outer * d.inner);
  SYMX_ASSIGN_OR_RETURN(std::vector<double> job, JobGradientSums(ctx, local, &count));
  std::vector<double> dgamma(c), dbeta(c), k(3 * c);
  for (size_t i = 0; i < c; ++i) {
    dgamma[i] = p.fix_gamma ? 0.0 : local[c + i] * SyncInvStd(var[i], p.eps);
    dbeta[i] = local[i];
    // dx = scale (dy - mean_dy - (x - mean) slope) as k0 dy + k1 x + k2.
    const SyncDataGradient g =
        SyncDataGradientOf(gamma[i], p.fix_gamma, var[i], p.eps, job[i], job[c + i], count);
    k[i] = g.scale;
    k[c + i] = -g.scale * g.slope;
    k[2 * c + i] = g.scale * (mean[i] * g.slope - g.mean_dy);
  }
  if (OutputWanted(ctx.req, 1) && ctx.outputs[1].defined()) {
    SYMX_RETURN_IF_ERROR(StoreValues(dgamma, ctx.outputs[1]));
  }
  if (OutputWanted(ctx.req, 2) && ctx.outputs[2].defined()) {
    SYMX_RETURN_IF_ERROR(StoreValues(dbeta, ctx.outputs[2]));
  }
  if (!OutputWanted(ctx.req, 0) || !ctx.outputs[0].defined()) return absl::OkStatus();
  SYMX_RETURN_IF_ERROR(device->CopyFromHost(k.data(), coef, k.size() * sizeof(double)));
  SYMX_CUDA_LAUNCH(ctx, LaunchChannelCombine(t, dy.read_raw_data(), x.read_raw_data(), coef, d,
                                             ctx.outputs[0].raw_data(), device->stream()));
  return absl::OkStatus();
}

// _contrib_SyncBatchNorm: statistics over the job's replicas when it syncs
// (devices/geometry/sync_batch_norm.h), else BatchNorm.
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
SYMX_REGISTER_KERNEL("_contrib_SyncBatchNorm", kGPU, .fn = SyncBatchNorm,
                     .workspace = SyncBatchNormWorkspace);
SYMX_REGISTER_KERNEL("_backward_SyncBatchNorm", kGPU, .fn = SyncBatchNormBackward,
                     .workspace = SyncBatchNormWorkspace);
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
