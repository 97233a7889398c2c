// CPU kernels of Activation (relu, sigmoid, log_sigmoid, mish, tanh,
// softrelu, softsign), LeakyReLU (leaky, prelu, elu, selu, gelu, rrelu),
// hard_sigmoid and softsign, with their backward ops, in float32, float64
// and float16 (softsign's forward also in the integer types MXNet takes).
//
// Formulas follow MXNet 1.x, written in numerically stable forms where
// MXNet's are not (softrelu and log_sigmoid use max(x,0) + log1p(exp(-|x|));
// MXNet's softrelu returns x above 20, which differs by under 2.1e-9).
// Gradients are the exact derivatives; where MXNet computes them from the
// output (leaky, elu, selu, rrelu) they agree with MXNet for every
// non-negative slope, the documented range.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "devices/cpu/elemwise_kernels.h"
#include "devices/cpu/kernel_util.h"
#include "devices/cpu/vector_math.h"
#include "graph/error.h"
#include "graph/ops/activation.h"

namespace symx {
namespace cpu {
namespace {

constexpr double kSeluAlpha = 1.6732632423543772848170429916717;
constexpr double kSeluLambda = 1.0507009873554804934193349852946;
constexpr double kInvSqrt2Pi = 0.39894228040143267794;  // 1/sqrt(2 pi)

// ---------------------------------------------------------------------------
// Activation

// softplus(x) = log(1 + e^x), stable for any x.
template <typename X>
auto Softplus(const X& x) {
  using C = typename X::Scalar;
  return x.cwiseMax(C(0)) + Accurate<ExpOp>(-x.abs()).log1p();
}

// Activation computes in ComputeType<T> (float for float16) and rounds once.
template <typename T>
void ActivationForward(const KernelContext& ctx, ActivationType type, const Tensor& in,
                       const Tensor& out) {
  using C = ComputeType<T>;
  auto xm = Flat<T>(in);
  auto x = xm.template cast<C>();
  auto y = Flat<T>(out);
  const int64_t n = in.size();
  const C zero(0);
  const C one(1);
  auto put = [&](const auto& e) { Assign(ctx, y, e.template cast<T>(), n); };
  switch (type) {
    case ActivationType::kRelu:
      put(x.template cwiseMax<Eigen::PropagateNaN>(zero));
      break;
    case ActivationType::kSigmoid:
      put(Accurate<SigmoidOp>(x));
      break;
    case ActivationType::kLogSigmoid:
      // log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)).
      put(x.cwiseMin(zero) - Accurate<ExpOp>(-x.abs()).log1p());
      break;
    case ActivationType::kMish:
      put(Accurate<MishOp>(x));
      break;
    case ActivationType::kTanh:
      put(Accurate<TanhOp>(x));
      break;
    case ActivationType::kSoftRelu:
      put(Softplus(x));
      break;
    case ActivationType::kSoftSign:
      put(x / (x.abs() + one));
      break;
  }
}

// (ograd, output, data) -> grad.
template <typename T>
void ActivationBackward(const KernelContext& ctx, ActivationType type, const Tensor& g_t,
                        const Tensor& y_t, const Tensor& x_t, const Tensor& out) {
  using C = ComputeType<T>;
  auto gm = Flat<T>(g_t);
  auto ym = Flat<T>(y_t);
  auto xm = Flat<T>(x_t);
  auto g = gm.template cast<C>();
  auto y = ym.template cast<C>();
  auto x = xm.template cast<C>();
  auto dx = Flat<T>(out);
  const int64_t n = g_t.size();
  const C zero(0);
  const C one(1);
  auto put = [&](const auto& e) { Assign(ctx, dx, e.template cast<T>(), n); };
  switch (type) {
    case ActivationType::kRelu:
      put((y > y.constant(zero)).select(g, g.constant(zero)));
      break;
    case ActivationType::kSigmoid:
      put(g * y * (y.constant(one) - y));
      break;
    case ActivationType::kLogSigmoid:
      // d/dx log(sigmoid(x)) = 1 - sigmoid(x) = -expm1(y).
      put(-g * y.expm1());
      break;
    case ActivationType::kMish: {
      // t + x sigmoid(x) (1 - t^2), t = tanh(softplus(x)).
      auto t = Accurate<TanhSoftplusOp>(x);
      put(g * (t + x * Accurate<SigmoidOp>(x) * (x.constant(one) - t.square())));
      break;
    }
    case ActivationType::kTanh:
      put(g * (y.constant(one) - y.square()));
      break;
    case ActivationType::kSoftRelu:
      // sigmoid(x) = 1 - exp(-y).
      put(-g * (-y).expm1());
      break;
    case ActivationType::kSoftSign:
      put(g / (x.abs() + one).square());
      break;
  }
}

absl::Status ActivationKernel(const KernelContext& ctx) {
  const ActivationType type = ctx.param<ActivationParam>().type;
  const Tensor& in = ctx.inputs[0];
  SYMX_FLOAT16_SWITCH(ctx, in.dtype(), T, { ActivationForward<T>(ctx, type, in, ctx.outputs[0]); });
  return absl::OkStatus();
}

absl::Status BackwardActivationKernel(const KernelContext& ctx) {
  const ActivationType type = ctx.param<ActivationParam>().type;
  const Tensor& g = ctx.inputs[0];
  SYMX_FLOAT16_SWITCH(ctx, g.dtype(), T, {
    // The forward input comes third only for the types that need it (see
    // ActivationNeedsData); the others never read `x`.
    const Tensor& x = ctx.inputs.size() > 2 ? ctx.inputs[2] : ctx.inputs[1];
    ActivationBackward<T>(ctx, type, g, ctx.inputs[1], x, ctx.outputs[0]);
  });
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------
// LeakyReLU

// prelu views data as (outer, channels, inner) with channels on axis 1; gamma
// has one slope per channel or a single shared one.
struct PReLUDims {
  int64_t outer = 0, channels = 0, inner = 0;
  bool shared = false;
};

absl::Status GetPReLUDims(const KernelContext& ctx, const Tensor& data, const Tensor& gamma,
                          PReLUDims* d) {
  const Shape& s = data.shape();
  if (s.ndim() < 2) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": prelu needs data with at least ",
                                                   "2 dims, got ", s.ToString()));
  }
  d->outer = s[0];
  d->channels = s[1];
  d->inner = 1;
  for (int i = 2; i < s.ndim(); ++i) d->inner *= s[i];
  d->shared = gamma.size() == 1;
  if (!d->shared && gamma.size() != d->channels) {
    return absl::InvalidArgumentError(
        absl::StrCat(ctx.Where(), ": gamma of shape ", gamma.shape().ToString(), " for data ",
                     s.ToString(), " (expected ", d->channels, " or 1 slopes)"));
  }
  return absl::OkStatus();
}

template <typename T>
void PReLUForward(const KernelContext& ctx, const PReLUDims& d, const T* x, const T* gamma, T* y) {
  using C = ComputeType<T>;
  ParallelFor(ctx, d.outer * d.channels, static_cast<double>(d.inner),
              [&](int64_t begin, int64_t end) {
                for (int64_t r = begin; r < end; ++r) {
                  const C a = static_cast<C>(gamma[d.shared ? 0 : r % d.channels]);
                  const T* xr = x + r * d.inner;
                  T* yr = y + r * d.inner;
                  for (int64_t i = 0; i < d.inner; ++i) {
                    const C v = static_cast<C>(xr[i]);
                    yr[i] = static_cast<T>(v > C(0) ? v : a * v);
                  }
                }
              });
}

template <typename T>
void PReLUBackward(const KernelContext& ctx, const PReLUDims& d, const T* g, const T* x,
                   const T* gamma, T* dx, T* dgamma) {
  using C = ComputeType<T>;
  if (dx != nullptr) {
    ParallelFor(ctx, d.outer * d.channels, static_cast<double>(d.inner),
                [&](int64_t begin, int64_t end) {
                  for (int64_t r = begin; r < end; ++r) {
                    const C a = static_cast<C>(gamma[d.shared ? 0 : r % d.channels]);
                    const int64_t base = r * d.inner;
                    for (int64_t i = base; i < base + d.inner; ++i) {
                      const C gv = static_cast<C>(g[i]);
                      dx[i] = static_cast<T>(static_cast<C>(x[i]) > C(0) ? gv : a * gv);
                    }
                  }
                });
  }
  if (dgamma == nullptr) return;
  // d/dgamma[c] = sum over the channel's elements of g * min(x, 0) (x where x <= 0).
  auto channel_sum = [&](int64_t c) {
    C sum(0);
    for (int64_t o = 0; o < d.outer; ++o) {
      const int64_t base = (o * d.channels + c) * d.inner;
      for (int64_t i = base; i < base + d.inner; ++i) {
        const C xv = static_cast<C>(x[i]);
        if (!(xv > C(0))) sum += xv * static_cast<C>(g[i]);
      }
    }
    return sum;
  };
  if (d.shared) {
    C sum(0);
    for (int64_t c = 0; c < d.channels; ++c) sum += channel_sum(c);
    dgamma[0] = static_cast<T>(sum);
    return;
  }
  ParallelFor(ctx, d.channels, static_cast<double>(d.outer * d.inner),
              [&](int64_t begin, int64_t end) {
                for (int64_t c = begin; c < end; ++c) dgamma[c] = static_cast<T>(channel_sum(c));
              });
}

template <typename T>
absl::Status LeakyReLUForward(const KernelContext& ctx, const LeakyReLUParam& p) {
  const Tensor& in = ctx.inputs[0];
  const Tensor& out = ctx.outputs[0];
  const int64_t n = in.size();
  auto x = Flat<T>(in);
  auto y = Flat<T>(out);
  const T zero(0);
  auto positive = x > x.constant(zero);
  // elu, selu and gelu compute in ComputeType<T> and round once.
  using C = ComputeType<T>;
  auto xc = x.template cast<C>();
  auto positive_c = xc > xc.constant(C(0));
  auto put = [&](const auto& e) { Assign(ctx, y, e.template cast<T>(), n); };
  switch (p.type) {
    case LeakyReLUType::kLeaky:
      Assign(ctx, y, positive.select(x, x * FromAttr<T>(p.slope)), n);
      break;
    case LeakyReLUType::kELU:
      put(positive_c.select(xc, xc.expm1() * C(p.slope)));
      break;
    case LeakyReLUType::kSELU:
      put(positive_c.select(xc * C(kSeluLambda), xc.expm1() * C(kSeluLambda * kSeluAlpha)));
      break;
    case LeakyReLUType::kGELU:
      put(Accurate<GeluOp>(xc));
      break;
    case LeakyReLUType::kPReLU: {
      PReLUDims d;
      SYMX_RETURN_IF_ERROR(GetPReLUDims(ctx, in, ctx.inputs[1], &d));
      PReLUForward<T>(ctx, d, in.data<T>(), ctx.inputs[1].data<T>(), out.data<T>());
      break;
    }
    case LeakyReLUType::kRReLU: {
      // Training: a slope drawn uniformly from [lower_bound, upper_bound) per
      // element, kept in the mask for the backward. Inference: the mean slope
      // (the mask holds it too, so every output is written).
      auto mask = Flat<T>(ctx.outputs[1]);
      if (ctx.is_train) {
        if (ctx.device == nullptr) {
          return absl::FailedPreconditionError(
              absl::StrCat(ctx.Where(), ": rrelu needs a device random generator"));
        }
        std::mt19937_64& rng = ctx.device->rng();
        const double lo = p.lower_bound;
        const double width = p.upper_bound - p.lower_bound;
        T* m = ctx.outputs[1].data<T>();
        for (int64_t i = 0; i < n; ++i) {
          m[i] = FromAttr<T>(lo + width * std::generate_canonical<double, 53>(rng));
        }
      } else {
        const double mean = (p.lower_bound + p.upper_bound) / 2;
        Assign(ctx, mask, mask.constant(FromAttr<T>(mean)), n);
      }
      Assign(ctx, y, positive.select(x, x * mask), n);
      break;
    }
  }
  return absl::OkStatus();
}

// (ograd, data, [gamma], output, [mask]) -> (grad data, [grad gamma]).
template <typename T>
absl::Status LeakyReLUBackward(const KernelContext& ctx, const LeakyReLUParam& p) {
  const Tensor& g_t = ctx.inputs[0];
  const Tensor& x_t = ctx.inputs[1];
  const int64_t n = g_t.size();
  auto g = Flat<T>(g_t);
  auto x = Flat<T>(x_t);
  const T zero(0);
  auto positive = x > x.constant(zero);
  if (p.type == LeakyReLUType::kPReLU) {
    const Tensor& gamma = ctx.inputs[2];
    PReLUDims d;
    SYMX_RETURN_IF_ERROR(GetPReLUDims(ctx, x_t, gamma, &d));
    T* dx = SkipOutput(ctx, 0) ? nullptr : ctx.outputs[0].data<T>();
    T* dgamma = SkipOutput(ctx, 1) ? nullptr : ctx.outputs[1].data<T>();
    PReLUBackward<T>(ctx, d, g_t.data<T>(), x_t.data<T>(), gamma.data<T>(), dx, dgamma);
    return absl::OkStatus();
  }
  if (SkipOutput(ctx, 0)) return absl::OkStatus();
  auto y = Flat<T>(ctx.inputs[2]);
  auto dx = Flat<T>(ctx.outputs[0]);
  switch (p.type) {
    case LeakyReLUType::kLeaky:
      Assign(ctx, dx, positive.select(g, g * FromAttr<T>(p.slope)), n);
      break;
    case LeakyReLUType::kELU:
      // slope e^x = y + slope for x <= 0.
      Assign(ctx, dx, positive.select(g, g * (y + FromAttr<T>(p.slope))), n);
      break;
    case LeakyReLUType::kSELU:
      // lambda alpha e^x = y + lambda alpha for x <= 0.
      Assign(ctx, dx,
             positive.select(g * FromAttr<T>(kSeluLambda),
                             g * (y + FromAttr<T>(kSeluLambda * kSeluAlpha))),
             n);
      break;
    case LeakyReLUType::kGELU: {
      // Phi(x) + x phi(x).
      using C = ComputeType<T>;
      auto gc = g.template cast<C>();
      auto xc = x.template cast<C>();
      Assign(ctx, dx,
             (gc * (Accurate<NormalCdfOp>(xc) +
                    xc * Accurate<ExpOp>(xc.square() * C(-0.5)) * C(kInvSqrt2Pi)))
                 .template cast<T>(),
             n);
      break;
    }
    case LeakyReLUType::kRReLU: {
      auto mask = Flat<T>(ctx.inputs[3]);
      Assign(ctx, dx, positive.select(g, g * mask), n);
      break;
    }
    case LeakyReLUType::kPReLU:
      break;
  }
  return absl::OkStatus();
}

absl::Status LeakyReLUKernel(const KernelContext& ctx) {
  const LeakyReLUParam& p = ctx.param<LeakyReLUParam>();
  SYMX_FLOAT16_SWITCH(ctx, ctx.inputs[0].dtype(), T, { return LeakyReLUForward<T>(ctx, p); });
  return absl::OkStatus();
}

absl::Status BackwardLeakyReLUKernel(const KernelContext& ctx) {
  const LeakyReLUParam& p = ctx.param<LeakyReLUParam>();
  SYMX_FLOAT16_SWITCH(ctx, ctx.inputs[0].dtype(), T, { return LeakyReLUBackward<T>(ctx, p); });
  return absl::OkStatus();
}

// ---------------------------------------------------------------------------
// hard_sigmoid and softsign.

// y = clip(alpha x + beta, 0, 1), in float (double for float64) with float32
// alpha and beta, rounded once, as MXNet's; the gradient passes alpha g where
// 0 < alpha x + beta < 1 (computed in the dtype, as MXNet's).
absl::Status HardSigmoidKernel(const KernelContext& ctx) {
  const HardSigmoidParam& p = ctx.param<HardSigmoidParam>();
  const Tensor& in = ctx.inputs[0];
  SYMX_FLOAT16_SWITCH(ctx, in.dtype(), T, {
    using C = ComputeType<T>;
    const C alpha = static_cast<C>(p.alpha), beta = static_cast<C>(p.beta);
    MapUnary(ctx, in.data<T>(), ctx.outputs[0].data<T>(), in.size(), 3.0, [=](C x) {
      const C r = static_cast<C>(static_cast<T>(alpha * x + beta));
      return r > C(1) ? C(1) : (r < C(0) ? C(0) : r);
    });
  });
  return absl::OkStatus();
}

absl::Status BackwardHardSigmoidKernel(const KernelContext& ctx) {
  const HardSigmoidParam& p = ctx.param<HardSigmoidParam>();
  const Tensor& g = ctx.inputs[0];
  SYMX_FLOAT16_SWITCH(ctx, g.dtype(), T, {
    using C = ComputeType<T>;
    const C alpha = static_cast<C>(static_cast<T>(p.alpha));
    const C beta = static_cast<C>(static_cast<T>(p.beta));
    MapBinary(ctx, g.data<T>(), ctx.inputs[1].data<T>(), ctx.outputs[0].data<T>(), g.size(), 3.0,
              [=](C gv, C x) {
                const C v = alpha * x + beta;
                return v > C(0) && v < C(1) ? gv * alpha : C(0);
              });
  });
  return absl::OkStatus();
}

// softsign: Activation's formula in the float types; in the integer types
// MXNet takes, |x / (1 + |x|)| < 1 truncates to 0.
absl::Status SoftSignKernel(const KernelContext& ctx) {
  const Tensor& in = ctx.inputs[0];
  const Tensor& out = ctx.outputs[0];
  switch (in.dtype()) {
    case DType::kUint8:
    case DType::kInt8:
    case DType::kInt32:
    case DType::kInt64:
      if (out.nbytes() > 0) std::memset(out.raw_data(), 0, out.nbytes());
      return absl::OkStatus();
    default:
      break;
  }
  SYMX_FLOAT16_SWITCH(ctx, in.dtype(), T,
                      { ActivationForward<T>(ctx, ActivationType::kSoftSign, in, out); });
  return absl::OkStatus();
}

// (ograd, data) -> g / (1 + |x|)^2.
absl::Status BackwardSoftSignKernel(const KernelContext& ctx) {
  const Tensor& g = ctx.inputs[0];
  const Tensor& x = ctx.inputs[1];
  SYMX_FLOAT16_SWITCH(ctx, g.dtype(), T, {
    ActivationBackward<T>(ctx, ActivationType::kSoftSign, g, x, x, ctx.outputs[0]);
  });
  return absl::OkStatus();
}

SYMX_REGISTER_KERNEL("hard_sigmoid", kCPU, HardSigmoidKernel);
SYMX_REGISTER_KERNEL("_backward_hard_sigmoid", kCPU, BackwardHardSigmoidKernel);
SYMX_REGISTER_KERNEL("softsign", kCPU, SoftSignKernel);
SYMX_REGISTER_KERNEL("_backward_softsign", kCPU, BackwardSoftSignKernel);

SYMX_REGISTER_KERNEL("Activation", kCPU, ActivationKernel);
SYMX_REGISTER_KERNEL("_backward_Activation", kCPU, BackwardActivationKernel);
SYMX_REGISTER_KERNEL("LeakyReLU", kCPU, LeakyReLUKernel);
SYMX_REGISTER_KERNEL("_backward_LeakyReLU", kCPU, BackwardLeakyReLUKernel);

}  // namespace
}  // namespace cpu
}  // namespace symx
