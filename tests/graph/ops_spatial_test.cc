// Schema tests for GridGenerator, BilinearSampler, SpatialTransformer and CTCLoss
// (parsing, shape and dtype inference and their errors, input/output names,
// aliases, gradients). Expected shapes follow MXNet 1.9.1.
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
using ::symx::testing::InputNames;
using ::symx::testing::ParseAttrs;
using ::symx::testing::ParseStatus;
using ::symx::testing::ShapeStatus;

constexpr int64_t X = kUnknownDim;
const Shape kUnknown;

const AttrMap kAffine = {{"transform_type", "affine"}, {"target_shape", "(3, 4)"}};
const AttrMap kST = {{"transform_type", "affine"},
                     {"sampler_type", "bilinear"},
                     {"target_shape", "(3, 4)"}};

TEST(GridGeneratorTest, Parse) {
  EXPECT_TRUE(ParseStatus("GridGenerator", kAffine).ok());
  EXPECT_TRUE(ParseStatus("GridGenerator", {{"transform_type", "warp"}}).ok());
  EXPECT_TRUE(ErrorContains(ParseStatus("GridGenerator", {}), {"transform_type"}));
  EXPECT_TRUE(ErrorContains(ParseStatus("GridGenerator", {{"transform_type", "perspective"}}),
                            {"transform_type", "perspective"}));
  EXPECT_TRUE(ErrorContains(
      ParseStatus("GridGenerator", {{"transform_type", "affine"}, {"target_shape", "(3,)"}}),
      {"target_shape", "two entries"}));
  EXPECT_TRUE(ErrorContains(
      ParseStatus("GridGenerator", {{"transform_type", "warp"}, {"cudnn_off", "1"}}),
      {"cudnn_off"}));
}

