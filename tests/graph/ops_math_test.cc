// Schema tests for graph/ops/compare.cc (comparison and logic ops, one-shape,
// scalar and broadcast forms, logical_not) and graph/ops/math.cc (the
// remaining unary math ops and smooth_l1): names and aliases, parameters and
// their errors, shape and dtype inference, in-place pairs and gradients.
#include <string>
#include <utility>
#include <vector>

#include "graph/error.h"
#include "graph/node.h"
#include "graph/op.h"
#include "graph/ops/elemwise.h"
#include "graph/ops/op_helpers.h"
#include "gtest/gtest.h"
#include "tests/graph/op_test_util.h"

namespace symx {
namespace {

using ::symx::testing::Differentiate;
using ::symx::testing::ExpectBackward;
using ::symx::testing::GradCase;
using ::symx::testing::Infer;
using ::symx::testing::InferError;
using ::symx::testing::InferOpType;
using ::symx::testing::InputNames;
using ::symx::testing::ParseAttrs;
using ::symx::testing::ParseError;

const Shape kUnknown;
constexpr int64_t kU = kUnknownDim;

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

const std::vector<std::string> kFamilies = {"equal",         "not_equal",  "greater",
                                            "greater_equal", "lesser",     "lesser_equal",
                                            "logical_and",   "logical_or", "logical_xor"};

// ---------------------------------------------------------------- names

TEST(CompareSchemaTest, NamesAndAliases) {
  const std::vector<std::pair<std::string, std::string>> aliases = {
      {"_Equal", "_equal"},
      {"_Not_Equal", "_not_equal"},
      {"_Greater", "_greater"},
      {"_Greater_Equal", "_greater_equal"},
      {"_Lesser", "_lesser"},
      {"_Lesser_Equal", "_lesser_equal"},
      {"_Logical_And", "_logical_and"},
      {"_Logical_Or", "_logical_or"},
      {"_Logical_Xor", "_logical_xor"},
      {"_EqualScalar", "_equal_scalar"},
      {"_NotEqualScalar", "_not_equal_scalar"},
      {"_GreaterScalar", "_greater_scalar"},
      {"_GreaterEqualScalar", "_greater_equal_scalar"},
      {"_LesserScalar", "_lesser_scalar"},
      {"_LesserEqualScalar", "_lesser_equal_scalar"},
      {"_LogicalAndScalar", "_logical_and_scalar"},
      {"_LogicalOrScalar", "_logical_or_scalar"},
      {"_LogicalXorScalar", "_logical_xor_scalar"},
  };
  for (const auto& [alias, name] : aliases) {
    const Op* op = OpRegistry::Global().Find(alias);
    ASSERT_NE(op, nullptr) << alias;
    EXPECT_EQ(op->name(), name);
  }
  for (const std::string& f : kFamilies) {
    EXPECT_EQ(InputNames("_" + f, {}), (std::vector<std::string>{"lhs", "rhs"})) << f;
    EXPECT_EQ(InputNames("broadcast_" + f, {}), (std::vector<std::string>{"lhs", "rhs"})) << f;
    EXPECT_EQ(InputNames("_" + f + "_scalar", {}), (std::vector<std::string>{"data"})) << f;
  }
  EXPECT_EQ(InputNames("logical_not", {}), (std::vector<std::string>{"data"}));
  // MXNet 1.9.1 has no legacy exp2.
  EXPECT_EQ(OpRegistry::Global().Find("exp2"), nullptr);
}

// ---------------------------------------------------------------- params

TEST(CompareSchemaTest, ScalarParams) {
  for (const std::string& f : kFamilies) {
    const std::string op = "_" + f + "_scalar";
    NodeAttrs a = ValueOrThrow(ParseAttrs(op, {}));
    EXPECT_EQ(Param<ScalarParam>(a).scalar, 1.0) << op;
    EXPECT_TRUE(Param<ScalarParam>(a).is_int) << op;
    NodeAttrs b = ValueOrThrow(ParseAttrs(op, {{"scalar", "-2.5"}, {"is_int", "False"}}));
    EXPECT_EQ(Param<ScalarParam>(b).scalar, -2.5) << op;
    EXPECT_FALSE(Param<ScalarParam>(b).is_int) << op;
    std::string bad = ParseError(op, {{"scalar", "abc"}});
    EXPECT_TRUE(Contains(bad, "scalar") && Contains(bad, "abc")) << bad;
    std::string bad_bool = ParseError(op, {{"is_int", "maybe"}});
    EXPECT_TRUE(Contains(bad_bool, "is_int") && Contains(bad_bool, "maybe")) << bad_bool;
    EXPECT_TRUE(Contains(ParseError(op, {{"axis", "1"}}), "axis")) << op;
  }
  // The one-shape and broadcast forms take no parameters.
  for (const std::string op : {"_equal", "broadcast_greater", "logical_not", "_Logical_And"}) {
    std::string msg = ParseError(op, {{"scalar", "1"}});
    EXPECT_TRUE(Contains(msg, "scalar")) << op << ": " << msg;
  }
}

// ---------------------------------------------------------------- shapes

TEST(CompareSchemaTest, OneShapeAndScalarShapes) {
  for (const std::string& f : kFamilies) {
    SCOPED_TRACE(f);
    auto r = Infer("_" + f, {}, {Shape{2, 3}, kUnknown});
    EXPECT_EQ(r.in[1], Shape({2, 3}));
    EXPECT_EQ(r.out[0], Shape({2, 3}));
    auto back = Infer("_" + f, {}, {kUnknown, kUnknown}, {Shape{4, 5}});
    EXPECT_EQ(back.in[0], Shape({4, 5}));
    EXPECT_EQ(back.in[1], Shape({4, 5}));
    auto partial = Infer("_" + f, {}, {Shape{kU, 3}, Shape{2, kU}});
    EXPECT_EQ(partial.out[0], Shape({2, 3}));
    // No broadcasting for the one-shape forms.
    std::string msg = InferError("_" + f, {}, {Shape{2, 3}, Shape{1, 3}});
    EXPECT_TRUE(Contains(msg, "[2,3]") && Contains(msg, "[1,3]")) << msg;
    auto s = Infer("_" + f + "_scalar", {{"scalar", "0"}}, {Shape{0, 7}});
    EXPECT_EQ(s.out[0], Shape({0, 7}));
    auto sb = Infer("_" + f + "_scalar", {}, {kUnknown}, {Shape{3}});
    EXPECT_EQ(sb.in[0], Shape({3}));
  }
  EXPECT_EQ(Infer("logical_not", {}, {Shape{5, 1}}).out[0], Shape({5, 1}));
}

TEST(CompareSchemaTest, BroadcastShapes) {
  for (const std::string& f : kFamilies) {
    const std::string op = "broadcast_" + f;
    SCOPED_TRACE(op);
    EXPECT_EQ(Infer(op, {}, {Shape{2, 1, 3}, Shape{4, 1}}).out[0], Shape({2, 4, 3}));
    EXPECT_EQ(Infer(op, {}, {Shape{3}, Shape{2, 3}}).out[0], Shape({2, 3}));
    EXPECT_EQ(Infer(op, {}, {Shape{1}, Shape{2, 3}}).out[0], Shape({2, 3}));
    EXPECT_EQ(Infer(op, {}, {Shape{0, 3}, Shape{1, 3}}).out[0], Shape({0, 3}));
    EXPECT_EQ(Infer(op, {}, {Shape(std::vector<int64_t>{}), Shape{2}}).out[0], Shape({2}));
    // Partial: an unknown dim against a known non-1 dim is that dim.
    EXPECT_EQ(Infer(op, {}, {Shape{kU, 3}, Shape{4, 1}}).out[0], Shape({4, 3}));
    // Backward: output [4,3] and lhs [1,3] force rhs's first dim... only where forced.
    auto back = Infer(op, {}, {Shape{1, 3}, Shape{kU, kU}}, {Shape{4, 3}});
    EXPECT_EQ(back.in[1], Shape({4, kU}));
    // The mismatch names both shapes (the graph pass adds the op and node).
    std::string msg = InferError(op, {}, {Shape{2, 3}, Shape{4, 3}});
    EXPECT_TRUE(Contains(msg, "could not be broadcast")) << msg;
    EXPECT_TRUE(Contains(msg, "[2,3]")) << msg;
    EXPECT_TRUE(Contains(msg, "[4,3]")) << msg;
    // A given output that disagrees.
    EXPECT_TRUE(Contains(InferError(op, {}, {Shape{2, 3}, Shape{3}}, {Shape{2, 4}}), "[2,4]"));
  }
}

// ---------------------------------------------------------------- dtypes

TEST(CompareSchemaTest, OutputKeepsInputDType) {
  for (const std::string op : {"_equal", "broadcast_lesser", "_logical_xor"}) {
    for (DType t : {DType::kFloat32, DType::kFloat16, DType::kInt32, DType::kUint8}) {
      auto r = ValueOrThrow(InferOpType(op, {}, {t, DType::kUnknown}));
      EXPECT_EQ(r.out[0], t) << op;
      EXPECT_EQ(r.in[1], t) << op;
    }
    // Both operands share one dtype, as in MXNet.
    EXPECT_FALSE(InferOpType(op, {}, {DType::kFloat32, DType::kInt32}).ok()) << op;
  }
  auto s = ValueOrThrow(InferOpType("_greater_scalar", {}, {DType::kInt64}));
  EXPECT_EQ(s.out[0], DType::kInt64);
  auto n = ValueOrThrow(InferOpType("logical_not", {}, {DType::kInt8}));
  EXPECT_EQ(n.out[0], DType::kInt8);
}

// ---------------------------------------------------------------- gradients

TEST(CompareSchemaTest, ZeroGradientAndInplace) {
  for (const std::string& f : kFamilies) {
    for (const std::string& op : {"_" + f, "broadcast_" + f}) {
      const Op* o = OpRegistry::Global().Find(op);
      ASSERT_NE(o, nullptr) << op;
      EXPECT_FALSE(o->non_differentiable()) << op;
      GradCase c = Differentiate(op, {}, 2);
      ASSERT_EQ(c.grads.size(), 2u) << op;
      EXPECT_EQ(c.grads[0].node, nullptr) << op;
      EXPECT_EQ(c.grads[1].node, nullptr) << op;
      NodeAttrs a = ValueOrThrow(ParseAttrs(op, {}));
      EXPECT_EQ(o->inplace()(a), (std::vector<std::pair<int, int>>{{0, 0}, {1, 0}})) << op;
    }
    GradCase s = Differentiate("_" + f + "_scalar", {{"scalar", "2"}}, 1);
    ASSERT_EQ(s.grads.size(), 1u);
    EXPECT_EQ(s.grads[0].node, nullptr);
  }
  GradCase n = Differentiate("logical_not", {}, 1);
  ASSERT_EQ(n.grads.size(), 1u);
  EXPECT_EQ(n.grads[0].node, nullptr);
}

// ---------------------------------------------------------------- unary math

// (op, backward reads the forward output)
const std::vector<std::pair<std::string, bool>> kDifferentiable = {
    {"log2", false},    {"log10", false},      {"log1p", false},   {"expm1", true},
    {"sin", false},     {"cos", false},        {"tan", true},      {"arcsin", false},
    {"arccos", false},  {"arctan", false},     {"sinh", false},    {"cosh", false},
    {"arcsinh", false}, {"arccosh", false},    {"arctanh", false}, {"degrees", false},
    {"radians", false}, {"reciprocal", false}, {"rsqrt", false},   {"cbrt", true},
    {"rcbrt", false},   {"erf", false},        {"erfinv", true},   {"gamma", false},
    {"gammaln", false},
};
const std::vector<std::string> kZeroGrad = {"floor", "ceil",  "round", "rint",
                                            "fix",   "trunc", "sign"};

TEST(UnaryMathSchemaTest, ShapesTypesInplaceAndParams) {
  std::vector<std::string> all = kZeroGrad;
  for (const auto& [op, unused] : kDifferentiable) all.push_back(op);
  all.push_back("smooth_l1");
  for (const std::string& op : all) {
    SCOPED_TRACE(op);
    EXPECT_EQ(InputNames(op, {}), (std::vector<std::string>{"data"}));
    EXPECT_EQ(Infer(op, {}, {Shape{2, 3}}).out[0], Shape({2, 3}));
    EXPECT_EQ(Infer(op, {}, {kUnknown}, {Shape{0, 4}}).in[0], Shape({0, 4}));
    EXPECT_TRUE(Contains(InferError(op, {}, {Shape{2, 3}}, {Shape{3, 2}}), "[3,2]"));
    auto t = ValueOrThrow(InferOpType(op, {}, {DType::kFloat16}));
    EXPECT_EQ(t.out[0], DType::kFloat16);
    NodeAttrs a = ValueOrThrow(ParseAttrs(op, {}));
    EXPECT_EQ(a.op->inplace()(a), (std::vector<std::pair<int, int>>{{0, 0}}));
    if (op != "smooth_l1") {
      EXPECT_TRUE(Contains(ParseError(op, {{"scalar", "2"}}), "scalar"));
    }
  }
}

TEST(UnaryMathSchemaTest, Gradients) {
  for (const auto& [op, uses_output] : kDifferentiable) {
    SCOPED_TRACE(op);
    GradCase c = Differentiate(op, {}, 1);
    ASSERT_EQ(c.grads.size(), 1u);
    NodeEntry value = uses_output ? Out(c.node) : c.node->inputs[0];
    ExpectBackward(c, "_backward_" + op, 1, {Out(c.head), value});
    EXPECT_EQ(c.grads[0].node->inputs, (std::vector<NodeEntry>{Out(c.head), value}));
    const Op* bw = OpRegistry::Global().Find("_backward_" + op);
    ASSERT_NE(bw, nullptr);
    EXPECT_TRUE(bw->non_differentiable());
  }
  for (const std::string& op : kZeroGrad) {
    GradCase c = Differentiate(op, {}, 1);
    ASSERT_EQ(c.grads.size(), 1u) << op;
    EXPECT_EQ(c.grads[0].node, nullptr) << op;
    EXPECT_FALSE(OpRegistry::Global().Find(op)->non_differentiable()) << op;
  }
}

TEST(UnaryMathSchemaTest, SmoothL1) {
  NodeAttrs d = ValueOrThrow(ParseAttrs("smooth_l1", {}));
  EXPECT_EQ(Param<ScalarParam>(d).scalar, 1.0);
  NodeAttrs a = ValueOrThrow(ParseAttrs("smooth_l1", {{"scalar", "3"}, {"is_int", "1"}}));
  EXPECT_EQ(Param<ScalarParam>(a).scalar, 3.0);
  std::string msg = ParseError("smooth_l1", {{"scalar", "sigma"}});
  EXPECT_TRUE(Contains(msg, "scalar") && Contains(msg, "sigma")) << msg;
  EXPECT_TRUE(Contains(ParseError("smooth_l1", {{"sigma", "1"}}), "sigma"));
  GradCase c = Differentiate("smooth_l1", {{"scalar", "2"}}, 1);
  ExpectBackward(c, "_backward_smooth_l1", 1, {Out(c.head), c.node->inputs[0]});
  EXPECT_EQ(c.grads[0].node->attrs.dict.at("scalar"), "2");
  EXPECT_EQ(Param<ScalarParam>(c.grads[0].node->attrs).scalar, 2.0);
}

}  // namespace
}  // namespace symx
