// Tests of the init family (graph/ops/init.cc): _zeros, _ones, _full,
// _arange, _eye, _linspace, _contrib_arange_like and _zeros_without_dtype,
// including legacy 0 dims filled from the output's use. Expected values
// for edge cases were checked against MXNet 1.9.1.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "devices/cpu/cpu_device.h"
#include "executor/executor.h"
#include "graph/symbol.h"
#include "gtest/gtest.h"
#include "tests/ops/conformance.h"

namespace symx {
namespace {

using testing::CheckOp;
using testing::NumElements;
using testing::OpCase;
using testing::Strides;
using testing::Values;

// ----------------------------------------------------------------------------- creation

OpCase Creation(std::string name, std::string op, AttrMap attrs, Values want) {
  OpCase c;
  c.name = std::move(name);
  c.op = std::move(op);
  c.attrs = std::move(attrs);
  c.reference = [want](const std::vector<Values>&, const std::vector<Shape>&) {
    return std::vector<Values>{want};
  };
  c.check_backward = false;
  c.dtypes = {DType::kFloat32};  // the output's dtype is the attribute
  c.forward_tol32 = 1e-6;
  return c;
}

TEST(TensorConformance, ZerosOnesFull) {
  CheckOp(Creation("zeros f32", "_zeros", {{"shape", "(2, 3)"}}, Values(6, 0.0)));
  CheckOp(
      Creation("zeros int32", "_zeros", {{"shape", "(4,)"}, {"dtype", "int32"}}, Values(4, 0.0)));
  CheckOp(Creation("zeros ctx ignored", "_zeros", {{"shape", "(1, 2)"}, {"ctx", "gpu(3)"}},
                   Values(2, 0.0)));
  CheckOp(Creation("ones uint8", "_ones", {{"shape", "(3,)"}, {"dtype", "uint8"}}, Values(3, 1.0)));
  CheckOp(
      Creation("ones f16", "_ones", {{"shape", "(1, 2)"}, {"dtype", "float16"}}, Values(2, 1.0)));
  CheckOp(Creation("ones bool", "_ones", {{"shape", "(2,)"}, {"dtype", "bool"}}, Values(2, 1.0)));
  CheckOp(Creation("full f64", "_full",
                   {{"shape", "(2, 2)"}, {"value", "2.5"}, {"dtype", "float64"}}, Values(4, 2.5)));
  // Integer dtypes truncate toward zero and wrap, as MXNet: 2.7 -> 2, -2.7 -> -2, 300 -> 44.
  CheckOp(Creation("full int32", "_full", {{"shape", "(2,)"}, {"value", "2.7"}, {"dtype", "int32"}},
                   Values(2, 2.0)));
  CheckOp(Creation("full int8", "_full", {{"shape", "(2,)"}, {"value", "-2.7"}, {"dtype", "int8"}},
                   Values(2, -2.0)));
  CheckOp(Creation("full uint8", "_full", {{"shape", "(2,)"}, {"value", "300"}, {"dtype", "uint8"}},
                   Values(2, 44.0)));
  CheckOp(Creation("full int64", "_full", {{"shape", "(3,)"}, {"value", "-7"}, {"dtype", "int64"}},
                   Values(3, -7.0)));
}

TEST(TensorConformance, Arange) {
  CheckOp(Creation("arange repeat", "_arange",
                   {{"start", "1"}, {"stop", "7"}, {"step", "2"}, {"repeat", "2"}},
                   {1, 1, 3, 3, 5, 5}));
  CheckOp(Creation("arange down int32", "_arange",
                   {{"start", "7"}, {"stop", "1"}, {"step", "-2"}, {"dtype", "int32"}}, {7, 5, 3}));
  CheckOp(Creation("arange no stop", "_arange", {{"start", "5"}}, {0, 1, 2, 3, 4}));
  CheckOp(Creation("arange no stop frac", "_arange", {{"start", "1.5"}}, {0, 1}));
  CheckOp(Creation("arange frac", "_arange", {{"start", "0.5"}, {"stop", "2.2"}, {"step", "0.5"}},
                   {0.5, 1, 1.5, 2}));
  // int dtypes cast step (0.6 -> 0) and start (-2.5 -> -2) first, as MXNet.
  CheckOp(Creation("arange int step cast", "_arange",
                   {{"start", "0"}, {"stop", "3"}, {"step", "0.6"}, {"dtype", "int32"}},
                   {0, 0, 0, 0, 0}));
  CheckOp(Creation("arange int start cast", "_arange",
                   {{"start", "-2.5"}, {"stop", "3"}, {"step", "1.3"}, {"dtype", "int64"}},
                   {-2, -1, 0, 1, 2}));
  CheckOp(Creation("arange f64", "_arange",
                   {{"start", "0"}, {"stop", "1"}, {"step", "0.25"}, {"dtype", "float64"}},
                   {0, 0.25, 0.5, 0.75}));
}

// Legacy shapes: a 0 dim of zeros/ones and arange's infer_range are filled from the use.
TEST(TensorConformance, CreationShapesFromUse) {
  Symbol x = Symbol::Variable("x");
  Symbol z = OpCall("_ones").Attr("shape", "(0, 3)");
  Symbol a = OpCall("_arange")
                 .Attr("start", "2")
                 .Attr("step", "3")
                 .Attr("infer_range", "True")
                 .Attr("repeat", "2");
  Symbol y1 = z + x;
  Symbol y2 = OpCall("elemwise_mul").Input(a).Input(Symbol::Variable("v"));
  SimpleBindOptions opt;
  opt.ctx = Context::CPU(0);
  opt.shapes = {{"x", Shape{4, 3}}};
  opt.grad_req = GradReq::kNull;
  auto exe = Executor::SimpleBind(y1, opt);
  ASSERT_NE(exe, nullptr);
  exe->Forward(false);
  ASSERT_EQ(exe->outputs()[0].shape(), (Shape{4, 3}));
  for (double v : exe->outputs()[0].ToDoubles()) EXPECT_EQ(v, 1.0);

  opt.shapes = {{"v", Shape{6}}};
  auto exe2 = Executor::SimpleBind(y2, opt);
  ASSERT_NE(exe2, nullptr);
  Tensor ones = Tensor::FromVector(Shape{6}, Values(6, 1.0), DType::kFloat32);
  exe2->Forward(false, {{"v", ones}});
  EXPECT_EQ(exe2->outputs()[0].ToDoubles(), (Values{2, 2, 5, 5, 8, 8}));
}

TEST(TensorConformance, Eye) {
  CheckOp(Creation("eye", "_eye", {{"N", "3"}}, {1, 0, 0, 0, 1, 0, 0, 0, 1}));
  CheckOp(Creation("eye wide k=1 int32", "_eye",
                   {{"N", "3"}, {"M", "4"}, {"k", "1"}, {"dtype", "int32"}},
                   {0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}));
  CheckOp(Creation("eye k=-2", "_eye", {{"N", "3"}, {"k", "-2"}, {"dtype", "float16"}},
                   {0, 0, 0, 0, 0, 0, 1, 0, 0}));
  CheckOp(Creation("eye k past the corner", "_eye", {{"N", "2"}, {"k", "5"}}, Values(4, 0.0)));
  CheckOp(Creation("eye empty", "_eye", {{"N", "0"}}, {}));
  std::string msg = testing::ErrorOf([] { testing::RunOp("_eye", {{"N", "-1"}}, {}); });
  EXPECT_CONTAINS(msg, "N");
  EXPECT_CONTAINS(msg, "-1");
  msg = testing::ErrorOf([] { testing::RunOp("_eye", {{"M", "2"}}, {}); });
  EXPECT_CONTAINS(msg, "N");
  msg = testing::ErrorOf([] { testing::RunOp("_eye", {{"N", "2"}, {"dtype", "bool"}}, {}); });
  EXPECT_CONTAINS(msg, "bool");
}

TEST(TensorConformance, Linspace) {
  CheckOp(Creation("linspace", "_linspace", {{"start", "0"}, {"stop", "1"}, {"num", "5"}},
                   {0, 0.25, 0.5, 0.75, 1}));
  CheckOp(Creation("linspace down f64", "_linspace",
                   {{"start", "2.5"}, {"stop", "-1"}, {"num", "4"}, {"dtype", "float64"}},
                   {2.5, 2.5 - 3.5 / 3, 2.5 - 7.0 / 3, -1}));
  // Without the endpoint; integers truncate the double values.
  CheckOp(Creation(
      "linspace no endpoint int32", "_linspace",
      {{"start", "0"}, {"stop", "7"}, {"num", "5"}, {"endpoint", "False"}, {"dtype", "int32"}},
      {0, 1, 2, 4, 5}));
  CheckOp(
      Creation("linspace one", "_linspace", {{"start", "3"}, {"stop", "9"}, {"num", "1"}}, {3}));
  CheckOp(
      Creation("linspace none", "_linspace", {{"start", "3"}, {"stop", "9"}, {"num", "0"}}, {}));
  std::string msg = testing::ErrorOf([] {
    testing::RunOp("_linspace", {{"start", "0"}, {"stop", "1"}, {"num", "-1"}}, {});
  });
  EXPECT_CONTAINS(msg, "num");
  // MXNet documents _arange's parameters for _linspace; its parser takes these only.
  msg = testing::ErrorOf([] {
    testing::RunOp("_linspace", {{"start", "0"}, {"stop", "1"}, {"num", "2"}, {"step", "0.5"}}, {});
  });
  EXPECT_CONTAINS(msg, "step");
}

OpCase ArangeLike(AttrMap attrs, const Shape& in, Values want) {
  OpCase c;
  c.name = "arange_like " + in.ToString();
  for (const auto& [k, v] : attrs) c.name += " " + k + "=" + v;
  c.op = "_contrib_arange_like";
  c.attrs = std::move(attrs);
  c.shapes = {in};
  c.reference = [want](const std::vector<Values>&, const std::vector<Shape>&) {
    return std::vector<Values>{want};
  };
  c.dtypes = {DType::kFloat32, DType::kFloat64};
  return c;  // the input's gradient is zero, as finite differences see it
}

TEST(TensorConformance, ArangeLike) {
  CheckOp(ArangeLike({}, Shape{2, 3}, {0, 1, 2, 3, 4, 5}));
  CheckOp(ArangeLike({{"start", "1.5"}, {"step", "0.5"}, {"repeat", "2"}}, Shape{2, 2},
                     {1.5, 1.5, 2, 2}));
  CheckOp(ArangeLike({{"axis", "-1"}, {"step", "2"}}, Shape{2, 3, 4}, {0, 2, 4, 6}));
  CheckOp(
      ArangeLike({{"axis", "0"}, {"start", "-1"}, {"repeat", "3"}}, Shape{4, 2}, {-1, -1, -1, 0}));
  // Integers cast start and step first and wrap: 100, 120, 140 -> -116 as int8.
  OpCase ints = ArangeLike({{"start", "100"}, {"step", "20"}}, Shape{4}, {100, 120, -116, -96});
  ints.dtypes = {DType::kInt8};
  ints.check_backward = false;
  CheckOp(ints);
  OpCase u8 = ArangeLike({{"start", "1.5"}, {"step", "0.7"}}, Shape{3}, {1, 1, 1});
  u8.dtypes = {DType::kUint8};
  u8.check_backward = false;
  CheckOp(u8);
  auto run = [](AttrMap attrs) {
    return testing::ErrorOf([&] {
      testing::RunOp("_contrib_arange_like", attrs,
                     {testing::MakeTensor(Shape{2, 3}, Values(6, 0.0), DType::kFloat32)});
    });
  };
  std::string msg = run({{"axis", "2"}});
  EXPECT_CONTAINS(msg, "axis");
  msg = run({{"repeat", "0"}});
  EXPECT_CONTAINS(msg, "repeat");
}

// dtype -1 takes the dtype from the use; a flag or a name fixes it.
TEST(TensorConformance, ZerosWithoutDtype) {
  Symbol x = Symbol::Variable("x");
  Symbol z = OpCall("_zeros_without_dtype").Attr("shape", "(2, 3)");
  Symbol y = z + x;
  TypeInference t = y.InferType({{"x", DType::kFloat64}});
  EXPECT_EQ(t.out_types[0], DType::kFloat64);
  for (const char* flag : {"4", "int32"}) {
    Symbol zi = OpCall("_zeros_without_dtype").Attr("shape", "(2,)").Attr("dtype", flag);
    EXPECT_EQ(zi.InferType({}).out_types[0], DType::kInt32) << flag;
  }
  SimpleBindOptions opt;
  opt.ctx = Context::CPU(0);
  opt.shapes = {{"x", Shape{2, 3}}};
  opt.type_dict = std::map<std::string, DType>{{"x", DType::kFloat64}};
  opt.grad_req = GradReq::kNull;
  auto exe = Executor::SimpleBind(y, opt);
  exe->Forward(false, {{"x", Tensor::FromVector(Shape{2, 3}, Values(6, 1.5), DType::kFloat64)}});
  EXPECT_EQ(exe->outputs()[0].dtype(), DType::kFloat64);
  EXPECT_EQ(exe->outputs()[0].ToDoubles(), Values(6, 1.5));
  std::string msg = testing::ErrorOf([] {
    Symbol bad = OpCall("_zeros_without_dtype").Attr("shape", "(2,)").Attr("dtype", "float17");
    bad.InferType({});
  });
  EXPECT_CONTAINS(msg, "float17");
}

}  // namespace

}  // namespace symx
