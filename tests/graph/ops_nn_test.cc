// Tests for the nn op family: FullyConnected, Convolution, Deconvolution, Pooling,
// Activation, LeakyReLU, BatchNorm, LayerNorm, Dropout, Embedding, UpSampling, dot,
// batch_dot. Expected shapes are hand-computed from MXNet 1.x's rules.
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "graph/dtype.h"
#include "graph/node.h"
#include "graph/op.h"
#include "graph/ops/op_helpers.h"
#include "graph/shape.h"
#include "gtest/gtest.h"
#include "tests/graph/op_test_util.h"

namespace symx {


namespace {

using ::symx::testing::InferOpShape;
using ::symx::testing::InferOpType;
using ::symx::testing::ParseAttrs;

constexpr int64_t X = kUnknownDim;
const Shape kUnknown;

::testing::AssertionResult ErrorContains(const absl::Status& status,
                                         const std::vector<std::string>& parts) {
  if (status.ok()) return ::testing::AssertionFailure() << "expected an error, got OK";
  for (const std::string& part : parts) {
    if (std::string(status.message()).find(part) == std::string::npos) {
      return ::testing::AssertionFailure()
             << "error \"" << status.message() << "\" lacks \"" << part << "\"";
    }
  }
  return ::testing::AssertionSuccess();
}

absl::Status ShapeStatus(const std::string& op, const AttrMap& attrs, std::vector<Shape> in,
                         std::vector<Shape> out = {}) {
  return InferOpShape(op, attrs, std::move(in), std::move(out)).status();
}

absl::Status ParseStatus(const std::string& op, const AttrMap& attrs) {
  return ParseAttrs(op, attrs).status();
}

// A node of `op` over fresh variables, and its gradient for a head gradient on output 0.
struct GradCase {
  NodePtr node;
  NodePtr head;
  std::vector<NodeEntry> grads;
};

GradCase Differentiate(const std::string& op, const AttrMap& attrs, int num_inputs) {
  std::vector<NodeEntry> inputs;
  for (int i = 0; i < num_inputs; ++i) {
    inputs.push_back(Out(MakeVariableNode("in" + std::to_string(i))));
  }
  absl::StatusOr<NodePtr> node = MakeOpNode(op, "fwd", attrs, inputs);
  EXPECT_TRUE(node.ok()) << node.status();
  if (!node.ok()) return {};
  GradCase c;
  c.node = *node;
  c.head = MakeVariableNode("head_grad");
  std::vector<NodeEntry> ograds(c.node->num_outputs());
  ograds[0] = Out(c.head);
  c.grads = c.node->op()->gradient()(c.node, ograds);
  return c;
}

// Checks that grads[i] is output i of one backward node of `op` over `inputs`.
void ExpectBackward(const GradCase& c, const std::string& op, int num_grads,
                    const std::vector<NodeEntry>& inputs) {
  ASSERT_GE(c.grads.size(), static_cast<size_t>(num_grads));
  ASSERT_TRUE(c.grads[0].node);
  const NodePtr& bwd = c.grads[0].node;
  EXPECT_EQ(bwd->op()->name(), op);
  EXPECT_TRUE(bwd->op()->is_backward());
  EXPECT_EQ(bwd->num_outputs(), num_grads);
  ASSERT_EQ(bwd->control_deps.size(), 1u);
  EXPECT_EQ(bwd->control_deps[0], c.node);
  for (int i = 0; i < num_grads; ++i) {
    EXPECT_EQ(c.grads[i].node, bwd);
    EXPECT_EQ(c.grads[i].index, static_cast<uint32_t>(i));
  }
  ASSERT_EQ(bwd->inputs.size(), inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) EXPECT_EQ(bwd->inputs[i], inputs[i]) << i;
  EXPECT_EQ(bwd->attrs.dict, c.node->attrs.dict);
}

std::vector<std::string> InputNames(const std::string& op, const AttrMap& attrs) {
  absl::StatusOr<NodeAttrs> a = ParseAttrs(op, attrs);
  EXPECT_TRUE(a.ok()) << a.status();
  return a.ok() ? a->op->InputNames(*a) : std::vector<std::string>{};
}

// ---------------------------------------------------------------------------------------
// FullyConnected

TEST(FullyConnectedTest, FlattensData) {
  auto r = InferOpShape("FullyConnected", {{"num_hidden", "10"}},
                        {Shape{5, 3, 4, 4}, kUnknown, kUnknown});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[1], (Shape{10, 48}));
  EXPECT_EQ(r->in[2], (Shape{10}));
  EXPECT_EQ(r->out[0], (Shape{5, 10}));
}

TEST(FullyConnectedTest, NoFlattenKeepsLeadingDims) {
  auto r = InferOpShape("FullyConnected",
                        {{"num_hidden", "10"}, {"flatten", "False"}, {"no_bias", "True"}},
                        {Shape{2, 7, 16}, kUnknown});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[1], (Shape{10, 16}));
  EXPECT_EQ(r->out[0], (Shape{2, 7, 10}));
  EXPECT_EQ(InputNames("FullyConnected", {{"num_hidden", "3"}, {"no_bias", "True"}}),
            (std::vector<std::string>{"data", "weight"}));
}

TEST(FullyConnectedTest, PartialInference) {
  // MXNet's test: FC21(a) + c with a (0, 10), c (5, 0) gives a (5, 10).
  auto r = InferOpShape("FullyConnected", {{"num_hidden", "21"}},
                        {Shape{X, 10}, kUnknown, kUnknown}, {Shape{5, 21}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[0], (Shape{5, 10}));
  EXPECT_EQ(r->in[1], (Shape{21, 10}));
  // Weight (128, 0) and data (10, 784) give weight (128, 784).
  r = InferOpShape("FullyConnected", {{"num_hidden", "128"}},
                   {Shape{10, 784}, Shape{128, X}, kUnknown});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[1], (Shape{128, 784}));
  EXPECT_EQ(r->out[0], (Shape{10, 128}));
  // The weight fills a 2-D data's width.
  r = InferOpShape("FullyConnected", {{"num_hidden", "4"}}, {Shape{X, X}, Shape{4, 9}, kUnknown});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[0], (Shape{X, 9}));
  EXPECT_EQ(r->out[0], (Shape{X, 4}));
  // Unknown data leaves the weight unknown (MXNet's h2h_weight stays "()").
  r = InferOpShape("FullyConnected", {{"num_hidden", "128"}}, {kUnknown, kUnknown, kUnknown},
                   {Shape{10, 128}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[1], kUnknown);
  // An unknown flattened dim makes the weight's width unknown.
  r = InferOpShape("FullyConnected", {{"num_hidden", "8"}}, {Shape{2, X, 3}, kUnknown, kUnknown});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[1], (Shape{8, X}));
}

