// CPU kernels of the contributed optimizer family (graph/ops/optimizer_contrib.cc),
// with the element rules the CUDA kernels share
// (devices/geometry/update_rules_contrib.h). The updates compute float16
// weights in float32, each element rounded once at the end, as the optimizer
// family's kernels do (MXNet's half type rounds after every operation, so
// its float16 results can differ in the last bit).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "devices/cpu/kernel_util.h"
#include "devices/dtype_switch.h"
#include "devices/geometry/update_operands.h"
#include "devices/geometry/update_rules_contrib.h"
#include "devices/geometry/update_scalars_contrib.h"
#include "graph/op.h"
#include "graph/ops/optimizer_contrib.h"

namespace symx {
namespace cpu {
namespace {

// Runs fn(storage, compute) for a float16, float32 or float64 dtype.
template <typename Fn>
absl::Status FloatTypes(const KernelContext& ctx, DType t, Fn&& fn) {
  switch (t) {
    case DType::kFloat32:
      fn(float{}, float{});
      return absl::OkStatus();
    case DType::kFloat64:
      fn(double{}, double{});
      return absl::OkStatus();
    case DType::kFloat16:
      fn(float16_t{}, float{});
      return absl::OkStatus();
    default:
      return UnsupportedDType(ctx, t);
  }
}

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

absl::Status CheckFlagOutput(const KernelContext& ctx) {
  const Tensor& out = ctx.outputs[0];
  if (out.size() != 1 || out.dtype() != DType::kFloat32) {
    return Fail(ctx, absl::StrCat("output ", out.DebugString(), " should be one float32"));
  }
  return absl::OkStatus();
}

// ------------------------------------------------------------ helpers

// An array's sum of squares, as MXNet's CPU kernel: each square rounded to
// the array's dtype (float16 overflows past 256), added into a float
// accumulator (in double for float64 arrays, then rounded to float).
template <typename T>
float SumOfSquares(const T* x, int64_t n) {
  using Wide = std::conditional_t<std::is_same_v<T, double>, double, float>;
  float acc = 0;
  for (int64_t i = 0; i < n; ++i) {
    const Wide v = static_cast<Wide>(ToDouble(x[i]));
    const Wide square = static_cast<Wide>(ToDouble(FromDouble<T>(v * v)));
    acc = static_cast<float>(static_cast<Wide>(acc) + square);
  }
  return acc;
}

absl::Status MultiSumSq(const KernelContext& ctx) {
  SYMX_RETURN_IF_ERROR(SameDTypes(ctx));
  const int64_t n = static_cast<int64_t>(ctx.inputs.size());
  const Tensor& out = ctx.outputs[0];
  if (out.size() != n || out.dtype() != DType::kFloat32) {
    return Fail(ctx, absl::StrCat("output ", out.DebugString(), " should be ", n, " float32"));
  }
  float* sums = out.data<float>();
  return FloatTypes(ctx, ctx.inputs[0].dtype(), [&](auto t, auto) {
    using T = decltype(t);
    ParallelFor(ctx, n, 1e4, [&](int64_t begin, int64_t end) {
      for (int64_t k = begin; k < end; ++k) {
        sums[k] = SumOfSquares(ctx.inputs[k].read_data<T>(), ctx.inputs[k].size());
      }
    });
  });
}

absl::Status MultiLars(const KernelContext& ctx) {
  SYMX_RETURN_IF_ERROR(CheckLarsOperands(ctx));
  const Tensor& out = ctx.outputs[0];
  const LarsParam& p = ctx.param<LarsParam>();
  const float* lrs = ctx.inputs[0].read_data<float>();
  const float* wss = ctx.inputs[1].read_data<float>();
  const float* gss = ctx.inputs[2].read_data<float>();
  const float* wds = ctx.inputs[3].read_data<float>();
  float* o = out.data<float>();
  for (int64_t i = 0; i < out.size(); ++i) {
    o[i] = LarsRate(lrs[i], wss[i], gss[i], wds[i], p.eta, p.eps, p.rescale_grad);
  }
  return absl::OkStatus();
}

// all_finite and multi_all_finite: the flag is 1 (when init_output) unless
// an element cast to float32 is not finite (a float64 past FLT_MAX too).
absl::Status AllFinite(const KernelContext& ctx) {
  SYMX_RETURN_IF_ERROR(CheckFlagOutput(ctx));
  SYMX_RETURN_IF_ERROR(SameDTypes(ctx));
  float* flag = ctx.outputs[0].data<float>();
  if (ctx.param<ArrayListParam>().init_output) *flag = 1.0f;
  bool finite = true;
  SYMX_RETURN_IF_ERROR(FloatTypes(ctx, ctx.inputs[0].dtype(), [&](auto t, auto) {
    using T = decltype(t);
    for (const Tensor& in : ctx.inputs) {
      const T* x = in.read_data<T>();
      for (int64_t i = 0, n = in.size(); i < n && finite; ++i) {
        finite = std::isfinite(static_cast<float>(ToDouble(x[i])));
      }
    }
  }));
  if (!finite) *flag = 0.0f;
  return absl::OkStatus();
}

// Zeroes the bytes of every array (any dtype: zero bits are zero in each;
// MXNet refuses integer arrays).
absl::Status ResetArrays(const KernelContext& ctx) {
  for (const Tensor& t : ctx.inputs) {
    if (t.nbytes() > 0) std::memset(t.raw_data(), 0, t.nbytes());
  }
  return absl::OkStatus();
}

// ------------------------------------------------------------ AdamW

// rescale_grad's first element as float (any float dtype), or an error.
absl::Status ReadRescale(const KernelContext& ctx, const Tensor& t, float* value) {
  if (t.size() < 1) return Fail(ctx, "rescale_grad is empty: its first element is the scale");
  switch (t.dtype()) {
    case DType::kFloat32:
      *value = t.read_data<float>()[0];
      return absl::OkStatus();
    case DType::kFloat64:
      *value = static_cast<float>(t.read_data<double>()[0]);
      return absl::OkStatus();
    case DType::kFloat16:
      *value = static_cast<float>(ToDouble(t.read_data<float16_t>()[0]));
      return absl::OkStatus();
    default:
      return UnsupportedDType(ctx, t.dtype());
  }
}

// One weight's AdamW operands: weight and grad T; mean and var S; master
// (float32) for the mp_ forms; out T.
struct AdamWOperands {
  const Tensor* weight;
  const Tensor* grad;
  const Tensor* mean;
  const Tensor* var;
  const Tensor* master;
  const Tensor* out;
};

template <typename T, typename S, typename C>
void AdamWElements(const KernelContext& ctx, const AdamWScalars<C>& p, const AdamWOperands& u,
                   bool multi_form) {
  const T* w = u.weight->read_data<T>();
  const T* g = u.grad->read_data<T>();
  S* mean = u.mean->data<S>();
  S* var = u.var->data<S>();
  float* master = u.master != nullptr ? u.master->data<float>() : nullptr;
  T* out = u.out->data<T>();
  ParallelFor(ctx, u.weight->size(), 20.0, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const C wi = master != nullptr ? static_cast<C>(master[i]) : static_cast<C>(ToDouble(w[i]));
      C m = static_cast<C>(ToDouble(mean[i]));
      C v = static_cast<C>(ToDouble(var[i]));
      const C r = AdamWElement<C>(p, wi, static_cast<C>(ToDouble(g[i])), &m, &v, multi_form);
      mean[i] = FromDouble<S>(m);
      var[i] = FromDouble<S>(v);
      if (master != nullptr) master[i] = static_cast<float>(r);
      out[i] = FromDouble<T>(r);
    }
  });
}

template <typename C>
AdamWScalars<C> AdamWScalarsOf(const AdamWParam& p, float rescale) {
  AdamWScalars<C> s = AdamWScalarsOf<C>(p);
  s.rescale = static_cast<C>(rescale);
  return s;
}

// A skipped AdamW step: output i holds weight i (input i * stride) unless it
// is that very array.
absl::Status KeepWeights(const KernelContext& ctx, int64_t n, int64_t stride) {
  for (int64_t i = 0; i < n; ++i) {
    const Tensor& w = ctx.inputs[i * stride];
    const Tensor& out = ctx.outputs[i];
    if (out.read_raw_data() != w.read_raw_data()) SYMX_RETURN_IF_ERROR(CopyTensor(w, out));
  }
  return absl::OkStatus();
}

// _adamw_update (weight, grad, mean, var, rescale_grad) and
// _mp_adamw_update (..., weight32, rescale_grad).
template <bool kMixed>
absl::Status AdamW(const KernelContext& ctx) {
  const size_t count = kMixed ? 5 : 4;
  const DType t = ctx.inputs[0].dtype();
  SYMX_RETURN_IF_ERROR(CheckUpdateOperands(ctx, 0, count, kMixed ? 2 : count, ctx.outputs[0], t));
  float rescale = 0;
  SYMX_RETURN_IF_ERROR(ReadRescale(ctx, ctx.inputs[count], &rescale));
  // An overflowed step (AMP): the weight and states stay; an output that is
  // not the weight gets the weight (MXNet leaves it unwritten: garbage).
  if (!AdamWStepTaken(rescale)) return KeepWeights(ctx, 1, count + 1);
  const AdamWParam& param = ctx.param<AdamWParam>();
  AdamWOperands u{&ctx.inputs[0],
                  &ctx.inputs[1],
                  &ctx.inputs[2],
                  &ctx.inputs[3],
                  kMixed ? &ctx.inputs[4] : nullptr,
                  &ctx.outputs[0]};
  return FloatTypes(ctx, t, [&](auto tt, auto c) {
    using T = decltype(tt);
    using C = std::conditional_t<kMixed, float, decltype(c)>;
    using S = std::conditional_t<kMixed, float, T>;
    AdamWElements<T, S, C>(ctx, AdamWScalarsOf<C>(param, rescale), u, false);
  });
}

// ------------------------------------------------------------ GroupAdaGrad

// Row r: history[r] += mean of g^2 over the row, then each element
// w - lr * g / sqrt(history[r] + epsilon), g = clip(rescale_grad * grad).
absl::Status GroupAdagrad(const KernelContext& ctx) {
  const Tensor& weight = ctx.inputs[0];
  const DType t = weight.dtype();
  if (weight.shape().ndim() < 1) return Fail(ctx, "the weight must have at least one dimension");
  const int64_t rows = weight.shape()[0];
  const int64_t cols = rows > 0 ? weight.size() / rows : 0;
  for (size_t i = 0; i < 3; ++i) {
    const Tensor& in = ctx.inputs[i];
    const int64_t want = i == 2 ? rows : weight.size();
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
  if (rows == 0 || cols == 0) return absl::OkStatus();
  const GroupAdagradParam& p = ctx.param<GroupAdagradParam>();
  return FloatTypes(ctx, t, [&](auto tt, auto c) {
    using T = decltype(tt);
    using C = decltype(c);
    const T* w = weight.read_data<T>();
    const T* g = ctx.inputs[1].read_data<T>();
    T* history = ctx.inputs[2].data<T>();
    T* o = out.data<T>();
    const C rescale = static_cast<C>(p.rescale_grad), clip = static_cast<C>(p.clip_gradient);
    const C lr = static_cast<C>(p.lr), eps = static_cast<C>(p.epsilon);
    ParallelFor(ctx, rows, 4.0 * static_cast<double>(cols), [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const int64_t base = r * cols;
        C ssq = 0;
        for (int64_t j = 0; j < cols; ++j) {
          const C gj = GroupAdagradGrad<C>(static_cast<C>(ToDouble(g[base + j])), rescale, clip);
          ssq += gj * gj;
        }
        const C h = static_cast<C>(ToDouble(history[r])) + ssq / static_cast<C>(cols);
        history[r] = FromDouble<T>(h);
        const C denom = std::sqrt(h + eps);
        for (int64_t j = 0; j < cols; ++j) {
          const C gj = GroupAdagradGrad<C>(static_cast<C>(ToDouble(g[base + j])), rescale, clip);
          o[base + j] = FromDouble<T>(static_cast<C>(ToDouble(w[base + j])) - lr * gj / denom);
        }
      }
    });
  });
}

// ------------------------------------------------------------ multi-tensor AdamW and LAMB

// _multi_adamw_update and _multi_mp_adamw_update: each weight's AdamW step
// with its lr, wd and eta, in the multi-tensor kernels' arithmetic. MXNet
// 1.9.1 copies the float rates into its kernel's float16 or float64 slots
// byte for byte, so those weights get garbage rates; here they are converted.
template <bool kMixed>
absl::Status MultiAdamW(const KernelContext& ctx) {
  const AdamWParam& param = ctx.param<AdamWParam>();
  const int64_t n = param.num_weights;
  const int stride = kMixed ? 5 : 4;
  SYMX_RETURN_IF_ERROR(CheckMultiUpdateOperands(ctx, n, kMixed ? 5 : 4, kMixed ? 2 : 4, 1));
  float rescale = 0;
  SYMX_RETURN_IF_ERROR(ReadRescale(ctx, ctx.inputs[n * stride], &rescale));
  if (!AdamWStepTaken(rescale)) return KeepWeights(ctx, n, stride);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t b = i * stride;
    AdamWOperands u{&ctx.inputs[b],
                    &ctx.inputs[b + 1],
                    &ctx.inputs[b + 2],
                    &ctx.inputs[b + 3],
                    kMixed ? &ctx.inputs[b + 4] : nullptr,
                    &ctx.outputs[i]};
    SYMX_RETURN_IF_ERROR(FloatTypes(ctx, ctx.inputs[0].dtype(), [&](auto tt, auto c) {
      using T = decltype(tt);
      using C = std::conditional_t<kMixed, float, decltype(c)>;
      using S = std::conditional_t<kMixed, float, T>;
      AdamWScalars<C> p = AdamWScalarsOf<C>(param, rescale);
      p.lr = static_cast<C>(param.lrs[i]);
      p.wd = static_cast<C>(param.wds[i]);
      p.eta = static_cast<C>(param.etas[i]);
      AdamWElements<T, S, C>(ctx, p, u, true);
    }));
  }
  return absl::OkStatus();
}

