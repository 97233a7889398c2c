// Tests of the binary family (graph/ops/binary.cc): elemwise_* on one shape,
// _maximum/_minimum/_power and broadcast_*.
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
