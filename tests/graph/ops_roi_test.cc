// Schema tests for the region ops: ROIPooling, _contrib_ROIAlign,
// _contrib_Proposal and _contrib_MultiProposal (parsing and its errors, shape
// and dtype inference and their errors, names, gradients). Expected shapes
// follow MXNet 1.9.1.
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/dtype.h"
#include "graph/node.h"
#include "graph/op.h"
#include "graph/ops/op_helpers.h"
#include "graph/shape.h"
#include "gtest/gtest.h"
#include "tests/graph/op_test_util.h"

namespace symx {
namespace {

using ::symx::testing::Differentiate;
using ::symx::testing::ErrorContains;
using ::symx::testing::ExpectBackward;
using ::symx::testing::GradCase;
using ::symx::testing::InferOpShape;
using ::symx::testing::InferOpType;
using ::symx::testing::ParseAttrs;
using ::symx::testing::ParseStatus;
using ::symx::testing::ShapeStatus;

constexpr int64_t X = kUnknownDim;
const Shape kUnknown;

const AttrMap kPool = {{"pooled_size", "(2, 3)"}, {"spatial_scale", "0.0625"}};

TEST(ROIPoolingTest, Parse) {
  EXPECT_TRUE(ParseStatus("ROIPooling", kPool).ok());
  EXPECT_TRUE(ErrorContains(ParseStatus("ROIPooling", {{"spatial_scale", "1"}}), {"pooled_size"}));
  EXPECT_TRUE(
      ErrorContains(ParseStatus("ROIPooling", {{"pooled_size", "(2, 2)"}}), {"spatial_scale"}));
  EXPECT_TRUE(
      ErrorContains(ParseStatus("ROIPooling", {{"pooled_size", "(2,)"}, {"spatial_scale", "1"}}),
                    {"pooled_size", "exactly 2"}));
  EXPECT_TRUE(ErrorContains(
      ParseStatus("ROIPooling", {{"pooled_size", "(2, 2, 2)"}, {"spatial_scale", "1"}}),
      {"pooled_size", "exactly 2"}));
  EXPECT_TRUE(
      ErrorContains(ParseStatus("ROIPooling", {{"pooled_size", "(0, 2)"}, {"spatial_scale", "1"}}),
                    {"pooled_size", ">= 1"}));
  EXPECT_TRUE(
      ErrorContains(ParseStatus("ROIPooling", {{"pooled_size", "(2, 2)"}, {"spatial_scale", "-1"}}),
                    {"spatial_scale", "> 0"}));
  EXPECT_TRUE(ErrorContains(
      ParseStatus("ROIPooling", {{"pooled_size", "(2, 2)"}, {"spatial_scale", "half"}}),
      {"spatial_scale", "half"}));
  AttrMap extra = kPool;
  extra["sample_ratio"] = "2";
  EXPECT_TRUE(ErrorContains(ParseStatus("ROIPooling", extra), {"sample_ratio"}));
}

TEST(ROIPoolingTest, NamesShapesAndGradient) {
  EXPECT_EQ(testing::InputNames("ROIPooling", kPool), (std::vector<std::string>{"data", "rois"}));
  absl::StatusOr<NodeAttrs> a = ParseAttrs("ROIPooling", kPool);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->op->OutputNames(*a), (std::vector<std::string>{"output", "maxidx"}));
  EXPECT_EQ(a->op->NumVisibleOutputs(*a), 1);
  auto r = InferOpShape("ROIPooling", kPool, {Shape{2, 8, 20, 30}, Shape{7, 5}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[0], (Shape{7, 8, 2, 3}));
  EXPECT_EQ(r->out[1], (Shape{7, 8, 2, 3}));
  // rois' column count is filled in; outputs wait for both inputs.
  r = InferOpShape("ROIPooling", kPool, {kUnknown, Shape{7, X}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[1], (Shape{7, 5}));
  EXPECT_FALSE(r->out[0].ndim_known());
  EXPECT_TRUE(ErrorContains(ShapeStatus("ROIPooling", kPool, {Shape{2, 8, 20}, Shape{7, 5}}),
                            {"input data", "[2,8,20]", "4 dims"}));
  EXPECT_TRUE(ErrorContains(ShapeStatus("ROIPooling", kPool, {Shape{2, 8, 20, 30}, Shape{7, 4}}),
                            {"input rois", "[7,4]", "5 columns"}));
  EXPECT_TRUE(ErrorContains(ShapeStatus("ROIPooling", kPool, {Shape{2, 8, 20, 30}, Shape{35}}),
                            {"input rois", "[35]", "2 dims"}));
  auto t = InferOpType("ROIPooling", kPool, {DType::kFloat64, DType::kUnknown});
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->in[1], DType::kFloat64);
  EXPECT_EQ(t->out[0], DType::kFloat64);
  GradCase c = Differentiate("ROIPooling", kPool, 2);
  ASSERT_EQ(c.grads.size(), 2u);
  ExpectBackward(c, "_backward_ROIPooling", 1, {Out(c.head), c.node->inputs[1], Out(c.node, 1)});
  EXPECT_EQ(c.grads[1].node, nullptr);  // no gradient for rois
}

TEST(ROIAlignTest, ParseShapesAndGradient) {
  const AttrMap base = {{"pooled_size", "(2, 2)"}, {"spatial_scale", "0.5"}};
  EXPECT_TRUE(ParseStatus("_contrib_ROIAlign", base).ok());
  AttrMap bad = base;
  bad["aligned"] = "maybe";
  EXPECT_TRUE(ErrorContains(ParseStatus("_contrib_ROIAlign", bad), {"aligned", "maybe"}));
  bad = base;
  bad["sample_ratio"] = "1.5";
  EXPECT_TRUE(ErrorContains(ParseStatus("_contrib_ROIAlign", bad), {"sample_ratio", "1.5"}));
  bad = base;
  bad["pooled_size"] = "(3,)";
  EXPECT_TRUE(ErrorContains(ParseStatus("_contrib_ROIAlign", bad), {"pooled_size"}));
  auto r = InferOpShape("_contrib_ROIAlign", base, {Shape{1, 8, 10, 10}, Shape{3, 5}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[0], (Shape{3, 8, 2, 2}));
  AttrMap ps = base;
  ps["position_sensitive"] = "True";
  r = InferOpShape("_contrib_ROIAlign", ps, {Shape{1, 8, 10, 10}, Shape{3, 5}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[0], (Shape{3, 2, 2, 2}));
  EXPECT_TRUE(
      ErrorContains(ShapeStatus("_contrib_ROIAlign", ps, {Shape{1, 6, 10, 10}, Shape{3, 5}}),
                    {"input data", "[1,6,10,10]", "divisible", "4"}));
  GradCase c = Differentiate("_contrib_ROIAlign", base, 2);
  ASSERT_EQ(c.grads.size(), 2u);
  ExpectBackward(c, "_backward_ROIAlign", 1, {Out(c.head), c.node->inputs[1]});
  EXPECT_EQ(c.grads[1].node, nullptr);
}

TEST(ProposalTest, Parse) {
  EXPECT_TRUE(ParseStatus("_contrib_Proposal", {}).ok());
  EXPECT_TRUE(ParseStatus("_contrib_MultiProposal",
                          {{"scales", "(8, 16)"}, {"ratios", "[0.5,1,2]"}, {"iou_loss", "1"}})
                  .ok());
  EXPECT_TRUE(ErrorContains(ParseStatus("_contrib_Proposal", {{"scales", "(8, x)"}}),
                            {"scales", "(8, x)"}));
  EXPECT_TRUE(ErrorContains(ParseStatus("_contrib_Proposal", {{"ratios", "()"}}),
                            {"ratios", "at least one"}));
  EXPECT_TRUE(
      ErrorContains(ParseStatus("_contrib_Proposal", {{"ratios", "(1, -2)"}}), {"ratios", "> 0"}));
  EXPECT_TRUE(ErrorContains(ParseStatus("_contrib_Proposal", {{"feature_stride", "0"}}),
                            {"feature_stride"}));
  EXPECT_TRUE(ErrorContains(ParseStatus("_contrib_Proposal", {{"rpn_post_nms_top_n", "0"}}),
                            {"rpn_post_nms_top_n"}));
  EXPECT_TRUE(ErrorContains(ParseStatus("_contrib_Proposal", {{"nms", "0.3"}}), {"nms"}));
}

TEST(ProposalTest, NamesShapesTypes) {
  const AttrMap p = {{"scales", "(2, 4)"}, {"ratios", "(1,)"}, {"rpn_post_nms_top_n", "7"}};
  EXPECT_EQ(testing::InputNames("_contrib_Proposal", p),
            (std::vector<std::string>{"cls_prob", "bbox_pred", "im_info"}));
  absl::StatusOr<NodeAttrs> a = ParseAttrs("_contrib_Proposal", p);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->op->OutputNames(*a), (std::vector<std::string>{"output", "score"}));
  EXPECT_EQ(a->op->NumVisibleOutputs(*a), 1);
  EXPECT_TRUE(a->op->non_differentiable());
  AttrMap with_score = p;
  with_score["output_score"] = "True";
  a = ParseAttrs("_contrib_MultiProposal", with_score);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->op->NumVisibleOutputs(*a), 2);
  EXPECT_TRUE(a->op->non_differentiable());

  auto r = InferOpShape("_contrib_Proposal", p, {Shape{1, 4, 3, 5}, kUnknown, kUnknown});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[1], (Shape{1, 8, 3, 5}));
  EXPECT_EQ(r->in[2], (Shape{1, 3}));
  EXPECT_EQ(r->out[0], (Shape{7, 5}));
  EXPECT_EQ(r->out[1], (Shape{7, 1}));
  r = InferOpShape("_contrib_MultiProposal", p, {Shape{3, 4, 3, 5}, kUnknown, kUnknown});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[0], (Shape{21, 5}));
  EXPECT_EQ(r->out[1], (Shape{21, 1}));
  EXPECT_TRUE(
      ErrorContains(ShapeStatus("_contrib_Proposal", p, {Shape{2, 4, 3, 5}, kUnknown, kUnknown}),
                    {"input cls_prob", "[2,4,3,5]", "batch 1"}));
  EXPECT_TRUE(
      ErrorContains(ShapeStatus("_contrib_Proposal", p, {Shape{1, 6, 3, 5}, kUnknown, kUnknown}),
                    {"input cls_prob", "[1,6,3,5]", "4 channels"}));
  EXPECT_TRUE(ErrorContains(
      ShapeStatus("_contrib_MultiProposal", p, {Shape{1, 4, 3, 5}, Shape{1, 4, 3, 5}, kUnknown}),
      {"bbox_pred", "[1,4,3,5]", "[1,8,3,5]"}));
  EXPECT_TRUE(
      ErrorContains(ShapeStatus("_contrib_MultiProposal", p, {Shape{4, 3, 5}, kUnknown, kUnknown}),
                    {"input cls_prob", "4 dims"}));

  auto t = InferOpType("_contrib_Proposal", p, {DType::kFloat32, DType::kUnknown, DType::kUnknown});
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->in[2], DType::kFloat32);
  EXPECT_EQ(t->out[1], DType::kFloat32);
  EXPECT_TRUE(ErrorContains(
      InferOpType("_contrib_Proposal", p, {DType::kFloat64, DType::kUnknown, DType::kUnknown})
          .status(),
      {"cls_prob", "float64", "float32"}));
}

}  // namespace
}  // namespace symx