TEST(FullyConnectedTest, ColumnBiasAccepted) {
  auto r =
      InferOpShape("FullyConnected", {{"num_hidden", "10"}}, {Shape{2, 3}, kUnknown, Shape{10, 1}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[2], (Shape{10, 1}));
}

TEST(FullyConnectedTest, Conflicts) {
  EXPECT_TRUE(ErrorContains(ShapeStatus("FullyConnected", {{"num_hidden", "1000"}},
                                        {Shape{100, 100}, Shape{1, 100}, kUnknown}),
                            {"Shape inconsistent for input weight", "[1,100]", "[1000,100]"}));
  EXPECT_TRUE(ErrorContains(
      ShapeStatus("FullyConnected", {{"num_hidden", "10"}}, {Shape{2, 3}, kUnknown, Shape{11}}),
      {"input bias"}));
  EXPECT_TRUE(ErrorContains(ShapeStatus("FullyConnected", {{"num_hidden", "10"}},
                                        {Shape{2, 3}, kUnknown, kUnknown}, {Shape{3, 10}}),
                            {"output"}));
}

TEST(FullyConnectedTest, WrongNdim) {
  EXPECT_TRUE(ErrorContains(ShapeStatus("FullyConnected", {{"num_hidden", "10"}},
                                        {Shape{2, 3}, kUnknown, kUnknown}, {Shape{2, 3, 10}}),
                            {"output", "2 dims"}));
  EXPECT_TRUE(ErrorContains(ShapeStatus("FullyConnected", {{"num_hidden", "10"}},
                                        {Shape(std::vector<int64_t>{}), kUnknown, kUnknown}),
                            {"input data"}));
  EXPECT_TRUE(ErrorContains(ShapeStatus("FullyConnected", {{"num_hidden", "10"}},
                                        {Shape{2, 3}, Shape{10, 3, 1}, kUnknown}),
                            {"input weight"}));
}

TEST(FullyConnectedTest, BadAttributes) {
  EXPECT_TRUE(
      ErrorContains(ParseStatus("FullyConnected", {{"num_hidden", "0"}}), {"num_hidden", "> 0"}));
  EXPECT_TRUE(ErrorContains(ParseStatus("FullyConnected", {}), {"num_hidden", "missing"}));
  EXPECT_TRUE(
      ErrorContains(ParseStatus("FullyConnected", {{"num_hidden", "ten"}}), {"num_hidden", "ten"}));
  EXPECT_TRUE(ErrorContains(ParseStatus("FullyConnected", {{"num_hidden", "3"}, {"flaten", "1"}}),
                            {"unknown attribute 'flaten'"}));
  EXPECT_TRUE(ParseStatus("FullyConnected", {{"num_hidden", "3"}, {"__lr_mult__", "2"}}).ok());
}

TEST(FullyConnectedTest, Gradient) {
  GradCase c = Differentiate("FullyConnected", {{"num_hidden", "4"}}, 3);
  ASSERT_EQ(c.grads.size(), 3u);
  ExpectBackward(c, "_backward_FullyConnected", 3,
                 {Out(c.head), c.node->inputs[0], c.node->inputs[1]});
  c = Differentiate("FullyConnected", {{"num_hidden", "4"}, {"no_bias", "True"}}, 2);
  ASSERT_EQ(c.grads.size(), 2u);
  ExpectBackward(c, "_backward_FullyConnected", 2,
                 {Out(c.head), c.node->inputs[0], c.node->inputs[1]});
}

// ---------------------------------------------------------------------------------------
// Convolution

const AttrMap kResNetStem = {
    {"num_filter", "64"}, {"kernel", "(7, 7)"}, {"pad", "(3, 3)"}, {"stride", "(2, 2)"}};

TEST(ConvolutionTest, ResNetStem) {
  auto r = InferOpShape("Convolution", kResNetStem, {Shape{1, 3, 224, 224}, kUnknown, kUnknown});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[1], (Shape{64, 3, 7, 7}));
  EXPECT_EQ(r->in[2], (Shape{64}));
  EXPECT_EQ(r->out[0], (Shape{1, 64, 112, 112}));
}

TEST(ConvolutionTest, OneAndThreeDimsDilationGroups) {
  auto r = InferOpShape("Convolution", {{"num_filter", "8"}, {"kernel", "(3,)"}},
                        {Shape{2, 4, 10}, kUnknown, kUnknown});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[1], (Shape{8, 4, 3}));
  EXPECT_EQ(r->out[0], (Shape{2, 8, 8}));

  r = InferOpShape("Convolution",
                   {{"num_filter", "6"},
                    {"kernel", "(3, 3, 3)"},
                    {"pad", "(1, 1, 1)"},
                    {"stride", "(2, 2, 2)"},
                    {"no_bias", "True"}},
                   {Shape{1, 2, 8, 8, 8}, kUnknown});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[1], (Shape{6, 2, 3, 3, 3}));
  EXPECT_EQ(r->out[0], (Shape{1, 6, 4, 4, 4}));

  // Dilation 2 makes a 3-wide kernel span 5: 10 - 5 + 1 = 6.
  r = InferOpShape("Convolution", {{"num_filter", "1"}, {"kernel", "(3, 3)"}, {"dilate", "(2, 2)"}},
                   {Shape{1, 1, 10, 10}, kUnknown, kUnknown});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[0], (Shape{1, 1, 6, 6}));

  r = InferOpShape(
      "Convolution",
      {{"num_filter", "64"}, {"num_group", "4"}, {"kernel", "(3, 3)"}, {"pad", "(1, 1)"}},
      {Shape{1, 32, 14, 14}, kUnknown, kUnknown});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[1], (Shape{64, 8, 3, 3}));
  EXPECT_EQ(r->out[0], (Shape{1, 64, 14, 14}));
}

