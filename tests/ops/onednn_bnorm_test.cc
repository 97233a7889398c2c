// BatchNorm through oneDNN (its switch on) inside executors, against the Eigen
// kernels (oneDNN off) on the same arrays: training steps (outputs, every gradient, the moving
// statistics they update), gamma/beta gradients nobody asked for, inference
// with the moving statistics on plain and channels-last data, and a
// checkpoint's non-positive moving variance.
#include <map>
#include <memory>
#include <string>
#include <vector>

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

// data (2,8,6,6) -> conv 3x3 -> bn1 (learned gamma) -> relu -> bn2 (fix_gamma).
Symbol ConvBnNet() {
  Symbol x = ConvLayer("c1", Symbol::Variable("data"), 16, 3);
  x = ReluLayer("r1", BatchNormLayer("bn1", x, /*fix_gamma=*/false));
  return BatchNormLayer("bn2", x, /*fix_gamma=*/true);
}

// data (2,8,6,6) -> conv -> max pool -> bn (not foldable: after a pool) ->
// relu -> conv: inference keeps bn, channels-last between the convolutions.
Symbol PoolBnNet() {
  Symbol x = ConvLayer("c1", Symbol::Variable("data"), 16, 3);
  x = OpCall("Pooling")
          .Name("p1")
          .Attr("kernel", "(2,2)")
          .Attr("stride", "(2,2)")
          .Attr("pool_type", "max")
          .Input(x)
          .Build();
  x = ReluLayer("r1", BatchNormLayer("bn1", x, /*fix_gamma=*/false));
  return ConvLayer("c2", x, 8, 3);
}

struct Bound {
  std::unique_ptr<Executor> exe;
  int64_t onednn_steps = 0;  // oneDNN steps prepared by the bind
};

Bound BindNet(const Symbol& net, bool onednn, GradReqSpec req, bool onednn_bnorm = true,
              bool channels_last = true) {
  EngineOptions engine;
  engine.channels_last = channels_last;
  engine.onednn = onednn;
  engine.onednn_batchnorm = onednn_bnorm;
  const int64_t before = cpu::OnednnStepsPrepared();
  Bound b;
  b.exe = Executor::SimpleBind(net, {.ctx = Context::CPU(0),
                                     .shapes = {{"data", Shape{2, 8, 6, 6}}},
                                     .grad_req = req,
                                     .engine = engine});
  b.onednn_steps = cpu::OnednnStepsPrepared() - before;
  uint64_t seed = 1;
  for (const auto& [name, t] : b.exe->arg_dict()) testing::FillUniform(t, seed++);
  // Moving variances in [0.5, 1.5].
  for (const auto& [name, t] : b.exe->aux_dict()) {
    const bool var = name.find("moving_var") != std::string::npos;
    testing::FillUniform(t, seed++, var ? 0.5f : -1.f, 1.5f);
  }
  return b;
}

void ExpectSame(const std::map<std::string, Tensor>& got, const std::map<std::string, Tensor>& want,
                const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (const auto& [name, t] : want) {
    testing::ExpectAllClose(got.at(name), t, 1e-4, what + " " + name);
  }
}

TEST(OnednnBatchNormTest, TrainingStepsMatchTheReference) {
  // Gradients of bn2's gamma/beta are not asked for: oneDNN still computes
  // them, into the workspace.
  std::map<std::string, GradReq> req = {
      {"c1_weight", GradReq::kWrite}, {"c1_bias", GradReq::kWrite},
      {"bn1_gamma", GradReq::kAdd},   {"bn1_beta", GradReq::kWrite},
      {"data", GradReq::kWrite}};
  Bound fast = BindNet(ConvBnNet(), true, req), ref = BindNet(ConvBnNet(), false, req);
  // Convolution forward and backward, and both BatchNorms' forward and backward.
  EXPECT_EQ(fast.onednn_steps, 6);
  EXPECT_EQ(ref.onednn_steps, 0);
  Tensor head = Tensor::Empty(fast.exe->outputs()[0].shape(), DType::kFloat32).value();
  testing::FillUniform(head, 99);
  for (int step = 0; step < 2; ++step) {
    for (Bound* b : {&fast, &ref}) {
      b->exe->Forward(true);
      b->exe->Backward({head});
    }
    const std::string at = "step " + std::to_string(step);
    testing::ExpectAllClose(fast.exe->outputs()[0], ref.exe->outputs()[0], 1e-4, at + " output");
    ExpectSame(fast.exe->grad_dict(), ref.exe->grad_dict(), at + " gradient");
    ExpectSame(fast.exe->aux_dict(), ref.exe->aux_dict(), at + " aux state");
  }
}

TEST(OnednnBatchNormTest, OffByDefault) {
  EXPECT_FALSE(EngineOptions{}.onednn_batchnorm);
  Bound b = BindNet(ConvBnNet(), true, GradReq::kWrite, /*onednn_bnorm=*/false);
  EXPECT_EQ(b.onednn_steps, 2) << "the convolution's forward and backward only";
}

TEST(OnednnBatchNormTest, InferenceUsesTheMovingStatistics) {
  for (const bool channels_last : {false, true}) {
    Bound fast = BindNet(PoolBnNet(), true, GradReq::kNull, true, channels_last);
    Bound ref = BindNet(PoolBnNet(), false, GradReq::kNull, true, channels_last);
    const std::string what = channels_last ? "channels-last" : "plain";
    // Both convolutions, the pooling and the BatchNorm.
    EXPECT_EQ(fast.onednn_steps, 4) << what;
    const std::map<std::string, Tensor> aux_before = [&] {
      std::map<std::string, Tensor> copy;
      for (const auto& [name, t] : ref.exe->aux_dict()) copy[name] = CopyToNew(t, Context::CPU(0), DType::kFloat32).value();
      return copy;
    }();
    for (Bound* b : {&fast, &ref}) b->exe->Forward(false);
    testing::ExpectAllClose(fast.exe->outputs()[0], ref.exe->outputs()[0], 1e-4, what);
    ExpectSame(fast.exe->aux_dict(), aux_before, what + " aux state (unchanged)");
  }
}

TEST(OnednnBatchNormTest, NonPositiveMovingVarianceMatchesTheReference) {
  // var + eps <= 0: the Eigen kernel's 1/sqrt is 0 (the channel becomes beta).
  Bound fast = BindNet(PoolBnNet(), true, GradReq::kNull);
  Bound ref = BindNet(PoolBnNet(), false, GradReq::kNull);
  for (Bound* b : {&fast, &ref}) {
    float* var = b->exe->aux_dict().at("bn1_moving_var").data<float>();
    var[0] = -1.f;
    var[3] = -1e-3f;  // exactly -eps
    b->exe->Forward(false);
  }
  testing::ExpectAllClose(fast.exe->outputs()[0], ref.exe->outputs()[0], 1e-4, "output");
}

#else

TEST(OnednnBatchNormTest, BuiltWithoutOnednn) {
  GTEST_SKIP() << "built with --config=no_onednn: there is no oneDNN path to check";
}

#endif

}  // namespace
}  // namespace symx