TEST(GridGeneratorTest, Shapes) {
  auto r = InferOpShape("GridGenerator", kAffine, {Shape{2, 6}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[0], (Shape{2, 2, 3, 4}));
  // Backward: the batch and the 6 come from the output.
  r = InferOpShape("GridGenerator", kAffine, {kUnknown}, {Shape{5, 2, 3, 4}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[0], (Shape{5, 6}));
  r = InferOpShape("GridGenerator", {{"transform_type", "warp"}}, {Shape{2, 2, 5, 7}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[0], (Shape{2, 2, 5, 7}));
  r = InferOpShape("GridGenerator", {{"transform_type", "warp"}}, {kUnknown}, {Shape{1, 2, 3, 3}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[0], (Shape{1, 2, 3, 3}));

  EXPECT_TRUE(ErrorContains(ShapeStatus("GridGenerator", kAffine, {Shape{2, 5}}),
                            {"input data", "[2,6]", "[2,5]"}));
  EXPECT_TRUE(ErrorContains(ShapeStatus("GridGenerator", kAffine, {Shape{2, 6, 1}}),
                            {"input data", "[2,6,1]", "(N, 6)"}));
  EXPECT_TRUE(ErrorContains(
      ShapeStatus("GridGenerator", {{"transform_type", "affine"}}, {Shape{2, 6}}),
      {"target_shape"}));
  EXPECT_TRUE(ErrorContains(
      ShapeStatus("GridGenerator", {{"transform_type", "warp"}}, {Shape{2, 3, 4, 5}}),
      {"input data", "[2,3,4,5]"}));
}

TEST(GridGeneratorTest, Gradient) {
  GradCase c = Differentiate("GridGenerator", kAffine, 1);
  ExpectBackward(c, "_backward_GridGenerator", 1, {Out(c.head)});
}

TEST(BilinearSamplerTest, ParseAndShapes) {
  EXPECT_TRUE(ParseStatus("BilinearSampler", {}).ok());
  EXPECT_TRUE(ParseStatus("BilinearSampler", {{"cudnn_off", "None"}}).ok());
  EXPECT_TRUE(ParseStatus("BilinearSampler", {{"cudnn_off", "True"}}).ok());
  EXPECT_TRUE(ErrorContains(ParseStatus("BilinearSampler", {{"cudnn_off", "maybe"}}),
                            {"cudnn_off", "maybe"}));
  EXPECT_TRUE(ErrorContains(ParseStatus("BilinearSampler", {{"target_shape", "(2,2)"}}),
                            {"target_shape"}));
  EXPECT_EQ(InputNames("BilinearSampler", {}), (std::vector<std::string>{"data", "grid"}));

  auto r = InferOpShape("BilinearSampler", {}, {Shape{2, 3, 4, 5}, Shape{2, 2, 6, 7}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[0], (Shape{2, 3, 6, 7}));
  r = InferOpShape("BilinearSampler", {}, {Shape{X, 3, 4, 5}, kUnknown}, {Shape{2, X, 6, 7}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[0], (Shape{2, 3, 4, 5}));
  EXPECT_EQ(r->in[1], (Shape{2, 2, 6, 7}));
  EXPECT_EQ(r->out[0], (Shape{2, 3, 6, 7}));

  EXPECT_TRUE(
      ErrorContains(ShapeStatus("BilinearSampler", {}, {Shape{2, 3, 4, 5}, Shape{3, 2, 4, 4}}),
                    {"input grid", "[3,2,4,4]", "[2,2,4,4]"}));
  EXPECT_TRUE(
      ErrorContains(ShapeStatus("BilinearSampler", {}, {Shape{2, 3, 4, 5}, Shape{2, 3, 4, 4}}),
                    {"input grid", "[2,3,4,4]"}));
  EXPECT_TRUE(ErrorContains(ShapeStatus("BilinearSampler", {}, {Shape{2, 3, 4}, kUnknown}),
                            {"input data", "[2,3,4]", "(N, C, H, W)"}));
}

TEST(BilinearSamplerTest, GradientAndTypes) {
  GradCase c = Differentiate("BilinearSampler", {}, 2);
  ExpectBackward(c, "_backward_BilinearSampler", 2,
                 {Out(c.head), c.node->inputs[0], c.node->inputs[1]});
  auto t = InferOpType("BilinearSampler", {}, {DType::kFloat64, DType::kUnknown});
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->in[1], DType::kFloat64);
  EXPECT_EQ(t->out[0], DType::kFloat64);
}

TEST(SpatialTransformerTest, ParseAndShapes) {
  EXPECT_TRUE(ParseStatus("SpatialTransformer", kST).ok());
  EXPECT_TRUE(ErrorContains(
      ParseStatus("SpatialTransformer", {{"transform_type", "affine"}, {"target_shape", "(3,4)"}}),
      {"sampler_type"}));
  AttrMap bad = kST;
  bad["sampler_type"] = "nearest";
  EXPECT_TRUE(ErrorContains(ParseStatus("SpatialTransformer", bad), {"sampler_type", "nearest"}));
  EXPECT_EQ(InputNames("SpatialTransformer", kST), (std::vector<std::string>{"data", "loc"}));

  auto r = InferOpShape("SpatialTransformer", kST, {Shape{2, 3, 4, 5}, Shape{2, 6}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[0], (Shape{2, 3, 3, 4}));
  r = InferOpShape("SpatialTransformer", kST, {kUnknown, Shape{2, 6}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[0], (Shape{2, X, X, X}));
  EXPECT_EQ(r->out[0], (Shape{2, X, 3, 4}));

  EXPECT_TRUE(ErrorContains(ShapeStatus("SpatialTransformer", kST, {Shape{2, 3, 4, 5}, Shape{2, 5}}),
                            {"input loc", "[2,5]", "[2,6]"}));
  AttrMap no_target = kST;
  no_target.erase("target_shape");
  EXPECT_TRUE(ErrorContains(
      ShapeStatus("SpatialTransformer", no_target, {Shape{2, 3, 4, 5}, Shape{2, 6}}),
      {"target_shape"}));
}

TEST(SpatialTransformerTest, Gradient) {
  GradCase c = Differentiate("SpatialTransformer", kST, 2);
  ExpectBackward(c, "_backward_SpatialTransformer", 2,
                 {Out(c.head), c.node->inputs[0], c.node->inputs[1]});
}

TEST(CTCLossTest, ParseNamesAliases) {
  EXPECT_TRUE(ParseStatus("CTCLoss", {}).ok());
  EXPECT_TRUE(ErrorContains(ParseStatus("CTCLoss", {{"blank_label", "middle"}}),
                            {"blank_label", "middle"}));
  EXPECT_TRUE(ErrorContains(ParseStatus("CTCLoss", {{"use_data_lengths", "yes"}}),
                            {"use_data_lengths", "yes"}));
  EXPECT_TRUE(ErrorContains(ParseStatus("CTCLoss", {{"padding_mask", "0"}}), {"padding_mask"}));
  for (const char* alias : {"ctc_loss", "_contrib_CTCLoss", "_contrib_ctc_loss"}) {
    const Op* op = OpRegistry::Global().Find(alias);
    ASSERT_NE(op, nullptr) << alias;
    EXPECT_EQ(op->name(), "CTCLoss");
  }
  EXPECT_EQ(InputNames("CTCLoss", {}), (std::vector<std::string>{"data", "label"}));
  EXPECT_EQ(InputNames("CTCLoss", {{"use_label_lengths", "True"}}),
            (std::vector<std::string>{"data", "label", "label_lengths"}));
  EXPECT_EQ(InputNames("CTCLoss", {{"use_data_lengths", "1"}, {"use_label_lengths", "1"}}),
            (std::vector<std::string>{"data", "label", "data_lengths", "label_lengths"}));
  absl::StatusOr<NodeAttrs> a = ParseAttrs("CTCLoss", {});
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->op->NumOutputs(*a), 2);
  EXPECT_EQ(a->op->NumVisibleOutputs(*a), 1);
}

TEST(CTCLossTest, Shapes) {
  auto r = InferOpShape("CTCLoss", {}, {Shape{5, 2, 4}, Shape{2, 3}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[0], (Shape{2}));
  EXPECT_EQ(r->out[1], (Shape{5, 2, 4}));
  r = InferOpShape("CTCLoss", {{"use_data_lengths", "1"}, {"use_label_lengths", "1"}},
                   {Shape{5, 2, 4}, Shape{2, 3}, kUnknown, kUnknown});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[2], (Shape{2}));
  EXPECT_EQ(r->in[3], (Shape{2}));
  // The batch reaches data from the label.
  r = InferOpShape("CTCLoss", {}, {Shape{5, X, 4}, Shape{3, 2}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[0], (Shape{5, 3, 4}));

  EXPECT_TRUE(ErrorContains(ShapeStatus("CTCLoss", {}, {Shape{5, 2, 4}, Shape{3, 3}}),
                            {"batch size", "[3,3]", "[5,2,4]"}));
  EXPECT_TRUE(ErrorContains(ShapeStatus("CTCLoss", {}, {Shape{5, 2, 4}, Shape{2}}),
                            {"input label", "[2]", "2 dims"}));
  EXPECT_TRUE(ErrorContains(ShapeStatus("CTCLoss", {}, {Shape{5, 2, 4}, Shape{2, 6}}),
                            {"max number of labels", "6", "[5,2,4]"}));
  EXPECT_TRUE(ErrorContains(ShapeStatus("CTCLoss", {}, {Shape{5, 8}, Shape{8, 2}}),
                            {"input data", "[5,8]", "3 dims"}));
  EXPECT_TRUE(ErrorContains(
      ShapeStatus("CTCLoss", {{"use_label_lengths", "1"}}, {Shape{5, 2, 4}, Shape{2, 3}, Shape{3}}),
      {"lengths", "[3]", "[2]"}));
}

TEST(CTCLossTest, TypesAndGradient) {
  auto t = InferOpType("CTCLoss", {}, {DType::kFloat32, DType::kInt32});
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->in[1], DType::kInt32);
  EXPECT_EQ(t->out[0], DType::kFloat32);
  EXPECT_EQ(t->out[1], DType::kFloat32);
  GradCase c = Differentiate("CTCLoss", {}, 2);
  ASSERT_EQ(c.grads.size(), 2u);
  ASSERT_NE(c.grads[0].node, nullptr);
  EXPECT_EQ(c.grads[0].node->op()->name(), "_backward_CTCLoss");
  ASSERT_EQ(c.grads[0].node->inputs.size(), 2u);
  EXPECT_EQ(c.grads[0].node->inputs[1].node, c.node);
  EXPECT_EQ(c.grads[0].node->inputs[1].index, 1u);
  EXPECT_EQ(c.grads[1].node, nullptr);
}

}  // namespace
}  // namespace symx
