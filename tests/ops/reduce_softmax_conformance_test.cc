// Conformance of the reductions (sum, mean, max) and of softmax / log_softmax,
// forward against plain loops and backward (_backward_sum, _backward_mean,
// _backward_max, _backward_softmax, _backward_log_softmax) by finite
// differences.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/ops/conformance.h"

namespace symx {
namespace {

using testing::CheckOp;
using testing::NumElements;
using testing::OpCase;
using testing::Strides;
using testing::Values;

std::vector<int64_t> Unravel(int64_t flat, const Shape& s) {
  std::vector<int64_t> idx(s.ndim());
  for (int d = s.ndim() - 1; d >= 0; --d) {
    if (s[d] == 0) continue;
    idx[d] = flat % s[d];
    flat /= s[d];
  }
  return idx;
}

// ----------------------------------------------------------------------------- reductions

enum class Kind { kSum, kMean, kMax };

// axes: nullopt = None. Returns the reduced-axis mask per MXNet's rules.
std::vector<bool> Reduced(const std::optional<std::vector<int>>& axes, bool exclude, int n) {
  if (!axes || axes->empty()) return std::vector<bool>(n, true);
  std::vector<bool> r(n, false);
  for (int a : *axes) r[a < 0 ? a + n : a] = true;
  if (exclude) r.flip();
  return r;
}

std::string TupleText(const std::vector<int>& v) {
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i) s += std::to_string(v[i]) + (v.size() == 1 ? "," : ", ");
  return s + ")";
}

OpCase ReduceCase(Kind kind, const Shape& shape, std::optional<std::vector<int>> axes,
                  bool keepdims = false, bool exclude = false) {
  const char* op = kind == Kind::kSum ? "sum" : kind == Kind::kMean ? "mean" : "max";
  OpCase c;
  c.op = op;
  c.name = std::string(op) + " " + shape.ToString() + " axis " +
           (axes ? TupleText(*axes) : "None") + (keepdims ? " keepdims" : "") +
           (exclude ? " exclude" : "");
  if (axes) c.attrs["axis"] = TupleText(*axes);
  if (keepdims) c.attrs["keepdims"] = "True";
  if (exclude) c.attrs["exclude"] = "True";
  c.shapes = {shape};
  c.reference = [=](const std::vector<Values>& in, const std::vector<Shape>& shapes) {
    const Shape& s = shapes[0];
    const int n = s.ndim();
    std::vector<bool> red = Reduced(axes, exclude, n);
    // Output in row-major order of the kept axes.
    std::vector<int64_t> kept_dims;
    for (int d = 0; d < n; ++d) {
      if (!red[d]) kept_dims.push_back(s[d]);
    }
    Shape ks(kept_dims);
    const int64_t out_size = NumElements(ks);
    Values acc(out_size, kind == Kind::kMax ? -std::numeric_limits<double>::infinity() : 0.0);
    std::vector<int64_t> count(out_size, 0);
    std::vector<int64_t> kst = Strides(ks);
    for (int64_t j = 0; j < static_cast<int64_t>(in[0].size()); ++j) {
      std::vector<int64_t> idx = Unravel(j, s);
      int64_t o = 0, k = 0;
      for (int d = 0; d < n; ++d) {
        if (!red[d]) o += idx[d] * kst[k++];
      }
      acc[o] = kind == Kind::kMax ? std::max(acc[o], in[0][j]) : acc[o] + in[0][j];
      ++count[o];
    }
    if (kind == Kind::kMean) {
      for (int64_t o = 0; o < out_size; ++o) acc[o] /= static_cast<double>(count[o]);
    }
    return std::vector<Values>{acc};
  };
  c.forward_tol32 = 1e-5;
  return c;
}

TEST(ReduceConformance, Sum) {
  CheckOp(ReduceCase(Kind::kSum, Shape{2, 3, 4}, std::nullopt));
  CheckOp(ReduceCase(Kind::kSum, Shape{2, 3, 4}, std::vector<int>{1}));
  CheckOp(ReduceCase(Kind::kSum, Shape{2, 3, 4}, std::vector<int>{0, 2}, true));
  CheckOp(ReduceCase(Kind::kSum, Shape{2, 3, 4}, std::vector<int>{-1}));
  CheckOp(ReduceCase(Kind::kSum, Shape{2, 3, 4}, std::vector<int>{1}, false, true));
  CheckOp(ReduceCase(Kind::kSum, Shape{3, 4}, std::vector<int>{0}));
  CheckOp(ReduceCase(Kind::kSum, Shape{5}, std::vector<int>{0}, true));
  CheckOp(ReduceCase(Kind::kSum, Shape{2, 1, 3}, std::vector<int>{1}));  // only a size-1 axis
  CheckOp(ReduceCase(Kind::kSum, Shape{2, 1, 3, 1}, std::vector<int>{1, 2}));
  CheckOp(ReduceCase(Kind::kSum, Shape{2, 3, 2, 3, 2}, std::vector<int>{1, 3}));
  // Seven alternating groups: the plain-loop path.
  CheckOp(ReduceCase(Kind::kSum, Shape{2, 2, 2, 2, 2, 2, 2}, std::vector<int>{0, 2, 4, 6}));
  CheckOp(ReduceCase(Kind::kSum, Shape{0, 3}, std::vector<int>{0}));  // empty: zeros
  CheckOp(ReduceCase(Kind::kSum, Shape{3, 0}, std::vector<int>{0}));  // empty output
}

TEST(ReduceConformance, Mean) {
  CheckOp(ReduceCase(Kind::kMean, Shape{2, 3, 4}, std::nullopt));
  CheckOp(ReduceCase(Kind::kMean, Shape{2, 3, 4}, std::vector<int>{1}, true));
  CheckOp(ReduceCase(Kind::kMean, Shape{2, 3, 4}, std::vector<int>{0, 2}));
  CheckOp(ReduceCase(Kind::kMean, Shape{4, 5}, std::vector<int>{0}, false, true));
  CheckOp(ReduceCase(Kind::kMean, Shape{2, 1, 3}, std::vector<int>{1}));
  CheckOp(ReduceCase(Kind::kMean, Shape{2, 2, 2, 2, 2, 2, 2}, std::vector<int>{1, 3, 5}));
  OpCase empty = ReduceCase(Kind::kMean, Shape{0, 3}, std::vector<int>{0});  // NaN, like 0/0
  CheckOp(empty);
}

TEST(ReduceConformance, Max) {
  // Random inputs have no ties, so the max is differentiable.
  CheckOp(ReduceCase(Kind::kMax, Shape{2, 3, 4}, std::nullopt));
  CheckOp(ReduceCase(Kind::kMax, Shape{2, 3, 4}, std::vector<int>{1}));
  CheckOp(ReduceCase(Kind::kMax, Shape{2, 3, 4}, std::vector<int>{0, 2}, true));
  CheckOp(ReduceCase(Kind::kMax, Shape{2, 3, 4}, std::vector<int>{2}, false, true));
  CheckOp(ReduceCase(Kind::kMax, Shape{6}, std::vector<int>{0}));
  CheckOp(ReduceCase(Kind::kMax, Shape{3, 1}, std::vector<int>{1}));
  CheckOp(ReduceCase(Kind::kMax, Shape{2, 2, 2, 2, 2, 2, 2}, std::vector<int>{0, 2, 4, 6}));
}

// Ties: the forward value only (the gradient at a tie is not differentiable;
// shape_kernels_test.cc checks that every tied position gets the gradient).
TEST(ReduceConformance, MaxWithTies) {
  OpCase c = ReduceCase(Kind::kMax, Shape{2, 3}, std::vector<int>{1});
  c.name = "max ties";
  c.init = [](int, const Shape&) { return Values{1, 3, 3, -2, -2, -5}; };
  c.check_backward = false;
  CheckOp(c);
}

// ----------------------------------------------------------------------------- softmax

OpCase SoftmaxCase(bool log, const Shape& shape, int axis, std::optional<double> temperature = {},
                   std::optional<std::string> dtype = {}) {
  OpCase c;
  c.op = log ? "log_softmax" : "softmax";
  c.name = c.op + " " + shape.ToString() + " axis " + std::to_string(axis) +
           (temperature ? " T=" + std::to_string(*temperature) : "") + (dtype ? " " + *dtype : "");
  c.attrs["axis"] = std::to_string(axis);
  if (temperature) c.attrs["temperature"] = std::to_string(*temperature);
  if (dtype) c.attrs["dtype"] = *dtype;
  c.shapes = {shape};
  const double t = temperature.value_or(1.0);
  c.reference = [=](const std::vector<Values>& in, const std::vector<Shape>& shapes) {
    const Shape& s = shapes[0];
    const int ax = axis < 0 ? axis + s.ndim() : axis;
    int64_t outer = 1, inner = 1;
    for (int d = 0; d < ax; ++d) outer *= s[d];
    for (int d = ax + 1; d < s.ndim(); ++d) inner *= s[d];
    const int64_t n = s[ax];
    Values out(in[0].size());
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < inner; ++i) {
        double sum = 0;
        for (int64_t k = 0; k < n; ++k) sum += std::exp(in[0][(o * n + k) * inner + i] / t);
        for (int64_t k = 0; k < n; ++k) {
          const int64_t at = (o * n + k) * inner + i;
          out[at] = log ? in[0][at] / t - std::log(sum) : std::exp(in[0][at] / t) / sum;
        }
      }
    }
    return std::vector<Values>{out};
  };
  c.forward_tol32 = 2e-5;
  c.grad_tol = 1e-6;
  return c;
}