TEST(ConvolutionTest, PartialInference) {
  // MXNet's test: data (1, 0, 0, 0) gives weight (64, 0, 7, 7).
  auto r = InferOpShape("Convolution", kResNetStem, {Shape{1, X, X, X}, kUnknown, kUnknown});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[1], (Shape{64, X, 7, 7}));
  EXPECT_EQ(r->in[1].ToLegacy(), (std::vector<int64_t>{64, 0, 7, 7}));
  EXPECT_EQ(r->out[0], (Shape{1, 64, X, X}));

  // Nothing is known: nothing is inferred.
  r = InferOpShape("Convolution", kResNetStem, {kUnknown, kUnknown, kUnknown});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[1], kUnknown);
  EXPECT_EQ(r->out[0], kUnknown);

  // MXNet's test: Conv21 k3 p1 on a (0, 10, 0, 0), output (5, 21, 32, 32): a (5, 10, 32, 32).
  r = InferOpShape("Convolution", {{"num_filter", "21"}, {"kernel", "(3, 3)"}, {"pad", "(1, 1)"}},
                   {Shape{X, 10, X, X}, kUnknown, kUnknown}, {Shape{5, 21, 32, 32}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[0], (Shape{5, 10, 32, 32}));

  // A strided output does not pin the input size; the weight gives the channels.
  r = InferOpShape("Convolution", kResNetStem, {kUnknown, Shape{64, 3, 7, 7}, kUnknown},
                   {Shape{1, 64, 112, 112}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[0], (Shape{1, 3, X, X}));
}

TEST(ConvolutionTest, Conflicts) {
  EXPECT_TRUE(ErrorContains(ShapeStatus("Convolution", kResNetStem,
                                        {Shape{1, 3, 224, 224}, Shape{64, 3, 5, 5}, kUnknown}),
                            {"Shape inconsistent for input weight", "[64,3,5,5]", "[64,3,7,7]"}));
  EXPECT_TRUE(ErrorContains(
      ShapeStatus("Convolution", kResNetStem, {Shape{1, 3, 224, 224}, kUnknown, kUnknown},
                  {Shape{1, 64, 100, 100}}),
      {"output"}));
  EXPECT_TRUE(ErrorContains(
      ShapeStatus("Convolution", {{"num_filter", "4"}, {"num_group", "2"}, {"kernel", "(1, 1)"}},
                  {Shape{1, 3, 4, 4}, kUnknown, kUnknown}),
      {"num_group", "[1,3,4,4]"}));
}

TEST(ConvolutionTest, InvalidSizes) {
  EXPECT_TRUE(ErrorContains(ShapeStatus("Convolution", {{"num_filter", "4"}, {"kernel", "(5, 5)"}},
                                        {Shape{1, 3, 2, 2}, kUnknown, kUnknown}),
                            {"Convolution", "kernel size 5", "[1,3,2,2]"}));
  // Huge dims do not overflow.
  EXPECT_TRUE(ShapeStatus("Convolution", {{"num_filter", "4"}, {"kernel", "(3,)"}},
                          {Shape{1, 3, int64_t{1} << 62}, kUnknown, kUnknown})
                  .ok());
  EXPECT_FALSE(ShapeStatus("Convolution", {{"num_filter", "4"}, {"kernel", "(3,)"}},
                           {Shape{1, 3, -7}, kUnknown, kUnknown})
                   .ok());
}

TEST(ConvolutionTest, WrongNdim) {
  EXPECT_TRUE(
      ErrorContains(ShapeStatus("Convolution", kResNetStem, {Shape{1, 3, 224}, kUnknown, kUnknown}),
                    {"input data", "4 dims"}));
  EXPECT_TRUE(ErrorContains(
      ShapeStatus("Convolution", kResNetStem, {kUnknown, kUnknown, kUnknown}, {Shape{1, 64, 2}}),
      {"output"}));
}

TEST(ConvolutionTest, BadAttributes) {
  EXPECT_TRUE(ErrorContains(ParseStatus("Convolution", {{"num_filter", "4"}}), {"kernel"}));
  EXPECT_TRUE(ErrorContains(ParseStatus("Convolution", {{"num_filter", "4"}, {"kernel", "(0, 3)"}}),
                            {"kernel"}));
  EXPECT_TRUE(ErrorContains(
      ParseStatus("Convolution", {{"num_filter", "4"}, {"kernel", "(1, 2, 3, 4)"}}), {"kernel"}));
  EXPECT_TRUE(ErrorContains(
      ParseStatus("Convolution", {{"num_filter", "4"}, {"kernel", "(3, 3)"}, {"stride", "(2,)"}}),
      {"stride", "2 values"}));
  EXPECT_TRUE(ErrorContains(
      ParseStatus("Convolution", {{"num_filter", "4"}, {"kernel", "(3, 3)"}, {"pad", "(-1, 0)"}}),
      {"pad"}));
  EXPECT_TRUE(ErrorContains(
      ParseStatus("Convolution", {{"num_filter", "4"}, {"kernel", "(3, 3)"}, {"layout", "NHWC"}}),
      {"layout", "channel-last"}));
  EXPECT_TRUE(ErrorContains(
      ParseStatus("Convolution", {{"num_filter", "4"}, {"kernel", "(3, 3)"}, {"layout", "NCW"}}),
      {"layout"}));
  EXPECT_TRUE(ErrorContains(
      ParseStatus("Convolution",
                  {{"num_filter", "4"}, {"kernel", "(3, 3)"}, {"cudnn_tune", "slowest"}}),
      {"cudnn_tune"}));
  EXPECT_TRUE(ErrorContains(ParseStatus("Convolution", {{"num_filter", "0"}, {"kernel", "(3, 3)"}}),
                            {"num_filter"}));
  EXPECT_TRUE(ErrorContains(
      ParseStatus("Convolution", {{"num_filter", "6"}, {"num_group", "4"}, {"kernel", "(3, 3)"}}),
      {"num_group", "divisible"}));
  EXPECT_TRUE(ParseStatus("Convolution", {{"num_filter", "4"},
                                          {"kernel", "(3, 3)"},
                                          {"stride", "()"},
                                          {"layout", "NCHW"},
                                          {"cudnn_tune", "None"},
                                          {"workspace", "2048"}})
                  .ok());
}

TEST(ConvolutionTest, Gradient) {
  GradCase c = Differentiate("Convolution", kResNetStem, 3);
  ASSERT_EQ(c.grads.size(), 3u);
  ExpectBackward(c, "_backward_Convolution", 3,
                 {Out(c.head), c.node->inputs[0], c.node->inputs[1]});
}

// ---------------------------------------------------------------------------------------
// Deconvolution

const AttrMap kUpConv = {
    {"num_filter", "32"}, {"kernel", "(4, 4)"}, {"stride", "(2, 2)"}, {"pad", "(1, 1)"}};

TEST(DeconvolutionTest, Shapes) {
  // 2 * (56 - 1) + 4 - 2 * 1 = 112; no bias by default.
  EXPECT_EQ(InputNames("Deconvolution", kUpConv), (std::vector<std::string>{"data", "weight"}));
  auto r = InferOpShape("Deconvolution", kUpConv, {Shape{1, 64, 56, 56}, kUnknown});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[1], (Shape{64, 32, 4, 4}));
  EXPECT_EQ(r->out[0], (Shape{1, 32, 112, 112}));

  // adj adds to the output: 2 * 6 + 3 - 2 + 1 = 14.
  r = InferOpShape("Deconvolution",
                   {{"num_filter", "3"},
                    {"kernel", "(3,)"},
                    {"stride", "(2,)"},
                    {"pad", "(1,)"},
                    {"adj", "(1,)"},
                    {"no_bias", "False"}},
                   {Shape{2, 5, 7}, kUnknown, kUnknown});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[1], (Shape{5, 3, 3}));
  EXPECT_EQ(r->in[2], (Shape{3}));
  EXPECT_EQ(r->out[0], (Shape{2, 3, 14}));

  r = InferOpShape(
      "Deconvolution",
      {{"num_filter", "4"}, {"num_group", "2"}, {"kernel", "(2, 2, 2)"}, {"stride", "(2, 2, 2)"}},
      {Shape{1, 8, 3, 3, 3}, kUnknown});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[1], (Shape{8, 2, 2, 2, 2}));
  EXPECT_EQ(r->out[0], (Shape{1, 4, 6, 6, 6}));
}

TEST(DeconvolutionTest, TargetShape) {
  AttrMap attrs = kUpConv;
  attrs["target_shape"] = "(113, 112)";
  auto r = InferOpShape("Deconvolution", attrs, {Shape{1, 64, 56, 56}, kUnknown});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[0], (Shape{1, 32, 113, 112}));
  // The target fixes the output size even before the input size is known.
  r = InferOpShape("Deconvolution", attrs, {Shape{1, 64, X, X}, kUnknown});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[0], (Shape{1, 32, 113, 112}));
  attrs["target_shape"] = "(200, 200)";
  EXPECT_TRUE(ErrorContains(ShapeStatus("Deconvolution", attrs, {Shape{1, 64, 56, 56}, kUnknown}),
                            {"target_shape", "[1,64,56,56]"}));
  // All zeros means no target.
  attrs["target_shape"] = "(0, 0)";
  r = InferOpShape("Deconvolution", attrs, {Shape{1, 64, 56, 56}, kUnknown});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[0], (Shape{1, 32, 112, 112}));
  attrs["target_shape"] = "(0, 5)";
  EXPECT_TRUE(ErrorContains(ParseStatus("Deconvolution", attrs), {"target_shape"}));
}

TEST(DeconvolutionTest, PartialAndBackward) {
  auto r = InferOpShape("Deconvolution", kUpConv, {kUnknown, Shape{64, 32, 4, 4}},
                        {Shape{1, 32, 112, 112}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[0], (Shape{1, 64, 56, 56}));
  r = InferOpShape("Deconvolution", kUpConv, {Shape{X, 64, X, X}, kUnknown});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[0], (Shape{X, 32, X, X}));
}

TEST(DeconvolutionTest, ErrorsAndAttributes) {
  EXPECT_TRUE(ErrorContains(
      ShapeStatus("Deconvolution", {{"num_filter", "2"}, {"kernel", "(1, 1)"}, {"pad", "(5, 5)"}},
                  {Shape{1, 3, 1, 1}, kUnknown}),
      {"Deconvolution", "output size", "[1,3,1,1]"}));
  EXPECT_TRUE(ErrorContains(
      ShapeStatus("Deconvolution", kUpConv, {Shape{1, 64, 56, 56}, Shape{64, 16, 4, 4}}),
      {"Shape inconsistent for input weight"}));
  EXPECT_TRUE(ErrorContains(ShapeStatus("Deconvolution", kUpConv, {Shape{1, 64, 56}, kUnknown}),
                            {"input data"}));
  EXPECT_TRUE(ErrorContains(
      ParseStatus(
          "Deconvolution",
          {{"num_filter", "2"}, {"kernel", "(3, 3)"}, {"stride", "(2, 2)"}, {"adj", "(2, 0)"}}),
      {"adj", "stride"}));
  EXPECT_TRUE(ErrorContains(
      ParseStatus("Deconvolution", {{"num_filter", "2"}, {"kernel", "(3, 3)"}, {"adj", "(0,)"}}),
      {"adj"}));
  EXPECT_TRUE(
      ErrorContains(ParseStatus("Deconvolution",
                                {{"num_filter", "2"}, {"kernel", "(3, 3)"}, {"workspace", "-1"}}),
                    {"workspace"}));
}

