// Schema tests of the indexing and ordering ops: one_hot, pick, take, gather_nd,
// argmax, argmin, argmax_channel, sort, argsort, topk and cumsum (_np_cumsum).
// Expected shapes, dtypes and errors are MXNet 1.9.1's (checked with its
// infer_shape / infer_type), apart from the documented departures (cumsum
// accepts negative axes; empty inputs to argmax are rejected at inference).
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
using ::symx::testing::TypeResult;

constexpr int64_t U = kUnknownDim;

Shape Out0(const std::string& op, const AttrMap& attrs, std::vector<Shape> in) {
  ShapeResult r = Infer(op, attrs, std::move(in));
  return r.out.empty() ? Shape() : r.out[0];
}

std::vector<DType> OutTypes(const std::string& op, const AttrMap& attrs, std::vector<DType> in) {
  absl::StatusOr<TypeResult> r = InferOpType(op, attrs, std::move(in));
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? r->out : std::vector<DType>{};
}

const Op* Find(const std::string& name) { return OpRegistry::Global().Find(name); }

// ------------------------------------------------------------------------------ registry

TEST(IndexingOpsTest, NamesAndAliases) {
  ASSERT_NE(Find("choose_element_0index"), nullptr);
  EXPECT_EQ(Find("choose_element_0index")->name(), "pick");
  // MXNet 1.9.1 writes "_np_cumsum" into symbol files; users write "cumsum".
  ASSERT_NE(Find("cumsum"), nullptr);
  EXPECT_EQ(Find("cumsum")->name(), "_np_cumsum");
  for (const char* op :
       {"one_hot", "pick", "take", "gather_nd", "argmax", "argmin", "argmax_channel", "sort",
        "argsort", "topk", "_backward_pick", "_backward_take", "_backward_gather_nd",
        "_backward_topk", "_backward_sort", "_backward_np_cumsum"}) {
    EXPECT_NE(Find(op), nullptr) << op;
  }
  EXPECT_EQ(InputNames("take", {}), (std::vector<std::string>{"a", "indices"}));
  EXPECT_EQ(InputNames("pick", {}), (std::vector<std::string>{"data", "index"}));
  EXPECT_EQ(InputNames("gather_nd", {}), (std::vector<std::string>{"data", "indices"}));
  EXPECT_EQ(InputNames("one_hot", {{"depth", "3"}}), (std::vector<std::string>{"indices"}));
  EXPECT_EQ(InputNames("cumsum", {}), (std::vector<std::string>{"a"}));
  for (const char* op : {"one_hot", "argmax", "argmin", "argmax_channel"}) {
    EXPECT_TRUE(Find(op)->non_differentiable()) << op;
  }
}

// ------------------------------------------------------------------------------ parsing

TEST(IndexingOpsTest, ParseErrors) {
  EXPECT_CONTAINS(ParseError("one_hot", {}), "depth");
  EXPECT_CONTAINS(ParseError("one_hot", {{"depth", "-1"}}), "must be >= 0");
  EXPECT_CONTAINS(ParseError("one_hot", {{"depth", "3"}, {"dtype", "bool"}}), "bool");
  EXPECT_CONTAINS(ParseError("pick", {{"mode", "raise"}}), "raise");
  EXPECT_CONTAINS(ParseError("pick", {{"axis", "x"}}), "axis");
  EXPECT_CONTAINS(ParseError("take", {{"mode", "nearest"}}), "nearest");
  EXPECT_CONTAINS(ParseError("take", {{"axis", "None"}}), "axis");
  EXPECT_CONTAINS(ParseError("gather_nd", {{"axis", "0"}}), "unknown attribute 'axis'");
  EXPECT_CONTAINS(ParseError("topk", {{"ret_typ", "values"}}), "values");
  EXPECT_CONTAINS(ParseError("topk", {{"dtype", "int8"}}), "int8");
  EXPECT_CONTAINS(ParseError("argsort", {{"k", "2"}}), "unknown attribute 'k'");
  EXPECT_CONTAINS(ParseError("sort", {{"dtype", "int32"}}), "unknown attribute 'dtype'");
  EXPECT_CONTAINS(ParseError("argmax", {{"is_ascend", "1"}}), "unknown attribute 'is_ascend'");
  EXPECT_CONTAINS(ParseError("cumsum", {{"dtype", "uint8"}}), "uint8");
  EXPECT_CONTAINS(ParseError("argmax_channel", {{"axis", "1"}}), "unknown attribute 'axis'");
}

