// Conformance of the unary math ops (graph/ops/math.cc) and smooth_l1:
// forward against <cmath> references in float32/float64/float16, backward
// against finite differences in float64 (inputs inside each op's domain and
// away from kinks: arccosh > 1, |arctanh| < 1, gamma away from its poles).
// The rounding ops and sign have a zero gradient (as in MXNet), which the
// finite differences confirm away from the jumps; they and sign also run on
// integer dtypes. The contributed ops: the straight-through estimators
// (round/sign forward, the head gradient passed through), the gradient
// multiplier and quadratic.
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/ops/conformance.h"

namespace symx {
namespace testing {
namespace {

using Init = std::function<Values(int, const Shape&)>;
using Fn = std::function<double(double)>;

const std::vector<DType> kFloats = {DType::kFloat32, DType::kFloat64, DType::kFloat16};
const double kPi = 3.14159265358979323846;

Init Uniform(double lo, double hi) {
  return [lo, hi](int input, const Shape& s) {
    std::mt19937_64 rng(77 + input);
    std::uniform_real_distribution<double> u(lo, hi);
    Values v(NumElements(s));
    for (double& x : v) x = u(rng);
    return v;
  };
}

// |x| in [lo, hi) with a random sign.
Init AwayFromZero(double lo, double hi) {
  return [lo, hi](int input, const Shape& s) {
    std::mt19937_64 rng(91 + input);
    std::uniform_real_distribution<double> u(lo, hi);
    Values v(NumElements(s));
    for (double& x : v) x = (rng() & 1) ? u(rng) : -u(rng);
    return v;
  };
}

// The listed values, repeated.
Init Fixed(Values vals) {
  return [vals](int input, const Shape& s) {
    Values v(NumElements(s));
    for (size_t k = 0; k < v.size(); ++k) v[k] = vals[k % vals.size()];
    return v;
  };
}

OpCase Unary(const std::string& op, const Shape& s, Fn f, Init init, AttrMap attrs = {}) {
  OpCase c;
  c.name = absl::StrCat(op, " ", s.ToString());
  for (const auto& [k, v] : attrs) absl::StrAppend(&c.name, " ", k, "=", v);
  c.op = op;
  c.attrs = std::move(attrs);
  c.shapes = {s};
  c.reference = [f](const std::vector<Values>& in, const std::vector<Shape>&) {
    Values out(in[0].size());
    for (size_t i = 0; i < out.size(); ++i) out[i] = f(in[0][i]);
    return std::vector<Values>{out};
  };
  c.init = std::move(init);
  c.dtypes = kFloats;
  return c;
}

const std::vector<Shape> kShapes = {Shape{6}, Shape{2, 3}, Shape{2, 1, 4}, Shape{0, 3}};

struct MathCase {
  std::string op;
  Fn f;
  Init init;
};

std::vector<MathCase> MathCases() {
  return {
      {"log2", [](double x) { return std::log2(x); }, Uniform(0.2, 3.0)},
      {"log10", [](double x) { return std::log10(x); }, Uniform(0.2, 3.0)},
      {"log1p", [](double x) { return std::log1p(x); }, Uniform(-0.5, 2.0)},
      {"expm1", [](double x) { return std::expm1(x); }, Uniform(-2.0, 2.0)},
      {"sin", [](double x) { return std::sin(x); }, Uniform(-3.0, 3.0)},
      {"cos", [](double x) { return std::cos(x); }, Uniform(-3.0, 3.0)},
      {"tan", [](double x) { return std::tan(x); }, Uniform(-1.2, 1.2)},
      {"arcsin", [](double x) { return std::asin(x); }, Uniform(-0.9, 0.9)},
      {"arccos", [](double x) { return std::acos(x); }, Uniform(-0.9, 0.9)},
      {"arctan", [](double x) { return std::atan(x); }, Uniform(-3.0, 3.0)},
      {"sinh", [](double x) { return std::sinh(x); }, Uniform(-2.0, 2.0)},
      {"cosh", [](double x) { return std::cosh(x); }, Uniform(-2.0, 2.0)},
      {"arcsinh", [](double x) { return std::asinh(x); }, Uniform(-3.0, 3.0)},
      {"arccosh", [](double x) { return std::acosh(x); }, Uniform(1.2, 4.0)},
      {"arctanh", [](double x) { return std::atanh(x); }, Uniform(-0.8, 0.8)},
      {"degrees", [](double x) { return x * 180.0 / kPi; }, Uniform(-3.0, 3.0)},
      {"radians", [](double x) { return x * kPi / 180.0; }, Uniform(-200.0, 200.0)},
      {"reciprocal", [](double x) { return 1.0 / x; }, AwayFromZero(0.3, 2.0)},
      {"rsqrt", [](double x) { return 1.0 / std::sqrt(x); }, Uniform(0.2, 3.0)},
      {"cbrt", [](double x) { return std::cbrt(x); }, AwayFromZero(0.2, 3.0)},
      {"rcbrt", [](double x) { return 1.0 / std::cbrt(x); }, AwayFromZero(0.2, 3.0)},
      {"erf", [](double x) { return std::erf(x); }, Uniform(-2.0, 2.0)},
      {"erfinv", nullptr, Uniform(-0.9, 0.9)},
      {"gamma", [](double x) { return std::tgamma(x); }, Uniform(0.3, 4.0)},
      {"gammaln", [](double x) { return std::lgamma(x); }, Uniform(0.3, 5.0)},
  };
}

// erfinv's reference: bisection on std::erf (independent of the kernel's
// Newton refinement).
double ErfinvRef(double y) {
  double lo = -6, hi = 6;
  for (int i = 0; i < 200; ++i) {
    double mid = 0.5 * (lo + hi);
    (std::erf(mid) < y ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

TEST(MathConformance, Differentiable) {
  for (const Shape& s : kShapes) {
    for (const MathCase& m : MathCases()) {
      Fn f = m.op == "erfinv" ? Fn(ErfinvRef) : m.f;
      CheckOp(Unary(m.op, s, f, m.init));
    }
  }
}

// gamma and gammaln between poles on the negative axis (reflection in the
// digamma of the gradient), and larger arguments.
TEST(MathConformance, GammaNegativeAndLarge) {
  for (const Init& init : {Uniform(-0.9, -0.1), Uniform(-2.9, -2.1), Uniform(5.0, 9.0)}) {
    OpCase g = Unary(
        "gamma", Shape{2, 4}, [](double x) { return std::tgamma(x); }, init);
    g.dtypes = {DType::kFloat32, DType::kFloat64};
    CheckOp(g);
    CheckOp(Unary(
        "gammaln", Shape{2, 4}, [](double x) { return std::lgamma(x); }, init));
  }
}

// Near +-1 erfinv grows fast; the Newton-refined kernel still matches.
TEST(MathConformance, ErfinvTails) {
  OpCase c = Unary("erfinv", Shape{6}, ErfinvRef, Fixed({-0.999, -0.99, 0.0, 0.5, 0.99, 0.999}));
  c.grad_tol = 1e-5;
  CheckOp(c);
  OpCase edges = Unary(
      "erfinv", Shape{2}, [](double y) { return y > 0 ? INFINITY : -INFINITY; },
      Fixed({1.0, -1.0}));
  edges.check_backward = false;
  CheckOp(edges);
}

// ---------------------------------------------------------------------------
// Rounding and sign.

double RoundHalfAway(double x) { return x < 0 ? -std::floor(-x + 0.5) : std::floor(x + 0.5); }
// MXNet 1.9.1's rint sends ties to the lower neighbour (not to even).
double RintTiesDown(double x) {
  double f = std::floor(x);
  return x - f > 0.5 ? f + 1 : f;
}
double Sign(double x) { return x > 0 ? 1.0 : (x < 0 ? -1.0 : 0.0); }
double TowardZero(double x) { return x < 0 ? -std::floor(-x) : std::floor(x); }

struct RoundCase {
  std::string op;
  Fn f;
};

const std::vector<RoundCase> kRounding = {
    {"floor", [](double x) { return std::floor(x); }},
    {"ceil", [](double x) { return std::ceil(x); }},
    {"round", RoundHalfAway},
    {"rint", RintTiesDown},
    {"fix", TowardZero},
    {"trunc", TowardZero},
    {"sign", Sign},
};

TEST(MathConformance, RoundingAndSign) {
  // Halves, near-halves, whole numbers and signed zero: float16 holds all of them.
  Init special = Fixed(
      {-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, -3.5, 0.0, -0.0, 2.0, -3.0, 0.25, -0.75, 1.75, -1.25});
  for (const RoundCase& r : kRounding) {
    OpCase c = Unary(r.op, Shape{4, 4}, r.f, special);
    c.check_backward = false;  // the values sit on the jumps
    CheckOp(c);
    // Zero gradient, away from the jumps.
    for (const Shape& s : kShapes) CheckOp(Unary(r.op, s, r.f, Uniform(-3.3, 3.3)));
    // Integer dtypes: rounding is the identity, sign is -1/0/1 (0/1 for uint8).
    OpCase ints = Unary(r.op, Shape{3, 4}, r.f, Fixed({-7, -2, -1, 0, 1, 2, 5, 100, -100}));
    ints.name += " integers";
    ints.dtypes = {DType::kInt8, DType::kInt32, DType::kInt64, DType::kUint8};
    ints.check_backward = false;
    CheckOp(ints);
  }
}

// NaN: sign gives 0 (MXNet), the rounding ops keep NaN.
TEST(MathConformance, NaN) {
  Init nan = Fixed({NAN, 1.5, -2.5});
  for (const RoundCase& r : kRounding) {
    OpCase c = Unary(
        r.op, Shape{3}, [&r](double x) { return std::isnan(x) && r.op == "sign" ? 0.0 : r.f(x); },
        nan);
    c.check_backward = false;
    CheckOp(c);
  }
}

// ---------------------------------------------------------------------------
// smooth_l1.

Fn SmoothL1(double sigma) {
  return [sigma](double x) {
    double s2 = sigma * sigma;
    return std::fabs(x) < 1 / s2 ? 0.5 * s2 * x * x : std::fabs(x) - 0.5 / s2;
  };
}

TEST(MathConformance, SmoothL1) {
  for (const Shape& s : kShapes) {
    CheckOp(Unary("smooth_l1", s, SmoothL1(1.0), Uniform(-3.0, 3.0)));  // default scalar
    for (double sigma : {1.0, 2.0, 0.5, 3.0}) {
      CheckOp(Unary("smooth_l1", s, SmoothL1(sigma), Uniform(-3.0, 3.0),
                    {{"scalar", absl::StrCat(sigma)}}));
    }
  }
  // Both sides of the threshold 1/sigma^2 = 0.25, the boundary itself
  // belonging to the linear part (as MXNet).
  OpCase c = Unary("smooth_l1", Shape{8}, SmoothL1(2.0),
                   Fixed({-2.0, -0.3, -0.2, 0.0, 0.1, 0.25, 0.3, 2.0}),
                   {{"scalar", "2"}, {"is_int", "1"}});
  c.check_backward = false;  // 0.25 sits on the kink
  CheckOp(c);
  // sigma = 0: everything is inside, f = 0.
  CheckOp(Unary("smooth_l1", Shape{5}, [](double) { return 0.0; }, Uniform(-3.0, 3.0),
                {{"scalar", "0"}}));
}

// ---------------------------------------------------------------------------
// Straight-through estimators, the gradient multiplier, quadratic.

// The gradient of `op` on x for head gradient `head`, through the executor
// (the estimators' gradients are what finite differences cannot see).
Values GradThrough(const std::string& op, AttrMap attrs, const Values& x, const Values& head) {
  OpCall call(op);
  call.Name("op");
  for (const auto& [k, v] : attrs) call.Attr(k, v);
  Symbol y = call.Input(Symbol::Variable("x")).Build();
  const Shape s{static_cast<int64_t>(x.size())};
  BindOptions opt;
  std::map<std::string, Tensor> args = {{"x", Tensor::FromVector(s, x, DType::kFloat64)}};
  std::map<std::string, Tensor> grads = {{"x", ValueOrThrow(Tensor::Zeros(s, DType::kFloat64))}};
  auto exe = Executor::Bind(y, opt, ArrayArgs(args), ArrayArgs(grads), ArrayArgs());
  exe->Forward(true);
  exe->Backward({Tensor::FromVector(s, head, DType::kFloat64)});
  return exe->grad_dict().at("x").ToDoubles();
}

TEST(MathConformance, StraightThroughEstimators) {
  Init special = Fixed({-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, -1.9, 1.9, 2.7, 0.0, -3.0, 0.25});
  const Values x = {-1.5, 1.5, -1.9, 1.9, 2.7, 0.0};
  const Values head = {0.5, -1.0, 2.0, 3.0, -0.25, 7.0};
  for (const auto& [op, f] : std::vector<std::pair<std::string, Fn>>{
           {"_contrib_round_ste", RoundHalfAway}, {"_contrib_sign_ste", Sign}}) {
    OpCase c = Unary(op, Shape{3, 4}, f, special);
    c.check_backward = false;  // the head gradient passes: checked below
    CheckOp(c);
    OpCase ints = Unary(op, Shape{3, 3}, f, Fixed({-7, -2, -1, 0, 1, 2, 5, 100, -100}));
    ints.name += " integers";
    ints.dtypes = {DType::kInt8, DType::kInt32, DType::kInt64, DType::kUint8};
    ints.check_backward = false;
    CheckOp(ints);
    EXPECT_EQ(GradThrough(op, {}, x, head), head) << op;
  }
}

TEST(MathConformance, GradientMultiplier) {
  // The identity forward, in every dtype.
  OpCase c = Unary("_contrib_gradientmultiplier", Shape{2, 3}, [](double x) { return x; },
                   Fixed({-3, -1, 0, 1, 2, 5}), {{"scalar", "-2.5"}});
  c.dtypes = {DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kUint8,
              DType::kInt8,    DType::kInt32,   DType::kInt64,   DType::kBool};
  c.check_backward = false;  // scaled: checked below
  CheckOp(c);
  // With the default scalar 1 the gradient is the identity's.
  CheckOp(Unary(
      "_contrib_gradientmultiplier", Shape{2, 3}, [](double x) { return x; }, Uniform(-2, 2)));
  const Values head = {1.0, -2.0, 0.5};
  EXPECT_EQ(GradThrough("_contrib_gradientmultiplier", {{"scalar", "-2.5"}, {"is_int", "0"}},
                        {3, 4, 5}, head),
            (Values{-2.5, 5.0, -1.25}));
}

TEST(MathConformance, Quadratic) {
  auto quad = [](double a, double b, double c) {
    return [a, b, c](double x) { return x * (a * x + b) + c; };
  };
  for (const Shape& s : kShapes) {
    CheckOp(Unary("_contrib_quadratic", s, quad(1.5, -2, 0.5), Uniform(-3, 3),
                  {{"a", "1.5"}, {"b", "-2"}, {"c", "0.5"}}));
    CheckOp(Unary("_contrib_quadratic", s, quad(0, 0, 0), Uniform(-3, 3)));  // the defaults
  }
  // Integers: the float result truncates.
  OpCase ints = Unary("_contrib_quadratic", Shape{6},
                      [](double x) { return std::trunc(x * (1.5 * x + 2) + 0.5); },
                      Fixed({-2, 1, 0, 3, -1, 4}), {{"a", "1.5"}, {"b", "2"}, {"c", "0.5"}});
  ints.dtypes = {DType::kInt8, DType::kInt32, DType::kInt64};
  ints.check_backward = false;
  CheckOp(ints);
  // The coefficients are float32 values: 0.1 is 0.100000001490116...
  OpCase f64 = Unary("_contrib_quadratic", Shape{3},
                     [](double x) { return x * (static_cast<double>(0.1f) * x); }, Fixed({1, 2, 3}),
                     {{"a", "0.1"}});
  f64.dtypes = {DType::kFloat64};
  f64.forward_tol64 = 0;
  f64.check_backward = false;
  CheckOp(f64);
  std::string msg = ErrorOf([] {
    RunOp("_contrib_quadratic", {{"a", "one"}}, {MakeTensor(Shape{2}, {1, 2}, DType::kFloat32)});
  });
  EXPECT_CONTAINS(msg, "a");
  EXPECT_CONTAINS(msg, "one");
  msg = ErrorOf([] {
    RunOp("_contrib_quadratic", {{"d", "1"}}, {MakeTensor(Shape{2}, {1, 2}, DType::kFloat32)});
  });
  EXPECT_CONTAINS(msg, "d");
}

}  // namespace
}  // namespace testing

}  // namespace symx
