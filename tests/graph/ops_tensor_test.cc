// Schema tests of the tensor ops: slice (crop), slice_like, SwapAxis (swapaxes), tile, repeat,
// reverse (flip), Pad (pad), stack, diag, and the creation ops _zeros, _ones, _full, _arange.
// Parameter errors name the key and value; shape errors name the op and the shapes. Expected
// shapes and which cases MXNet 1.9.1 accepts or rejects were checked against MXNet.
#include <string>
#include <vector>

#include "graph/op.h"
#include "graph/ops/op_helpers.h"
#include "gtest/gtest.h"
#include "tests/expect_contains.h"
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
using ::symx::testing::ParseError;
using ::symx::testing::ShapeResult;

constexpr int64_t U = kUnknownDim;

Shape Out0(const std::string& op, const AttrMap& attrs, std::vector<Shape> in,
           std::vector<Shape> out = {}) {
  ShapeResult r = Infer(op, attrs, std::move(in), std::move(out));
  return r.out.empty() ? Shape() : r.out[0];
}

Shape In0(const std::string& op, const AttrMap& attrs, std::vector<Shape> in,
          std::vector<Shape> out) {
  ShapeResult r = Infer(op, attrs, std::move(in), std::move(out));
  return r.in.empty() ? Shape() : r.in[0];
}

// The gradient of `op` is a `bwd` node with `num_grads` outputs fed by the head gradient.
void ExpectBackwardOf(const std::string& op, const AttrMap& attrs, int num_inputs,
                      const std::string& bwd, int num_grads) {
  GradCase c = Differentiate(op, attrs, num_inputs);
  ASSERT_TRUE(c.node) << op;
  ExpectBackward(c, bwd, num_grads, {Out(c.head)});
}

TEST(TensorOpsTest, Aliases) {
  const OpRegistry& reg = OpRegistry::Global();
  ASSERT_NE(reg.Find("crop"), nullptr);
  EXPECT_EQ(reg.Find("crop")->name(), "slice");
  EXPECT_EQ(reg.Find("swapaxes")->name(), "SwapAxis");
  EXPECT_EQ(reg.Find("flip")->name(), "reverse");
  EXPECT_EQ(reg.Find("pad")->name(), "Pad");
  for (const char* op :
       {"slice_like", "tile", "repeat", "stack", "diag", "_zeros", "_ones", "_full", "_arange",
        "_backward_slice", "_backward_slice_like", "_backward_tile", "_backward_repeat",
        "_backward_Pad", "_backward_stack", "_backward_diag"}) {
    EXPECT_NE(reg.Find(op), nullptr) << op;
  }
  // MXNet's capitalised Crop is a different op; crop must not resolve to it.
  const Op* crop = reg.Find("Crop");
  if (crop != nullptr) {
    EXPECT_NE(crop->name(), "slice");
  }
}

// ----------------------------------------------------------------------------- slice

TEST(TensorOpsTest, SliceShapes) {
  const Shape s{3, 5};
  EXPECT_EQ(Out0("slice", {{"begin", "(None, 3)"}, {"end", "(2, None)"}, {"step", "(1, -1)"}}, {s}),
            (Shape{2, 4}));
  EXPECT_EQ(Out0("slice", {{"begin", "(1,)"}, {"end", "(3,)"}}, {s}), (Shape{2, 5}));
  EXPECT_EQ(Out0("crop", {{"begin", "[-7]"}, {"end", "[None]"}}, {s}), (Shape{3, 5}));
  EXPECT_EQ(Out0("slice", {{"begin", "(3,)"}, {"end", "(1,)"}}, {s}), (Shape{0, 5}));
  EXPECT_EQ(Out0("slice", {{"begin", "(7,)"}, {"end", "(None,)"}, {"step", "(-1,)"}}, {s}),
            (Shape{3, 5}));
  EXPECT_EQ(
      Out0("slice", {{"begin", "(None, None)"}, {"end", "(None, None)"}, {"step", "(2, -2)"}}, {s}),
      (Shape{2, 3}));
  EXPECT_EQ(Out0("slice", {{"begin", "()"}, {"end", "()"}}, {Shape{2, 3}}), (Shape{2, 3}));
  EXPECT_EQ(Out0("slice", {{"begin", "(0, 1)"}, {"end", "(10, 3)"}}, {Shape{4, 6, 7}}),
            (Shape{4, 2, 7}));
  // Unknown dims stay unknown; the output gives back the ndim and the unsliced dims.
  EXPECT_EQ(Out0("slice", {{"begin", "(0, 1)"}, {"end", "(2, 3)"}}, {Shape{U, 4}}), (Shape{U, 2}));
  EXPECT_EQ(In0("slice", {{"begin", "(0,)"}, {"end", "(2,)"}}, {Shape()}, {Shape{2, 7}}),
            (Shape{U, 7}));
}