TEST(DeconvolutionTest, Gradient) {
  GradCase c = Differentiate("Deconvolution", kUpConv, 2);
  ASSERT_EQ(c.grads.size(), 2u);
  ExpectBackward(c, "_backward_Deconvolution", 2,
                 {Out(c.head), c.node->inputs[0], c.node->inputs[1]});
}

// ---------------------------------------------------------------------------------------
// Pooling

TEST(PoolingTest, ResNetMaxPool) {
  auto r = InferOpShape(
      "Pooling",
      {{"kernel", "(3, 3)"}, {"stride", "(2, 2)"}, {"pad", "(1, 1)"}, {"pool_type", "max"}},
      {Shape{1, 64, 112, 112}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[0], (Shape{1, 64, 56, 56}));
}

TEST(PoolingTest, Conventions) {
  AttrMap attrs = {{"kernel", "(2, 2)"}, {"stride", "(2, 2)"}, {"pool_type", "avg"}};
  auto r = InferOpShape("Pooling", attrs, {Shape{1, 1, 7, 7}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[0], (Shape{1, 1, 3, 3}));
  attrs["pooling_convention"] = "full";
  r = InferOpShape("Pooling", attrs, {Shape{1, 1, 7, 7}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[0], (Shape{1, 1, 4, 4}));
  r = InferOpShape("Pooling",
                   {{"kernel", "(3,)"}, {"stride", "(3,)"}, {"pooling_convention", "same"}},
                   {Shape{1, 2, 10}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[0], (Shape{1, 2, 4}));
  r = InferOpShape("Pooling",
                   {{"kernel", "(2, 2, 2)"}, {"stride", "(2, 2, 2)"}, {"pool_type", "sum"}},
                   {Shape{2, 3, 4, 6, 8}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[0], (Shape{2, 3, 2, 3, 4}));
}

TEST(PoolingTest, GlobalPool) {
  auto r = InferOpShape("Pooling", {{"global_pool", "True"}, {"pool_type", "avg"}},
                        {Shape{2, 512, 7, 7}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[0], (Shape{2, 512, 1, 1}));
  r = InferOpShape("Pooling", {{"global_pool", "True"}, {"kernel", "(1, 1)"}},
                   {Shape{2, 3, 4, 5, 6}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[0], (Shape{2, 3, 1, 1, 1}));
  EXPECT_TRUE(ErrorContains(ShapeStatus("Pooling", {{"global_pool", "True"}}, {Shape{2, 3}}),
                            {"input data", "3 to 5"}));
  EXPECT_TRUE(ErrorContains(
      ShapeStatus("Pooling", {{"global_pool", "True"}, {"layout", "NCHW"}}, {Shape{2, 3, 4}}),
      {"input data", "4 dims"}));
}

TEST(PoolingTest, PartialInference) {
  AttrMap attrs = {{"kernel", "(2, 2)"}, {"stride", "(2, 2)"}};
  auto r = InferOpShape("Pooling", attrs, {Shape{X, 64, X, 8}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[0], (Shape{X, 64, X, 4}));
  r = InferOpShape("Pooling", attrs, {kUnknown}, {Shape{4, 8, 5, 5}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[0], (Shape{4, 8, X, X}));
  r = InferOpShape("Pooling", attrs, {kUnknown});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[0], kUnknown);
}

TEST(PoolingTest, Errors) {
  EXPECT_TRUE(ErrorContains(ShapeStatus("Pooling", {{"kernel", "(5, 5)"}}, {Shape{1, 3, 2, 2}}),
                            {"Pooling", "kernel size 5", "[1,3,2,2]"}));
  EXPECT_TRUE(ErrorContains(ShapeStatus("Pooling", {{"kernel", "(2, 2)"}}, {Shape{1, 3, 8}}),
                            {"input data", "4 dims"}));
  EXPECT_TRUE(ErrorContains(
      ShapeStatus("Pooling", {{"kernel", "(2, 2)"}}, {Shape{1, 3, 8, 8}}, {Shape{1, 4, 7, 7}}),
      {"output"}));
}

TEST(PoolingTest, BadAttributes) {
  EXPECT_TRUE(ErrorContains(ParseStatus("Pooling", {{"pool_type", "max"}}), {"kernel"}));
  EXPECT_TRUE(ErrorContains(ParseStatus("Pooling", {{"kernel", "(2, 2)"}, {"pool_type", "median"}}),
                            {"pool_type", "median"}));
  EXPECT_TRUE(ErrorContains(ParseStatus("Pooling", {{"kernel", "(2, 2)"}, {"pool_type", "lp"}}),
                            {"p_value"}));
  EXPECT_TRUE(
      ParseStatus("Pooling", {{"kernel", "(2, 2)"}, {"pool_type", "lp"}, {"p_value", "2"}}).ok());
  EXPECT_TRUE(ErrorContains(
      ParseStatus("Pooling", {{"kernel", "(3,)"}, {"pooling_convention", "same"}, {"pad", "(1,)"}}),
      {"pad", "same"}));
  EXPECT_TRUE(
      ErrorContains(ParseStatus("Pooling", {{"kernel", "(3, 3)"}, {"pooling_convention", "same"}}),
                    {"pooling_convention"}));
  EXPECT_TRUE(ErrorContains(ParseStatus("Pooling", {{"kernel", "(2, 2)"}, {"layout", "NHWC"}}),
                            {"layout"}));
  EXPECT_TRUE(ErrorContains(ParseStatus("Pooling", {{"kernel", "(2, 2)"}, {"strides", "(2, 2)"}}),
                            {"unknown attribute 'strides'"}));
  EXPECT_TRUE(ParseStatus("Pooling", {{"kernel", "(2, 2)"},
                                      {"count_include_pad", "None"},
                                      {"p_value", "None"},
                                      {"cudnn_off", "False"}})
                  .ok());
  EXPECT_TRUE(ErrorContains(
      ParseStatus("Pooling", {{"kernel", "(2, 2)"}, {"count_include_pad", "perhaps"}}),
      {"count_include_pad"}));
}

TEST(PoolingTest, Gradient) {
  GradCase c = Differentiate("Pooling", {{"kernel", "(2, 2)"}}, 1);
  ASSERT_EQ(c.grads.size(), 1u);
  ExpectBackward(c, "_backward_Pooling", 1, {Out(c.head), c.node->inputs[0], Out(c.node)});
}

// ---------------------------------------------------------------------------------------
// Activation and LeakyReLU

TEST(ActivationTest, ShapeAndInplace) {
  auto r = InferOpShape("Activation", {{"act_type", "relu"}}, {Shape{X, 3}}, {Shape{4, X}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[0], (Shape{4, 3}));
  EXPECT_EQ(r->out[0], (Shape{4, 3}));
  EXPECT_TRUE(
      ErrorContains(ShapeStatus("Activation", {{"act_type", "tanh"}}, {Shape{4, 3}}, {Shape{4, 5}}),
                    {"Shape inconsistent"}));
  absl::StatusOr<NodeAttrs> a = ParseAttrs("Activation", {{"act_type", "softsign"}});
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->op->inplace()(*a), (std::vector<std::pair<int, int>>{{0, 0}}));
}

TEST(ActivationTest, BadAttributes) {
  EXPECT_TRUE(ErrorContains(ParseStatus("Activation", {}), {"act_type", "missing"}));
  EXPECT_TRUE(
      ErrorContains(ParseStatus("Activation", {{"act_type", "swish"}}), {"act_type", "swish"}));
}

TEST(ActivationTest, Gradient) {
  GradCase c = Differentiate("Activation", {{"act_type", "sigmoid"}}, 1);
  ASSERT_EQ(c.grads.size(), 1u);
  ExpectBackward(c, "_backward_Activation", 1, {Out(c.head), Out(c.node), c.node->inputs[0]});
}

TEST(LeakyReLUTest, InputsOutputsAndShapes) {
  absl::StatusOr<NodeAttrs> a = ParseAttrs("LeakyReLU", {});
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->op->InputNames(*a), (std::vector<std::string>{"data"}));
  EXPECT_EQ(a->op->OutputNames(*a), (std::vector<std::string>{"output"}));

  a = ParseAttrs("LeakyReLU", {{"act_type", "rrelu"}});
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->op->OutputNames(*a), (std::vector<std::string>{"output", "mask"}));
  EXPECT_EQ(a->op->NumVisibleOutputs(*a), 1);
  auto r = InferOpShape("LeakyReLU", {{"act_type", "rrelu"}}, {kUnknown}, {kUnknown, Shape{2, 3}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[0], (Shape{2, 3}));
  EXPECT_EQ(r->out[0], (Shape{2, 3}));

  r = InferOpShape("LeakyReLU", {{"act_type", "prelu"}}, {Shape{2, 16, 8, 8}, kUnknown});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[1], (Shape{16}));
  EXPECT_EQ(r->out[0], (Shape{2, 16, 8, 8}));
  r = InferOpShape("LeakyReLU", {{"act_type", "prelu"}}, {Shape{2, 16}, Shape{1}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[1], (Shape{1}));
}

TEST(LeakyReLUTest, Errors) {
  EXPECT_TRUE(
      ErrorContains(ShapeStatus("LeakyReLU", {{"act_type", "prelu"}}, {Shape{2, 16, 4}, Shape{5}}),
                    {"Shape inconsistent for input gamma", "[5]", "[16]"}));
  EXPECT_TRUE(
      ErrorContains(ShapeStatus("LeakyReLU", {{"act_type", "prelu"}}, {Shape{2, 16}, Shape{16, 1}}),
                    {"input gamma"}));
  EXPECT_TRUE(ErrorContains(ShapeStatus("LeakyReLU", {{"act_type", "prelu"}}, {Shape{7}, kUnknown}),
                            {"input data", "2 dims"}));
  EXPECT_TRUE(ErrorContains(ParseStatus("LeakyReLU", {{"act_type", "relu6"}}), {"act_type"}));
  EXPECT_TRUE(ErrorContains(ParseStatus("LeakyReLU", {{"slope", "steep"}}), {"slope", "steep"}));
  EXPECT_TRUE(ErrorContains(
      ParseStatus("LeakyReLU",
                  {{"act_type", "rrelu"}, {"lower_bound", "0.5"}, {"upper_bound", "0.1"}}),
      {"lower_bound"}));
}

TEST(LeakyReLUTest, Gradient) {
  GradCase c = Differentiate("LeakyReLU", {{"act_type", "leaky"}, {"slope", "0.1"}}, 1);
  ASSERT_EQ(c.grads.size(), 1u);
  ExpectBackward(c, "_backward_LeakyReLU", 1, {Out(c.head), c.node->inputs[0], Out(c.node)});

  c = Differentiate("LeakyReLU", {{"act_type", "prelu"}}, 2);
  ASSERT_EQ(c.grads.size(), 2u);
  ExpectBackward(c, "_backward_LeakyReLU", 2,
                 {Out(c.head), c.node->inputs[0], c.node->inputs[1], Out(c.node)});

  c = Differentiate("LeakyReLU", {{"act_type", "rrelu"}}, 1);
  ASSERT_EQ(c.grads.size(), 1u);
  ExpectBackward(c, "_backward_LeakyReLU", 1,
                 {Out(c.head), c.node->inputs[0], Out(c.node, 0), Out(c.node, 1)});
}

// ---------------------------------------------------------------------------------------
// BatchNorm

TEST(BatchNormTest, Shapes) {
  auto r =
      InferOpShape("BatchNorm", {}, {Shape{2, 3, 4, 4}, kUnknown, kUnknown, kUnknown, kUnknown});
  ASSERT_TRUE(r.ok()) << r.status();
  for (int i = 1; i < 5; ++i) EXPECT_EQ(r->in[i], (Shape{3})) << i;
  EXPECT_EQ(r->out[0], (Shape{2, 3, 4, 4}));
  EXPECT_EQ(r->out[1], (Shape{3}));
  EXPECT_EQ(r->out[2], (Shape{3}));

  r = InferOpShape("BatchNorm", {{"axis", "-1"}},
                   {Shape{2, 5, 7}, kUnknown, kUnknown, kUnknown, kUnknown});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[1], (Shape{7}));
}

TEST(BatchNormTest, PartialInference) {
  auto r =
      InferOpShape("BatchNorm", {}, {Shape{2, X, 4, 4}, kUnknown, kUnknown, Shape{3}, kUnknown});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[0], (Shape{2, 3, 4, 4}));
  EXPECT_EQ(r->in[1], (Shape{3}));
  EXPECT_EQ(r->out[0], (Shape{2, 3, 4, 4}));

  r = InferOpShape("BatchNorm", {}, {kUnknown, kUnknown, kUnknown, kUnknown, kUnknown});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[1], kUnknown);

  r = InferOpShape("BatchNorm", {}, {kUnknown, Shape{8}, kUnknown, kUnknown, kUnknown},
                   {Shape{4, X, 2}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[0], (Shape{4, 8, 2}));
  EXPECT_EQ(r->in[4], (Shape{8}));
}

TEST(BatchNormTest, Errors) {
  EXPECT_TRUE(ErrorContains(
      ShapeStatus("BatchNorm", {}, {Shape{2, 3, 4}, kUnknown, kUnknown, kUnknown, Shape{4}}),
      {"Shape inconsistent", "moving_var"}));
  EXPECT_TRUE(ErrorContains(
      ShapeStatus("BatchNorm", {}, {Shape{2, 3, 4}, Shape{3, 1}, kUnknown, kUnknown, kUnknown}),
      {"input gamma"}));
  EXPECT_TRUE(ErrorContains(ShapeStatus("BatchNorm", {{"axis", "3"}},
                                        {Shape{2, 3, 4}, kUnknown, kUnknown, kUnknown, kUnknown}),
                            {"axis"}));
  EXPECT_TRUE(ErrorContains(ParseStatus("BatchNorm", {{"eps", "tiny"}}), {"eps", "tiny"}));
  EXPECT_TRUE(ErrorContains(ParseStatus("BatchNorm", {{"fix_gamma", "maybe"}}), {"fix_gamma"}));
  EXPECT_TRUE(ParseStatus("BatchNorm", {{"min_calib_range", "None"},
                                        {"max_calib_range", "6.0"},
                                        {"cudnn_off", "True"},
                                        {"momentum", "0.99"}})
                  .ok());
}

TEST(BatchNormTest, OutputsAuxAndTypes) {
  absl::StatusOr<NodeAttrs> a = ParseAttrs("BatchNorm", {});
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->op->AuxInputs(*a), (std::vector<int>{3, 4}));
  EXPECT_EQ(a->op->NumOutputs(*a), 3);
  EXPECT_EQ(a->op->NumVisibleOutputs(*a), 1);
  a = ParseAttrs("BatchNorm", {{"output_mean_var", "True"}});
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->op->NumVisibleOutputs(*a), 3);

  const DType U = DType::kUnknown;
  auto t = InferOpType("BatchNorm", {}, {DType::kFloat16, U, U, U, U});
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->in, (std::vector<DType>{DType::kFloat16, DType::kFloat32, DType::kFloat32,
                                       DType::kFloat32, DType::kFloat32}));
  EXPECT_EQ(t->out, (std::vector<DType>{DType::kFloat16, DType::kFloat32, DType::kFloat32}));
  t = InferOpType("BatchNorm", {}, {DType::kFloat64, U, U, U, U});
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->in[3], DType::kFloat64);
  EXPECT_TRUE(ErrorContains(
      InferOpType("BatchNorm", {}, {DType::kFloat32, DType::kFloat16, U, U, U}).status(),
      {"Type inconsistent", "gamma"}));
}

TEST(BatchNormTest, Gradient) {
  GradCase c = Differentiate("BatchNorm", {}, 5);
  ASSERT_EQ(c.grads.size(), 5u);
  const std::vector<NodeEntry>& x = c.node->inputs;
  ExpectBackward(c, "_backward_BatchNorm", 3,
                 {Out(c.head), x[0], x[1], x[2], Out(c.node, 1), Out(c.node, 2), x[3], x[4]});
  EXPECT_FALSE(c.grads[3].node);
  EXPECT_FALSE(c.grads[4].node);
}

// ---------------------------------------------------------------------------------------
// LayerNorm

TEST(LayerNormTest, Shapes) {
  auto r = InferOpShape("LayerNorm", {}, {Shape{2, 5, 8}, kUnknown, kUnknown});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[1], (Shape{8}));
  EXPECT_EQ(r->in[2], (Shape{8}));
  EXPECT_EQ(r->out[0], (Shape{2, 5, 8}));
  EXPECT_EQ(r->out[1], (Shape{2, 5, 1}));
  EXPECT_EQ(r->out[2], (Shape{2, 5, 1}));

  r = InferOpShape("LayerNorm", {{"axis", "1"}}, {Shape{2, 5, 8}, kUnknown, kUnknown});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[1], (Shape{5}));
  EXPECT_EQ(r->out[1], (Shape{2, 1, 8}));
}

