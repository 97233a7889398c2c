// Tests of the reduce family (graph/ops/reduce.cc): sum, mean, max, min,
// prod, nansum, nanprod, norm and moments.
//
// Conformance: forward against plain loops (float32, float64, float16),
// backward (_backward_sum, _backward_mean, _backward_max, ...) by finite
// differences. Direct kernel tests: max's and min's gradients go to every tied
// position, MXNet's gradients at zeros (prod) and NaNs (nansum, nanprod),
// empty reductions, large reductions on the pool, bad axes are errors.
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

enum class Kind { kSum, kMean, kMax, kMin, kProd, kNanSum, kNanProd };

const char* OpName(Kind k) {
  switch (k) {
    case Kind::kSum:
      return "sum";
    case Kind::kMean:
      return "mean";
    case Kind::kMax:
      return "max";
    case Kind::kMin:
      return "min";
    case Kind::kProd:
      return "prod";
    case Kind::kNanSum:
      return "nansum";
    case Kind::kNanProd:
      return "nanprod";
  }
  return "";
}

double Identity(Kind k) {
  switch (k) {
    case Kind::kMax:
      return -std::numeric_limits<double>::infinity();
    case Kind::kMin:
      return std::numeric_limits<double>::infinity();
    case Kind::kProd:
    case Kind::kNanProd:
      return 1.0;
    default:
      return 0.0;
  }
}

double Accumulate(Kind k, double acc, double x) {
  switch (k) {
    case Kind::kMax:
      return std::isnan(x) || x > acc ? x : acc;
    case Kind::kMin:
      return std::isnan(x) || x < acc ? x : acc;
    case Kind::kProd:
      return acc * x;
    case Kind::kNanSum:
      return std::isnan(x) ? acc : acc + x;
    case Kind::kNanProd:
      return std::isnan(x) ? acc : acc * x;
    default:
      return acc + x;
  }
}

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
  const char* op = OpName(kind);
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
    Values acc(out_size, Identity(kind));
    std::vector<int64_t> count(out_size, 0);
    std::vector<int64_t> kst = Strides(ks);
    for (int64_t j = 0; j < static_cast<int64_t>(in[0].size()); ++j) {
      std::vector<int64_t> idx = Unravel(j, s);
      int64_t o = 0, k = 0;
      for (int d = 0; d < n; ++d) {
        if (!red[d]) o += idx[d] * kst[k++];
      }
      acc[o] = Accumulate(kind, acc[o], in[0][j]);
      ++count[o];
    }
    if (kind == Kind::kMean) {
      for (int64_t o = 0; o < out_size; ++o) acc[o] /= static_cast<double>(count[o]);
    }
    return std::vector<Values>{acc};
  };
  c.forward_tol32 = 1e-5;
  c.dtypes = {DType::kFloat32, DType::kFloat64, DType::kFloat16};
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

TEST(ReduceConformance, Min) {
  CheckOp(ReduceCase(Kind::kMin, Shape{2, 3, 4}, std::nullopt));
  CheckOp(ReduceCase(Kind::kMin, Shape{2, 3, 4}, std::vector<int>{1}));
  CheckOp(ReduceCase(Kind::kMin, Shape{2, 3, 4}, std::vector<int>{0, 2}, true));
  CheckOp(ReduceCase(Kind::kMin, Shape{2, 3, 4}, std::vector<int>{-1}, false, true));
  CheckOp(ReduceCase(Kind::kMin, Shape{3, 1}, std::vector<int>{1}));
  CheckOp(ReduceCase(Kind::kMin, Shape{2, 2, 2, 2, 2, 2, 2}, std::vector<int>{0, 2, 4, 6}));
}

// Inputs in [0.5, 1.5] with random signs keep products away from 0 and from
// float16's range limits.
Values SignedAwayFromZero(const Shape& s) {
  Values v(NumElements(s));
  for (size_t i = 0; i < v.size(); ++i) {
    v[i] = (0.5 + 0.37 * static_cast<double>((i * 7919) % 29) / 10.0) * (i % 3 == 1 ? -1 : 1);
  }
  return v;
}