TEST(TensorOpsTest, SliceErrors) {
  EXPECT_CONTAINS(ParseError("slice", {{"begin", "(0, 1)"}, {"end", "(1,)"}}),
                  "begin and end must have the same length");
  EXPECT_CONTAINS(ParseError("slice", {{"begin", "(0, 1)"}, {"end", "(1, 2)"}, {"step", "(1,)"}}),
                  "'step'");
  EXPECT_CONTAINS(ParseError("slice", {{"begin", "(0,)"}, {"end", "(2,)"}, {"step", "(0,)"}}),
                  "step[0] cannot be 0");
  EXPECT_CONTAINS(ParseError("slice", {{"begin", "(a,)"}, {"end", "(2,)"}}), "'begin'");
  EXPECT_CONTAINS(ParseError("slice", {{"end", "(2,)"}}), "begin");
  EXPECT_CONTAINS(ParseError("slice", {{"begin", "(0,)"}, {"end", "(2,)"}, {"axis", "1"}}), "axis");
  const std::string e =
      InferError("slice", {{"begin", "(0, 1, 0)"}, {"end", "(2, 3, 1)"}}, {Shape{3, 4}});
  EXPECT_CONTAINS(e, "slice");
  EXPECT_CONTAINS(e, "[3,4]");
  EXPECT_CONTAINS(e, "3 entries");
}

TEST(TensorOpsTest, SliceGradient) {
  GradCase c = Differentiate("slice", {{"begin", "(0,)"}, {"end", "(1,)"}}, 1);
  ExpectBackward(c, "_backward_slice", 1, {Out(c.head)});
}

// ----------------------------------------------------------------------------- slice_like

TEST(TensorOpsTest, SliceLike) {
  EXPECT_EQ(InputNames("slice_like", {}), (std::vector<std::string>{"data", "shape_like"}));
  EXPECT_EQ(Out0("slice_like", {}, {Shape{3, 4}, Shape{2, 3}}), (Shape{2, 3}));
  EXPECT_EQ(Out0("slice_like", {{"axes", "(-1,)"}}, {Shape{3, 4}, Shape{2, 3}}), (Shape{3, 3}));
  EXPECT_EQ(Out0("slice_like", {{"axes", "(0,)"}}, {Shape{3, 4}, Shape{2}}), (Shape{2, 4}));
  EXPECT_EQ(Out0("slice_like", {{"axes", "(0,)"}}, {Shape{3, 4}, Shape()}), (Shape{U, 4}));
  std::string e = InferError("slice_like", {}, {Shape{3, 4}, Shape{2, 3, 1}});
  EXPECT_CONTAINS(e, "slice_like");
  EXPECT_CONTAINS(e, "[2,3,1]");
  e = InferError("slice_like", {}, {Shape{3, 4}, Shape{4, 3}});
  EXPECT_CONTAINS(e, "larger");
  EXPECT_CONTAINS(e, "[4,3]");
  e = InferError("slice_like", {{"axes", "(2,)"}}, {Shape{3, 4}, Shape{2, 3}});
  EXPECT_CONTAINS(e, "axis 2");
  e = InferError("slice_like", {{"axes", "(0, 2)"}}, {Shape{3, 4, 5}, Shape{2, 3}});
  EXPECT_CONTAINS(e, "shape_like [2,3]");
  // shape_like only lends its shape: its dtype may differ (MXNet accepts int32 with float32).
  auto t = InferOpType("slice_like", {}, {DType::kFloat32, DType::kInt32});
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->in[1], DType::kInt32);
  EXPECT_EQ(t->out[0], DType::kFloat32);
  GradCase c = Differentiate("slice_like", {}, 2);
  ASSERT_EQ(c.grads.size(), 2u);
  ASSERT_TRUE(c.grads[0].node);
  EXPECT_EQ(c.grads[0].node->op()->name(), "_backward_slice_like");
  EXPECT_FALSE(c.grads[1].node) << "shape_like's gradient is zero";
}