TEST(LayerNormTest, PartialInference) {
  auto r = InferOpShape("LayerNorm", {}, {kUnknown, Shape{8}, kUnknown},
                        {kUnknown, Shape{2, 5, 1}, kUnknown});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[0], (Shape{2, 5, 8}));
  EXPECT_EQ(r->in[2], (Shape{8}));
  EXPECT_EQ(r->out[2], (Shape{2, 5, 1}));
  r = InferOpShape("LayerNorm", {}, {kUnknown, kUnknown, Shape{4}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[1], (Shape{4}));
  EXPECT_EQ(r->in[0], kUnknown);
}

TEST(LayerNormTest, Errors) {
  EXPECT_TRUE(ErrorContains(ShapeStatus("LayerNorm", {}, {Shape{2, 8}, Shape{7}, kUnknown}),
                            {"Shape inconsistent for input gamma"}));
  EXPECT_TRUE(ErrorContains(
      ShapeStatus("LayerNorm", {{"axis", "2"}}, {Shape{2, 8}, kUnknown, kUnknown}), {"axis"}));
  EXPECT_TRUE(ErrorContains(ShapeStatus("LayerNorm", {}, {Shape{2, 8}, kUnknown, kUnknown},
                                        {kUnknown, Shape{2, 8}, kUnknown}),
                            {"output mean"}));
  EXPECT_TRUE(ErrorContains(ShapeStatus("LayerNorm", {}, {Shape{2, 8}, Shape{2, 8}, kUnknown}),
                            {"input gamma"}));
  EXPECT_TRUE(ErrorContains(ParseStatus("LayerNorm", {{"axis", "last"}}), {"axis", "last"}));
  EXPECT_TRUE(ErrorContains(ParseStatus("LayerNorm", {{"epsilon", "1e-5"}}),
                            {"unknown attribute 'epsilon'"}));
}

