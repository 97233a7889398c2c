// Every bind/run error of notes/mxnet-semantics.md section 3, each with the
// content of MXNet's message.
#include "executor/executor.h"
#include "gmock/gmock.h"
#include "graph/symbol.h"
#include "gtest/gtest.h"
#include "tests/executor/executor_test_util.h"

namespace symx {
namespace {

using ::symx::testing::ErrorOf;
using ::symx::testing::Full;
using ::testing::HasSubstr;

Symbol XPlusY() { return Symbol::Variable("x") + Symbol::Variable("y"); }

TEST(BindErrorsTest, ArgumentLists) {
  Tensor a = Full(Shape{2}, 1);
  EXPECT_THAT(
      ErrorOf([&] { Executor::Bind(XPlusY(), {}, {a}, std::nullopt); }),
      HasSubstr("Length of args does not match the number of arguments: expected 2 (x, y), got 1"));
  EXPECT_THAT(ErrorOf([&] {
                Executor::Bind(XPlusY(), {}, std::map<std::string, Tensor>{{"x", a}}, std::nullopt);
              }),
              HasSubstr("key `y` is missing in `args`"));
  EXPECT_THAT(ErrorOf([&] {
                Executor::Bind(XPlusY(), {}, {a, a}, ArrayArgs({a}));
              }),
              HasSubstr("Length of args_grad does not match"));
  // Extra names in a map are ignored, as in MXNet.
  EXPECT_EQ(ErrorOf([&] {
              Executor::Bind(XPlusY(), {},
                             std::map<std::string, Tensor>{{"x", a}, {"y", a}, {"z", a}},
                             std::nullopt);
            }),
            "");
  EXPECT_THAT(ErrorOf([&] {
                Executor::Bind(XPlusY(), {}, {a, Tensor()}, std::nullopt);
              }),
              HasSubstr("the array for argument y is undefined"));
}

TEST(BindErrorsTest, AuxStatesMustBeComplete) {
  Symbol bn = OpCall("BatchNorm").Name("bn").Input("data", Symbol::Variable("x"));
  Tensor x = Full(Shape{2, 3}, 1), c = Full(Shape{3}, 1);
  EXPECT_THAT(ErrorOf([&] {
                Executor::Bind(bn, {}, {x, c, c}, std::nullopt, {c});
              }),
              HasSubstr("Length of aux_states does not match"));
  EXPECT_THAT(ErrorOf([&] {
                Executor::Bind(bn, {}, {x, c, c}, std::nullopt,
                               std::map<std::string, Tensor>{{"bn_moving_mean", c}});
              }),
              HasSubstr("key `bn_moving_var` is missing in `aux_states`"));
}

TEST(BindErrorsTest, ArraysOnAnotherContext) {
  Tensor a = Full(Shape{2}, 1);
  Tensor b = ValueOrThrow(Tensor::Zeros(Shape{2}, DType::kFloat32, Context::CPU(1)));
  EXPECT_THAT(ErrorOf([&] {
                Executor::Bind(XPlusY(), {}, {a, b}, std::nullopt);
              }),
              HasSubstr("Input array is in cpu(1) while binding with ctx=cpu(0). All arguments "
                        "must be in global context (cpu(0)) unless group2ctx is specified"));
  BindOptions on_missing;
  on_missing.ctx = Context::GPU(0);
  EXPECT_THAT(
      ErrorOf([&] {
        Executor::SimpleBind(XPlusY(), {.ctx = Context::GPU(0), .shapes = {{"x", Shape{2}}}});
      }),
      HasSubstr("gpu(0) does not exist"));
}

TEST(BindErrorsTest, GradReqForms) {
  Tensor a = Full(Shape{2}, 1);
  BindOptions bad_list;
  bad_list.grad_req = std::vector<GradReq>{GradReq::kWrite};
  EXPECT_THAT(ErrorOf([&] {
                Executor::Bind(XPlusY(), bad_list, {a, a}, ArrayArgs({a, a}));
              }),
              HasSubstr("grad_req must have one entry per argument: expected 2, provided 1"));
  // simple_bind rejects an empty map (bind reads it as all null: see below).
  EXPECT_THAT(ErrorOf([&] {
                Executor::SimpleBind(XPlusY(), {.shapes = {{"x", Shape{2}}},
                                                .grad_req = std::map<std::string, GradReq>{}});
              }),
              HasSubstr("grad_req is an empty map"));
  EXPECT_THAT(std::string(GradReqSpec::FromString("inplace").status().message()),
              HasSubstr("grad_req=inplace is not a valid input; only 'null', 'write', and 'add'"));
}

TEST(BindErrorsTest, GradientArrayShapeMismatch) {
  Tensor a = Full(Shape{2}, 1), g3 = Full(Shape{3}, 0);
  EXPECT_THAT(ErrorOf([&] {
                Executor::Bind(XPlusY(), {}, {a, a}, ArrayArgs({g3, Tensor()}));
              }),
              HasSubstr("the gradient array for argument x is float32 [3] but its gradient is "
                        "float32 [2]"));
}

TEST(BindErrorsTest, ShapeConflictsNameTheOperator) {
  EXPECT_THAT(ErrorOf([&] {
                Executor::Bind(XPlusY(), {}, {Full(Shape{2}, 1), Full(Shape{3}, 1)}, std::nullopt);
              }),
              HasSubstr("Error in operator"));
}

TEST(BindErrorsTest, SimpleBindInputs) {
  EXPECT_THAT(
      ErrorOf([&] {
        Executor::SimpleBind(XPlusY(), {.shapes = {{"x", Shape{2}}, {"w", Shape{2}}}});
      }),
      HasSubstr("a shape given for 'w', which is not an input of the symbol (inputs: x, y)"));
  Symbol fc = OpCall("FullyConnected")
                  .Name("fc")
                  .Attr("num_hidden", 3)
                  .Input("data", Symbol::Variable("d"));
  std::string msg = ErrorOf([&] { Executor::SimpleBind(fc, {}); });
  EXPECT_THAT(msg, HasSubstr("simple_bind error. Arguments:"));
  EXPECT_THAT(msg, HasSubstr("InferShape pass cannot decide shapes for the following arguments"));
  EXPECT_THAT(msg, HasSubstr("d: [?]"));
  EXPECT_THAT(ErrorOf([&] {
                Executor::SimpleBind(XPlusY(), {.shapes = {{"x", Shape{2}}},
                                                .type_dict = std::map<std::string, DType>{}});
              }),
              HasSubstr("InferType pass cannot decide dtypes"));
}

TEST(BindErrorsTest, ForwardInputs) {
  auto exe = Executor::SimpleBind(XPlusY(), {.shapes = {{"x", Shape{2}}}});
  EXPECT_THAT(ErrorOf([&] {
                exe->Forward(false, {{"z", Full(Shape{2}, 1)}});
              }),
              HasSubstr("Unknown argument z"));
  EXPECT_THAT(ErrorOf([&] {
                exe->Forward(false, {{"x", Full(Shape{3}, 1)}});
              }),
              HasSubstr("Shape not match! Argument x, need: [2], received: [3]"));
  exe->Forward(false, {{"x", Full(Shape{2}, 1)}, {"y", Full(Shape{2}, 2)}});
  testing::ExpectNear(exe->outputs()[0], {3, 3}, 0, "x + y");
  EXPECT_THAT(ErrorOf([&] {
                exe->Backward(std::vector<Tensor>{Full(Shape{2}, 1), Full(Shape{2}, 1)});
              }),
              HasSubstr("Backward got 2 head gradients for 1 outputs"));
  EXPECT_THAT(ErrorOf([&] {
                exe->Backward(std::map<std::string, Tensor>{{"nope", Full(Shape{2}, 1)}});
              }),
              HasSubstr("head gradient given for nope, which is not an output"));
}

TEST(BindErrorsTest, DictsAndCopyParams) {
  Symbol dup = Symbol::Variable("x") + Symbol::Variable("x");
  auto exe = Executor::Bind(dup, {}, {Full(Shape{2}, 1), Full(Shape{2}, 2)}, std::nullopt);
  EXPECT_THAT(ErrorOf([&] { exe->arg_dict(); }), HasSubstr("Duplicate names detected, [x]"));

  auto ok = Executor::SimpleBind(XPlusY(), {.shapes = {{"x", Shape{2}}}});
  EXPECT_THAT(ErrorOf([&] {
                ok->CopyParamsFrom({{"w", Full(Shape{2}, 1)}});
              }),
              HasSubstr("Find name \"w\" that is not in the arguments"));
  EXPECT_THAT(ErrorOf([&] {
                ok->CopyParamsFrom({}, {{"m", Full(Shape{2}, 1)}});
              }),
              HasSubstr("Find name m that is not in the auxiliary states"));
  EXPECT_THAT(ErrorOf([&] {
                ok->CopyParamsFrom({{"x", Full(Shape{3}, 1)}});
              }),
              HasSubstr("argument x has shape [2], the given array [3]"));
  ok->CopyParamsFrom({{"x", Full(Shape{2}, 5, DType::kFloat64)}, {"w", Full(Shape{2}, 1)}}, {},
                     /*allow_extra=*/true);
  testing::ExpectNear(ok->arg_dict().at("x"), {5, 5}, 0, "copied with dtype conversion");
}

}  // namespace
}  // namespace symx

