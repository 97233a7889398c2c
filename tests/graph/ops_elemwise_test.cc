// Tests for the elementwise family: graph/ops/{elemwise_unary, elemwise_binary,
// elemwise_scalar, broadcast, reduce, misc}.cc. Expected shapes are worked out
// by hand from MXNet 1.x's rules.
#include <cstdint>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "graph/error.h"
#include "graph/node.h"
#include "graph/op.h"
#include "graph/ops/op_helpers.h"
#include "gtest/gtest.h"
#include "tests/graph/op_test_util.h"

namespace symx {

// Readable gtest failure output.

namespace {

using ::symx::testing::Differentiate;
using ::symx::testing::GradCase;
using ::symx::testing::Infer;
using ::symx::testing::InferError;
using ::symx::testing::InferOpShape;
using ::symx::testing::InferOpType;
using ::symx::testing::ParseAttrs;
using ::symx::testing::ParseError;

const Shape kUnknown;
const Shape kScalar(std::vector<int64_t>{});  // ndim 0
constexpr int64_t kU = kUnknownDim;

// "OK" or the error message, so EXPECT_THAT-free checks read naturally.
std::string Msg(const absl::Status& s) { return s.ok() ? "OK" : std::string(s.message()); }
template <typename T>
std::string Msg(const absl::StatusOr<T>& s) {
  return Msg(s.status());
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Checks that `e` is output 0 of an `op` node with exactly `inputs`.
void ExpectNode(const NodeEntry& e, const std::string& op, const std::vector<NodeEntry>& inputs) {
  ASSERT_NE(e.node, nullptr);
  ASSERT_FALSE(e.node->is_variable());
  EXPECT_EQ(e.node->op()->name(), op);
  EXPECT_EQ(e.index, 0u);
  EXPECT_EQ(e.node->inputs, inputs) << op;
}

// Checks that grads[i] is output i of one backward node of `op` for `fwd`.
void ExpectBackward(const GradCase& c, const std::string& op, const std::vector<NodeEntry>& inputs,
                    int num_outputs) {
  ASSERT_FALSE(c.grads.empty());
  NodePtr bw;
  for (size_t i = 0; i < c.grads.size(); ++i) {
    if (!c.grads[i].node) continue;
    if (!bw) bw = c.grads[i].node;
    EXPECT_EQ(c.grads[i].node, bw);
    EXPECT_EQ(c.grads[i].index, i);
  }
  ASSERT_NE(bw, nullptr);
  EXPECT_EQ(bw->op()->name(), op);
  EXPECT_TRUE(bw->op()->is_backward());
  EXPECT_EQ(bw->num_outputs(), num_outputs);
  EXPECT_EQ(bw->inputs, inputs);
  ASSERT_EQ(bw->control_deps.size(), 1u);
  EXPECT_EQ(bw->control_deps[0], c.node);
  EXPECT_EQ(bw->attrs.dict, c.node->attrs.dict);
}

// Ops whose inputs and output all share one shape: complete, partial,
// backward, conflict, wrong-ndim and bad-attribute cases.
void CheckSameShapeOp(const std::string& op, AttrMap dict, int num_inputs) {
  SCOPED_TRACE(op);
  std::vector<Shape> in(num_inputs, kUnknown);
  in[0] = Shape{2, 3};
  auto full = Infer(op, dict, in);
  for (const Shape& s : full.in) EXPECT_EQ(s, Shape({2, 3}));
  EXPECT_EQ(full.out[0], Shape({2, 3}));

  auto backward = Infer(op, dict, std::vector<Shape>(num_inputs, kUnknown), {Shape{4, 5}});
  for (const Shape& s : backward.in) EXPECT_EQ(s, Shape({4, 5}));

  in.assign(num_inputs, kUnknown);
  in[0] = Shape{kU, 3};
  auto partial = Infer(op, dict, in, {Shape{2, kU}});
  EXPECT_EQ(partial.in[num_inputs - 1], Shape({2, 3}));
  EXPECT_EQ(partial.out[0], Shape({2, 3}));

  auto only_ndim = Infer(op, dict, std::vector<Shape>(num_inputs, Shape{kU, kU}));
  EXPECT_EQ(only_ndim.out[0], Shape({kU, kU}));

  in.assign(num_inputs, kUnknown);
  in[0] = Shape{2, 3};
  EXPECT_TRUE(Contains(InferError(op, dict, in, {Shape{2, 4}}), "Shape inconsistent"));
  EXPECT_TRUE(Contains(InferError(op, dict, in, {Shape{2, 3, 1}}), "[2,3,1]"));

  AttrMap bad = dict;
  bad["no_such_key"] = "1";
  EXPECT_TRUE(Contains(ParseError(op, bad), "no_such_key"));
}

void CheckInplace(const std::string& op, AttrMap dict,
                  const std::vector<std::pair<int, int>>& expected) {
  NodeAttrs attrs = ValueOrThrow(ParseAttrs(op, dict));
  EXPECT_EQ(attrs.op->inplace()(attrs), expected) << op;
}

// ---------------------------------------------------------------- unary

const std::vector<std::string> kUnaryOps = {"exp",      "log",  "sqrt",    "square", "abs",
                                            "negative", "relu", "sigmoid", "tanh"};

TEST(ElemwiseUnaryTest, ShapesTypesAndInplace) {
  for (const std::string& op : kUnaryOps) {
    CheckSameShapeOp(op, {}, 1);
    CheckInplace(op, {}, {{0, 0}});
    auto t = ValueOrThrow(InferOpType(op, {}, {DType::kFloat16}));
    EXPECT_EQ(t.out[0], DType::kFloat16) << op;
    auto back = ValueOrThrow(InferOpType(op, {}, {DType::kUnknown}, {DType::kFloat64}));
    EXPECT_EQ(back.in[0], DType::kFloat64) << op;
    EXPECT_TRUE(Contains(Msg(InferOpType(op, {}, {DType::kFloat16}, {DType::kFloat32})),
                         "Type inconsistent"))
        << op;
  }
}

TEST(ElemwiseUnaryTest, GradientsFromForwardOps) {
  GradCase exp = Differentiate("exp", {}, 1);
  ASSERT_EQ(exp.grads.size(), 1u);
  ExpectNode(exp.grads[0], "elemwise_mul", {Out(exp.head), Out(exp.node)});

  GradCase log = Differentiate("log", {}, 1);
  ExpectNode(log.grads[0], "elemwise_div", {Out(log.head), log.node->inputs[0]});

  GradCase neg = Differentiate("negative", {}, 1);
  ExpectNode(neg.grads[0], "negative", {Out(neg.head)});
}

TEST(ElemwiseUnaryTest, GradientsFromBackwardOps) {
  const std::vector<std::pair<std::string, bool>> cases = {{"sqrt", true},    {"relu", true},
                                                           {"sigmoid", true}, {"tanh", true},
                                                           {"square", false}, {"abs", false}};
  for (const auto& [op, uses_output] : cases) {
    SCOPED_TRACE(op);
    GradCase c = Differentiate(op, {}, 1);
    ASSERT_EQ(c.grads.size(), 1u);
    NodeEntry value = uses_output ? Out(c.node) : c.node->inputs[0];
    ExpectBackward(c, "_backward_" + op, {Out(c.head), value}, 1);
  }
}

TEST(ElemwiseUnaryTest, ZeroHeadGradientGivesZero) {
  NodePtr fwd = ValueOrThrow(MakeOpNode("exp", "e", {}, {Out(MakeVariableNode("x"))}));
  std::vector<NodeEntry> grads = fwd->op()->gradient()(fwd, {NodeEntry{}});
  ASSERT_EQ(grads.size(), 1u);
  EXPECT_EQ(grads[0].node, nullptr);
}

// ---------------------------------------------------------------- binary

const std::vector<std::string> kBinaryOps = {"elemwise_add", "elemwise_sub", "elemwise_mul",
                                             "elemwise_div", "_maximum",     "_minimum",
                                             "_power"};

TEST(ElemwiseBinaryTest, AliasesResolve) {
  const std::vector<std::pair<std::string, std::string>> aliases = {
      {"_add", "elemwise_add"}, {"_plus", "elemwise_add"},  {"_Plus", "elemwise_add"},
      {"_sub", "elemwise_sub"}, {"_minus", "elemwise_sub"}, {"_Minus", "elemwise_sub"},
      {"_mul", "elemwise_mul"}, {"_Mul", "elemwise_mul"},   {"_div", "elemwise_div"},
      {"_Div", "elemwise_div"}, {"_Maximum", "_maximum"},   {"_Minimum", "_minimum"},
      {"_Power", "_power"}};
  for (const auto& [alias, name] : aliases) {
    const Op* op = OpRegistry::Global().Find(alias);
    ASSERT_NE(op, nullptr) << alias;
    EXPECT_EQ(op->name(), name);
  }
}

TEST(ElemwiseBinaryTest, ShapesAndInplace) {
  for (const std::string& op : kBinaryOps) {
    CheckSameShapeOp(op, {}, 2);
    CheckInplace(op, {}, {{0, 0}, {1, 0}});
    NodeAttrs attrs = ValueOrThrow(ParseAttrs(op, {}));
    EXPECT_EQ(attrs.op->InputNames(attrs), (std::vector<std::string>{"lhs", "rhs"}));
    // Equal shapes are required: no broadcasting here.
    EXPECT_TRUE(Contains(InferError(op, {}, {Shape{2, 3}, Shape{1, 3}}), "[1,3]")) << op;
    EXPECT_TRUE(Contains(InferError(op, {}, {Shape{2, 3}, Shape{3}}), "Shape inconsistent"));
    EXPECT_TRUE(Contains(Msg(InferOpType(op, {}, {DType::kFloat32, DType::kFloat16})),
                         "Type inconsistent"));
  }
}

TEST(ElemwiseBinaryTest, ArithmeticGradients) {
  GradCase add = Differentiate("elemwise_add", {}, 2);
  EXPECT_EQ(add.grads, (std::vector<NodeEntry>{Out(add.head), Out(add.head)}));

  GradCase sub = Differentiate("_minus", {}, 2);
  ASSERT_EQ(sub.grads.size(), 2u);
  EXPECT_EQ(sub.grads[0], Out(sub.head));
  ExpectNode(sub.grads[1], "negative", {Out(sub.head)});

  GradCase mul = Differentiate("elemwise_mul", {}, 2);
  ExpectNode(mul.grads[0], "elemwise_mul", {Out(mul.head), mul.node->inputs[1]});
  ExpectNode(mul.grads[1], "elemwise_mul", {Out(mul.head), mul.node->inputs[0]});

  GradCase div = Differentiate("elemwise_div", {}, 2);
  ExpectNode(div.grads[0], "elemwise_div", {Out(div.head), div.node->inputs[1]});
  ASSERT_NE(div.grads[1].node, nullptr);
  ExpectNode(div.grads[1], "negative", {div.grads[1].node->inputs[0]});
  ExpectNode(div.grads[1].node->inputs[0], "elemwise_mul", {div.grads[0], Out(div.node)});
}

TEST(ElemwiseBinaryTest, BackwardOpGradients) {
  for (const std::string op : {"_maximum", "_minimum", "_power"}) {
    SCOPED_TRACE(op);
    GradCase c = Differentiate(op, {}, 2);
    ASSERT_EQ(c.grads.size(), 2u);
    ExpectBackward(c, "_backward" + op, {Out(c.head), c.node->inputs[0], c.node->inputs[1]}, 2);
  }
}

// ---------------------------------------------------------------- scalar

const std::vector<std::pair<std::string, std::string>> kScalarOps = {
    {"_plus_scalar", "_PlusScalar"},       {"_minus_scalar", "_MinusScalar"},
    {"_rminus_scalar", "_RMinusScalar"},   {"_mul_scalar", "_MulScalar"},
    {"_div_scalar", "_DivScalar"},         {"_rdiv_scalar", "_RDivScalar"},
    {"_maximum_scalar", "_MaximumScalar"}, {"_minimum_scalar", "_MinimumScalar"},
    {"_power_scalar", "_PowerScalar"},     {"_rpower_scalar", "_RPowerScalar"}};

TEST(ElemwiseScalarTest, ParamsShapesAndAliases) {
  for (const auto& [op, alias] : kScalarOps) {
    SCOPED_TRACE(op);
    ASSERT_NE(OpRegistry::Global().Find(alias), nullptr);
    EXPECT_EQ(OpRegistry::Global().Find(alias)->name(), op);
    EXPECT_EQ(Msg(ParseAttrs(op, {})), "OK");  // scalar defaults to 1
    EXPECT_EQ(Msg(ParseAttrs(op, {{"scalar", "2.5"}, {"is_int", "False"}})), "OK");
    EXPECT_EQ(Msg(ParseAttrs(op, {{"scalar", "-3"}, {"is_int", "True"}})), "OK");
    EXPECT_TRUE(Contains(ParseError(op, {{"scalar", "two"}}), "'scalar'"));
    EXPECT_TRUE(Contains(ParseError(op, {{"scalar", "2"}, {"is_int", "maybe"}}), "'is_int'"));
    CheckSameShapeOp(op, {{"scalar", "2"}}, 1);
    CheckInplace(op, {{"scalar", "2"}}, {{0, 0}});
  }
}

TEST(ElemwiseScalarTest, Gradients) {
  const AttrMap dict = {{"scalar", "2.5"}, {"is_int", "False"}};
  for (const std::string op : {"_plus_scalar", "_minus_scalar"}) {
    GradCase c = Differentiate(op, dict, 1);
    EXPECT_EQ(c.grads, std::vector<NodeEntry>{Out(c.head)}) << op;
  }
  GradCase rminus = Differentiate("_rminus_scalar", dict, 1);
  ExpectNode(rminus.grads[0], "negative", {Out(rminus.head)});

  for (const std::string op : {"_mul_scalar", "_div_scalar"}) {
    GradCase c = Differentiate(op, dict, 1);
    ExpectNode(c.grads[0], op, {Out(c.head)});
    EXPECT_EQ(c.grads[0].node->attrs.dict.at("scalar"), "2.5") << op;
  }

  const std::vector<std::pair<std::string, bool>> backward = {{"_rdiv_scalar", false},
                                                              {"_maximum_scalar", false},
                                                              {"_minimum_scalar", false},
                                                              {"_power_scalar", false},
                                                              {"_rpower_scalar", true}};
  for (const auto& [op, uses_output] : backward) {
    SCOPED_TRACE(op);
    GradCase c = Differentiate(op, dict, 1);
    ASSERT_EQ(c.grads.size(), 1u);
    ExpectBackward(c, "_backward" + op,
                   {Out(c.head), uses_output ? Out(c.node) : c.node->inputs[0]}, 1);
  }
}

// ---------------------------------------------------------------- broadcast

const std::vector<std::string> kBroadcastOps = {
    "broadcast_add",     "broadcast_sub",     "broadcast_mul",  "broadcast_div",
    "broadcast_maximum", "broadcast_minimum", "broadcast_power"};

TEST(BroadcastTest, CompleteShapes) {
  for (const std::string& op : kBroadcastOps) {
    SCOPED_TRACE(op);
    EXPECT_EQ(Infer(op, {}, {Shape{2, 1, 3}, Shape{4, 1}}).out[0], Shape({2, 4, 3}));
    EXPECT_EQ(Infer(op, {}, {Shape{3}, Shape{2, 3}}).out[0], Shape({2, 3}));
    EXPECT_EQ(Infer(op, {}, {Shape{1}, Shape{2, 3}}).out[0], Shape({2, 3}));
    EXPECT_EQ(Infer(op, {}, {Shape{5, 4}, Shape{5, 4}}).out[0], Shape({5, 4}));
    EXPECT_EQ(Infer(op, {}, {Shape{0, 3}, Shape{1, 3}}).out[0], Shape({0, 3}));
    EXPECT_EQ(Infer(op, {}, {kScalar, Shape{2}}).out[0], Shape({2}));
  }
  EXPECT_EQ(OpRegistry::Global().Find("broadcast_plus")->name(), "broadcast_add");
  EXPECT_EQ(OpRegistry::Global().Find("broadcast_minus")->name(), "broadcast_sub");
}

TEST(BroadcastTest, MismatchNamesBothShapes) {
  std::string msg = InferError("broadcast_mul", {}, {Shape{2, 3}, Shape{2, 4}});
  EXPECT_TRUE(Contains(msg, "[2,3]")) << msg;
  EXPECT_TRUE(Contains(msg, "[2,4]")) << msg;
  EXPECT_TRUE(Contains(InferError("broadcast_add", {}, {Shape{0, 3}, Shape{2, 3}}), "[0,3]"));
}

TEST(BroadcastTest, PartialShapes) {
  const std::string op = "broadcast_add";
  // An unknown dim against a known dim > 1: the output takes the known one,
  // but the unknown input may still be 1 or that size.
  auto a = Infer(op, {}, {Shape{kU, 3}, Shape{2, 3}});
  EXPECT_EQ(a.out[0], Shape({2, 3}));
  EXPECT_EQ(a.in[0], Shape({kU, 3}));
  // Against a 1 the output stays unknown...
  auto b = Infer(op, {}, {Shape{kU, 3}, Shape{1, 3}});
  EXPECT_EQ(b.out[0], Shape({kU, 3}));
  // ...until the output is known, which then forces the input.
  auto c = Infer(op, {}, {Shape{kU, 3}, Shape{1, 3}}, {Shape{5, 3}});
  EXPECT_EQ(c.in[0], Shape({5, 3}));
  // An output dim of 1 forces both inputs to 1.
  auto d = Infer(op, {}, {Shape{kU, 3}, Shape{kU, 3}}, {Shape{1, 3}});
  EXPECT_EQ(d.in[0], Shape({1, 3}));
  EXPECT_EQ(d.in[1], Shape({1, 3}));
  // Output dim 4 with both inputs unknown there: either could be 1.
  auto e = Infer(op, {}, {Shape{kU, 3}, Shape{kU, 3}}, {Shape{4, 3}});
  EXPECT_EQ(e.in[0], Shape({kU, 3}));
  EXPECT_EQ(e.in[1], Shape({kU, 3}));
  // Dims the other input lacks come straight from the output.
  auto f = Infer(op, {}, {Shape{kU, kU}, Shape{3}}, {Shape{2, 3}});
  EXPECT_EQ(f.in[0], Shape({2, kU}));
}

TEST(BroadcastTest, UnknownNdim) {
  const std::string op = "broadcast_sub";
  auto a = Infer(op, {}, {kUnknown, Shape{3}});
  EXPECT_EQ(a.out[0], kUnknown);
  EXPECT_EQ(a.in[0], kUnknown);
  // rhs has fewer dims than the output, so lhs must have the output's ndim.
  auto b = Infer(op, {}, {kUnknown, Shape{3}}, {Shape{2, 3}});
  EXPECT_EQ(b.in[0], Shape({2, kU}));
  EXPECT_EQ(b.in[1], Shape({3}));
  // rhs as wide as the output: lhs could be anything up to that ndim.
  auto c = Infer(op, {}, {kUnknown, Shape{2, 3}}, {Shape{2, 3}});
  EXPECT_EQ(c.in[0], kUnknown);
  auto d = Infer(op, {}, {kUnknown, kUnknown}, {Shape{2, 3}});
  EXPECT_EQ(d.in[0], kUnknown);
  EXPECT_TRUE(Contains(InferError(op, {}, {kUnknown, Shape{2, 3, 4}}, {Shape{3, 4}}), "[3,4]"));
}

TEST(BroadcastTest, ConflictsAndBadAttrs) {
  for (const std::string& op : kBroadcastOps) {
    SCOPED_TRACE(op);
    EXPECT_TRUE(Contains(InferError(op, {}, {Shape{2, 3}, Shape{2, 3}}, {Shape{2, 4}}),
                         "Shape inconsistent for output"));
    // Wrong output ndim.
    EXPECT_TRUE(Contains(InferError(op, {}, {Shape{2, 3}, Shape{3}}, {Shape{3}}),
                         "Shape inconsistent for output"));
    // An output that contradicts a known input dim.
    EXPECT_TRUE(Contains(InferError(op, {}, {Shape{kU, 3}, Shape{2, 3}}, {Shape{5, 3}}), "[5,3]"));
    EXPECT_TRUE(Contains(ParseError(op, {{"axis", "1"}}), "'axis'"));
    CheckInplace(op, {}, {{0, 0}, {1, 0}});
    EXPECT_TRUE(Contains(Msg(InferOpType(op, {}, {DType::kFloat32, DType::kFloat64})),
                         "Type inconsistent"));
  }
}

TEST(BroadcastTest, Gradients) {
  for (const std::string op : {"broadcast_add", "broadcast_sub"}) {
    SCOPED_TRACE(op);
    GradCase c = Differentiate(op, {}, 2);
    ASSERT_EQ(c.grads.size(), 2u);
    ExpectBackward(c, "_backward_" + op, {Out(c.head)}, 2);
  }
  for (const std::string op : {"broadcast_mul", "broadcast_div", "broadcast_maximum",
                               "broadcast_minimum", "broadcast_power"}) {
    SCOPED_TRACE(op);
    GradCase c = Differentiate(op, {}, 2);
    ASSERT_EQ(c.grads.size(), 2u);
    ExpectBackward(c, "_backward_" + op, {Out(c.head), c.node->inputs[0], c.node->inputs[1]}, 2);
  }
}

// ---------------------------------------------------------------- reduce

TEST(ReduceTest, CompleteShapes) {
  const Shape x{2, 3, 4};
  const std::vector<std::pair<AttrMap, Shape>> cases = {
      {{}, Shape{1}},
      {{{"axis", "None"}}, Shape{1}},
      {{{"axis", "()"}}, Shape{1}},
      {{{"keepdims", "True"}}, Shape{1, 1, 1}},
      {{{"axis", "1"}}, Shape{2, 4}},
      {{{"axis", "-1"}}, Shape{2, 3}},
      {{{"axis", "(0, -1)"}}, Shape{3}},
      {{{"axis", "(0, 1, 2)"}}, Shape{1}},
      {{{"axis", "1"}, {"keepdims", "True"}}, Shape{2, 1, 4}},
      // exclude keeps the listed axes and reduces the rest.
      {{{"axis", "(0, 2)"}, {"exclude", "True"}}, Shape{2, 4}},
      {{{"axis", "(0, 2)"}, {"exclude", "True"}, {"keepdims", "True"}}, Shape{2, 1, 4}},
      {{{"axis", "1"}, {"exclude", "True"}}, Shape{3}},
      {{{"axis", "-1"}, {"exclude", "True"}, {"keepdims", "True"}}, Shape{1, 1, 4}},
      // MXNet ignores exclude when no axis is given: everything is reduced.
      {{{"exclude", "True"}}, Shape{1}},
  };
  for (const std::string op : {"sum", "mean", "max", "sum_axis", "max_axis"}) {
    for (const auto& [dict, expected] : cases) {
      auto r = Infer(op, dict, {x});
      EXPECT_EQ(r.out[0], expected) << op << " " << r.out[0].ToString();
      EXPECT_EQ(r.in[0], x);
    }
  }
  EXPECT_EQ(Infer("sum", {}, {kScalar}).out[0], Shape({1}));
  EXPECT_EQ(Infer("sum", {{"axis", "1"}}, {Shape{2, 0, 3}}).out[0], Shape({2, 3}));
}

TEST(ReduceTest, PartialShapes) {
  EXPECT_EQ(Infer("sum", {{"axis", "1"}}, {kUnknown}).out[0], kUnknown);
  EXPECT_EQ(Infer("mean", {{"axis", "1"}}, {Shape{kU, 3, kU}}).out[0], Shape({kU, kU}));
  // Kept dims flow back from the output.
  auto back = Infer("sum", {{"axis", "1"}}, {Shape{kU, 3, kU}}, {Shape{2, 4}});
  EXPECT_EQ(back.in[0], Shape({2, 3, 4}));
  auto keep =
      Infer("max", {{"axis", "1"}, {"keepdims", "True"}}, {Shape{kU, kU, kU}}, {Shape{2, 1, 4}});
  EXPECT_EQ(keep.in[0], Shape({2, kU, 4}));
  auto excl =
      Infer("sum", {{"axis", "(1,)"}, {"exclude", "True"}}, {Shape{kU, kU, kU}}, {Shape{7}});
  EXPECT_EQ(excl.in[0], Shape({kU, 7, kU}));
}

TEST(ReduceTest, Errors) {
  const Shape x{2, 3, 4};
  for (const std::string op : {"sum", "mean", "max"}) {
    SCOPED_TRACE(op);
    EXPECT_TRUE(Contains(InferError(op, {{"axis", "3"}}, {x}), "axis 3"));
    EXPECT_TRUE(Contains(InferError(op, {{"axis", "-4"}}, {x}), "axis -4"));
    EXPECT_TRUE(Contains(InferError(op, {{"axis", "(1, 1)"}}, {x}), "more than once"));
    EXPECT_TRUE(Contains(InferError(op, {{"axis", "(1, -2)"}}, {x}), "axis"));
    EXPECT_TRUE(Contains(InferError(op, {{"axis", "1"}}, {kScalar}), "axis 1"));
    EXPECT_TRUE(Contains(ParseError(op, {{"axis", "(1, a)"}}), "'axis'"));
    EXPECT_TRUE(Contains(ParseError(op, {{"keepdims", "maybe"}}), "'keepdims'"));
    EXPECT_TRUE(Contains(ParseError(op, {{"exclude", "2"}}), "'exclude'"));
    EXPECT_TRUE(Contains(ParseError(op, {{"axes", "1"}}), "'axes'"));
    EXPECT_TRUE(Contains(InferError(op, {{"axis", "1"}}, {x}, {Shape{2, 5}}),
                         "Shape inconsistent for output"));
    EXPECT_TRUE(Contains(InferError(op, {{"axis", "1"}}, {x}, {Shape{2, 4, 1}}), "[2,4,1]"));
    EXPECT_TRUE(
        Contains(InferError(op, {{"axis", "1"}, {"keepdims", "True"}}, {x}, {Shape{2, 3, 4}}),
                 "Shape inconsistent"));
  }
  EXPECT_TRUE(Contains(InferError("max", {{"axis", "1"}}, {Shape{2, 0, 3}}), "non-empty"));
  EXPECT_TRUE(
      Contains(InferError("max", {{"axis", "1"}}, {Shape{kU, 3, kU}}, {Shape{0, 2}}), "non-empty"));
}

TEST(ReduceTest, Gradients) {
  const AttrMap dict = {{"axis", "1"}, {"keepdims", "True"}};
  for (const std::string op : {"sum", "mean"}) {
    SCOPED_TRACE(op);
    GradCase c = Differentiate(op, dict, 1);
    ASSERT_EQ(c.grads.size(), 1u);
    ExpectBackward(c, "_backward_" + op, {Out(c.head)}, 1);
  }
  GradCase m = Differentiate("max_axis", dict, 1);
  ExpectBackward(m, "_backward_max", {Out(m.head), m.node->inputs[0], Out(m.node)}, 1);
}

// ---------------------------------------------------------------- misc

TEST(ElementWiseSumTest, InputsShapesAndGradient) {
  NodeAttrs attrs = ValueOrThrow(ParseAttrs("add_n", {{"num_args", "3"}}));
  EXPECT_EQ(attrs.op->name(), "ElementWiseSum");
  EXPECT_EQ(attrs.op->variadic_key(), "num_args");
  EXPECT_EQ(attrs.op->InputNames(attrs), (std::vector<std::string>{"arg0", "arg1", "arg2"}));
  CheckSameShapeOp("ElementWiseSum", {{"num_args", "3"}}, 3);
  CheckSameShapeOp("ElementWiseSum", {{"num_args", "1"}}, 1);
  auto r = Infer("ElementWiseSum", {{"num_args", "3"}}, {Shape{kU, 3}, kUnknown, Shape{2, kU}});
  for (const Shape& s : r.in) EXPECT_EQ(s, Shape({2, 3}));
  EXPECT_TRUE(Contains(
      InferError("ElementWiseSum", {{"num_args", "2"}}, {Shape{2, 3}, Shape{3, 2}}), "[3,2]"));
  EXPECT_TRUE(Contains(ParseError("ElementWiseSum", {}), "'num_args'"));
  EXPECT_TRUE(Contains(ParseError("ElementWiseSum", {{"num_args", "0"}}), "'num_args'"));
  EXPECT_TRUE(Contains(ParseError("ElementWiseSum", {{"num_args", "-2"}}), "'num_args'"));
  EXPECT_TRUE(Contains(ParseError("ElementWiseSum", {{"num_args", "9999999999"}}), "'num_args'"));
  EXPECT_TRUE(Contains(ParseError("ElementWiseSum", {{"num_args", "x"}}), "'num_args'"));
  CheckInplace("ElementWiseSum", {{"num_args", "2"}}, {{0, 0}});

  GradCase c = Differentiate("ElementWiseSum", {{"num_args", "3"}}, 3);
  EXPECT_EQ(c.grads, std::vector<NodeEntry>(3, Out(c.head)));
}

TEST(MiscTest, LikeOpsBlockGradAndCopy) {
  for (const std::string op :
       {"zeros_like", "ones_like", "BlockGrad", "stop_gradient", "_copy", "identity"}) {
    CheckSameShapeOp(op, {}, 1);
  }
  for (const std::string op : {"zeros_like", "ones_like", "BlockGrad", "stop_gradient"}) {
    GradCase c = Differentiate(op, {}, 1);
    ASSERT_EQ(c.grads.size(), 1u) << op;
    EXPECT_EQ(c.grads[0].node, nullptr) << op;
  }
  GradCase copy = Differentiate("identity", {}, 1);
  EXPECT_EQ(copy.grads, std::vector<NodeEntry>{Out(copy.head)});
  EXPECT_EQ(OpRegistry::Global().Find("stop_gradient")->name(), "BlockGrad");
  EXPECT_EQ(OpRegistry::Global().Find("identity")->name(), "_copy");
  CheckInplace("BlockGrad", {}, {{0, 0}});
  CheckInplace("_copy", {}, {{0, 0}});
}

TEST(CastTest, TypesShapesAndGradient) {
  const AttrMap f16 = {{"dtype", "float16"}};
  auto t = ValueOrThrow(InferOpType("Cast", f16, {DType::kFloat32}));
  EXPECT_EQ(t.in[0], DType::kFloat32);
  EXPECT_EQ(t.out[0], DType::kFloat16);
  // The input's dtype cannot be recovered from the output's.
  auto partial = ValueOrThrow(InferOpType("cast", f16, {DType::kUnknown}));
  EXPECT_EQ(partial.in[0], DType::kUnknown);
  EXPECT_EQ(partial.out[0], DType::kFloat16);
  EXPECT_EQ(ValueOrThrow(InferOpType("Cast", {{"dtype", "2"}}, {DType::kInt32})).out[0],
            DType::kFloat16);
  EXPECT_TRUE(Contains(Msg(InferOpType("Cast", f16, {DType::kFloat32}, {DType::kInt32})),
                       "Type inconsistent"));
  EXPECT_TRUE(Contains(ParseError("Cast", {}), "'dtype'"));
  EXPECT_TRUE(Contains(ParseError("Cast", {{"dtype", "float33"}}), "'dtype'"));
  CheckSameShapeOp("Cast", f16, 1);

  GradCase c = Differentiate("Cast", f16, 1);
  ASSERT_EQ(c.grads.size(), 1u);
  ExpectBackward(c, "_backward_Cast", {Out(c.head)}, 1);
  // The backward op's output is the forward input's dtype, not the gradient's.
  EXPECT_EQ(Msg(InferOpType("_backward_Cast", f16, {DType::kFloat16}, {DType::kFloat32})), "OK");
}

TEST(WhereTest, Shapes) {
  auto same = Infer("where", {}, {Shape{2, 3}, Shape{2, 3}, kUnknown});
  EXPECT_EQ(same.in[2], Shape({2, 3}));
  EXPECT_EQ(same.out[0], Shape({2, 3}));
  // A 1-D condition selects rows.
  auto rows = Infer("where", {}, {Shape{2}, Shape{2, 3}, kUnknown});
  EXPECT_EQ(rows.in[0], Shape({2}));
  EXPECT_EQ(rows.out[0], Shape({2, 3}));
  auto rows_back = Infer("where", {}, {Shape{4}, Shape{kU, 3}, kUnknown});
  EXPECT_EQ(rows_back.in[1], Shape({4, 3}));
  EXPECT_EQ(rows_back.out[0], Shape({4, 3}));
  auto from_y = Infer("where", {}, {Shape{2, 3}, kUnknown, Shape{2, 3}});
  EXPECT_EQ(from_y.in[1], Shape({2, 3}));
  EXPECT_EQ(from_y.out[0], Shape({2, 3}));
  // As MXNet 1.9.1: until the condition is fully known nothing is inferred,
  // neither the condition from x and y nor y and the output from x.
  auto cond_unknown = Infer("where", {}, {Shape{kU}, kUnknown, Shape{5, 2}});
  EXPECT_EQ(cond_unknown.in[0], Shape({kU}));
  EXPECT_EQ(cond_unknown.in[1], kUnknown);
  EXPECT_EQ(cond_unknown.out[0], kUnknown);
  auto partly = Infer("where", {}, {Shape{kU, 3}, Shape{2, kU}, kUnknown});
  EXPECT_EQ(partly.in[0], Shape({kU, 3}));
  EXPECT_EQ(partly.out[0], kUnknown);
  // MXNet's test: a condition alone says nothing about the output.
  auto cond_only = Infer("where", {}, {Shape{kU, 2}, kUnknown, kUnknown});
  EXPECT_EQ(cond_only.out[0], kUnknown);
  EXPECT_EQ(cond_only.in[1], kUnknown);
}

TEST(WhereTest, Errors) {
  EXPECT_TRUE(Contains(InferError("where", {}, {Shape{3}, Shape{2, 3}, kUnknown}), "condition"));
  EXPECT_TRUE(
      Contains(InferError("where", {}, {Shape{2, 3, 1}, Shape{2, 3}, kUnknown}), "condition"));
  EXPECT_TRUE(Contains(InferError("where", {}, {Shape{2, 4}, Shape{2, 3}, kUnknown}), "condition"));
  std::string xy = InferError("where", {}, {kUnknown, Shape{2, 3}, Shape{3, 2}});
  EXPECT_TRUE(Contains(xy, "[2,3]") && Contains(xy, "[3,2]")) << xy;
  EXPECT_TRUE(
      Contains(InferError("where", {}, {kUnknown, Shape{2, 3}, kUnknown}, {Shape{2}}), "output"));
  EXPECT_TRUE(Contains(ParseError("where", {{"axis", "0"}}), "'axis'"));
}

TEST(WhereTest, TypesAndGradient) {
  auto t =
      ValueOrThrow(InferOpType("where", {}, {DType::kInt32, DType::kFloat32, DType::kUnknown}));
  EXPECT_EQ(t.in[0], DType::kInt32);
  EXPECT_EQ(t.in[2], DType::kFloat32);
  EXPECT_EQ(t.out[0], DType::kFloat32);
  auto unknown_cond =
      ValueOrThrow(InferOpType("where", {}, {DType::kUnknown, DType::kUnknown, DType::kFloat16}));
  EXPECT_EQ(unknown_cond.in[0], DType::kUnknown);
  EXPECT_EQ(unknown_cond.in[1], DType::kFloat16);
  EXPECT_TRUE(
      Contains(Msg(InferOpType("where", {}, {DType::kInt32, DType::kFloat32, DType::kFloat16})),
               "Type inconsistent"));

  GradCase c = Differentiate("where", {}, 3);
  ASSERT_EQ(c.grads.size(), 3u);
  EXPECT_EQ(c.grads[0].node, nullptr);
  ExpectBackward(c, "_backward_where", {Out(c.head), c.node->inputs[0]}, 3);
  auto bt = ValueOrThrow(InferOpType("_backward_where", {}, {DType::kFloat32, DType::kInt32},
                                     {DType::kUnknown, DType::kUnknown, DType::kUnknown}));
  EXPECT_EQ(bt.out, (std::vector<DType>{DType::kInt32, DType::kFloat32, DType::kFloat32}));
}

TEST(ClipTest, ParamsShapesAndGradient) {
  const AttrMap dict = {{"a_min", "-1"}, {"a_max", "2.5"}};
  CheckSameShapeOp("clip", dict, 1);
  CheckInplace("clip", dict, {{0, 0}});
  EXPECT_EQ(Msg(ParseAttrs("clip", {{"a_min", "1"}, {"a_max", "1"}})), "OK");
  EXPECT_TRUE(Contains(ParseError("clip", {{"a_min", "3"}, {"a_max", "2"}}), "'a_max'"));
  EXPECT_TRUE(Contains(ParseError("clip", {{"a_min", "0"}}), "'a_max'"));
  EXPECT_TRUE(Contains(ParseError("clip", {{"a_max", "0"}}), "'a_min'"));
  EXPECT_TRUE(Contains(ParseError("clip", {{"a_min", "low"}, {"a_max", "1"}}), "'a_min'"));

  GradCase c = Differentiate("clip", dict, 1);
  ASSERT_EQ(c.grads.size(), 1u);
  ExpectBackward(c, "_backward_clip", {Out(c.head), c.node->inputs[0]}, 1);
}

// ---------------------------------------------------------------- registry

// Every forward op of the family with attributes that parse.
std::vector<std::pair<std::string, AttrMap>> AllForwardOps() {
  std::vector<std::pair<std::string, AttrMap>> ops;
  for (const auto* list : {&kUnaryOps, &kBinaryOps, &kBroadcastOps}) {
    for (const std::string& op : *list) ops.push_back({op, {}});
  }
  for (const auto& [op, alias] : kScalarOps) ops.push_back({op, {{"scalar", "3"}}});
  for (const char* op : {"zeros_like", "ones_like", "BlockGrad", "_copy", "where"}) {
    ops.push_back({op, {}});
  }
  for (const char* op : {"sum", "mean", "max"}) {
    ops.push_back({op, {}});
    ops.push_back({op, {{"axis", "(0, -1)"}, {"keepdims", "True"}, {"exclude", "True"}}});
  }
  ops.push_back({"ElementWiseSum", {{"num_args", "3"}}});
  ops.push_back({"Cast", {{"dtype", "int8"}}});
  ops.push_back({"clip", {{"a_min", "0"}, {"a_max", "6"}}});
  return ops;
}

TEST(ElemwiseRobustnessTest, OddShapesGiveErrorsNotCrashes) {
  const std::vector<Shape> odd = {kUnknown,          kScalar,           Shape{0},
                                  Shape{-7, 3},      Shape{kU, kU, kU}, Shape{INT64_MAX, 2},
                                  Shape{1, 1, 1, 1}, Shape{0, kU}};
  int ok = 0;
  for (const auto& [op, dict] : AllForwardOps()) {
    NodeAttrs attrs = ValueOrThrow(ParseAttrs(op, dict));
    int n = attrs.op->NumInputs(attrs);
    for (size_t a = 0; a < odd.size(); ++a) {
      for (size_t b = 0; b < odd.size(); ++b) {
        std::vector<Shape> in;
        for (int i = 0; i < n; ++i) in.push_back(i % 2 == 0 ? odd[a] : odd[b]);
        ok += InferOpShape(op, dict, in).ok();
        ok += InferOpShape(op, dict, in, {odd[b]}).ok();
      }
    }
  }
  EXPECT_GT(ok, 0);
}

TEST(ElemwiseRegistryTest, EveryOpHasAGradientAndBackwardOpsExist) {
  std::vector<std::string> forward;
  for (const auto& [op, dict] : AllForwardOps()) forward.push_back(op);
  for (const std::string& name : forward) {
    const Op* op = OpRegistry::Global().Find(name);
    ASSERT_NE(op, nullptr) << name;
    EXPECT_EQ(op->name(), name);
    EXPECT_TRUE(op->gradient() != nullptr) << name;
    EXPECT_FALSE(op->is_backward()) << name;
    EXPECT_FALSE(op->non_differentiable()) << name;
  }
  // "_backward_" + name, by number of outputs.
  const std::vector<std::pair<int, std::vector<std::string>>> backward = {
      {1,
       {"sqrt", "square", "abs", "relu", "sigmoid", "tanh", "rdiv_scalar", "maximum_scalar",
        "minimum_scalar", "power_scalar", "rpower_scalar", "sum", "mean", "max", "Cast", "clip"}},
      {2,
       {"maximum", "minimum", "power", "broadcast_add", "broadcast_sub", "broadcast_mul",
        "broadcast_div", "broadcast_maximum", "broadcast_minimum", "broadcast_power"}},
      {3, {"where"}}};
  for (const auto& [outputs, names] : backward) {
    for (const std::string& suffix : names) {
      std::string name = "_backward_" + suffix;
      const Op* op = OpRegistry::Global().Find(name);
      ASSERT_NE(op, nullptr) << name;
      EXPECT_TRUE(op->is_backward()) << name;
      EXPECT_TRUE(op->non_differentiable()) << name;
      NodeAttrs attrs;
      attrs.op = op;
      EXPECT_EQ(op->NumOutputs(attrs), outputs) << name;
    }
  }
}

}  // namespace
}  // namespace symx
