// The symbolic gradient pass: structure of the backward graph, pruning, sums,
// loss heads, and shapes of the gradients.
#include "graph/gradient.h"

#include <set>

#include "graph/indexed_graph.h"
#include "graph/op.h"
#include "graph/symbol.h"
#include "gtest/gtest.h"

namespace symx {
namespace {

NodeEntry Entry(const Symbol& s) { return s.outputs()[0]; }

std::multiset<std::string> OpsIn(const std::vector<NodeEntry>& outputs) {
  std::multiset<std::string> ops;
  IndexedGraph g(outputs);
  for (uint32_t i = 0; i < g.num_nodes(); ++i) {
    if (!g[i].node->is_variable()) ops.insert(g[i].node->op()->name());
  }
  return ops;
}

std::vector<NodeEntry> Grad(const Symbol& y, const std::vector<Symbol>& heads,
                            const std::vector<Symbol>& xs) {
  std::vector<NodeEntry> ys = y.outputs(), hg, x;
  for (const Symbol& h : heads) hg.push_back(h.num_outputs() ? Entry(h) : NodeEntry{});
  for (const Symbol& s : xs) x.push_back(Entry(s));
  absl::StatusOr<std::vector<NodeEntry>> r = Gradient(ys, hg, x);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? *r : std::vector<NodeEntry>{};
}

TEST(GradientTest, ProductRule) {
  Symbol x = Symbol::Variable("x"), w = Symbol::Variable("w"), g = Symbol::Variable("g");
  std::vector<NodeEntry> grads = Grad(x * w, {g}, {x, w});
  ASSERT_EQ(grads.size(), 2u);
  for (const NodeEntry& e : grads) EXPECT_EQ(e.node->op()->name(), "elemwise_mul");
  // d/dx = g * w
  EXPECT_EQ(grads[0].node->inputs[0].node->name(), "g");
  EXPECT_EQ(grads[0].node->inputs[1].node->name(), "w");
}

TEST(GradientTest, EntryUsedTwiceIsSummed) {
  Symbol x = Symbol::Variable("x"), g = Symbol::Variable("g");
  std::vector<NodeEntry> grads = Grad(x + x, {g}, {x});
  ASSERT_EQ(grads.size(), 1u);
  EXPECT_EQ(grads[0].node->op()->name(), "ElementWiseSum");
  EXPECT_EQ(grads[0].node->inputs.size(), 2u);
}

TEST(GradientTest, ArgumentsWithoutRequestArePruned) {
  Symbol a = Symbol::Variable("a"), b = Symbol::Variable("b"), g = Symbol::Variable("g");
  Symbol left = OpCall("Activation").Name("act").Attr("act_type", "tanh").Input(a);
  Symbol right = OpCall("FullyConnected").Name("fc").Attr("num_hidden", 3).Input(b);
  Symbol y = left + right;
  std::vector<NodeEntry> only_fc_weight = Grad(y, {g}, {y.GetInternals()["fc_weight"]});
  std::multiset<std::string> ops = OpsIn(only_fc_weight);
  EXPECT_EQ(ops.count("_backward_Activation"), 0u);
  EXPECT_EQ(ops.count("_backward_FullyConnected"), 1u);
  std::vector<NodeEntry> only_a = Grad(y, {g}, {a});
  EXPECT_EQ(OpsIn(only_a).count("_backward_FullyConnected"), 0u);
  EXPECT_EQ(OpsIn(only_a).count("_backward_Activation"), 1u);
}

TEST(GradientTest, LossHeadNeedsNoHeadGradient) {
  Symbol data = Symbol::Variable("data");
  Symbol fc = OpCall("FullyConnected").Name("fc").Attr("num_hidden", 10).Input(data);
  Symbol net = OpCall("SoftmaxOutput").Name("sm").Input(fc);
  Symbol w = net.GetInternals()["fc_weight"];
  std::vector<NodeEntry> grads = Grad(net, {Symbol()}, {w});
  ASSERT_EQ(grads.size(), 1u);
  std::multiset<std::string> ops = OpsIn(grads);
  EXPECT_EQ(ops.count("_backward_SoftmaxOutput"), 1u);
  EXPECT_EQ(ops.count("_backward_FullyConnected"), 1u);
  // Shapes of the gradient follow from the forward graph.
  ShapeInference r = Symbol(grads).InferShape({{"data", Shape{5, 7}}});
  ASSERT_TRUE(r.complete) << r.missing;
  EXPECT_EQ(r.out_shapes[0], Shape({10, 7}));
}

TEST(GradientTest, NonLossHeadWithoutHeadGradientGivesZeros) {
  Symbol x = Symbol::Variable("x");
  Symbol y = OpCall("exp").Input(x);
  std::vector<NodeEntry> grads = Grad(y, {Symbol()}, {x});
  ASSERT_EQ(grads.size(), 1u);
  EXPECT_EQ(grads[0].node->op()->name(), "zeros_like");
}

TEST(GradientTest, BlockGradStopsTheGradient) {
  Symbol x = Symbol::Variable("x"), g = Symbol::Variable("g");
  Symbol y = OpCall("BlockGrad").Input(x) * 2.0;
  std::vector<NodeEntry> grads = Grad(y, {g}, {x});
  EXPECT_EQ(grads[0].node->op()->name(), "zeros_like");
}

TEST(GradientTest, UnusedVariableGetsZeros) {
  Symbol x = Symbol::Variable("x"), z = Symbol::Variable("z"), g = Symbol::Variable("g");
  std::vector<NodeEntry> grads = Grad(OpCall("exp").Input(x), {g}, {z});
  EXPECT_EQ(grads[0].node->op()->name(), "zeros_like");
}

TEST(GradientTest, PassThroughGradientsGetTheirOwnCopies) {
  Symbol a = Symbol::Variable("a"), b = Symbol::Variable("b"), g = Symbol::Variable("g");
  std::vector<NodeEntry> grads = Grad(a + b, {g}, {a, b});
  ASSERT_EQ(grads.size(), 2u);
  EXPECT_EQ(grads[0].node->op()->name(), "_copy");
  EXPECT_EQ(grads[1].node->op()->name(), "_copy");
  EXPECT_NE(grads[0].node, grads[1].node);
}

TEST(GradientTest, BatchNormAuxGetsNoGradientButParametersDo) {
  Symbol data = Symbol::Variable("data"), g = Symbol::Variable("g");
  Symbol bn = OpCall("BatchNorm").Name("bn").Input(data);
  Symbol internals = bn.GetInternals();
  std::vector<NodeEntry> grads = Grad(bn, {g}, {data, internals["bn_gamma"], internals["bn_beta"]});
  ASSERT_EQ(grads.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(grads[i].node->op()->name(), "_backward_BatchNorm");
    EXPECT_EQ(grads[i].index, i);
  }
}

TEST(GradientTest, MismatchedHeadGradientsAreAnError) {
  Symbol x = Symbol::Variable("x");
  absl::StatusOr<std::vector<NodeEntry>> r = Gradient(x.outputs(), {}, {Entry(x)});
  EXPECT_FALSE(r.ok());
}

// Every op must say how it is differentiated (a gradient, explicitly none, or
// inference only: asking is an error),
// and every forward op must infer shapes.
TEST(OpRegistryTest, EveryOpHasAGradientAndShapeInference) {
  int forward = 0;
  for (const Op* op : OpRegistry::Global().List()) {
    EXPECT_TRUE(op->gradient() || op->non_differentiable() || op->inference_only()) << op->name();
    if (op->is_backward()) {
      EXPECT_TRUE(op->non_differentiable()) << op->name();
      continue;
    }
    ++forward;
    EXPECT_TRUE(op->infer_shape()) << op->name() << " has no shape inference";
  }
  EXPECT_GE(forward, 60);
}

TEST(OpRegistryTest, AliasesResolveToCanonicalOps) {
  OpRegistry& r = OpRegistry::Global();
  EXPECT_EQ(r.Find("_Plus")->name(), "elemwise_add");
  EXPECT_EQ(r.Find("_PlusScalar")->name(), "_plus_scalar");
  EXPECT_EQ(r.Find("Softmax")->name(), "SoftmaxOutput");
  EXPECT_EQ(r.Find("split")->name(), "SliceChannel");
  EXPECT_EQ(r.Find("stop_gradient")->name(), "BlockGrad");
  EXPECT_EQ(r.Find("identity")->name(), "_copy");
  EXPECT_EQ(r.Find("add_n")->name(), "ElementWiseSum");
  EXPECT_EQ(r.Find("NoSuchOp"), nullptr);
}

}  // namespace
}  // namespace symx
