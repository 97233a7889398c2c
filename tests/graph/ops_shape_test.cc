// Tests of the shape family's op schemas: Flatten, Reshape, expand_dims, squeeze, transpose,
// Concat, SliceChannel, slice_axis, softmax, log_softmax and the loss heads. Expected shapes
// are MXNet 1.x's, worked out by hand (Reshape's from MXNet's documented examples).
#include <ostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/op.h"
#include "graph/ops/op_helpers.h"
#include "gtest/gtest.h"
#include "tests/expect_contains.h"
#include "tests/graph/op_test_util.h"

namespace symx {

// Readable shapes in failure messages (found by gtest through ADL).

namespace {

using ::symx::testing::Infer;
using ::symx::testing::InferError;
using ::symx::testing::InferOpShape;
using ::symx::testing::InferOpType;
using ::symx::testing::ParseAttrs;
using ::symx::testing::ParseError;
using ::symx::testing::ShapeResult;

constexpr int64_t U = kUnknownDim;

// gtest only (the build links no gmock): `text` must contain `part`.

// The output shape of a single-output op.
Shape Out0(const std::string& op, const AttrMap& attrs, std::vector<Shape> in) {
  ShapeResult r = Infer(op, attrs, std::move(in));
  return r.out.empty() ? Shape() : r.out[0];
}

// A node of `op` over fresh variables in0, in1, ...
NodePtr MakeNode(const std::string& op, const AttrMap& attrs, int num_inputs) {
  std::vector<NodeEntry> inputs;
  for (int i = 0; i < num_inputs; ++i) {
    inputs.push_back(Out(MakeVariableNode(absl::StrCat("in", i))));
  }
  absl::StatusOr<NodePtr> node = MakeOpNode(op, "fwd", attrs, std::move(inputs));
  EXPECT_TRUE(node.ok()) << node.status();
  return node.ok() ? *node : nullptr;
}

NodeEntry Grad(const std::string& name = "g") { return Out(MakeVariableNode(name)); }

std::vector<std::pair<int, int>> Inplace(const std::string& op, const AttrMap& attrs) {
  absl::StatusOr<NodeAttrs> a = ParseAttrs(op, attrs);
  EXPECT_TRUE(a.ok()) << a.status();
  return a.ok() ? a->op->inplace()(*a) : std::vector<std::pair<int, int>>{};
}

// ------------------------------------------------------------------------------ Reshape

TEST(ReshapeTest, MxnetDocExamples) {
  EXPECT_EQ(Out0("Reshape", {{"shape", "(4, 0, 2)"}}, {Shape{2, 3, 4}}), (Shape{4, 3, 2}));
  EXPECT_EQ(Out0("Reshape", {{"shape", "(2, -1)"}}, {Shape{2, 3, 4}}), (Shape{2, 12}));
  EXPECT_EQ(Out0("Reshape", {{"shape", "(-2,)"}}, {Shape{2, 3, 4}}), (Shape{2, 3, 4}));
  EXPECT_EQ(Out0("Reshape", {{"shape", "(-3, -2)"}}, {Shape{2, 3, 4, 5}}), (Shape{6, 4, 5}));
  EXPECT_EQ(Out0("Reshape", {{"shape", "(-4, 1, 2, -2)"}}, {Shape{2, 3, 4}}), (Shape{1, 2, 3, 4}));
  EXPECT_EQ(Out0("Reshape", {{"shape", "(-1, 0)"}, {"reverse", "True"}}, {Shape{10, 5, 4}}),
            (Shape{50, 4}));
  // Further rows of the same documentation.
  EXPECT_EQ(Out0("Reshape", {{"shape", "(-1, 0)"}}, {Shape{10, 5, 4}}), (Shape{40, 5}));
  EXPECT_EQ(Out0("Reshape", {{"shape", "(6, 1, -1)"}}, {Shape{2, 3, 4}}), (Shape{6, 1, 4}));
  EXPECT_EQ(Out0("Reshape", {{"shape", "(3, -1, 8)"}}, {Shape{2, 3, 4}}), (Shape{3, 1, 8}));
  EXPECT_EQ(Out0("Reshape", {{"shape", "(-2, 1, 1)"}}, {Shape{2, 3, 4}}), (Shape{2, 3, 4, 1, 1}));
  EXPECT_EQ(Out0("Reshape", {{"shape", "(-3, 4)"}}, {Shape{2, 3, 4}}), (Shape{6, 4}));
  EXPECT_EQ(Out0("Reshape", {{"shape", "(0, -3)"}}, {Shape{2, 3, 4}}), (Shape{2, 12}));
  EXPECT_EQ(Out0("Reshape", {{"shape", "(-4, -1, 2, -2)"}}, {Shape{2, 3, 4}}), (Shape{1, 2, 3, 4}));
  EXPECT_EQ(Out0("Reshape", {{"shape", "(2, -4, -1, 3, -2)"}}, {Shape{2, 3, 4}}),
            (Shape{2, 1, 3, 4}));
  EXPECT_EQ(Out0("reshape", {{"shape", "(24,)"}}, {Shape{2, 3, 4}}), (Shape{24}));
}

TEST(ReshapeTest, SizeMismatchNamesBothShapes) {
  std::string msg = InferError("Reshape", {{"shape", "(5, 4)"}}, {Shape{2, 3, 4}});
  EXPECT_CONTAINS(msg, "[5,4]");
  EXPECT_CONTAINS(msg, "[2,3,4]");
  msg = InferError("Reshape", {{"shape", "(5, -1)"}}, {Shape{2, 3, 4}});
  EXPECT_CONTAINS(msg, "[2,3,4]");
  EXPECT_CONTAINS(InferError("Reshape", {{"shape", "(-4, 5, -1)"}}, {Shape{12}}), "-4");
}

TEST(ReshapeTest, SpecialValuesNeedInputDims) {
  EXPECT_CONTAINS(InferError("Reshape", {{"shape", "(0, 0)"}}, {Shape{6}}),
                  "0 at position 1 has no input dim");
  EXPECT_CONTAINS(InferError("Reshape", {{"shape", "(-3,)"}}, {Shape{6}}), "-3");
  EXPECT_CONTAINS(InferError("Reshape", {{"shape", "(0, -1)"}}, {Shape{0, 3}}), "multiply to 0");
  EXPECT_EQ(Out0("Reshape", {{"shape", "(-1, 3)"}}, {Shape{0, 3}}), (Shape{0, 3}));
}

TEST(ReshapeTest, PartialInference) {
  // Unknown input: only a shape made of plain dims (or -4 pairs) is known.
  EXPECT_EQ(Out0("Reshape", {{"shape", "(2, 3)"}}, {Shape()}), (Shape{2, 3}));
  EXPECT_EQ(Out0("Reshape", {{"shape", "(0, -1, -4, 2, 3)"}}, {Shape()}), (Shape{U, U, 2, 3}));
  EXPECT_EQ(Out0("Reshape", {{"shape", "(-2,)"}}, {Shape()}), Shape());
  // Unknown dims propagate.
  EXPECT_EQ(Out0("Reshape", {{"shape", "(0, -3)"}}, {Shape{U, 3, 4}}), (Shape{U, 12}));
  EXPECT_EQ(Out0("Reshape", {{"shape", "(0, -1)"}}, {Shape{U, 3, 4}}), (Shape{U, U}));
  // The output fills the input: copied dims first, then one dim from the total size, and the
  // -1 settles once the input is known.
  ShapeResult r = Infer("Reshape", {{"shape", "(0, -1)"}}, {Shape{U, 3, 4}}, {Shape{2, 12}});
  EXPECT_EQ(r.in[0], (Shape{2, 3, 4}));
  r = Infer("Reshape", {{"shape", "(-1,)"}}, {Shape{2, U, 4}}, {Shape{24}});
  EXPECT_EQ(r.in[0], (Shape{2, 3, 4}));
  r = Infer("Reshape", {{"shape", "(-1, 0)"}, {"reverse", "True"}}, {Shape{U, 5, 4}},
            {Shape{50, 4}});
  EXPECT_EQ(r.in[0], (Shape{10, 5, 4}));
  r = Infer("Reshape", {{"shape", "(2, 12)"}}, {Shape{U, 3, 4}});
  EXPECT_EQ(r.in[0], (Shape{2, 3, 4}));
  // Two unknown input dims cannot both follow from the size.
  r = Infer("Reshape", {{"shape", "(24,)"}}, {Shape{U, U, 4}});
  EXPECT_EQ(r.in[0], (Shape{U, U, 4}));
}

TEST(ReshapeTest, Conflicts) {
  EXPECT_CONTAINS(InferError("Reshape", {{"shape", "(4, 6)"}}, {Shape{2, 3, 4}}, {Shape{6, 4}}),
                  "Shape inconsistent for output");
  EXPECT_CONTAINS(InferError("Reshape", {{"shape", "(-1,)"}}, {Shape{2, U, 4}}, {Shape{25}}),
                  "same size");
}

TEST(ReshapeTest, BadAttributes) {
  EXPECT_CONTAINS(ParseError("Reshape", {{"shape", "(-5, 2)"}}), "'shape'");
  EXPECT_CONTAINS(ParseError("Reshape", {{"shape", "(-1, -1)"}}), "at most one -1");
  EXPECT_CONTAINS(ParseError("Reshape", {{"shape", "(-4, 2)"}}), "'shape'");
  EXPECT_CONTAINS(ParseError("Reshape", {{"shape", "(-4, -1, -1)"}}), "'shape'");
  EXPECT_CONTAINS(ParseError("Reshape", {{"shape", "(-4, 0, 2)"}}), "'shape'");
  EXPECT_CONTAINS(ParseError("Reshape", {{"shape", "(-4, 1, 2)"}, {"reverse", "True"}}), "reverse");
  EXPECT_CONTAINS(ParseError("Reshape", {{"shape", "(2, x)"}}), "'shape'");
  EXPECT_CONTAINS(ParseError("Reshape", {{"shape", "(2, 3)"}, {"shap", "(1,)"}}), "'shap'");
  EXPECT_CONTAINS(ParseError("Reshape", {{"reverse", "maybe"}, {"shape", "(1,)"}}), "'reverse'");
}

TEST(ReshapeTest, LegacyTargetShape) {
  EXPECT_EQ(Out0("Reshape", {{"target_shape", "(0, 4)"}}, {Shape{2, 3, 4}}), (Shape{6, 4}));
  EXPECT_EQ(Out0("Reshape", {{"target_shape", "(4, 6)"}}, {Shape{2, 3, 4}}), (Shape{4, 6}));
  EXPECT_EQ(
      Out0("Reshape", {{"target_shape", "(7, 0)"}, {"keep_highest", "True"}}, {Shape{2, 3, 4}}),
      (Shape{2, 12}));
  // MXNet 0.9 wrote every field, with empty defaults.
  EXPECT_EQ(Out0("Reshape",
                 {{"shape", "(-1,)"},
                  {"target_shape", "()"},
                  {"keep_highest", "False"},
                  {"reverse", "False"}},
                 {Shape{2, 3}}),
            (Shape{6}));
  EXPECT_CONTAINS(ParseError("Reshape", {{"target_shape", "(0, 0)"}}), "'target_shape'");
  EXPECT_CONTAINS(ParseError("Reshape", {{"target_shape", "(-1, 2)"}}), "'target_shape'");
  EXPECT_CONTAINS(ParseError("Reshape", {{"shape", "(2,)"}, {"target_shape", "(2,)"}}),
                  "'target_shape'");
  EXPECT_CONTAINS(ParseError("Reshape", {{"shape", "(2,)"}, {"keep_highest", "True"}}),
                  "'keep_highest'");
  // Neither: the output shape must come from elsewhere; the input follows from it.
  ShapeResult r = Infer("Reshape", {}, {Shape{U, 3}}, {Shape{6}});
  EXPECT_EQ(r.in[0], (Shape{2, 3}));
  EXPECT_EQ(Infer("Reshape", {}, {Shape{2, 3}}).out[0], Shape());
}

TEST(ReshapeTest, HugeDimsDoNotCrash) {
  const int64_t big = int64_t{1} << 40;
  EXPECT_CONTAINS(InferError("Reshape", {{"shape", "(1,)"}}, {Shape{big, big}}),
                  "too many elements");
  EXPECT_CONTAINS(InferError("Reshape", {{"shape", "(-3,)"}}, {Shape{big, big}}), "overflows");
  Infer("Reshape", {{"shape", "(-1,)"}}, {Shape{big, big}});
  EXPECT_CONTAINS(InferError("Flatten", {}, {Shape{2, big, big}}), "too many elements");
}

// ------------------------------------------------------------------------------ Flatten

TEST(FlattenTest, Shapes) {
  EXPECT_EQ(Out0("Flatten", {}, {Shape{2, 3, 4}}), (Shape{2, 12}));
  EXPECT_EQ(Out0("flatten", {}, {Shape{5, 7}}), (Shape{5, 7}));
  EXPECT_EQ(Out0("Flatten", {}, {Shape{U, 3, 4}}), (Shape{U, 12}));
  EXPECT_EQ(Out0("Flatten", {}, {Shape{2, U, 4}}), (Shape{2, U}));
  ShapeResult r = Infer("Flatten", {}, {Shape{U, 3, U}}, {Shape{2, 12}});
  EXPECT_EQ(r.in[0], (Shape{2, 3, 4}));
  r = Infer("Flatten", {}, {Shape()}, {Shape{2, 12}});
  EXPECT_EQ(r.in[0], Shape());
}

TEST(FlattenTest, OneDimIsAColumn) {
  // MXNet 1.9.1: Flatten of (5,) is (5, 1) (found by tools/difftest, seed 2 graph 167).
  auto r = Infer("Flatten", {}, {Shape{5}});
  EXPECT_EQ(r.out[0], (Shape{5, 1}));
  EXPECT_CONTAINS(InferError("Flatten", {}, {Shape{5}}, {Shape{5, 2}}), "[5,2]");
}

TEST(FlattenTest, Errors) {
  EXPECT_CONTAINS(InferError("Flatten", {}, {Shape{2, 3, 4}}, {Shape{2, 13}}),
                  "Shape inconsistent for output");
  EXPECT_CONTAINS(InferError("Flatten", {}, {Shape{U, 3, U}}, {Shape{2, 13}}), "[2,13]");
  EXPECT_CONTAINS(InferError("Flatten", {}, {Shape()}, {Shape{2, 3, 4}}), "2 dims");
  EXPECT_CONTAINS(ParseError("Flatten", {{"axis", "1"}}), "'axis'");
}

// ------------------------------------------------------------------------------ expand_dims

TEST(ExpandDimsTest, Shapes) {
  EXPECT_EQ(Out0("expand_dims", {{"axis", "0"}}, {Shape{2, 3}}), (Shape{1, 2, 3}));
  EXPECT_EQ(Out0("expand_dims", {{"axis", "1"}}, {Shape{2, 3}}), (Shape{2, 1, 3}));
  EXPECT_EQ(Out0("expand_dims", {{"axis", "2"}}, {Shape{2, 3}}), (Shape{2, 3, 1}));
  EXPECT_EQ(Out0("expand_dims", {{"axis", "-1"}}, {Shape{2, 3}}), (Shape{2, 3, 1}));
  EXPECT_EQ(Out0("expand_dims", {{"axis", "-3"}}, {Shape{2, 3}}), (Shape{1, 2, 3}));
  EXPECT_EQ(Out0("expand_dims", {{"axis", "1"}}, {Shape{U, 3}}), (Shape{U, 1, 3}));
  ShapeResult r = Infer("expand_dims", {{"axis", "1"}}, {Shape()}, {Shape{2, 1, 3}});
  EXPECT_EQ(r.in[0], (Shape{2, 3}));
  r = Infer("expand_dims", {{"axis", "0"}}, {Shape{U, 3}}, {Shape{1, 7, 3}});
  EXPECT_EQ(r.in[0], (Shape{7, 3}));
}

TEST(ExpandDimsTest, Errors) {
  EXPECT_CONTAINS(InferError("expand_dims", {{"axis", "3"}}, {Shape{2, 3}}), "axis 3");
  EXPECT_CONTAINS(InferError("expand_dims", {{"axis", "-4"}}, {Shape{2, 3}}), "axis -4");
  EXPECT_CONTAINS(InferError("expand_dims", {{"axis", "1"}}, {Shape{2, 3}}, {Shape{2, 5, 3}}),
                  "Shape inconsistent for output");
  EXPECT_CONTAINS(InferError("expand_dims", {{"axis", "0"}}, {Shape{2, 3}}, {Shape{1, 2}}),
                  "Shape inconsistent");
  EXPECT_CONTAINS(ParseError("expand_dims", {}), "'axis'");
  EXPECT_CONTAINS(ParseError("expand_dims", {{"axis", "one"}}), "'axis'");
}

// ------------------------------------------------------------------------------ squeeze

TEST(SqueezeTest, Shapes) {
  EXPECT_EQ(Out0("squeeze", {}, {Shape{1, 3, 1}}), (Shape{3}));
  EXPECT_EQ(Out0("squeeze", {{"axis", "(0,)"}}, {Shape{1, 3, 1}}), (Shape{3, 1}));
  EXPECT_EQ(Out0("squeeze", {{"axis", "2"}}, {Shape{1, 3, 1}}), (Shape{1, 3}));
  EXPECT_EQ(Out0("squeeze", {{"axis", "(0, -1)"}}, {Shape{1, 3, 1}}), (Shape{3}));
  EXPECT_EQ(Out0("squeeze", {{"axis", "None"}}, {Shape{2, 3}}), (Shape{2, 3}));
  // Squeezing every dim leaves (1,), as in MXNet.
  EXPECT_EQ(Out0("squeeze", {}, {Shape{1, 1}}), (Shape{1}));
  EXPECT_EQ(Out0("squeeze", {{"axis", "(0, 1)"}}, {Shape{1, 1}}), (Shape{1}));
  // Partial: a named axis is 1; without axis, unknown dims leave the rank open.
  ShapeResult r = Infer("squeeze", {{"axis", "0"}}, {Shape{U, U}}, {Shape{5}});
  EXPECT_EQ(r.in[0], (Shape{1, 5}));
  EXPECT_EQ(r.out[0], (Shape{5}));
  EXPECT_EQ(Out0("squeeze", {}, {Shape{U, 3}}), Shape());
}

TEST(SqueezeTest, Errors) {
  EXPECT_CONTAINS(InferError("squeeze", {{"axis", "1"}}, {Shape{1, 3, 1}}),
                  "cannot squeeze axis 1 of size 3");
  EXPECT_CONTAINS(InferError("squeeze", {{"axis", "3"}}, {Shape{1, 3, 1}}), "axis 3");
  EXPECT_CONTAINS(InferError("squeeze", {{"axis", "0"}}, {Shape{1, 3}}, {Shape{4}}),
                  "Shape inconsistent for output");
  EXPECT_CONTAINS(ParseError("squeeze", {{"axis", "(0, a)"}}), "'axis'");
}

TEST(ReshapeFamilyTest, InplaceAndSharedBackward) {
  struct Case {
    std::string op;
    AttrMap attrs;
  };
  for (const Case& c : std::vector<Case>{{"Flatten", {}},
                                         {"Reshape", {{"shape", "(-1,)"}}},
                                         {"expand_dims", {{"axis", "0"}}},
                                         {"squeeze", {}}}) {
    SCOPED_TRACE(c.op);
    EXPECT_EQ(Inplace(c.op, c.attrs), (std::vector<std::pair<int, int>>{{0, 0}}));
    NodePtr node = MakeNode(c.op, c.attrs, 1);
    ASSERT_NE(node, nullptr);
    NodeEntry g = Grad();
    std::vector<NodeEntry> grads = node->op()->gradient()(node, {g});
    ASSERT_EQ(grads.size(), 1u);
    ASSERT_NE(grads[0].node, nullptr);
    EXPECT_EQ(grads[0].node->op()->name(), "_backward_reshape");
    EXPECT_TRUE(grads[0].node->op()->is_backward());
    EXPECT_EQ(grads[0].node->num_outputs(), 1);
    EXPECT_EQ(grads[0].node->inputs, (std::vector<NodeEntry>{g}));
    EXPECT_EQ(grads[0].node->control_deps, (std::vector<NodePtr>{node}));
    // A zero output gradient stays zero.
    EXPECT_EQ(node->op()->gradient()(node, {NodeEntry{}})[0].node, nullptr);
  }
}

// ------------------------------------------------------------------------------ transpose

TEST(TransposeTest, Shapes) {
  EXPECT_EQ(Out0("transpose", {}, {Shape{2, 3, 4}}), (Shape{4, 3, 2}));
  EXPECT_EQ(Out0("transpose", {{"axes", "(1, 0, 2)"}}, {Shape{2, 3, 4}}), (Shape{3, 2, 4}));
  EXPECT_EQ(Out0("transpose", {{"axes", "(-1, 0, 1)"}}, {Shape{2, 3, 4}}), (Shape{4, 2, 3}));
  // The notes' partial row: transpose(0,3,2,1) on (0,3,224,224) -> (0,224,224,3).
  EXPECT_EQ(Out0("transpose", {{"axes", "(0, 3, 2, 1)"}}, {Shape{U, 3, 224, 224}}),
            (Shape{U, 224, 224, 3}));
  ShapeResult r = Infer("transpose", {{"axes", "(1, 2, 0)"}}, {Shape{U, 3, U}}, {Shape{3, 4, 2}});
  EXPECT_EQ(r.in[0], (Shape{2, 3, 4}));
  r = Infer("transpose", {}, {Shape()}, {Shape{4, 3, 2}});
  EXPECT_EQ(r.in[0], (Shape{2, 3, 4}));
}

TEST(TransposeTest, Errors) {
  EXPECT_CONTAINS(ParseError("transpose", {{"axes", "(0, 0, 1)"}}), "'axes'");
  EXPECT_CONTAINS(ParseError("transpose", {{"axes", "(0, 3, 1)"}}), "'axes'");
  EXPECT_CONTAINS(ParseError("transpose", {{"axes", "(0, 1"}}), "'axes'");
  EXPECT_CONTAINS(InferError("transpose", {{"axes", "(1, 0)"}}, {Shape{2, 3, 4}}), "[2,3,4]");
  EXPECT_CONTAINS(InferError("transpose", {}, {Shape{2, 3}}, {Shape{2, 3}}),
                  "Shape inconsistent for output");
}

TEST(TransposeTest, GradientIsInverseTranspose) {
  NodePtr node = MakeNode("transpose", {{"axes", "(1, 2, 0)"}}, 1);
  ASSERT_NE(node, nullptr);
  NodeEntry g = Grad();
  std::vector<NodeEntry> grads = node->op()->gradient()(node, {g});
  ASSERT_EQ(grads.size(), 1u);
  EXPECT_EQ(grads[0].node->op()->name(), "transpose");
  EXPECT_EQ(grads[0].node->attrs.dict.at("axes"), "(2, 0, 1)");
  EXPECT_EQ(grads[0].node->inputs, (std::vector<NodeEntry>{g}));
  // Check by composition: (2,3,4) -> (3,4,2) -> back to (2,3,4).
  EXPECT_EQ(Out0("transpose", grads[0].node->attrs.dict, {Shape{3, 4, 2}}), (Shape{2, 3, 4}));

  NodePtr rev = MakeNode("transpose", {}, 1);
  grads = rev->op()->gradient()(rev, {g});
  EXPECT_EQ(grads[0].node->op()->name(), "transpose");
  EXPECT_EQ(grads[0].node->attrs.dict.count("axes"), 0u);
}

// ------------------------------------------------------------------------------ Concat

TEST(ConcatTest, Shapes) {
  EXPECT_EQ(Out0("Concat", {{"num_args", "2"}}, {Shape{2, 3}, Shape{2, 5}}), (Shape{2, 8}));
  EXPECT_EQ(
      Out0("concat", {{"num_args", "3"}, {"dim", "0"}}, {Shape{1, 4}, Shape{2, 4}, Shape{3, 4}}),
      (Shape{6, 4}));
  EXPECT_EQ(Out0("Concat", {{"num_args", "2"}, {"dim", "-1"}}, {Shape{2, 3, 1}, Shape{2, 3, 4}}),
            (Shape{2, 3, 5}));
  EXPECT_EQ(Out0("Concat", {{"num_args", "1"}}, {Shape{2, 3}}), (Shape{2, 3}));
}

TEST(ConcatTest, PartialInference) {
  // The notes' row d + concat(a, b): a (0,10), b (0,5), d (2,0) -> a (2,10), b (2,5),
  // d (2,15). The concat sees its output as d's (2, ?) after the add's pass.
  ShapeResult r = Infer("Concat", {{"num_args", "2"}}, {Shape{U, 10}, Shape{U, 5}});
  EXPECT_EQ(r.out[0], (Shape{U, 15}));
  r = Infer("Concat", {{"num_args", "2"}}, {Shape{U, 10}, Shape{U, 5}}, {Shape{2, U}});
  EXPECT_EQ(r.in[0], (Shape{2, 10}));
  EXPECT_EQ(r.in[1], (Shape{2, 5}));
  EXPECT_EQ(r.out[0], (Shape{2, 15}));
  // One unknown concat dim follows from the output.
  r = Infer("Concat", {{"num_args", "3"}}, {Shape{2, 3}, Shape(), Shape{U, 1}}, {Shape{2, 8}});
  EXPECT_EQ(r.in[1], (Shape{2, 4}));
  EXPECT_EQ(r.in[2], (Shape{2, 1}));
  // Two unknown: they stay unknown.
  r = Infer("Concat", {{"num_args", "3"}}, {Shape{2, 3}, Shape(), Shape{U, U}}, {Shape{2, 8}});
  EXPECT_EQ(r.in[1], (Shape{2, U}));
  EXPECT_EQ(r.in[2], (Shape{2, U}));
  EXPECT_EQ(Infer("Concat", {{"num_args", "2"}}, {Shape(), Shape()}).out[0], Shape());
}

// Gluon's RNN layers: the RNN's parameter count settles one or two inputs.
TEST(RnnParamConcatTest, TheOutputSettlesTwoInputsEqually) {
  const AttrMap three = {{"num_args", "3"}, {"dim", "0"}};
  ShapeResult r = Infer("_rnn_param_concat", three, {Shape{12}, Shape(), Shape{U}}, {Shape{40}});
  EXPECT_EQ(r.in[1], (Shape{14}));
  EXPECT_EQ(r.in[2], (Shape{14}));
  r = Infer("_rnn_param_concat", three, {Shape{12}, Shape{6}, Shape()}, {Shape{40}});
  EXPECT_EQ(r.in[2], (Shape{22}));
  r = Infer("_rnn_param_concat", three, {Shape{12}, Shape{6}, Shape{2}});
  EXPECT_EQ(r.out[0], (Shape{20}));
  EXPECT_CONTAINS(
      InferError("_rnn_param_concat", three, {Shape{12}, Shape(), Shape()}, {Shape{41}}),
      "cannot share the 29 elements");
  EXPECT_CONTAINS(InferError("_rnn_param_concat", {{"num_args", "3"}, {"dim", "0"}},
                             {Shape(), Shape(), Shape()}, {Shape{40}}),
                  "3 inputs of unknown size");
}

TEST(ConcatTest, Errors) {
  EXPECT_CONTAINS(InferError("Concat", {{"num_args", "2"}}, {Shape{2, 3}, Shape{3, 5}}),
                  "input arg1");
  EXPECT_CONTAINS(InferError("Concat", {{"num_args", "2"}}, {Shape{2, 3}, Shape{2, 3, 1}}),
                  "Shape inconsistent");
  EXPECT_CONTAINS(
      InferError("Concat", {{"num_args", "2"}}, {Shape{2, 3}, Shape{2, 5}}, {Shape{2, 9}}),
      "Shape inconsistent for output");
  EXPECT_CONTAINS(
      InferError("Concat", {{"num_args", "2"}}, {Shape{2, 3}, Shape{2, U}}, {Shape{2, 2}}),
      "smaller");
  EXPECT_CONTAINS(
      InferError("Concat", {{"num_args", "2"}, {"dim", "2"}}, {Shape{2, 3}, Shape{2, 3}}), "dim");
  EXPECT_CONTAINS(InferError("Concat", {{"num_args", "1"}}, {Shape(std::vector<int64_t>{})}),
                  "0-dim");
  EXPECT_CONTAINS(ParseError("Concat", {}), "'num_args'");
  EXPECT_CONTAINS(ParseError("Concat", {{"num_args", "0"}}), "'num_args'");
  EXPECT_CONTAINS(ParseError("Concat", {{"num_args", "2"}, {"axis", "1"}}), "'axis'");
}

TEST(ConcatTest, NamesAndGradient) {
  absl::StatusOr<NodeAttrs> a = ParseAttrs("Concat", {{"num_args", "3"}});
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->op->InputNames(*a), (std::vector<std::string>{"arg0", "arg1", "arg2"}));
  EXPECT_EQ(a->op->variadic_key(), "num_args");
  NodePtr node = MakeNode("Concat", {{"num_args", "3"}}, 3);
  ASSERT_NE(node, nullptr);
  NodeEntry g = Grad();
  std::vector<NodeEntry> grads = node->op()->gradient()(node, {g});
  ASSERT_EQ(grads.size(), 3u);
  EXPECT_EQ(grads[0].node->op()->name(), "_backward_Concat");
  EXPECT_EQ(grads[0].node->num_outputs(), 3);
  for (uint32_t i = 0; i < 3; ++i) EXPECT_EQ(grads[i].index, i);
  EXPECT_EQ(grads[0].node->inputs, (std::vector<NodeEntry>{g}));
}

// ------------------------------------------------------------------------------ SliceChannel

TEST(SliceChannelTest, Shapes) {
  ShapeResult r = Infer("SliceChannel", {{"num_outputs", "3"}}, {Shape{2, 6}});
  ASSERT_EQ(r.out.size(), 3u);
  for (const Shape& s : r.out) EXPECT_EQ(s, (Shape{2, 2}));
  r = Infer("split", {{"num_outputs", "2"}, {"axis", "0"}}, {Shape{4, 3}});
  EXPECT_EQ(r.out[1], (Shape{2, 3}));
  r = Infer("SliceChannel", {{"num_outputs", "3"}, {"axis", "-1"}, {"squeeze_axis", "True"}},
            {Shape{2, 5, 3}});
  EXPECT_EQ(r.out[2], (Shape{2, 5}));
  // A squeezed axis of unknown size must be num_outputs.
  r = Infer("SliceChannel", {{"num_outputs", "4"}, {"squeeze_axis", "1"}}, {Shape{2, U}});
  EXPECT_EQ(r.in[0], (Shape{2, 4}));
  EXPECT_EQ(r.out[0], (Shape{2}));
}

TEST(SliceChannelTest, PartialInferenceFromNotes) {
  // slice10 squeeze, out[1] + c: a (0,10), c (5,) -> a (5,10).
  ShapeResult r = Infer(
      "SliceChannel", {{"num_outputs", "10"}, {"squeeze_axis", "True"}}, {Shape{U, 10}},
      {Shape(), Shape{5}, Shape(), Shape(), Shape(), Shape(), Shape(), Shape(), Shape(), Shape()});
  EXPECT_EQ(r.in[0], (Shape{5, 10}));
  for (const Shape& s : r.out) EXPECT_EQ(s, (Shape{5}));
  // slice3, out[1] + c: a (0,15,0), c (3,5,2) -> a (3,15,2).
  r = Infer("SliceChannel", {{"num_outputs", "3"}}, {Shape{U, 15, U}},
            {Shape(), Shape{3, 5, 2}, Shape()});
  EXPECT_EQ(r.in[0], (Shape{3, 15, 2}));
  EXPECT_EQ(r.out[2], (Shape{3, 5, 2}));
  // From the outputs alone.
  r = Infer("SliceChannel", {{"num_outputs", "2"}}, {Shape()}, {Shape{U, 3}, Shape{4, U}});
  EXPECT_EQ(r.in[0], (Shape{4, 6}));
}

TEST(SliceChannelTest, Errors) {
  EXPECT_CONTAINS(InferError("SliceChannel", {{"num_outputs", "3"}}, {Shape{2, 7}}),
                  "num_outputs=3");
  EXPECT_CONTAINS(
      InferError("SliceChannel", {{"num_outputs", "3"}, {"squeeze_axis", "True"}}, {Shape{2, 6}}),
      "squeeze_axis");
  EXPECT_CONTAINS(InferError("SliceChannel", {{"num_outputs", "2"}, {"axis", "2"}}, {Shape{2, 6}}),
                  "axis");
  EXPECT_CONTAINS(
      InferError("SliceChannel", {{"num_outputs", "2"}}, {Shape{2, 6}}, {Shape{2, 3}, Shape{2, 4}}),
      "output 1");
  EXPECT_CONTAINS(
      InferError("SliceChannel", {{"num_outputs", "2"}}, {Shape{2, 6}}, {Shape{2, 4}, Shape()}),
      "Shape inconsistent for input data");
  EXPECT_CONTAINS(ParseError("SliceChannel", {}), "'num_outputs'");
  EXPECT_CONTAINS(ParseError("SliceChannel", {{"num_outputs", "0"}}), "'num_outputs'");
  EXPECT_CONTAINS(ParseError("SliceChannel", {{"num_outputs", "2"}, {"squeeze_axis", "yes"}}),
                  "'squeeze_axis'");
}

TEST(SliceChannelTest, NamesAndGradient) {
  absl::StatusOr<NodeAttrs> a = ParseAttrs("SliceChannel", {{"num_outputs", "3"}});
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->op->OutputNames(*a), (std::vector<std::string>{"output0", "output1", "output2"}));
  NodePtr node = MakeNode("SliceChannel", {{"num_outputs", "3"}}, 1);
  ASSERT_NE(node, nullptr);
  NodeEntry g0 = Grad("g0"), g2 = Grad("g2");
  std::vector<NodeEntry> grads = node->op()->gradient()(node, {g0, NodeEntry{}, g2});
  ASSERT_EQ(grads.size(), 1u);
  const NodePtr& b = grads[0].node;
  EXPECT_EQ(b->op()->name(), "_backward_SliceChannel");
  EXPECT_EQ(b->num_outputs(), 1);
  ASSERT_EQ(b->inputs.size(), 3u);
  EXPECT_EQ(b->inputs[0], g0);
  EXPECT_EQ(b->inputs[1].node->op()->name(), "zeros_like");
  EXPECT_EQ(b->inputs[1].node->inputs[0], Out(node, 1));
  EXPECT_EQ(b->inputs[2], g2);
  EXPECT_EQ(node->op()->gradient()(node, {NodeEntry{}, NodeEntry{}, NodeEntry{}})[0].node, nullptr);
}

