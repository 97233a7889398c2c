// Inference fusion and channels-last values (executor/inference_fusion.h,
// executor/layout_plan.h, graph/ops/fused_conv.h): which chains fuse, that a
// fused bind gives the unfused numbers (inference and Forward(is_train), moving
// statistics included), that weights written between forwards are used, that
// monitors see plain values, and that the optimized symbol round-trips.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "devices/tensor.h"
#include "executor/executor.h"
#include "executor/inference_fusion.h"
#include "graph/indexed_graph.h"
#include "graph/op.h"
#include "graph/scope.h"
#include "graph/symbol.h"
#include "gtest/gtest.h"
#include "tests/ops/conformance.h"

#ifdef SYMX_WITH_ONEDNN
#include "devices/cpu/onednn.h"
#endif

namespace symx {
namespace {

using testing::BatchNormLayer;
using testing::ConvLayer;
using testing::ReluLayer;

// A ResNet-like block: stem conv-bn-relu, then two branches summed and a
// relu, then a 1x1 conv with bias and clip, then a conv with nothing after
// (not fused) read by the output: every kind of chain, and values between
// fused convolutions (stored channels-last).
Symbol Block() {
  Symbol data = Symbol::Variable("data");
  Symbol stem = ReluLayer("stem_relu", BatchNormLayer("stem_bn", ConvLayer("stem", data, 16, 3)));
  Symbol a = ReluLayer("a_relu", BatchNormLayer("a_bn", ConvLayer("a", stem, 16, 3)));
  Symbol a2 = BatchNormLayer("a2_bn", ConvLayer("a2", a, 32, 1), /*fix_gamma=*/true);
  Symbol shortcut = BatchNormLayer("sc_bn", ConvLayer("sc", stem, 32, 1));
  Symbol sum = ReluLayer("sum_relu", OpCall("elemwise_add").Name("add").Input(a2).Input(shortcut));
  Symbol clipped = OpCall("clip")
                       .Name("clip")
                       .Attr("a_min", 0.0)
                       .Attr("a_max", 6.0)
                       .Input(ConvLayer("pw", sum, 16, 1, /*no_bias=*/false))
                       .Build();
  return ConvLayer("last", clipped, 8, 3);
}

std::set<std::string> OpNames(const Symbol& s) {
  std::set<std::string> names;
  IndexedGraph g(s.outputs());
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    if (!g[nid].node->is_variable()) names.insert(g[nid].node->op()->name());
  }
  return names;
}

int CountOp(const Symbol& s, const std::string& op) {
  int n = 0;
  IndexedGraph g(s.outputs());
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    n += !g[nid].node->is_variable() && g[nid].node->op()->name() == op;
  }
  return n;
}

TEST(FuseConvChainsTest, FusesEveryChainKind) {
  int fused = 0;
  auto out = FuseConvChains(Block().outputs(), &fused);
  ASSERT_TRUE(out.ok()) << out.status();
  Symbol s(*out);
  // stem, a, sc (conv+bn, its value is the sum operand of a2's chain), a2
  // (+bn+add+relu), pw (+clip); `last` stays a Convolution.
  EXPECT_EQ(fused, 5);
  EXPECT_EQ(CountOp(s, "_symx_fused_conv"), 5);
  EXPECT_EQ(OpNames(s), (std::set<std::string>{"_symx_fused_conv", "Convolution"}));
  // Arguments and aux states are those of the original, in the same order.
  EXPECT_EQ(s.ListArguments(), Block().ListArguments());
  EXPECT_EQ(s.ListAuxiliaryStates(), Block().ListAuxiliaryStates());
}

TEST(FuseConvChainsTest, LeavesValuesReadElsewhereAlone) {
  Symbol data = Symbol::Variable("data");
  Symbol c = ConvLayer("c", data, 4, 3);
  // The convolution's value is read twice: nothing fuses.
  Symbol twice = ReluLayer("r", c) + c;
  int fused = -1;
  auto out = FuseConvChains(twice.outputs(), &fused);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(fused, 0);
  // A BatchNorm output that is a graph output ends the chain before it.
  Symbol b = BatchNormLayer("b", ConvLayer("c2", data, 4, 3));
  Symbol grouped = Symbol::Group({b, ReluLayer("r2", b)});
  out = FuseConvChains(grouped.outputs(), &fused);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(fused, 1);  // conv + bn; the relu reads the visible bn value
  // A BatchNorm that shows its mean and var is not folded.
  Symbol shown = OpCall("BatchNorm")
                     .Name("shown")
                     .Attr("output_mean_var", true)
                     .Input(ConvLayer("c3", data, 4, 3))
                     .Build();
  out = FuseConvChains(shown.outputs(), &fused);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(fused, 0);
}