// ------------------------------------------------------------------------------ one_hot

TEST(IndexingOpsTest, OneHotShapesAndTypes) {
  EXPECT_EQ(Out0("one_hot", {{"depth", "4"}}, {Shape{2, 3}}), (Shape{2, 3, 4}));
  EXPECT_EQ(Out0("one_hot", {{"depth", "0"}}, {Shape{2, 3}}), (Shape{2, 3, 0}));
  // Backward: indices from the output.
  ShapeResult r = Infer("one_hot", {{"depth", "4"}}, {Shape()}, {Shape{5, 4}});
  ASSERT_EQ(r.in.size(), 1u);
  EXPECT_EQ(r.in[0], (Shape{5}));
  EXPECT_CONTAINS(InferError("one_hot", {{"depth", "4"}}, {Shape{5}}, {Shape{5, 3}}), "output");
  EXPECT_EQ(OutTypes("one_hot", {{"depth", "4"}}, {DType::kInt32}),
            (std::vector<DType>{DType::kFloat32}));
  EXPECT_EQ(OutTypes("one_hot", {{"depth", "4"}, {"dtype", "int64"}}, {DType::kFloat32}),
            (std::vector<DType>{DType::kInt64}));
}

// ------------------------------------------------------------------------------ pick

TEST(IndexingOpsTest, PickShapes) {
  EXPECT_EQ(Out0("pick", {{"axis", "1"}}, {Shape{3, 4}, Shape()}), (Shape{3}));
  EXPECT_EQ(Out0("pick", {}, {Shape{3, 4}, Shape{3}}), (Shape{3}));
  EXPECT_EQ(Out0("pick", {{"keepdims", "1"}}, {Shape{3, 4}, Shape{3}}), (Shape{3, 1}));
  EXPECT_EQ(Out0("pick", {}, {Shape{3, 4}, Shape{3, 1}}), (Shape{3}));
  EXPECT_EQ(Out0("pick", {{"axis", "0"}}, {Shape{5}, Shape()}), (Shape{1}));
  EXPECT_EQ(Out0("pick", {{"axis", "-2"}}, {Shape{2, 3, 4}, Shape()}), (Shape{2, 4}));
  ShapeResult r = Infer("pick", {{"axis", "1"}, {"keepdims", "1"}}, {Shape{3, 4}, Shape()});
  EXPECT_EQ(r.in[1], (Shape{3}));
  std::string err = InferError("pick", {}, {Shape{3, 4}, Shape{2}});
  EXPECT_CONTAINS(err, "index");
  EXPECT_CONTAINS(err, "[2]");
  EXPECT_CONTAINS(err, "[3]");
  EXPECT_CONTAINS(InferError("pick", {{"axis", "2"}}, {Shape{3, 4}, Shape()}), "axis 2");
  EXPECT_CONTAINS(InferError("pick", {{"axis", "None"}}, {Shape{3, 4}, Shape()}), "axis=None");
  EXPECT_EQ(OutTypes("pick", {}, {DType::kFloat64, DType::kInt32}),
            (std::vector<DType>{DType::kFloat64}));
  EXPECT_EQ(OutTypes("pick", {}, {DType::kInt32, DType::kFloat32}),
            (std::vector<DType>{DType::kInt32}));
}

TEST(IndexingOpsTest, PickGradient) {
  GradCase c = Differentiate("pick", {{"axis", "1"}}, 2);
  ASSERT_EQ(c.grads.size(), 2u);
  ExpectBackward(c, "_backward_pick", 1, {Out(c.head), c.node->inputs[1]});
  EXPECT_EQ(c.grads[1].node, nullptr);  // no gradient for the index
}