// ------------------------------------------------------------------------------ slice_axis

TEST(SliceAxisTest, Shapes) {
  auto attrs = [](const std::string& axis, const std::string& begin, const std::string& end) {
    return AttrMap{{"axis", axis}, {"begin", begin}, {"end", end}};
  };
  EXPECT_EQ(Out0("slice_axis", attrs("1", "1", "3"), {Shape{4, 5}}), (Shape{4, 2}));
  EXPECT_EQ(Out0("slice_axis", attrs("1", "1", "None"), {Shape{4, 5}}), (Shape{4, 4}));
  EXPECT_EQ(Out0("slice_axis", attrs("-1", "-2", "None"), {Shape{4, 5}}), (Shape{4, 2}));
  EXPECT_EQ(Out0("slice_axis", attrs("0", "0", "-1"), {Shape{4, 5}}), (Shape{3, 5}));
  EXPECT_EQ(Out0("slice_axis", attrs("1", "-4", "3"), {Shape{4, 5}}), (Shape{4, 2}));
  // Partial: an unknown axis size still gives end - begin when both count from the start.
  EXPECT_EQ(Out0("slice_axis", attrs("1", "1", "3"), {Shape{U, U}}), (Shape{U, 2}));
  EXPECT_EQ(Out0("slice_axis", attrs("1", "-2", "None"), {Shape{4, U}}), (Shape{4, U}));
  ShapeResult r = Infer("slice_axis", attrs("1", "0", "2"), {Shape()}, {Shape{4, 2}});
  EXPECT_EQ(r.in[0], (Shape{4, U}));
}

