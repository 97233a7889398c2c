// Tests of the elemwise family (graph/ops/elemwise.cc): the basic unary ops,
// the array-with-scalar ops, ElementWiseSum, zeros_like/ones_like, BlockGrad,
// _copy, _copyto, _identity_with_attr_like_rhs, Cast, where, clip and the
// loss-scaling point _symx_loss_scale.
//
// Conformance: forward against plain loops, every backward op through Backward
// of its forward op by finite differences; inputs stay away from kinks (relu and
// abs at 0, clip bounds) so the central differences are exact up to rounding
// (tests/ops/elemwise_inputs.h). Direct kernel tests for what the tables cannot
// reach: arrays large enough for the thread pool, float16 backward kernels,
// mixed-dtype Cast/where, in-place aliasing, errors, the cost of a one-element
// op.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/device.h"
#include "devices/dtype_switch.h"
#include "devices/kernel.h"
#include "devices/tensor.h"
#include "executor/executor.h"
#include "gmock/gmock.h"
#include "graph/error.h"
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

// ---------------------------------------------------------------------------
// References.

Values Map1(const Values& a, const std::function<double(double)>& f) {
  Values out(a.size());
  for (size_t i = 0; i < a.size(); ++i) out[i] = f(a[i]);
  return out;
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
  // lhs itself; rhs only ties the shape and gets a zero gradient.
  for (const Shape& s : {Shape{5}, Shape{2, 3}}) {
    OpCase like = Unary("_identity_with_attr_like_rhs", s, [](double x) { return x; });
    like.shapes = {s, s};
    CheckOp(like);
  }
  std::string msg = ErrorOf([] {
    RunOp("_identity_with_attr_like_rhs", {},
          {MakeTensor(Shape{2}, {1, 2}, DType::kFloat32),
           MakeTensor(Shape{3}, {1, 2, 3}, DType::kFloat32)});
  });
  EXPECT_CONTAINS(msg, "[3]");
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

namespace {

using testing::CheckOp;
using testing::NumElements;
using testing::OpCase;
using testing::Values;

// ----------------------------------------------------------------------------- _symx_loss_scale

// The identity forward; backward multiplies the head gradient by the scale
// input (a power of two here, so exactly in every dtype) and gives the scale
// no gradient. Not an OpCase: its gradient is deliberately not the
// derivative of its forward.
TEST(LossConformance, LossScale) {
  Symbol net = OpCall("_symx_loss_scale")
                   .Name("ls")
                   .Input("data", Symbol::Variable("x"))
                   .Input("scale", Symbol::Variable("s"));
  const Shape shape{3, 4};
  Values x(12), h(12);
  for (int i = 0; i < 12; ++i) {
    x[i] = 0.25 * (i - 5);
    h[i] = 0.125 * (7 - i);
  }
  for (const Context& ctx : testing::DevicesPresent()) {
    for (DType dt : {DType::kFloat32, DType::kFloat64, DType::kFloat16}) {
      SCOPED_TRACE(ctx.ToString() + " " + DTypeName(dt));
      SimpleBindOptions o;
      o.ctx = ctx;
      o.shapes = {{"x", shape}};
      o.type_dict = std::map<std::string, DType>{{"x", dt}, {"s", dt}};
      std::unique_ptr<Executor> exe = Executor::SimpleBind(net, o);
      ThrowIfError(CopyTensor(testing::MakeTensor(shape, x, dt), exe->arg_dict().at("x")));
      ThrowIfError(CopyTensor(testing::MakeTensor(Shape{1}, {8}, dt), exe->arg_dict().at("s")));
      exe->Forward(true);
      exe->Backward({ValueOrThrow(CopyToNew(testing::MakeTensor(shape, h, dt), ctx, dt))});
      EXPECT_EQ(ValueOrThrow(CopyToNew(exe->outputs()[0], Context::CPU(), dt)).ToDoubles(), x);
      std::vector<double> want(12);
      for (int i = 0; i < 12; ++i) want[i] = 8 * h[i];
      std::map<std::string, Tensor> grads = exe->grad_dict();
      EXPECT_EQ(ValueOrThrow(CopyToNew(grads.at("x"), Context::CPU(), dt)).ToDoubles(), want);
      EXPECT_EQ(ValueOrThrow(CopyToNew(grads.at("s"), Context::CPU(), dt)).ToDoubles(),
                std::vector<double>{0});
    }
  }
}

}  // namespace

namespace {

using kernel_runs::Call;
using kernel_runs::Empty;
using kernel_runs::ExpectNear;
using kernel_runs::Make;
using kernel_runs::Random;
using kernel_runs::RunOp;
using ::symx::testing::BroadcastAt;
using ::testing::HasSubstr;

// ---------------------------------------------------------------------------
// Large arrays (the thread-pool paths).

TEST(ElemwiseKernels, LargeUnaryAndScalar) {
  const int64_t n = 200003;
  std::vector<double> x = Random(n, -2, 2, 1);
  Tensor in = Make(Shape{n}, x);
  Tensor out = Empty(Shape{n});
  ASSERT_TRUE(RunOp("exp", {}, {in}, {out}).ok());
  std::vector<double> want(n);
  for (int64_t i = 0; i < n; ++i) want[i] = std::exp(static_cast<float>(x[i]));
  ExpectNear(out.ToDoubles(), want, 1e-6, "exp");

  ASSERT_TRUE(RunOp("_rminus_scalar", {{"scalar", "3"}}, {in}, {out}).ok());
  for (int64_t i = 0; i < n; ++i) want[i] = 3 - static_cast<float>(x[i]);
  ExpectNear(out.ToDoubles(), want, 1e-6, "_rminus_scalar");
}

TEST(ElemwiseKernels, LargeMiscOps) {
  const int64_t n = 100000;
  std::vector<double> a = Random(n, -1, 1, 5), b = Random(n, -1, 1, 6), c = Random(n, -1, 1, 7);
  Tensor ta = Make(Shape{n}, a, DType::kFloat64), tb = Make(Shape{n}, b, DType::kFloat64),
         tc = Make(Shape{n}, c, DType::kFloat64);
  Tensor sum = Empty(Shape{n}, DType::kFloat64);
  ASSERT_TRUE(RunOp("ElementWiseSum", {{"num_args", "3"}}, {ta, tb, tc}, {sum}).ok());
  std::vector<double> want(n);
  for (int64_t i = 0; i < n; ++i) want[i] = a[i] + b[i] + c[i];
  ExpectNear(sum.ToDoubles(), want, 1e-14, "ElementWiseSum");

  Tensor half = Empty(Shape{n}, DType::kFloat16);
  ASSERT_TRUE(RunOp("Cast", {{"dtype", "float16"}}, {ta}, {half}).ok());
  Tensor back = Empty(Shape{n}, DType::kFloat64);
  ASSERT_TRUE(RunOp("_backward_Cast", {{"dtype", "float16"}}, {half}, {back}).ok());
  ExpectNear(back.ToDoubles(), a, 1e-3, "Cast round trip through float16");

  Tensor ones = Empty(Shape{n}, DType::kInt64);
  ASSERT_TRUE(RunOp("ones_like", {}, {ones}, {ones}).ok());
  for (double v : ones.ToDoubles()) ASSERT_EQ(v, 1.0);
}

// ---------------------------------------------------------------------------
// float16 backward kernels (the conformance harness checks float16 forward only).

struct GradCase {
  std::string op;
  AttrMap attrs;
  std::function<double(double, double)> grad;  // (g, v) -> dx
  double lo, hi;
};

TEST(ElemwiseKernels, Float16BackwardKernels) {
  const std::vector<GradCase> cases = {
      {"_backward_sqrt", {}, [](double g, double y) { return g * 0.5 / y; }, 0.5, 2},
      {"_backward_relu", {}, [](double g, double y) { return y > 0 ? g : 0.0; }, -1, 1},
      {"_backward_sigmoid", {}, [](double g, double y) { return g * y * (1 - y); }, 0.1, 0.9},
      {"_backward_tanh", {}, [](double g, double y) { return g * (1 - y * y); }, -0.9, 0.9},
      {"_backward_square", {}, [](double g, double x) { return 2 * g * x; }, -1, 1},
      {"_backward_abs",
       {},
       [](double g, double x) { return x > 0 ? g : (x < 0 ? -g : 0.0); },
       -1,
       1},
      {"_backward_rdiv_scalar",
       {{"scalar", "2"}},
       [](double g, double x) { return -2 * g / (x * x); },
       0.5,
       2},
      {"_backward_maximum_scalar",
       {{"scalar", "0.25"}},
       [](double g, double x) { return x >= 0.25 ? g : 0.0; },
       -1,
       1},
      {"_backward_minimum_scalar",
       {{"scalar", "0.25"}},
       [](double g, double x) { return x <= 0.25 ? g : 0.0; },
       -1,
       1},
      {"_backward_power_scalar",
       {{"scalar", "3"}},
       [](double g, double x) { return 3 * g * x * x; },
       -1,
       1},
      {"_backward_rpower_scalar",
       {{"scalar", "2"}},
       [](double g, double y) { return g * y * std::log(2.0); },
       0.5,
       2},
      {"_backward_clip",
       {{"a_min", "-0.5"}, {"a_max", "0.5"}},
       [](double g, double x) { return (x < -0.5 || x > 0.5) ? 0.0 : g; },
       -1,
       1},
  };
  const int64_t n = 64;
  for (const GradCase& c : cases) {
    Tensor g = Make(Shape{n}, Random(n, -1, 1, 8), DType::kFloat16);
    Tensor v = Make(Shape{n}, Random(n, c.lo, c.hi, 9), DType::kFloat16);
    Tensor out = Empty(Shape{n}, DType::kFloat16);
    ASSERT_TRUE(RunOp(c.op, c.attrs, {g, v}, {out}).ok()) << c.op;
    std::vector<double> gv = g.ToDoubles(), vv = v.ToDoubles(), want(n);
    for (int64_t i = 0; i < n; ++i) want[i] = c.grad(gv[i], vv[i]);
    ExpectNear(out.ToDoubles(), want, 4e-3, c.op);
  }
}

// ---------------------------------------------------------------------------
// Mixed dtypes.

// _copyto's output dtype comes from its use, and the copy converts.
TEST(ElemwiseKernels, CopytoConvertsToTheDtypeOfItsUse) {
  Symbol x = Symbol::Variable("x");
  Symbol c = OpCall("_copyto").Input(x).Build();
  Symbol y = OpCall("elemwise_add").Input(c).Input(Symbol::Variable("w")).Build();
  TypeInference t = y.InferType({{"x", DType::kFloat16}, {"w", DType::kFloat32}});
  EXPECT_EQ(t.out_types[0], DType::kFloat32);
  // Alone, nothing decides its output's dtype (MXNet's inference cannot either).
  EXPECT_EQ(c.InferTypePartial({{"x", DType::kInt32}}).out_types[0], DType::kUnknown);
  Tensor in = Make(Shape{3}, {0.5, -2, 3.25}, DType::kFloat16);
  Tensor out = Empty(Shape{3}, DType::kFloat64);
  ASSERT_TRUE(RunOp("_copyto", {}, {in}, {out}).ok());
  EXPECT_EQ(out.ToDoubles(), (std::vector<double>{0.5, -2, 3.25}));
  // Bound between a float16 input and a float32 use: the gradient comes back
  // as float16.
  std::map<std::string, Tensor> args = {{"x", in}, {"w", Make(Shape{3}, {1, 1, 1})}};
  std::map<std::string, Tensor> grads = {{"x", Empty(Shape{3}, DType::kFloat16)},
                                         {"w", Empty(Shape{3})}};
  BindOptions opt;
  auto exe = Executor::Bind(y, opt, ArrayArgs(args), ArrayArgs(grads), ArrayArgs());
  exe->Forward(true);
  EXPECT_EQ(exe->outputs()[0].dtype(), DType::kFloat32);
  EXPECT_EQ(exe->outputs()[0].ToDoubles(), (std::vector<double>{1.5, -1, 4.25}));
  exe->Backward({Make(Shape{3}, {0.25, 2, -1})});
  EXPECT_EQ(exe->grad_dict().at("x").dtype(), DType::kFloat16);
  EXPECT_EQ(exe->grad_dict().at("x").ToDoubles(), (std::vector<double>{0.25, 2, -1}));
  // The backward kernel converts back.
  Tensor g = Empty(Shape{3}, DType::kFloat16);
  ASSERT_TRUE(
      RunOp("_backward_copyto", {}, {Make(Shape{3}, {1, 2.5, -4}, DType::kFloat64)}, {g}).ok());
  EXPECT_EQ(g.ToDoubles(), (std::vector<double>{1, 2.5, -4}));
}

TEST(ElemwiseKernels, CastBetweenDtypes) {
  Tensor in = Make(Shape{5}, {-2.7, -0.5, 0, 1.5, 100.9}, DType::kFloat64);
  Tensor i32 = Empty(Shape{5}, DType::kInt32);
  ASSERT_TRUE(RunOp("Cast", {{"dtype", "int32"}}, {in}, {i32}).ok());
  EXPECT_EQ(i32.ToDoubles(), (std::vector<double>{-2, 0, 0, 1, 100}));
  Tensor b = Empty(Shape{5}, DType::kBool);
  ASSERT_TRUE(RunOp("Cast", {{"dtype", "bool"}}, {in}, {b}).ok());
  EXPECT_EQ(b.ToDoubles(), (std::vector<double>{1, 1, 0, 1, 1}));
  Tensor u8 = Empty(Shape{5}, DType::kUint8);
  ASSERT_TRUE(RunOp("Cast", {{"dtype", "uint8"}}, {i32}, {u8}).ok());
  Tensor f16 = Empty(Shape{5}, DType::kFloat16);
  ASSERT_TRUE(RunOp("Cast", {{"dtype", "float16"}}, {u8}, {f16}).ok());
  EXPECT_EQ(f16.ToDoubles()[4], 100.0);
  // _backward_Cast: the gradient (in the cast dtype) back in the input's dtype.
  Tensor g = Make(Shape{5}, {0.5, 1, 2, 3, 4}, DType::kFloat16);
  Tensor dx = Empty(Shape{5}, DType::kFloat32);
  ASSERT_TRUE(RunOp("_backward_Cast", {{"dtype", "float16"}}, {g}, {dx}).ok());
  EXPECT_EQ(dx.ToDoubles(), (std::vector<double>{0.5, 1, 2, 3, 4}));
}

TEST(ElemwiseKernels, WhereWithIntegerConditionAndData) {
  Tensor cond = Make(Shape{2, 3}, {0, 1, 2, 0, -1, 0}, DType::kInt32);
  Tensor x = Make(Shape{2, 3}, {1, 2, 3, 4, 5, 6}, DType::kInt64);
  Tensor y = Make(Shape{2, 3}, {-1, -2, -3, -4, -5, -6}, DType::kInt64);
  Tensor out = Empty(Shape{2, 3}, DType::kInt64);
  ASSERT_TRUE(RunOp("where", {}, {cond, x, y}, {out}).ok());
  EXPECT_EQ(out.ToDoubles(), (std::vector<double>{-1, 2, 3, -4, 5, -6}));
  // A float16 condition with a -0 (false) and a NaN (true); bool data.
  Tensor hc = Make(Shape{3}, {-0.0, std::nan(""), 0.5}, DType::kFloat16);
  Tensor hx = Make(Shape{3, 2}, {1, 1, 1, 1, 1, 1}, DType::kBool);
  Tensor hy = Make(Shape{3, 2}, {0, 0, 0, 0, 0, 0}, DType::kBool);
  Tensor hout = Empty(Shape{3, 2}, DType::kBool);
  ASSERT_TRUE(RunOp("where", {}, {hc, hx, hy}, {hout}).ok());
  EXPECT_EQ(hout.ToDoubles(), (std::vector<double>{0, 0, 1, 1, 1, 1}));
  // Backward: (ograd, cond) -> (zeros, ograd where cond, ograd elsewhere).
  Tensor g = Make(Shape{2, 3}, {1, 2, 3, 4, 5, 6}, DType::kFloat32);
  Tensor gc = Make(Shape{2, 3}, {9, 9, 9, 9, 9, 9}, DType::kInt32);
  Tensor gx = Empty(Shape{2, 3}), gy = Empty(Shape{2, 3});
  ASSERT_TRUE(RunOp("_backward_where", {}, {g, cond}, {gc, gx, gy}).ok());
  EXPECT_EQ(gc.ToDoubles(), (std::vector<double>(6, 0.0)));
  EXPECT_EQ(gx.ToDoubles(), (std::vector<double>{0, 2, 3, 0, 5, 0}));
  EXPECT_EQ(gy.ToDoubles(), (std::vector<double>{1, 0, 0, 4, 0, 6}));
}

// ---------------------------------------------------------------------------
// In place, errors, cost.

TEST(ElemwiseKernels, InPlace) {
  const int64_t n = 50000;  // large enough for the pool
  std::vector<double> x = Random(n, -1, 1, 18);
  Tensor t = Make(Shape{n}, x, DType::kFloat64);
  ASSERT_TRUE(RunOp("sigmoid", {}, {t}, {t}).ok());
  std::vector<double> got = t.ToDoubles();
  for (int64_t i = 0; i < n; ++i) ASSERT_NEAR(got[i], 1 / (1 + std::exp(-x[i])), 1e-12);

  // broadcast_add writing over its full-size lhs.
  Tensor l = Make(Shape{500, 100}, Random(n, -1, 1, 19), DType::kFloat64);
  std::vector<double> lv = l.ToDoubles();
  Tensor r = Make(Shape{100}, Random(100, -1, 1, 20), DType::kFloat64);
  std::vector<double> rv = r.ToDoubles();
  ASSERT_TRUE(RunOp("broadcast_add", {}, {l, r}, {l}).ok());
  got = l.ToDoubles();
  for (int64_t i = 0; i < n; ++i) ASSERT_DOUBLE_EQ(got[i], lv[i] + rv[i % 100]);

  // ElementWiseSum into its first input.
  Tensor a = Make(Shape{4}, {1, 2, 3, 4}), b = Make(Shape{4}, {10, 20, 30, 40}),
         c = Make(Shape{4}, {100, 200, 300, 400}), d = Make(Shape{4}, {1000, 0, 0, 0});
  ASSERT_TRUE(RunOp("ElementWiseSum", {{"num_args", "4"}}, {a, b, c, d}, {a}).ok());
  EXPECT_EQ(a.ToDoubles(), (std::vector<double>{1111, 222, 333, 444}));
}

TEST(ElemwiseKernels, ErrorsNameTheOpAndDtype) {
  Tensor i = Make(Shape{3}, {1, 2, 3}, DType::kInt32);
  Tensor o = Empty(Shape{3}, DType::kInt32);
  absl::Status s = RunOp("exp", {}, {i}, {o});
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(s.message(), HasSubstr("exp"));
  EXPECT_THAT(s.message(), HasSubstr("int32"));
  s = RunOp("broadcast_add", {}, {i, i}, {o});
  EXPECT_THAT(s.message(), HasSubstr("int32"));
  // Shapes that do not broadcast (the schema would reject them first).
  Tensor a = Empty(Shape{2, 3}), b = Empty(Shape{4}), out = Empty(Shape{2, 3});
  s = RunOp("broadcast_mul", {}, {a, b}, {out});
  EXPECT_THAT(s.message(), HasSubstr("do not broadcast"));
  // prelu with a gamma of the wrong length.
  Tensor x = Empty(Shape{2, 3}), gamma = Empty(Shape{2}), y = Empty(Shape{2, 3});
  s = RunOp("LeakyReLU", {{"act_type", "prelu"}}, {x, gamma}, {y});
  EXPECT_THAT(s.message(), HasSubstr("gamma"));
}

// Every op of these families has a CPU kernel.
TEST(ElemwiseKernels, EveryOpHasAKernel) {
  for (const char* op : {"exp",
                         "log",
                         "negative",
                         "sqrt",
                         "square",
                         "abs",
                         "relu",
                         "sigmoid",
                         "tanh",
                         "_backward_sqrt",
                         "_backward_relu",
                         "_backward_sigmoid",
                         "_backward_tanh",
                         "_backward_square",
                         "_backward_abs",
                         "elemwise_add",
                         "elemwise_sub",
                         "elemwise_mul",
                         "elemwise_div",
                         "_maximum",
                         "_minimum",
                         "_power",
                         "_backward_maximum",
                         "_backward_minimum",
                         "_backward_power",
                         "_plus_scalar",
                         "_minus_scalar",
                         "_rminus_scalar",
                         "_mul_scalar",
                         "_div_scalar",
                         "_rdiv_scalar",
                         "_maximum_scalar",
                         "_minimum_scalar",
                         "_power_scalar",
                         "_rpower_scalar",
                         "_backward_rdiv_scalar",
                         "_backward_maximum_scalar",
                         "_backward_minimum_scalar",
                         "_backward_power_scalar",
                         "_backward_rpower_scalar",
                         "broadcast_add",
                         "broadcast_sub",
                         "broadcast_mul",
                         "broadcast_div",
                         "broadcast_maximum",
                         "broadcast_minimum",
                         "broadcast_power",
                         "_backward_broadcast_add",
                         "_backward_broadcast_sub",
                         "_backward_broadcast_mul",
                         "_backward_broadcast_div",
                         "_backward_broadcast_maximum",
                         "_backward_broadcast_minimum",
                         "_backward_broadcast_power",
                         "ElementWiseSum",
                         "zeros_like",
                         "ones_like",
                         "BlockGrad",
                         "_copy",
                         "Cast",
                         "_backward_Cast",
                         "where",
                         "_backward_where",
                         "clip",
                         "_backward_clip",
                         "Activation",
                         "_backward_Activation",
                         "LeakyReLU",
                         "_backward_LeakyReLU"}) {
    EXPECT_NE(KernelRegistry::Find(op, DeviceType::kCPU), nullptr) << op;
  }
}

}  // namespace

}  // namespace symx