// ------------------------------------------------------------------------------ take

TEST(IndexingOpsTest, TakeShapes) {
  EXPECT_EQ(Out0("take", {}, {Shape{3, 4}, Shape{2, 5}}), (Shape{2, 5, 4}));
  EXPECT_EQ(Out0("take", {{"axis", "1"}}, {Shape{3, 4}, Shape{2, 5}}), (Shape{3, 2, 5}));
  EXPECT_EQ(Out0("take", {{"axis", "-1"}}, {Shape{3, 4}, Shape{2, 2}}), (Shape{3, 2, 2}));
  EXPECT_EQ(Out0("take", {{"axis", "1"}}, {Shape{2, 3, 4}, Shape{7}}), (Shape{2, 7, 4}));
  EXPECT_EQ(Out0("take", {}, {Shape{3, 4}, Shape()}), Shape());
  EXPECT_CONTAINS(InferError("take", {{"axis", "2"}}, {Shape{3, 4}, Shape{2}}), "axis 2");
  EXPECT_CONTAINS(InferError("take", {{"axis", "-3"}}, {Shape{3, 4}, Shape{2}}), "axis -3");
  EXPECT_EQ(OutTypes("take", {}, {DType::kInt32, DType::kInt64}),
            (std::vector<DType>{DType::kInt32}));
  GradCase c = Differentiate("take", {{"mode", "wrap"}}, 2);
  ExpectBackward(c, "_backward_take", 1, {Out(c.head), c.node->inputs[1]});
  EXPECT_EQ(c.grads[1].node, nullptr);
}

// ------------------------------------------------------------------------------ gather_nd

TEST(IndexingOpsTest, GatherNdShapes) {
  EXPECT_EQ(Out0("gather_nd", {}, {Shape{3, 4, 5}, Shape{2, 6}}), (Shape{6, 5}));
  EXPECT_EQ(Out0("gather_nd", {}, {Shape{3, 4, 5}, Shape{3, 6, 2}}), (Shape{6, 2}));
  EXPECT_EQ(Out0("gather_nd", {}, {Shape{3, 4}, Shape{1, 2}}), (Shape{2, 4}));
  std::string err = InferError("gather_nd", {}, {Shape{3, 4, 5}, Shape{4, 6}});
  EXPECT_CONTAINS(err, "[4,6]");
  EXPECT_CONTAINS(err, "[3,4,5]");
  EXPECT_CONTAINS(InferError("gather_nd", {}, {Shape{3, 4, 5}, Shape{3}}), "at least 2 dims");
  EXPECT_CONTAINS(InferError("gather_nd", {}, {Shape{3, 4, 5}, Shape{0, 6}}), "1 <= M");
  EXPECT_EQ(OutTypes("gather_nd", {}, {DType::kFloat64, DType::kInt32}),
            (std::vector<DType>{DType::kFloat64}));
  GradCase c = Differentiate("gather_nd", {}, 2);
  ExpectBackward(c, "_backward_gather_nd", 1, {Out(c.head), c.node->inputs[1]});
  EXPECT_EQ(c.grads[1].node, nullptr);
}

// ------------------------------------------------------------------------------ argmax family

