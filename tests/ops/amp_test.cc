// Tests of the amp family (graph/ops/amp.cc): amp_cast and amp_multicast.
//
// Conformance: values float16 holds exactly, so every cast is exact and the
// reference is the identity; float64 is no AMP type and passes through, so
// the float64 gradient check sees the identity too. Direct tests: the dtypes
// inference gives (which inputs change, widest and narrowest), the values
// after a real narrowing, and the gradients cast back.
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "executor/executor.h"
#include "graph/error.h"
#include "graph/symbol.h"
#include "gtest/gtest.h"
#include "tests/ops/conformance.h"

namespace symx {
namespace testing {
namespace {

// Multiples of 1/8 in [-4, 4): exact in float16 and bfloat16.
Values Eighths(int input, const Shape& s) {
  Values v(NumElements(s));
  for (size_t k = 0; k < v.size(); ++k) {
    v[k] = static_cast<double>(static_cast<int>((k * 13 + 5 * input) % 64) - 32) / 8;
  }
  return v;
}

OpCase Identity(const std::string& op, AttrMap attrs, std::vector<Shape> shapes) {
  OpCase c;
  c.op = op;
  c.name = op;
  for (const auto& [k, v] : attrs) absl::StrAppend(&c.name, " ", k, "=", v);
  c.attrs = std::move(attrs);
  c.shapes = std::move(shapes);
  c.init = Eighths;
  c.reference = [](const std::vector<Values>& in, const std::vector<Shape>&) { return in; };
  c.dtypes = {DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kInt32, DType::kUint8};
  return c;
}

TEST(AmpConformance, Cast) {
  for (const char* dtype : {"float16", "float32", "bfloat16", "float64"}) {
    CheckOp(Identity("amp_cast", {{"dtype", dtype}}, {Shape{3, 4}}));
  }
  CheckOp(Identity("amp_cast", {{"dtype", "float16"}}, {Shape{0, 2}}));
}

TEST(AmpConformance, MultiCast) {
  for (const char* narrow : {"False", "True"}) {
    CheckOp(Identity("amp_multicast", {{"num_outputs", "2"}, {"cast_narrow", narrow}},
                     {Shape{2, 3}, Shape{4}}));
    CheckOp(Identity("amp_multicast", {{"num_outputs", "1"}, {"cast_narrow", narrow}}, {Shape{5}}));
  }
}

// The output dtypes of amp_multicast for the given inputs.
std::vector<DType> MultiCastTypes(const std::vector<DType>& in, bool narrow) {
  OpCall call("amp_multicast");
  call.Name("mc").Attr("num_outputs", static_cast<int64_t>(in.size())).Attr("cast_narrow", narrow);
  std::map<std::string, DType> known;
  for (size_t i = 0; i < in.size(); ++i) {
    const std::string name = absl::StrCat("x", i);
    call.Input(Symbol::Variable(name));
    known[name] = in[i];
  }
  return call.Build().InferType(known).out_types;
}

TEST(AmpTypes, WhichInputsChange) {
  const DType f16 = DType::kFloat16, f32 = DType::kFloat32, bf16 = DType::kBFloat16;
  const DType i32 = DType::kInt32, f64 = DType::kFloat64;
  EXPECT_EQ(MultiCastTypes({f16, f32, i32}, false), (std::vector<DType>{f32, f32, i32}));
  EXPECT_EQ(MultiCastTypes({f16, f16}, false), (std::vector<DType>{f16, f16}));
  // Without float32 the widest is input 0's type, whatever the others are.
  EXPECT_EQ(MultiCastTypes({bf16, f16}, false), (std::vector<DType>{bf16, bf16}));
  EXPECT_EQ(MultiCastTypes({f16, f32, f64}, true), (std::vector<DType>{f16, f16, f64}));
  EXPECT_EQ(MultiCastTypes({f32, f32}, true), (std::vector<DType>{f32, f32}));
  // With both half types the later input decides, as MXNet's loop.
  EXPECT_EQ(MultiCastTypes({f16, bf16}, true), (std::vector<DType>{bf16, bf16}));
  EXPECT_EQ(MultiCastTypes({bf16, f16}, true), (std::vector<DType>{f16, f16}));

  auto cast_type = [](DType in, const char* to) {
    Symbol y = OpCall("amp_cast").Name("c").Attr("dtype", to).Input(Symbol::Variable("x")).Build();
    return y.InferType({{"x", in}}).out_types[0];
  };
  EXPECT_EQ(cast_type(f32, "float16"), f16);
  EXPECT_EQ(cast_type(bf16, "float32"), f32);
  EXPECT_EQ(cast_type(f16, "bfloat16"), bf16);
  EXPECT_EQ(cast_type(f64, "float16"), f64);
  EXPECT_EQ(cast_type(i32, "float16"), i32);
}

// float32 down to float16 rounds; the gradient comes back as float32.
TEST(AmpValues, NarrowingRoundsAndTheGradientComesBack) {
  Symbol x = Symbol::Variable("x");
  Symbol y = OpCall("amp_cast").Name("c").Attr("dtype", "float16").Input(x).Build();
  const Shape s{3};
  std::map<std::string, Tensor> args = {
      {"x", Tensor::FromVector(s, {1.0 / 3, 70000, -2.5}, DType::kFloat32)}};
  std::map<std::string, Tensor> grads = {{"x", ValueOrThrow(Tensor::Zeros(s, DType::kFloat32))}};
  BindOptions opt;
  auto exe = Executor::Bind(y, opt, ArrayArgs(args), ArrayArgs(grads), ArrayArgs());
  exe->Forward(true);
  ASSERT_EQ(exe->outputs()[0].dtype(), DType::kFloat16);
  const Values out = exe->outputs()[0].ToDoubles();
  EXPECT_EQ(out[0], 0.333251953125);
  EXPECT_TRUE(std::isinf(out[1]));
  EXPECT_EQ(out[2], -2.5);
  exe->Backward({Tensor::FromVector(s, {0.1, 2, -3}, DType::kFloat16)});
  const Tensor g = exe->grad_dict().at("x");
  EXPECT_EQ(g.dtype(), DType::kFloat32);
  EXPECT_EQ(g.ToDoubles(), (Values{0.0999755859375, 2, -3}));
}

TEST(AmpErrors, BadParameters) {
  auto run = [](const std::string& op, AttrMap attrs) {
    return ErrorOf([&] { RunOp(op, attrs, {MakeTensor(Shape{2}, {1, 2}, DType::kFloat32)}); });
  };
  std::string msg = run("amp_cast", {{"dtype", "float17"}});
  EXPECT_CONTAINS(msg, "dtype");
  EXPECT_CONTAINS(msg, "float17");
  msg = run("amp_cast", {});
  EXPECT_CONTAINS(msg, "dtype");
  msg = run("amp_multicast", {{"num_outputs", "1"}, {"cast_narrow", "maybe"}});
  EXPECT_CONTAINS(msg, "cast_narrow");
  msg = run("amp_multicast", {{"num_outputs", "2"}});
  EXPECT_CONTAINS(msg, "num_outputs");
}

}  // namespace
}  // namespace testing
}  // namespace symx
