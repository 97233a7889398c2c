// Schema tests for the SSD-style detection ops: _contrib_MultiBoxPrior,
// _contrib_box_nms (alias _contrib_box_non_maximum_suppression) and
// _contrib_box_iou: parsing and its errors, shape and dtype inference and their
// errors, outputs, gradients. Expected shapes follow MXNet 1.9.1.
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/dtype.h"
#include "graph/node.h"
#include "graph/op.h"
#include "graph/ops/detection.h"
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

const Shape kUnknown;

Shape OutShape(const std::string& op, const AttrMap& attrs, std::vector<Shape> in, int i = 0) {
  auto r = InferOpShape(op, attrs, std::move(in));
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? r->out[i] : Shape();
}

// ------------------------------------------------------------------ MultiBoxPrior

TEST(MultiBoxPriorTest, Parse) {
  auto a = ParseAttrs("_contrib_MultiBoxPrior", {});
  ASSERT_TRUE(a.ok()) << a.status();
  const auto& d = Param<MultiBoxPriorParam>(*a);
  EXPECT_EQ(d.sizes, std::vector<double>{1.0});
  EXPECT_EQ(d.ratios, std::vector<double>{1.0});
  EXPECT_EQ(d.step_y, -1);
  EXPECT_EQ(d.offset_x, 0.5);
  EXPECT_FALSE(d.clip);
  a = ParseAttrs("_contrib_MultiBoxPrior", {{"sizes", "(0.5, 0.25,)"},
                                            {"ratios", "[1,2,0.5]"},
                                            {"steps", "(0.3, 0.2)"},
                                            {"offsets", "(0.2, 0.7)"},
                                            {"clip", "True"}});
  ASSERT_TRUE(a.ok()) << a.status();
  const auto& p = Param<MultiBoxPriorParam>(*a);
  EXPECT_EQ(p.sizes, (std::vector<double>{0.5, 0.25}));
  EXPECT_EQ(p.ratios, (std::vector<double>{1, 2, 0.5}));
  EXPECT_EQ(p.step_y, 0.3);
  EXPECT_EQ(p.step_x, 0.2);
  EXPECT_EQ(p.offset_y, 0.2);
  EXPECT_EQ(p.offset_x, 0.7);
  EXPECT_TRUE(p.clip);
  EXPECT_EQ(p.num_anchors(), 4);
  EXPECT_TRUE(ParseStatus("_contrib_MultiBoxPrior", {{"sizes", "0.5"}}).ok());

  const std::string op = "_contrib_MultiBoxPrior";
  EXPECT_TRUE(ErrorContains(ParseStatus(op, {{"steps", "(1)"}}), {"steps", "2 values"}));
  EXPECT_TRUE(ErrorContains(ParseStatus(op, {{"offsets", "(1, 2, 3)"}}), {"offsets", "2 values"}));
  EXPECT_TRUE(ErrorContains(ParseStatus(op, {{"sizes", "()"}}), {"sizes", "at least one"}));
  EXPECT_TRUE(ErrorContains(ParseStatus(op, {{"sizes", "(-1)"}}), {"sizes", "> 0"}));
  EXPECT_TRUE(ErrorContains(ParseStatus(op, {{"ratios", "(1, 0)"}}), {"ratios", "> 0"}));
  EXPECT_TRUE(ErrorContains(ParseStatus(op, {{"sizes", "(0.5, x)"}}), {"sizes", "(0.5, x)"}));
  EXPECT_TRUE(ErrorContains(ParseStatus(op, {{"sizes", "(0.5"}}), {"sizes", "(0.5"}));
  EXPECT_TRUE(ErrorContains(ParseStatus(op, {{"clip", "maybe"}}), {"clip", "maybe"}));
  EXPECT_TRUE(ErrorContains(ParseStatus(op, {{"size", "(1)"}}), {"size"}));
}

