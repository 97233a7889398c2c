// CUDA kernels of the optimizer family (graph/ops/optimizer.cc): the update
// ops on the GPU, with the rules and operand checks the CPU kernels use
// (devices/geometry/update_rules.h, update_operands.h).
#include <initializer_list>

#include "devices/cuda/kernel_util.h"
#include "devices/cuda/optimizer_launch.h"
#include "devices/geometry/update_operands.h"
#include "devices/geometry/update_rules.h"
#include "devices/geometry/update_scalars.h"
#include "graph/op.h"
#include "graph/ops/optimizer.h"

namespace symx {
namespace cuda {
namespace {

absl::Status Update(const KernelContext& ctx, UpdateRule rule, int num_states, bool mixed) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const bool lamb2 = rule == UpdateRule::kLambPhase2;
  const size_t count = ctx.inputs.size();
  // mp_: weight and grad (LAMB phase 2: the weight alone) have the weight's dtype.
  const size_t num_low = mixed ? (lamb2 ? 1 : 2) : count;
  const Tensor& weight = ctx.inputs[0];
  SYMX_RETURN_IF_ERROR(CheckUpdateOperands(
      ctx, 0, count, num_low, ctx.outputs[0], weight.dtype(),
      lamb2 ? std::initializer_list<size_t>{2, 3} : std::initializer_list<size_t>{},
      rule == UpdateRule::kLambPhase1 && mixed ? DType::kFloat32 : DType::kUnknown));
  SYMX_ASSIGN_OR_RETURN(Elem elem, FloatElem(ctx, weight.dtype()));
  UpdateOperands u;
  u.rule = rule;
  u.num_states = num_states;
  u.weight = weight.read_raw_data();
  u.grad = ctx.inputs[1].read_raw_data();
  const int first_state = lamb2 ? 4 : 2;
  for (int k = 0; k < num_states; ++k) u.states[k] = ctx.inputs[first_state + k].raw_data();
  if (mixed) u.master = ctx.inputs.back().data<float>();
  if (lamb2) {
    u.r1 = ctx.inputs[2].read_raw_data();
    u.r2 = ctx.inputs[3].read_raw_data();
  }
  u.out = ctx.outputs[0].raw_data();
  u.out_float32 = mixed && rule == UpdateRule::kLambPhase1;
  // As the CPU kernel: nag_mom_update's momentum reads the output when it is
  // the weight, and the mp_ form its new master value.
  u.nag_reads_new_weight = mixed || ctx.outputs[0].read_raw_data() == weight.read_raw_data();
  u.n = weight.size();
  const auto& param = ctx.param<UpdateParam>();
  SYMX_CUDA_LAUNCH(ctx, LaunchUpdate(elem, u, ScalarsOf<float>(param), ScalarsOf<double>(param),
                                     device->stream()));
  return absl::OkStatus();
}

template <UpdateRule kRule, int kStates, bool kMixed>
absl::Status UpdateKernel(const KernelContext& ctx) {
  return Update(ctx, kRule, kStates, kMixed);
}

// The multi_ forms: sgd_mom_update's rule on each weight with its lr and wd
// (from a zero momentum without a momentum state), one launch per weight.
absl::Status MultiUpdate(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const MultiUpdateLayout l = MultiUpdateLayoutOf(ctx.attrs->op->name());
  const UpdateParam& param = ctx.param<UpdateParam>();
  const int64_t n = param.num_weights;
  const int stride = l.stride();
  const float* lrs = nullptr;
  const float* wds = nullptr;
  if (l.preloaded) {
    SYMX_RETURN_IF_ERROR(CheckPreloadedRates(ctx, n, n * stride));
    lrs = ctx.inputs[n * stride].read_data<float>();
    wds = ctx.inputs[n * stride + 1].read_data<float>();
  }
  const DType t = ctx.inputs[0].dtype();
  SYMX_ASSIGN_OR_RETURN(Elem elem, FloatElem(ctx, t));
  for (int64_t i = 0; i < n; ++i) {
    const int64_t base = i * stride;
    const Tensor& weight = ctx.inputs[base];
    // weight_i has weight_0's dtype, as every low-precision operand.
    SYMX_RETURN_IF_ERROR(
        CheckUpdateOperands(ctx, base, stride, l.mixed_precision ? 2 : stride, ctx.outputs[i], t));
    UpdateOperands u;
    u.rule = UpdateRule::kSGDMom;
    u.num_states = l.momentum ? 1 : 0;
    u.weight = weight.read_raw_data();
    u.grad = ctx.inputs[base + 1].read_raw_data();
    if (l.momentum) u.states[0] = ctx.inputs[base + 2].raw_data();
    if (l.mixed_precision) u.master = ctx.inputs[base + stride - 1].data<float>();
    u.out = ctx.outputs[i].raw_data();
    u.n = weight.size();
    UpdateScalars<float> f = ScalarsOf<float>(param);
    UpdateScalars<double> d = ScalarsOf<double>(param);
    if (l.preloaded) {
      u.lr = lrs + i;
      u.wd = wds + i;
    } else {
      f.lr = param.lrs[i];
      f.wd = param.wds[i];
      d.lr = param.lrs[i];
      d.wd = param.wds[i];
    }
    SYMX_CUDA_LAUNCH(ctx, LaunchUpdate(elem, u, f, d, device->stream()));
  }
  return absl::OkStatus();
}

#define SYMX_CUDA_UPDATE_KERNEL(name, rule, states, mixed) \
  SYMX_REGISTER_KERNEL(name, kGPU, UpdateKernel<UpdateRule::rule, states, mixed>)

SYMX_CUDA_UPDATE_KERNEL("sgd_update", kSGD, 0, false);
SYMX_CUDA_UPDATE_KERNEL("sgd_mom_update", kSGDMom, 1, false);
SYMX_CUDA_UPDATE_KERNEL("mp_sgd_update", kSGD, 0, true);
SYMX_CUDA_UPDATE_KERNEL("mp_sgd_mom_update", kSGDMom, 1, true);
SYMX_CUDA_UPDATE_KERNEL("nag_mom_update", kNAGMom, 1, false);
SYMX_CUDA_UPDATE_KERNEL("mp_nag_mom_update", kNAGMom, 1, true);
SYMX_CUDA_UPDATE_KERNEL("adam_update", kAdam, 2, false);
SYMX_CUDA_UPDATE_KERNEL("rmsprop_update", kRMSProp, 1, false);
SYMX_CUDA_UPDATE_KERNEL("rmspropalex_update", kRMSPropAlex, 3, false);
SYMX_CUDA_UPDATE_KERNEL("ftrl_update", kFtrl, 2, false);
SYMX_CUDA_UPDATE_KERNEL("ftml_update", kFTML, 3, false);
SYMX_CUDA_UPDATE_KERNEL("signsgd_update", kSignSGD, 0, false);
SYMX_CUDA_UPDATE_KERNEL("signum_update", kSignum, 1, false);
SYMX_CUDA_UPDATE_KERNEL("lamb_update_phase1", kLambPhase1, 2, false);
SYMX_CUDA_UPDATE_KERNEL("lamb_update_phase2", kLambPhase2, 0, false);
SYMX_CUDA_UPDATE_KERNEL("mp_lamb_update_phase1", kLambPhase1, 2, true);
SYMX_CUDA_UPDATE_KERNEL("mp_lamb_update_phase2", kLambPhase2, 0, true);
SYMX_REGISTER_KERNEL("multi_sgd_update", kGPU, MultiUpdate);
SYMX_REGISTER_KERNEL("multi_sgd_mom_update", kGPU, MultiUpdate);
SYMX_REGISTER_KERNEL("multi_mp_sgd_update", kGPU, MultiUpdate);
SYMX_REGISTER_KERNEL("multi_mp_sgd_mom_update", kGPU, MultiUpdate);
SYMX_REGISTER_KERNEL("preloaded_multi_sgd_update", kGPU, MultiUpdate);
SYMX_REGISTER_KERNEL("preloaded_multi_sgd_mom_update", kGPU, MultiUpdate);
SYMX_REGISTER_KERNEL("preloaded_multi_mp_sgd_update", kGPU, MultiUpdate);
SYMX_REGISTER_KERNEL("preloaded_multi_mp_sgd_mom_update", kGPU, MultiUpdate);

}  // namespace
}  // namespace cuda
}  // namespace symx
