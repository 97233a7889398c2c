// Tests of the random family (graph/ops/random.cc): the samplers'
// distributions on every device present and in every dtype MXNet accepts
// (sample moments, and a Kolmogorov-Smirnov or chi-square test, all at a fixed
// seed with bounds a correct sampler meets with overwhelming probability),
// determinism per seed and device whatever the thread count, shape and dtype
// inference (legacy 0 dims, _like, _sample_X both ways), zero gradients, and
// the parameter errors.
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/device.h"
#include "executor/executor.h"
#include "graph/op.h"
#include "graph/symbol.h"
#include "gtest/gtest.h"
#include "tests/ops/conformance.h"
#include "tests/ops/kernel_runs.h"

namespace symx {
namespace {

using testing::DevicesPresent;
using testing::ErrorOf;
using testing::MakeTensor;
using testing::Values;

constexpr int64_t kDraws = 20000;

// Runs `net` (a sampler over the variables of `args`) on `ctx` and returns
// output 0 on the host.
std::vector<double> RunOn(const Symbol& net, const Context& ctx,
                          const std::map<std::string, Tensor>& args = {}) {
  SimpleBindOptions o;
  o.ctx = ctx;
  o.grad_req = GradReq::kNull;
  std::map<std::string, DType> types;
  for (const auto& [name, t] : args) {
    o.shapes[name] = t.shape();
    types[name] = t.dtype();
  }
  o.type_dict = types;
  std::unique_ptr<Executor> exe = Executor::SimpleBind(net, o);
  for (const auto& [name, t] : args) ThrowIfError(CopyTensor(t, exe->arg_dict().at(name)));
  exe->Forward(false);
  const Tensor& out = exe->outputs()[0];
  return ValueOrThrow(CopyToNew(out, Context::CPU(), out.dtype())).ToDoubles();
}

Symbol Sampler(const std::string& op, const std::map<std::string, std::string>& attrs) {
  OpCall call(op);
  for (const auto& [k, v] : attrs) call.Attr(k, v);
  return call;
}

// ------------------------------------------------------------------ reference laws

double NormalCdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

// The regularized lower incomplete gamma P(a, x) (series below a + 1, else
// Legendre's continued fraction).
double GammaP(double a, double x) {
  if (x <= 0) return 0;
  const double log_front = a * std::log(x) - x - std::lgamma(a);
  if (x < a + 1) {
    double term = 1.0 / a, sum = term;
    for (int n = 1; n < 1000; ++n) {
      term *= x / (a + n);
      sum += term;
      if (term < sum * 1e-16) break;
    }
    return std::exp(log_front) * sum;
  }
  double b = x + 1 - a, c = 1e300, d = 1 / b, h = d;
  for (int i = 1; i < 1000; ++i) {
    const double an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (std::fabs(d) < 1e-300) d = 1e-300;
    c = b + an / c;
    if (std::fabs(c) < 1e-300) c = 1e-300;
    d = 1 / d;
    const double delta = d * c;
    h *= delta;
    if (std::fabs(delta - 1) < 1e-16) break;
  }
  return 1 - std::exp(log_front) * h;
}

// log P(X = x) of the negative binomial with r successes, success chance q.
double LogNegBinomialPmf(double x, double r, double q) {
  return std::lgamma(x + r) - std::lgamma(r) - std::lgamma(x + 1) + r * std::log(q) +
         x * std::log1p(-q);
}

struct Law {
  double mean, variance;
  std::function<double(double)> cdf;      // continuous laws
  std::function<double(double)> log_pmf;  // discrete laws (on 0, 1, 2, ...)
};

// The law of each distribution as MXNet parameterises it.
Law LawOf(const std::string& dist, double a, double b) {
  if (dist == "uniform") {
    return {(a + b) / 2, (b - a) * (b - a) / 12,
            [=](double x) { return std::clamp((x - a) / (b - a), 0.0, 1.0); }, nullptr};
  }
  if (dist == "normal") {
    return {a, b * b, [=](double x) { return NormalCdf((x - a) / b); }, nullptr};
  }
  if (dist == "gamma") {
    return {a * b, a * b * b, [=](double x) { return GammaP(a, x / b); }, nullptr};
  }
  if (dist == "exponential") {
    return {1 / a, 1 / (a * a), [=](double x) { return x <= 0 ? 0 : 1 - std::exp(-a * x); },
            nullptr};
  }
  if (dist == "poisson") {
    return {a, a, nullptr, [=](double x) { return x * std::log(a) - a - std::lgamma(x + 1); }};
  }
  if (dist == "negative_binomial") {
    // Failures before the k-th success, success chance p.
    return {a * (1 - b) / b, a * (1 - b) / (b * b), nullptr,
            [=](double x) { return LogNegBinomialPmf(x, a, b); }};
  }
  // generalized_negative_binomial(mu, alpha): r = 1 / alpha, q = 1 / (1 + alpha mu).
  const double r = 1 / b, q = 1 / (1 + b * a);
  return {a, a + b * a * a, nullptr, [=](double x) { return LogNegBinomialPmf(x, r, q); }};
}

// Mean within 6 standard errors; variance within 6 standard errors of the
// sample variance (from the fourth central moment of the sample itself).
void ExpectMoments(const std::vector<double>& v, const Law& law, const std::string& what) {
  const double n = static_cast<double>(v.size());
  double mean = 0;
  for (double x : v) mean += x;
  mean /= n;
  double m2 = 0, m4 = 0;
  for (double x : v) {
    const double d = x - mean;
    m2 += d * d;
    m4 += d * d * d * d;
  }
  m2 /= n;
  m4 /= n;
  EXPECT_NEAR(mean, law.mean, 6 * std::sqrt(law.variance / n)) << what << ": mean";
  EXPECT_NEAR(m2, law.variance, 6 * std::sqrt(std::max(m4 - m2 * m2, 1e-30) / n) + 1e-12)
      << what << ": variance";
}

// Kolmogorov-Smirnov: sup |F_n - F| below the level-1e-6 critical value
// sqrt(ln(2 / 1e-6) / (2 n)), widened by `rounding` (the CDF's change over
// the output dtype's rounding of a value).
void ExpectKolmogorovSmirnov(std::vector<double> v, const Law& law, double rel_rounding,
                             const std::string& what) {
  std::sort(v.begin(), v.end());
  const double n = static_cast<double>(v.size());
  double d = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    // The rounding of a value to the output dtype can move the CDF by up to
    // F(x(1+r)) - F(x(1-r)).
    const double x = v[i], slack = std::fabs(x) * rel_rounding;
    const double lo = law.cdf(x - slack), hi = law.cdf(x + slack);
    d = std::max(d, std::max(static_cast<double>(i + 1) / n - hi, lo - static_cast<double>(i) / n));
  }
  EXPECT_LT(d, std::sqrt(std::log(2 / 1e-6) / (2 * n))) << what << ": Kolmogorov-Smirnov";
}

// Chi-square over the values 0..m-1 with expected counts of at least 5 and
// one bin for the rest, below the level-1e-6 critical value (Wilson-Hilferty).
void ExpectChiSquare(const std::vector<double>& v, const Law& law, const std::string& what) {
  const double n = static_cast<double>(v.size());
  std::vector<double> expected;
  double covered = 0;
  for (int x = 0; x < 100000; ++x) {
    const double e = n * std::exp(law.log_pmf(x));
    if (e < 5 && static_cast<double>(x) > law.mean) break;
    expected.push_back(e);
    covered += e;
  }
  std::vector<double> observed(expected.size() + 1, 0);
  for (double x : v) {
    ASSERT_EQ(x, std::floor(x)) << what << ": not an integer";
    ASSERT_GE(x, 0) << what;
    const size_t k = static_cast<size_t>(x);
    observed[std::min(k, expected.size())] += 1;
  }
  expected.push_back(n - covered);
  double chi2 = 0;
  int bins = 0;
  // Low-count bins at the left tail are pooled into their right neighbour.
  double pooled_e = 0, pooled_o = 0;
  for (size_t k = 0; k < expected.size(); ++k) {
    pooled_e += expected[k];
    pooled_o += observed[k];
    if (pooled_e < 5 && k + 1 < expected.size()) continue;
    chi2 += (pooled_o - pooled_e) * (pooled_o - pooled_e) / std::max(pooled_e, 1e-300);
    ++bins;
    pooled_e = pooled_o = 0;
  }
  const double df = std::max(bins - 1, 1);
  const double z = 4.753;  // the standard normal's 1 - 1e-6 quantile
  const double crit = df * std::pow(1 - 2 / (9 * df) + z * std::sqrt(2 / (9 * df)), 3);
  EXPECT_LT(chi2, crit) << what << ": chi-square over " << bins << " bins";
}

void ExpectLaw(const std::vector<double>& v, const Law& law, DType dt, const std::string& what) {
  ASSERT_EQ(static_cast<int64_t>(v.size()), kDraws) << what;
  for (double x : v) ASSERT_TRUE(std::isfinite(x)) << what;
  ExpectMoments(v, law, what);
  if (law.cdf) {
    ExpectKolmogorovSmirnov(v, law, dt == DType::kFloat16 ? 1.0 / 2048 : 1e-7, what);
  } else {
    ExpectChiSquare(v, law, what);
  }
}

struct DistCase {
  std::string dist;
  std::string key_a, key_b;  // _random_X's attributes
  double a, b;
};

const std::vector<DistCase>& DistCases() {
  static const auto* cases = new std::vector<DistCase>{
      {"uniform", "low", "high", -1.5, 2.5},
      {"normal", "loc", "scale", 1.5, 2.0},
      {"gamma", "alpha", "beta", 2.5, 0.75},
      {"gamma", "alpha", "beta", 0.4, 2.0},  // alpha < 1: the boosted draw
      {"exponential", "lam", "", 2.0, 0},
      {"poisson", "lam", "", 3.5, 0},
      {"poisson", "lam", "", 40.0, 0},  // the rejection branch (lam >= 12)
      {"negative_binomial", "k", "p", 3, 0.4},
      {"generalized_negative_binomial", "mu", "alpha", 2.0, 0.3},
  };
  return *cases;
}

// An attribute's text; integral values without a fraction (negative_binomial's
// k is an integer attribute).
std::string Text(double v) {
  return v == std::floor(v) ? absl::StrCat(static_cast<int64_t>(v)) : FormatDouble(v);
}

TEST(RandomSamplers, EachDistributionOnEveryDeviceAndDtype) {
  for (const Context& ctx : DevicesPresent()) {
    for (DType dt : {DType::kFloat32, DType::kFloat64, DType::kFloat16}) {
      for (const DistCase& c : DistCases()) {
        const std::string what = absl::StrCat("_random_", c.dist, "(", c.a, ", ", c.b, ") ",
                                              DTypeName(dt), " on ", ctx.ToString());
        SeedAllDevices(17);
        std::map<std::string, std::string> attrs = {
            {"shape", absl::StrCat("(100, ", kDraws / 100, ")")},
            {"dtype", DTypeName(dt)},
            {c.key_a, Text(c.a)}};
        if (!c.key_b.empty()) attrs[c.key_b] = Text(c.b);
        ExpectLaw(RunOn(Sampler("_random_" + c.dist, attrs), ctx), LawOf(c.dist, c.a, c.b), dt,
                  what);
      }
    }
  }
}

TEST(RandomSamplers, LikeFormsTakeTheInputsShapeAndDtype) {
  for (const Context& ctx : DevicesPresent()) {
    for (DType dt : {DType::kFloat32, DType::kFloat64, DType::kFloat16}) {
      for (const DistCase& c : DistCases()) {
        const std::string what =
            absl::StrCat("_random_", c.dist, "_like ", DTypeName(dt), " on ", ctx.ToString());
        OpCall call("_random_" + c.dist + "_like");
        call.Attr(c.key_a, Text(c.a));
        if (!c.key_b.empty()) call.Attr(c.key_b, Text(c.b));
        call.Input("data", Symbol::Variable("x"));
        SeedAllDevices(5);
        Tensor x = MakeTensor(Shape{kDraws / 50, 50}, Values(kDraws, 7.0), dt);
        ExpectLaw(RunOn(call, ctx, {{"x", x}}), LawOf(c.dist, c.a, c.b), dt, what);
      }
    }
  }
}

// _sample_X: each parameter pair draws from its own law; the parameter
// arrays may be of any dtype (here float64 and int32 where integral).
TEST(RandomSamplers, SampleFormsDrawPerParameter) {
  for (const Context& ctx : DevicesPresent()) {
    for (DType dt : {DType::kFloat32, DType::kFloat64, DType::kFloat16}) {
      for (const DistCase& c : DistCases()) {
        const bool two = !c.key_b.empty();
        // Two distributions: the case's and one with a scaled first parameter.
        const double a2 = c.dist == "uniform" ? c.a - 3 : c.a * 2;
        const Values pa = {c.a, a2}, pb = {c.b, c.b};
        const auto* op = OpRegistry::Global().Find("_sample_" + c.dist);
        ASSERT_NE(op, nullptr);
        OpCall call("_sample_" + c.dist);
        call.Attr("shape", absl::StrCat("(", kDraws, ",)")).Attr("dtype", DTypeName(dt));
        std::map<std::string, Tensor> args = {{"pa", MakeTensor(Shape{2}, pa, DType::kFloat64)}};
        call.Input(Symbol::Variable("pa"));
        if (two) {
          call.Input(Symbol::Variable("pb"));
          args["pb"] = MakeTensor(Shape{2}, pb, DType::kFloat64);
        }
        SeedAllDevices(99);
        const std::vector<double> v = RunOn(call, ctx, args);
        ASSERT_EQ(v.size(), 2u * kDraws);
        for (int k = 0; k < 2; ++k) {
          const std::string what = absl::StrCat("_sample_", c.dist, "(", pa[k], ", ", pb[k], ") ",
                                                DTypeName(dt), " on ", ctx.ToString());
          ExpectLaw(std::vector<double>(v.begin() + k * kDraws, v.begin() + (k + 1) * kDraws),
                    LawOf(c.dist, pa[k], pb[k]), dt, what);
        }
      }
    }
  }
}

TEST(RandomSamplers, SampleParametersOfAnyDtype) {
  for (const Context& ctx : DevicesPresent()) {
    for (DType pt : {DType::kInt32, DType::kUint8, DType::kInt64, DType::kFloat16}) {
      SeedAllDevices(3);
      Symbol net = OpCall("_sample_poisson")
                       .Attr("shape", absl::StrCat("(", kDraws, ",)"))
                       .Input(Symbol::Variable("lam"));
      const std::vector<double> v = RunOn(net, ctx, {{"lam", MakeTensor(Shape{1}, {6}, pt)}});
      ExpectLaw(v, LawOf("poisson", 6, 0), DType::kFloat32,
                absl::StrCat("_sample_poisson with ", DTypeName(pt), " lam on ", ctx.ToString()));
    }
  }
}

TEST(RandomSamplers, RandIntIsUniformOverTheRange) {
  for (const Context& ctx : DevicesPresent()) {
    for (DType dt : {DType::kInt32, DType::kInt64}) {
      SeedAllDevices(11);
      const std::vector<double> v =
          RunOn(Sampler("_random_randint", {{"low", "-3"},
                                            {"high", "9"},
                                            {"shape", absl::StrCat("(", kDraws, ",)")},
                                            {"dtype", DTypeName(dt)}}),
                ctx);
      // Shifted by 3: uniform on 0..11.
      std::vector<double> shifted(v.size());
      for (size_t i = 0; i < v.size(); ++i) shifted[i] = v[i] + 3;
      Law law{5.5, (144.0 - 1) / 12, nullptr,
              [](double x) { return x < 12 ? std::log(1.0 / 12) : -1e300; }};
      const std::string what =
          absl::StrCat("_random_randint ", DTypeName(dt), " on ", ctx.ToString());
      ExpectMoments(shifted, law, what);
      ExpectChiSquare(shifted, law, what);
      EXPECT_EQ(*std::min_element(v.begin(), v.end()), -3) << what;
      EXPECT_EQ(*std::max_element(v.begin(), v.end()), 8) << what;
    }
  }
  // int64 beyond int32's range.
  const std::vector<double> big = RunOn(Sampler("_random_randint", {{"low", "4000000000"},
                                                                    {"high", "4000000010"},
                                                                    {"shape", "(1000,)"},
                                                                    {"dtype", "int64"}}),
                                        Context::CPU());
  for (double x : big) {
    ASSERT_GE(x, 4000000000.0);
    ASSERT_LT(x, 4000000010.0);
  }
}

// [low, high) in float64; a narrower dtype may round a value up to high, as
// MXNet's float arithmetic does.
TEST(RandomSamplers, UniformStaysInItsInterval) {
  for (const Context& ctx : DevicesPresent()) {
    for (DType dt : {DType::kFloat32, DType::kFloat64, DType::kFloat16}) {
      SeedAllDevices(23);
      const std::vector<double> v = RunOn(
          Sampler("_random_uniform",
                  {{"low", "2"}, {"high", "3"}, {"shape", "(50000,)"}, {"dtype", DTypeName(dt)}}),
          ctx);
      EXPECT_GE(*std::min_element(v.begin(), v.end()), 2);
      if (dt == DType::kFloat64) {
        EXPECT_LT(*std::max_element(v.begin(), v.end()), 3);
      } else {
        EXPECT_LE(*std::max_element(v.begin(), v.end()), 3);
      }
    }
  }
}

// ------------------------------------------------------------------ shuffle

// Every row keeps its elements, each row appears once, and over repeated
// calls the 3! orders of three rows are equally likely (chi-square).
TEST(RandomShuffle, PermutesRowsUniformly) {
  for (const Context& ctx : DevicesPresent()) {
    for (DType dt : {DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kInt32,
                     DType::kInt64, DType::kInt8, DType::kUint8}) {
      SCOPED_TRACE(ctx.ToString() + " " + DTypeName(dt));
      Symbol net = OpCall("_shuffle").Input(Symbol::Variable("x"));
      SimpleBindOptions o;
      o.ctx = ctx;
      o.grad_req = GradReq::kNull;
      o.shapes = {{"x", Shape{3, 2}}};
      o.type_dict = std::map<std::string, DType>{{"x", dt}};
      std::unique_ptr<Executor> exe = Executor::SimpleBind(net, o);
      ThrowIfError(
          CopyTensor(MakeTensor(Shape{3, 2}, {0, 1, 10, 11, 20, 21}, dt), exe->arg_dict().at("x")));
      SeedAllDevices(31);
      std::map<std::vector<double>, double> seen;
      const int calls = dt == DType::kFloat32 ? 6000 : 600;
      for (int c = 0; c < calls; ++c) {
        exe->Forward(false);
        const std::vector<double> v =
            ValueOrThrow(CopyToNew(exe->outputs()[0], Context::CPU(), dt)).ToDoubles();
        std::vector<double> order;
        for (int r = 0; r < 3; ++r) {
          ASSERT_EQ(v[2 * r + 1], v[2 * r] + 1) << "row " << r << " split";
          order.push_back(v[2 * r]);
        }
        std::vector<double> sorted = order;
        std::sort(sorted.begin(), sorted.end());
        ASSERT_EQ(sorted, (std::vector<double>{0, 10, 20}));
        seen[order] += 1;
      }
      ASSERT_EQ(seen.size(), 6u);
      double chi2 = 0;
      for (const auto& [order, count] : seen) {
        chi2 += (count - calls / 6.0) * (count - calls / 6.0) / (calls / 6.0);
      }
      EXPECT_LT(chi2, 37.0) << "chi-square of 6 orders (5 df, level 1e-6)";
    }
  }
}

TEST(RandomShuffle, OneDimAndShapes) {
  for (const Context& ctx : DevicesPresent()) {
    Values x(1000);
    for (int i = 0; i < 1000; ++i) x[i] = i;
    SeedAllDevices(2);
    std::vector<double> v = RunOn(OpCall("_shuffle").Input(Symbol::Variable("x")), ctx,
                                  {{"x", MakeTensor(Shape{1000}, x, DType::kFloat64)}});
    EXPECT_NE(v, x) << ctx.ToString();
    std::sort(v.begin(), v.end());
    EXPECT_EQ(v, x) << ctx.ToString();
  }
  Symbol s = OpCall("_shuffle").Input(Symbol::Variable("x"));
  EXPECT_EQ(s.InferShape({{"x", Shape{4, 5, 6}}}).out_shapes[0], (Shape{4, 5, 6}));
  EXPECT_EQ(s.InferType({{"x", DType::kInt8}}).out_types[0], DType::kInt8);
  EXPECT_TRUE(OpRegistry::Global().Find("_shuffle")->non_differentiable());
  EXPECT_CONTAINS(ErrorOf([] { Sampler("_shuffle", {{"axis", "1"}}); }), "axis");
}

// ------------------------------------------------------------------ multinomial

TEST(RandomMultinomial, DrawsFollowEachRowsProbabilities) {
  const Values probs = {0.1, 0.2, 0.3, 0.4, 0.5, 0.0, 0.5, 0.0};
  for (const Context& ctx : DevicesPresent()) {
    for (DType pt : {DType::kFloat32, DType::kFloat64, DType::kFloat16}) {
      for (DType st :
           {DType::kInt32, DType::kUint8, DType::kFloat32, DType::kFloat16, DType::kFloat64}) {
        const std::string what = absl::StrCat("_sample_multinomial p ", DTypeName(pt), " out ",
                                              DTypeName(st), " on ", ctx.ToString());
        Symbol net = OpCall("_sample_multinomial")
                         .Attr("shape", absl::StrCat("(", kDraws, ",)"))
                         .Attr("dtype", DTypeName(st))
                         .Input(Symbol::Variable("p"));
        SeedAllDevices(4);
        const std::vector<double> v = RunOn(net, ctx, {{"p", MakeTensor(Shape{2, 4}, probs, pt)}});
        ASSERT_EQ(v.size(), 2u * kDraws) << what;
        for (int row = 0; row < 2; ++row) {
          std::vector<double> draws(v.begin() + row * kDraws, v.begin() + (row + 1) * kDraws);
          Law law{0, 0, nullptr, [&probs, row](double x) {
                    return x < 4 ? std::log(probs[row * 4 + static_cast<int>(x)]) : -1e300;
                  }};
          double mean = 0, var = 0;
          for (int c = 0; c < 4; ++c) mean += c * probs[row * 4 + c];
          for (int c = 0; c < 4; ++c) var += (c - mean) * (c - mean) * probs[row * 4 + c];
          law.mean = mean;
          law.variance = var;
          if (row == 1) {
            for (double d : draws) ASSERT_TRUE(d == 0 || d == 2) << what << ": drew " << d;
            // Only two categories: the chi-square's bins would hold zeros.
            ExpectMoments(draws, law, what);
          } else {
            ExpectMoments(draws, law, what);
            ExpectChiSquare(draws, law, what);
          }
        }
      }
    }
  }
}

// get_prob: the log-probability of each draw, and its gradient
// d log p[k] / d p = 1 / p[k] at the drawn k, summed over the draws.
TEST(RandomMultinomial, LogProbabilitiesAndTheirGradient) {
  const Values probs = {0.25, 0.5, 0.25, 0.6, 0.3, 0.1};
  for (const Context& ctx : DevicesPresent()) {
    for (DType dt : {DType::kFloat32, DType::kFloat64}) {
      SCOPED_TRACE(ctx.ToString() + " " + DTypeName(dt));
      Symbol net = OpCall("_sample_multinomial")
                       .Attr("shape", "(3,)")
                       .Attr("get_prob", "True")
                       .Input(Symbol::Variable("p"));
      ASSERT_EQ(net.ListOutputs().size(), 2u);
      SimpleBindOptions o;
      o.ctx = ctx;
      o.shapes = {{"p", Shape{2, 3}}};
      o.type_dict = std::map<std::string, DType>{{"p", dt}};
      std::unique_ptr<Executor> exe = Executor::SimpleBind(net, o);
      ThrowIfError(CopyTensor(MakeTensor(Shape{2, 3}, probs, dt), exe->arg_dict().at("p")));
      SeedAllDevices(6);
      exe->Forward(true);
      const Values heads = {1, 2, 3, -1, 0.5, 4};
      exe->Backward(std::vector<Tensor>{
          ValueOrThrow(CopyToNew(MakeTensor(Shape{2, 3}, Values(6, 0.0), dt), ctx, dt)),
          ValueOrThrow(CopyToNew(MakeTensor(Shape{2, 3}, heads, dt), ctx, dt))});
      auto host = [&](const Tensor& t) {
        return ValueOrThrow(CopyToNew(t, Context::CPU(), t.dtype())).ToDoubles();
      };
      const std::vector<double> sample = host(exe->outputs()[0]);
      const std::vector<double> log_prob = host(exe->outputs()[1]);
      Values want_grad(6, 0.0);
      for (int i = 0; i < 2; ++i) {
        for (int j = 0; j < 3; ++j) {
          const int k = static_cast<int>(sample[i * 3 + j]);
          ASSERT_GE(k, 0);
          ASSERT_LT(k, 3);
          EXPECT_NEAR(log_prob[i * 3 + j], std::log(probs[i * 3 + k]), 1e-6);
          want_grad[i * 3 + k] += heads[i * 3 + j] / probs[i * 3 + k];
        }
      }
      const std::vector<double> grad = host(exe->grad_dict().at("p"));
      for (int e = 0; e < 6; ++e) EXPECT_NEAR(grad[e], want_grad[e], 1e-5) << e;
    }
  }
}

TEST(RandomMultinomial, ShapesDtypesAndErrors) {
  auto out = [](const std::map<std::string, std::string>& attrs, const Shape& data) {
    OpCall call("_sample_multinomial");
    for (const auto& [k, v] : attrs) call.Attr(k, v);
    call.Input(Symbol::Variable("p"));
    return Symbol(call).InferShape({{"p", data}}).out_shapes;
  };
  EXPECT_EQ(out({}, Shape{5})[0], (Shape{1}));
  EXPECT_EQ(out({{"shape", "(2, 3)"}}, Shape{5})[0], (Shape{2, 3}));
  EXPECT_EQ(out({}, Shape{4, 5})[0], (Shape{4}));
  EXPECT_EQ(out({{"shape", "(2,)"}, {"get_prob", "1"}}, Shape{4, 5})[1], (Shape{4, 2}));
  Symbol s = OpCall("_sample_multinomial").Attr("get_prob", "True").Input(Symbol::Variable("p"));
  TypeInference t = s.InferType({{"p", DType::kFloat64}});
  EXPECT_EQ(t.out_types, (std::vector<DType>{DType::kInt32, DType::kFloat64}));
  EXPECT_CONTAINS(ErrorOf([&] { s.InferType({{"p", DType::kInt32}}); }), "int32");
  EXPECT_CONTAINS(ErrorOf([] {
                    Sampler("_sample_multinomial", {{"dtype", "int64"}});
                  }),
                  "'dtype': \"int64\"");
  EXPECT_CONTAINS(ErrorOf([] {
                    Sampler("_sample_multinomial", {{"shape", "(0,)"}});
                  }),
                  "'shape': \"(0,)\"");
}

// ------------------------------------------------------------------ unique zipfian

// One draw per row follows MXNet's base law, P(v) = (log(v + 1.5) -
// log(v + 0.5)) / log(range_max) clipped to [0, log(range_max)]; rows of
// many draws hold distinct classes and count their tries.
TEST(RandomUniqueZipfian, BaseLawAndDistinctRows) {
  for (const Context& ctx : DevicesPresent()) {
    const std::string where = ctx.ToString();
    SeedAllDevices(12);
    const double range = 10, log_range = std::log(range);
    std::vector<double> v =
        RunOn(Sampler("_sample_unique_zipfian",
                      {{"range_max", "10"}, {"shape", absl::StrCat("(", kDraws, ", 1)")}}),
              ctx);
    Law law{0, 0, nullptr, [=](double x) {
              if (x >= range) return -1e300;
              return std::log(
                  (std::min(std::log(x + 1.5), log_range) - std::max(std::log(x + 0.5), 0.0)) /
                  log_range);
            }};
    for (int x = 0; x < 10; ++x) {
      const double p = std::exp(law.log_pmf(x));
      law.mean += x * p;
      law.variance += x * x * p;
    }
    law.variance -= law.mean * law.mean;
    ExpectMoments(v, law, "_sample_unique_zipfian on " + where);
    ExpectChiSquare(v, law, "_sample_unique_zipfian on " + where);

    Symbol rows = Sampler("_sample_unique_zipfian", {{"range_max", "1000"}, {"shape", "(6, 300)"}});
    SimpleBindOptions o;
    o.ctx = ctx;
    o.grad_req = GradReq::kNull;
    std::unique_ptr<Executor> exe = Executor::SimpleBind(rows, o);
    exe->Forward(false);
    const std::vector<double> samples =
        ValueOrThrow(CopyToNew(exe->outputs()[0], Context::CPU(), DType::kInt64)).ToDoubles();
    const std::vector<double> tries =
        ValueOrThrow(CopyToNew(exe->outputs()[1], Context::CPU(), DType::kInt64)).ToDoubles();
    ASSERT_EQ(samples.size(), 1800u);
    ASSERT_EQ(tries.size(), 6u);
    for (int r = 0; r < 6; ++r) {
      std::vector<double> row(samples.begin() + r * 300, samples.begin() + (r + 1) * 300);
      std::sort(row.begin(), row.end());
      EXPECT_EQ(std::unique(row.begin(), row.end()), row.end()) << where << " row " << r;
      EXPECT_GE(row.front(), 0);
      EXPECT_LT(row.back(), 1000);
      EXPECT_GE(tries[r], 300) << where;
    }
  }
  EXPECT_EQ(Sampler("_sample_unique_zipfian", {{"range_max", "5"}, {"shape", "(2, 3)"}})
                .InferType({})
                .out_types,
            (std::vector<DType>{DType::kInt64, DType::kInt64}));
  EXPECT_CONTAINS(ErrorOf([] {
                    Sampler("_sample_unique_zipfian", {{"range_max", "5"}, {"shape", "(2, 6)"}});
                  }),
                  "'shape': \"(2, 6)\"");
  EXPECT_CONTAINS(ErrorOf([] {
                    Sampler("_sample_unique_zipfian", {{"range_max", "0"}});
                  }),
                  "'range_max': \"0\"");
  EXPECT_CONTAINS(ErrorOf([] {
                    Sampler("_sample_unique_zipfian", {{"shape", "(2, 1)"}});
                  }),
                  "range_max");
}

// ------------------------------------------------------------------ determinism

// The same seed gives the same numbers on a device; the next call and
// another seed give others.
TEST(RandomSeeding, SameSeedSameNumbersPerDevice) {
  Symbol net = Sampler("_random_normal", {{"shape", "(4096,)"}});
  for (const Context& ctx : DevicesPresent()) {
    SeedAllDevices(42);
    const std::vector<double> first = RunOn(net, ctx);
    const std::vector<double> next = RunOn(net, ctx);
    SeedAllDevices(42);
    EXPECT_EQ(RunOn(net, ctx), first) << ctx.ToString();
    EXPECT_NE(next, first) << ctx.ToString();
    SeedAllDevices(43);
    EXPECT_NE(RunOn(net, ctx), first) << ctx.ToString();
  }
}

// The draws of a call do not depend on how many threads made them.
TEST(RandomSeeding, ThreadCountDoesNotChangeTheNumbers) {
  for (const char* op : {"_random_gamma", "_random_poisson", "_random_uniform"}) {
    std::vector<std::vector<double>> runs;
    for (int threads : {1, 2, 7}) {
      SeedAllDevices(8);
      Tensor out = ValueOrThrow(Tensor::Zeros(Shape{100000}, DType::kFloat32));
      kernel_runs::KernelRun r = kernel_runs::MakeRun(op, {{"shape", "(100000,)"}}, {}, {out});
      r.ctx.num_threads = threads;
      ASSERT_TRUE(kernel_runs::Call(op, r).ok());
      runs.push_back(out.ToDoubles());
    }
    EXPECT_EQ(runs[1], runs[0]) << op;
    EXPECT_EQ(runs[2], runs[0]) << op;
  }
}

// ------------------------------------------------------------------ inference

TEST(RandomInference, LegacyZeroDimsComeFromTheOutputsUse) {
  Symbol r = Sampler("_random_uniform", {{"shape", "(0, 3)"}});
  Symbol net = OpCall("elemwise_add").Input(r).Input(Symbol::Variable("x"));
  ShapeInference s = net.InferShape({{"x", Shape{5, 3}}});
  ASSERT_TRUE(s.complete);
  EXPECT_EQ(s.out_shapes[0], (Shape{5, 3}));
  // dtype None is float32 as soon as the sampler is met, before its use, as
  // in MXNet: a float64 use then conflicts (dtype="float64" fits it).
  EXPECT_CONTAINS(ErrorOf([&] { net.InferType({{"x", DType::kFloat64}}); }), "float64");
  Symbol r64 = Sampler("_random_uniform", {{"shape", "(0, 3)"}, {"dtype", "float64"}});
  Symbol net64 = OpCall("elemwise_add").Input(r64).Input(Symbol::Variable("x"));
  TypeInference t = net64.InferType({{"x", DType::kFloat64}});
  ASSERT_TRUE(t.complete) << t.missing;
  EXPECT_EQ(t.out_types[0], DType::kFloat64);
}

TEST(RandomInference, Dtypes) {
  auto out_type = [](const Symbol& s) { return s.InferType({}).out_types.at(0); };
  EXPECT_EQ(out_type(Sampler("_random_normal", {{"shape", "(2,)"}})), DType::kFloat32);
  EXPECT_EQ(out_type(Sampler("_random_normal", {{"shape", "(2,)"}, {"dtype", "float16"}})),
            DType::kFloat16);
  EXPECT_EQ(out_type(Sampler("_random_randint", {{"low", "0"}, {"high", "2"}})), DType::kInt32);
  EXPECT_EQ(out_type(Sampler("_random_randint", {{"low", "0"}, {"high", "2"}, {"dtype", "int64"}})),
            DType::kInt64);
  // _sample_X: float32 by default whatever the parameters' dtype.
  Symbol s = OpCall("_sample_normal").Input(Symbol::Variable("m")).Input(Symbol::Variable("s"));
  TypeInference t = s.InferType({{"m", DType::kFloat64}});
  ASSERT_TRUE(t.complete);
  EXPECT_EQ(t.arg_types[1], DType::kFloat64);
  EXPECT_EQ(t.out_types[0], DType::kFloat32);
  // A conflict with the asked dtype names both.
  Symbol r = Sampler("_random_uniform", {{"shape", "(2,)"}, {"dtype", "float16"}});
  Symbol net = OpCall("elemwise_add").Input(r).Input(Symbol::Variable("x"));
  EXPECT_CONTAINS(ErrorOf([&] { net.InferType({{"x", DType::kFloat64}}); }), "float16");
  // The _like forms take float inputs only.
  Symbol like = OpCall("_random_uniform_like").Input(Symbol::Variable("x"));
  EXPECT_EQ(like.InferType({{"x", DType::kFloat64}}).out_types[0], DType::kFloat64);
  EXPECT_CONTAINS(ErrorOf([&] { like.InferType({{"x", DType::kInt32}}); }), "int32");
}

TEST(RandomInference, SampleShapesBothWays) {
  Symbol s = OpCall("_sample_gamma")
                 .Attr("shape", "(4, 5)")
                 .Input(Symbol::Variable("a"))
                 .Input(Symbol::Variable("b"));
  ShapeInference f = s.InferShape({{"a", Shape{2, 3}}});
  ASSERT_TRUE(f.complete);
  EXPECT_EQ(f.out_shapes[0], (Shape{2, 3, 4, 5}));
  EXPECT_EQ(f.arg_shapes[1], (Shape{2, 3}));
  // From the output back to the parameters.
  Symbol net = OpCall("elemwise_add").Input(s).Input(Symbol::Variable("x"));
  ShapeInference back = net.InferShape({{"x", Shape{7, 4, 5}}});
  ASSERT_TRUE(back.complete);
  EXPECT_EQ(back.arg_shapes[0], (Shape{7}));
  // Parameter arrays of two shapes.
  EXPECT_CONTAINS(ErrorOf([&] { s.InferShape({{"a", Shape{2}}, {"b", Shape{3}}}); }), "[2]");
  // No `shape`: one draw per distribution.
  Symbol one = OpCall("_sample_exponential").Input(Symbol::Variable("lam"));
  EXPECT_EQ(one.InferShape({{"lam", Shape{6}}}).out_shapes[0], (Shape{6}));
}

// ------------------------------------------------------------------ gradients

TEST(RandomGradients, LikeAndSampleFormsGiveZero) {
  for (const std::string& op :
       {std::string("_random_normal_like"), std::string("_sample_uniform")}) {
    OpCall call(op);
    call.Input(Symbol::Variable("x"));
    if (op == "_sample_uniform") call.Input(Symbol::Variable("y"));
    Symbol net = call;
    SimpleBindOptions o;
    o.shapes = {{"x", Shape{3}}};
    if (op == "_sample_uniform") o.shapes["y"] = Shape{3};
    std::unique_ptr<Executor> exe = Executor::SimpleBind(net, o);
    ThrowIfError(
        CopyTensor(MakeTensor(Shape{3}, {0, 1, 2}, DType::kFloat32), exe->arg_dict().at("x")));
    if (op == "_sample_uniform") {
      ThrowIfError(
          CopyTensor(MakeTensor(Shape{3}, {1, 2, 3}, DType::kFloat32), exe->arg_dict().at("y")));
    }
    exe->Forward(true);
    exe->Backward(std::vector<Tensor>{MakeTensor(Shape{3}, {1, 1, 1}, DType::kFloat32)});
    for (const auto& [name, g] : exe->grad_dict()) {
      EXPECT_EQ(g.ToDoubles(), (std::vector<double>{0, 0, 0})) << op << " " << name;
    }
  }
  EXPECT_TRUE(OpRegistry::Global().Find("_random_uniform")->non_differentiable());
}

// ------------------------------------------------------------------ registry and errors

TEST(RandomRegistry, NamesAndAliases) {
  const std::map<std::string, std::vector<std::string>> aliases = {
      {"_random_uniform", {"random_uniform", "uniform"}},
      {"_random_normal", {"random_normal", "normal"}},
      {"_random_gamma", {"random_gamma"}},
      {"_random_exponential", {"random_exponential"}},
      {"_random_poisson", {"random_poisson"}},
      {"_random_negative_binomial", {"random_negative_binomial"}},
      {"_random_generalized_negative_binomial", {"random_generalized_negative_binomial"}},
      {"_random_randint", {"random_randint"}},
      {"_sample_uniform", {"sample_uniform"}},
      {"_sample_normal", {"sample_normal"}},
      {"_sample_gamma", {"sample_gamma"}},
      {"_sample_exponential", {"sample_exponential"}},
      {"_sample_poisson", {"sample_poisson"}},
      {"_sample_negative_binomial", {"sample_negative_binomial"}},
      {"_sample_generalized_negative_binomial", {"sample_generalized_negative_binomial"}},
      {"_random_uniform_like", {}},
      {"_shuffle", {"shuffle"}},
      {"_sample_multinomial", {"sample_multinomial"}},
      {"_random_generalized_negative_binomial_like", {}},
  };
  for (const auto& [name, names] : aliases) {
    const Op* op = OpRegistry::Global().Find(name);
    ASSERT_NE(op, nullptr) << name;
    std::vector<std::string> got = op->aliases();
    std::sort(got.begin(), got.end());
    std::vector<std::string> want = names;
    std::sort(want.begin(), want.end());
    EXPECT_EQ(got, want) << name;
  }
  const Op* s = OpRegistry::Global().Find("_sample_negative_binomial");
  EXPECT_EQ(s->InputNames(NodeAttrs{}), (std::vector<std::string>{"k", "p"}));
  EXPECT_EQ(OpRegistry::Global().Find("_sample_normal")->InputNames(NodeAttrs{}),
            (std::vector<std::string>{"mu", "sigma"}));
}

TEST(RandomRegistry, ParameterErrorsNameKeyAndValue) {
  auto error = [](const std::string& op, const std::map<std::string, std::string>& attrs) {
    return ErrorOf([&] { Sampler(op, attrs); });
  };
  EXPECT_CONTAINS(error("_random_normal", {{"scale", "0"}}), "'scale': \"0\"");
  EXPECT_CONTAINS(error("_random_uniform", {{"low", "2"}, {"high", "1"}}), "'low': \"2\"");
  EXPECT_CONTAINS(error("_random_gamma", {{"alpha", "-1"}}), "'alpha': \"-1\"");
  EXPECT_CONTAINS(error("_random_gamma", {{"beta", "0"}}), "'beta': \"0\"");
  EXPECT_CONTAINS(error("_random_exponential", {{"lam", "0"}}), "'lam': \"0\"");
  EXPECT_CONTAINS(error("_random_poisson", {{"lam", "-0.5"}}), "'lam': \"-0.5\"");
  EXPECT_CONTAINS(error("_random_negative_binomial", {{"k", "1.5"}}), "'k': \"1.5\"");
  EXPECT_CONTAINS(error("_random_negative_binomial", {{"p", "1.5"}}), "'p': \"1.5\"");
  EXPECT_CONTAINS(error("_random_generalized_negative_binomial", {{"alpha", "-1"}}),
                  "'alpha': \"-1\"");
  EXPECT_CONTAINS(error("_random_uniform", {{"dtype", "int32"}}), "'dtype': \"int32\"");
  EXPECT_CONTAINS(error("_random_uniform", {{"shape", "(2, -3)"}}), "'shape': \"(2, -3)\"");
  EXPECT_CONTAINS(error("_random_uniform", {{"mean", "1"}}), "mean");
  EXPECT_CONTAINS(error("_random_randint", {{"low", "3"}, {"high", "3"}}), "'high': \"3\"");
  EXPECT_CONTAINS(error("_random_randint", {{"high", "3"}}), "low");
  EXPECT_CONTAINS(error("_random_randint", {{"low", "0"}, {"high", "3"}, {"dtype", "float32"}}),
                  "'dtype': \"float32\"");
  EXPECT_CONTAINS(error("_random_uniform_like", {{"shape", "(2,)"}}), "shape");
  EXPECT_CONTAINS(error("_sample_normal", {{"shape", "(2, 0)"}}), "'shape': \"(2, 0)\"");
  EXPECT_CONTAINS(error("_sample_normal", {{"dtype", "int8"}}), "'dtype': \"int8\"");
  // MXNet's spellings are accepted: ctx, dtype None, legacy shapes.
  EXPECT_NO_THROW(
      Sampler("_random_uniform", {{"ctx", "cpu(0)"}, {"dtype", "None"}, {"shape", "(2, 0)"}}));
}

}  // namespace
}  // namespace symx
