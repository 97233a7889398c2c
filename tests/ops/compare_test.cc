// Conformance of the comparison and logic ops (graph/ops/compare.cc): the
// one-shape, scalar and broadcast forms of equal ... logical_xor, and
// logical_not, in the float dtypes and the integer dtypes MXNet takes; and
// _contrib_allclose.
//
// Forward checks use small whole numbers so that ties (and zeros, for the
// logic ops) occur; the gradient, zero as in MXNet, is checked against
// finite differences on inputs that stay clear of ties and of the scalar.
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
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
using Fn2 = std::function<double(double, double)>;

const std::vector<DType> kFloats = {DType::kFloat32, DType::kFloat64, DType::kFloat16};
const std::vector<DType> kInts = {DType::kUint8, DType::kInt8, DType::kInt32, DType::kInt64};
const std::vector<DType> kAll = {DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kUint8,
                                 DType::kInt8,    DType::kInt32,   DType::kInt64};

// Whole numbers in [-2, 2] (uint8 stores the negatives as 0), different per input.
Init Ties() {
  return [](int input, const Shape& s) {
    std::mt19937_64 rng(17 + input);
    Values v(NumElements(s));
    for (double& x : v) x = static_cast<double>(static_cast<int>(rng() % 5) - 2);
    return v;
  };
}

// Two interleaved grids: lhs and rhs values differ by at least 0.1 and none is
// within 0.05 of a scalar that is a multiple of 0.1.
Init Grid() {
  return [](int input, const Shape& s) {
    Values v(NumElements(s));
    for (size_t k = 0; k < v.size(); ++k) {
      v[k] = (input == 0 ? -0.95 : -0.85) + 0.2 * static_cast<double>((k * 7 + 3 * input) % 10);
    }
    return v;
  };
}

double B(bool b) { return b ? 1.0 : 0.0; }
bool T(double x) { return x != 0; }  // NaN is true

struct Named {
  std::string name;
  Fn2 f;
};

const std::vector<Named> kBinary = {
    {"equal", [](double a, double b) { return B(a == b); }},
    {"not_equal", [](double a, double b) { return B(a != b); }},
    {"greater", [](double a, double b) { return B(a > b); }},
    {"greater_equal", [](double a, double b) { return B(a >= b); }},
    {"lesser", [](double a, double b) { return B(a < b); }},
    {"lesser_equal", [](double a, double b) { return B(a <= b); }},
    {"logical_and", [](double a, double b) { return B(T(a) && T(b)); }},
    {"logical_or", [](double a, double b) { return B(T(a) || T(b)); }},
    {"logical_xor", [](double a, double b) { return B(T(a) != T(b)); }},
};

Shape BroadcastOut(const Shape& a, const Shape& b) {
  int n = std::max(a.ndim(), b.ndim());
  std::vector<int64_t> dims(n);
  for (int i = 0; i < n; ++i) {
    int64_t da = i < n - a.ndim() ? 1 : a[i - (n - a.ndim())];
    int64_t db = i < n - b.ndim() ? 1 : b[i - (n - b.ndim())];
    dims[i] = da == 1 ? db : da;
  }
  return Shape(dims);
}

OpCase Binary(const std::string& op, const Shape& l, const Shape& r, Fn2 f, Init init,
              std::vector<DType> dtypes, bool backward) {
  OpCase c;
  c.name = absl::StrCat(op, " ", l.ToString(), " ", r.ToString(), backward ? " grad" : "");
  c.op = op;
  c.shapes = {l, r};
  c.reference = [f](const std::vector<Values>& in, const std::vector<Shape>& s) {
    Shape out = BroadcastOut(s[0], s[1]);
    Values v(NumElements(out));
    for (int64_t i = 0; i < static_cast<int64_t>(v.size()); ++i) {
      v[i] = f(BroadcastAt(in[0], s[0], out, i), BroadcastAt(in[1], s[1], out, i));
    }
    return std::vector<Values>{v};
  };
  c.init = std::move(init);
  c.dtypes = std::move(dtypes);
  c.check_backward = backward;
  return c;
}

OpCase Unary(const std::string& op, const Shape& s, std::function<double(double)> f, Init init,
             std::vector<DType> dtypes, bool backward, AttrMap attrs = {}) {
  OpCase c;
  c.name = absl::StrCat(op, " ", s.ToString(), backward ? " grad" : "");
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
  c.dtypes = std::move(dtypes);
  c.check_backward = backward;
  return c;
}