// ----------------------------------------------------------------------------- SwapAxis

TEST(TensorOpsTest, SwapAxis) {
  EXPECT_EQ(Out0("SwapAxis", {{"dim1", "0"}, {"dim2", "2"}}, {Shape{3, 4, 5}}), (Shape{5, 4, 3}));
  EXPECT_EQ(Out0("swapaxes", {{"dim1", "-1"}, {"dim2", "0"}}, {Shape{3, 4, 5}}), (Shape{5, 4, 3}));
  EXPECT_EQ(Out0("SwapAxis", {}, {Shape{3, 4}}), (Shape{3, 4}));
  EXPECT_EQ(In0("SwapAxis", {{"dim1", "1"}, {"dim2", "0"}}, {Shape()}, {Shape{2, 7}}),
            (Shape{7, 2}));
  std::string e = InferError("SwapAxis", {{"dim1", "3"}}, {Shape{3, 4, 5}});
  EXPECT_CONTAINS(e, "SwapAxis: dim1 3");
  e = InferError("SwapAxis", {{"dim2", "-4"}}, {Shape{3, 4, 5}});
  EXPECT_CONTAINS(e, "dim2 -4");
  EXPECT_CONTAINS(ParseError("SwapAxis", {{"dim1", "x"}}), "'dim1'");
  GradCase c = Differentiate("SwapAxis", {{"dim1", "0"}, {"dim2", "1"}}, 1);
  ASSERT_TRUE(c.grads[0].node);
  EXPECT_EQ(c.grads[0].node->op()->name(), "SwapAxis");
  EXPECT_EQ(c.grads[0].node->attrs.dict.at("dim2"), "1");
}

// ----------------------------------------------------------------------------- tile, repeat

TEST(TensorOpsTest, Tile) {
  EXPECT_EQ(Out0("tile", {{"reps", "(2,)"}}, {Shape{3, 4}}), (Shape{3, 8}));
  EXPECT_EQ(Out0("tile", {{"reps", "(2, 1, 3)"}}, {Shape{3, 4}}), (Shape{2, 3, 12}));
  EXPECT_EQ(Out0("tile", {{"reps", "(2, 0)"}}, {Shape{3, 4}}), (Shape{6, 0}));
  EXPECT_EQ(Out0("tile", {{"reps", "()"}}, {Shape{3, 4}}), (Shape{3, 4}));
  EXPECT_EQ(Out0("tile", {{"reps", "(2, 2)"}}, {Shape{U, 4}}), (Shape{U, 8}));
  EXPECT_EQ(In0("tile", {{"reps", "(2, 3)"}}, {Shape{U, U}}, {Shape{4, 9}}), (Shape{2, 3}));
  EXPECT_CONTAINS(ParseError("tile", {{"reps", "(-1,)"}}), "'reps'");
  EXPECT_CONTAINS(ParseError("tile", {}), "reps");
  EXPECT_CONTAINS(InferError("tile", {{"reps", "(2,)"}}, {Shape{3, U}}, {Shape{3, 7}}),
                  "not a tiling");
  ExpectBackwardOf("tile", {{"reps", "(2,)"}}, 1, "_backward_tile", 1);
}

TEST(TensorOpsTest, Repeat) {
  EXPECT_EQ(Out0("repeat", {{"repeats", "2"}}, {Shape{3, 4}}), (Shape{24}));
  EXPECT_EQ(Out0("repeat", {{"repeats", "2"}, {"axis", "-1"}}, {Shape{3, 4}}), (Shape{3, 8}));
  EXPECT_EQ(Out0("repeat", {{"repeats", "0"}, {"axis", "1"}}, {Shape{3, 4}}), (Shape{3, 0}));
  EXPECT_EQ(Out0("repeat", {{"repeats", "2"}, {"axis", "None"}}, {Shape{3, U}}), (Shape{U}));
  EXPECT_EQ(In0("repeat", {{"repeats", "3"}, {"axis", "0"}}, {Shape()}, {Shape{6, 2}}),
            (Shape{2, 2}));
  EXPECT_CONTAINS(ParseError("repeat", {{"repeats", "-1"}}), "negative");
  EXPECT_CONTAINS(InferError("repeat", {{"repeats", "2"}, {"axis", "2"}}, {Shape{3, 4}}),
                  "repeat: axis 2");
  ExpectBackwardOf("repeat", {{"repeats", "2"}}, 1, "_backward_repeat", 1);
}

