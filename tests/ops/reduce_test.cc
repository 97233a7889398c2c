// Tests of the reduce family (graph/ops/reduce.cc): sum, mean and max.
//
// Conformance: forward against plain loops, backward (_backward_sum,
// _backward_mean, _backward_max) by finite differences. Direct kernel tests:
// max's gradient goes to every tied position, large reductions on the pool, bad
// axes are errors.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "devices/device.h"
#include "devices/kernel.h"
#include "devices/tensor.h"
#include "gmock/gmock.h"
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
// a direct kernel test below checks that every tied position gets the gradient).
TEST(ReduceConformance, MaxWithTies) {
  OpCase c = ReduceCase(Kind::kMax, Shape{2, 3}, std::vector<int>{1});
  c.name = "max ties";
  c.init = [](int, const Shape&) { return Values{1, 3, 3, -2, -2, -5}; };
  c.check_backward = false;
  CheckOp(c);
}

}  // namespace

namespace {

using kernel_calls::Cpu;
using kernel_calls::Empty;
using kernel_calls::Ramp;
using kernel_calls::RunKernel;
using ::testing::HasSubstr;

// ----------------------------------------------------------------------------- reductions

TEST(ReduceKernel, MaxGradientGoesToEveryTie) {
  Tensor data = Tensor::FromVector(Shape{2, 3}, {1, 3, 3, -2, -2, -5});
  Tensor out = Empty(Shape{2});
  ASSERT_TRUE(RunKernel("max", {{"axis", "1"}}, {data}, {out}).ok());
  EXPECT_EQ(out.ToDoubles(), (std::vector<double>{3, -2}));
  Tensor og = Tensor::FromVector(Shape{2}, {10, 20}), g = Empty(Shape{2, 3});
  ASSERT_TRUE(RunKernel("_backward_max", {{"axis", "1"}}, {og, data, out}, {g}).ok());
  EXPECT_EQ(g.ToDoubles(), (std::vector<double>{0, 10, 10, 20, 20, 0}));
}

TEST(ReduceKernel, LargeReductionsOnThePool) {
  const Shape s{300, 7, 400};
  std::vector<double> v = Ramp(s.Size());
  Tensor x = Tensor::FromVector(s, v, DType::kFloat64);
  for (const char* axis : {"(0, 2)", "(1,)", "(0,)", "(2,)"}) {
    SCOPED_TRACE(axis);
    std::vector<bool> red = {std::string(axis).find('0') != std::string::npos,
                             std::string(axis).find('1') != std::string::npos,
                             std::string(axis).find('2') != std::string::npos};
    Shape os{red[0] ? 1 : 300, red[1] ? 1 : 7, red[2] ? 1 : 400};
    Tensor out = Empty(os, DType::kFloat64);
    ASSERT_TRUE(RunKernel("sum", {{"axis", axis}, {"keepdims", "True"}}, {x}, {out}).ok());
    std::vector<double> want(os.Size(), 0.0);
    for (int64_t a = 0; a < 300; ++a) {
      for (int64_t b = 0; b < 7; ++b) {
        for (int64_t c = 0; c < 400; ++c) {
          int64_t o = ((red[0] ? 0 : a) * os[1] + (red[1] ? 0 : b)) * os[2] + (red[2] ? 0 : c);
          want[o] += v[(a * 7 + b) * 400 + c];
        }
      }
    }
    std::vector<double> got = out.ToDoubles();
    for (size_t i = 0; i < want.size(); ++i) ASSERT_NEAR(got[i], want[i], 1e-9) << i;
  }
}

TEST(ReduceKernel, RejectsBadAxesWithoutCrashing) {
  Tensor x = Tensor::FromVector(Shape{2, 3}, Ramp(6));
  Tensor out = Empty(Shape{2});
  // A node built for 3-D data run on 2-D data: the axis is out of range.
  absl::Status s = RunKernel("sum", {{"axis", "2"}}, {x}, {out});
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr("sum"));
  // Integer data is not reduced.
  Tensor xi = Tensor::FromVector(Shape{2, 3}, Ramp(6), DType::kInt32);
  s = RunKernel("sum", {{"axis", "1"}}, {xi}, {Empty(Shape{2}, DType::kInt32)});
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
}

}  // namespace

}  // namespace symx
