// CPU kernels of the unary math ops in graph/ops/math.cc (log2 ...
// gammaln, the rounding ops, sign, smooth_l1, the straight-through
// estimators, _contrib_gradientmultiplier, _contrib_quadratic) and their
// backward ops.
//
// float32, float64 and float16 (computed in float, rounded once at the
// store). sign and the rounding ops also take uint8, int8, int32 and int64,
// where rounding is the identity; _contrib_quadratic takes them too and
// _contrib_gradientmultiplier any dtype. Each kernel is a plain loop through
// cpu::MapUnary / cpu::MapBinary (no new Eigen expressions); erfinv and
// digamma (the derivative of gammaln) are computed in double here since the
// C library has neither.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "absl/status/status.h"
#include "devices/cpu/elemwise_kernels.h"
#include "devices/cpu/kernel_util.h"
#include "devices/cpu/vector_math.h"
#include "devices/geometry/special_functions.h"
#include "graph/error.h"
#include "graph/ops/elemwise.h"
#include "graph/ops/math.h"

// The dtypes MXNet's _contrib_quadratic takes (float16 as Eigen::half).
#define SYMX_QUADRATIC_SWITCH(ctx, dtype, T, ...)           \
  switch (dtype) {                                          \
    SYMX_DTYPE_CASE_(kFloat32, float, T, __VA_ARGS__)       \
    SYMX_DTYPE_CASE_(kFloat64, double, T, __VA_ARGS__)      \
    SYMX_DTYPE_CASE_(kFloat16, Eigen::half, T, __VA_ARGS__) \
    SYMX_DTYPE_CASE_(kUint8, uint8_t, T, __VA_ARGS__)       \
    SYMX_DTYPE_CASE_(kInt8, int8_t, T, __VA_ARGS__)         \
    SYMX_DTYPE_CASE_(kInt32, int32_t, T, __VA_ARGS__)       \
    SYMX_DTYPE_CASE_(kInt64, int64_t, T, __VA_ARGS__)       \
    default:                                                \
      return ::symx::UnsupportedDType(ctx, dtype);          \
  }