// ----------------------------------------------------------------------------- reverse

TEST(TensorOpsTest, Reverse) {
  EXPECT_EQ(Out0("reverse", {{"axis", "(0, 1)"}}, {Shape{3, 4}}), (Shape{3, 4}));
  EXPECT_EQ(Out0("flip", {{"axis", "(1, 1)"}}, {Shape{3, 4}}), (Shape{3, 4}));
  EXPECT_CONTAINS(ParseError("reverse", {{"axis", "(-1,)"}}), "negative");
  EXPECT_CONTAINS(ParseError("reverse", {}), "axis");
  const std::string e = InferError("reverse", {{"axis", "(2,)"}}, {Shape{3, 4}});
  EXPECT_CONTAINS(e, "reverse: axis 2");
  EXPECT_CONTAINS(e, "[3,4]");
  GradCase c = Differentiate("reverse", {{"axis", "(0,)"}}, 1);
  ASSERT_TRUE(c.grads[0].node);
  EXPECT_EQ(c.grads[0].node->op()->name(), "reverse");
}

// ----------------------------------------------------------------------------- Pad

TEST(TensorOpsTest, Pad) {
  const AttrMap c4 = {{"mode", "constant"}, {"pad_width", "(0, 0, 0, 0, 1, 2, 3, 4)"}};
  EXPECT_EQ(Out0("Pad", c4, {Shape{2, 3, 4, 5}}), (Shape{2, 3, 7, 12}));
  EXPECT_EQ(Out0("pad", {{"mode", "edge"}, {"pad_width", "(0,0,0,0,1,1,2,2,3,3)"}},
                 {Shape{2, 3, 4, 5, 6}}),
            (Shape{2, 3, 6, 9, 12}));
  EXPECT_EQ(
      Out0("Pad", {{"mode", "reflect"}, {"pad_width", "(0,0,0,0,3,3,0,0)"}}, {Shape{2, 3, 4, 5}}),
      (Shape{2, 3, 10, 5}));
  EXPECT_EQ(In0("Pad", c4, {Shape()}, {Shape{2, 3, 7, 12}}), (Shape{2, 3, 4, 5}));

  std::string e =
      InferError("Pad", {{"mode", "constant"}, {"pad_width", "(0,0,0,0,1,2)"}}, {Shape{2, 3, 4}});
  EXPECT_CONTAINS(e, "4-D or 5-D");
  EXPECT_CONTAINS(e, "[2,3,4]");
  e = InferError("Pad", {{"mode", "constant"}, {"pad_width", "(1,0,0,0,1,2,3,4)"}},
                 {Shape{2, 3, 4, 5}});
  EXPECT_CONTAINS(e, "first two axes");
  e = InferError("Pad", {{"mode", "constant"}, {"pad_width", "(0,0,0,0,1,2)"}},
                 {Shape{2, 3, 4, 5}});
  EXPECT_CONTAINS(e, "needs 8");
  e = InferError("Pad", {{"mode", "reflect"}, {"pad_width", "(0,0,0,0,4,1,0,0)"}},
                 {Shape{2, 3, 4, 5}});
  EXPECT_CONTAINS(e, "reflect");
  EXPECT_CONTAINS(e, "axis 2");
  EXPECT_CONTAINS(ParseError("Pad", {{"mode", "wrap"}, {"pad_width", "(0,0,0,0,1,1,1,1)"}}),
                  "'mode'");
  EXPECT_CONTAINS(ParseError("Pad", {{"pad_width", "(0,0,0,0,1,1,1,1)"}}), "mode");
  EXPECT_CONTAINS(ParseError("Pad", {{"mode", "edge"}, {"pad_width", "(0,0,0,0,-1,1,1,1)"}}),
                  "'pad_width'");
  ExpectBackwardOf("Pad", c4, 1, "_backward_Pad", 1);
}

// ----------------------------------------------------------------------------- stack