// _multi_lamb_update and _multi_mp_lamb_update, one tensor after another:
// |w|^2 from the weight input (float16 in the mp_ form, as MXNet), the
// direction into float scratch, |d|^2, then the step scaled by the trust
// ratio.
template <bool kMixed>
absl::Status MultiLamb(const KernelContext& ctx) {
  const MultiLambParam& param = ctx.param<MultiLambParam>();
  const int64_t n = param.num_tensors;
  const int stride = kMixed ? 5 : 4;
  SYMX_RETURN_IF_ERROR(CheckMultiUpdateOperands(ctx, n, kMixed ? 5 : 4, kMixed ? 2 : 4, 0));
  return FloatTypes(ctx, ctx.inputs[0].dtype(), [&](auto tt, auto c) {
    using T = decltype(tt);
    using C = std::conditional_t<kMixed, float, decltype(c)>;
    using S = std::conditional_t<kMixed, float, T>;
    std::vector<float> direction;
    for (int64_t k = 0; k < n; ++k) {
      const int64_t b = k * stride;
      const int64_t size = ctx.inputs[b].size();
      const T* w = ctx.inputs[b].read_data<T>();
      const T* g = ctx.inputs[b + 1].read_data<T>();
      S* mean = ctx.inputs[b + 2].data<S>();
      S* var = ctx.inputs[b + 3].data<S>();
      float* master = kMixed ? ctx.inputs[b + 4].data<float>() : nullptr;
      T* out = ctx.outputs[k].data<T>();
      const float weight_sum_sq = SumOfSquares(w, size);
      const LambScalars<C> p = LambScalarsOf<C>(param, k);
      direction.resize(static_cast<size_t>(size));
      ParallelFor(ctx, size, 20.0, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) {
          const C wi = kMixed ? static_cast<C>(master[i]) : static_cast<C>(ToDouble(w[i]));
          C m = static_cast<C>(ToDouble(mean[i]));
          C v = static_cast<C>(ToDouble(var[i]));
          direction[i] = LambDirection<C>(p, wi, static_cast<C>(ToDouble(g[i])), &m, &v);
          mean[i] = FromDouble<S>(m);
          var[i] = FromDouble<S>(v);
        }
      });
      const float ratio = LambTrustRatio(weight_sum_sq, SumOfSquares(direction.data(), size),
                                         param.lower_bound, param.upper_bound);
      const C rate = static_cast<C>(param.learning_rates[k]) * static_cast<C>(ratio);
      ParallelFor(ctx, size, 4.0, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) {
          C wi = kMixed ? static_cast<C>(master[i]) : static_cast<C>(ToDouble(w[i]));
          wi -= rate * static_cast<C>(direction[i]);
          if (kMixed) master[i] = static_cast<float>(wi);
          out[i] = FromDouble<T>(wi);
        }
      });
    }
  });
}

