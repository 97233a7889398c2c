// Tests of the ctc family (graph/ops/ctc.cc): CTCLoss. The reference
// enumerates every alignment path, independent of the kernel's forward-backward
// recursion; gradients by finite differences; bad labels and lengths are errors
// naming the entry.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "graph/node.h"
#include "gtest/gtest.h"
#include "tests/ops/conformance.h"

namespace symx {
namespace testing {
namespace {

// ------------------------------------------------------------------ CTCLoss

// -log p(label | data) by enumerating every path of `steps` symbols.
double CtcBruteForce(const Values& x, int64_t nb, int64_t a, int64_t b, int64_t steps,
                     const std::vector<int64_t>& label, int64_t blank) {
  double p = 0;
  std::vector<int64_t> path(steps, 0);
  const int64_t total = static_cast<int64_t>(std::pow(a, steps));
  for (int64_t code = 0; code < total; ++code) {
    int64_t r = code;
    for (int64_t t = 0; t < steps; ++t) path[t] = r % a, r /= a;
    std::vector<int64_t> collapsed;
    for (int64_t t = 0; t < steps; ++t) {
      if (path[t] == blank || (t > 0 && path[t] == path[t - 1])) continue;
      collapsed.push_back(path[t]);
    }
    if (collapsed != label) continue;
    double q = 1;
    for (int64_t t = 0; t < steps; ++t) {
      double sum = 0;
      for (int64_t k = 0; k < a; ++k) sum += std::exp(x[(t * nb + b) * a + k]);
      q *= std::exp(x[(t * nb + b) * a + path[t]]) / sum;
    }
    p += q;
  }
  return -std::log(p);
}

struct CtcSpec {
  std::string name;
  int64_t t, nb, a, lmax;
  std::vector<double> labels;        // (nb, lmax)
  std::vector<double> data_lengths;  // empty: not used
  std::vector<double> label_lengths;
  bool blank_first = true;
};

OpCase CtcCase(const CtcSpec& sp) {
  OpCase c;
  c.name = "CTCLoss " + sp.name;
  c.op = "CTCLoss";
  c.attrs = {{"blank_label", sp.blank_first ? "first" : "last"}};
  c.shapes = {Shape{sp.t, sp.nb, sp.a}, Shape{sp.nb, sp.lmax}};
  if (!sp.data_lengths.empty()) {
    c.attrs["use_data_lengths"] = "True";
    c.shapes.push_back(Shape{sp.nb});
  }
  if (!sp.label_lengths.empty()) {
    c.attrs["use_label_lengths"] = "1";
    c.shapes.push_back(Shape{sp.nb});
  }
  for (int i = 1; i < static_cast<int>(c.shapes.size()); ++i) c.no_grad.push_back(i);
  c.forward_tol32 = 1e-4;
  c.grad_tol = 1e-5;
  c.init = [sp](int input, const Shape& s) -> Values {
    if (input == 1) return sp.labels;
    if (input >= 2) {
      const bool is_data = input == 2 && !sp.data_lengths.empty();
      return is_data ? sp.data_lengths : sp.label_lengths;
    }
    std::mt19937_64 rng(99);
    std::uniform_real_distribution<double> u(-1.5, 1.5);
    Values v(NumElements(s));
    for (double& x : v) x = u(rng);
    return v;
  };
  c.reference = [sp](const std::vector<Values>& in, const std::vector<Shape>&) {
    Values loss(sp.nb);
    const int64_t blank = sp.blank_first ? 0 : sp.a - 1;
    const double pad = sp.blank_first ? 0 : -1;
    for (int64_t b = 0; b < sp.nb; ++b) {
      const int64_t steps =
          sp.data_lengths.empty() ? sp.t : static_cast<int64_t>(sp.data_lengths[b]);
      std::vector<int64_t> label;
      const int64_t len =
          sp.label_lengths.empty() ? sp.lmax : static_cast<int64_t>(sp.label_lengths[b]);
      for (int64_t j = 0; j < len; ++j) {
        const double v = sp.labels[b * sp.lmax + j];
        if (sp.label_lengths.empty() && v == pad) break;
        label.push_back(static_cast<int64_t>(v));
      }
      int64_t need = static_cast<int64_t>(label.size());
      for (size_t j = 1; j < label.size(); ++j) need += label[j] == label[j - 1];
      loss[b] = need > steps ? 0.0 : CtcBruteForce(in[0], sp.nb, sp.a, b, steps, label, blank);
    }
    return std::vector<Values>{loss};
  };
  return c;
}

TEST(SpatialConformance, CTCLossBlankFirst) {
  CheckOp(CtcCase({"first basic", 4, 2, 4, 2, {1, 2, 3, 0}, {}, {}, true}));
  CheckOp(CtcCase({"first repeats", 5, 2, 3, 3, {1, 1, 2, 2, 0, 0}, {}, {}, true}));
  // Padding ends the label: (1, 0, 2) is the label (1).
  CheckOp(CtcCase({"first padding", 4, 1, 3, 3, {1, 0, 2}, {}, {}, true}));
  // Empty label: the all-blank path (MXNet returns garbage here; symx the true value).
  CheckOp(CtcCase({"first empty", 3, 1, 3, 2, {0, 0}, {}, {}, true}));
}

TEST(SpatialConformance, CTCLossBlankLast) {
  CheckOp(CtcCase({"last basic", 4, 2, 4, 2, {0, 2, 1, -1}, {}, {}, false}));
  CheckOp(CtcCase({"last repeats", 5, 1, 3, 2, {0, 0}, {}, {}, false}));
}

TEST(SpatialConformance, CTCLossLengths) {
  CheckOp(CtcCase({"data lengths", 5, 2, 3, 2, {1, 2, 2, 0}, {3, 5}, {}, true}));
  // label_lengths cut each row (no padding value is looked for).
  CheckOp(CtcCase({"label lengths", 4, 2, 4, 3, {1, 2, 3, 3, 1, 2}, {}, {2, 1}, true}));
  CheckOp(CtcCase({"both lengths last", 5, 2, 4, 3, {0, 1, 2, 2, 2, 1}, {4, 5}, {3, 2}, false}));
}

// A label too long for the sequence: loss and gradient 0, as MXNet.
TEST(SpatialConformance, CTCLossInfeasible) {
  CheckOp(CtcCase({"infeasible", 3, 2, 3, 3, {1, 1, 1, 1, 2, 0}, {}, {}, true}));
}

// Labels and lengths are read on the host (devices/geometry/ctc_plan.h, shared by the
// GPU kernel): each bad entry is an error naming the node and the entry.
TEST(SpatialConformance, CTCLossBadLabelsAndLengthsNameTheEntry) {
  const Tensor data = MakeTensor(Shape{4, 2, 4}, Values(32, 0.1), DType::kFloat32);
  auto run = [&](const AttrMap& attrs, const std::vector<Tensor>& extra) {
    std::vector<Tensor> in = {data};
    in.insert(in.end(), extra.begin(), extra.end());
    return ErrorOf([&] { RunOp("CTCLoss", attrs, in, "ctc1"); });
  };
  const Tensor good = MakeTensor(Shape{2, 2}, {1, 2, 3, 0}, DType::kFloat32);
  EXPECT_EQ(run({}, {good}), "");
  std::string msg = run({}, {MakeTensor(Shape{2, 2}, {1, 5, 3, 0}, DType::kFloat32)});
  EXPECT_CONTAINS(msg, "ctc1");
  EXPECT_CONTAINS(msg, "label[0, 1] = 5 is not a class in [1, 3] (blank_label=first)");
  msg = run({{"blank_label", "last"}}, {MakeTensor(Shape{2, 2}, {0, 1.5, 2, -1}, DType::kFloat32)});
  EXPECT_CONTAINS(msg, "label[0, 1] = 1.5 is not a class in [0, 2] (blank_label=last)");
  msg = run({{"use_data_lengths", "1"}}, {good, MakeTensor(Shape{2}, {4, 7}, DType::kInt32)});
  EXPECT_CONTAINS(msg, "data_lengths[1] = 7 is outside [0, 4]");
  msg = run({{"use_label_lengths", "1"}}, {good, MakeTensor(Shape{2}, {-1, 2}, DType::kFloat32)});
  EXPECT_CONTAINS(msg, "label_lengths[0] = -1 is outside [0, 2]");
}

}  // namespace
}  // namespace testing

}  // namespace symx