TEST(SliceAxisTest, Errors) {
  auto attrs = [](const std::string& begin, const std::string& end) {
    return AttrMap{{"axis", "1"}, {"begin", begin}, {"end", end}};
  };
  EXPECT_CONTAINS(InferError("slice_axis", attrs("6", "None"), {Shape{4, 5}}), "begin=6, end=None");
  EXPECT_CONTAINS(InferError("slice_axis", attrs("1", "7"), {Shape{4, 5}}), "size 5");
  EXPECT_CONTAINS(InferError("slice_axis", attrs("3", "-3"), {Shape{4, 5}}), "empty");
  EXPECT_CONTAINS(InferError("slice_axis", attrs("-9", "2"), {Shape{4, 5}}), "begin=-9");
  EXPECT_CONTAINS(InferError("slice_axis", attrs("0", "2"), {Shape{4, 5}}, {Shape{4, 3}}),
                  "Shape inconsistent for output");
  EXPECT_CONTAINS(
      InferError("slice_axis", {{"axis", "2"}, {"begin", "0"}, {"end", "1"}}, {Shape{4, 5}}),
      "axis 2");
  EXPECT_CONTAINS(ParseError("slice_axis", {{"axis", "1"}, {"begin", "0"}}), "'end'");
  EXPECT_CONTAINS(ParseError("slice_axis", attrs("2", "2")), "'end'");
  EXPECT_CONTAINS(ParseError("slice_axis", attrs("0", "x")), "'end'");
  EXPECT_CONTAINS(ParseError("slice_axis", {{"begin", "0"}, {"end", "1"}}), "'axis'");
}

