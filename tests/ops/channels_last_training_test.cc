// Channels-last values in binds with gradients (executor/layout_plan.h): a
// ResNet-like training graph gives the same outputs, gradients and moving
// statistics with channels-last planning on as with it off (oneDNN on both)
// and as the Eigen kernels; the plan really stores forward values and
// gradients channels-last; gradients the user reads, accumulates (grad_req
// add) or does not ask for stay right; backward outputs nobody reads are not
// computed and not reported to a monitor.
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "devices/tensor.h"
#include "executor/executor.h"
#include "graph/symbol.h"
#include "gtest/gtest.h"
#include "tests/ops/conformance.h"
#ifdef SYMX_WITH_ONEDNN
#include "devices/cpu/onednn.h"
#endif

namespace symx {
namespace {

#ifdef SYMX_WITH_ONEDNN

using testing::BatchNormLayer;
using testing::ConvLayer;
using testing::ReluLayer;

// stem conv-bn-relu -> max pool -> (conv-bn-relu-conv-bn) + (conv-bn) -> relu
// -> conv with bias -> relu -> global avg pool -> FC -> softmax. The pooled
// value feeds two convolutions (its gradient is a sum), the global pool's
// output is read through a Flatten (plain) while its data is channels-last.
Symbol TrainNet() {
  Symbol data = Symbol::Variable("data");
  Symbol stem = ReluLayer("stem_relu", BatchNormLayer("stem_bn", ConvLayer("stem", data, 8, 3)));
  Symbol pool = OpCall("Pooling")
                    .Name("pool")
                    .Attr("kernel", "(3,3)")
                    .Attr("stride", "(2,2)")
                    .Attr("pad", "(1,1)")
                    .Attr("pool_type", "max")
                    .Input(stem)
                    .Build();
  Symbol a = ReluLayer("a_relu", BatchNormLayer("a_bn", ConvLayer("a", pool, 8, 3)));
  Symbol a2 = BatchNormLayer("a2_bn", ConvLayer("a2", a, 16, 1));
  Symbol shortcut = BatchNormLayer("sc_bn", ConvLayer("sc", pool, 16, 1));
  Symbol sum = ReluLayer("sum_relu", OpCall("elemwise_add").Name("add").Input(a2).Input(shortcut));
  Symbol top = ReluLayer("top_relu", ConvLayer("top", sum, 16, 3, /*no_bias=*/false));
  Symbol gap = OpCall("Pooling")
                   .Name("gap")
                   .Attr("global_pool", true)
                   .Attr("kernel", "(1,1)")
                   .Attr("pool_type", "avg")
                   .Input(top)
                   .Build();
  Symbol fc = OpCall("FullyConnected")
                  .Name("fc")
                  .Attr("num_hidden", 10)
                  .Input(OpCall("Flatten").Name("flat").Input(gap).Build())
                  .Build();
  return OpCall("SoftmaxOutput")
      .Name("softmax")
      .Input(fc)
      .Input(Symbol::Variable("softmax_label"))
      .Build();
}

struct Setup {
  bool onednn = true;
  bool channels_last = true;
  GradReqSpec grad_req = GradReq::kWrite;
};

std::unique_ptr<Executor> BindNet(const Setup& setup) {
  EngineOptions engine;
  engine.onednn = setup.onednn;
  engine.channels_last = setup.channels_last;
  auto exe = Executor::SimpleBind(
      TrainNet(), {.ctx = Context::CPU(0),
                   .shapes = {{"data", Shape{4, 3, 12, 12}}, {"softmax_label", Shape{4}}},
                   .grad_req = setup.grad_req,
                   .engine = engine});
  uint64_t seed = 1;
  for (const auto& [name, t] : exe->arg_dict()) {
    if (name == "softmax_label") {
      float* labels = t.data<float>();
      for (int i = 0; i < 4; ++i) labels[i] = static_cast<float>((3 * i + 1) % 10);
    } else {
      testing::FillUniform(t, seed++, -0.5f, 0.5f);
    }
  }
  for (const auto& [name, t] : exe->aux_dict()) {
    testing::FillUniform(t, seed++, name.find("var") != std::string::npos ? 0.5f : -0.5f, 1.0f);
  }
  return exe;
}

// Lines of DebugStr whose step writes a channels-last value.
std::vector<std::string> ChannelsLastSteps(const Executor& exe) {
  std::vector<std::string> lines;
  for (absl::string_view line : absl::StrSplit(exe.DebugStr(), '\n')) {
    if (absl::StrContains(line, "(channels-last)")) lines.emplace_back(line);
  }
  return lines;
}

void ExpectSameRun(Executor* got, Executor* want, double rtol, int steps) {
  for (int step = 0; step < steps; ++step) {
    const std::string at = " (step " + std::to_string(step) + ")";
    got->Forward(true);
    want->Forward(true);
    got->Backward();
    want->Backward();
    testing::ExpectAllClose(got->outputs()[0], want->outputs()[0], rtol, "output" + at);
    for (const auto& [name, t] : want->grad_dict()) {
      testing::ExpectAllClose(got->grad_dict().at(name), t, rtol, name + " gradient" + at);
    }
    for (const auto& [name, t] : want->aux_dict()) {
      testing::ExpectAllClose(got->aux_dict().at(name), t, rtol, name + at);
    }
  }
  got->Forward(false);
  want->Forward(false);
  testing::ExpectAllClose(got->outputs()[0], want->outputs()[0], rtol, "inference output");
}

TEST(ChannelsLastTrainingTest, PlansForwardValuesAndGradientsChannelsLast) {
  auto exe = BindNet({});
  std::vector<std::string> lines = ChannelsLastSteps(*exe);
  std::set<std::string> ops;
  for (const std::string& line : lines) {
    std::vector<std::string> words = absl::StrSplit(line, ' ');
    ops.insert(words[0] + " " + words[1]);
  }
  for (const char* want :
       {"forward Convolution", "forward BatchNorm", "forward Activation", "forward Pooling",
        "forward elemwise_add", "backward _backward_Convolution", "backward _backward_BatchNorm",
        "backward _backward_Activation", "backward _backward_Pooling",
        "backward ElementWiseSum"}) {
    EXPECT_TRUE(ops.count(want)) << want << " writes no channels-last value:\n" << exe->DebugStr();
  }
  EngineOptions no_channels_last;
  no_channels_last.channels_last = false;
  auto plain = Executor::SimpleBind(
      TrainNet(), {.ctx = Context::CPU(0),
                   .shapes = {{"data", Shape{4, 3, 12, 12}}, {"softmax_label", Shape{4}}},
                   .engine = no_channels_last});
  EXPECT_TRUE(ChannelsLastSteps(*plain).empty()) << plain->DebugStr();
}

TEST(ChannelsLastTrainingTest, MatchesPlainPlan) {
  auto fast = BindNet({});
  auto plain = BindNet({.channels_last = false});
  ExpectSameRun(fast.get(), plain.get(), 1e-5, 3);
}

TEST(ChannelsLastTrainingTest, MatchesEigenKernels) {
  auto fast = BindNet({});
  auto ref = BindNet({.onednn = false, .channels_last = false});
  ExpectSameRun(fast.get(), ref.get(), 1e-4, 2);
}

// The data gradient is what the stem's channels-last backward writes: with
// write it goes straight into the user's array, with add it is accumulated
// into it; either way plain.
TEST(ChannelsLastTrainingTest, DataGradientWriteAndAdd) {
  for (GradReq req : {GradReq::kWrite, GradReq::kAdd}) {
    std::map<std::string, GradReq> reqs = {{"data", req}, {"stem_weight", GradReq::kWrite}};
    auto fast = BindNet({.grad_req = reqs});
    auto ref = BindNet({.onednn = false, .channels_last = false, .grad_req = reqs});
    ExpectSameRun(fast.get(), ref.get(), 1e-4, 2);
    ASSERT_TRUE(fast->grad_dict().count("data"));
  }
}

// With the data's gradient not asked for, the stem convolution's backward
// computes only the weight's: its data-gradient output is neither computed
// nor reported.
TEST(ChannelsLastTrainingTest, UnreadBackwardOutputsAreNotComputed) {
  std::map<std::string, GradReq> reqs = {{"stem_weight", GradReq::kWrite}};
  auto exe = BindNet({.grad_req = reqs});
  std::vector<std::string> reported;
  exe->SetMonitorCallback(
      [&](const std::string& name, const Tensor&) { reported.push_back(name); });
  exe->Forward(true);
  exe->Backward();
  // _backward_Convolution's outputs: grad0 the data's, grad1 the weight's.
  std::set<std::string> names(reported.begin(), reported.end());
  EXPECT_TRUE(names.count("stem_backward_grad1")) << "the weight gradient was not reported";
  EXPECT_FALSE(names.count("stem_backward_grad0")) << "the data gradient was reported";
  auto ref = BindNet({.onednn = false, .channels_last = false, .grad_req = reqs});
  ref->Forward(true);
  ref->Backward();
  ExpectSameRun(exe.get(), ref.get(), 1e-4, 1);
}

#endif  // SYMX_WITH_ONEDNN

}  // namespace
}  // namespace symx