TEST(ReduceConformance, Prod) {
  for (Kind k : {Kind::kProd, Kind::kNanProd}) {
    for (OpCase c : {ReduceCase(k, Shape{2, 3, 4}, std::nullopt),
                     ReduceCase(k, Shape{2, 3, 4}, std::vector<int>{1}),
                     ReduceCase(k, Shape{2, 3, 4}, std::vector<int>{0, 2}, true),
                     ReduceCase(k, Shape{2, 3, 4}, std::vector<int>{-1}, false, true),
                     ReduceCase(k, Shape{2, 1, 3}, std::vector<int>{1}),
                     ReduceCase(k, Shape{2, 2, 2, 2, 2, 2, 2}, std::vector<int>{1, 3, 5}),
                     ReduceCase(k, Shape{0, 3}, std::vector<int>{0})}) {  // empty: ones
      c.init = [](int, const Shape& s) { return SignedAwayFromZero(s); };
      CheckOp(c);
    }
  }
}

TEST(ReduceConformance, NanSum) {
  CheckOp(ReduceCase(Kind::kNanSum, Shape{2, 3, 4}, std::nullopt));
  CheckOp(ReduceCase(Kind::kNanSum, Shape{2, 3, 4}, std::vector<int>{1}, true));
  CheckOp(ReduceCase(Kind::kNanSum, Shape{2, 3, 4}, std::vector<int>{0, 2}));
  CheckOp(ReduceCase(Kind::kNanSum, Shape{4, 5}, std::vector<int>{0}, false, true));
  CheckOp(ReduceCase(Kind::kNanSum, Shape{2, 2, 2, 2, 2, 2, 2}, std::vector<int>{0, 2, 4, 6}));
  CheckOp(ReduceCase(Kind::kNanSum, Shape{0, 3}, std::vector<int>{0}));  // empty: zeros
}

// NaN inputs: the forward values of every path (middle axis, Eigen, plain loop,
// only size-1 axes) skip them in nansum and nanprod and propagate them in the
// others.
TEST(ReduceConformance, NanInputs) {
  auto with_nans = [](int, const Shape& s) {
    Values v = SignedAwayFromZero(s);
    for (size_t i = 0; i < v.size(); i += 5) v[i] = std::numeric_limits<double>::quiet_NaN();
    return v;
  };
  for (Kind k : {Kind::kNanSum, Kind::kNanProd, Kind::kMin, Kind::kMax, Kind::kProd, Kind::kSum}) {
    for (OpCase c : {ReduceCase(k, Shape{2, 3, 4}, std::vector<int>{1}),
                     ReduceCase(k, Shape{2, 3, 4}, std::vector<int>{2}),
                     ReduceCase(k, Shape{2, 3, 4}, std::nullopt),
                     ReduceCase(k, Shape{2, 2, 2, 2, 2, 2, 2}, std::vector<int>{0, 2, 4, 6}),
                     ReduceCase(k, Shape{3, 1, 5}, std::vector<int>{1})}) {
      c.name += " with NaNs";
      c.init = with_nans;
      c.check_backward = false;
      CheckOp(c);
    }
  }
}

OpCase NormCase(int ord, const Shape& shape, std::optional<std::vector<int>> axes,
                bool keepdims = false) {
  OpCase c = ReduceCase(Kind::kSum, shape, axes, keepdims);
  c.op = "norm";
  c.name = "norm ord " + std::to_string(ord) + c.name.substr(3);
  c.attrs["ord"] = std::to_string(ord);
  auto sum = c.reference;
  c.reference = [=](const std::vector<Values>& in, const std::vector<Shape>& shapes) {
    Values mapped = in[0];
    for (double& v : mapped) v = ord == 1 ? std::abs(v) : v * v;
    std::vector<Values> out = sum({mapped}, shapes);
    if (ord == 2) {
      for (double& v : out[0]) v = std::sqrt(v);
    }
    return out;
  };
  return c;
}

// Random inputs are away from 0, where |x| has its kink and the 2-norm of a
// row could be 0.
TEST(ReduceConformance, Norm) {
  for (int ord : {1, 2}) {
    CheckOp(NormCase(ord, Shape{2, 3, 4}, std::nullopt));
    CheckOp(NormCase(ord, Shape{2, 3, 4}, std::nullopt, true));
    CheckOp(NormCase(ord, Shape{2, 3, 4}, std::vector<int>{1}));
    CheckOp(NormCase(ord, Shape{2, 3, 4}, std::vector<int>{0, 2}, true));
    CheckOp(NormCase(ord, Shape{2, 3, 4}, std::vector<int>{-1}));
    CheckOp(NormCase(ord, Shape{3, 1}, std::vector<int>{1}));
    CheckOp(NormCase(ord, Shape{2, 2, 2, 2, 2, 2, 2}, std::vector<int>{1, 3}));
    CheckOp(NormCase(ord, Shape{0, 3}, std::vector<int>{0}));  // empty: zeros
  }
}