TEST(SliceAxisTest, Gradient) {
  NodePtr node = MakeNode("slice_axis", {{"axis", "0"}, {"begin", "1"}, {"end", "None"}}, 1);
  ASSERT_NE(node, nullptr);
  std::vector<NodeEntry> grads = node->op()->gradient()(node, {Grad()});
  ASSERT_EQ(grads.size(), 1u);
  EXPECT_EQ(grads[0].node->op()->name(), "_backward_slice_axis");
  EXPECT_EQ(grads[0].node->num_outputs(), 1);
  EXPECT_EQ(grads[0].node->attrs.dict.at("end"), "None");
}

// ------------------------------------------------------------------------------ softmax

TEST(SoftmaxTest, ShapesAndTypes) {
  for (const std::string op : {"softmax", "log_softmax"}) {
    SCOPED_TRACE(op);
    EXPECT_EQ(Out0(op, {}, {Shape{2, 3}}), (Shape{2, 3}));
    EXPECT_EQ(Out0(op, {{"axis", "0"}, {"temperature", "2.0"}}, {Shape{2, 3}}), (Shape{2, 3}));
    ShapeResult r = Infer(op, {}, {Shape()}, {Shape{4, U}});
    EXPECT_EQ(r.in[0], (Shape{4, U}));
    EXPECT_CONTAINS(InferError(op, {{"axis", "2"}}, {Shape{2, 3}}), "axis 2");
    EXPECT_CONTAINS(InferError(op, {}, {Shape{2, 3}}, {Shape{2, 4}}), "inconsistent");

    absl::StatusOr<testing::TypeResult> t =
        InferOpType(op, {{"dtype", "float32"}}, {DType::kFloat16});
    ASSERT_TRUE(t.ok()) << t.status();
    EXPECT_EQ(t->out[0], DType::kFloat32);
    EXPECT_EQ(t->in[0], DType::kFloat16);
    t = InferOpType(op, {{"dtype", "None"}}, {DType::kFloat16});
    ASSERT_TRUE(t.ok()) << t.status();
    EXPECT_EQ(t->out[0], DType::kFloat16);
    t = InferOpType(op, {}, {DType::kUnknown}, {DType::kFloat64});
    ASSERT_TRUE(t.ok()) << t.status();
    EXPECT_EQ(t->in[0], DType::kFloat64);

    EXPECT_EQ(Inplace(op, {}), (std::vector<std::pair<int, int>>{{0, 0}}));
    EXPECT_TRUE(Inplace(op, {{"dtype", "float64"}}).empty());
  }
}