TEST(CompareConformance, OneShape) {
  for (const Shape& s : {Shape{7}, Shape{2, 3}, Shape{2, 1, 4}, Shape{0, 3}}) {
    for (const Named& n : kBinary) {
      CheckOp(Binary("_" + n.name, s, s, n.f, Ties(), kAll, false));
      CheckOp(Binary("_" + n.name, s, s, n.f, Grid(), kFloats, true));
    }
  }
}

TEST(CompareConformance, LegacyAliases) {
  const Shape s{3, 4};
  CheckOp(Binary("_Equal", s, s, kBinary[0].f, Ties(), kAll, false));
  CheckOp(Binary("_Not_Equal", s, s, kBinary[1].f, Ties(), kAll, false));
  CheckOp(Binary("_Greater_Equal", s, s, kBinary[3].f, Ties(), kAll, false));
  CheckOp(Binary("_Lesser", s, s, kBinary[4].f, Ties(), kAll, false));
  CheckOp(Binary("_Logical_Xor", s, s, kBinary[8].f, Ties(), kAll, false));
}

struct ShapePair {
  Shape lhs, rhs;
};

const std::vector<ShapePair> kBroadcastShapes = {
    {Shape{2, 1, 3}, Shape{1, 4, 3}},
    {Shape{2, 3}, Shape{3}},
    {Shape{3}, Shape{2, 3}},
    {Shape{2, 3, 4}, Shape{3, 1}},
    {Shape{4, 1}, Shape{1, 5}},
    {Shape{1}, Shape{2, 3}},
    {Shape{2, 3}, Shape{2, 3}},
    {Shape{1, 1}, Shape{1, 1}},
    {Shape{3, 1, 2, 1}, Shape{1, 2, 1, 3}},
    {Shape{2, 0, 3}, Shape{1, 1, 3}},
};

TEST(CompareConformance, Broadcast) {
  for (const ShapePair& p : kBroadcastShapes) {
    for (const Named& n : kBinary) {
      CheckOp(Binary("broadcast_" + n.name, p.lhs, p.rhs, n.f, Ties(), kAll, false));
      CheckOp(Binary("broadcast_" + n.name, p.lhs, p.rhs, n.f, Grid(), kFloats, true));
    }
  }
}

TEST(CompareConformance, ScalarFloat) {
  for (const Shape& s : {Shape{7}, Shape{2, 3}, Shape{0, 2}}) {
    for (double scalar : {0.0, 1.0, -1.0, 0.5}) {
      for (const Named& n : kBinary) {
        Fn2 f = n.f;
        auto g = [f, scalar](double x) { return f(x, scalar); };
        AttrMap attrs = {{"scalar", absl::StrCat(scalar)}};
        CheckOp(Unary("_" + n.name + "_scalar", s, g, Ties(), kFloats, false, attrs));
        if (scalar == 0.5 || scalar == 0.0) {
          CheckOp(Unary("_" + n.name + "_scalar", s, g, Grid(), kFloats, true, attrs));
        }
      }
    }
  }
}

// Integer arrays compare with the scalar truncated to the dtype (MXNet: int32
// x == 2.5 tests x == 2, x > -0.5 tests x > 0).
TEST(CompareConformance, ScalarIntegerTruncates) {
  for (double scalar : {1.5, -0.5, 2.0, -1.7}) {
    const double t = std::trunc(scalar);
    for (const Named& n : kBinary) {
      Fn2 f = n.f;
      AttrMap attrs = {{"scalar", absl::StrCat(scalar)}, {"is_int", "0"}};
      std::vector<DType> dtypes = {DType::kInt8, DType::kInt32, DType::kInt64};
      if (t >= 0) dtypes.push_back(DType::kUint8);
      CheckOp(Unary(
          "_" + n.name + "_scalar", Shape{3, 5}, [f, t](double x) { return f(x, t); }, Ties(),
          dtypes, false, attrs));
    }
  }
}

TEST(CompareConformance, ScalarDefaultAndAliases) {
  // scalar defaults to 1.
  CheckOp(Unary(
      "_equal_scalar", Shape{9}, [](double x) { return B(x == 1); }, Ties(), kAll, false));
  CheckOp(Unary("_GreaterScalar", Shape{9}, [](double x) { return B(x > 0); }, Ties(), kAll, false,
                {{"scalar", "0"}}));
  CheckOp(Unary("_LogicalOrScalar", Shape{9}, [](double x) { return B(T(x)); }, Ties(), kAll, false,
                {{"scalar", "0"}}));
  CheckOp(Unary("_NotEqualScalar", Shape{9}, [](double x) { return B(x != -1); }, Ties(), kAll,
                false, {{"scalar", "-1"}}));
}