TEST(FuseConvChainsTest, BatchNormWhoseMeanIsReadIsNotFolded) {
  Symbol data = Symbol::Variable("data");
  Symbol b = BatchNormLayer("b", ConvLayer("c", data, 4, 3));
  // The hidden output 1 (GetInternals lists visible outputs only).
  Symbol mean(std::vector<NodeEntry>{NodeEntry{b.outputs()[0].node, 1, 0}});
  Symbol both = Symbol::Group({ReluLayer("r", b), mean});
  int fused = -1;
  auto out = FuseConvChains(both.outputs(), &fused);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(fused, 0);
  EXPECT_EQ(CountOp(Symbol(*out), "BatchNorm"), 1);
}

TEST(FuseConvChainsTest, ArgumentOrderIsKept) {
  // The add reads a new variable first: fusing the add would move `data2`
  // behind the chain's variables, so the chain stops before it.
  Symbol data = Symbol::Variable("data");
  Symbol data2 = Symbol::Variable("data2");
  Symbol sum = ReluLayer("r", OpCall("elemwise_add")
                                  .Name("add")
                                  .Input(data2)
                                  .Input(BatchNormLayer("b", ConvLayer("c", data, 4, 3))));
  int fused = -1;
  auto out = FuseConvChains(sum.outputs(), &fused);
  ASSERT_TRUE(out.ok());
  Symbol s(*out);
  EXPECT_EQ(s.ListArguments(), sum.ListArguments());
  EXPECT_EQ(s.ListAuxiliaryStates(), sum.ListAuxiliaryStates());
  EXPECT_EQ(fused, 1);  // conv + bn
  EXPECT_EQ(CountOp(s, "elemwise_add"), 1);
}

TEST(FuseConvChainsTest, ChainsDoNotCrossCtxGroups) {
  Symbol data = Symbol::Variable("data");
  Symbol c = ConvLayer("c", data, 4, 3);
  Symbol r;
  {
    AttrScope scope(AttrMap{{"ctx_group", "dev2"}});
    r = ReluLayer("r", c);
  }
  int fused = -1;
  auto out = FuseConvChains(r.outputs(), &fused);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(fused, 0);
}

TEST(FusedConvOpTest, BadAttributesNameThePart) {
  Symbol data = Symbol::Variable("data");
  auto make = [&](std::map<std::string, std::string> extra) {
    OpCall call("_symx_fused_conv");
    call.Name("f").Attr("kernel", "(3,3)").Attr("num_filter", 4).Attr("no_bias", true);
    for (const auto& [k, v] : extra) call.Attr(k, v);
    return call.Input(data).Build();
  };
  try {
    make({{"bn.eps", "0.1"}});
    FAIL() << "bn.eps without with_bn";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("bn.eps"), std::string::npos) << e.what();
  }
  try {
    make({{"act", "Activation"}, {"act.act_type", "softsign"}});
    FAIL() << "softsign is not fusable";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("softsign"), std::string::npos) << e.what();
  }
  try {
    make({{"with_bn", "True"}, {"bn.eps", "-1"}});
    FAIL() << "negative eps";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("BatchNorm"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("eps"), std::string::npos) << e.what();
  }
  try {
    make({{"layout", "NHWC"}});
    FAIL() << "channel-last layout attribute";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("NHWC"), std::string::npos) << e.what();
  }
}

#ifdef SYMX_WITH_ONEDNN

using testing::FillUniform;

// Binds Block() for inference; fusion on or off; same values either way.
std::unique_ptr<Executor> Bind(bool fuse, const Symbol& symbol = Block(), bool onednn = true) {
  EngineOptions engine;
  engine.fusion = fuse;
  engine.onednn = onednn;
  auto exe = Executor::SimpleBind(symbol, {.ctx = Context::CPU(0),
                                           .shapes = {{"data", Shape{2, 8, 10, 10}}},
                                           .grad_req = GradReq::kNull,
                                           .engine = engine});
  uint64_t seed = 7;
  for (const auto& [name, t] : exe->arg_dict()) FillUniform(t, seed++, -0.5f, 0.5f);
  // Moving variances must be positive.
  for (const auto& [name, t] : exe->aux_dict()) {
    const bool var = name.find("var") != std::string::npos;
    FillUniform(t, seed++, var ? 0.5f : -0.2f, var ? 1.5f : 0.2f);
  }
  return exe;
}

void ExpectClose(const Tensor& got, const Tensor& want, const std::string& what) {
  testing::ExpectAllClose(got, want, 2e-4, what);
}

using Seen = std::map<std::string, std::vector<double>>;