TEST(SoftmaxTest, BadAttributes) {
  EXPECT_CONTAINS(ParseError("softmax", {{"dtype", "int32"}}), "'dtype'");
  EXPECT_CONTAINS(ParseError("softmax", {{"dtype", "float33"}}), "'dtype'");
  EXPECT_CONTAINS(ParseError("softmax", {{"use_length", "True"}}), "'use_length'");
  EXPECT_CONTAINS(ParseError("softmax", {{"temperature", "0"}}), "'temperature'");
  EXPECT_CONTAINS(ParseError("log_softmax", {{"axis", "1.5"}}), "'axis'");
  EXPECT_CONTAINS(ParseError("log_softmax", {{"dim", "1"}}), "'dim'");
  EXPECT_TRUE(ParseAttrs("softmax", {{"use_length", "False"}, {"temperature", "None"}}).ok());
}

TEST(SoftmaxTest, Gradient) {
  for (const std::string op : {"softmax", "log_softmax"}) {
    NodePtr node = MakeNode(op, {{"axis", "1"}}, 1);
    ASSERT_NE(node, nullptr);
    NodeEntry g = Grad();
    std::vector<NodeEntry> grads = node->op()->gradient()(node, {g});
    ASSERT_EQ(grads.size(), 1u);
    EXPECT_EQ(grads[0].node->op()->name(), "_backward_" + op);
    EXPECT_EQ(grads[0].node->inputs, (std::vector<NodeEntry>{g, Out(node)}));
    EXPECT_EQ(grads[0].node->num_outputs(), 1);
    EXPECT_EQ(node->op()->gradient()(node, {NodeEntry{}})[0].node, nullptr);
  }
}