TEST(MultiBoxPriorTest, ShapesTypesGradient) {
  const std::string op = "_contrib_MultiBoxPrior";
  EXPECT_EQ(OutShape(op, {}, {Shape{1, 3, 2, 3}}), (Shape{1, 6, 4}));
  EXPECT_EQ(
      OutShape(op, {{"sizes", "(0.5, 0.25)"}, {"ratios", "(1, 2, 0.5)"}}, {Shape{2, 3, 3, 4}}),
      (Shape{1, 48, 4}));
  EXPECT_EQ(OutShape(op, {}, {Shape{1, 2, 4, 2, 3}}), (Shape{1, 8, 4}));
  EXPECT_TRUE(ErrorContains(ShapeStatus(op, {}, {Shape{1, 2, 3}}),
                            {"input data", "[1,2,3]", "at least 4 dims"}));
  auto r = InferOpShape(op, {}, {kUnknown});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->out[0].ndim_known());
  auto t = InferOpType(op, {}, {DType::kFloat64});
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->out[0], DType::kFloat32);
  GradCase c = Differentiate(op, {}, 1);
  ASSERT_EQ(c.grads.size(), 1u);
  EXPECT_EQ(c.grads[0].node, nullptr);  // zero
}

// ------------------------------------------------------------------ box_nms

TEST(BoxNmsTest, ParseAndAlias) {
  auto a = ParseAttrs("_contrib_box_non_maximum_suppression", {});
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_EQ(a->op->name(), "_contrib_box_nms");
  const auto& d = Param<BoxNmsParam>(*a);
  EXPECT_EQ(d.overlap_thresh, 0.5);
  EXPECT_EQ(d.valid_thresh, 0);
  EXPECT_EQ(d.topk, -1);
  EXPECT_EQ(d.coord_start, 2);
  EXPECT_EQ(d.score_index, 1);
  EXPECT_EQ(d.id_index, -1);
  EXPECT_EQ(d.background_id, -1);
  EXPECT_FALSE(d.force_suppress);
  EXPECT_FALSE(d.in_center);
  EXPECT_FALSE(d.out_center);
  a = ParseAttrs("_contrib_box_nms", {{"overlap_thresh", "0.3"},
                                      {"topk", "4"},
                                      {"id_index", "0"},
                                      {"background_id", "1"},
                                      {"force_suppress", "True"},
                                      {"in_format", "center"},
                                      {"out_format", "center"}});
  ASSERT_TRUE(a.ok()) << a.status();
  const auto& p = Param<BoxNmsParam>(*a);
  EXPECT_EQ(p.overlap_thresh, 0.3);
  EXPECT_EQ(p.topk, 4);
  EXPECT_TRUE(p.force_suppress && p.in_center && p.out_center);
  EXPECT_EQ(a->op->OutputNames(*a), (std::vector<std::string>{"output", "out_index"}));
  EXPECT_EQ(a->op->NumVisibleOutputs(*a), 1);

  const std::string op = "_contrib_box_nms";
  EXPECT_TRUE(ErrorContains(ParseStatus(op, {{"in_format", "xywh"}}), {"in_format", "xywh"}));
  EXPECT_TRUE(ErrorContains(ParseStatus(op, {{"topk", "two"}}), {"topk", "two"}));
  EXPECT_TRUE(ErrorContains(ParseStatus(op, {{"coord_start", "-1"}}), {"coord_start", ">= 0"}));
  EXPECT_TRUE(ErrorContains(ParseStatus(op, {{"score_index", "-2"}}), {"score_index", ">= 0"}));
  EXPECT_TRUE(ErrorContains(ParseStatus(op, {{"format", "corner"}}), {"format"}));
}