// Records what a monitor sees.
void Record(Executor* exe, Seen* seen) {
  exe->SetMonitorCallback(
      [seen](const std::string& name, const Tensor& t) { (*seen)[name] = t.ToDoubles(); });
}

// The monitored values `names` agree between the two records.
void ExpectSeenClose(const Seen& got, const Seen& want, const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    ASSERT_TRUE(got.count(name)) << name;
    ASSERT_TRUE(want.count(name)) << name;
    const auto& g = got.at(name);
    const auto& w = want.at(name);
    ASSERT_EQ(g.size(), w.size()) << name;
    for (size_t i = 0; i < g.size(); ++i) {
      ASSERT_NEAR(g[i], w[i], 2e-4 * (1 + std::abs(w[i]))) << name << " element " << i;
    }
  }
}

TEST(FusedExecutorTest, InferenceMatchesTheUnfusedGraph) {
  auto fused = Bind(true);
  auto plain = Bind(false);
  EXPECT_EQ(CountOp(fused->OptimizedSymbol(), "_symx_fused_conv"), 5);
  EXPECT_EQ(CountOp(plain->OptimizedSymbol(), "_symx_fused_conv"), 0);
  fused->Forward(false);
  plain->Forward(false);
  ExpectClose(fused->outputs()[0], plain->outputs()[0], "output");
}

// MXNet 1.9.1's oneDNN fusion computes c1 + conv2(c1) for this graph (it
// drops relu1: docs/numerics.md). symx fuses conv2 with the add (conv2's
// output has one reader) and leaves conv1 alone (relu1 and the add both read
// it); the answer is the unfused graph's.
TEST(FusedExecutorTest, ReluWhoseInputAlsoFeedsTheAddIsKept) {
  Symbol data = Symbol::Variable("data");
  Symbol c1 = ConvLayer("conv1", data, 8, 3);
  Symbol c2 = ConvLayer("conv2", ReluLayer("relu1", c1), 8, 3);
  Symbol sum = OpCall("elemwise_add").Name("add").Input(c1).Input(c2);
  auto fused = Bind(true, sum);
  auto plain = Bind(false, sum);
  EXPECT_EQ(CountOp(fused->OptimizedSymbol(), "_symx_fused_conv"), 1);
  EXPECT_EQ(CountOp(fused->OptimizedSymbol(), "Activation"), 1);
  fused->Forward(false);
  plain->Forward(false);
  ExpectClose(fused->outputs()[0], plain->outputs()[0], "output");
  // And it is not c1 + conv2(c1), MXNet's answer: some c1 is negative.
  auto dropped = Bind(
      false,
      OpCall("elemwise_add").Name("add").Input(c1).Input(ConvLayer("conv2", c1, 8, 3)).Build());
  dropped->Forward(false);
  const std::vector<double> a = fused->outputs()[0].ToDoubles();
  const std::vector<double> b = dropped->outputs()[0].ToDoubles();
  double largest = 0;
  for (size_t i = 0; i < a.size(); ++i) largest = std::max(largest, std::abs(a[i] - b[i]));
  EXPECT_GT(largest, 1e-2);
}

TEST(FusedExecutorTest, WeightsAndStatisticsWrittenBetweenForwardsAreUsed) {
  auto fused = Bind(true);
  auto plain = Bind(false);
  fused->Forward(false);
  for (auto* exe : {fused.get(), plain.get()}) {
    FillUniform(exe->arg_dict().at("a_weight"), 99, -1.f, 1.f);
    FillUniform(exe->arg_dict().at("a_bn_gamma"), 98, 0.5f, 2.f);
    FillUniform(exe->aux_dict().at("sc_bn_moving_var"), 97, 2.f, 3.f);
    FillUniform(exe->arg_dict().at("pw_bias"), 96, -1.f, 1.f);
  }
  fused->Forward(false);
  plain->Forward(false);
  ExpectClose(fused->outputs()[0], plain->outputs()[0], "output after new weights");
}

TEST(FusedExecutorTest, TrainingForwardUsesBatchStatisticsAndUpdatesMovingOnes) {
  auto fused = Bind(true);
  auto plain = Bind(false);
  for (int step = 0; step < 2; ++step) {
    fused->Forward(true);
    plain->Forward(true);
    ExpectClose(fused->outputs()[0], plain->outputs()[0], "training output");
    for (const auto& [name, t] : plain->aux_dict()) {
      ExpectClose(fused->aux_dict().at(name), t, name);
    }
  }
  // And back to inference with the updated statistics.
  fused->Forward(false);
  plain->Forward(false);
  ExpectClose(fused->outputs()[0], plain->outputs()[0], "inference after training");
}