TEST(TensorOpsTest, Stack) {
  EXPECT_EQ(InputNames("stack", {{"num_args", "3"}}),
            (std::vector<std::string>{"arg0", "arg1", "arg2"}));
  EXPECT_EQ(Out0("stack", {{"num_args", "2"}, {"axis", "-1"}}, {Shape{2, 3}, Shape{2, 3}}),
            (Shape{2, 3, 2}));
  EXPECT_EQ(Out0("stack", {{"num_args", "2"}}, {Shape{2, 3}, Shape{2, 3}}), (Shape{2, 2, 3}));
  EXPECT_EQ(Out0("stack", {{"num_args", "2"}, {"axis", "2"}}, {Shape{2, 3}, Shape{2, 3}}),
            (Shape{2, 3, 2}));
  // Partial shapes merge across inputs (as MXNet: (2,0) and (0,3) give (2,2,3)).
  ShapeResult r = Infer("stack", {{"num_args", "2"}}, {Shape{2, U}, Shape{U, 3}});
  ASSERT_EQ(r.in.size(), 2u);
  EXPECT_EQ(r.in[0], (Shape{2, 3}));
  EXPECT_EQ(r.out[0], (Shape{2, 2, 3}));
  EXPECT_EQ(In0("stack", {{"num_args", "2"}, {"axis", "1"}}, {Shape(), Shape()}, {Shape{4, 2, 5}}),
            (Shape{4, 5}));
  std::string e =
      InferError("stack", {{"num_args", "2"}, {"axis", "3"}}, {Shape{2, 3}, Shape{2, 3}});
  EXPECT_CONTAINS(e, "stack: axis 3");
  e = InferError("stack", {{"num_args", "2"}}, {Shape{2, 3}, Shape{2, 4}});
  EXPECT_CONTAINS(e, "[2,4]");
  EXPECT_CONTAINS(ParseError("stack", {{"num_args", "0"}}), "'num_args'");
  ExpectBackwardOf("stack", {{"num_args", "2"}}, 2, "_backward_stack", 2);
}

// ----------------------------------------------------------------------------- diag

TEST(TensorOpsTest, Diag) {
  EXPECT_EQ(Out0("diag", {{"k", "1"}}, {Shape{3}}), (Shape{4, 4}));
  EXPECT_EQ(Out0("diag", {{"k", "-2"}}, {Shape{3}}), (Shape{5, 5}));
  EXPECT_EQ(Out0("diag", {{"k", "1"}}, {Shape{3, 4}}), (Shape{3}));
  EXPECT_EQ(Out0("diag", {{"k", "4"}}, {Shape{3, 4}}), (Shape{0}));
  EXPECT_EQ(Out0("diag", {{"k", "-3"}}, {Shape{3, 4}}), (Shape{0}));
  EXPECT_EQ(Out0("diag", {{"k", "-1"}, {"axis1", "0"}, {"axis2", "2"}}, {Shape{3, 4, 5}}),
            (Shape{4, 2}));
  EXPECT_EQ(Out0("diag", {{"axis1", "-1"}, {"axis2", "0"}}, {Shape{3, 4, 5}}), (Shape{4, 3}));
  EXPECT_EQ(In0("diag", {{"k", "1"}}, {Shape{U}}, {Shape{4, 4}}), (Shape{3}));
  std::string e = InferError("diag", {{"k", "5"}}, {Shape{3, 4}});
  EXPECT_CONTAINS(e, "does not exist");
  EXPECT_CONTAINS(e, "[3,4]");
  EXPECT_CONTAINS(InferError("diag", {{"k", "-4"}}, {Shape{3, 4}}), "k=-4");
  EXPECT_CONTAINS(InferError("diag", {{"axis1", "1"}, {"axis2", "1"}}, {Shape{3, 4, 5}}),
                  "same axis 1");
  EXPECT_CONTAINS(InferError("diag", {{"axis2", "3"}}, {Shape{3, 4, 5}}), "axis2 3");
  EXPECT_CONTAINS(InferError("diag", {}, {Shape(std::vector<int64_t>{})}), "at least 1 dim");
  ExpectBackwardOf("diag", {}, 1, "_backward_diag", 1);
}

// ----------------------------------------------------------------------------- creation

