// Tests for the normalization and activation nn ops: Activation, LeakyReLU, BatchNorm,
// LayerNorm, Dropout; and registry-wide checks over every nn op and its backward op.
// Expected shapes are hand-computed from MXNet 1.x's rules.
#include <cstdint>
#include <string>
#include <utility>
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

// Valid Embedding attributes, for the registry-wide checks.
const AttrMap kEmbed = {{"input_dim", "100"}, {"output_dim", "10"}};

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
  // From the output alone, so the forward may run in place...
  GradCase c = Differentiate("Activation", {{"act_type", "sigmoid"}}, 1);
  ASSERT_EQ(c.grads.size(), 1u);
  ExpectBackward(c, "_backward_Activation", 1, {Out(c.head), Out(c.node)});
  // ...except where the derivative needs the input.
  GradCase s = Differentiate("Activation", {{"act_type", "softsign"}}, 1);
  ASSERT_EQ(s.grads.size(), 1u);
  ExpectBackward(s, "_backward_Activation", 1, {Out(s.head), Out(s.node), s.node->inputs[0]});
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
