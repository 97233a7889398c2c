// CUDA kernels of the contributed optimizer family (graph/ops/optimizer_contrib.cc):
// the same operand checks and element rules as the CPU kernels
// (devices/cpu/optimizer_contrib_kernels.cc, devices/geometry/update_rules_contrib.h).
// multi_sum_sq squares each element in float, as MXNet's GPU kernel does (its
// CPU kernel squares in the array's dtype), and sums in another order.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/cuda/kernel_util.h"
#include "devices/cuda/optimizer_contrib_launch.h"
#include "devices/geometry/update_operands.h"
#include "devices/geometry/update_rules_contrib.h"
#include "devices/geometry/update_scalars_contrib.h"
#include "graph/op.h"
#include "graph/ops/optimizer_contrib.h"

namespace symx {
namespace cuda {
namespace {

absl::Status SameDTypes(const KernelContext& ctx) {
  for (size_t i = 1; i < ctx.inputs.size(); ++i) {
    if (ctx.inputs[i].dtype() != ctx.inputs[0].dtype()) {
      return Fail(
          ctx, absl::StrCat("input ", i, " is ", DTypeName(ctx.inputs[i].dtype()), ", array 0 is ",
                            DTypeName(ctx.inputs[0].dtype()), ": the arrays must share a dtype"));
    }
  }
  return absl::OkStatus();
}

// float16, float32 or float64 (the CPU kernels' types), else the
// unsupported-dtype error.
absl::StatusOr<Elem> UpdateElem(const KernelContext& ctx, DType t) {
  if (t != DType::kFloat32 && t != DType::kFloat64 && t != DType::kFloat16) {
    return UnsupportedDType(ctx, t);
  }
  return FloatElem(ctx, t);
}

absl::Status MultiSumSq(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  SYMX_RETURN_IF_ERROR(SameDTypes(ctx));
  SYMX_ASSIGN_OR_RETURN(Elem elem, UpdateElem(ctx, ctx.inputs[0].dtype()));
  const Tensor& out = ctx.outputs[0];
  const int64_t n = static_cast<int64_t>(ctx.inputs.size());
  if (out.size() != n || out.dtype() != DType::kFloat32) {
    return Fail(ctx, absl::StrCat("output ", out.DebugString(), " should be ", n, " float32"));
  }
  for (int64_t k = 0; k < n; ++k) {
    const Tensor& x = ctx.inputs[k];
    SYMX_CUDA_LAUNCH(ctx, LaunchSumSq(elem, x.read_raw_data(), x.size(), out.data<float>() + k,
                                      device->stream()));
  }
  return absl::OkStatus();
}

absl::Status MultiLars(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  SYMX_RETURN_IF_ERROR(CheckLarsOperands(ctx));
  const Tensor& out = ctx.outputs[0];
  const LarsParam& p = ctx.param<LarsParam>();
  SYMX_CUDA_LAUNCH(
      ctx,
      LaunchLars(ctx.inputs[0].read_data<float>(), ctx.inputs[1].read_data<float>(),
                 ctx.inputs[2].read_data<float>(), ctx.inputs[3].read_data<float>(),
                 out.data<float>(), out.size(), p.eta, p.eps, p.rescale_grad, device->stream()));
  return absl::OkStatus();
}

absl::Status AllFinite(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& out = ctx.outputs[0];
  if (out.size() != 1 || out.dtype() != DType::kFloat32) {
    return Fail(ctx, absl::StrCat("output ", out.DebugString(), " should be one float32"));
  }
  SYMX_RETURN_IF_ERROR(SameDTypes(ctx));
  SYMX_ASSIGN_OR_RETURN(Elem elem, UpdateElem(ctx, ctx.inputs[0].dtype()));
  float* flag = out.data<float>();
  if (ctx.param<ArrayListParam>().init_output) {
    SYMX_CUDA_LAUNCH(ctx, LaunchSetFlag(flag, 1.0f, device->stream()));
  }
  for (const Tensor& x : ctx.inputs) {
    SYMX_CUDA_LAUNCH(
        ctx, LaunchClearFlagIfNotFinite(elem, x.read_raw_data(), x.size(), flag, device->stream()));
  }
  return absl::OkStatus();
}

absl::Status ResetArrays(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  for (const Tensor& t : ctx.inputs) {
    if (t.nbytes() == 0) continue;
    SYMX_CUDA_LAUNCH(ctx, cudaMemsetAsync(t.raw_data(), 0, t.nbytes(), device->stream()));
  }
  return absl::OkStatus();
}

absl::StatusOr<Elem> RescaleElem(const KernelContext& ctx, const Tensor& t) {
  if (t.size() < 1) return Fail(ctx, "rescale_grad is empty: its first element is the scale");
  return UpdateElem(ctx, t.dtype());
}

// The kernel reads rescale_grad[0] on the device and returns at once when the
// step is skipped, so no host round trip is needed (MXNet copies it back).
template <bool kMixed>
absl::Status AdamW(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const size_t count = kMixed ? 5 : 4;
  const Tensor& weight = ctx.inputs[0];
  SYMX_RETURN_IF_ERROR(
      CheckUpdateOperands(ctx, 0, count, kMixed ? 2 : count, ctx.outputs[0], weight.dtype()));
  SYMX_ASSIGN_OR_RETURN(Elem elem, UpdateElem(ctx, weight.dtype()));
  SYMX_ASSIGN_OR_RETURN(Elem rescale_t, RescaleElem(ctx, ctx.inputs[count]));
  AdamWOperands u;
  u.weight = weight.read_raw_data();
  u.grad = ctx.inputs[1].read_raw_data();
  u.mean = ctx.inputs[2].raw_data();
  u.var = ctx.inputs[3].raw_data();
  if (kMixed) u.master = ctx.inputs[4].data<float>();
  u.out = ctx.outputs[0].raw_data();
  u.rescale = ctx.inputs[count].read_raw_data();
  u.rescale_t = rescale_t;
  u.n = weight.size();
  const AdamWParam& p = ctx.param<AdamWParam>();
  SYMX_CUDA_LAUNCH(ctx, LaunchAdamW(elem, u, AdamWScalarsOf<float>(p), AdamWScalarsOf<double>(p),
                                    device->stream()));
  return absl::OkStatus();
}

absl::Status GroupAdagrad(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& weight = ctx.inputs[0];
  const DType t = weight.dtype();
  if (weight.shape().ndim() < 1) return Fail(ctx, "the weight must have at least one dimension");
  GroupAdagradOperands u;
  u.rows = weight.shape()[0];
  u.cols = u.rows > 0 ? weight.size() / u.rows : 0;
  for (size_t i = 0; i < 3; ++i) {
    const Tensor& in = ctx.inputs[i];
    const int64_t want = i == 2 ? u.rows : weight.size();
    if (in.size() != want || in.dtype() != t) {
      const char* names[] = {"weight", "grad", "history"};
      return Fail(ctx, absl::StrCat("input ", names[i], " ", in.DebugString(), " should be ", want,
                                    " ", DTypeName(t), " values", i == 2 ? " (one per row)" : ""));
    }
  }
  const Tensor& out = ctx.outputs[0];
  if (out.size() != weight.size() || out.dtype() != t) {
    return Fail(ctx, absl::StrCat("output ", out.DebugString(), " should be the weight's"));
  }
  SYMX_ASSIGN_OR_RETURN(Elem elem, UpdateElem(ctx, t));
  const GroupAdagradParam& p = ctx.param<GroupAdagradParam>();
  u.weight = weight.read_raw_data();
  u.grad = ctx.inputs[1].read_raw_data();
  u.history = ctx.inputs[2].raw_data();
  u.out = out.raw_data();
  u.lr = p.lr;
  u.rescale_grad = p.rescale_grad;
  u.clip_gradient = p.clip_gradient;
  u.epsilon = p.epsilon;
  SYMX_CUDA_LAUNCH(ctx, LaunchGroupAdagrad(elem, u, device->stream()));
  return absl::OkStatus();
}

// As the CPU kernel: rates converted, not copied byte for byte (MXNet's
// float16/float64 bug); one launch per weight.
template <bool kMixed>
absl::Status MultiAdamW(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const AdamWParam& p = ctx.param<AdamWParam>();
  const int64_t n = p.num_weights;
  const int stride = kMixed ? 5 : 4;
  SYMX_RETURN_IF_ERROR(CheckMultiUpdateOperands(ctx, n, kMixed ? 5 : 4, kMixed ? 2 : 4, 1));
  SYMX_ASSIGN_OR_RETURN(Elem elem, UpdateElem(ctx, ctx.inputs[0].dtype()));
  const Tensor& rescale = ctx.inputs[n * stride];
  SYMX_ASSIGN_OR_RETURN(Elem rescale_t, RescaleElem(ctx, rescale));
  for (int64_t i = 0; i < n; ++i) {
    const int64_t b = i * stride;
    AdamWOperands u;
    u.weight = ctx.inputs[b].read_raw_data();
    u.grad = ctx.inputs[b + 1].read_raw_data();
    u.mean = ctx.inputs[b + 2].raw_data();
    u.var = ctx.inputs[b + 3].raw_data();
    if (kMixed) u.master = ctx.inputs[b + 4].data<float>();
    u.out = ctx.outputs[i].raw_data();
    u.rescale = rescale.read_raw_data();
    u.rescale_t = rescale_t;
    u.multi_form = true;
    u.n = ctx.inputs[b].size();
    AdamWScalars<float> f = AdamWScalarsOf<float>(p);
    AdamWScalars<double> d = AdamWScalarsOf<double>(p);
    f.lr = p.lrs[i];
    f.wd = p.wds[i];
    f.eta = p.etas[i];
    d.lr = p.lrs[i];
    d.wd = p.wds[i];
    d.eta = p.etas[i];
    SYMX_CUDA_LAUNCH(ctx, LaunchAdamW(elem, u, f, d, device->stream()));
  }
  return absl::OkStatus();
}

// The direction scratch of the largest tensor and the two sums of squares
// (tensors run one after another on the stream, reusing them).
size_t MultiLambWorkspace(const NodeAttrs& attrs, const std::vector<Shape>& in_shapes,
                          const std::vector<Shape>&, DType) {
  const int64_t n = Param<MultiLambParam>(attrs).num_tensors;
  const size_t stride = in_shapes.size() / static_cast<size_t>(n);
  int64_t largest = 0;
  for (int64_t k = 0; k < n; ++k) {
    const Shape& s = in_shapes[k * stride];
    if (s.fully_known()) largest = std::max(largest, s.Size());
  }
  WorkspacePieces pieces;
  pieces.Take(static_cast<size_t>(largest) * sizeof(float));
  pieces.Take(2 * sizeof(float));
  return pieces.total();
}

// As the CPU kernel, tensor by tensor: |w|^2 (from the weight input), the
// direction, |d|^2, the step.
template <bool kMixed>
absl::Status MultiLamb(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const MultiLambParam& p = ctx.param<MultiLambParam>();
  const int64_t n = p.num_tensors;
  const int stride = kMixed ? 5 : 4;
  SYMX_RETURN_IF_ERROR(CheckMultiUpdateOperands(ctx, n, kMixed ? 5 : 4, kMixed ? 2 : 4, 0));
  SYMX_ASSIGN_OR_RETURN(Elem elem, UpdateElem(ctx, ctx.inputs[0].dtype()));
  int64_t largest = 0;
  for (int64_t k = 0; k < n; ++k) largest = std::max(largest, ctx.inputs[k * stride].size());
  WorkspacePieces pieces;
  const size_t direction_at = pieces.Take(static_cast<size_t>(largest) * sizeof(float));
  const size_t sums_at = pieces.Take(2 * sizeof(float));
  SYMX_ASSIGN_OR_RETURN(char* ws, WorkspaceOf(ctx, pieces.total()));
  float* sums = reinterpret_cast<float*>(ws + sums_at);
  for (int64_t k = 0; k < n; ++k) {
    const int64_t b = k * stride;
    LambOperands u;
    u.weight = ctx.inputs[b].read_raw_data();
    u.grad = ctx.inputs[b + 1].read_raw_data();
    u.mean = ctx.inputs[b + 2].raw_data();
    u.var = ctx.inputs[b + 3].raw_data();
    if (kMixed) u.master = ctx.inputs[b + 4].data<float>();
    u.out = ctx.outputs[k].raw_data();
    u.direction = reinterpret_cast<float*>(ws + direction_at);
    u.n = ctx.inputs[b].size();
    SYMX_CUDA_LAUNCH(ctx, LaunchSumSq(elem, u.weight, u.n, sums, device->stream()));
    SYMX_CUDA_LAUNCH(ctx, LaunchLambDirection(elem, u, LambScalarsOf<float>(p, k),
                                              LambScalarsOf<double>(p, k), device->stream()));
    SYMX_CUDA_LAUNCH(ctx, LaunchSumSq(Elem::kF32, u.direction, u.n, sums + 1, device->stream()));
    SYMX_CUDA_LAUNCH(ctx, LaunchLambStep(elem, u, sums, p.learning_rates[k], p.lower_bound,
                                         p.upper_bound, device->stream()));
  }
  return absl::OkStatus();
}

SYMX_REGISTER_KERNEL("multi_sum_sq", kGPU, MultiSumSq);
SYMX_REGISTER_KERNEL("multi_lars", kGPU, MultiLars);
SYMX_REGISTER_KERNEL("all_finite", kGPU, AllFinite);
SYMX_REGISTER_KERNEL("multi_all_finite", kGPU, AllFinite);
SYMX_REGISTER_KERNEL("reset_arrays", kGPU, ResetArrays);
SYMX_REGISTER_KERNEL("_adamw_update", kGPU, AdamW<false>);
SYMX_REGISTER_KERNEL("_mp_adamw_update", kGPU, AdamW<true>);
SYMX_REGISTER_KERNEL("_contrib_group_adagrad_update", kGPU, GroupAdagrad);
SYMX_REGISTER_KERNEL("_multi_adamw_update", kGPU, MultiAdamW<false>);
SYMX_REGISTER_KERNEL("_multi_mp_adamw_update", kGPU, MultiAdamW<true>);
SYMX_REGISTER_KERNEL("_multi_lamb_update", kGPU, .fn = MultiLamb<false>,
                     .workspace = MultiLambWorkspace);
SYMX_REGISTER_KERNEL("_multi_mp_lamb_update", kGPU, .fn = MultiLamb<true>,
                     .workspace = MultiLambWorkspace);

}  // namespace
}  // namespace cuda
}  // namespace symx
