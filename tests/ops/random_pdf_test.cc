// Tests of the random_pdf family (graph/ops/random_pdf.cc): the densities
// _random_pdf_X (and their logarithms) against the formulas written here, in
// float32, float64 and float16 on every device present; their gradients
// (_backward_pdf_X) against central differences in float64, except the
// samples of the discrete laws, whose gradient MXNet defines as 0; shapes,
// dtypes and errors.
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/op.h"
#include "graph/symbol.h"
#include "gtest/gtest.h"
#include "tests/ops/conformance.h"

namespace symx {
namespace {

using testing::CheckOp;
using testing::ErrorOf;
using testing::OpCase;
using testing::Values;

double LogNegBinomial(double k, double p, double x) {
  return std::lgamma(x + k) - std::lgamma(x + 1) - std::lgamma(k) + k * std::log(p) +
         x * std::log(1 - p);
}

// log density of x under (a, b), as MXNet 1.9.1 defines each law.
double LogPdf(const std::string& law, double x, double a, double b) {
  if (law == "uniform") return -std::log(b - a);
  if (law == "normal") {
    return -(x - a) * (x - a) / (2 * b * b) - std::log(b * std::sqrt(2 * M_PI));
  }
  if (law == "gamma") {  // beta is a rate
    return a * std::log(b) + (a - 1) * std::log(x) - b * x - std::lgamma(a);
  }
  if (law == "exponential") return std::log(a) - a * x;
  if (law == "poisson") return x * std::log(a) - a - std::lgamma(x + 1);
  if (law == "negative_binomial") return LogNegBinomial(a, b, x);
  // generalized_negative_binomial(mu, alpha)
  return LogNegBinomial(1 / b, 1 / (a * b + 1), x);
}

struct LawCase {
  std::string law;
  bool two_params;
  bool discrete;
  // Values of the sample and the parameters for element i.
  std::function<double(int64_t)> sample, pa, pb;
};

const std::vector<LawCase>& LawCases() {
  static const auto* cases = new std::vector<LawCase>{
      {"uniform", true, false, [](int64_t i) { return 0.1 * i - 0.5; },
       [](int64_t j) { return -1.0 - 0.25 * j; }, [](int64_t j) { return 1.0 + 0.5 * j; }},
      {"normal", true, false, [](int64_t i) { return 0.3 * i - 1.2; },
       [](int64_t j) { return 0.2 * j - 0.3; }, [](int64_t j) { return 0.8 + 0.3 * j; }},
      {"gamma", true, false, [](int64_t i) { return 0.3 + 0.17 * i; },
       [](int64_t j) { return 1.5 + 0.5 * j; }, [](int64_t j) { return 0.7 + 0.4 * j; }},
      {"exponential", false, false, [](int64_t i) { return 0.1 + 0.2 * i; },
       [](int64_t j) { return 0.5 + 0.5 * j; }, nullptr},
      {"poisson", false, true, [](int64_t i) { return static_cast<double>(i % 6); },
       [](int64_t j) { return 1.5 + 1.25 * j; }, nullptr},
      {"negative_binomial", true, true, [](int64_t i) { return static_cast<double>(i % 5); },
       [](int64_t j) { return 2.0 + j; }, [](int64_t j) { return 0.3 + 0.1 * j; }},
      {"generalized_negative_binomial", true, true,
       [](int64_t i) { return static_cast<double>(i % 7); },
       [](int64_t j) { return 1.5 + 0.5 * j; }, [](int64_t j) { return 0.4 + 0.2 * j; }},
  };
  return *cases;
}

OpCase PdfCase(const LawCase& law, const Shape& sample, const Shape& params, bool is_log) {
  OpCase c;
  c.op = "_random_pdf_" + law.law;
  c.name = absl::StrCat(c.op, " ", sample.ToString(), " by ", params.ToString(),
                        is_log ? " is_log" : "");
  if (is_log) c.attrs["is_log"] = "True";
  c.shapes = {sample, params};
  if (law.two_params) c.shapes.push_back(params);
  c.init = [law](int input, const Shape& s) {
    Values v(s.Size());
    for (int64_t i = 0; i < s.Size(); ++i) {
      v[i] = input == 0 ? law.sample(i) : input == 1 ? law.pa(i) : law.pb(i);
    }
    return v;
  };
  c.reference = [law, is_log](const std::vector<Values>& in, const std::vector<Shape>&) {
    const int64_t block = in[0].size() / in[1].size();
    Values out(in[0].size());
    for (size_t i = 0; i < out.size(); ++i) {
      const int64_t j = static_cast<int64_t>(i) / block;
      const double l = LogPdf(law.law, in[0][i], in[1][j], law.two_params ? in[2][j] : 0.0);
      out[i] = is_log ? l : std::exp(l);
    }
    return std::vector<Values>{out};
  };
  // MXNet's gradient of a discrete law's sample is 0, not a derivative.
  if (law.discrete) c.no_grad = {0};
  c.dtypes = {DType::kFloat32, DType::kFloat64, DType::kFloat16};
  c.forward_tol32 = 2e-5;
  c.grad_tol = 1e-5;
  return c;
}

TEST(RandomPdfConformance, ScalarLaws) {
  for (const LawCase& law : LawCases()) {
    for (bool is_log : {false, true}) {
      CheckOp(PdfCase(law, Shape{2, 3, 4}, Shape{2, 3}, is_log));
      CheckOp(PdfCase(law, Shape{3, 5}, Shape{3}, is_log));
    }
  }
}

// Dirichlet: alpha (batch..., k) against samples (batch..., n, k); the
// output drops the components.
OpCase DirichletCase(const Shape& sample, const Shape& alpha, bool is_log) {
  OpCase c;
  c.op = "_random_pdf_dirichlet";
  c.name =
      absl::StrCat(c.op, " ", sample.ToString(), " by ", alpha.ToString(), is_log ? " is_log" : "");
  if (is_log) c.attrs["is_log"] = "True";
  c.shapes = {sample, alpha};
  c.init = [](int input, const Shape& s) {
    Values v(s.Size());
    for (int64_t i = 0; i < s.Size(); ++i) {
      v[i] = input == 0 ? 0.1 + 0.07 * static_cast<double>(i % 11) : 0.6 + 0.3 * (i % 5);
    }
    return v;
  };
  c.reference = [is_log](const std::vector<Values>& in, const std::vector<Shape>& shapes) {
    const int64_t k = shapes[1][shapes[1].ndim() - 1];
    const int64_t outs = in[0].size() / k, dists = in[1].size() / k, block = outs / dists;
    Values out(outs);
    for (int64_t i = 0; i < outs; ++i) {
      const int64_t j = i / block;
      double sum_alpha = 0, l = 0;
      for (int64_t c = 0; c < k; ++c) {
        const double a = in[1][j * k + c];
        sum_alpha += a;
        l += (a - 1) * std::log(in[0][i * k + c]) - std::lgamma(a);
      }
      l += std::lgamma(sum_alpha);
      out[i] = is_log ? l : std::exp(l);
    }
    return std::vector<Values>{out};
  };
  c.dtypes = {DType::kFloat32, DType::kFloat64, DType::kFloat16};
  c.forward_tol32 = 2e-5;
  c.grad_tol = 1e-5;
  return c;
}

TEST(RandomPdfConformance, Dirichlet) {
  for (bool is_log : {false, true}) {
    CheckOp(DirichletCase(Shape{2, 4, 3}, Shape{2, 3}, is_log));
    CheckOp(DirichletCase(Shape{5, 3}, Shape{3}, is_log));
  }
}

TEST(RandomPdfInference, ShapesAndDtypes) {
  Symbol n = OpCall("_random_pdf_normal")
                 .Input(Symbol::Variable("x"))
                 .Input(Symbol::Variable("m"))
                 .Input(Symbol::Variable("s"));
  ShapeInference s = n.InferShape({{"x", Shape{2, 3, 4}}, {"m", Shape{2}}, {"s", Shape{2}}});
  ASSERT_TRUE(s.complete);
  EXPECT_EQ(s.out_shapes[0], (Shape{2, 3, 4}));
  EXPECT_CONTAINS(ErrorOf([&] {
                    n.InferShape({{"x", Shape{2, 3}}, {"m", Shape{3}}, {"s", Shape{3}}});
                  }),
                  "[3]");
  EXPECT_CONTAINS(ErrorOf([&] {
                    n.InferShape({{"x", Shape{2}}, {"m", Shape{2, 1}}, {"s", Shape{2, 1}}});
                  }),
                  "[2,1]");
  Symbol d =
      OpCall("_random_pdf_dirichlet").Input(Symbol::Variable("x")).Input(Symbol::Variable("a"));
  EXPECT_EQ(d.InferShape({{"x", Shape{2, 5, 3}}, {"a", Shape{2, 3}}}).out_shapes[0], (Shape{2, 5}));
  EXPECT_EQ(d.InferShape({{"x", Shape{3}}, {"a", Shape{3}}}).out_shapes[0], (Shape{1}));
  TypeInference t = n.InferType({{"x", DType::kFloat64}});
  ASSERT_TRUE(t.complete);
  EXPECT_EQ(t.arg_types[2], DType::kFloat64);
  EXPECT_CONTAINS(ErrorOf([&] { n.InferType({{"x", DType::kInt32}}); }), "int32");
}

TEST(RandomPdfRegistry, NamesAliasesAndErrors) {
  for (const char* law : {"uniform", "normal", "gamma", "exponential", "poisson",
                          "negative_binomial", "generalized_negative_binomial", "dirichlet"}) {
    const Op* op = OpRegistry::Global().Find(absl::StrCat("_random_pdf_", law));
    ASSERT_NE(op, nullptr) << law;
    EXPECT_EQ(op->aliases(), (std::vector<std::string>{absl::StrCat("random_pdf_", law)}));
    EXPECT_NE(OpRegistry::Global().Find(absl::StrCat("_backward_pdf_", law)), nullptr);
  }
  EXPECT_EQ(OpRegistry::Global().Find("_random_pdf_gamma")->InputNames(NodeAttrs{}),
            (std::vector<std::string>{"sample", "alpha", "beta"}));
  EXPECT_EQ(OpRegistry::Global().Find("_random_pdf_negative_binomial")->InputNames(NodeAttrs{}),
            (std::vector<std::string>{"sample", "k", "p"}));
  EXPECT_CONTAINS(ErrorOf([] { Symbol s = OpCall("_random_pdf_poisson").Attr("is_log", "maybe"); }),
                  "'is_log': \"maybe\"");
  EXPECT_CONTAINS(ErrorOf([] { Symbol s = OpCall("_random_pdf_poisson").Attr("shape", "(2,)"); }),
                  "shape");
}

}  // namespace
}  // namespace symx
