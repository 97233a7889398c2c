// Tests of the activation family (graph/ops/activation.cc).
//
// Conformance of Activation (every act_type) and LeakyReLU (leaky, prelu,
// elu, selu, gelu, rrelu): forward against plain formulas in float32, float64
// and float16, _backward_Activation and _backward_LeakyReLU by finite
// differences. rrelu draws random slopes while training, so only its
// inference forward is in the tables; a direct kernel test checks the training
// slopes, and another the float16 backward kernels. hard_sigmoid and softsign
// as standalone ops, with their parameter errors.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/device.h"
#include "devices/kernel.h"
#include "devices/tensor.h"
#include "gmock/gmock.h"
#include "graph/node.h"
#include "gtest/gtest.h"
#include "tests/ops/conformance.h"
#include "tests/ops/kernel_runs.h"

namespace symx {
namespace testing {
namespace {

const std::vector<DType> kFloats = {DType::kFloat32, DType::kFloat64, DType::kFloat16};

const std::vector<Shape> kShapes = {Shape{5}, Shape{2, 3}, Shape{2, 3, 2}, Shape{1, 1},
                                    Shape{0, 3}};

using Init = std::function<Values(int, const Shape&)>;

Init Uniform(double lo, double hi) {
  return [lo, hi](int input, const Shape& s) {
    std::mt19937_64 rng(31 + input);
    std::uniform_real_distribution<double> u(lo, hi);
    Values v(NumElements(s));
    for (double& x : v) x = u(rng);
    return v;
  };
}

// |x| in [lo, hi) with random signs: clear of the kink at 0.
Init AwayFromZero(double lo, double hi) {
  return [lo, hi](int input, const Shape& s) {
    std::mt19937_64 rng(57 + input);
    std::uniform_real_distribution<double> u(lo, hi);
    Values v(NumElements(s));
    for (double& x : v) x = (rng() & 1) ? u(rng) : -u(rng);
    return v;
  };
}

OpCase Elementwise(const std::string& op, const std::string& act_type, const Shape& shape,
                   std::function<double(double)> f, Init init, AttrMap extra = {}) {
  OpCase c;
  c.name = absl::StrCat(op, " ", act_type, " ", shape.ToString());
  c.op = op;
  c.attrs = std::move(extra);
  c.attrs["act_type"] = act_type;
  c.shapes = {shape};
  c.init = std::move(init);
  c.reference = [f](const std::vector<Values>& in, const std::vector<Shape>&) {
    Values out(in[0].size());
    for (size_t i = 0; i < out.size(); ++i) out[i] = f(in[0][i]);
    return std::vector<Values>{out};
  };
  c.dtypes = kFloats;
  return c;
}

double Softplus(double x) { return std::log1p(std::exp(x)); }
double Sigmoid(double x) { return 1 / (1 + std::exp(-x)); }

TEST(ActivationConformance, Activation) {
  for (const Shape& s : kShapes) {
    CheckOp(Elementwise(
        "Activation", "relu", s, [](double x) { return x > 0 ? x : 0.0; },
        AwayFromZero(0.05, 2.0)));
    CheckOp(Elementwise("Activation", "sigmoid", s, Sigmoid, Uniform(-4, 4)));
    CheckOp(Elementwise(
        "Activation", "log_sigmoid", s, [](double x) { return std::log(Sigmoid(x)); },
        Uniform(-4, 4)));
    CheckOp(Elementwise(
        "Activation", "mish", s, [](double x) { return x * std::tanh(Softplus(x)); },
        Uniform(-3, 3)));
    CheckOp(Elementwise(
        "Activation", "tanh", s, [](double x) { return std::tanh(x); }, Uniform(-3, 3)));
    CheckOp(Elementwise("Activation", "softrelu", s, Softplus, Uniform(-4, 4)));
    CheckOp(Elementwise(
        "Activation", "softsign", s, [](double x) { return x / (1 + std::fabs(x)); },
        AwayFromZero(0.05, 3.0)));
  }
}

// Far tails, where the naive formulas overflow or cancel.
TEST(ActivationConformance, ActivationTails) {
  Shape s{8};
  Init wide = [](int, const Shape& shape) {
    Values v = {-60, -25, -12, -0.5, 0.5, 12, 25, 60};
    v.resize(NumElements(shape));
    return v;
  };
  OpCase softrelu = Elementwise(
      "Activation", "softrelu", s,
      [](double x) { return std::max(x, 0.0) + std::log1p(std::exp(-std::fabs(x))); }, wide);
  softrelu.dtypes = {DType::kFloat32, DType::kFloat64};
  CheckOp(softrelu);
  OpCase log_sigmoid = Elementwise(
      "Activation", "log_sigmoid", s,
      [](double x) { return std::min(x, 0.0) - std::log1p(std::exp(-std::fabs(x))); }, wide);
  log_sigmoid.dtypes = {DType::kFloat32, DType::kFloat64};
  CheckOp(log_sigmoid);
  OpCase sigmoid = Elementwise("Activation", "sigmoid", s, Sigmoid, wide);
  sigmoid.dtypes = {DType::kFloat32, DType::kFloat64};
  CheckOp(sigmoid);
}

constexpr double kAlpha = 1.6732632423543772848170429916717;
constexpr double kLambda = 1.0507009873554804934193349852946;

TEST(ActivationConformance, LeakyReLUElementwise) {
  for (const Shape& s : kShapes) {
    CheckOp(Elementwise("LeakyReLU", "leaky", s, [](double x) { return x > 0 ? x : 0.1 * x; },
                        AwayFromZero(0.05, 2.0), {{"slope", "0.1"}}));
    // The default slope is 0.25.
    CheckOp(Elementwise(
        "LeakyReLU", "leaky", s, [](double x) { return x > 0 ? x : 0.25 * x; },
        AwayFromZero(0.05, 2.0)));
    CheckOp(Elementwise("LeakyReLU", "elu", s,
                        [](double x) { return x > 0 ? x : 0.5 * std::expm1(x); },
                        AwayFromZero(0.05, 2.0), {{"slope", "0.5"}}));
    CheckOp(Elementwise(
        "LeakyReLU", "selu", s,
        [](double x) { return kLambda * (x > 0 ? x : kAlpha * std::expm1(x)); },
        AwayFromZero(0.05, 2.0)));
    CheckOp(Elementwise(
        "LeakyReLU", "gelu", s,
        [](double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); }, Uniform(-3, 3)));
  }
}

TEST(ActivationConformance, LeakyReLURReLUInference) {
  for (const Shape& s : kShapes) {
    OpCase c =
        Elementwise("LeakyReLU", "rrelu", s, [](double x) { return x > 0 ? x : 0.25 * x; },
                    AwayFromZero(0.05, 2.0), {{"lower_bound", "0.1"}, {"upper_bound", "0.4"}});
    c.is_train = false;
    c.check_backward = false;  // training draws a new slope per element each pass
    CheckOp(c);
  }
}

// prelu: data (batch, channels, ...) and one slope per channel, or one shared.
OpCase PReLU(const Shape& data, int64_t gamma_size) {
  OpCase c;
  c.name = absl::StrCat("LeakyReLU prelu ", data.ToString(), " gamma (", gamma_size, ")");
  c.op = "LeakyReLU";
  c.attrs = {{"act_type", "prelu"}};
  c.shapes = {data, Shape{gamma_size}};
  Init x = AwayFromZero(0.05, 2.0);
  Init gamma = Uniform(0.05, 0.6);
  c.init = [x, gamma](int input, const Shape& s) { return input == 0 ? x(0, s) : gamma(1, s); };
  c.reference = [](const std::vector<Values>& in, const std::vector<Shape>& s) {
    const Shape& d = s[0];
    int64_t inner = 1;
    for (int i = 2; i < d.ndim(); ++i) inner *= d[i];
    Values out(in[0].size());
    for (size_t i = 0; i < out.size(); ++i) {
      int64_t ch = (static_cast<int64_t>(i) / inner) % d[1];
      double a = in[1].size() == 1 ? in[1][0] : in[1][ch];
      out[i] = in[0][i] > 0 ? in[0][i] : a * in[0][i];
    }
    return std::vector<Values>{out};
  };
  c.dtypes = kFloats;
  return c;
}

TEST(ActivationConformance, PReLU) {
  CheckOp(PReLU(Shape{2, 3}, 3));
  CheckOp(PReLU(Shape{2, 3, 4}, 3));
  CheckOp(PReLU(Shape{2, 3, 2, 2}, 3));
  CheckOp(PReLU(Shape{2, 3, 2}, 1));  // one shared slope
  CheckOp(PReLU(Shape{1, 1, 5}, 1));
  CheckOp(PReLU(Shape{0, 3, 2}, 3));  // empty batch: gamma's gradient is 0
}

// ---------------------------------------------------------------------------
// hard_sigmoid and softsign.

OpCase Plain(const std::string& op, const Shape& shape, std::function<double(double)> f, Init init,
             AttrMap attrs = {}) {
  OpCase c = Elementwise(op, "", shape, std::move(f), std::move(init), std::move(attrs));
  c.attrs.erase("act_type");
  c.name = absl::StrCat(op, " ", shape.ToString());
  for (const auto& [k, v] : c.attrs) absl::StrAppend(&c.name, " ", k, "=", v);
  return c;
}

// The kinks of hard_sigmoid sit where alpha x + beta is 0 or 1.
Init AwayFromKinks(double alpha, double beta) {
  return [alpha, beta](int input, const Shape& s) {
    std::mt19937_64 rng(71 + input);
    std::uniform_real_distribution<double> u(-6, 6);
    Values v(NumElements(s));
    for (double& x : v) {
      do {
        x = u(rng);
      } while (std::fabs(alpha * x + beta) < 0.05 || std::fabs(alpha * x + beta - 1) < 0.05);
    }
    return v;
  };
}

TEST(ActivationConformance, HardSigmoid) {
  for (const Shape& s : kShapes) {
    // The defaults, alpha the float32 value of 0.2.
    const double a = static_cast<float>(0.2);
    CheckOp(Plain(
        "hard_sigmoid", s, [a](double x) { return std::min(1.0, std::max(0.0, a * x + 0.5)); },
        AwayFromKinks(a, 0.5)));
    CheckOp(Plain("hard_sigmoid", s,
                  [](double x) { return std::min(1.0, std::max(0.0, -0.75 * x + 0.25)); },
                  AwayFromKinks(-0.75, 0.25), {{"alpha", "-0.75"}, {"beta", "0.25"}}));
  }
  std::string msg = ErrorOf([] {
    RunOp("hard_sigmoid", {{"alpha", "steep"}}, {MakeTensor(Shape{2}, {1, 2}, DType::kFloat32)});
  });
  EXPECT_CONTAINS(msg, "alpha");
  EXPECT_CONTAINS(msg, "steep");
  msg = ErrorOf([] {
    RunOp("hard_sigmoid", {{"gamma", "1"}}, {MakeTensor(Shape{2}, {1, 2}, DType::kFloat32)});
  });
  EXPECT_CONTAINS(msg, "gamma");
}

TEST(ActivationConformance, SoftSign) {
  for (const Shape& s : kShapes) {
    CheckOp(Plain(
        "softsign", s, [](double x) { return x / (1 + std::fabs(x)); }, AwayFromZero(0.05, 4.0)));
  }
  // Integers: |x / (1 + |x|)| < 1 truncates to 0, as in MXNet.
  OpCase ints = Plain(
      "softsign", Shape{5}, [](double) { return 0.0; },
      [](int, const Shape&) {
        return Values{-100, -1, 0, 1, 7};
      });
  ints.dtypes = {DType::kInt8, DType::kInt32, DType::kInt64, DType::kUint8};
  ints.check_backward = false;
  CheckOp(ints);
  std::string msg = ErrorOf([] {
    RunOp("softsign", {{"alpha", "1"}}, {MakeTensor(Shape{2}, {1, 2}, DType::kFloat32)});
  });
  EXPECT_CONTAINS(msg, "alpha");
}

}  // namespace
}  // namespace testing

