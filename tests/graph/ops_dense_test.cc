// Tests for the dense nn ops: FullyConnected, Embedding, dot, batch_dot. Expected shapes
// are hand-computed from MXNet 1.x's rules.
#include <cstdint>
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
using ::symx::testing::ParseStatus;
using ::symx::testing::ShapeStatus;

constexpr int64_t X = kUnknownDim;
const Shape kUnknown;

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

}  // namespace
}  // namespace symx