TEST(LayerNormTest, Gradient) {
  GradCase c = Differentiate("LayerNorm", {}, 3);
  ASSERT_EQ(c.grads.size(), 3u);
  ExpectBackward(
      c, "_backward_LayerNorm", 3,
      {Out(c.head), c.node->inputs[0], c.node->inputs[1], Out(c.node, 1), Out(c.node, 2)});
  absl::StatusOr<NodeAttrs> a = ParseAttrs("LayerNorm", {{"output_mean_var", "True"}});
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->op->NumVisibleOutputs(*a), 3);
}

// ---------------------------------------------------------------------------------------
// Dropout

TEST(DropoutTest, Shapes) {
  auto r = InferOpShape("Dropout", {{"p", "0.3"}}, {Shape{3, 4}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[0], (Shape{3, 4}));
  EXPECT_EQ(r->out[1], (Shape{3, 4}));
  // Variational dropout shares the mask along `axes`.
  r = InferOpShape("Dropout", {{"axes", "(1,)"}}, {Shape{2, 3, 4}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[1], (Shape{2, 1, 4}));
  r = InferOpShape("Dropout", {{"axes", "(0, -1)"}}, {kUnknown}, {kUnknown, Shape{1, 3, 1}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[0], (Shape{X, 3, X}));
  r = InferOpShape("Dropout", {}, {kUnknown}, {Shape{5, 6}, kUnknown});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[0], (Shape{5, 6}));
  EXPECT_EQ(r->out[1], (Shape{5, 6}));
}

TEST(DropoutTest, ErrorsAndAttributes) {
  EXPECT_TRUE(ErrorContains(ShapeStatus("Dropout", {{"axes", "(2,)"}}, {Shape{3, 4}}), {"axis"}));
  EXPECT_TRUE(ErrorContains(ShapeStatus("Dropout", {}, {Shape{3, 4}}, {Shape{3, 5}, kUnknown}),
                            {"Shape inconsistent"}));
  EXPECT_TRUE(ErrorContains(ParseStatus("Dropout", {{"p", "1"}}), {"'p'", "[0, 1)"}));
  EXPECT_TRUE(ErrorContains(ParseStatus("Dropout", {{"p", "-0.1"}}), {"'p'"}));
  EXPECT_TRUE(ErrorContains(ParseStatus("Dropout", {{"mode", "inference"}}), {"mode"}));
  EXPECT_TRUE(
      ParseStatus("Dropout", {{"mode", "always"}, {"cudnn_off", "None"}, {"axes", "()"}}).ok());
  absl::StatusOr<NodeAttrs> a = ParseAttrs("Dropout", {});
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->op->NumOutputs(*a), 2);
  EXPECT_EQ(a->op->NumVisibleOutputs(*a), 1);
}

TEST(DropoutTest, Gradient) {
  GradCase c = Differentiate("Dropout", {{"p", "0.2"}}, 1);
  ASSERT_EQ(c.grads.size(), 1u);
  ExpectBackward(c, "_backward_Dropout", 1, {Out(c.head), Out(c.node, 1)});
}

// ---------------------------------------------------------------------------------------
// Embedding

const AttrMap kEmbed = {{"input_dim", "100"}, {"output_dim", "10"}};

TEST(EmbeddingTest, Shapes) {
  // MXNet's test: x (0, 5) gives (0, 5, 10).
  auto r = InferOpShape("Embedding", kEmbed, {Shape{X, 5}, kUnknown});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[1], (Shape{100, 10}));
  EXPECT_EQ(r->out[0], (Shape{X, 5, 10}));
  r = InferOpShape("Embedding", kEmbed, {kUnknown, kUnknown}, {Shape{4, 5, 10}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[0], (Shape{4, 5}));
  r = InferOpShape("Embedding", kEmbed, {Shape{X, 5}, kUnknown}, {Shape{4, X, 10}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[0], (Shape{4, 5}));
  EXPECT_EQ(r->out[0], (Shape{4, 5, 10}));
  EXPECT_TRUE(ErrorContains(ShapeStatus("Embedding", kEmbed, {Shape{4}, Shape{10, 10}}),
                            {"Shape inconsistent for input weight"}));
  EXPECT_TRUE(ErrorContains(ShapeStatus("Embedding", kEmbed, {Shape{4}, kUnknown}, {Shape{4, 9}}),
                            {"Shape inconsistent for output"}));
  EXPECT_TRUE(ErrorContains(ShapeStatus("Embedding", kEmbed, {Shape{4}, kUnknown}, {Shape{3, 10}}),
                            {"Shape inconsistent for output"}));
  EXPECT_TRUE(ErrorContains(
      ShapeStatus("Embedding", kEmbed, {kUnknown, kUnknown}, {Shape(std::vector<int64_t>{})}),
      {"output"}));
}

TEST(EmbeddingTest, Types) {
  const DType U = DType::kUnknown;
  auto t = InferOpType("Embedding", kEmbed, {DType::kInt32, U});
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->in, (std::vector<DType>{DType::kInt32, DType::kFloat32}));
  EXPECT_EQ(t->out[0], DType::kFloat32);
  AttrMap half = kEmbed;
  half["dtype"] = "float16";
  t = InferOpType("Embedding", half, {DType::kFloat32, U});
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->in[0], DType::kFloat32);
  EXPECT_EQ(t->in[1], DType::kFloat16);
  EXPECT_EQ(t->out[0], DType::kFloat16);
  t = InferOpType("Embedding", kEmbed, {U, DType::kFloat64});
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->out[0], DType::kFloat64);
  EXPECT_TRUE(ErrorContains(
      InferOpType("Embedding", kEmbed, {U, DType::kFloat64}, {DType::kFloat16}).status(),
      {"Type inconsistent"}));
}