TEST(OrderingOpsTest, ArgReduceShapes) {
  EXPECT_EQ(Out0("argmax", {{"axis", "1"}}, {Shape{2, 3, 4}}), (Shape{2, 4}));
  EXPECT_EQ(Out0("argmin", {{"axis", "-1"}, {"keepdims", "1"}}, {Shape{2, 3, 4}}),
            (Shape{2, 3, 1}));
  EXPECT_EQ(Out0("argmax", {}, {Shape{3, 4}}), (Shape{1}));
  EXPECT_EQ(Out0("argmax", {{"keepdims", "True"}}, {Shape{3, 4}}), (Shape{1, 1}));
  EXPECT_EQ(Out0("argmax", {{"axis", "0"}}, {Shape{5}}), (Shape{1}));
  EXPECT_EQ(Out0("argmax_channel", {}, {Shape{2, 3, 4}}), (Shape{2, 4}));
  EXPECT_EQ(Out0("argmax_channel", {}, {Shape{2, 3}}), (Shape{2}));
  EXPECT_CONTAINS(InferError("argmax", {{"axis", "2"}}, {Shape{3, 4}}), "axis 2");
  EXPECT_CONTAINS(InferError("argmax", {{"axis", "1"}}, {Shape{3, 0}}), "empty axis");
  EXPECT_CONTAINS(InferError("argmax_channel", {}, {Shape{5}}), "at least 2 dims");
  // The output has the data's dtype (MXNet 1.x).
  EXPECT_EQ(OutTypes("argmax", {{"axis", "0"}}, {DType::kInt32}),
            (std::vector<DType>{DType::kInt32}));
  EXPECT_EQ(OutTypes("argmin", {}, {DType::kFloat64}), (std::vector<DType>{DType::kFloat64}));
}

// ------------------------------------------------------------------------------ sort family

TEST(OrderingOpsTest, TopKShapesAndOutputs) {
  ShapeResult r = Infer("topk", {{"k", "2"}, {"ret_typ", "both"}}, {Shape{3, 5}});
  EXPECT_EQ(r.out, (std::vector<Shape>{Shape{3, 2}, Shape{3, 2}}));
  r = Infer("topk", {{"k", "2"}, {"ret_typ", "both"}, {"axis", "None"}}, {Shape{3, 5}});
  EXPECT_EQ(r.out, (std::vector<Shape>{Shape{2}, Shape{2}}));
  EXPECT_EQ(Out0("topk", {{"k", "2"}, {"ret_typ", "mask"}, {"axis", "None"}}, {Shape{3, 5}}),
            (Shape{3, 5}));
  EXPECT_EQ(Out0("topk", {{"k", "0"}}, {Shape{3, 5}}), (Shape{3, 5}));
  EXPECT_EQ(Out0("topk", {{"k", "-3"}, {"axis", "0"}}, {Shape{3, 5}}), (Shape{3, 5}));
  EXPECT_EQ(Out0("topk", {{"axis", "0"}}, {Shape{3, 5}}), (Shape{1, 5}));
  EXPECT_EQ(Out0("sort", {{"axis", "None"}}, {Shape{3, 5}}), (Shape{15}));
  EXPECT_EQ(Out0("argsort", {{"axis", "0"}}, {Shape{3, 5}}), (Shape{3, 5}));
  std::string err = InferError("topk", {{"k", "7"}}, {Shape{3, 5}});
  EXPECT_CONTAINS(err, "k = 7");
  EXPECT_CONTAINS(err, "[3,5]");
  EXPECT_CONTAINS(InferError("sort", {}, {Shape{2, 0}}), "has 0");
  EXPECT_CONTAINS(InferError("topk", {{"axis", "2"}}, {Shape{3, 5}}), "axis 2");

  auto outputs = [](const AttrMap& attrs, const std::string& op) {
    absl::StatusOr<NodeAttrs> a = ::symx::testing::ParseAttrs(op, attrs);
    EXPECT_TRUE(a.ok()) << a.status();
    return std::make_pair(a->op->NumOutputs(*a), a->op->NumVisibleOutputs(*a));
  };
  EXPECT_EQ(outputs({{"ret_typ", "both"}}, "topk"), std::make_pair(2, 2));
  EXPECT_EQ(outputs({{"ret_typ", "value"}}, "topk"), std::make_pair(2, 1));
  EXPECT_EQ(outputs({{"ret_typ", "indices"}}, "topk"), std::make_pair(1, 1));
  EXPECT_EQ(outputs({{"ret_typ", "mask"}}, "topk"), std::make_pair(1, 1));
  EXPECT_EQ(outputs({}, "sort"), std::make_pair(2, 1));
  EXPECT_EQ(outputs({}, "argsort"), std::make_pair(1, 1));
}

