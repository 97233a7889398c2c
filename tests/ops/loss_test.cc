// Tests of the loss family (graph/ops/loss.cc): SoftmaxOutput,
// Linear/Logistic/MAERegressionOutput, MakeLoss, SVMOutput,
// softmax_cross_entropy and IdentityAttachKLSparseReg.
//
// They take no head gradient, so their backward ops are checked against the
// gradient MXNet defines (expected_grads), written here as plain loops from the
// MXNet 1.x semantics described in devices/cpu/loss_kernels.cc. Direct kernel
// tests: a bad label is an error, in-place runs, MakeLoss's valid
// normalization.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/device.h"
#include "devices/kernel.h"
#include "devices/tensor.h"
#include "executor/executor.h"
#include "gmock/gmock.h"
#include "graph/error.h"
#include "graph/node.h"
#include "graph/op.h"
#include "gtest/gtest.h"
#include "tests/ops/conformance.h"
#include "tests/ops/kernel_calls.h"

namespace symx {
namespace {

using testing::CheckOp;
using testing::NumElements;
using testing::OpCase;
using testing::Values;

// ----------------------------------------------------------------------------- SoftmaxOutput

struct SoftmaxOutputOptions {
  double grad_scale = 1;
  double ignore_label = -1;
  bool multi_output = false;
  bool use_ignore = false;
  bool preserve_shape = false;
  std::string normalization = "null";
  double smooth_alpha = 0;
};

struct Layout {
  int64_t outer, n, inner;
};

Layout LayoutOf(const SoftmaxOutputOptions& o, const Shape& s) {
  const int64_t size = NumElements(s);
  if (size == 0) return {0, 0, 0};
  if (o.multi_output) return {s[0], s[1], size / (s[0] * s[1])};
  if (o.preserve_shape) return {size / s[s.ndim() - 1], s[s.ndim() - 1], 1};
  return {s[0], size / s[0], 1};
}

Values SoftmaxOf(const Values& x, const Layout& l) {
  Values y(x.size());
  for (int64_t o = 0; o < l.outer; ++o) {
    for (int64_t i = 0; i < l.inner; ++i) {
      double sum = 0;
      for (int64_t c = 0; c < l.n; ++c) sum += std::exp(x[(o * l.n + c) * l.inner + i]);
      for (int64_t c = 0; c < l.n; ++c) {
        const int64_t at = (o * l.n + c) * l.inner + i;
        y[at] = std::exp(x[at]) / sum;
      }
    }
  }
  return y;
}

OpCase SoftmaxOutputCase(std::string name, const SoftmaxOutputOptions& o, const Shape& data,
                         const Shape& label, Values labels) {
  OpCase c;
  c.name = "SoftmaxOutput " + name;
  c.op = "SoftmaxOutput";
  c.attrs = {{"grad_scale", std::to_string(o.grad_scale)},
             {"ignore_label", std::to_string(o.ignore_label)},
             {"multi_output", o.multi_output ? "True" : "False"},
             {"use_ignore", o.use_ignore ? "True" : "False"},
             {"preserve_shape", o.preserve_shape ? "True" : "False"},
             {"normalization", o.normalization},
             {"smooth_alpha", std::to_string(o.smooth_alpha)}};
  c.shapes = {data, label};
  c.no_grad = {1};
  const bool probabilities = data == label;
  c.init = [labels, probabilities](int i, const Shape& s) {
    Values v(NumElements(s));
    if (i == 1 && !probabilities) return labels;
    for (size_t k = 0; k < v.size(); ++k) v[k] = std::sin(1.7 * k + 0.3 * i + 0.1);
    if (i == 1) {
      for (double& x : v) x = std::fabs(x);  // a (not normalized) target distribution
    }
    return v;
  };
  c.reference = [o](const std::vector<Values>& in, const std::vector<Shape>& shapes) {
    return std::vector<Values>{SoftmaxOf(in[0], LayoutOf(o, shapes[0]))};
  };
  c.expected_grads = [o, probabilities](const std::vector<Values>& in,
                                        const std::vector<Shape>& shapes) {
    const Layout l = LayoutOf(o, shapes[0]);
    Values y = SoftmaxOf(in[0], l);
    Values g(y.size());
    if (probabilities) {
      for (size_t k = 0; k < g.size(); ++k) g[k] = (y[k] - in[1][k]) * o.grad_scale;
      return std::vector<Values>{g, {}};
    }
    const Values& lab = in[1];
    const int ignore = static_cast<int>(o.ignore_label);
    double count = 1;
    if (o.normalization == "batch") {
      count = o.multi_output ? l.outer : static_cast<double>(lab.size());
    } else if (o.normalization == "valid") {
      count = 0;
      for (double v : lab) count += static_cast<int>(v) == ignore ? 0 : 1;
      if (count == 0) count = 1;
    }
    double scale = o.grad_scale / count;
    if (o.multi_output && o.normalization != "valid") scale /= static_cast<double>(l.inner);
    for (int64_t u = 0; u < l.outer * l.inner; ++u) {
      const int64_t oi = u / l.inner, i = u % l.inner;
      const int k = static_cast<int>(lab[u]);
      for (int64_t c = 0; c < l.n; ++c) {
        const int64_t at = (oi * l.n + c) * l.inner + i;
        double target = c == k ? 1 - o.smooth_alpha : o.smooth_alpha / (l.n - 1);
        g[at] = (o.use_ignore && k == ignore) ? 0 : (y[at] - target) * scale;
      }
    }
    return std::vector<Values>{g, {}};
  };
  c.forward_tol32 = 2e-5;
  c.grad_tol = 1e-9;
  return c;
}

TEST(LossConformance, SoftmaxOutput) {
  SoftmaxOutputOptions o;
  CheckOp(SoftmaxOutputCase("default", o, Shape{4, 5}, Shape{4}, {0, 3, 4, 1}));
  // Data seen as (2, 6): rows use label entries 0 and 1 of the flattened (2, 3) label.
  CheckOp(
      SoftmaxOutputCase("flattened (2,3,2)", o, Shape{2, 3, 2}, Shape{2, 3}, {5, 0, 1, 1, 2, 2}));
  CheckOp(SoftmaxOutputCase("out of range labels", o, Shape{3, 4}, Shape{3}, {7, -3, 2}));
  o.grad_scale = 0.5;
  o.normalization = "batch";
  CheckOp(SoftmaxOutputCase("batch", o, Shape{4, 5}, Shape{4}, {0, 3, 4, 1}));
  // MXNet's batch count is every label entry (6 here), not the 2 rows.
  CheckOp(SoftmaxOutputCase("flattened batch", o, Shape{2, 3, 2}, Shape{2, 3}, {5, 0, 1, 1, 2, 2}));
  o.use_ignore = true;
  o.ignore_label = 2;
  o.normalization = "valid";
  CheckOp(SoftmaxOutputCase("ignore valid", o, Shape{4, 5}, Shape{4}, {2, 3, 2, 1}));
  o.normalization = "null";
  CheckOp(SoftmaxOutputCase("ignore null", o, Shape{4, 5}, Shape{4}, {2, 3, 2, 1}));
  CheckOp(SoftmaxOutputCase("all ignored valid", o, Shape{2, 3}, Shape{2}, {2, 2}));
  o = SoftmaxOutputOptions();
  o.normalization = "valid";  // counts labels != ignore_label even without use_ignore
  CheckOp(SoftmaxOutputCase("valid without use_ignore", o, Shape{3, 4}, Shape{3}, {-1, 2, 0}));
  o = SoftmaxOutputOptions();
  o.smooth_alpha = 0.1;
  CheckOp(SoftmaxOutputCase("smooth_alpha", o, Shape{3, 4}, Shape{3}, {0, 3, 1}));
  o.use_ignore = true;
  o.ignore_label = 1;
  CheckOp(SoftmaxOutputCase("smooth_alpha ignore", o, Shape{3, 4}, Shape{3}, {0, 3, 1}));
  o = SoftmaxOutputOptions();
  o.preserve_shape = true;
  o.normalization = "batch";
  CheckOp(SoftmaxOutputCase("preserve_shape", o, Shape{2, 3, 4}, Shape{2, 3}, {0, 1, 2, 3, 3, 0}));
  o = SoftmaxOutputOptions();
  o.multi_output = true;
  const Values ml = {0, 1, 2, 2, 1, 0, 0, 1};
  CheckOp(SoftmaxOutputCase("multi_output null", o, Shape{2, 3, 4}, Shape{2, 4}, ml));
  CheckOp(SoftmaxOutputCase("multi_output (N,1,x)", o, Shape{2, 3, 2, 2}, Shape{2, 1, 2, 2}, ml));
  CheckOp(SoftmaxOutputCase("multi_output (N,x,y)", o, Shape{2, 3, 2, 2}, Shape{2, 2, 2}, ml));
  o.normalization = "batch";
  o.grad_scale = 3;
  CheckOp(SoftmaxOutputCase("multi_output batch", o, Shape{2, 3, 4}, Shape{2, 4}, ml));
  o.normalization = "valid";
  o.use_ignore = true;
  o.ignore_label = 0;
  CheckOp(SoftmaxOutputCase("multi_output ignore valid", o, Shape{2, 3, 4}, Shape{2, 4}, ml));
  o = SoftmaxOutputOptions();
  o.grad_scale = 2;
  CheckOp(SoftmaxOutputCase("probability labels", o, Shape{3, 4}, Shape{3, 4}, {}));
  CheckOp(SoftmaxOutputCase("empty batch", o, Shape{0, 4}, Shape{0}, {}));
}

// ----------------------------------------------------------------------------- regression

enum class Reg { kLinear, kLogistic, kMAE };

OpCase RegressionCase(Reg r, const Shape& data, const Shape& label, double grad_scale) {
  OpCase c;
  c.op = r == Reg::kLinear     ? "LinearRegressionOutput"
         : r == Reg::kLogistic ? "LogisticRegressionOutput"
                               : "MAERegressionOutput";
  c.name = c.op + " " + data.ToString() + " label " + label.ToString();
  c.attrs = {{"grad_scale", std::to_string(grad_scale)}};
  c.shapes = {data, label};
  c.no_grad = {1};
  c.init = [](int i, const Shape& s) {
    Values v(NumElements(s));
    for (size_t k = 0; k < v.size(); ++k) v[k] = std::sin(1.3 * k + 0.7);
    if (i == 1) {
      // Some labels equal the data (MAE's tie gives -1), others differ.
      for (size_t k = 0; k < v.size(); ++k) {
        if (k % 3 != 0) v[k] = std::cos(2.1 * k);
      }
    }
    return v;
  };
  c.reference = [r](const std::vector<Values>& in, const std::vector<Shape>&) {
    Values y = in[0];
    if (r == Reg::kLogistic) {
      for (double& v : y) v = 1 / (1 + std::exp(-v));
    }
    return std::vector<Values>{y};
  };
  c.expected_grads = [r, grad_scale](const std::vector<Values>& in,
                                     const std::vector<Shape>& shapes) {
    const Shape& ls = shapes[1];
    const double num_output = ls[0] == 0 ? 1 : static_cast<double>(NumElements(ls)) / ls[0];
    Values g(in[0].size());
    for (size_t k = 0; k < g.size(); ++k) {
      double y = r == Reg::kLogistic ? 1 / (1 + std::exp(-in[0][k])) : in[0][k];
      double d = y - in[1][k];
      if (r == Reg::kMAE) d = d > 0 ? 1 : -1;
      g[k] = grad_scale / num_output * d;
    }
    return std::vector<Values>{g, {}};
  };
  c.grad_tol = 1e-9;
  return c;
}

TEST(LossConformance, RegressionOutputs) {
  for (Reg r : {Reg::kLinear, Reg::kLogistic, Reg::kMAE}) {
    CheckOp(RegressionCase(r, Shape{4, 3}, Shape{4, 3}, 1));
    CheckOp(RegressionCase(r, Shape{4, 3}, Shape{4, 3}, 2.5));
    CheckOp(RegressionCase(r, Shape{5, 1}, Shape{5}, 1));
    CheckOp(RegressionCase(r, Shape{2, 3, 2}, Shape{2, 3, 2}, 0.5));
    CheckOp(RegressionCase(r, Shape{6}, Shape{6}, 1));
    CheckOp(RegressionCase(r, Shape{0, 3}, Shape{0, 3}, 1));
  }
}

// ----------------------------------------------------------------------------- MakeLoss

OpCase MakeLossCase(const Shape& s, double grad_scale, const std::string& normalization,
                    double valid_thresh = 0) {
  OpCase c;
  c.op = "MakeLoss";
  c.name = "MakeLoss " + s.ToString() + " " + normalization;
  c.attrs = {{"grad_scale", std::to_string(grad_scale)},
             {"normalization", normalization},
             {"valid_thresh", std::to_string(valid_thresh)}};
  c.shapes = {s};
  c.reference = [](const std::vector<Values>& in, const std::vector<Shape>&) {
    return std::vector<Values>{in[0]};
  };
  c.expected_grads = [=](const std::vector<Values>& in, const std::vector<Shape>& shapes) {
    double scale = grad_scale;
    if (normalization == "batch") {
      // MXNet divides by the rows of the data seen as 2-D: every dim but the last.
      double rows = 1;
      for (int d = 0; d + 1 < shapes[0].ndim(); ++d) rows *= shapes[0][d];
      scale /= rows;
    } else if (normalization == "valid") {
      double count = 0;
      for (double v : in[0]) count += v > valid_thresh ? 1 : 0;
      scale /= count < 1 ? 1 : count;
    }
    return std::vector<Values>{Values(in[0].size(), scale)};
  };
  c.grad_tol = 1e-12;
  return c;
}

TEST(LossConformance, MakeLoss) {
  CheckOp(MakeLossCase(Shape{3, 4}, 1, "null"));
  CheckOp(MakeLossCase(Shape{3, 4}, 0.5, "null"));
  CheckOp(MakeLossCase(Shape{3, 4}, 2, "batch"));
  CheckOp(MakeLossCase(Shape{5}, 2, "batch"));  // 1-D: MXNet divides by 1
  CheckOp(MakeLossCase(Shape{2, 3, 4}, 1, "batch"));
  CheckOp(MakeLossCase(Shape{3, 4}, 1, "valid", 0.2));
  CheckOp(MakeLossCase(Shape{3, 4}, 3, "valid", 5));  // none valid: divide by 1
  CheckOp(MakeLossCase(Shape{0, 4}, 1, "batch"));
}

// ----------------------------------------------------------------------------- SVMOutput

OpCase SVMCase(const Shape& data, double margin, double reg, bool linear) {
  OpCase c;
  c.op = "SVMOutput";
  c.name = absl::StrCat("SVMOutput ", data.ToString(), linear ? " L1" : " L2", " margin ", margin);
  c.attrs = {{"margin", absl::StrCat(margin)},
             {"regularization_coefficient", absl::StrCat(reg)},
             {"use_linear", linear ? "True" : "False"}};
  std::vector<int64_t> ldims(data.dims().begin(), data.dims().end() - 1);
  c.shapes = {data, Shape(ldims)};
  c.no_grad = {1};
  const int64_t cols = data[data.ndim() - 1];
  c.init = [cols](int input, const Shape& s) {
    Values v(NumElements(s));
    for (size_t k = 0; k < v.size(); ++k) {
      // Labels: every class, and -1 (matching none); scores on a grid that
      // never meets +-margin.
      v[k] = input == 1 ? static_cast<double>(static_cast<int64_t>(k * 3) % (cols + 1)) - 1
                        : -1.93 + 0.37 * static_cast<double>((k * 7) % 11);
    }
    return v;
  };
  c.reference = [](const std::vector<Values>& in, const std::vector<Shape>&) {
    return std::vector<Values>{in[0]};
  };
  c.expected_grads = [=](const std::vector<Values>& in, const std::vector<Shape>&) {
    Values g(in[0].size());
    for (size_t i = 0; i < g.size(); ++i) {
      const int64_t r = static_cast<int64_t>(i) / cols, x = static_cast<int64_t>(i) % cols;
      const double v = in[0][i];
      const bool mine = static_cast<int64_t>(in[1][r]) == x;
      if (linear) {
        g[i] = mine ? (margin > v ? -reg : 0) : (margin > -v ? reg : 0);
      } else {
        g[i] = mine ? (margin > v ? -2 * reg * (margin - v) : 0)
                    : (margin > -v ? 2 * reg * (margin + v) : 0);
      }
    }
    return std::vector<Values>{g, {}};
  };
  c.grad_tol = 1e-12;
  return c;
}

TEST(LossConformance, SVMOutput) {
  for (bool linear : {false, true}) {
    CheckOp(SVMCase(Shape{4, 3}, 1, 1, linear));
    CheckOp(SVMCase(Shape{5, 4}, 0.5, 2.5, linear));
    CheckOp(SVMCase(Shape{2, 3, 4}, 1.5, 0.5, linear));
  }
  std::string msg = testing::ErrorOf([] {
    testing::RunOp("SVMOutput", {},
                   {testing::MakeTensor(Shape{4}, {1, 2, 3, 4}, DType::kFloat32),
                    testing::MakeTensor(Shape{1}, {0}, DType::kFloat32)});
  });
  EXPECT_CONTAINS(msg, "[4]");
  msg = testing::ErrorOf([] {
    testing::RunOp("SVMOutput", {{"margin", "wide"}},
                   {testing::MakeTensor(Shape{1, 2}, {1, 2}, DType::kFloat32),
                    testing::MakeTensor(Shape{1}, {0}, DType::kFloat32)});
  });
  EXPECT_CONTAINS(msg, "margin");
  EXPECT_CONTAINS(msg, "wide");
}

// -----------------------------------------------------------------------------
// softmax_cross_entropy

OpCase CrossEntropyCase(int64_t rows, int64_t cols) {
  OpCase c;
  c.op = "softmax_cross_entropy";
  c.name = absl::StrCat("softmax_cross_entropy ", rows, "x", cols);
  c.shapes = {Shape{rows, cols}, Shape{rows}};
  c.no_grad = {1};
  c.init = [cols](int input, const Shape& s) {
    Values v(NumElements(s));
    for (size_t k = 0; k < v.size(); ++k) {
      v[k] = input == 1 ? static_cast<double>((k * 5 + 1) % cols)
                        : std::sin(1.7 * static_cast<double>(k) + 0.3) * 3;
    }
    return v;
  };
  c.reference = [cols](const std::vector<Values>& in, const std::vector<Shape>& s) {
    double loss = 0;
    for (int64_t r = 0; r < s[0][0]; ++r) {
      double mx = -INFINITY, sum = 0;
      for (int64_t k = 0; k < cols; ++k) mx = std::max(mx, in[0][r * cols + k]);
      for (int64_t k = 0; k < cols; ++k) sum += std::exp(in[0][r * cols + k] - mx);
      const double p = std::exp(in[0][r * cols + static_cast<int64_t>(in[1][r])] - mx) / sum;
      loss -= std::log(std::max(p, 1e-8));
    }
    return std::vector<Values>{{loss}};
  };
  c.dtypes = {DType::kFloat32, DType::kFloat64, DType::kFloat16};
  return c;
}

TEST(LossConformance, SoftmaxCrossEntropy) {
  CheckOp(CrossEntropyCase(3, 4));
  CheckOp(CrossEntropyCase(1, 2));
  CheckOp(CrossEntropyCase(6, 10));
  auto run = [](Shape d, Shape l, Values label) {
    return testing::ErrorOf([&] {
      testing::RunOp("softmax_cross_entropy", {},
                     {testing::MakeTensor(d, Values(NumElements(d), 0.5), DType::kFloat32),
                      testing::MakeTensor(l, label, DType::kFloat32)});
    });
  };
  std::string msg = run(Shape{2, 3}, Shape{2}, {0, 3});
  EXPECT_CONTAINS(msg, "label 3");
  msg = run(Shape{2, 3, 1}, Shape{2}, {0, 1});
  EXPECT_CONTAINS(msg, "[2,3,1]");
  msg = run(Shape{2, 3}, Shape{3}, {0, 1, 2});
  EXPECT_CONTAINS(msg, "[3]");
}

// -----------------------------------------------------------------------------
// IdentityAttachKLSparseReg

TEST(LossConformance, IdentityAttachKLSparseRegForward) {
  OpCase c;
  c.op = "IdentityAttachKLSparseReg";
  c.name = "IdentityAttachKLSparseReg forward";
  c.shapes = {Shape{3, 4}, Shape{4}};
  c.no_grad = {1};
  c.reference = [](const std::vector<Values>& in, const std::vector<Shape>&) {
    return std::vector<Values>{in[0]};
  };
  c.check_backward = false;  // a regularizer, not a derivative: checked below
  CheckOp(c);
}

// The backward pass moves moving_avg toward the per-channel mean, then adds
// the KL penalty's gradient; both as MXNet's formulas, for 2-D and 4-D data.
TEST(LossConformance, IdentityAttachKLSparseRegBackward) {
  for (const Shape& s : {Shape{3, 2}, Shape{2, 2, 3, 1}}) {
    SCOPED_TRACE(s.ToString());
    const double target = 0.2, penalty = 0.5, momentum = 0.75;
    Symbol x = Symbol::Variable("x");
    Symbol y = OpCall("IdentityAttachKLSparseReg")
                   .Name("kl")
                   .Attr("sparseness_target", target)
                   .Attr("penalty", penalty)
                   .Attr("momentum", momentum)
                   .Input(x)
                   .Build();
    const int64_t n = s.Size(), channels = s[1], inner = n / (s[0] * channels);
    Values xv(n), gv(n);
    for (int64_t i = 0; i < n; ++i) {
      xv[i] = 0.1 + 0.05 * static_cast<double>(i % 7);
      gv[i] = static_cast<double>(i) * 0.1 - 0.3;
    }
    const Values avg0 = {0.3, 0.6};
    std::map<std::string, Tensor> args = {{"x", Tensor::FromVector(s, xv, DType::kFloat64)}};
    std::map<std::string, Tensor> grads = {{"x", ValueOrThrow(Tensor::Zeros(s, DType::kFloat64))}};
    std::map<std::string, Tensor> aux = {
        {"kl_moving_avg", Tensor::FromVector(Shape{2}, avg0, DType::kFloat64)}};
    BindOptions opt;
    auto exe = Executor::Bind(y, opt, ArrayArgs(args), ArrayArgs(grads), ArrayArgs(aux));
    exe->Forward(true);
    EXPECT_EQ(exe->outputs()[0].ToDoubles(), xv);
    exe->Backward({Tensor::FromVector(s, gv, DType::kFloat64)});
    Values want_avg(2), want_grad(n);
    for (int64_t c = 0; c < channels; ++c) {
      double sum = 0;
      for (int64_t i = 0; i < n; ++i) {
        if ((i / inner) % channels == c) sum += xv[i];
      }
      want_avg[c] = momentum * avg0[c] + (1 - momentum) * sum / static_cast<double>(n / channels);
    }
    for (int64_t i = 0; i < n; ++i) {
      const double m = want_avg[(i / inner) % channels];
      want_grad[i] = gv[i] + penalty * (-target / m + (1 - target) / (1 - m));
    }
    Values got_avg = exe->aux_dict().at("kl_moving_avg").ToDoubles();
    Values got_grad = exe->grad_dict().at("x").ToDoubles();
    for (int c = 0; c < 2; ++c) EXPECT_NEAR(got_avg[c], want_avg[c], 1e-7) << c;
    for (int64_t i = 0; i < n; ++i) EXPECT_NEAR(got_grad[i], want_grad[i], 1e-6) << i;
  }
  std::string msg = testing::ErrorOf([] {
    testing::RunOp("IdentityAttachKLSparseReg", {{"momentum", "1.5"}},
                   {testing::MakeTensor(Shape{1, 2}, {1, 2}, DType::kFloat32),
                    testing::MakeTensor(Shape{2}, {0.5, 0.5}, DType::kFloat32)});
  });
  EXPECT_CONTAINS(msg, "momentum");
  EXPECT_CONTAINS(msg, "1.5");
  msg = testing::ErrorOf([] {
    OpCall("IdentityAttachKLSparseReg")
        .Input(Symbol::Variable("x"))
        .Build()
        .InferShape({{"x", Shape{3}}});
  });
  EXPECT_CONTAINS(msg, "[3]");
}

}  // namespace

namespace {

using kernel_calls::Cpu;
using kernel_calls::Empty;
using kernel_calls::Ramp;
using kernel_calls::RunKernel;
using ::testing::HasSubstr;

TEST(SoftmaxKernel, SoftmaxOutputBadLabelIsAnErrorAndInPlaceWorks) {
  Tensor x = Tensor::FromVector(Shape{2, 3}, {1, 2, 3, 0, 0, 0});
  ASSERT_TRUE(RunKernel("SoftmaxOutput", {}, {x, Tensor::FromVector(Shape{2}, {0, 1})}, {x}).ok());
  std::vector<double> y = x.ToDoubles();
  EXPECT_NEAR(y[2], std::exp(3.0) / (std::exp(1.0) + std::exp(2.0) + std::exp(3.0)), 1e-6);
  EXPECT_NEAR(y[4], 1.0 / 3, 1e-6);
  // A label with too few entries for the data: an error, not a crash.
  absl::Status s = RunKernel("_backward_SoftmaxOutput", {}, {x, Tensor::FromVector(Shape{1}, {0})},
                             {Empty(Shape{2, 3}), Empty(Shape{1})});
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr("label"));
}

// ----------------------------------------------------------------------------- MakeLoss

TEST(MakeLossKernel, ValidNormalizationReadsTheOutput) {
  // The gradient node takes the forward output only for normalization=valid.
  NodePtr x = MakeVariableNode("x");
  for (const char* norm : {"null", "batch", "valid"}) {
    NodePtr loss = MakeOpNode("MakeLoss", "loss", {{"normalization", norm}}, {{x, 0, 0}}).value();
    std::vector<NodeEntry> grads = loss->op()->gradient()(loss, {NodeEntry{}});
    ASSERT_EQ(grads.size(), 1u);
    EXPECT_EQ(grads[0].node->inputs.size(), std::string(norm) == "valid" ? 1u : 0u) << norm;
  }
  Tensor out = Tensor::FromVector(Shape{2, 3}, {0.5, -1, 2, 0.1, 0.3, 0});
  Tensor g = Empty(Shape{2, 3});
  ASSERT_TRUE(RunKernel("_backward_MakeLoss",
                        {{"normalization", "valid"}, {"valid_thresh", "0.2"}, {"grad_scale", "3"}},
                        {out}, {g})
                  .ok());
  EXPECT_EQ(g.ToDoubles(), std::vector<double>(6, 1.0));  // 3 / #{0.5, 2, 0.3}
}

}  // namespace

}  // namespace symx