// The states are written on every call: no half widening (its float32
// copies would take the writes); float16 is computed here.
SYMX_REGISTER_KERNEL("multi_sum_sq", kCPU, .fn = MultiSumSq, .widening = HalfWidening::kNever);
SYMX_REGISTER_KERNEL("multi_lars", kCPU, .fn = MultiLars, .widening = HalfWidening::kNever);
SYMX_REGISTER_KERNEL("all_finite", kCPU, .fn = AllFinite, .widening = HalfWidening::kNever);
SYMX_REGISTER_KERNEL("multi_all_finite", kCPU, .fn = AllFinite, .widening = HalfWidening::kNever);
SYMX_REGISTER_KERNEL("reset_arrays", kCPU, .fn = ResetArrays, .widening = HalfWidening::kNever);
SYMX_REGISTER_KERNEL("_adamw_update", kCPU, .fn = AdamW<false>, .widening = HalfWidening::kNever);
SYMX_REGISTER_KERNEL("_mp_adamw_update", kCPU, .fn = AdamW<true>, .widening = HalfWidening::kNever);
SYMX_REGISTER_KERNEL("_contrib_group_adagrad_update", kCPU, .fn = GroupAdagrad,
                     .widening = HalfWidening::kNever);
SYMX_REGISTER_KERNEL("_multi_adamw_update", kCPU, .fn = MultiAdamW<false>,
                     .widening = HalfWidening::kNever);
SYMX_REGISTER_KERNEL("_multi_mp_adamw_update", kCPU, .fn = MultiAdamW<true>,
                     .widening = HalfWidening::kNever);
SYMX_REGISTER_KERNEL("_multi_lamb_update", kCPU, .fn = MultiLamb<false>,
                     .widening = HalfWidening::kNever);
SYMX_REGISTER_KERNEL("_multi_mp_lamb_update", kCPU, .fn = MultiLamb<true>,
                     .widening = HalfWidening::kNever);

}  // namespace
}  // namespace cpu
}  // namespace symx