TEST(TensorOpsTest, CreationShapes) {
  EXPECT_EQ(InputNames("_zeros", {}), std::vector<std::string>{});
  EXPECT_EQ(Out0("_zeros", {{"shape", "(2, 3)"}}, {}), (Shape{2, 3}));
  EXPECT_EQ(Out0("_ones", {{"shape", "(2, 3)"}, {"ctx", "cpu(0)"}}, {}), (Shape{2, 3}));
  // Legacy shapes: 0 is a dim to infer, () an unknown shape; the use fills them in.
  EXPECT_EQ(Out0("_zeros", {{"shape", "(2, 0)"}}, {}), (Shape{2, U}));
  EXPECT_EQ(Out0("_zeros", {{"shape", "()"}}, {}), Shape());
  EXPECT_EQ(Out0("_zeros", {{"shape", "(0, 3)"}}, {}, {Shape{4, 3}}), (Shape{4, 3}));
  EXPECT_EQ(Out0("_full", {{"value", "2"}}, {}, {Shape{5}}), (Shape{5}));
  EXPECT_CONTAINS(InferError("_ones", {{"shape", "(2, 3)"}}, {}, {Shape{2, 4}}), "[2,4]");
  EXPECT_EQ(Out0("_arange", {{"start", "1"}, {"stop", "7"}, {"step", "2"}, {"repeat", "2"}}, {}),
            (Shape{6}));
  EXPECT_EQ(Out0("_arange", {{"start", "7"}, {"stop", "1"}, {"step", "-2"}}, {}), (Shape{3}));
  EXPECT_EQ(Out0("_arange", {{"start", "0"}, {"stop", "1"}, {"step", "0.3"}}, {}), (Shape{4}));
  EXPECT_EQ(Out0("_arange", {{"start", "5"}}, {}), (Shape{5}));
  EXPECT_EQ(Out0("_arange", {{"start", "0"}, {"infer_range", "True"}}, {}), (Shape{U}));
  EXPECT_EQ(
      Out0("_arange", {{"start", "0"}, {"infer_range", "True"}, {"repeat", "2"}}, {}, {Shape{6}}),
      (Shape{6}));
  EXPECT_CONTAINS(InferError("_arange", {{"start", "0"}, {"infer_range", "True"}, {"repeat", "2"}},
                             {}, {Shape{5}}),
                  "multiple of repeat");
}

TEST(TensorOpsTest, CreationTypesAndErrors) {
  auto t = InferOpType("_zeros", {{"shape", "(2,)"}, {"dtype", "int32"}}, {});
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->out[0], DType::kInt32);
  t = InferOpType("_full", {{"shape", "(2,)"}, {"value", "1"}}, {});
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->out[0], DType::kFloat32);
  t = InferOpType("_ones", {{"shape", "(2,)"}, {"dtype", "bool"}}, {});
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->out[0], DType::kBool);
  t = InferOpType("_arange", {{"start", "3"}, {"dtype", "int64"}}, {});
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->out[0], DType::kInt64);

  EXPECT_CONTAINS(ParseError("_zeros", {{"shape", "(2,)"}, {"dtype", "int16"}}), "'dtype'");
  EXPECT_CONTAINS(ParseError("_arange", {{"start", "0"}, {"stop", "2"}, {"dtype", "bool"}}),
                  "'dtype'");
  EXPECT_CONTAINS(ParseError("_zeros", {{"shape", "(2, -3)"}}), "'shape'");
  EXPECT_CONTAINS(ParseError("_zeros", {{"shape", "(2,)"}, {"value", "1"}}), "value");
  EXPECT_CONTAINS(ParseError("_full", {{"shape", "(2,)"}}), "value");
  EXPECT_CONTAINS(ParseError("_arange", {{"stop", "3"}}), "start");
  EXPECT_CONTAINS(ParseError("_arange", {{"start", "1"}, {"stop", "3"}, {"step", "0"}}), "step=0");
  EXPECT_CONTAINS(ParseError("_arange", {{"start", "7"}, {"stop", "1"}, {"step", "2"}}),
                  "invalid range");
  EXPECT_CONTAINS(ParseError("_arange", {{"start", "1"}, {"stop", "3"}, {"step", "-1"}}),
                  "invalid range");
  EXPECT_CONTAINS(ParseError("_arange", {{"start", "1"}, {"stop", "1"}}), "invalid range");
  EXPECT_CONTAINS(ParseError("_arange", {{"start", "0"}, {"stop", "3"}, {"repeat", "0"}}),
                  "'repeat'");
  for (const char* op : {"_zeros", "_ones", "_full", "_arange"}) {
    const Op* o = OpRegistry::Global().Find(op);
    ASSERT_NE(o, nullptr);
    EXPECT_TRUE(o->non_differentiable()) << op;
  }
}

}  // namespace
}  // namespace symx
