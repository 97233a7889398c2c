// CPU kernels of the optimizer family (graph/ops/optimizer.cc): every update
// op runs the shared element rule (devices/geometry/update_rules.h) over the
// weight, in float32 or float64 as the weight is, float16 weights in float32
// (each element rounded once at the end; MXNet's half type rounds after each
// operation, so float16 without a master copy can differ in the last bit).
// The mp_ forms compute in float32 on the master copy weight32.
#include <cstdint>
#include <initializer_list>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "devices/cpu/kernel_util.h"
#include "devices/dtype_switch.h"
#include "devices/geometry/update_operands.h"
#include "devices/geometry/update_rules.h"
#include "devices/geometry/update_scalars.h"
#include "graph/op.h"
#include "graph/ops/optimizer.h"

namespace symx {
namespace cpu {
namespace {

// One weight's operands. `grad` is T, or S where grad_is_s (LAMB phase 2's
// float32 direction in the mp_ form); `states` are S; `master` float32.
struct Operands {
  const Tensor* weight = nullptr;
  const Tensor* grad = nullptr;
  std::vector<const Tensor*> states;
  const Tensor* master = nullptr;
  const Tensor* out = nullptr;
  bool grad_is_s = false;
  bool writes_master = false;
  bool nag_reads_new_weight = false;
};

// The common rules on weights, gradients and states all of the compute type
// (float32 or float64, no master copy), with the rule and the number of
// states fixed at compile time: ApplyUpdate's switch folds away and the loop
// vectorizes. The generic loop below decides the rule, the states and each
// conversion per element, which made sgd_mom_update 35 times slower than an
// elementwise add (1.36 ms for 400k floats; training steps of small models
// spent a fifth of their time there). Same arithmetic, so the same bits.
template <UpdateRule kRule, int kStates, typename C>
void RunSameType(const KernelContext& ctx, const UpdateScalars<C>& p, const Operands& u) {
  const int64_t n = u.weight->size();
  const C* w = u.weight->read_data<C>();
  const C* g = u.grad->read_data<C>();
  C* s0 = kStates > 0 ? u.states[0]->data<C>() : nullptr;
  C* s1 = kStates > 1 ? u.states[1]->data<C>() : nullptr;
  C* out = u.out->data<C>();
  const bool nag_new = u.nag_reads_new_weight;
  ParallelFor(ctx, n, 4.0, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      C a = kStates > 0 ? s0[i] : C(0);
      C b = kStates > 1 ? s1[i] : C(0);
      C c = 0;
      const C r = ApplyUpdate<C>(kRule, p, w[i], g[i], &a, &b, &c, nag_new);
      if constexpr (kStates > 0) s0[i] = a;
      if constexpr (kStates > 1) s1[i] = b;
      out[i] = r;
    }
  });
}

// RunSameType for the rules it has; false for the others.
template <typename C>
bool TryRunSameType(const KernelContext& ctx, UpdateRule rule, const UpdateScalars<C>& p,
                    const Operands& u) {
  const size_t states = u.states.size();
  switch (rule) {
    case UpdateRule::kSGD:
      if (states != 0) return false;
      RunSameType<UpdateRule::kSGD, 0>(ctx, p, u);
      return true;
    case UpdateRule::kSGDMom:  // the multi_ forms without momentum: a zero state
      if (states == 0) {
        RunSameType<UpdateRule::kSGDMom, 0>(ctx, p, u);
      } else {
        RunSameType<UpdateRule::kSGDMom, 1>(ctx, p, u);
      }
      return true;
    case UpdateRule::kNAGMom:
      RunSameType<UpdateRule::kNAGMom, 1>(ctx, p, u);
      return true;
    case UpdateRule::kAdam:
      RunSameType<UpdateRule::kAdam, 2>(ctx, p, u);
      return true;
    case UpdateRule::kRMSProp:
      RunSameType<UpdateRule::kRMSProp, 1>(ctx, p, u);
      return true;
    default:
      return false;
  }
}

// T: the weight's storage type; S: the states' (T, or float for the mp_
// forms); O: the output's (T, or float for mp_lamb_update_phase1); C: the
// compute type.
template <typename T, typename S, typename O, typename C>
void RunElements(const KernelContext& ctx, UpdateRule rule, const UpdateScalars<C>& p,
                 const Operands& u) {
  if constexpr (std::is_same_v<T, C> && std::is_same_v<S, C> && std::is_same_v<O, C>) {
    if (u.master == nullptr && !u.grad_is_s && TryRunSameType<C>(ctx, rule, p, u)) return;
  }
  const int64_t n = u.weight->size();
  const T* w = u.weight->read_data<T>();
  const void* g = u.grad->read_raw_data();
  const int num_states = static_cast<int>(u.states.size());
  S* states[3] = {nullptr, nullptr, nullptr};
  for (int k = 0; k < num_states; ++k) states[k] = u.states[k]->data<S>();
  float* master = u.master != nullptr ? u.master->data<float>() : nullptr;
  O* out = u.out->data<O>();
  ParallelFor(ctx, n, 20.0, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const C wi = master != nullptr ? static_cast<C>(master[i]) : static_cast<C>(ToDouble(w[i]));
      const C gi = u.grad_is_s ? static_cast<C>(ToDouble(static_cast<const S*>(g)[i]))
                               : static_cast<C>(ToDouble(static_cast<const T*>(g)[i]));
      // Without a momentum state the multi_ forms step from a zero one.
      C st[3] = {0, 0, 0};
      for (int k = 0; k < num_states; ++k) st[k] = static_cast<C>(ToDouble(states[k][i]));
      const C r = ApplyUpdate<C>(rule, p, wi, gi, &st[0], &st[1], &st[2], u.nag_reads_new_weight);
      for (int k = 0; k < num_states; ++k) states[k][i] = FromDouble<S>(st[k]);
      if (u.writes_master) master[i] = static_cast<float>(r);
      out[i] = FromDouble<O>(r);
    }
  });
}

