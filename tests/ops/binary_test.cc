// Tests of the binary family (graph/ops/binary.cc): elemwise_* on one shape,
// _maximum/_minimum/_power, broadcast_*, mod and hypot (arrays, broadcast,
// scalars; the integer dtypes too) and broadcast_to/axis/like.
//
// Conformance: forward against plain loops, every backward op through Backward
// of its forward op by finite differences; inputs stay away from ties so the
// central differences are exact up to rounding (tests/ops/elemwise_inputs.h).
// Direct kernel tests: broadcasts large enough for the thread pool, float16
// backward kernels.
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
#include "devices/dtype_switch.h"
#include "devices/kernel.h"
#include "devices/tensor.h"
#include "gmock/gmock.h"
#include "graph/node.h"
#include "gtest/gtest.h"
#include "tests/ops/conformance.h"
#include "tests/ops/elemwise_inputs.h"
#include "tests/ops/kernel_runs.h"

namespace symx {
namespace testing {
namespace {

using elemwise_inputs::AwayFromZero;
using elemwise_inputs::Grid;
using elemwise_inputs::Init;
using elemwise_inputs::kFloats;
using elemwise_inputs::PerInput;
using elemwise_inputs::Uniform;

// ---------------------------------------------------------------------------
// Input generators.

using ::symx::testing::BroadcastAt;

// The numpy-broadcast output shape (right-aligned dims).
Shape BroadcastShape(const Shape& a, const Shape& b) {
  int n = std::max(a.ndim(), b.ndim());
  std::vector<int64_t> dims(n);
  for (int i = 0; i < n; ++i) {
    int64_t da = i < n - a.ndim() ? 1 : a[i - (n - a.ndim())];
    int64_t db = i < n - b.ndim() ? 1 : b[i - (n - b.ndim())];
    dims[i] = da == 1 ? db : da;
  }
  return Shape(dims);
}

Values Map2(const Values& a, const Shape& sa, const Values& b, const Shape& sb,
            const std::function<double(double, double)>& f) {
  Shape out = BroadcastShape(sa, sb);
  Values v(NumElements(out));
  for (int64_t i = 0; i < static_cast<int64_t>(v.size()); ++i) {
    v[i] = f(BroadcastAt(a, sa, out, i), BroadcastAt(b, sb, out, i));
  }
  return v;
}

OpCase Binary(const std::string& op, const Shape& lhs, const Shape& rhs,
              std::function<double(double, double)> f, Init init = nullptr) {
  OpCase c;
  c.name = absl::StrCat(op, " ", lhs.ToString(), " ", rhs.ToString());
  c.op = op;
  c.shapes = {lhs, rhs};
  c.reference = [f](const std::vector<Values>& in, const std::vector<Shape>& s) {
    return std::vector<Values>{Map2(in[0], s[0], in[1], s[1], f)};
  };
  c.init = std::move(init);
  c.dtypes = kFloats;
  return c;
}

// ---------------------------------------------------------------------------
// Binary ops on one shape.

TEST(ElemwiseConformance, BinaryOneShape) {
  for (const Shape& s : {Shape{6}, Shape{2, 3}, Shape{1, 4, 1}, Shape{0, 2}}) {
    CheckOp(Binary("elemwise_add", s, s, [](double a, double b) { return a + b; }));
    CheckOp(Binary("elemwise_sub", s, s, [](double a, double b) { return a - b; }));
    CheckOp(Binary("elemwise_mul", s, s, [](double a, double b) { return a * b; }));
    CheckOp(Binary(
        "elemwise_div", s, s, [](double a, double b) { return a / b; },
        PerInput({Uniform(-1, 1), AwayFromZero(0.3, 1.5)})));
    CheckOp(Binary(
        "_maximum", s, s, [](double a, double b) { return a > b ? a : b; }, Grid()));
    CheckOp(Binary(
        "_minimum", s, s, [](double a, double b) { return a < b ? a : b; }, Grid()));
    CheckOp(Binary(
        "_power", s, s, [](double a, double b) { return std::pow(a, b); },
        PerInput({Uniform(0.3, 2.0), Uniform(-1.5, 1.5)})));
  }
}

// Aliases resolve to the same kernels.
TEST(ElemwiseConformance, BinaryAliases) {
  Shape s{2, 3};
  CheckOp(Binary("_plus", s, s, [](double a, double b) { return a + b; }));
  CheckOp(Binary("_Minus", s, s, [](double a, double b) { return a - b; }));
  CheckOp(Binary(
      "_Maximum", s, s, [](double a, double b) { return a > b ? a : b; }, Grid()));
}

// ---------------------------------------------------------------------------
// Broadcasting.

struct ShapePair {
  Shape lhs, rhs;
};

const std::vector<ShapePair> kBroadcastShapes = {
    {Shape{2, 1, 3}, Shape{1, 4, 3}},        // both sides stretch
    {Shape{2, 3}, Shape{3}},                 // fewer dims on the right
    {Shape{3}, Shape{2, 3}},                 // fewer dims on the left
    {Shape{2, 3, 4}, Shape{3, 1}},           // inner broadcast dim
    {Shape{4, 1}, Shape{1, 5}},              // outer product
    {Shape{1}, Shape{2, 3}},                 // a one-element operand
    {Shape{2, 3}, Shape{2, 3}},              // equal shapes
    {Shape{1, 1}, Shape{1, 1}},              // one element each
    {Shape{2, 3, 2, 2}, Shape{1, 3, 1, 2}},  // kept and reduced dims interleaved
    {Shape{3, 1, 2, 1}, Shape{1, 2, 1, 3}},  // alternating on both sides
    {Shape{2, 0, 3}, Shape{1, 1, 3}},        // empty output, non-empty operand
};

TEST(ElemwiseConformance, Broadcast) {
  for (const ShapePair& p : kBroadcastShapes) {
    const Shape& l = p.lhs;
    const Shape& r = p.rhs;
    CheckOp(Binary("broadcast_add", l, r, [](double a, double b) { return a + b; }));
    CheckOp(Binary("broadcast_sub", l, r, [](double a, double b) { return a - b; }));
    CheckOp(Binary("broadcast_mul", l, r, [](double a, double b) { return a * b; }));
    CheckOp(Binary(
        "broadcast_div", l, r, [](double a, double b) { return a / b; },
        PerInput({Uniform(-1, 1), AwayFromZero(0.3, 1.5)})));
    CheckOp(Binary(
        "broadcast_maximum", l, r, [](double a, double b) { return a > b ? a : b; }, Grid()));
    CheckOp(Binary(
        "broadcast_minimum", l, r, [](double a, double b) { return a < b ? a : b; }, Grid()));
    CheckOp(Binary(
        "broadcast_power", l, r, [](double a, double b) { return std::pow(a, b); },
        PerInput({Uniform(0.3, 2.0), Uniform(-1.5, 1.5)})));
  }
  // Aliases.
  CheckOp(
      Binary("broadcast_plus", Shape{2, 3}, Shape{1, 3}, [](double a, double b) { return a + b; }));
  CheckOp(Binary("broadcast_minus", Shape{2, 1}, Shape{1, 3},
                 [](double a, double b) { return a - b; }));
}

// ---------------------------------------------------------------------------
// mod and hypot.

const std::vector<DType> kArithDtypes = {DType::kFloat32, DType::kFloat64, DType::kFloat16,
                                         DType::kUint8,   DType::kInt8,    DType::kInt32,
                                         DType::kInt64};

// Python's %: the divisor's sign; MXNet's 0 for a zero divisor.
double PyMod(double a, double b) {
  if (b == 0) return 0;
  double r = std::fmod(a, b);
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

// Quotients clear of whole numbers (mod jumps there), divisors clear of 0.
Init ModInputs() { return PerInput({Uniform(-4, 4), AwayFromZero(0.6, 1.7)}); }

// Whole numbers in [-6, 6] and divisors in [-3, 3] (zeros included; uint8
// stores the negatives' wrap, which the reference sees as stored).
Init WholeNumbers() {
  return [](int input, const Shape& s) {
    std::mt19937_64 rng(23 + input);
    Values v(NumElements(s));
    const int span = input == 0 ? 13 : 7;
    for (double& x : v) x = static_cast<double>(static_cast<int>(rng() % span) - span / 2);
    return v;
  };
}

TEST(ArithConformance, ModAndHypot) {
  auto mod = [](double a, double b) { return PyMod(a, b); };
  auto hypot = [](double a, double b) { return std::hypot(a, b); };
  for (const Shape& s : {Shape{6}, Shape{2, 3}, Shape{0, 2}}) {
    CheckOp(Binary("_mod", s, s, mod, ModInputs()));
    CheckOp(Binary("_hypot", s, s, hypot, PerInput({AwayFromZero(), AwayFromZero()})));
  }
  for (const ShapePair& p : kBroadcastShapes) {
    CheckOp(Binary("broadcast_mod", p.lhs, p.rhs, mod, ModInputs()));
    CheckOp(
        Binary("broadcast_hypot", p.lhs, p.rhs, hypot, PerInput({AwayFromZero(), AwayFromZero()})));
  }
  CheckOp(Binary("_Mod", Shape{2, 3}, Shape{2, 3}, mod, ModInputs()));
  CheckOp(Binary("_Hypot", Shape{2, 3}, Shape{2, 3}, hypot));
}

// Every dtype MXNet takes, on whole numbers with zero divisors (forward only:
// the gradient of an integer array means nothing).
TEST(ArithConformance, ModAndHypotInEveryDtype) {
  for (std::string op : {"_mod", "broadcast_mod"}) {
    OpCase c = Binary(
        op, Shape{4, 5}, op == "_mod" ? Shape{4, 5} : Shape{1, 5},
        [](double a, double b) { return PyMod(a, b); }, WholeNumbers());
    c.dtypes = kArithDtypes;
    c.check_backward = false;
    CheckOp(c);
  }
  OpCase h = Binary(
      "broadcast_hypot", Shape{4, 5}, Shape{4, 1},
      [](double a, double b) { return std::trunc(std::hypot(a, b)); }, WholeNumbers());
  h.dtypes = {DType::kUint8, DType::kInt8, DType::kInt32, DType::kInt64};
  h.check_backward = false;
  CheckOp(h);
}

OpCase WithScalar(const std::string& op, double scalar, std::function<double(double)> f,
                  Init init = nullptr) {
  OpCase c;
  c.name = absl::StrCat(op, " scalar ", scalar);
  c.op = op;
  c.attrs = {{"scalar", absl::StrCat(scalar)}};
  c.shapes = {Shape{3, 4}};
  c.reference = [f](const std::vector<Values>& in, const std::vector<Shape>&) {
    Values v(in[0].size());
    for (size_t i = 0; i < v.size(); ++i) v[i] = f(in[0][i]);
    return std::vector<Values>{v};
  };
  c.init = std::move(init);
  c.dtypes = kFloats;
  return c;
}

TEST(ArithConformance, ModAndHypotWithAScalar) {
  for (double s : {-1.25, 0.75, 2.5}) {
    CheckOp(WithScalar(
        "_mod_scalar", s, [s](double x) { return PyMod(x, s); }, Uniform(-4, 4)));
    CheckOp(WithScalar(
        "_rmod_scalar", s, [s](double x) { return PyMod(s, x); }, AwayFromZero(0.3, 1.9)));
    CheckOp(WithScalar("_hypot_scalar", s, [s](double x) { return std::hypot(x, s); }));
  }
  // A zero divisor gives 0 (its gradient is still the head gradient, as
  // MXNet's: BinaryKernels.ModSignsAndZeroDivisors).
  OpCase zero = WithScalar("_mod_scalar", 0, [](double) { return 0.0; });
  zero.check_backward = false;
  CheckOp(zero);
  CheckOp(WithScalar("_ModScalar", 1.5, [](double x) { return PyMod(x, 1.5); }));
  CheckOp(WithScalar(
      "_RModScalar", 1.5, [](double x) { return PyMod(1.5, x); }, AwayFromZero(0.3, 1.9)));
  CheckOp(WithScalar("_HypotScalar", 1.5, [](double x) { return std::hypot(x, 1.5); }));
  // Integers: whole-number scalars (a fractional one truncates; see the
  // kernel test below).
  for (std::string op : {"_mod_scalar", "_rmod_scalar"}) {
    OpCase c = WithScalar(
        op, -3, [op](double x) { return op == "_mod_scalar" ? PyMod(x, -3) : PyMod(-3, x); },
        WholeNumbers());
    c.dtypes = kArithDtypes;
    c.dtypes.erase(c.dtypes.begin() + 3);  // uint8 holds no -3
    c.check_backward = false;
    CheckOp(c);
  }
}

// ---------------------------------------------------------------------------
// broadcast_to, broadcast_axis, broadcast_like.

const std::vector<DType> kEveryDtype = {DType::kFloat32, DType::kFloat64, DType::kFloat16,
                                        DType::kUint8,   DType::kInt8,    DType::kInt32,
                                        DType::kInt64,   DType::kBool};

OpCase BroadcastCase(const std::string& op, AttrMap attrs, std::vector<Shape> shapes,
                     const Shape& out) {
  OpCase c;
  c.name = absl::StrCat(op, " ", shapes[0].ToString(), " to ", out.ToString());
  c.op = op;
  c.attrs = std::move(attrs);
  c.shapes = std::move(shapes);
  c.reference = [out](const std::vector<Values>& in, const std::vector<Shape>& s) {
    Values v(NumElements(out));
    for (int64_t i = 0; i < static_cast<int64_t>(v.size()); ++i)
      v[i] = BroadcastAt(in[0], s[0], out, i);
    return std::vector<Values>{v};
  };
  c.dtypes = kEveryDtype;
  // Whole numbers, so every dtype stores them (bool as 0/1).
  c.init = [](int input, const Shape& s) {
    Values v(NumElements(s));
    for (size_t k = 0; k < v.size(); ++k) v[k] = static_cast<double>((k * 5 + input) % 3);
    return v;
  };
  return c;
}

TEST(BroadcastConformance, To) {
  CheckOp(BroadcastCase("broadcast_to", {{"shape", "(2, 3)"}}, {Shape{1, 3}}, Shape{2, 3}));
  CheckOp(
      BroadcastCase("broadcast_to", {{"shape", "(4, 0, 5)"}}, {Shape{1, 3, 1}}, Shape{4, 3, 5}));
  CheckOp(BroadcastCase("broadcast_to", {{"shape", "(2, 3)"}}, {Shape{2, 3}}, Shape{2, 3}));
  CheckOp(
      BroadcastCase("broadcast_to", {{"shape", "(3, 0, 2)"}}, {Shape{1, 0, 1}}, Shape{3, 0, 2}));
  CheckOp(BroadcastCase("broadcast_to", {{"shape", "(0, 2, 0, 3)"}}, {Shape{3, 1, 2, 1}},
                        Shape{3, 2, 2, 3}));
}

TEST(BroadcastConformance, Axis) {
  CheckOp(
      BroadcastCase("broadcast_axis", {{"axis", "0"}, {"size", "4"}}, {Shape{1, 3}}, Shape{4, 3}));
  CheckOp(BroadcastCase("broadcast_axes", {{"axis", "(0, 2)"}, {"size", "(2, 5)"}},
                        {Shape{1, 3, 1}}, Shape{2, 3, 5}));
  CheckOp(BroadcastCase("broadcast_axis", {}, {Shape{2, 3}}, Shape{2, 3}));
}

TEST(BroadcastConformance, Like) {
  CheckOp(BroadcastCase("broadcast_like", {}, {Shape{1, 3}, Shape{4, 3}}, Shape{4, 3}));
  CheckOp(BroadcastCase("broadcast_like", {{"lhs_axes", "(0, 2)"}, {"rhs_axes", "(-1, 0)"}},
                        {Shape{1, 3, 1}, Shape{5, 7}}, Shape{7, 3, 5}));
  // A lone axis list is ignored, as MXNet ignores it.
  CheckOp(BroadcastCase("broadcast_like", {{"lhs_axes", "(0,)"}}, {Shape{1, 3}, Shape{2, 3}},
                        Shape{2, 3}));
}

std::string InferError(const std::string& op, AttrMap attrs, std::vector<Shape> shapes) {
  return ErrorOf([&] {
    std::vector<Tensor> in;
    for (const Shape& s : shapes)
      in.push_back(MakeTensor(s, Values(NumElements(s), 1.0), DType::kFloat32));
    RunOp(op, attrs, in, "b1");
  });
}

TEST(BroadcastConformance, BadParametersAndShapesAreErrors) {
  std::string msg = InferError("broadcast_to", {{"shape", "(2, 3, 4)"}}, {Shape{1, 3}});
  EXPECT_CONTAINS(msg, "[1,3]");
  EXPECT_CONTAINS(msg, "(2, 3, 4)");
  msg = InferError("broadcast_to", {{"shape", "(2, 4)"}}, {Shape{2, 3}});
  EXPECT_CONTAINS(msg, "[2,3]");
  EXPECT_CONTAINS(msg, "[2,4]");
  msg = InferError("broadcast_to", {{"shape", "(2, -1)"}}, {Shape{2, 3}});
  EXPECT_CONTAINS(msg, "shape");
  EXPECT_CONTAINS(msg, "(2, -1)");
  msg = InferError("broadcast_axis", {{"axis", "(0, 1)"}, {"size", "3"}}, {Shape{1, 1}});
  EXPECT_CONTAINS(msg, "size");
  msg = InferError("broadcast_axis", {{"axis", "-1"}, {"size", "3"}}, {Shape{1, 1}});
  EXPECT_CONTAINS(msg, "axis");
  EXPECT_CONTAINS(msg, "-1");
  msg = InferError("broadcast_axis", {{"axis", "1"}, {"size", "3"}}, {Shape{1, 2}});
  EXPECT_CONTAINS(msg, "[1,2]");
  EXPECT_CONTAINS(msg, "size 1");
  msg = InferError("broadcast_axis", {{"axis", "2"}, {"size", "3"}}, {Shape{1, 2}});
  EXPECT_CONTAINS(msg, "axis 2");
  msg = InferError("broadcast_axis", {{"axes", "0"}}, {Shape{1, 2}});
  EXPECT_CONTAINS(msg, "axes");
  msg = InferError("broadcast_like", {}, {Shape{2, 3}, Shape{4, 3}});
  EXPECT_CONTAINS(msg, "[2,3]");
  EXPECT_CONTAINS(msg, "[4,3]");
  msg = InferError("broadcast_like", {}, {Shape{1, 3}, Shape{4}});
  EXPECT_CONTAINS(msg, "[1,3]");
  msg = InferError("broadcast_like", {{"lhs_axes", "(0, 1)"}, {"rhs_axes", "(0,)"}},
                   {Shape{1, 1}, Shape{4}});
  EXPECT_CONTAINS(msg, "rhs_axes");
  msg = InferError("broadcast_like", {{"lhs_axes", "(1,)"}, {"rhs_axes", "(0,)"}},
                   {Shape{1, 3}, Shape{4}});
  EXPECT_CONTAINS(msg, "[1,3]");
  msg = InferError("broadcast_like", {{"lhs_axes", "(2,)"}, {"rhs_axes", "(0,)"}},
                   {Shape{1, 3}, Shape{4}});
  EXPECT_CONTAINS(msg, "lhs_axes");
  msg = InferError("broadcast_mod", {}, {Shape{2, 3}, Shape{4}});
  EXPECT_CONTAINS(msg, "[2,3]");
  msg = InferError("_mod_scalar", {{"scalar", "x"}}, {Shape{2}});
  EXPECT_CONTAINS(msg, "scalar");
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
using ::symx::testing::ErrorOf;
using ::testing::HasSubstr;

struct BroadcastCase {
  Shape lhs, rhs, out;
};

TEST(BinaryKernels, LargeBroadcastForwardAndBackward) {
  for (const BroadcastCase& c : {
           BroadcastCase{Shape{600, 300}, Shape{300}, Shape{600, 300}},     // bias: rows
           BroadcastCase{Shape{600, 1}, Shape{600, 300}, Shape{600, 300}},  // per-row scale
           BroadcastCase{Shape{8, 16, 30, 30}, Shape{1, 16, 1, 1},
                         Shape{8, 16, 30, 30}},  // per channel
           BroadcastCase{Shape{3, 1, 5000}, Shape{1, 7, 5000}, Shape{3, 7, 5000}},
           BroadcastCase{Shape{1}, Shape{40000}, Shape{40000}},
           BroadcastCase{Shape{2, 20000}, Shape{1, 20000}, Shape{2, 20000}},  // few wide rows
       }) {
    SCOPED_TRACE(absl::StrCat(c.lhs.ToString(), " ", c.rhs.ToString()));
    const int64_t nl = c.lhs.Size(), nr = c.rhs.Size(), no = c.out.Size();
    std::vector<double> l = Random(nl, 0.5, 1.5, 2), r = Random(nr, 0.5, 1.5, 3);
    std::vector<double> g = Random(no, -1, 1, 4);
    for (DType t : {DType::kFloat64, DType::kFloat32}) {
      const double tol = t == DType::kFloat64 ? 1e-12 : 1e-4;
      Tensor lt = Make(c.lhs, l, t), rt = Make(c.rhs, r, t), gt = Make(c.out, g, t);
      std::vector<double> lv = lt.ToDoubles(), rv = rt.ToDoubles(), gv = gt.ToDoubles();
      Tensor out = Empty(c.out, t);
      ASSERT_TRUE(RunOp("broadcast_mul", {}, {lt, rt}, {out}).ok());
      std::vector<double> want(no);
      for (int64_t i = 0; i < no; ++i)
        want[i] = BroadcastAt(lv, c.lhs, c.out, i) * BroadcastAt(rv, c.rhs, c.out, i);
      ExpectNear(out.ToDoubles(), want, tol, "broadcast_mul forward");

      Tensor dl = Empty(c.lhs, t), dr = Empty(c.rhs, t);
      ASSERT_TRUE(RunOp("_backward_broadcast_mul", {}, {gt, lt, rt}, {dl, dr}).ok());
      std::vector<double> wl(nl, 0.0), wr(nr, 0.0);
      // Accumulate the reference by mapping each output position back.
      for (int64_t i = 0; i < no; ++i) {
        // Index of the operand element read at position i.
        auto index_of = [&](const Shape& from) {
          int64_t idx = 0, stride = 1, rest = i;
          for (int d = c.out.ndim() - 1; d >= 0; --d) {
            int64_t coord = rest % c.out[d];
            rest /= c.out[d];
            int fd = d - (c.out.ndim() - from.ndim());
            if (fd < 0) continue;
            if (from[fd] != 1) idx += coord * stride;
            stride *= from[fd];
          }
          return idx;
        };
        int64_t li = index_of(c.lhs), ri = index_of(c.rhs);
        wl[li] += gv[i] * rv[ri];
        wr[ri] += gv[i] * lv[li];
      }
      ExpectNear(dl.ToDoubles(), wl, tol * 10, "lhs gradient");
      ExpectNear(dr.ToDoubles(), wr, tol * 10, "rhs gradient");

      Tensor sl = Empty(c.lhs, t), sr = Empty(c.rhs, t);
      ASSERT_TRUE(RunOp("_backward_broadcast_sub", {}, {gt}, {sl, sr}).ok());
      std::vector<double> ws_l(nl, 0.0), ws_r(nr, 0.0);
      // Sums of g over the broadcast dims (sub: lhs +, rhs -).
      for (int64_t i = 0; i < no; ++i) {
        int64_t idx_l = 0, idx_r = 0;
        {
          int64_t s1 = 1, s2 = 1, rest = i;
          for (int d = c.out.ndim() - 1; d >= 0; --d) {
            int64_t coord = rest % c.out[d];
            rest /= c.out[d];
            int fl = d - (c.out.ndim() - c.lhs.ndim());
            int fr = d - (c.out.ndim() - c.rhs.ndim());
            if (fl >= 0) {
              if (c.lhs[fl] != 1) idx_l += coord * s1;
              s1 *= c.lhs[fl];
            }
            if (fr >= 0) {
              if (c.rhs[fr] != 1) idx_r += coord * s2;
              s2 *= c.rhs[fr];
            }
          }
        }
        ws_l[idx_l] += gv[i];
        ws_r[idx_r] -= gv[i];
      }
      ExpectNear(sl.ToDoubles(), ws_l, tol * 10, "sub lhs gradient");
      ExpectNear(sr.ToDoubles(), ws_r, tol * 10, "sub rhs gradient");
    }
  }
}

// The scalar is converted to the array's dtype first: 2.5 is 2 for int32.
TEST(BinaryKernels, IntegerScalarsTruncate) {
  Tensor x = Make(Shape{4}, {3, 5, 7, -7}, DType::kInt32);
  Tensor y = Empty(Shape{4}, DType::kInt32);
  ASSERT_TRUE(RunOp("_mod_scalar", {{"scalar", "2.5"}}, {x}, {y}).ok());
  EXPECT_EQ(y.ToDoubles(), (std::vector<double>{1, 1, 1, 1}));
  ASSERT_TRUE(RunOp("_rmod_scalar", {{"scalar", "17.9"}}, {x}, {y}).ok());
  EXPECT_EQ(y.ToDoubles(), (std::vector<double>{2, 2, 3, -4}));
  ASSERT_TRUE(RunOp("_hypot_scalar", {{"scalar", "2.5"}}, {x}, {y}).ok());
  EXPECT_EQ(y.ToDoubles(), (std::vector<double>{3, 5, 7, 7}));
  // float16 rounds it: 17.9 is 17.90625.
  Tensor h = Make(Shape{3}, {3, 5, 7}, DType::kFloat16);
  Tensor hy = Empty(Shape{3}, DType::kFloat16);
  ASSERT_TRUE(RunOp("_rmod_scalar", {{"scalar", "17.9"}}, {h}, {hy}).ok());
  ExpectNear(hy.ToDoubles(), {2.90625, 2.90625, 3.90625}, 0, "float16 rmod");
}

// MXNet's mod on the signs and on zero, in float and integers.
TEST(BinaryKernels, ModSignsAndZeroDivisors) {
  const std::vector<double> a = {5, -5, 5, -5, 5, 0, 3.5, -3.5};
  const std::vector<double> b = {3, 3, -3, -3, 0, 0, 2, 2};
  Tensor out = Empty(Shape{8}, DType::kFloat32);
  ASSERT_TRUE(RunOp("_mod", {}, {Make(Shape{8}, a), Make(Shape{8}, b)}, {out}).ok());
  EXPECT_EQ(out.ToDoubles(), (std::vector<double>{2, 1, -1, -2, 0, 0, 1.5, 0.5}));
  Tensor ia = Make(Shape{6}, {5, -5, 5, -5, 5, 0}, DType::kInt8);
  Tensor ib = Make(Shape{6}, {3, 3, -3, -3, 0, 0}, DType::kInt8);
  Tensor io = Empty(Shape{6}, DType::kInt8);
  ASSERT_TRUE(RunOp("broadcast_mod", {}, {ia, ib}, {io}).ok());
  EXPECT_EQ(io.ToDoubles(), (std::vector<double>{2, 1, -1, -2, 0, 0}));
  // The rhs gradient is -floor(a / b) g; the lhs's is g.
  Tensor g = Make(Shape{8}, std::vector<double>(8, 1.0));
  Tensor ga = Empty(Shape{8}), gb = Empty(Shape{8});
  ASSERT_TRUE(RunOp("_backward_mod", {}, {g, Make(Shape{8}, a), Make(Shape{8}, b)}, {ga, gb}).ok());
  EXPECT_EQ(ga.ToDoubles(), std::vector<double>(8, 1.0));  // a zero divisor too
  Tensor sx = Make(Shape{2}, {1.5, -2});
  Tensor sg = Empty(Shape{2});
  ASSERT_TRUE(
      RunOp("_backward_rmod_scalar", {{"scalar", "5"}}, {Make(Shape{2}, {1, 1}), sx}, {sg}).ok());
  EXPECT_EQ(sg.ToDoubles(), (std::vector<double>{-3, 3}));
  std::vector<double> want(8);
  for (int i = 0; i < 8; ++i) want[i] = -std::floor(a[i] / b[i]);
  std::vector<double> got = gb.ToDoubles();
  for (int i = 0; i < 8; ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << i;
    } else {
      EXPECT_EQ(got[i], want[i]) << i;
    }
  }
}

// Large broadcasts of bytes and of float gradients take the pool.
TEST(BinaryKernels, LargeBroadcastToAndItsGradient) {
  const Shape in{300, 1, 7}, out{300, 200, 7};
  std::vector<double> v = Random(in.Size(), -1, 1, 5);
  Tensor x = Make(in, v, DType::kFloat64);
  Tensor y = Empty(out, DType::kFloat64);
  ASSERT_TRUE(RunOp("broadcast_to", {{"shape", "(300, 200, 7)"}}, {x}, {y}).ok());
  std::vector<double> got = y.ToDoubles();
  std::vector<double> want(out.Size());
  for (int64_t i = 0; i < out.Size(); ++i) want[i] = BroadcastAt(v, in, out, i);
  ExpectNear(got, want, 0, "broadcast_to forward");
  std::vector<double> g = Random(out.Size(), -1, 1, 6);
  Tensor gt = Make(out, g, DType::kFloat64);
  Tensor gx = Empty(in, DType::kFloat64);
  ASSERT_TRUE(RunOp("_backward_broadcast_to", {{"shape", "(300, 200, 7)"}}, {gt}, {gx}).ok());
  std::vector<double> sum(in.Size(), 0.0);
  for (int64_t i = 0; i < 300; ++i)
    for (int64_t j = 0; j < 200; ++j)
      for (int64_t k = 0; k < 7; ++k) sum[i * 7 + k] += g[(i * 200 + j) * 7 + k];
  ExpectNear(gx.ToDoubles(), sum, 1e-10, "broadcast_to gradient");
}

TEST(BinaryKernels, Float16BinaryBackward) {
  const int64_t n = 40;
  Tensor g = Make(Shape{4, 10}, Random(n, -1, 1, 10), DType::kFloat16);
  Tensor l = Make(Shape{4, 10}, Random(n, 0.5, 1.5, 11), DType::kFloat16);
  Tensor r = Make(Shape{1, 10}, Random(10, 0.5, 1.5, 12), DType::kFloat16);
  Tensor dl = Empty(Shape{4, 10}, DType::kFloat16), dr = Empty(Shape{1, 10}, DType::kFloat16);
  ASSERT_TRUE(RunOp("_backward_broadcast_power", {}, {g, l, r}, {dl, dr}).ok());
  std::vector<double> gv = g.ToDoubles(), lv = l.ToDoubles(), rv = r.ToDoubles();
  std::vector<double> wl(n), wr(10, 0.0);
  for (int64_t i = 0; i < n; ++i) {
    double a = lv[i], b = rv[i % 10];
    wl[i] = gv[i] * b * std::pow(a, b - 1);
    wr[i % 10] += gv[i] * std::pow(a, b) * std::log(a);
  }
  ExpectNear(dl.ToDoubles(), wl, 4e-3, "power lhs gradient");
  ExpectNear(dr.ToDoubles(), wr, 4e-3, "power rhs gradient");

  Tensor rr = Make(Shape{4, 10}, Random(n, 0.5, 1.5, 13), DType::kFloat16);
  Tensor d1 = Empty(Shape{4, 10}, DType::kFloat16), d2 = Empty(Shape{4, 10}, DType::kFloat16);
  ASSERT_TRUE(RunOp("_backward_maximum", {}, {g, l, rr}, {d1, d2}).ok());
  std::vector<double> rrv = rr.ToDoubles(), w1(n), w2(n);
  for (int64_t i = 0; i < n; ++i) {
    w1[i] = lv[i] >= rrv[i] ? gv[i] : 0.0;
    w2[i] = lv[i] >= rrv[i] ? 0.0 : gv[i];
  }
  ExpectNear(d1.ToDoubles(), w1, 0, "max lhs gradient");
  ExpectNear(d2.ToDoubles(), w2, 0, "max rhs gradient");
}

}  // namespace

}  // namespace symx