// ------------------------------------------------------------------------------ loss heads

TEST(SoftmaxOutputTest, LabelShapes) {
  ShapeResult r = Infer("SoftmaxOutput", {}, {Shape{4, 10}, Shape()});
  EXPECT_EQ(r.in[1], (Shape{4}));
  EXPECT_EQ(r.out[0], (Shape{4, 10}));
  // multi_output: MXNet infers the label flattened, (N, H*W) (an FCN-8s
  // segmentation file binds its label that way), and accepts (N, H, W).
  r = Infer("Softmax", {{"multi_output", "True"}}, {Shape{4, 10, 5, 6}, Shape()});
  EXPECT_EQ(r.in[1], (Shape{4, 30}));
  r = Infer("SoftmaxOutput", {{"multi_output", "True"}}, {Shape{4, 10, 5, 6}, Shape{4, 5, 6}});
  EXPECT_EQ(r.in[1], (Shape{4, 5, 6}));
  r = Infer("SoftmaxOutput", {{"multi_output", "True"}}, {Shape{4, 10, 5, 6}, Shape{4, 30}});
  EXPECT_EQ(r.in[1], (Shape{4, 30}));
  r = Infer("SoftmaxOutput", {{"multi_output", "True"}}, {Shape{4, 10, 5, 6}, Shape{4, 1, 5, 6}});
  EXPECT_EQ(r.in[1], (Shape{4, 1, 5, 6}));
  r = Infer("SoftmaxOutput", {{"preserve_shape", "True"}}, {Shape{2, 3, 10}, Shape()});
  EXPECT_EQ(r.in[1], (Shape{2, 3}));
  // A label shaped like data (probabilities).
  r = Infer("SoftmaxOutput", {}, {Shape{4, 10}, Shape{4, 10}});
  EXPECT_EQ(r.in[1], (Shape{4, 10}));
  // Partial: the batch dim flows into the label and the output into data.
  r = Infer("SoftmaxOutput", {}, {Shape{U, 10}, Shape{8}});
  EXPECT_EQ(r.in[0], (Shape{8, 10}));
  r = Infer("SoftmaxOutput", {}, {Shape(), Shape()}, {Shape{3, 7}});
  EXPECT_EQ(r.in[0], (Shape{3, 7}));
  EXPECT_EQ(r.in[1], (Shape{3}));
}