TEST(OrderingOpsTest, TopKTypes) {
  EXPECT_EQ(OutTypes("topk", {{"ret_typ", "both"}}, {DType::kFloat64}),
            (std::vector<DType>{DType::kFloat64, DType::kFloat32}));
  EXPECT_EQ(OutTypes("topk", {{"ret_typ", "both"}, {"dtype", "int32"}}, {DType::kFloat64}),
            (std::vector<DType>{DType::kFloat64, DType::kInt32}));
  EXPECT_EQ(OutTypes("topk", {{"ret_typ", "mask"}}, {DType::kFloat64}),
            (std::vector<DType>{DType::kFloat64}));
  EXPECT_EQ(OutTypes("topk", {}, {DType::kFloat64}), (std::vector<DType>{DType::kFloat32}));
  EXPECT_EQ(OutTypes("argsort", {}, {DType::kFloat16}), (std::vector<DType>{DType::kFloat32}));
  EXPECT_EQ(OutTypes("argsort", {{"dtype", "int64"}}, {DType::kFloat16}),
            (std::vector<DType>{DType::kInt64}));
  EXPECT_EQ(OutTypes("sort", {}, {DType::kInt32}),
            (std::vector<DType>{DType::kInt32, DType::kInt64}));
}

TEST(OrderingOpsTest, TopKGradients) {
  GradCase c = Differentiate("topk", {{"ret_typ", "value"}, {"k", "2"}}, 1);
  ExpectBackward(c, "_backward_topk", 1, {Out(c.head), Out(c.node, 1)});
  c = Differentiate("topk", {{"ret_typ", "both"}}, 1);
  ExpectBackward(c, "_backward_topk", 1, {Out(c.head), Out(c.node, 1)});
  c = Differentiate("sort", {}, 1);
  ExpectBackward(c, "_backward_sort", 1, {Out(c.head), Out(c.node, 1)});
  for (const char* ret : {"indices", "mask"}) {
    c = Differentiate("topk", {{"ret_typ", ret}}, 1);
    ASSERT_EQ(c.grads.size(), 1u);
    EXPECT_EQ(c.grads[0].node, nullptr) << ret;
  }
  c = Differentiate("argsort", {}, 1);
  ASSERT_EQ(c.grads.size(), 1u);
  EXPECT_EQ(c.grads[0].node, nullptr);
}

// ------------------------------------------------------------------------------ cumsum

TEST(OrderingOpsTest, Cumsum) {
  EXPECT_EQ(Out0("cumsum", {}, {Shape{2, 3}}), (Shape{6}));
  EXPECT_EQ(Out0("cumsum", {{"axis", "1"}}, {Shape{2, 3}}), (Shape{2, 3}));
  EXPECT_EQ(Out0("cumsum", {{"axis", "-1"}}, {Shape{2, 3}}), (Shape{2, 3}));
  EXPECT_EQ(Out0("cumsum", {{"axis", "0"}}, {Shape{2, 0}}), (Shape{2, 0}));
  EXPECT_EQ(Out0("cumsum", {}, {Shape{2, U}}), Shape());
  EXPECT_CONTAINS(InferError("cumsum", {{"axis", "2"}}, {Shape{2, 3}}), "axis 2");
  EXPECT_EQ(OutTypes("cumsum", {}, {DType::kInt32}), (std::vector<DType>{DType::kInt32}));
  EXPECT_EQ(OutTypes("cumsum", {}, {DType::kBool}), (std::vector<DType>{DType::kInt64}));
  EXPECT_EQ(OutTypes("cumsum", {{"dtype", "float64"}}, {DType::kFloat32}),
            (std::vector<DType>{DType::kFloat64}));
  EXPECT_EQ(OutTypes("cumsum", {{"dtype", "None"}}, {DType::kFloat16}),
            (std::vector<DType>{DType::kFloat16}));
  GradCase c = Differentiate("cumsum", {{"axis", "0"}}, 1);
  ExpectBackward(c, "_backward_np_cumsum", 1, {Out(c.head)});
}

}  // namespace
}  // namespace symx