OpCase MomentsCase(const Shape& shape, const std::vector<int>& axes, bool keepdims = false) {
  OpCase c = ReduceCase(Kind::kMean, shape, axes, keepdims);
  c.op = "moments";
  c.name = "moments" + c.name.substr(4);
  c.attrs.erase("axis");
  c.attrs["axes"] = TupleText(axes);
  auto mean = c.reference;
  c.reference = [=](const std::vector<Values>& in, const std::vector<Shape>& shapes) {
    Values m = mean(in, shapes)[0];
    // var = mean of x^2 - mean^2 is inexact; mean the squared deviations.
    const Shape& s = shapes[0];
    std::vector<bool> red = Reduced(axes, false, s.ndim());
    std::vector<int64_t> kept_dims;
    for (int d = 0; d < s.ndim(); ++d) {
      if (!red[d]) kept_dims.push_back(s[d]);
    }
    std::vector<int64_t> kst = Strides(Shape(kept_dims));
    Values var(m.size(), 0.0);
    const double n = static_cast<double>(in[0].size()) / static_cast<double>(m.size());
    for (int64_t j = 0; j < static_cast<int64_t>(in[0].size()); ++j) {
      std::vector<int64_t> idx = Unravel(j, s);
      int64_t o = 0, k = 0;
      for (int d = 0; d < s.ndim(); ++d) {
        if (!red[d]) o += idx[d] * kst[k++];
      }
      var[o] += (in[0][j] - m[o]) * (in[0][j] - m[o]) / n;
    }
    return std::vector<Values>{m, var};
  };
  return c;
}

TEST(ReduceConformance, Moments) {
  CheckOp(MomentsCase(Shape{2, 3, 4}, {1}));
  CheckOp(MomentsCase(Shape{2, 3, 4}, {0, 2}, true));
  CheckOp(MomentsCase(Shape{2, 3, 4}, {-1}));
  CheckOp(MomentsCase(Shape{2, 3, 4}, {0, 1, 2}));
  CheckOp(MomentsCase(Shape{5, 1}, {1}));
  CheckOp(MomentsCase(Shape{2, 2, 2, 2, 2, 2, 2}, {0, 2, 4, 6}));
}

