#include "tools/ulp/ulp_cases.h"

#include <cmath>

namespace symx::ulp {
namespace {

using L = long double;

constexpr L kSeluAlpha = 1.6732632423543772848170429916717L;
constexpr L kSeluLambda = 1.0507009873554804934193349852946L;
constexpr L kTwoOverSqrtPi = 1.1283791670955125738961589031215L;

L Softplus(L x) { return std::fmax(x, 0.0L) + std::log1p(std::exp(-std::fabs(x))); }

// erfinv by Newton's method from a rough start: on erf for |y| <= 0.5, on
// erfc(y) = 1 - y beyond (1 - y is exact for a float or double y), where erf
// is too flat to invert in long double.
L Erfinv(L y) {
  if (std::isnan(y) || std::fabs(y) > 1) return std::nanl("");
  if (std::fabs(y) == 1) return std::copysign(HUGE_VALL, y);
  if (y == 0) return y;
  const L a = std::fabs(y);
  // Start: the inverse of erf's tail, sqrt(-log((1 - a) / 2)) scaled.
  L x = a < 0.5L ? a * 0.886226925452758L : std::sqrt(-std::log((1 - a) / 2) * 0.9L);
  for (int i = 0; i < 60; ++i) {
    const L f = a <= 0.5L ? std::erf(x) - a : (1 - a) - std::erfc(x);
    const L step = f / (kTwoOverSqrtPi * std::exp(-x * x));
    x -= step;
    if (std::fabs(step) <= std::fabs(x) * 1e-21L) break;
  }
  return std::copysign(x, y);
}

// float16 and bfloat16 compute in float and round once: correctly rounded
// but for the rare double rounding of a float result that lands within a
// float ulp of a midpoint (0.51 leaves room for that).
constexpr double kHalfBound = 0.51;

std::map<DType, double> Bounds(double f32, double f64) {
  return {{DType::kFloat32, f32},
          {DType::kFloat64, f64},
          {DType::kFloat16, kHalfBound},
          {DType::kBFloat16, kHalfBound}};
}

}  // namespace

const std::vector<UlpCase>& AllUlpCases() {
  // Bounds (float32, float64): the largest error measured, rounded up: over
  // every float16 and bfloat16 input, a float64 sample, and every 4099th
  // float32 (every float32 for the functions docs/numerics.md names as swept
  // in full by ulp_sweep --full); 0.51 where the result is correctly rounded
  // but for double rounding. docs/numerics.md lists them with the formulas.
  static const auto* cases = new std::vector<UlpCase>{
      {"exp", "exp", {}, [](L x) { return std::exp(x); }, Bounds(1.5, 2)},
      {"log", "log", {}, [](L x) { return std::log(x); }, Bounds(1.5, 1.5)},
      {"log2", "log2", {}, [](L x) { return std::log2(x); }, Bounds(1, 1)},
      {"log10", "log10", {}, [](L x) { return std::log10(x); }, Bounds(0.51, 0.51)},
      {"log1p", "log1p", {}, [](L x) { return std::log1p(x); }, Bounds(1, 1)},
      {"expm1", "expm1", {}, [](L x) { return std::expm1(x); }, Bounds(1, 1)},
      {"sqrt", "sqrt", {}, [](L x) { return std::sqrt(x); }, Bounds(0.51, 0.51)},
      {"rsqrt", "rsqrt", {}, [](L x) { return 1 / std::sqrt(x); }, Bounds(0.51, 1.5)},
      {"cbrt", "cbrt", {}, [](L x) { return std::cbrt(x); }, Bounds(0.51, 0.51)},
      {"rcbrt", "rcbrt", {}, [](L x) { return 1 / std::cbrt(x); }, Bounds(0.51, 0.51)},
      {"reciprocal", "reciprocal", {}, [](L x) { return 1 / x; }, Bounds(0.51, 0.51)},
      {"sin", "sin", {}, [](L x) { return std::sin(x); }, Bounds(1, 1)},
      {"cos", "cos", {}, [](L x) { return std::cos(x); }, Bounds(1, 1)},
      {"tan", "tan", {}, [](L x) { return std::tan(x); }, Bounds(1, 1)},
      {"sinh", "sinh", {}, [](L x) { return std::sinh(x); }, Bounds(2, 2)},
      {"cosh", "cosh", {}, [](L x) { return std::cosh(x); }, Bounds(1.5, 1)},
      {"arcsin", "arcsin", {}, [](L x) { return std::asin(x); }, Bounds(1, 1)},
      {"arccos", "arccos", {}, [](L x) { return std::acos(x); }, Bounds(1, 1)},
      {"arctan", "arctan", {}, [](L x) { return std::atan(x); }, Bounds(1, 1)},
      {"arcsinh", "arcsinh", {}, [](L x) { return std::asinh(x); }, Bounds(1.5, 2)},
      {"arccosh", "arccosh", {}, [](L x) { return std::acosh(x); }, Bounds(2, 1.5)},
      {"arctanh", "arctanh", {}, [](L x) { return std::atanh(x); }, Bounds(2, 1.5)},
      {"erf", "erf", {}, [](L x) { return std::erf(x); }, Bounds(1, 1)},
      {"erfinv", "erfinv", {}, Erfinv, Bounds(0.51, 1.5)},
      {"gamma", "gamma", {}, [](L x) { return std::tgamma(x); }, Bounds(0.51, 0.51)},
      {"gammaln", "gammaln", {}, [](L x) { return std::lgamma(x); }, Bounds(0.51, 0.51)},
      {"sigmoid", "sigmoid", {}, [](L x) { return 1 / (1 + std::exp(-x)); }, Bounds(2.5, 2.5)},
      {"tanh", "tanh", {}, [](L x) { return std::tanh(x); }, Bounds(1.5, 2)},
      {"Activation(sigmoid)",
       "Activation",
       {{"act_type", "sigmoid"}},
       [](L x) { return 1 / (1 + std::exp(-x)); },
       Bounds(2.5, 2.5)},
      {"Activation(tanh)",
       "Activation",
       {{"act_type", "tanh"}},
       [](L x) { return std::tanh(x); },
       Bounds(1.5, 2)},
      {"Activation(softrelu)",
       "Activation",
       {{"act_type", "softrelu"}},
       Softplus,
       Bounds(2.5, 1.5)},
      {"Activation(softsign)",
       "Activation",
       {{"act_type", "softsign"}},
       [](L x) { return x / (1 + std::fabs(x)); },
       Bounds(1.5, 1.5)},
      {"Activation(log_sigmoid)",
       "Activation",
       {{"act_type", "log_sigmoid"}},
       [](L x) { return std::fmin(x, 0.0L) - std::log1p(std::exp(-std::fabs(x))); },
       Bounds(3, 1.5)},
      {"Activation(mish)",
       "Activation",
       {{"act_type", "mish"}},
       [](L x) { return x * std::tanh(Softplus(x)); },
       Bounds(4, 5)},
      {"LeakyReLU(elu)",
       "LeakyReLU",
       {{"act_type", "elu"}},
       [](L x) { return x > 0 ? x : 0.25L * std::expm1(x); },
       Bounds(2.5, 1)},
      {"LeakyReLU(selu)",
       "LeakyReLU",
       {{"act_type", "selu"}},
       [](L x) { return kSeluLambda * (x > 0 ? x : kSeluAlpha * std::expm1(x)); },
       Bounds(3.5, 3)},
      {"LeakyReLU(gelu)",
       "LeakyReLU",
       {{"act_type", "gelu"}},
       [](L x) { return x / 2 * std::erfc(-x / std::sqrt(2.0L)); },
       Bounds(3.5, 1.5)},
      // Rows [x, 0]: the first element is sigmoid(x) (softmax) or
      // log_sigmoid(x) (log_softmax); a row holding +inf is NaN, as in MXNet
      // (x - max is inf - inf).
      {"softmax_row_x_0",
       "softmax",
       {{"axis", "1"}},
       [](L x) { return std::isinf(x) && x > 0 ? std::nanl("") : 1 / (1 + std::exp(-x)); },
       Bounds(2.5, 3),
       Form::kRowWithZero},
      {"log_softmax_row_x_0",
       "log_softmax",
       {{"axis", "1"}},
       [](L x) {
         return std::isinf(x) && x > 0 ? std::nanl("")
                                       : std::fmin(x, 0.0L) - std::log1p(std::exp(-std::fabs(x)));
       },
       Bounds(2, 1.5),
       Form::kRowWithZero},
      // The RNN gates (float32 and float64 only: MXNet has no float16 RNN on CPU).
      {"RNN_tanh_gate",
       "RNN",
       {},
       [](L x) { return std::tanh(x); },
       {{DType::kFloat32, 0.51}, {DType::kFloat64, 0.51}},
       Form::kRnnTanhGate},
      {"RNN_lstm_sigmoid_gate",
       "RNN",
       {},
       [](L x) { return 1 / (1 + std::exp(-x)); },
       {{DType::kFloat32, 2.5}, {DType::kFloat64, 2.5}},
       Form::kLstmSigmoidGate},
  };
  return *cases;
}

}  // namespace symx::ulp
