// Conformance of the elementwise families: unary math, binary (one shape),
// array-with-scalar, broadcast_* and the misc ops (ElementWiseSum, zeros_like,
// ones_like, BlockGrad, _copy, Cast, where, clip). Every backward op runs
// through Backward of its forward op and is checked by finite differences.
//
// Inputs stay away from kinks (relu and abs at 0, max/min ties, clip bounds)
// so the central differences are exact up to rounding.
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/dtype_switch.h"
#include "gtest/gtest.h"
#include "tests/ops/conformance.h"

namespace symx {
namespace testing {
namespace {

const std::vector<DType> kFloats = {DType::kFloat32, DType::kFloat64, DType::kFloat16};

// ---------------------------------------------------------------------------
// Input generators.

using ::symx::testing::BroadcastAt;
using Init = std::function<Values(int, const Shape&)>;

// Uniform in [lo, hi), seeded by the input index.
Init Uniform(double lo, double hi) {
  return [lo, hi](int input, const Shape& s) {
    std::mt19937_64 rng(77 + input);
    std::uniform_real_distribution<double> u(lo, hi);
    Values v(NumElements(s));
    for (double& x : v) x = u(rng);
    return v;
  };
}

// |x| in [lo, hi) with a random sign: keeps clear of a kink at 0.
Init AwayFromZero(double lo = 0.1, double hi = 1.0) {
  return [lo, hi](int input, const Shape& s) {
    std::mt19937_64 rng(91 + input);
    std::uniform_real_distribution<double> u(lo, hi);
    Values v(NumElements(s));
    for (size_t k = 0; k < v.size(); ++k) v[k] = (rng() & 1) ? u(rng) : -u(rng);
    return v;
  };
}

// Values on two interleaved grids: input 0 takes -0.95 + 0.2 k, input 1
// -0.85 + 0.2 k, so any lhs and rhs (broadcast or not) differ by at least
// 0.1 and a scalar like 0.3 or 0.5 is never closer than 0.05.
Init Grid() {
  return [](int input, const Shape& s) {
    Values v(NumElements(s));
    for (size_t k = 0; k < v.size(); ++k) {
      v[k] = (input == 0 ? -0.95 : -0.85) + 0.2 * static_cast<double>((k * 7 + 3 * input) % 10);
    }
    return v;
  };
}

// Per-input generators.
Init PerInput(std::vector<Init> inits) {
  return [inits](int input, const Shape& s) { return inits[input](input, s); };
}

// ---------------------------------------------------------------------------
// References.

Values Map1(const Values& a, const std::function<double(double)>& f) {
  Values out(a.size());
  for (size_t i = 0; i < a.size(); ++i) out[i] = f(a[i]);
  return out;
}

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

// ---------------------------------------------------------------------------
// Case builders.

const std::vector<Shape> kUnaryShapes = {Shape{5}, Shape{2, 3}, Shape{2, 1, 4}, Shape{1, 1},
                                         Shape{0, 3}};

OpCase Unary(const std::string& op, const Shape& shape, std::function<double(double)> f,
             Init init = nullptr, AttrMap attrs = {}) {
  OpCase c;
  c.name = absl::StrCat(op, " ", shape.ToString());
  c.op = op;
  c.attrs = std::move(attrs);
  c.shapes = {shape};
  c.reference = [f](const std::vector<Values>& in, const std::vector<Shape>&) {
    return std::vector<Values>{Map1(in[0], f)};
  };
  c.init = std::move(init);
  c.dtypes = kFloats;
  return c;
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
// Unary math.

TEST(ElemwiseConformance, UnaryMath) {
  for (const Shape& s : kUnaryShapes) {
    CheckOp(Unary("exp", s, [](double x) { return std::exp(x); }));
    CheckOp(Unary(
        "log", s, [](double x) { return std::log(x); }, Uniform(0.2, 2.0)));
    CheckOp(Unary("negative", s, [](double x) { return -x; }));
    CheckOp(Unary(
        "sqrt", s, [](double x) { return std::sqrt(x); }, Uniform(0.2, 2.0)));
    CheckOp(Unary("square", s, [](double x) { return x * x; }));
    CheckOp(Unary(
        "abs", s, [](double x) { return std::fabs(x); }, AwayFromZero()));
    CheckOp(Unary(
        "relu", s, [](double x) { return x > 0 ? x : 0.0; }, AwayFromZero()));
    CheckOp(Unary(
        "sigmoid", s, [](double x) { return 1 / (1 + std::exp(-x)); }, Uniform(-4, 4)));
    CheckOp(Unary(
        "tanh", s, [](double x) { return std::tanh(x); }, Uniform(-3, 3)));
  }
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
// Array with scalar.

OpCase Scalar(const std::string& op, double scalar, const Shape& s,
              std::function<double(double, double)> f, Init init = nullptr) {
  OpCase c = Unary(op, s, [f, scalar](double x) { return f(x, scalar); }, std::move(init),
                   {{"scalar", absl::StrCat(scalar)}});
  c.name = absl::StrCat(op, "(", scalar, ") ", s.ToString());
  return c;
}

TEST(ElemwiseConformance, Scalar) {
  for (const Shape& s : {Shape{5}, Shape{2, 3}, Shape{3, 1, 2}, Shape{0, 4}}) {
    CheckOp(Scalar("_plus_scalar", 0.7, s, [](double x, double c) { return x + c; }));
    CheckOp(Scalar("_minus_scalar", 0.7, s, [](double x, double c) { return x - c; }));
    CheckOp(Scalar("_rminus_scalar", 0.7, s, [](double x, double c) { return c - x; }));
    CheckOp(Scalar("_mul_scalar", -1.5, s, [](double x, double c) { return x * c; }));
    CheckOp(Scalar("_div_scalar", 2.5, s, [](double x, double c) { return x / c; }));
    CheckOp(Scalar(
        "_rdiv_scalar", 1.5, s, [](double x, double c) { return c / x; }, AwayFromZero(0.3, 1.5)));
    CheckOp(Scalar(
        "_maximum_scalar", 0.3, s, [](double x, double c) { return x > c ? x : c; }, Grid()));
    CheckOp(Scalar(
        "_minimum_scalar", 0.3, s, [](double x, double c) { return x < c ? x : c; }, Grid()));
    CheckOp(Scalar(
        "_power_scalar", 2.5, s, [](double x, double c) { return std::pow(x, c); },
        Uniform(0.2, 2.0)));
    // An integer exponent is defined for negative bases.
    CheckOp(Scalar("_power_scalar", 3, s, [](double x, double c) { return std::pow(x, c); }));
    CheckOp(Scalar("_rpower_scalar", 2.0, s, [](double x, double c) { return std::pow(c, x); }));
    CheckOp(Scalar("_rpower_scalar", 0.5, s, [](double x, double c) { return std::pow(c, x); }));
  }
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
// Misc.

TEST(ElemwiseConformance, ElementWiseSum) {
  for (int n : {1, 2, 3, 4, 5}) {
    for (const Shape& s : {Shape{4}, Shape{2, 3}, Shape{0, 2}}) {
      OpCase c;
      c.name = absl::StrCat("ElementWiseSum x", n, " ", s.ToString());
      c.op = "ElementWiseSum";
      c.attrs = {{"num_args", absl::StrCat(n)}};
      c.shapes.assign(n, s);
      c.reference = [](const std::vector<Values>& in, const std::vector<Shape>&) {
        Values out(in[0].size(), 0.0);
        for (const Values& v : in) {
          for (size_t i = 0; i < v.size(); ++i) out[i] += v[i];
        }
        return std::vector<Values>{out};
      };
      c.dtypes = kFloats;
      CheckOp(c);
    }
  }
}

// Every storage dtype the data-movement ops take; integer inputs are small
// whole numbers so every dtype holds them.
const std::vector<DType> kAllDTypes = {
    DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kBFloat16, DType::kUint8,
    DType::kInt8,    DType::kInt16,   DType::kUint16,  DType::kInt32,    DType::kUint32,
    DType::kInt64,   DType::kUint64,  DType::kBool};

Init SmallWholeNumbers() {
  return [](int input, const Shape& s) {
    Values v(NumElements(s));
    for (size_t k = 0; k < v.size(); ++k) v[k] = static_cast<double>((k * 5 + 2) % 7);
    return v;
  };
}

TEST(ElemwiseConformance, DataMovement) {
  for (const Shape& s : {Shape{5}, Shape{2, 3}, Shape{0, 3}}) {
    OpCase zeros = Unary("zeros_like", s, [](double) { return 0.0; });
    OpCase ones = Unary("ones_like", s, [](double) { return 1.0; });
    OpCase copy = Unary("_copy", s, [](double x) { return x; });
    OpCase block = Unary("BlockGrad", s, [](double x) { return x; });
    // BlockGrad's gradient is zero by definition, not its derivative.
    block.check_backward = false;
    for (OpCase* c : {&zeros, &ones, &copy, &block}) {
      CheckOp(*c);  // floats, with the backward check
      OpCase all = *c;
      all.name += " all dtypes";
      all.dtypes = kAllDTypes;
      all.init = SmallWholeNumbers();
      all.check_backward = false;
      CheckOp(all);
    }
  }
  CheckOp(Unary("identity", Shape{2, 2}, [](double x) { return x; }));
  OpCase stop = Unary("stop_gradient", Shape{3}, [](double x) { return x; });
  stop.check_backward = false;
  CheckOp(stop);
}

// The value `x` takes once stored as `to`, read back as double.
double RoundTo(double x, DType to) {
  double out = 0;
  SYMX_DTYPE_SWITCH_ALL(to, T, { out = ToDouble(FromDouble<T>(x)); });
  return out;
}

TEST(ElemwiseConformance, Cast) {
  // Every target dtype from every float source, on values every dtype holds.
  const std::vector<std::string> targets = {"float32", "float64", "float16", "bfloat16", "uint8",
                                            "int8",    "int16",   "uint16",  "int32",    "uint32",
                                            "int64",   "uint64",  "bool"};
  for (const std::string& t : targets) {
    DType to = ParseDType(t).value();
    for (const Shape& s : {Shape{7}, Shape{2, 3}, Shape{0, 2}}) {
      OpCase c =
          Unary("Cast", s, [to](double x) { return RoundTo(x, to); }, nullptr, {{"dtype", t}});
      c.name = absl::StrCat("Cast to ", t, " ", s.ToString());
      c.dtypes = kAllDTypes;
      c.init = [](int input, const Shape& shape) {
        Values v = Uniform(0.0, 100.0)(input, shape);
        if (!v.empty()) v[0] = 0.0;  // a zero, for bool
        return v;
      };
      // The backward check runs in float64; a narrower target rounds away
      // the finite differences, so only the float targets are checked there.
      c.check_backward = (to == DType::kFloat64);
      CheckOp(c);
    }
  }
  // float64 -> float32 -> gradient back to float64, with steps large enough
  // to rise above float32 rounding.
  OpCase c = Unary("cast", Shape{2, 3}, [](double x) { return RoundTo(x, DType::kFloat32); },
                   nullptr, {{"dtype", "float32"}});
  c.eps = 1e-2;
  c.grad_tol = 1e-5;
  CheckOp(c);
}

TEST(ElemwiseConformance, Where) {
  // Condition values: zeros, ones and other non-zero values.
  Init cond = [](int input, const Shape& s) {
    Values v(NumElements(s));
    for (size_t k = 0; k < v.size(); ++k) v[k] = (k % 3 == 0) ? 0.0 : (k % 3 == 1 ? 1.0 : -2.0);
    return v;
  };
  Init init = PerInput({cond, Uniform(-1, 1), Uniform(-1, 1)});
  struct WhereShapes {
    Shape cond, x;
  };
  for (const WhereShapes& w :
       {WhereShapes{Shape{2, 3}, Shape{2, 3}}, WhereShapes{Shape{7}, Shape{7}},
        WhereShapes{Shape{3}, Shape{3, 2}},  // picks rows
        WhereShapes{Shape{4}, Shape{4, 2, 3}}, WhereShapes{Shape{0, 2}, Shape{0, 2}}}) {
    OpCase c;
    c.name = absl::StrCat("where ", w.cond.ToString(), " ", w.x.ToString());
    c.op = "where";
    c.shapes = {w.cond, w.x, w.x};
    c.init = init;
    c.no_grad = {0};
    c.reference = [](const std::vector<Values>& in, const std::vector<Shape>& s) {
      Values out(in[1].size());
      int64_t row = in[0].size() == in[1].size() || in[0].empty()
                        ? 1
                        : static_cast<int64_t>(in[1].size() / in[0].size());
      for (size_t i = 0; i < out.size(); ++i) {
        out[i] = in[0][i / row] != 0 ? in[1][i] : in[2][i];
      }
      return std::vector<Values>{out};
    };
    c.dtypes = kFloats;
    CheckOp(c);
  }
}

TEST(ElemwiseConformance, Clip) {
  for (const Shape& s : {Shape{10}, Shape{2, 5}, Shape{0, 3}}) {
    CheckOp(Unary("clip", s, [](double x) { return x < -0.5 ? -0.5 : (x > 0.5 ? 0.5 : x); }, Grid(),
                  {{"a_min", "-0.5"}, {"a_max", "0.5"}}));
    CheckOp(Unary("clip", s, [](double x) { return x < 0.1 ? 0.1 : (x > 0.3 ? 0.3 : x); }, Grid(),
                  {{"a_min", "0.1"}, {"a_max", "0.3"}}));
  }
}

}  // namespace
}  // namespace testing
}  // namespace symx