TEST(BoxNmsTest, ShapesAndGradient) {
  const std::string op = "_contrib_box_nms";
  auto r = InferOpShape(op, {}, {Shape{3, 4, 5, 6}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[0], (Shape{3, 4, 5, 6}));
  EXPECT_EQ(r->out[1], (Shape{3, 4, 5}));
  EXPECT_EQ(OutShape(op, {}, {Shape{5, 6}}, 1), (Shape{5}));
  // Backward: the output gives the input.
  r = InferOpShape(op, {}, {kUnknown}, {Shape{2, 5, 6}, kUnknown});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[0], (Shape{2, 5, 6}));
  EXPECT_TRUE(
      ErrorContains(ShapeStatus(op, {}, {Shape{6}}), {"input data", "[6]", "at least 2 dims"}));
  EXPECT_TRUE(ErrorContains(ShapeStatus(op, {}, {Shape{2, 3, 5}}),
                            {"input data", "[2,3,5]", "coord_start + 3 = 5"}));
  EXPECT_TRUE(
      ErrorContains(ShapeStatus(op, {{"coord_start", "0"}, {"score_index", "6"}}, {Shape{2, 3, 6}}),
                    {"input data", "[2,3,6]", "score_index = 6"}));
  EXPECT_TRUE(ErrorContains(ShapeStatus(op, {{"id_index", "7"}}, {Shape{2, 3, 6}}),
                            {"input data", "id_index = 7"}));
  EXPECT_TRUE(ShapeStatus(op, {{"coord_start", "0"}, {"score_index", "4"}}, {Shape{2, 3, 5}}).ok());
  auto t = InferOpType(op, {}, {DType::kFloat64});
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->out[0], DType::kFloat64);
  EXPECT_EQ(t->out[1], DType::kFloat64);

  GradCase c = Differentiate(op, {}, 1);
  ExpectBackward(c, "_backward_contrib_box_nms", 1, {Out(c.head), Out(c.node, 1)});
}

// ------------------------------------------------------------------ MultiBoxDetection

TEST(MultiBoxDetectionTest, ParseShapes) {
  const std::string op = "_contrib_MultiBoxDetection";
  auto a = ParseAttrs(op, {});
  ASSERT_TRUE(a.ok()) << a.status();
  const auto& d = Param<MultiBoxDetectionParam>(*a);
  EXPECT_TRUE(d.clip);
  EXPECT_EQ(d.threshold, 0.01);
  EXPECT_EQ(d.nms_threshold, 0.5);
  EXPECT_EQ(d.nms_topk, -1);
  EXPECT_EQ(d.variances, (std::vector<double>{0.1, 0.1, 0.2, 0.2}));
  EXPECT_EQ(testing::InputNames(op, {}),
            (std::vector<std::string>{"cls_prob", "loc_pred", "anchor"}));
  EXPECT_TRUE(a->op->non_differentiable());
  EXPECT_TRUE(
      ErrorContains(ParseStatus(op, {{"variances", "(0.1, 0.2)"}}), {"variances", "4 values"}));
  EXPECT_TRUE(ErrorContains(ParseStatus(op, {{"nms_topk", "x"}}), {"nms_topk", "x"}));
  EXPECT_TRUE(ErrorContains(ParseStatus(op, {{"topk", "1"}}), {"topk"}));

  EXPECT_EQ(OutShape(op, {}, {Shape{2, 3, 5}, Shape{2, 20}, Shape{1, 5, 4}}), (Shape{2, 5, 6}));
  EXPECT_EQ(OutShape(op, {}, {Shape{2, 3, 5}, kUnknown, kUnknown}), (Shape{2, 5, 6}));
  EXPECT_TRUE(ErrorContains(ShapeStatus(op, {}, {Shape{2, 3, 5}, Shape{2, 24}, Shape{1, 5, 4}}),
                            {"loc_pred", "[2,24]", "[2,20]"}));
  EXPECT_TRUE(ErrorContains(ShapeStatus(op, {}, {Shape{2, 3, 5}, Shape{2, 20}, Shape{1, 6, 4}}),
                            {"input anchor", "[1,6,4]", "5 anchors"}));
  EXPECT_TRUE(ErrorContains(ShapeStatus(op, {}, {Shape{2, 3, 5}, Shape{2, 20}, Shape{1, 5, 5}}),
                            {"input anchor", "[1,5,5]"}));
  EXPECT_TRUE(ErrorContains(ShapeStatus(op, {}, {Shape{2, 3, 5, 1}, Shape{2, 20}, Shape{1, 5, 4}}),
                            {"input cls_prob", "[2,3,5,1]", "3 dims"}));
}

// ------------------------------------------------------------------ MultiBoxTarget