// MXNet reduces int8, uint8, int32 and int64 too, accumulating in the type;
// small values keep the products and sums in range.
TEST(ReduceConformance, IntegerDTypes) {
  for (Kind k : {Kind::kSum, Kind::kMax, Kind::kMin, Kind::kProd, Kind::kNanSum, Kind::kNanProd}) {
    for (OpCase c : {ReduceCase(k, Shape{2, 3, 4}, std::vector<int>{1}),
                     ReduceCase(k, Shape{2, 3, 4}, std::vector<int>{2}, true),
                     ReduceCase(k, Shape{3, 4}, std::vector<int>{0}, false, true),
                     ReduceCase(k, Shape{2, 1, 3}, std::vector<int>{1}),
                     ReduceCase(k, Shape{2, 2, 2, 2, 2, 2, 2}, std::vector<int>{0, 2, 4}),
                     ReduceCase(k, Shape{0, 3}, std::vector<int>{0})}) {
      if (k == Kind::kMax || k == Kind::kMin) {
        if (NumElements(c.shapes[0]) == 0) continue;  // rejected
      }
      c.dtypes = {DType::kInt8, DType::kUint8, DType::kInt32, DType::kInt64};
      c.init = [](int, const Shape& s) {
        Values v(NumElements(s));
        for (size_t i = 0; i < v.size(); ++i) v[i] = 1 + static_cast<double>((i * 5) % 3 == 0);
        return v;
      };
      c.check_backward = false;
      c.name += " integers";
      CheckOp(c);
    }
  }
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

TEST(ReduceKernel, MinGradientGoesToEveryTie) {
  Tensor data = Tensor::FromVector(Shape{2, 3}, {1, 1, 3, -2, 5, -5});
  Tensor out = Empty(Shape{2});
  ASSERT_TRUE(RunKernel("min", {{"axis", "1"}}, {data}, {out}).ok());
  EXPECT_EQ(out.ToDoubles(), (std::vector<double>{1, -5}));
  Tensor og = Tensor::FromVector(Shape{2}, {10, 20}), g = Empty(Shape{2, 3});
  ASSERT_TRUE(RunKernel("_backward_min", {{"axis", "1"}}, {og, data, out}, {g}).ok());
  EXPECT_EQ(g.ToDoubles(), (std::vector<double>{10, 10, 0, 0, 0, 20}));
}

// MXNet's prod gradient is ograd * out / x: NaN (0 / 0) at a zero input of a
// zero product, 0 at the other inputs; nansum's and nanprod's are 0 at NaN.
TEST(ReduceKernel, GradientsAtZerosAndNaNsAreMXNets) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Tensor og = Tensor::FromVector(Shape{2}, {1, 1});
  {
    Tensor data = Tensor::FromVector(Shape{2, 3}, {1, 0, 3, 0, 0, 2});
    Tensor out = Empty(Shape{2}), g = Empty(Shape{2, 3});
    ASSERT_TRUE(RunKernel("prod", {{"axis", "1"}}, {data}, {out}).ok());
    EXPECT_EQ(out.ToDoubles(), (std::vector<double>{0, 0}));
    ASSERT_TRUE(RunKernel("_backward_prod", {{"axis", "1"}}, {og, data, out}, {g}).ok());
    std::vector<double> got = g.ToDoubles();
    EXPECT_EQ(got[0], 0);
    EXPECT_TRUE(std::isnan(got[1]));
    EXPECT_EQ(got[2], 0);
    EXPECT_TRUE(std::isnan(got[3]) && std::isnan(got[4]));
    EXPECT_EQ(got[5], 0);
  }
  {
    Tensor data = Tensor::FromVector(Shape{2, 3}, {1, nan, 3, nan, nan, 2});
    Tensor out = Empty(Shape{2}), g = Empty(Shape{2, 3});
    ASSERT_TRUE(RunKernel("nansum", {{"axis", "1"}}, {data}, {out}).ok());
    EXPECT_EQ(out.ToDoubles(), (std::vector<double>{4, 2}));
    ASSERT_TRUE(RunKernel("_backward_nansum", {{"axis", "1"}}, {og, data, out}, {g}).ok());
    EXPECT_EQ(g.ToDoubles(), (std::vector<double>{1, 0, 1, 0, 0, 1}));
  }
  {
    Tensor data = Tensor::FromVector(Shape{2, 3}, {2, nan, 3, nan, nan, 1});
    Tensor out = Empty(Shape{2}), g = Empty(Shape{2, 3});
    ASSERT_TRUE(RunKernel("nanprod", {{"axis", "1"}}, {data}, {out}).ok());
    EXPECT_EQ(out.ToDoubles(), (std::vector<double>{6, 1}));
    ASSERT_TRUE(RunKernel("_backward_nanprod", {{"axis", "1"}}, {og, data, out}, {g}).ok());
    EXPECT_EQ(g.ToDoubles(), (std::vector<double>{3, 0, 2, 0, 0, 1}));
  }
}

TEST(ReduceKernel, MinOfEmptyInputIsAnError) {
  absl::Status s = RunKernel("min", {{"axis", "0"}}, {Empty(Shape{0, 3})}, {Empty(Shape{3})});
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr("cannot take the min of empty input"));
}

TEST(ReduceKernel, NormOverAllAxesIsShapeOneAndOutDtypeConverts) {
  using testing::MakeTensor;
  using testing::RunOp;
  Tensor x = MakeTensor(Shape{2, 2}, {3, -4, 0, 1.5}, DType::kFloat32);
  std::vector<Tensor> y = RunOp("norm", {}, {x});
  EXPECT_EQ(y[0].shape(), Shape({1}));
  EXPECT_NEAR(y[0].ToDoubles()[0], std::sqrt(27.25), 1e-6);
  y = RunOp("norm", {{"ord", "1"}, {"axis", "(1,)"}, {"out_dtype", "float64"}}, {x});
  EXPECT_EQ(y[0].dtype(), DType::kFloat64);
  EXPECT_EQ(y[0].ToDoubles(), (std::vector<double>{7, 1.5}));
  y = RunOp("norm", {{"axis", "1"}, {"keepdims", "True"}, {"out_dtype", "int32"}}, {x});
  EXPECT_EQ(y[0].dtype(), DType::kInt32);
  EXPECT_EQ(y[0].shape(), Shape({2, 1}));
  EXPECT_EQ(y[0].ToDoubles(), (std::vector<double>{5, 1}));  // 1.5 truncated
  // float16 in (widened to float32 on the CPU), float32 out.
  Tensor h = MakeTensor(Shape{2, 2}, {3, -4, 0, 1.5}, DType::kFloat16);
  y = RunOp("norm", {{"axis", "1"}, {"out_dtype", "float32"}}, {h});
  EXPECT_EQ(y[0].dtype(), DType::kFloat32);
  EXPECT_EQ(y[0].ToDoubles(), (std::vector<double>{5, 1.5}));
}