namespace symx {
namespace cpu {
namespace {

constexpr double kPi = 3.14159265358979323846;

// ---------------------------------------------------------------------------
// Special functions.

// Inverse error function: M. Giles' single-precision approximation
// ("Approximating the erfinv function", 2010) refined by Newton steps on erf.
double Erfinv(double y) {
  if (std::isnan(y) || y < -1 || y > 1) return std::numeric_limits<double>::quiet_NaN();
  if (y == 1) return std::numeric_limits<double>::infinity();
  if (y == -1) return -std::numeric_limits<double>::infinity();
  double w = -std::log((1 - y) * (1 + y));
  double p;
  if (w < 5) {
    w -= 2.5;
    p = 2.81022636e-08;
    p = 3.43273939e-07 + p * w;
    p = -3.5233877e-06 + p * w;
    p = -4.39150654e-06 + p * w;
    p = 0.00021858087 + p * w;
    p = -0.00125372503 + p * w;
    p = -0.00417768164 + p * w;
    p = 0.246640727 + p * w;
    p = 1.50140941 + p * w;
  } else {
    w = std::sqrt(w) - 3;
    p = -0.000200214257;
    p = 0.000100950558 + p * w;
    p = 0.00134934322 + p * w;
    p = -0.00367342844 + p * w;
    p = 0.00573950773 + p * w;
    p = -0.0076224613 + p * w;
    p = 0.00943887047 + p * w;
    p = 1.00167406 + p * w;
    p = 2.83297682 + p * w;
  }
  double x = p * y;
  // Newton on erf near 0; in the tails on erfc(|x|) = 1 - |y| (exact there),
  // since erf is too flat near +-1 to invert in double (421 ulp at
  // y = -0.99997 with erf).
  const double k = 2 / std::sqrt(kPi);
  const double a = std::fabs(y);
  for (int i = 0; i < 3; ++i) {
    const double d = k * std::exp(-x * x);
    if (d == 0) break;
    if (a <= 0.5) {
      x -= (std::erf(x) - y) / d;
    } else {
      const double ax = std::fabs(x);
      x = std::copysign(ax + (std::erfc(ax) - (1 - a)) / d, y);
    }
  }
  return x;
}

// ---------------------------------------------------------------------------
// Drivers.

// out = f(in) for the float dtypes; f takes and returns the compute type.
template <typename F>
absl::Status FloatUnary(const KernelContext& ctx, double cost, F f) {
  const Tensor& in = ctx.inputs[0];
  const Tensor& out = ctx.outputs[0];
  SYMX_FLOAT16_SWITCH(ctx, in.dtype(), T,
                      { MapUnary(ctx, in.data<T>(), out.data<T>(), in.size(), cost, f); });
  return absl::OkStatus();
}

// Backward ops: out = f(ograd, v), v the forward input or output.
template <typename F>
absl::Status FloatGrad(const KernelContext& ctx, double cost, F f) {
  const Tensor& g = ctx.inputs[0];
  const Tensor& v = ctx.inputs[1];
  const Tensor& out = ctx.outputs[0];
  SYMX_FLOAT16_SWITCH(ctx, g.dtype(), T, {
    MapBinary(ctx, g.data<T>(), v.data<T>(), out.data<T>(), g.size(), cost, f);
  });
  return absl::OkStatus();
}

// sign and the rounding ops: `f` for floats, `fi` for the integer dtypes.
template <typename F, typename FI>
absl::Status IntOrFloatUnary(const KernelContext& ctx, F f, FI fi) {
  const Tensor& in = ctx.inputs[0];
  const Tensor& out = ctx.outputs[0];
  const int64_t n = in.size();
  switch (in.dtype()) {
    SYMX_DTYPE_CASE_(kUint8, uint8_t, T, MapUnary(ctx, in.data<T>(), out.data<T>(), n, 1.0, fi))
    SYMX_DTYPE_CASE_(kInt8, int8_t, T, MapUnary(ctx, in.data<T>(), out.data<T>(), n, 1.0, fi))
    SYMX_DTYPE_CASE_(kInt32, int32_t, T, MapUnary(ctx, in.data<T>(), out.data<T>(), n, 1.0, fi))
    SYMX_DTYPE_CASE_(kInt64, int64_t, T, MapUnary(ctx, in.data<T>(), out.data<T>(), n, 1.0, fi))
    default:
      return FloatUnary(ctx, 1.0, f);
  }
  return absl::OkStatus();
}

// The compute type's result through the next wider type: float through
// double, double through long double. For the C library functions whose own
// error is several ulp (tgamma, lgamma, cbrt, log10; docs/numerics.md), the
// wider result rounds to within about half an ulp.
#define SYMX_VIA_WIDER(fn_of_w)       \
  [](auto x) {                        \
    using C = decltype(x);            \
    const vector_math::Wide<C> w = x; \
    return static_cast<C>(fn_of_w);   \
  }

// float computes in double, double in double.
template <typename C>
using FloatViaDouble = std::conditional_t<std::is_same_v<C, float>, double, C>;

// lgamma without the C library's global signgam, which threads would race on.
inline double LogGamma(double x) {
  int sign;
  return lgamma_r(x, &sign);
}
inline long double LogGamma(long double x) {
  int sign;
  return lgammal_r(x, &sign);
}

// A compute-type value from a double (special functions run in double).
#define SYMX_VIA_DOUBLE(expr_of_d)           \
  [](auto x) {                               \
    using C = decltype(x);                   \
    const double d = static_cast<double>(x); \
    return static_cast<C>(expr_of_d);        \
  }

#define SYMX_MATH_KERNEL(op, cost, lambda) \
  SYMX_REGISTER_KERNEL(                    \
      op, kCPU,                            \
      +[](const KernelContext& ctx) -> absl::Status { return FloatUnary(ctx, cost, lambda); })

#define SYMX_MATH_GRAD_KERNEL(op, cost, lambda) \
  SYMX_REGISTER_KERNEL(                         \
      op, kCPU,                                 \
      +[](const KernelContext& ctx) -> absl::Status { return FloatGrad(ctx, cost, lambda); })

// ---------------------------------------------------------------------------
// Forward.

SYMX_MATH_KERNEL("log2", 10, [](auto x) { return std::log2(x); });
SYMX_MATH_KERNEL("log10", 10, SYMX_VIA_WIDER(std::log10(w)));
SYMX_MATH_KERNEL("log1p", 10, [](auto x) { return std::log1p(x); });
SYMX_MATH_KERNEL("expm1", 10, [](auto x) { return std::expm1(x); });
SYMX_MATH_KERNEL("sin", 10, [](auto x) { return std::sin(x); });
SYMX_MATH_KERNEL("cos", 10, [](auto x) { return std::cos(x); });
SYMX_MATH_KERNEL("tan", 10, [](auto x) { return std::tan(x); });
SYMX_MATH_KERNEL("arcsin", 10, [](auto x) { return std::asin(x); });
SYMX_MATH_KERNEL("arccos", 10, [](auto x) { return std::acos(x); });
SYMX_MATH_KERNEL("arctan", 10, [](auto x) { return std::atan(x); });
SYMX_MATH_KERNEL("sinh", 10, [](auto x) { return std::sinh(x); });
SYMX_MATH_KERNEL("cosh", 10, [](auto x) { return std::cosh(x); });
SYMX_MATH_KERNEL("arcsinh", 10, [](auto x) { return std::asinh(x); });
SYMX_MATH_KERNEL("arccosh", 10, [](auto x) { return std::acosh(x); });
SYMX_MATH_KERNEL("arctanh", 10, [](auto x) { return std::atanh(x); });
SYMX_MATH_KERNEL("degrees", 1, [](auto x) {
  using C = decltype(x);
  return x * static_cast<C>(180.0 / kPi);
});
SYMX_MATH_KERNEL("radians", 1, [](auto x) {
  using C = decltype(x);
  return x * static_cast<C>(kPi / 180.0);
});
SYMX_MATH_KERNEL("reciprocal", 1, [](auto x) {
  using C = decltype(x);
  return C(1) / x;
});
// float through double (one rounding); double as 1 / sqrt (1.5 ulp).
SYMX_MATH_KERNEL("rsqrt", 5, [](auto x) {
  using C = decltype(x);
  using W = FloatViaDouble<C>;
  return static_cast<C>(W(1) / std::sqrt(W(x)));
});
SYMX_MATH_KERNEL("cbrt", 10, SYMX_VIA_WIDER(std::cbrt(w)));
SYMX_MATH_KERNEL("rcbrt", 10, SYMX_VIA_WIDER(1 / std::cbrt(w)));
SYMX_MATH_KERNEL("erf", 10, [](auto x) { return std::erf(x); });
SYMX_MATH_KERNEL("erfinv", 40, SYMX_VIA_DOUBLE(Erfinv(d)));
SYMX_MATH_KERNEL("gamma", 20, SYMX_VIA_WIDER(std::tgamma(w)));
SYMX_MATH_KERNEL("gammaln", 20, SYMX_VIA_WIDER(LogGamma(w)));

SYMX_REGISTER_KERNEL(
    "smooth_l1", kCPU, +[](const KernelContext& ctx) -> absl::Status {
      const double sigma = ctx.param<ScalarParam>().scalar;
      const double s2 = sigma * sigma;
      return FloatUnary(ctx, 2.0, [s2](auto x) {
        using C = decltype(x);
        const C a = std::fabs(x);
        return a < static_cast<C>(1.0 / s2) ? static_cast<C>(0.5 * s2) * x * x
                                            : a - static_cast<C>(0.5 / s2);
      });
    });

// Rounding and sign; integers round to themselves.
#define SYMX_ROUND_KERNEL(op, fn)                                         \
  SYMX_REGISTER_KERNEL(                                                   \
      op, kCPU, +[](const KernelContext& ctx) -> absl::Status {           \
        return IntOrFloatUnary(                                           \
            ctx, [](auto x) { return fn(x); }, [](auto x) { return x; }); \
      })

SYMX_ROUND_KERNEL("floor", std::floor);
SYMX_ROUND_KERNEL("ceil", std::ceil);
SYMX_ROUND_KERNEL("round", std::round);  // halves away from zero
// MXNet 1.9.1's rint is not numpy's: a tie goes to the lower neighbour
// (rint(0.5) = 0, rint(1.5) = 1, rint(-0.5) = -1), checked with MXNet.
template <typename C>
C RintTiesDown(C x) {
  const C lo = std::floor(x);
  const C hi = std::ceil(x);
  return (x - lo) <= (hi - x) ? lo : hi;
}
SYMX_ROUND_KERNEL("rint", RintTiesDown);
SYMX_ROUND_KERNEL("fix", std::trunc);
SYMX_ROUND_KERNEL("trunc", std::trunc);

// MXNet's sign: 1, -1, else 0 (NaN included).
struct SignOf {
  template <typename C>
  C operator()(C x) const {
    if constexpr (std::is_unsigned_v<C>) {
      return x > C(0) ? C(1) : C(0);
    } else {
      return x > C(0) ? C(1) : (x < C(0) ? static_cast<C>(-1) : C(0));
    }
  }
};
absl::Status SignKernel(const KernelContext& ctx) {
  return IntOrFloatUnary(ctx, SignOf(), SignOf());
}
SYMX_REGISTER_KERNEL("sign", kCPU, SignKernel);

// The straight-through estimators compute as round and sign.
SYMX_ROUND_KERNEL("_contrib_round_ste", std::round);
SYMX_REGISTER_KERNEL("_contrib_sign_ste", kCPU, SignKernel);

// _contrib_gradientmultiplier: the identity, any dtype.
SYMX_REGISTER_KERNEL(
    "_contrib_gradientmultiplier", kCPU, +[](const KernelContext& ctx) -> absl::Status {
      const Tensor& in = ctx.inputs[0];
      const Tensor& out = ctx.outputs[0];
      if (in.raw_data() != out.raw_data() && out.nbytes() > 0) {
        std::memcpy(out.raw_data(), in.read_raw_data(), out.nbytes());
      }
      return absl::OkStatus();
    });

// _contrib_quadratic: x (a x + b) + c with float32 coefficients, computed in
// float (double for float64), as MXNet's; integers truncate the float result
// (through int64, so narrow types wrap as MXNet's do).
template <typename T>
using QuadC = std::conditional_t<std::is_same_v<T, double>, double, float>;

SYMX_REGISTER_KERNEL(
    "_contrib_quadratic", kCPU, +[](const KernelContext& ctx) -> absl::Status {
      const Tensor& in = ctx.inputs[0];
      const Tensor& out = ctx.outputs[0];
      const QuadraticParam& p = ctx.param<QuadraticParam>();
      SYMX_QUADRATIC_SWITCH(ctx, in.dtype(), T, {
        using C = QuadC<T>;
        const C a = static_cast<C>(p.a), b = static_cast<C>(p.b), c = static_cast<C>(p.c);
        const T* x = in.data<T>();
        T* y = out.data<T>();
        ParallelFor(ctx, in.size(), 3.0, [&](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i) {
            const C v = static_cast<C>(x[i]);
            const C r = v * (a * v + b) + c;
            if constexpr (std::is_integral_v<T>) {
              y[i] = CastValue<T>(static_cast<double>(r));
            } else {
              y[i] = static_cast<T>(r);
            }
          }
        });
      });
      return absl::OkStatus();
    });

// ---------------------------------------------------------------------------
// Backward: (ograd g, v) -> g * f'(x).

// d/dx (a x^2 + b x + c) = 2 a x + b.
SYMX_REGISTER_KERNEL(
    "_contrib_backward_quadratic", kCPU, +[](const KernelContext& ctx) -> absl::Status {
      const QuadraticParam& p = ctx.param<QuadraticParam>();
      return FloatGrad(ctx, 3.0, [&p](auto g, auto x) {
        using C = decltype(g);
        return g * (C(2) * static_cast<C>(static_cast<float>(p.a)) * x +
                    static_cast<C>(static_cast<float>(p.b)));
      });
    });

SYMX_MATH_GRAD_KERNEL("_backward_log2", 2, [](auto g, auto x) {
  using C = decltype(x);
  return g / (x * static_cast<C>(std::log(2.0)));
});
SYMX_MATH_GRAD_KERNEL("_backward_log10", 2, [](auto g, auto x) {
  using C = decltype(x);
  return g / (x * static_cast<C>(std::log(10.0)));
});
SYMX_MATH_GRAD_KERNEL("_backward_log1p", 2, [](auto g, auto x) {
  using C = decltype(x);
  return g / (x + C(1));
});
// From the output y = e^x - 1.
SYMX_MATH_GRAD_KERNEL("_backward_expm1", 2, [](auto g, auto y) {
  using C = decltype(y);
  return g * (y + C(1));
});
SYMX_MATH_GRAD_KERNEL("_backward_sin", 10, [](auto g, auto x) { return g * std::cos(x); });
SYMX_MATH_GRAD_KERNEL("_backward_cos", 10, [](auto g, auto x) { return -g * std::sin(x); });
// From the output y = tan x.
SYMX_MATH_GRAD_KERNEL("_backward_tan", 2, [](auto g, auto y) {
  using C = decltype(y);
  return g * (C(1) + y * y);
});
SYMX_MATH_GRAD_KERNEL("_backward_arcsin", 5, [](auto g, auto x) {
  using C = decltype(x);
  return g / std::sqrt(C(1) - x * x);
});
SYMX_MATH_GRAD_KERNEL("_backward_arccos", 5, [](auto g, auto x) {
  using C = decltype(x);
  return -g / std::sqrt(C(1) - x * x);
});
SYMX_MATH_GRAD_KERNEL("_backward_arctan", 2, [](auto g, auto x) {
  using C = decltype(x);
  return g / (C(1) + x * x);
});
SYMX_MATH_GRAD_KERNEL("_backward_sinh", 10, [](auto g, auto x) { return g * std::cosh(x); });
SYMX_MATH_GRAD_KERNEL("_backward_cosh", 10, [](auto g, auto x) { return g * std::sinh(x); });
// 1 / sqrt(x^2 + 1) as 1 / hypot(x, 1), and 1 / sqrt(x^2 - 1) as a product
// of square roots: x^2 overflows float32 from |x| = 1.8e19 (the fuzzer's
// arcsinh(cosh(x)) got a zero gradient there).
SYMX_MATH_GRAD_KERNEL("_backward_arcsinh", 5, [](auto g, auto x) {
  using C = decltype(x);
  return g / std::hypot(x, C(1));
});
SYMX_MATH_GRAD_KERNEL("_backward_arccosh", 5, [](auto g, auto x) {
  using C = decltype(x);
  return g / (std::sqrt(x - C(1)) * std::sqrt(x + C(1)));
});
SYMX_MATH_GRAD_KERNEL("_backward_arctanh", 2, [](auto g, auto x) {
  using C = decltype(x);
  return g / (C(1) - x * x);
});
SYMX_MATH_GRAD_KERNEL("_backward_degrees", 1, [](auto g, auto x) {
  using C = decltype(x);
  return g * static_cast<C>(180.0 / kPi);
});
SYMX_MATH_GRAD_KERNEL("_backward_radians", 1, [](auto g, auto x) {
  using C = decltype(x);
  return g * static_cast<C>(kPi / 180.0);
});
SYMX_MATH_GRAD_KERNEL("_backward_reciprocal", 2, [](auto g, auto x) { return -g / (x * x); });
// d x^(-1/2) = -x^(-3/2) / 2.
SYMX_MATH_GRAD_KERNEL("_backward_rsqrt", 5, [](auto g, auto x) {
  using C = decltype(x);
  return g * (static_cast<C>(-0.5) / (x * std::sqrt(x)));
});
// From the output y = cbrt x: 1 / (3 y^2).
SYMX_MATH_GRAD_KERNEL("_backward_cbrt", 2, [](auto g, auto y) {
  using C = decltype(y);
  return g / (C(3) * y * y);
});
// d x^(-1/3) = -x^(-4/3) / 3 = -rcbrt(x) / (3 x).
SYMX_MATH_GRAD_KERNEL("_backward_rcbrt", 10, [](auto g, auto x) {
  using C = decltype(x);
  return -g / (C(3) * x * std::cbrt(x));
});
SYMX_MATH_GRAD_KERNEL("_backward_erf", 10, [](auto g, auto x) {
  using C = decltype(x);
  return g * static_cast<C>(2.0 / std::sqrt(kPi)) * std::exp(-x * x);
});
// From the output y = erfinv x: sqrt(pi)/2 e^(y^2).
SYMX_MATH_GRAD_KERNEL("_backward_erfinv", 10, [](auto g, auto y) {
  using C = decltype(y);
  return g * static_cast<C>(std::sqrt(kPi) / 2) * std::exp(y * y);
});
SYMX_MATH_GRAD_KERNEL("_backward_gamma", 40, [](auto g, auto x) {
  using C = decltype(x);
  const double d = static_cast<double>(x);
  return g * static_cast<C>(std::tgamma(d) * Digamma(d));
});
SYMX_MATH_GRAD_KERNEL("_backward_gammaln", 30, [](auto g, auto x) {
  using C = decltype(x);
  return g * static_cast<C>(Digamma(static_cast<double>(x)));
});

// smooth_l1: sigma^2 x inside |x| < 1/sigma^2, sign(x) outside.
SYMX_REGISTER_KERNEL(
    "_backward_smooth_l1", kCPU, +[](const KernelContext& ctx) -> absl::Status {
      const double sigma = ctx.param<ScalarParam>().scalar;
      const double s2 = sigma * sigma;
      return FloatGrad(ctx, 2.0, [s2](auto g, auto x) {
        using C = decltype(x);
        if (std::fabs(x) < static_cast<C>(1.0 / s2)) return g * static_cast<C>(s2) * x;
        return x > C(0) ? g : (x < C(0) ? -g : C(0));
      });
    });

}  // namespace
}  // namespace cpu
}  // namespace symx