namespace symx {
namespace {

// Review findings, kept as regression tests.
TEST(BindErrorsTest, HugeShapesAreErrorsNotOverruns) {
  Symbol y = OpCall("relu").Name("r").Input(Symbol::Variable("x"));
  EXPECT_THAT(ErrorOf([&] {
                Executor::SimpleBind(y, {.shapes = {{"x", Shape{int64_t{1} << 62}}}});
              }),
              HasSubstr("too large to allocate"));
  EXPECT_THAT(
      ErrorOf([&] {
        Executor::SimpleBind(y, {.shapes = {{"x", Shape{int64_t{1} << 32, int64_t{1} << 32}}}});
      }),
      HasSubstr("too large to allocate"));
}

TEST(BindErrorsTest, EmptyGradReqMapMeansNullInBind) {
  Tensor a = Full(Shape{2}, 1), g = Full(Shape{2}, 5);
  BindOptions opt;
  opt.grad_req = std::map<std::string, GradReq>{};
  auto exe = Executor::Bind(XPlusY(), opt, {a, a}, ArrayArgs({g, g}));
  EXPECT_EQ(exe->grad_reqs()[0], GradReq::kNull);
  exe->Forward(true);
  exe->Backward({Full(Shape{2}, 1)});
  testing::ExpectNear(g, {5, 5}, 0, "null: untouched");
}

TEST(BindErrorsTest, SharedExecOnAnotherDeviceLendsNoMemory) {
  Symbol y = OpCall("exp").Name("e").Input(Symbol::Variable("x"));
  auto e0 = Executor::SimpleBind(y, {.ctx = Context::CPU(0), .shapes = {{"x", Shape{4}}}});
  auto e1 = Executor::SimpleBind(
      y, {.ctx = Context::CPU(1), .shapes = {{"x", Shape{4}}}, .shared_exec = e0.get()});
  EXPECT_EQ(e1->outputs()[0].ctx(), Context::CPU(1));
}

TEST(BindErrorsTest, BackwardMapFeedsOutputsSharingAName) {
  Symbol y = OpCall("exp").Name("e").Input(Symbol::Variable("x"));
  auto exe = Executor::SimpleBind(Symbol::Group({y, y}), {.shapes = {{"x", Shape{2}}}});
  exe->Forward(true);
  exe->Backward(std::map<std::string, Tensor>{{"e_output", Full(Shape{2}, 1)}});
  testing::ExpectNear(exe->grad_dict().at("x"), {2, 2}, 1e-6, "both heads got the gradient");
}

TEST(BindErrorsTest, MonitorSeesInputsBeforeAnInPlaceOp) {
  Symbol x = Symbol::Variable("x");
  Symbol y = OpCall("relu").Name("r").Input(x * 1.0);
  auto exe = Executor::SimpleBind(y, {.shapes = {{"x", Shape{2}}}, .grad_req = GradReq::kNull});
  ThrowIfError(CopyTensor(Tensor::FromVector(Shape{2}, {-1, 2}), exe->arg_dict().at("x")));
  std::vector<double> seen;
  exe->SetMonitorCallback(
      [&](const std::string& name, const Tensor& t) {
        if (name == "r_data") seen = t.ToDoubles();
      },
      /*monitor_all=*/true);
  exe->Forward(false);
  EXPECT_EQ(seen, (std::vector<double>{-1, 2}));
}

}  // namespace
}  // namespace symx