// Runs `fn` with the storage and compute types for the weight's dtype.
template <typename Fn>
absl::Status DispatchTypes(const KernelContext& ctx, DType t, bool mixed, bool out_float32,
                           Fn&& fn) {
  switch (t) {
    case DType::kFloat32:
      fn(float{}, float{}, float{}, float{});
      return absl::OkStatus();
    case DType::kFloat64:
      if (!mixed) {
        fn(double{}, double{}, double{}, double{});
      } else if (out_float32) {
        fn(double{}, float{}, float{}, float{});
      } else {
        fn(double{}, float{}, double{}, float{});
      }
      return absl::OkStatus();
    case DType::kFloat16:
      if (!mixed) {
        fn(float16_t{}, float16_t{}, float16_t{}, float{});
      } else if (out_float32) {
        fn(float16_t{}, float{}, float{}, float{});
      } else {
        fn(float16_t{}, float{}, float16_t{}, float{});
      }
      return absl::OkStatus();
    default:
      return UnsupportedDType(ctx, t);
  }
}

// The single-weight ops: weight, grad (LAMB phase 2: g, r1, r2), the
// states, then weight32 for the mp_ forms.
absl::Status Update(const KernelContext& ctx, UpdateRule rule, int num_states, bool mixed) {
  const bool lamb2 = rule == UpdateRule::kLambPhase2;
  const size_t count = ctx.inputs.size();
  // mp_: weight and grad (LAMB phase 2: the weight alone) have the weight's dtype.
  const size_t num_low = mixed ? (lamb2 ? 1 : 2) : count;
  SYMX_RETURN_IF_ERROR(CheckUpdateOperands(
      ctx, 0, count, num_low, ctx.outputs[0], ctx.inputs[0].dtype(),
      lamb2 ? std::initializer_list<size_t>{2, 3} : std::initializer_list<size_t>{},
      rule == UpdateRule::kLambPhase1 && mixed ? DType::kFloat32 : DType::kUnknown));
  Operands u;
  u.weight = &ctx.inputs[0];
  u.grad = &ctx.inputs[1];
  u.grad_is_s = lamb2 && mixed;
  const int first_state = lamb2 ? 4 : 2;
  for (int k = 0; k < num_states; ++k) u.states.push_back(&ctx.inputs[first_state + k]);
  if (mixed) u.master = &ctx.inputs.back();
  u.out = &ctx.outputs[0];
  u.writes_master = mixed && rule != UpdateRule::kLambPhase1;
  // nag_mom_update's momentum reads the weight after the output is written
  // (MXNet writes out first): the new weight when out is the weight, and
  // always in the mp_ form, whose weight is its local master value.
  u.nag_reads_new_weight = mixed || ctx.outputs[0].read_raw_data() == ctx.inputs[0].read_raw_data();
  const UpdateParam& param = ctx.param<UpdateParam>();
  const bool out_float32 = mixed && rule == UpdateRule::kLambPhase1;
  return DispatchTypes(ctx, ctx.inputs[0].dtype(), mixed, out_float32,
                       [&](auto t, auto s, auto o, auto c) {
                         using T = decltype(t);
                         using S = decltype(s);
                         using C = decltype(c);
                         UpdateScalars<C> p = ScalarsOf<C>(param);
                         if (lamb2) {
                           // r1 and r2: the norms of the weight and of the direction.
                           const Tensor& r1 = ctx.inputs[2];
                           const Tensor& r2 = ctx.inputs[3];
                           p.lr = LambScale<C>(p, static_cast<C>(ToDouble(r1.read_data<S>()[0])),
                                               static_cast<C>(ToDouble(r2.read_data<S>()[0])));
                         }
                         RunElements<T, S, decltype(o), C>(ctx, rule, p, u);
                       });
}

template <UpdateRule kRule, int kStates, bool kMixed>
absl::Status UpdateKernel(const KernelContext& ctx) {
  return Update(ctx, kRule, kStates, kMixed);
}