TEST(FusedExecutorTest, MonitorSeesPlainValues) {
  auto fused = Bind(true);
  auto plain = Bind(false);
  Seen seen_fused, seen_plain;
  Record(fused.get(), &seen_fused);
  Record(plain.get(), &seen_plain);
  fused->Forward(false);
  plain->Forward(false);
  // Fused nodes take their chain's last name: those values exist in both.
  ExpectSeenClose(seen_fused, seen_plain,
                  {"stem_relu_output", "a_relu_output", "sum_relu_output", "clip_output"});
}

TEST(FusedExecutorTest, OptimizedSymbolRoundTripsAndBindsAgain) {
  auto fused = Bind(true);
  fused->Forward(false);
  Symbol again = Symbol::FromJson(fused->OptimizedSymbol().ToJson());
  EXPECT_EQ(CountOp(again, "_symx_fused_conv"), 5);
  // Bound as it is (fusion off, so nothing is fused twice), with oneDNN on
  // and off: the fused op's own paths.
  for (bool onednn : {true, false}) {
    EngineOptions engine;
    engine.onednn = onednn;
    auto exe = Executor::SimpleBind(again, {.ctx = Context::CPU(0),
                                            .shapes = {{"data", Shape{2, 8, 10, 10}}},
                                            .grad_req = GradReq::kNull,
                                            .engine = engine});
    exe->CopyParamsFrom(fused->arg_dict(), fused->aux_dict());
    exe->Forward(false);
    ExpectClose(exe->outputs()[0], fused->outputs()[0], onednn ? "oneDNN" : "reference");
  }
  // It has no gradient: binding it for training says so.
  try {
    Executor::SimpleBind(again,
                         {.ctx = Context::CPU(0), .shapes = {{"data", Shape{2, 8, 10, 10}}}});
    FAIL() << "a fused node has no gradient";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("_symx_fused_conv"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("bind the original symbol"), std::string::npos)
        << e.what();
  }
}

// Channels-last values through pooling, Concat and an unfused BatchNorm
// (DenseNet/Inception-like): conv -> max pool -> two convs -> Concat ->
// BatchNorm -> relu -> conv -> global avg pool.
Symbol LayoutNet() {
  Symbol data = Symbol::Variable("data");
  Symbol pool = OpCall("Pooling")
                    .Name("pool")
                    .Attr("kernel", "(3,3)")
                    .Attr("stride", "(2,2)")
                    .Attr("pad", "(1,1)")
                    .Attr("pool_type", "max")
                    .Input(ConvLayer("c0", data, 16, 3))
                    .Build();
  Symbol cat = OpCall("Concat")
                   .Name("cat")
                   .Attr("dim", 1)
                   .Input(ConvLayer("b1", pool, 8, 1))
                   .Input(ConvLayer("b2", pool, 24, 3))
                   .Build();
  Symbol act = ReluLayer("post_relu", BatchNormLayer("post_bn", cat));
  return OpCall("Pooling")
      .Name("gap")
      .Attr("global_pool", true)
      .Attr("kernel", "(1,1)")
      .Attr("pool_type", "avg")
      .Input(ConvLayer("c3", act, 12, 3))
      .Build();
}

TEST(FusedExecutorTest, ChannelsLastThroughPoolingConcatAndBatchNorm) {
  auto fast = Bind(true, LayoutNet());
  auto ref = Bind(false, LayoutNet(), /*onednn=*/false);
  Seen seen_fast, seen_ref;
  Record(fast.get(), &seen_fast);
  Record(ref.get(), &seen_ref);
  for (bool train : {false, true, false}) {
    fast->Forward(train);
    ref->Forward(train);
    ExpectClose(fast->outputs()[0], ref->outputs()[0], train ? "training output" : "output");
    for (const auto& [name, t] : ref->aux_dict()) ExpectClose(fast->aux_dict().at(name), t, name);
    ExpectSeenClose(seen_fast, seen_ref, {"pool_output", "cat_output", "post_bn_output"});
  }
}

TEST(FusedExecutorTest, BindsWithGradientsAreNotFused) {
  auto exe = Executor::SimpleBind(
      Block(), {.ctx = Context::CPU(0), .shapes = {{"data", Shape{2, 8, 10, 10}}}});
  EXPECT_EQ(CountOp(exe->OptimizedSymbol(), "_symx_fused_conv"), 0);
}

TEST(FusedExecutorTest, OnednnOffMeansNoFusion) {
  auto exe = Bind(true, Block(), /*onednn=*/false);
  EXPECT_EQ(CountOp(exe->OptimizedSymbol(), "_symx_fused_conv"), 0);
}

#endif  // SYMX_WITH_ONEDNN

}  // namespace

}  // namespace symx