namespace {

using kernel_runs::Call;
using kernel_runs::Empty;
using kernel_runs::ExpectNear;
using kernel_runs::KernelRun;
using kernel_runs::Make;
using kernel_runs::MakeRun;
using kernel_runs::Random;
using kernel_runs::RunOp;
using ::symx::testing::BroadcastAt;
using ::testing::HasSubstr;

TEST(ActivationKernels, Float16ActivationBackward) {
  const int64_t n = 50;
  for (const std::string act :
       {"relu", "sigmoid", "log_sigmoid", "mish", "tanh", "softrelu", "softsign"}) {
    Tensor x = Make(Shape{n}, Random(n, -3, 3, 14), DType::kFloat16);
    Tensor y = Empty(Shape{n}, DType::kFloat16);
    ASSERT_TRUE(RunOp("Activation", {{"act_type", act}}, {x}, {y}).ok());
    Tensor g = Make(Shape{n}, Random(n, -1, 1, 15), DType::kFloat16);
    Tensor dx = Empty(Shape{n}, DType::kFloat16);
    // mish and softsign differentiate from the input too (ActivationNeedsData).
    const bool needs_x = act == "mish" || act == "softsign";
    std::vector<Tensor> bin = {g, y};
    if (needs_x) bin.push_back(x);
    ASSERT_TRUE(RunOp("_backward_Activation", {{"act_type", act}}, bin, {dx}).ok());
    // The same in float64.
    Tensor x64 = Make(Shape{n}, x.ToDoubles(), DType::kFloat64);
    Tensor y64 = Empty(Shape{n}, DType::kFloat64);
    ASSERT_TRUE(RunOp("Activation", {{"act_type", act}}, {x64}, {y64}).ok());
    Tensor g64 = Make(Shape{n}, g.ToDoubles(), DType::kFloat64);
    Tensor dx64 = Empty(Shape{n}, DType::kFloat64);
    std::vector<Tensor> bin64 = {g64, y64};
    if (needs_x) bin64.push_back(x64);
    ASSERT_TRUE(RunOp("_backward_Activation", {{"act_type", act}}, bin64, {dx64}).ok());
    ExpectNear(y.ToDoubles(), y64.ToDoubles(), 4e-3, act + " forward");
    ExpectNear(dx.ToDoubles(), dx64.ToDoubles(), 1e-2, act + " backward");
  }
}

// ---------------------------------------------------------------------------
// rrelu

TEST(ActivationKernels, RReLUTrainingDrawsSlopesInRange) {
  const int64_t n = 4000;
  std::vector<double> x = Random(n, -1, 1, 16);
  Tensor in = Make(Shape{40, 100}, x, DType::kFloat64);
  Tensor out = Empty(Shape{40, 100}, DType::kFloat64),
         mask = Empty(Shape{40, 100}, DType::kFloat64);
  AttrMap attrs = {{"act_type", "rrelu"}, {"lower_bound", "0.1"}, {"upper_bound", "0.4"}};
  ASSERT_TRUE(RunOp("LeakyReLU", attrs, {in}, {out, mask}, /*is_train=*/true).ok());
  std::vector<double> m = mask.ToDoubles(), y = out.ToDoubles();
  double lo = 1, hi = 0, sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    lo = std::min(lo, m[i]);
    hi = std::max(hi, m[i]);
    sum += m[i];
    ASSERT_DOUBLE_EQ(y[i], x[i] > 0 ? x[i] : m[i] * x[i]) << i;
  }
  EXPECT_GE(lo, 0.1);
  EXPECT_LT(hi, 0.4);
  EXPECT_NEAR(sum / n, 0.25, 0.01);  // uniform: mean (lo + hi) / 2
  // Two passes draw different slopes.
  Tensor mask2 = Empty(Shape{40, 100}, DType::kFloat64);
  ASSERT_TRUE(RunOp("LeakyReLU", attrs, {in}, {out, mask2}, true).ok());
  EXPECT_NE(mask2.ToDoubles(), m);

  // The backward uses the stored slopes: (ograd, data, output, mask).
  ASSERT_TRUE(RunOp("LeakyReLU", attrs, {in}, {out, mask}, true).ok());
  m = mask.ToDoubles();
  std::vector<double> gv = Random(n, -1, 1, 17);
  Tensor g = Make(Shape{40, 100}, gv, DType::kFloat64);
  Tensor dx = Empty(Shape{40, 100}, DType::kFloat64);
  ASSERT_TRUE(RunOp("_backward_LeakyReLU", attrs, {g, in, out, mask}, {dx}).ok());
  std::vector<double> want(n);
  for (int64_t i = 0; i < n; ++i) want[i] = x[i] > 0 ? gv[i] : m[i] * gv[i];
  ExpectNear(dx.ToDoubles(), want, 1e-15, "rrelu backward");

  // Inference: the mean slope, also written to the mask.
  ASSERT_TRUE(RunOp("LeakyReLU", attrs, {in}, {out, mask}, /*is_train=*/false).ok());
  for (double v : mask.ToDoubles()) ASSERT_DOUBLE_EQ(v, 0.25);
}

}  // namespace

}  // namespace symx