TEST(SoftmaxConformance, Softmax) {
  for (bool log : {false, true}) {
    CheckOp(SoftmaxCase(log, Shape{3, 5}, -1));
    CheckOp(SoftmaxCase(log, Shape{3, 5}, 0));
    CheckOp(SoftmaxCase(log, Shape{2, 3, 4}, 1));
    CheckOp(SoftmaxCase(log, Shape{2, 4, 70}, 1));  // two column blocks
    CheckOp(SoftmaxCase(log, Shape{7}, 0));
    CheckOp(SoftmaxCase(log, Shape{4, 1}, 1));  // a single class
    CheckOp(SoftmaxCase(log, Shape{2, 3, 4}, -1, 2.0));
    CheckOp(SoftmaxCase(log, Shape{2, 3, 4}, 0, -0.5));
    CheckOp(SoftmaxCase(log, Shape{0, 4}, 1));
    CheckOp(SoftmaxCase(log, Shape{3, 0}, 1));
    CheckOp(SoftmaxCase(log, Shape{2, 3}, -1, std::nullopt, "float64"));
  }
}

TEST(SoftmaxConformance, LargeInputsAreStable) {
  for (bool log : {false, true}) {
    OpCase c = SoftmaxCase(log, Shape{2, 3}, 1);
    c.name += " large";
    c.init = [](int, const Shape&) { return Values{1000, 1001, 1002, -1000, -1001, -999}; };
    c.reference = [log](const std::vector<Values>& in, const std::vector<Shape>&) {
      Values out(6);
      for (int r = 0; r < 2; ++r) {
        double m = std::max({in[0][3 * r], in[0][3 * r + 1], in[0][3 * r + 2]});
        double sum = 0;
        for (int k = 0; k < 3; ++k) sum += std::exp(in[0][3 * r + k] - m);
        for (int k = 0; k < 3; ++k) {
          double v = in[0][3 * r + k] - m;
          out[3 * r + k] = log ? v - std::log(sum) : std::exp(v) / sum;
        }
      }
      return std::vector<Values>{out};
    };
    c.forward_tol32 = 1e-4;
    c.eps = 1e-5;
    c.grad_tol = 1e-5;
    CheckOp(c);
  }
}

}  // namespace
}  // namespace symx