TEST(SoftmaxOutputTest, Errors) {
  std::string msg = InferError("SoftmaxOutput", {}, {Shape{4, 10}, Shape{5}});
  EXPECT_CONTAINS(msg, "input label");
  EXPECT_CONTAINS(msg, "[5]");
  EXPECT_CONTAINS(InferError("SoftmaxOutput", {}, {Shape{4}, Shape()}), "input data");
  EXPECT_CONTAINS(InferError("SoftmaxOutput", {}, {Shape{4, 10}, Shape()}, {Shape{4, 11}}),
                  "Shape inconsistent for output");
  EXPECT_CONTAINS(ParseError("SoftmaxOutput", {{"normalization", "sum"}}), "'normalization'");
  EXPECT_CONTAINS(ParseError("SoftmaxOutput", {{"out_grad", "True"}}), "'out_grad'");
  EXPECT_CONTAINS(ParseError("SoftmaxOutput", {{"grad_scale", "x"}}), "'grad_scale'");
  EXPECT_CONTAINS(ParseError("SoftmaxOutput", {{"smooth_alpha", "2"}}), "'smooth_alpha'");
  EXPECT_CONTAINS(ParseError("SoftmaxOutput", {{"num_hidden", "2"}}), "'num_hidden'");
  EXPECT_TRUE(ParseAttrs("SoftmaxOutput", {{"grad_scale", "0.5"},
                                           {"ignore_label", "0"},
                                           {"use_ignore", "True"},
                                           {"normalization", "valid"},
                                           {"smooth_alpha", "0.1"}})
                  .ok());
}