// The multi_ forms: sgd_mom_update's rule on each weight with its lr and wd,
// from a zero momentum where there is no momentum state.
absl::Status MultiUpdate(const KernelContext& ctx) {
  const MultiUpdateLayout l = MultiUpdateLayoutOf(ctx.attrs->op->name());
  const UpdateParam& param = ctx.param<UpdateParam>();
  const int64_t n = param.num_weights;
  const int stride = l.stride();
  std::vector<float> lrs = param.lrs, wds = param.wds;
  if (l.preloaded) {
    SYMX_RETURN_IF_ERROR(CheckPreloadedRates(ctx, n, n * stride));
    const float* lr = ctx.inputs[n * stride].read_data<float>();
    const float* wd = ctx.inputs[n * stride + 1].read_data<float>();
    lrs.assign(lr, lr + n);
    wds.assign(wd, wd + n);
  }
  const DType t = ctx.inputs[0].dtype();
  for (int64_t i = 0; i < n; ++i) {
    const size_t base = static_cast<size_t>(i * stride);
    // weight_i has weight_0's dtype, as every low-precision operand.
    SYMX_RETURN_IF_ERROR(
        CheckUpdateOperands(ctx, base, stride, l.mixed_precision ? 2 : stride, ctx.outputs[i], t));
    Operands u;
    u.weight = &ctx.inputs[base];
    u.grad = &ctx.inputs[base + 1];
    if (l.momentum) u.states.push_back(&ctx.inputs[base + 2]);
    if (l.mixed_precision) u.master = &ctx.inputs[base + stride - 1];
    u.out = &ctx.outputs[i];
    u.writes_master = l.mixed_precision;
    SYMX_RETURN_IF_ERROR(
        DispatchTypes(ctx, t, l.mixed_precision, false, [&](auto tt, auto s, auto o, auto c) {
          using C = decltype(c);
          UpdateScalars<C> p = ScalarsOf<C>(param);
          p.lr = static_cast<C>(lrs[i]);
          p.wd = static_cast<C>(wds[i]);
          RunElements<decltype(tt), decltype(s), decltype(o), C>(ctx, UpdateRule::kSGDMom, p, u);
        }));
  }
  return absl::OkStatus();
}

// The states are written on every call: no half widening (its float32
// copies of the operands would take the writes), float16 is computed here.
#define SYMX_UPDATE_KERNEL(name, rule, states, mixed)                                   \
  SYMX_REGISTER_KERNEL(name, kCPU, .fn = UpdateKernel<UpdateRule::rule, states, mixed>, \
                       .widening = HalfWidening::kNever)

SYMX_UPDATE_KERNEL("sgd_update", kSGD, 0, false);
SYMX_UPDATE_KERNEL("sgd_mom_update", kSGDMom, 1, false);
SYMX_UPDATE_KERNEL("mp_sgd_update", kSGD, 0, true);
SYMX_UPDATE_KERNEL("mp_sgd_mom_update", kSGDMom, 1, true);
SYMX_UPDATE_KERNEL("nag_mom_update", kNAGMom, 1, false);
SYMX_UPDATE_KERNEL("mp_nag_mom_update", kNAGMom, 1, true);
SYMX_UPDATE_KERNEL("adam_update", kAdam, 2, false);
SYMX_UPDATE_KERNEL("rmsprop_update", kRMSProp, 1, false);
SYMX_UPDATE_KERNEL("rmspropalex_update", kRMSPropAlex, 3, false);
SYMX_UPDATE_KERNEL("ftrl_update", kFtrl, 2, false);
SYMX_UPDATE_KERNEL("ftml_update", kFTML, 3, false);
SYMX_UPDATE_KERNEL("signsgd_update", kSignSGD, 0, false);
SYMX_UPDATE_KERNEL("signum_update", kSignum, 1, false);
SYMX_UPDATE_KERNEL("lamb_update_phase1", kLambPhase1, 2, false);
SYMX_UPDATE_KERNEL("lamb_update_phase2", kLambPhase2, 0, false);
SYMX_UPDATE_KERNEL("mp_lamb_update_phase1", kLambPhase1, 2, true);
SYMX_UPDATE_KERNEL("mp_lamb_update_phase2", kLambPhase2, 0, true);

#define SYMX_MULTI_UPDATE_KERNEL(name) \
  SYMX_REGISTER_KERNEL(name, kCPU, .fn = MultiUpdate, .widening = HalfWidening::kNever)

SYMX_MULTI_UPDATE_KERNEL("multi_sgd_update");
SYMX_MULTI_UPDATE_KERNEL("multi_sgd_mom_update");
SYMX_MULTI_UPDATE_KERNEL("multi_mp_sgd_update");
SYMX_MULTI_UPDATE_KERNEL("multi_mp_sgd_mom_update");
SYMX_MULTI_UPDATE_KERNEL("preloaded_multi_sgd_update");
SYMX_MULTI_UPDATE_KERNEL("preloaded_multi_sgd_mom_update");
SYMX_MULTI_UPDATE_KERNEL("preloaded_multi_mp_sgd_update");
SYMX_MULTI_UPDATE_KERNEL("preloaded_multi_mp_sgd_mom_update");

}  // namespace
}  // namespace cpu
}  // namespace symx