TEST(MultiBoxTargetTest, ParseShapes) {
  const std::string op = "_contrib_MultiBoxTarget";
  auto a = ParseAttrs(op, {});
  ASSERT_TRUE(a.ok()) << a.status();
  const auto& d = Param<MultiBoxTargetParam>(*a);
  EXPECT_EQ(d.overlap_threshold, 0.5);
  EXPECT_EQ(d.ignore_label, -1);
  EXPECT_EQ(d.negative_mining_ratio, -1);
  EXPECT_EQ(d.negative_mining_thresh, 0.5);
  EXPECT_EQ(d.minimum_negative_samples, 0);
  EXPECT_TRUE(a->op->non_differentiable());
  EXPECT_EQ(testing::InputNames(op, {}), (std::vector<std::string>{"anchor", "label", "cls_pred"}));
  EXPECT_EQ(a->op->OutputNames(*a),
            (std::vector<std::string>{"loc_target", "loc_mask", "cls_target"}));
  EXPECT_TRUE(
      ErrorContains(ParseStatus(op, {{"variances", "(1, 1, 0, 1)"}}), {"variances", "non-zero"}));
  EXPECT_TRUE(ErrorContains(ParseStatus(op, {{"minimum_negative_samples", "1.5"}}),
                            {"minimum_negative_samples", "1.5"}));

  auto r = InferOpShape(op, {}, {Shape{1, 5, 4}, Shape{2, 3, 5}, Shape{2, 3, 5}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[0], (Shape{2, 20}));
  EXPECT_EQ(r->out[1], (Shape{2, 20}));
  EXPECT_EQ(r->out[2], (Shape{2, 5}));
  EXPECT_TRUE(ShapeStatus(op, {}, {Shape{1, 5, 4}, Shape{2, 3, 6}, Shape{2, 3, 5}}).ok());
  EXPECT_TRUE(ErrorContains(ShapeStatus(op, {}, {Shape{2, 5, 4}, Shape{2, 3, 5}, Shape{2, 3, 5}}),
                            {"input anchor", "[2,5,4]", "shared by the batch"}));
  EXPECT_TRUE(ErrorContains(ShapeStatus(op, {}, {Shape{1, 5, 4}, Shape{2, 3, 4}, Shape{2, 3, 5}}),
                            {"input label", "[2,3,4]", "width >= 5"}));
  EXPECT_TRUE(ErrorContains(ShapeStatus(op, {}, {Shape{1, 5, 4}, Shape{2, 3, 5}, Shape{2, 3, 6}}),
                            {"input cls_pred", "[2,3,6]", "5 anchors"}));
  EXPECT_TRUE(ErrorContains(ShapeStatus(op, {}, {Shape{1, 5, 4}, Shape{2, 3, 5}, Shape{3, 3, 5}}),
                            {"input cls_pred", "[3,3,5]", "batch 2"}));
}

// ------------------------------------------------------------------ box_iou

TEST(BoxIouTest, ParseShapesGradient) {
  const std::string op = "_contrib_box_iou";
  EXPECT_EQ(testing::InputNames(op, {}), (std::vector<std::string>{"lhs", "rhs"}));
  auto a = ParseAttrs(op, {{"format", "center"}});
  ASSERT_TRUE(a.ok()) << a.status();
  EXPECT_TRUE(Param<BoxIouParam>(*a).center);
  EXPECT_TRUE(ErrorContains(ParseStatus(op, {{"format", "xywh"}}), {"format", "xywh"}));
  EXPECT_TRUE(ErrorContains(ParseStatus(op, {{"in_format", "corner"}}), {"in_format"}));

  EXPECT_EQ(OutShape(op, {}, {Shape{3, 4}, Shape{2, 5, 4}}), (Shape{3, 2, 5}));
  EXPECT_EQ(OutShape(op, {}, {Shape{2, 2, 4}, Shape{3, 4}}), (Shape{2, 2, 3}));
  EXPECT_TRUE(ErrorContains(ShapeStatus(op, {}, {Shape{3, 5}, Shape{2, 4}}),
                            {"input lhs", "[3,5]", "last dim of 4"}));
  EXPECT_TRUE(ErrorContains(ShapeStatus(op, {}, {Shape{3, 4}, Shape{4}}),
                            {"input rhs", "[4]", "at least 2 dims"}));
  auto r = InferOpShape(op, {}, {Shape{3, 4}, kUnknown});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->out[0].ndim_known());

  GradCase c = Differentiate(op, {}, 2);
  ASSERT_EQ(c.grads.size(), 2u);
  EXPECT_EQ(c.grads[0].node, nullptr);
  EXPECT_EQ(c.grads[1].node, nullptr);
}

}  // namespace
}  // namespace symx