// An L2 norm whose sum of squares overflows float32 is still the norm (MXNet
// scales; the fuzzer's s36_g2125 and s37_g659 found symx returning infinity):
// one element (nothing reduced), a middle axis, all axes and two axes apart.
TEST(ReduceKernel, NormTwoDoesNotOverflow) {
  using testing::MakeTensor;
  using testing::RunOp;
  const double big = 1.8236532e23;
  std::vector<Tensor> y = RunOp("norm", {{"axis", "0"}, {"keepdims", "True"}},
                                {MakeTensor(Shape{1, 1}, {-big}, DType::kFloat32)});
  EXPECT_NEAR(y[0].ToDoubles()[0], big, big * 1e-6);
  // (2, 3, 2) over axis 1: rows (3e20, 4e20, 0) and (1, 2, 2) for column 0.
  std::vector<double> x(12, 0.0);
  x[0] = 3e20, x[2] = 4e20, x[1] = 1, x[3] = 2, x[5] = 2;
  y = RunOp("norm", {{"axis", "1"}}, {MakeTensor(Shape{2, 3, 2}, x, DType::kFloat32)});
  EXPECT_NEAR(y[0].ToDoubles()[0], 5e20, 5e20 * 1e-6);
  EXPECT_NEAR(y[0].ToDoubles()[1], 3, 1e-6);
  y = RunOp("norm", {}, {MakeTensor(Shape{2, 3, 2}, x, DType::kFloat32)});
  EXPECT_NEAR(y[0].ToDoubles()[0], 5e20, 5e20 * 1e-6);
  y = RunOp("norm", {{"axis", "(0, 2)"}}, {MakeTensor(Shape{2, 3, 2}, x, DType::kFloat32)});
  EXPECT_NEAR(y[0].ToDoubles()[0], 3e20, 3e20 * 1e-6);
  EXPECT_NEAR(y[0].ToDoubles()[1], 4e20, 4e20 * 1e-6);
  // An infinite input still gives infinity.
  y = RunOp("norm", {},
            {MakeTensor(Shape{2}, {1, std::numeric_limits<double>::infinity()}, DType::kFloat32)});
  EXPECT_TRUE(std::isinf(y[0].ToDoubles()[0]));
}

TEST(ReduceKernel, NormGradientsAreMXNets) {
  Tensor data = Tensor::FromVector(Shape{2, 2}, {0, 0, 3, -4});
  Tensor og = Tensor::FromVector(Shape{2}, {1, 2});
  Tensor out = Empty(Shape{2}), g = Empty(Shape{2, 2});
  ASSERT_TRUE(RunKernel("norm", {{"axis", "1"}}, {data}, {out}).ok());
  EXPECT_EQ(out.ToDoubles(), (std::vector<double>{0, 5}));
  // ord 2: x / norm, NaN (0 / 0) where the norm is 0.
  ASSERT_TRUE(RunKernel("_backward_norm", {{"axis", "1"}}, {og, data, out}, {g}).ok());
  std::vector<double> got = g.ToDoubles();
  EXPECT_TRUE(std::isnan(got[0]) && std::isnan(got[1]));
  EXPECT_NEAR(got[2], 1.2, 1e-6);
  EXPECT_NEAR(got[3], -1.6, 1e-6);
  // ord 1: sign(x), 0 at 0.
  ASSERT_TRUE(RunKernel("norm", {{"axis", "1"}, {"ord", "1"}}, {data}, {out}).ok());
  ASSERT_TRUE(
      RunKernel("_backward_norm", {{"axis", "1"}, {"ord", "1"}}, {og, data, out}, {g}).ok());
  EXPECT_EQ(g.ToDoubles(), (std::vector<double>{0, 0, 2, -2}));
}