TEST(CompareConformance, LogicalNot) {
  for (const Shape& s : {Shape{7}, Shape{2, 3}, Shape{0, 2}}) {
    CheckOp(Unary(
        "logical_not", s, [](double x) { return B(!T(x)); }, Ties(), kAll, false));
    CheckOp(Unary(
        "logical_not", s, [](double x) { return B(!T(x)); }, Grid(), kFloats, true));
  }
}

// NaN: unequal to everything, true for the logic ops.
TEST(CompareConformance, NaN) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Init with_nan = [nan](int input, const Shape& s) {
    Values v(NumElements(s));
    for (size_t k = 0; k < v.size(); ++k) v[k] = (k + input) % 3 == 0 ? nan : double(k % 2);
    return v;
  };
  for (const Named& n : kBinary) {
    CheckOp(Binary("_" + n.name, Shape{6}, Shape{6}, n.f, with_nan, kFloats, false));
    CheckOp(Binary("broadcast_" + n.name, Shape{2, 3}, Shape{3}, n.f, with_nan, kFloats, false));
  }
  CheckOp(Unary(
      "logical_not", Shape{6}, [](double x) { return B(!T(x)); }, with_nan, kFloats, false));
  CheckOp(Unary("_lesser_equal_scalar", Shape{6}, [](double x) { return B(x <= 0.5); }, with_nan,
                kFloats, false, {{"scalar", "0.5"}}));
}

// _contrib_allclose: one uint8 value, 0-dim.
OpCase AllClose(AttrMap attrs, Values a, Values b, bool want) {
  OpCase c;
  c.op = "_contrib_allclose";
  c.name = "allclose";
  for (const auto& [k, v] : attrs) c.name += " " + k + "=" + v;
  c.attrs = std::move(attrs);
  const Shape s{static_cast<int64_t>(a.size())};
  c.shapes = {s, s};
  c.init = [a, b](int input, const Shape&) { return input == 0 ? a : b; };
  c.reference = [want](const std::vector<Values>&, const std::vector<Shape>&) {
    return std::vector<Values>{{want ? 1.0 : 0.0}};
  };
  c.check_backward = false;  // no gradient, as in MXNet
  c.dtypes = {DType::kFloat32, DType::kFloat64};
  return c;
}

TEST(CompareConformance, AllClose) {
  const Values a = {1.0, -2.0, NAN, 1e-9, 3.0};
  const Values near = {1.0, -2.00001, NAN, 0.0, 3.00002};
  CheckOp(AllClose({}, a, near, true));
  CheckOp(AllClose({{"equal_nan", "False"}}, a, near, false));
  CheckOp(AllClose({{"rtol", "1e-7"}}, a, near, false));
  CheckOp(AllClose({{"rtol", "0"}, {"atol", "0.1"}}, {1, 2, 3}, {1.05, 2.09, 2.95}, true));
  CheckOp(AllClose({{"rtol", "0"}, {"atol", "0.1"}}, {1, 2, 3}, {1.05, 2.2, 2.95}, false));
  // The tolerance scales with b, not a.
  CheckOp(AllClose({{"rtol", "0.5"}, {"atol", "0"}}, {3}, {2}, true));
  CheckOp(AllClose({{"rtol", "0.5"}, {"atol", "0"}}, {2}, {4.1}, false));
  OpCase ints = AllClose({{"rtol", "0"}, {"atol", "1"}}, {1, 5, -3, 0}, {2, 5, -4, 1}, true);
  ints.dtypes = {DType::kInt32, DType::kInt8, DType::kInt64, DType::kFloat16};
  CheckOp(ints);
  // The output: uint8 and 0-dim.
  std::vector<Tensor> out = RunOp("_contrib_allclose", {},
                                  {MakeTensor(Shape{2}, {1, 2}, DType::kFloat32),
                                   MakeTensor(Shape{2}, {1, 2}, DType::kFloat32)});
  EXPECT_EQ(out[0].dtype(), DType::kUint8);
  EXPECT_EQ(out[0].shape().ndim(), 0);
  std::string msg = ErrorOf([] {
    RunOp("_contrib_allclose", {},
          {MakeTensor(Shape{2}, {1, 2}, DType::kFloat32),
           MakeTensor(Shape{3}, {1, 2, 3}, DType::kFloat32)});
  });
  EXPECT_CONTAINS(msg, "[2]");
  EXPECT_CONTAINS(msg, "[3]");
  msg = ErrorOf([] {
    RunOp("_contrib_allclose", {{"rtol", "tight"}},
          {MakeTensor(Shape{1}, {1}, DType::kFloat32), MakeTensor(Shape{1}, {1}, DType::kFloat32)});
  });
  EXPECT_CONTAINS(msg, "rtol");
  EXPECT_CONTAINS(msg, "tight");
}

}  // namespace
}  // namespace testing

}  // namespace symx