TEST(RegressionOutputTest, Shapes) {
  for (const std::string op :
       {"LinearRegressionOutput", "LogisticRegressionOutput", "MAERegressionOutput"}) {
    SCOPED_TRACE(op);
    ShapeResult r = Infer(op, {}, {Shape{4, 1}, Shape()});
    EXPECT_EQ(r.in[1], (Shape{4}));
    r = Infer(op, {}, {Shape{4, 3}, Shape()});
    EXPECT_EQ(r.in[1], (Shape{4, 3}));
    EXPECT_EQ(r.out[0], (Shape{4, 3}));
    r = Infer(op, {}, {Shape{4, 1}, Shape{4, 1}});
    EXPECT_EQ(r.in[1], (Shape{4, 1}));
    // MXNet accepts any label with data's first dim and size.
    r = Infer(op, {}, {Shape{4, 6}, Shape{4, 2, 3}});
    EXPECT_EQ(r.in[1], (Shape{4, 2, 3}));
    r = Infer(op, {}, {Shape{U, 6}, Shape{4, 2, 3}});
    EXPECT_EQ(r.in[0], (Shape{4, 6}));
    EXPECT_EQ(r.out[0], (Shape{4, 6}));
    // (N, ?) data leaves the label open: it may still be (N,) or (N, ?).
    r = Infer(op, {}, {Shape{4, U}, Shape()});
    EXPECT_EQ(r.in[1], Shape());
    r = Infer(op, {{"grad_scale", "2"}}, {Shape(), Shape()}, {Shape{5, 2}});
    EXPECT_EQ(r.in[0], (Shape{5, 2}));
    EXPECT_EQ(r.in[1], (Shape{5, 2}));

    EXPECT_CONTAINS(InferError(op, {}, {Shape{4, 6}, Shape{5, 6}}), "input label");
    EXPECT_CONTAINS(InferError(op, {}, {Shape{4, 6}, Shape{4, 5}}), "input label");
    EXPECT_CONTAINS(InferError(op, {}, {Shape(std::vector<int64_t>{}), Shape()}), "input data");
    EXPECT_CONTAINS(ParseError(op, {{"grad_scale", "one"}}), "'grad_scale'");
    EXPECT_CONTAINS(ParseError(op, {{"ignore_label", "1"}}), "'ignore_label'");
    EXPECT_EQ(Inplace(op, {}), (std::vector<std::pair<int, int>>{{0, 0}}));
  }
}

TEST(LossTest, Gradients) {
  for (const std::string op : {"SoftmaxOutput", "LinearRegressionOutput",
                               "LogisticRegressionOutput", "MAERegressionOutput"}) {
    SCOPED_TRACE(op);
    NodePtr node = MakeNode(op, {{"grad_scale", "2"}}, 2);
    ASSERT_NE(node, nullptr);
    EXPECT_TRUE(node->op()->is_loss());
    // Loss heads ignore output gradients, present or not.
    std::vector<NodeEntry> grads = node->op()->gradient()(node, {NodeEntry{}});
    ASSERT_EQ(grads.size(), 2u);
    const NodePtr& b = grads[0].node;
    EXPECT_EQ(b->op()->name(), "_backward_" + op);
    EXPECT_EQ(b->num_outputs(), 2);
    EXPECT_EQ(b->inputs, (std::vector<NodeEntry>{Out(node), node->inputs[1]}));
    EXPECT_EQ(b->control_deps, (std::vector<NodePtr>{node}));
    EXPECT_EQ(b->attrs.dict.at("grad_scale"), "2");
    EXPECT_EQ(grads[1].node, b);
    EXPECT_EQ(grads[1].index, 1u);
  }
}

TEST(MakeLossTest, ShapesAndGradient) {
  EXPECT_EQ(Out0("MakeLoss", {}, {Shape{3, 4}}), (Shape{3, 4}));
  ShapeResult r = Infer("make_loss", {}, {Shape()}, {Shape{3, 4}});
  EXPECT_EQ(r.in[0], (Shape{3, 4}));
  EXPECT_CONTAINS(InferError("MakeLoss", {}, {Shape{3, 4}}, {Shape{3}}), "inconsistent");
  EXPECT_CONTAINS(ParseError("MakeLoss", {{"normalization", "mean"}}), "'normalization'");
  EXPECT_CONTAINS(ParseError("MakeLoss", {{"valid_thresh", "[1]"}}), "'valid_thresh'");
  EXPECT_TRUE(
      ParseAttrs("MakeLoss",
                 {{"grad_scale", "0.1"}, {"valid_thresh", "0.5"}, {"normalization", "batch"}})
          .ok());
  EXPECT_EQ(Inplace("MakeLoss", {}), (std::vector<std::pair<int, int>>{{0, 0}}));

  NodePtr node = MakeNode("MakeLoss", {{"grad_scale", "0.5"}}, 1);
  ASSERT_NE(node, nullptr);
  EXPECT_TRUE(node->op()->is_loss());
  std::vector<NodeEntry> grads = node->op()->gradient()(node, {Grad()});
  ASSERT_EQ(grads.size(), 1u);
  EXPECT_EQ(grads[0].node->op()->name(), "_backward_MakeLoss");
  EXPECT_TRUE(grads[0].node->inputs.empty());
  EXPECT_EQ(grads[0].node->num_outputs(), 1);
  EXPECT_EQ(grads[0].node->control_deps, (std::vector<NodePtr>{node}));
}

TEST(ShapeFamilyTest, RegistrationsAndAliases) {
  OpRegistry& reg = OpRegistry::Global();
  const std::vector<std::pair<std::string, std::string>> aliases = {
      {"flatten", "Flatten"},    {"reshape", "Reshape"},       {"concat", "Concat"},
      {"split", "SliceChannel"}, {"Softmax", "SoftmaxOutput"}, {"make_loss", "MakeLoss"}};
  for (const auto& [alias, name] : aliases) {
    ASSERT_NE(reg.Find(alias), nullptr) << alias;
    EXPECT_EQ(reg.Find(alias)->name(), name);
  }
  for (const char* name :
       {"_backward_reshape", "_backward_Concat", "_backward_SliceChannel", "_backward_slice_axis",
        "_backward_softmax", "_backward_log_softmax", "_backward_SoftmaxOutput",
        "_backward_LinearRegressionOutput", "_backward_LogisticRegressionOutput",
        "_backward_MAERegressionOutput", "_backward_MakeLoss"}) {
    const Op* op = reg.Find(name);
    ASSERT_NE(op, nullptr) << name;
    EXPECT_TRUE(op->is_backward()) << name;
    EXPECT_TRUE(op->non_differentiable()) << name;
  }
  for (const char* name :
       {"Flatten", "Reshape", "expand_dims", "squeeze", "transpose", "Concat", "SliceChannel",
        "slice_axis", "softmax", "log_softmax", "SoftmaxOutput", "LinearRegressionOutput",
        "LogisticRegressionOutput", "MAERegressionOutput", "MakeLoss"}) {
    const Op* op = reg.Find(name);
    ASSERT_NE(op, nullptr) << name;
    EXPECT_TRUE(op->gradient() != nullptr) << name;
    EXPECT_TRUE(op->infer_shape() != nullptr) << name;
  }
}

}  // namespace
}  // namespace symx