TEST(EmbeddingTest, BadAttributes) {
  EXPECT_TRUE(ErrorContains(ParseStatus("Embedding", {{"input_dim", "0"}, {"output_dim", "4"}}),
                            {"input_dim"}));
  EXPECT_TRUE(ErrorContains(ParseStatus("Embedding", {{"input_dim", "4"}}), {"output_dim"}));
  EXPECT_TRUE(ErrorContains(
      ParseStatus("Embedding", {{"input_dim", "4"}, {"output_dim", "4"}, {"dtype", "floatx"}}),
      {"dtype", "floatx"}));
}

TEST(EmbeddingTest, Gradient) {
  GradCase c = Differentiate("Embedding", kEmbed, 2);
  ASSERT_EQ(c.grads.size(), 2u);
  ExpectBackward(c, "_backward_Embedding", 2, {Out(c.head), c.node->inputs[0]});
}

// ---------------------------------------------------------------------------------------
// UpSampling

TEST(UpSamplingTest, Nearest) {
  AttrMap attrs = {{"scale", "2"}, {"sample_type", "nearest"}, {"num_args", "1"}};
  auto r = InferOpShape("UpSampling", attrs, {Shape{1, 3, 4, 4}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[0], (Shape{1, 3, 8, 8}));
  r = InferOpShape("UpSampling", attrs, {kUnknown}, {Shape{1, 3, 8, 8}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[0], (Shape{1, 3, 4, 4}));

  attrs["num_args"] = "2";
  EXPECT_EQ(InputNames("UpSampling", attrs), (std::vector<std::string>{"arg0", "arg1"}));
  r = InferOpShape("UpSampling", attrs, {Shape{1, 3, 4, 4}, Shape{1, 5, 2, 2}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[0], (Shape{1, 8, 8, 8}));
  r = InferOpShape("UpSampling", attrs, {Shape{1, 3, 4, 4}, kUnknown});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[0], (Shape{1, X, 8, 8}));
  EXPECT_TRUE(
      ErrorContains(ShapeStatus("UpSampling", attrs, {Shape{1, 3, 4, 4}, Shape{1, 5, 3, 3}}),
                    {"input arg1", "dividing"}));
  EXPECT_TRUE(
      ErrorContains(ShapeStatus("UpSampling", attrs, {Shape{1, 3, 4, 4}, Shape{2, 5, 2, 2}}),
                    {"input arg1", "batch"}));

  attrs["multi_input_mode"] = "sum";
  r = InferOpShape("UpSampling", attrs, {Shape{1, 3, 4, 4}, Shape{1, 3, 8, 8}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[0], (Shape{1, 3, 8, 8}));
  EXPECT_TRUE(
      ErrorContains(ShapeStatus("UpSampling", attrs, {Shape{1, 3, 4, 4}, Shape{1, 5, 4, 4}}),
                    {"input arg1", "channels"}));
  EXPECT_TRUE(ErrorContains(ShapeStatus("UpSampling", attrs, {Shape{1, 3, 4}, Shape{1, 3, 4, 4}}),
                            {"input arg0", "4 dims"}));
}

TEST(UpSamplingTest, Bilinear) {
  AttrMap attrs = {
      {"scale", "2"}, {"sample_type", "bilinear"}, {"num_args", "1"}, {"num_filter", "3"}};
  EXPECT_EQ(InputNames("UpSampling", attrs), (std::vector<std::string>{"data", "weight"}));
  auto r = InferOpShape("UpSampling", attrs, {Shape{1, 3, 4, 4}, kUnknown});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[1], (Shape{3, 1, 4, 4}));
  EXPECT_EQ(r->out[0], (Shape{1, 3, 8, 8}));
  attrs["scale"] = "3";
  r = InferOpShape("UpSampling", attrs, {Shape{2, 3, 5, 6}, kUnknown});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[1], (Shape{3, 1, 5, 5}));
  EXPECT_EQ(r->out[0], (Shape{2, 3, 15, 18}));
  r = InferOpShape("UpSampling", attrs, {kUnknown, Shape{3, 1, 5, 5}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[0], (Shape{X, 3, X, X}));
  EXPECT_TRUE(ErrorContains(ShapeStatus("UpSampling", attrs, {Shape{1, 4, 4, 4}, kUnknown}),
                            {"num_filter", "[1,4,4,4]"}));
}

TEST(UpSamplingTest, BadAttributes) {
  EXPECT_TRUE(ErrorContains(
      ParseStatus("UpSampling", {{"scale", "0"}, {"sample_type", "nearest"}, {"num_args", "1"}}),
      {"scale"}));
  EXPECT_TRUE(ErrorContains(ParseStatus("UpSampling", {{"scale", "2"}, {"num_args", "1"}}),
                            {"sample_type", "missing"}));
  EXPECT_TRUE(ErrorContains(
      ParseStatus("UpSampling", {{"scale", "2"}, {"sample_type", "bicubic"}, {"num_args", "1"}}),
      {"sample_type", "bicubic"}));
  EXPECT_TRUE(ErrorContains(
      ParseStatus("UpSampling", {{"scale", "2"}, {"sample_type", "bilinear"}, {"num_args", "3"}}),
      {"num_args"}));
  EXPECT_TRUE(ErrorContains(
      ParseStatus("UpSampling", {{"scale", "2"}, {"sample_type", "nearest"}, {"num_args", "0"}}),
      {"num_args"}));
  EXPECT_TRUE(ErrorContains(ParseStatus("UpSampling", {{"scale", "2"},
                                                       {"sample_type", "nearest"},
                                                       {"num_args", "1"},
                                                       {"multi_input_mode", "max"}}),
                            {"multi_input_mode"}));
}

TEST(UpSamplingTest, Gradient) {
  GradCase c = Differentiate("UpSampling",
                             {{"scale", "2"}, {"sample_type", "nearest"}, {"num_args", "2"}}, 2);
  ASSERT_EQ(c.grads.size(), 2u);
  ExpectBackward(c, "_backward_UpSampling", 2, {Out(c.head)});
  c = Differentiate(
      "UpSampling",
      {{"scale", "2"}, {"sample_type", "bilinear"}, {"num_args", "2"}, {"num_filter", "4"}}, 2);
  ASSERT_EQ(c.grads.size(), 2u);
  ExpectBackward(c, "_backward_UpSampling", 2, {Out(c.head), c.node->inputs[0], c.node->inputs[1]});
}

// ---------------------------------------------------------------------------------------
// dot and batch_dot

Shape DotOut(const AttrMap& attrs, const Shape& lhs, const Shape& rhs) {
  auto r = InferOpShape("dot", attrs, {lhs, rhs});
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? r->out[0] : Shape{-99};
}

TEST(DotTest, Shapes) {
  EXPECT_EQ(DotOut({}, Shape{2, 3}, Shape{3, 4}), (Shape{2, 4}));
  EXPECT_EQ(DotOut({{"transpose_a", "True"}}, Shape{3, 2}, Shape{3, 4}), (Shape{2, 4}));
  EXPECT_EQ(DotOut({{"transpose_b", "True"}}, Shape{2, 3}, Shape{4, 3}), (Shape{2, 4}));
  EXPECT_EQ(DotOut({{"transpose_a", "1"}, {"transpose_b", "1"}}, Shape{3, 2}, Shape{4, 3}),
            (Shape{2, 4}));
  EXPECT_EQ(DotOut({}, Shape{2, 3, 4}, Shape{4, 5, 6}), (Shape{2, 3, 5, 6}));
  EXPECT_EQ(DotOut({{"transpose_a", "True"}}, Shape{4, 2, 3}, Shape{4, 5}), (Shape{2, 3, 5}));
  EXPECT_EQ(DotOut({{"transpose_b", "True"}}, Shape{2, 4}, Shape{5, 6, 4}), (Shape{2, 5, 6}));
  EXPECT_EQ(DotOut({}, Shape{3}, Shape{3}), (Shape{1}));
  EXPECT_EQ(DotOut({}, Shape{3}, Shape{3, 4}), (Shape{4}));
  EXPECT_EQ(DotOut({}, Shape{2, 3}, Shape{3}), (Shape{2}));
}

TEST(DotTest, PartialInference) {
  // MXNet's test: (0, 3, 4) . (4, 5) gives (0, 3, 5).
  EXPECT_EQ(DotOut({}, Shape{X, 3, 4}, Shape{4, 5}), (Shape{X, 3, 5}));
  auto r = InferOpShape("dot", {}, {kUnknown, Shape{4, 5}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[0], kUnknown);
  r = InferOpShape("dot", {}, {Shape{X, 3, X}, Shape{4, 5}}, {Shape{7, 3, 5}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[0], (Shape{7, 3, 4}));
  r = InferOpShape("dot", {}, {Shape{2, 3}, Shape{X, X}}, {Shape{2, 9}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[1], (Shape{3, 9}));
}

TEST(DotTest, Errors) {
  EXPECT_TRUE(ErrorContains(ShapeStatus("dot", {}, {Shape{2, 3}, Shape{4, 5}}),
                            {"dot shape error", "[2,3]", "[4,5]"}));
  EXPECT_TRUE(ErrorContains(ShapeStatus("dot", {{"transpose_a", "True"}}, {Shape{3}, Shape{3}}),
                            {"vectors"}));
  EXPECT_TRUE(
      ErrorContains(ShapeStatus("dot", {}, {Shape{2, 3}, Shape{3, 4}}, {Shape{2, 5}}), {"output"}));
  EXPECT_TRUE(ErrorContains(ShapeStatus("dot", {}, {Shape(std::vector<int64_t>{}), Shape{3}}),
                            {"input lhs"}));
  EXPECT_TRUE(ErrorContains(ParseStatus("dot", {{"forward_stype", "csr"}}), {"forward_stype"}));
  EXPECT_TRUE(ErrorContains(ParseStatus("dot", {{"forward_stype", "dense"}}), {"forward_stype"}));
  EXPECT_TRUE(ErrorContains(ParseStatus("dot", {{"transpose_a", "yes"}}), {"transpose_a"}));
  EXPECT_TRUE(ParseStatus("dot", {{"forward_stype", "default"}}).ok());
}

TEST(BatchDotTest, Shapes) {
  auto r = InferOpShape("batch_dot", {}, {Shape{2, 3, 4}, Shape{2, 4, 5}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[0], (Shape{2, 3, 5}));
  r = InferOpShape("batch_dot", {{"transpose_a", "True"}, {"transpose_b", "True"}},
                   {Shape{2, 4, 3}, Shape{2, 5, 4}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[0], (Shape{2, 3, 5}));
}

TEST(BatchDotTest, PartialInference) {
  // MXNet's tests: (0, 3, 4) x (0, 4, 5) gives (0, 3, 5); an unknown lhs gives nothing.
  auto r = InferOpShape("batch_dot", {}, {Shape{X, 3, 4}, Shape{X, 4, 5}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[0], (Shape{X, 3, 5}));
  r = InferOpShape("batch_dot", {}, {kUnknown, Shape{X, X, 5}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->out[0], kUnknown);
  r = InferOpShape("batch_dot", {}, {Shape{X, X, 4}, Shape{6, X, X}}, {Shape{X, 3, 5}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->in[0], (Shape{6, 3, 4}));
  EXPECT_EQ(r->in[1], (Shape{6, 4, 5}));
  EXPECT_EQ(r->out[0], (Shape{6, 3, 5}));
}

TEST(BatchDotTest, Errors) {
  EXPECT_TRUE(ErrorContains(ShapeStatus("batch_dot", {}, {Shape{3, 4}, Shape{4, 5}}),
                            {"input lhs", "3 dims"}));
  EXPECT_TRUE(ErrorContains(ShapeStatus("batch_dot", {}, {Shape{2, 3, 4}, Shape{3, 4, 5}}),
                            {"batch_dot shape error"}));
  EXPECT_TRUE(ErrorContains(ShapeStatus("batch_dot", {}, {Shape{2, 3, 4}, Shape{2, 5, 5}}),
                            {"batch_dot shape error"}));
  EXPECT_TRUE(ErrorContains(
      ShapeStatus("batch_dot", {}, {Shape{2, 3, 4}, Shape{2, 4, 5}}, {Shape{2, 3, 6}}),
      {"output"}));
}

TEST(DotTest, Gradients) {
  GradCase c = Differentiate("dot", {}, 2);
  ASSERT_EQ(c.grads.size(), 2u);
  ExpectBackward(c, "_backward_dot", 2, {Out(c.head), c.node->inputs[0], c.node->inputs[1]});
  c = Differentiate("batch_dot", {{"transpose_b", "True"}}, 2);
  ASSERT_EQ(c.grads.size(), 2u);
  ExpectBackward(c, "_backward_batch_dot", 2, {Out(c.head), c.node->inputs[0], c.node->inputs[1]});
}

// ---------------------------------------------------------------------------------------
// Registry-wide checks

TEST(NnOpsTest, EveryForwardOpHasAGradientAndNoZeroHeadWork) {
  const std::vector<std::pair<std::string, AttrMap>> ops = {
      {"FullyConnected", {{"num_hidden", "2"}}},
      {"Convolution", {{"num_filter", "2"}, {"kernel", "(1, 1)"}}},
      {"Deconvolution", {{"num_filter", "2"}, {"kernel", "(1, 1)"}}},
      {"Pooling", {{"kernel", "(1, 1)"}}},
      {"Activation", {{"act_type", "relu"}}},
      {"LeakyReLU", {}},
      {"BatchNorm", {}},
      {"LayerNorm", {}},
      {"Dropout", {}},
      {"Embedding", kEmbed},
      {"UpSampling", {{"scale", "2"}, {"sample_type", "nearest"}, {"num_args", "1"}}},
      {"dot", {}},
      {"batch_dot", {}},
  };
  for (const auto& [name, attrs] : ops) {
    absl::StatusOr<NodeAttrs> a = ParseAttrs(name, attrs);
    ASSERT_TRUE(a.ok()) << name << ": " << a.status();
    const Op* op = a->op;
    EXPECT_EQ(op->name(), name);
    EXPECT_FALSE(op->is_backward()) << name;
    ASSERT_TRUE(op->gradient()) << name;
    ASSERT_TRUE(op->infer_shape()) << name;
    // A zero head gradient gives zero input gradients without building nodes.
    std::vector<NodeEntry> inputs;
    for (int i = 0; i < op->NumInputs(*a); ++i) inputs.push_back(Out(MakeVariableNode("v")));
    absl::StatusOr<NodePtr> node = MakeOpNode(op, "n", attrs, inputs);
    ASSERT_TRUE(node.ok()) << name << ": " << node.status();
    std::vector<NodeEntry> grads =
        op->gradient()(*node, std::vector<NodeEntry>((*node)->num_outputs()));
    ASSERT_EQ(grads.size(), inputs.size()) << name;
    for (const NodeEntry& g : grads) EXPECT_FALSE(g.node) << name;
  }
  for (const char* name :
       {"_backward_FullyConnected", "_backward_Convolution", "_backward_Deconvolution",
        "_backward_Pooling", "_backward_Activation", "_backward_LeakyReLU", "_backward_BatchNorm",
        "_backward_LayerNorm", "_backward_Dropout", "_backward_Embedding", "_backward_UpSampling",
        "_backward_dot", "_backward_batch_dot"}) {
    const Op* op = OpRegistry::Global().Find(name);
    ASSERT_NE(op, nullptr) << name;
    EXPECT_TRUE(op->is_backward()) << name;
    EXPECT_TRUE(op->non_differentiable()) << name;
  }
}

}  // namespace
}  // namespace symx
