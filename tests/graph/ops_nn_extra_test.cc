// Schema tests for the extra nn ops: SoftmaxActivation, softmin, Crop,
// L2Normalization, LRN, InstanceNorm, GroupNorm, _contrib_AdaptiveAvgPooling2D,
// _contrib_BilinearResize2D (parsing, shape inference and
// its errors, input/output names, gradients). Expected shapes follow MXNet 1.9.1.
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

std::vector<std::string> Outputs(const std::string& op, const AttrMap& attrs) {
  absl::StatusOr<NodeAttrs> a = ParseAttrs(op, attrs);
  EXPECT_TRUE(a.ok()) << a.status();
  if (!a.ok()) return {};
  return a->op->OutputNames(*a);
}

int Visible(const std::string& op, const AttrMap& attrs) {
  absl::StatusOr<NodeAttrs> a = ParseAttrs(op, attrs);
  EXPECT_TRUE(a.ok()) << a.status();
  return a.ok() ? a->op->NumVisibleOutputs(*a) : -1;
}

// ------------------------------------------------------------------ SoftmaxActivation

TEST(SoftmaxActivationTest, ParseShapesAndGradient) {
  EXPECT_TRUE(ParseStatus("SoftmaxActivation", {}).ok());
  EXPECT_TRUE(
      ErrorContains(ParseStatus("SoftmaxActivation", {{"mode", "spatial"}}), {"mode", "spatial"}));
  EXPECT_TRUE(ErrorContains(ParseStatus("SoftmaxActivation", {{"axis", "1"}}), {"axis"}));
  auto r = InferOpShape("SoftmaxActivation", {{"mode", "channel"}}, {kUnknown}, {Shape{2, 3, 4}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[0], (Shape{2, 3, 4}));
  EXPECT_TRUE(ErrorContains(ShapeStatus("SoftmaxActivation", {{"mode", "channel"}}, {Shape{2, 3}}),
                            {"input data", "[2,3]", "3 dims", "mode=channel"}));
  EXPECT_TRUE(ErrorContains(ShapeStatus("SoftmaxActivation", {}, {Shape{5}}),
                            {"input data", "[5]", "mode=instance"}));
  EXPECT_TRUE(ShapeStatus("SoftmaxActivation", {}, {Shape{2, 5}}).ok());
  GradCase c = Differentiate("SoftmaxActivation", {{"mode", "channel"}}, 1);
  ASSERT_EQ(c.grads.size(), 1u);
  ExpectBackward(c, "_backward_SoftmaxActivation", 1, {Out(c.head), Out(c.node)});
}

// ------------------------------------------------------------------ softmin

TEST(SoftminTest, ParseShapesTypesAndGradient) {
  EXPECT_TRUE(ErrorContains(ParseStatus("softmin", {{"use_length", "True"}}),
                            {"use_length", "not supported"}));
  EXPECT_TRUE(ErrorContains(ParseStatus("softmin", {{"temperature", "0"}}), {"temperature"}));
  EXPECT_TRUE(ErrorContains(ParseStatus("softmin", {{"dtype", "int32"}}), {"dtype"}));
  EXPECT_TRUE(ErrorContains(ParseStatus("softmin", {{"axis", "one"}}), {"axis", "one"}));
  EXPECT_TRUE(ErrorContains(ShapeStatus("softmin", {{"axis", "2"}}, {Shape{3, 4}}), {"axis"}));
  auto r = InferOpShape("softmin", {{"axis", "-2"}}, {Shape{3, 4}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[0], (Shape{3, 4}));
  auto t = InferOpType("softmin", {{"dtype", "float64"}}, {DType::kFloat32});
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->out[0], DType::kFloat64);
  absl::StatusOr<NodeAttrs> a = ParseAttrs("softmin", {{"dtype", "float64"}});
  ASSERT_TRUE(a.ok());
  EXPECT_TRUE(a->op->inplace()(*a).empty());
  GradCase c = Differentiate("softmin", {}, 1);
  ASSERT_EQ(c.grads.size(), 1u);
  ExpectBackward(c, "_backward_softmin", 1, {Out(c.head), Out(c.node)});
}

// ------------------------------------------------------------------ Crop

TEST(CropTest, NamesAndParse) {
  EXPECT_EQ(testing::InputNames("Crop", {{"num_args", "1"}, {"h_w", "(2, 2)"}}),
            (std::vector<std::string>{"data"}));
  EXPECT_EQ(testing::InputNames("Crop", {{"num_args", "2"}}),
            (std::vector<std::string>{"data", "crop_like"}));
  EXPECT_TRUE(ErrorContains(ParseStatus("Crop", {}), {"num_args"}));
  EXPECT_TRUE(ErrorContains(ParseStatus("Crop", {{"num_args", "3"}}), {"num_args", "3"}));
  EXPECT_TRUE(ErrorContains(ParseStatus("Crop", {{"num_args", "1"}}), {"h_w", "at least 1"}));
  EXPECT_TRUE(ErrorContains(ParseStatus("Crop", {{"num_args", "1"}, {"h_w", "(0, 3)"}}),
                            {"h_w", "(0, 3)"}));
  EXPECT_TRUE(ErrorContains(ParseStatus("Crop", {{"num_args", "1"}, {"h_w", "(2, 2, 2)"}}),
                            {"h_w", "two"}));
  EXPECT_TRUE(ErrorContains(
      ParseStatus("Crop", {{"num_args", "1"}, {"h_w", "(2, 2)"}, {"offset", "(-1, 0)"}}),
      {"offset", "(-1, 0)"}));
  EXPECT_TRUE(ErrorContains(ParseStatus("Crop", {{"num_args", "2"}, {"scale", "2"}}), {"scale"}));
}

TEST(CropTest, Shapes) {
  auto r = InferOpShape("Crop", {{"num_args", "1"}, {"h_w", "(4, 5)"}}, {Shape{2, 3, 7, 8}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[0], (Shape{2, 3, 4, 5}));
  r = InferOpShape("Crop", {{"num_args", "2"}}, {Shape{2, 3, 7, 8}, Shape{1, 1, 3, 5}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[0], (Shape{2, 3, 3, 5}));
  // N and C come back from the output; H and W cannot.
  r = InferOpShape("Crop", {{"num_args", "1"}, {"h_w", "(4, 5)"}}, {kUnknown}, {Shape{2, 3, 4, 5}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[0], (Shape{2, 3, X, X}));
  // Partial crop_like.
  r = InferOpShape("Crop", {{"num_args", "2"}}, {Shape{2, 3, 7, 8}, kUnknown});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[0], (Shape{2, 3, X, X}));
  // The like input takes the data's dtype when it has none.
  auto t = InferOpType("Crop", {{"num_args", "2"}}, {DType::kFloat64, DType::kUnknown});
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->in[1], DType::kFloat64);
  EXPECT_EQ(t->out[0], DType::kFloat64);
}

TEST(CropTest, ShapeErrors) {
  const AttrMap hw = {{"num_args", "1"}, {"h_w", "(4, 4)"}};
  EXPECT_TRUE(ErrorContains(ShapeStatus("Crop", hw, {Shape{2, 7, 8}}),
                            {"input data", "[2,7,8]", "4 dims"}));
  EXPECT_TRUE(
      ErrorContains(ShapeStatus("Crop", {{"num_args", "2"}}, {Shape{2, 3, 7, 8}, Shape{3, 5}}),
                    {"input crop_like", "[3,5]", "4 dims"}));
  EXPECT_TRUE(ErrorContains(
      ShapeStatus("Crop", {{"num_args", "1"}, {"h_w", "(8, 4)"}}, {Shape{2, 3, 7, 8}}),
      {"Crop", "height 8", "height 7", "[2,3,7,8]"}));
  EXPECT_TRUE(ErrorContains(
      ShapeStatus("Crop", {{"num_args", "2"}}, {Shape{2, 3, 7, 8}, Shape{1, 1, 3, 9}}),
      {"Crop", "width 9", "width 8"}));
  AttrMap off = hw;
  off["offset"] = "(4, 3)";
  EXPECT_TRUE(ErrorContains(ShapeStatus("Crop", off, {Shape{2, 3, 7, 8}}),
                            {"Crop", "offset (4, 3)", "height", "[4, 8)", "[2,3,7,8]"}));
  off["offset"] = "(3, 4)";
  EXPECT_TRUE(ShapeStatus("Crop", off, {Shape{2, 3, 7, 8}}).ok());
  // center_crop ignores the offset.
  off["offset"] = "(6, 6)";
  off["center_crop"] = "True";
  EXPECT_TRUE(ShapeStatus("Crop", off, {Shape{2, 3, 7, 8}}).ok());
}

TEST(CropTest, Gradient) {
  GradCase c = Differentiate("Crop", {{"num_args", "2"}}, 2);
  ASSERT_EQ(c.grads.size(), 2u);
  ASSERT_NE(c.grads[0].node, nullptr);
  EXPECT_EQ(c.grads[0].node->op()->name(), "_backward_Crop");
  EXPECT_EQ(c.grads[0].node->inputs.size(), 1u);
  // crop_like only lends its shape: zero gradient.
  EXPECT_EQ(c.grads[1].node, nullptr);
  GradCase d = Differentiate("Crop", {{"num_args", "1"}, {"h_w", "(2, 2)"}}, 1);
  ASSERT_EQ(d.grads.size(), 1u);
  ExpectBackward(d, "_backward_Crop", 1, {Out(d.head)});
}

// ------------------------------------------------------------------ L2Normalization

TEST(L2NormalizationTest, ShapesPerMode) {
  EXPECT_EQ(Outputs("L2Normalization", {}), (std::vector<std::string>{"output", "norm"}));
  EXPECT_EQ(Visible("L2Normalization", {}), 1);
  auto r = InferOpShape("L2Normalization", {}, {Shape{2, 3, 4, 5}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[0], (Shape{2, 3, 4, 5}));
  EXPECT_EQ(r->out[1], (Shape{2}));
  r = InferOpShape("L2Normalization", {{"mode", "channel"}}, {Shape{2, 3, 4, 5}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[1], (Shape{2, 4, 5}));
  r = InferOpShape("L2Normalization", {{"mode", "spatial"}}, {Shape{2, 3, 4, 5}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[1], (Shape{2, 3}));
  r = InferOpShape("L2Normalization", {}, {kUnknown}, {Shape{4, 6}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[0], (Shape{4, 6}));
}

TEST(L2NormalizationTest, Errors) {
  EXPECT_TRUE(
      ErrorContains(ParseStatus("L2Normalization", {{"mode", "batch"}}), {"mode", "batch"}));
  EXPECT_TRUE(ErrorContains(ParseStatus("L2Normalization", {{"eps", "-1"}}), {"eps", "-1"}));
  EXPECT_TRUE(ErrorContains(ShapeStatus("L2Normalization", {{"mode", "spatial"}}, {Shape{2, 6}}),
                            {"input data", "[2,6]", "3 dims", "mode=spatial"}));
  EXPECT_TRUE(
      ErrorContains(ShapeStatus("L2Normalization", {}, {Shape{2, 6}}, {Shape{2, 5}, kUnknown}),
                    {"Shape inconsistent", "[2,5]", "[2,6]"}));
}

TEST(L2NormalizationTest, Gradient) {
  GradCase c = Differentiate("L2Normalization", {{"mode", "channel"}}, 1);
  ASSERT_EQ(c.grads.size(), 1u);
  ExpectBackward(c, "_backward_L2Normalization", 1, {Out(c.head), Out(c.node, 0), Out(c.node, 1)});
}

// ------------------------------------------------------------------ LRN

TEST(LRNTest, ParseShapesAndGradient) {
  EXPECT_TRUE(ErrorContains(ParseStatus("LRN", {}), {"nsize", "missing"}));
  EXPECT_TRUE(ErrorContains(ParseStatus("LRN", {{"nsize", "4"}}), {"nsize", "4", "odd"}));
  EXPECT_TRUE(ErrorContains(ParseStatus("LRN", {{"nsize", "0"}}), {"nsize", "0"}));
  EXPECT_TRUE(ErrorContains(ParseStatus("LRN", {{"nsize", "3"}, {"alpha", "x"}}), {"alpha", "x"}));
  EXPECT_TRUE(
      ParseStatus("LRN", {{"nsize", "5"}, {"alpha", "0.001"}, {"beta", "0.75"}, {"knorm", "1"}})
          .ok());
  EXPECT_EQ(Outputs("LRN", {{"nsize", "3"}}), (std::vector<std::string>{"output", "tmp_norm"}));
  EXPECT_EQ(Visible("LRN", {{"nsize", "3"}}), 1);
  auto r = InferOpShape("LRN", {{"nsize", "3"}}, {Shape{2, 5, 4, 4}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[0], (Shape{2, 5, 4, 4}));
  EXPECT_EQ(r->out[1], (Shape{2, 5, 4, 4}));
  EXPECT_TRUE(ErrorContains(ShapeStatus("LRN", {{"nsize", "3"}}, {Shape{2, 5, 4}}),
                            {"input data", "[2,5,4]", "4 dims"}));
  GradCase c = Differentiate("LRN", {{"nsize", "3"}}, 1);
  ASSERT_EQ(c.grads.size(), 1u);
  ExpectBackward(c, "_backward_LRN", 1, {Out(c.head), c.node->inputs[0], Out(c.node, 1)});
}

// ------------------------------------------------------------------ InstanceNorm / GroupNorm

TEST(InstanceNormTest, ShapesErrorsAndGradient) {
  EXPECT_EQ(testing::InputNames("InstanceNorm", {}),
            (std::vector<std::string>{"data", "gamma", "beta"}));
  EXPECT_EQ(Outputs("InstanceNorm", {}), (std::vector<std::string>{"output", "mean", "var"}));
  EXPECT_EQ(Visible("InstanceNorm", {}), 1);
  auto r = InferOpShape("InstanceNorm", {}, {Shape{2, 3, 4, 5}, kUnknown, kUnknown});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[1], (Shape{3}));
  EXPECT_EQ(r->in[2], (Shape{3}));
  EXPECT_EQ(r->out[1], (Shape{2, 3}));
  EXPECT_EQ(r->out[2], (Shape{2, 3}));
  // The channel count comes back from gamma.
  r = InferOpShape("InstanceNorm", {}, {Shape{2, X, 4}, Shape{6}, kUnknown});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[0], (Shape{2, 6, 4}));
  EXPECT_EQ(r->in[2], (Shape{6}));
  EXPECT_TRUE(ErrorContains(ShapeStatus("InstanceNorm", {}, {Shape{2, 3, 4}, Shape{4}, kUnknown}),
                            {"input gamma", "[4]", "[3]"}));
  EXPECT_TRUE(ErrorContains(ShapeStatus("InstanceNorm", {}, {Shape{2, 3}, kUnknown, kUnknown}),
                            {"input data", "[2,3]", "3 dims"}));
  EXPECT_TRUE(ErrorContains(ParseStatus("InstanceNorm", {{"eps", "-0.1"}}), {"eps"}));
  EXPECT_TRUE(ErrorContains(ParseStatus("InstanceNorm", {{"axis", "1"}}), {"axis"}));
  GradCase c = Differentiate("InstanceNorm", {}, 3);
  ASSERT_EQ(c.grads.size(), 3u);
  ExpectBackward(
      c, "_backward_InstanceNorm", 3,
      {Out(c.head), c.node->inputs[0], c.node->inputs[1], Out(c.node, 1), Out(c.node, 2)});
}

TEST(GroupNormTest, GammaIsPerGroup) {
  EXPECT_EQ(Outputs("GroupNorm", {}), (std::vector<std::string>{"output", "mean", "std"}));
  EXPECT_EQ(Visible("GroupNorm", {}), 1);
  EXPECT_EQ(Visible("GroupNorm", {{"output_mean_var", "True"}}), 3);
  // MXNet 1.9.1: gamma and beta are (num_groups,), mean and std (N, num_groups).
  auto r =
      InferOpShape("GroupNorm", {{"num_groups", "3"}}, {Shape{2, 6, 4, 5}, kUnknown, kUnknown});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[1], (Shape{3}));
  EXPECT_EQ(r->in[2], (Shape{3}));
  EXPECT_EQ(r->out[0], (Shape{2, 6, 4, 5}));
  EXPECT_EQ(r->out[1], (Shape{2, 3}));
  EXPECT_EQ(r->out[2], (Shape{2, 3}));
  r = InferOpShape("GroupNorm", {}, {Shape{2, 6, 4}, kUnknown, kUnknown});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[1], (Shape{1}));
}

TEST(GroupNormTest, Errors) {
  EXPECT_TRUE(ErrorContains(ParseStatus("GroupNorm", {{"num_groups", "0"}}), {"num_groups", "0"}));
  EXPECT_TRUE(ErrorContains(ParseStatus("GroupNorm", {{"eps", "abc"}}), {"eps", "abc"}));
  EXPECT_TRUE(ErrorContains(
      ShapeStatus("GroupNorm", {{"num_groups", "4"}}, {Shape{2, 6, 4}, kUnknown, kUnknown}),
      {"GroupNorm", "[2,6,4]", "num_groups=4"}));
  EXPECT_TRUE(ErrorContains(
      ShapeStatus("GroupNorm", {{"num_groups", "2"}}, {Shape{2, 6, 4}, Shape{6}, kUnknown}),
      {"input gamma", "[6]", "[2]"}));
  EXPECT_TRUE(ErrorContains(ShapeStatus("GroupNorm", {}, {Shape{2, 6}, kUnknown, kUnknown}),
                            {"input data", "[2,6]", "3 dims"}));
  EXPECT_TRUE(ErrorContains(ShapeStatus("GroupNorm", {}, {Shape{2, 6, 4}, Shape{1, 1}, kUnknown}),
                            {"input gamma", "[1,1]", "1 dim"}));
}

TEST(GroupNormTest, Gradient) {
  GradCase c = Differentiate("GroupNorm", {{"num_groups", "2"}}, 3);
  ASSERT_EQ(c.grads.size(), 3u);
  ExpectBackward(
      c, "_backward_GroupNorm", 3,
      {Out(c.head), c.node->inputs[0], c.node->inputs[1], Out(c.node, 1), Out(c.node, 2)});
}

// ------------------------------------------------------------------ contrib pooling / resize

TEST(AdaptiveAvgPooling2DTest, ParseAndShapes) {
  const std::string op = "_contrib_AdaptiveAvgPooling2D";
  auto r = InferOpShape(op, {}, {Shape{2, 3, 7, 5}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[0], (Shape{2, 3, 1, 1}));
  r = InferOpShape(op, {{"output_size", "4"}}, {Shape{2, 3, 7, 5}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[0], (Shape{2, 3, 4, 4}));
  r = InferOpShape(op, {{"output_size", "(3, 9)"}}, {Shape{2, 3, 7, 5}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[0], (Shape{2, 3, 3, 9}));
  r = InferOpShape(op, {{"output_size", "(3, 2)"}}, {kUnknown}, {Shape{2, 3, 3, 2}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[0], (Shape{2, 3, X, X}));
  EXPECT_TRUE(ErrorContains(ParseStatus(op, {{"output_size", "(1, 2, 3)"}}), {"output_size"}));
  EXPECT_TRUE(ErrorContains(ParseStatus(op, {{"output_size", "(0, 2)"}}), {"output_size", ">= 1"}));
  EXPECT_TRUE(
      ErrorContains(ShapeStatus(op, {}, {Shape{2, 3, 7}}), {"input data", "[2,3,7]", "4 dims"}));
  GradCase c = Differentiate(op, {{"output_size", "2"}}, 1);
  ASSERT_EQ(c.grads.size(), 1u);
  ExpectBackward(c, "_backward_contrib_AdaptiveAvgPooling2D", 1, {Out(c.head)});
}

TEST(BilinearResize2DTest, ParseAndShapes) {
  const std::string op = "_contrib_BilinearResize2D";
  EXPECT_EQ(testing::InputNames(op, {}), (std::vector<std::string>{"data"}));
  EXPECT_EQ(testing::InputNames(op, {{"mode", "like"}}),
            (std::vector<std::string>{"data", "like"}));
  auto r = InferOpShape(op, {{"height", "7"}, {"width", "3"}}, {Shape{1, 2, 4, 5}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[0], (Shape{1, 2, 7, 3}));
  // Scales (as MXNet: int(float(in) * scale)) override height and width.
  r = InferOpShape(op, {{"height", "7"}, {"scale_height", "0.7"}, {"scale_width", "1.3"}},
                   {Shape{1, 2, 4, 5}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[0], (Shape{1, 2, 2, 6}));
  r = InferOpShape(op, {{"mode", "like"}}, {Shape{1, 2, 4, 5}, Shape{3, 3, 6, 7}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[0], (Shape{1, 2, 6, 7}));
  EXPECT_TRUE(
      ErrorContains(ParseStatus(op, {{"mode", "odd_scale"}}), {"mode", "odd_scale", "scale"}));
  EXPECT_TRUE(ErrorContains(ParseStatus(op, {{"mode", "bicubic"}}), {"mode", "bicubic"}));
  EXPECT_TRUE(ErrorContains(ParseStatus(op, {{"scale_height", "2"}}), {"scale_width", "together"}));
  EXPECT_TRUE(ErrorContains(ParseStatus(op, {{"scale_height", "-2"}, {"scale_width", "2"}}),
                            {"scale_height", "> 0"}));
  EXPECT_TRUE(ErrorContains(ParseStatus(op, {{"height", "0"}}), {"height", "0"}));
  EXPECT_TRUE(ErrorContains(
      ShapeStatus(op, {{"scale_height", "0.1"}, {"scale_width", "1"}}, {Shape{1, 2, 4, 5}}),
      {"_contrib_BilinearResize2D", "empty", "[1,2,4,5]"}));
  EXPECT_TRUE(ErrorContains(ShapeStatus(op, {{"mode", "like"}}, {Shape{1, 2, 4, 5}, Shape{6, 7}}),
                            {"input like", "[6,7]", "4 dims"}));
  EXPECT_TRUE(ErrorContains(ShapeStatus(op, {{"mode", "to_even_down"}}, {Shape{1, 2, 1, 5}}),
                            {"_contrib_BilinearResize2D", "to_even_down", "empty", "[1,2,1,5]"}));
  // The modes that derive the size from the input's (checked with MXNet 1.9.1).
  struct ModeCase {
    AttrMap attrs;
    Shape in, out;
  };
  const std::vector<ModeCase> modes = {
      {{{"mode", "to_even_down"}}, Shape{1, 1, 4, 5}, Shape{1, 1, 4, 4}},
      {{{"mode", "to_even_up"}, {"height", "9"}}, Shape{1, 1, 4, 5}, Shape{1, 1, 4, 6}},
      {{{"mode", "to_odd_down"}}, Shape{1, 1, 4, 5}, Shape{1, 1, 3, 5}},
      {{{"mode", "to_odd_up"}}, Shape{1, 1, 4, 5}, Shape{1, 1, 5, 5}},
      {{{"mode", "odd_scale"}, {"scale_height", "2"}, {"scale_width", "2"}},
       Shape{1, 1, 4, 5},
       Shape{1, 1, 8, 9}},
      {{{"mode", "odd_scale"}, {"scale_height", "0.3"}, {"scale_width", "0.7"}},
       Shape{1, 1, 7, 7},
       Shape{1, 1, 2, 5}},
  };
  for (const ModeCase& m : modes) {
    auto mr = InferOpShape(op, m.attrs, {m.in});
    ASSERT_TRUE(mr.ok()) << mr.status();
    EXPECT_EQ(mr->out[0], m.out) << m.attrs.at("mode");
  }
  GradCase c = Differentiate(op, {{"mode", "like"}}, 2);
  ASSERT_EQ(c.grads.size(), 2u);
  ASSERT_NE(c.grads[0].node, nullptr);
  EXPECT_EQ(c.grads[0].node->op()->name(), "_backward_contrib_BilinearResize2D");
  EXPECT_EQ(c.grads[1].node, nullptr);
}

}  // namespace
}  // namespace symx