TEST(ReduceKernel, NormRejectsBadParameters) {
  using testing::ErrorOf;
  using testing::MakeTensor;
  using testing::RunOp;
  Tensor x = MakeTensor(Shape{2, 3}, {1, 2, 3, 4, 5, 6}, DType::kFloat32);
  std::string msg = ErrorOf([&] { RunOp("norm", {{"ord", "3"}}, {x}, "n1"); });
  EXPECT_CONTAINS(msg, "ord");
  EXPECT_CONTAINS(msg, "3");
  msg = ErrorOf([&] { RunOp("norm", {{"out_dtype", "uint8"}}, {x}, "n1"); });
  EXPECT_CONTAINS(msg, "out_dtype");
  EXPECT_CONTAINS(msg, "uint8");
  msg = ErrorOf([&] { RunOp("norm", {{"axis", "(0, 2)"}}, {x}, "n1"); });
  EXPECT_CONTAINS(msg, "axis");
  EXPECT_CONTAINS(msg, "2");
  msg = ErrorOf([&] { RunOp("prod", {{"axis", "(1, -1)"}}, {x}, "p1"); });
  EXPECT_CONTAINS(msg, "more than once");
}

TEST(ReduceKernel, MomentsNeedAxes) {
  using testing::ErrorOf;
  using testing::MakeTensor;
  using testing::RunOp;
  Tensor x = MakeTensor(Shape{2, 3}, {1, 2, 3, 4, 5, 7}, DType::kFloat32);
  std::vector<Tensor> y = RunOp("moments", {{"axes", "(1,)"}}, {x});
  ASSERT_EQ(y.size(), 2u);
  EXPECT_NEAR(y[0].ToDoubles()[1], 16.0 / 3, 1e-6);
  EXPECT_NEAR(y[1].ToDoubles()[1], 14.0 / 9, 1e-6);
  for (const char* axes : {"None", "()"}) {
    std::string msg = ErrorOf([&] { RunOp("moments", {{"axes", axes}}, {x}, "m1"); });
    EXPECT_CONTAINS(msg, "axes");
  }
  std::string msg = ErrorOf([&] { RunOp("moments", {}, {x}, "m1"); });
  EXPECT_CONTAINS(msg, "axes");
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

TEST(ReduceKernel, IntegersWrapAroundInTheirTypeAsMXNet) {
  // MXNet accumulates in the input type: 100 + 100 + 100 in int8 is 44;
  // 65536 * 65536 * 3 in int32 is 0; 256 int8 ones sum to 0 (and a count of
  // 256 must not become a zero divisor, which only a mean uses).
  Tensor a = Tensor::FromVector(Shape{3}, {100, 100, 100}, DType::kInt8);
  Tensor out = Empty(Shape{1}, DType::kInt8);
  ASSERT_TRUE(RunKernel("sum", {}, {a}, {out}).ok());
  EXPECT_EQ(out.ToDoubles(), std::vector<double>{44});
  Tensor b = Tensor::FromVector(Shape{3}, {65536, 65536, 3}, DType::kInt32);
  Tensor outb = Empty(Shape{1}, DType::kInt32);
  ASSERT_TRUE(RunKernel("prod", {}, {b}, {outb}).ok());
  EXPECT_EQ(outb.ToDoubles(), std::vector<double>{0});
  Tensor ones = Tensor::FromVector(Shape{2, 256}, std::vector<double>(512, 1.0), DType::kInt8);
  Tensor outc = Empty(Shape{2}, DType::kInt8);
  ASSERT_TRUE(RunKernel("sum", {{"axis", "1"}}, {ones}, {outc}).ok());
  EXPECT_EQ(outc.ToDoubles(), (std::vector<double>{0, 0}));
}

TEST(ReduceKernel, RejectsBadAxesWithoutCrashing) {
  Tensor x = Tensor::FromVector(Shape{2, 3}, Ramp(6));
  Tensor out = Empty(Shape{2});
  // A node built for 3-D data run on 2-D data: the axis is out of range.
  absl::Status s = RunKernel("sum", {{"axis", "2"}}, {x}, {out});
  EXPECT_FALSE(s.ok());
  EXPECT_THAT(std::string(s.message()), HasSubstr("sum"));
  // mean, norm and moments take no integer data (MXNet rounds their integer
  // results its own way); the other reductions do (IntegerDTypes).
  Tensor xi = Tensor::FromVector(Shape{2, 3}, Ramp(6), DType::kInt32);
  for (const char* op : {"mean", "norm"}) {
    s = RunKernel(op, {{"axis", "1"}}, {xi}, {Empty(Shape{2}, DType::kInt32)});
    EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented) << op;
  }
}

}  // namespace

}  // namespace symx
