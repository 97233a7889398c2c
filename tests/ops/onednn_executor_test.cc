// The oneDNN path inside executors: primitives are built at Bind but every
// Forward reads the bound weights afresh (a weight written between two
// forwards is used by the second), and a bind with oneDNN turned off prepares
// nothing and gives the same numbers.
#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "devices/device.h"
#include "devices/kernel.h"
#include "devices/tensor.h"
#include "executor/executor.h"
#include "graph/node.h"
#include "graph/symbol.h"
#include "gtest/gtest.h"
#include "tests/ops/conformance.h"
#ifdef SYMX_WITH_ONEDNN
#include "devices/cpu/onednn.h"
#endif

namespace symx {
namespace {

#ifdef SYMX_WITH_ONEDNN

// data (2,8,9,9) -> 3x3 convolution, 16 filters -> relu -> 1x1 convolution.
Symbol TwoConvs() {
  Symbol data = Symbol::Variable("data");
  Symbol c1 = OpCall("Convolution")
                  .Name("c1")
                  .Attr("kernel", "(3,3)")
                  .Attr("pad", "(1,1)")
                  .Attr("num_filter", "16")
                  .Input(data)
                  .Build();
  Symbol r = OpCall("Activation").Name("r").Attr("act_type", "relu").Input(c1).Build();
  return OpCall("Convolution")
      .Name("c2")
      .Attr("kernel", "(1,1)")
      .Attr("num_filter", "4")
      .Input(r)
      .Build();
}

void Fill(const Tensor& t, uint64_t seed) { testing::FillUniform(t, seed); }

std::unique_ptr<Executor> Bind(bool onednn, GradReq req = GradReq::kNull) {
  EngineOptions engine;
  engine.onednn = onednn;
  auto exe = Executor::SimpleBind(TwoConvs(), {.ctx = Context::CPU(0),
                                               .shapes = {{"data", Shape{2, 8, 9, 9}}},
                                               .grad_req = req,
                                               .engine = engine});
  uint64_t seed = 1;
  for (const auto& [name, t] : exe->arg_dict()) Fill(t, seed++);
  return exe;
}

void ExpectClose(const Tensor& got, const Tensor& want, const std::string& what) {
  testing::ExpectAllClose(got, want, 1e-4, what);
}

TEST(OnednnExecutorTest, TakesTheOnednnPathAndMatchesTheReference) {
  const int64_t before = cpu::OnednnStepsPrepared();
  auto fast = Bind(true);
  EXPECT_EQ(cpu::OnednnStepsPrepared() - before, 2) << "both convolutions through oneDNN";
  auto ref = Bind(false);
  EXPECT_EQ(cpu::OnednnStepsPrepared() - before, 2) << "nothing prepared with oneDNN off";
  fast->Forward(false);
  ref->Forward(false);
  ExpectClose(fast->outputs()[0], ref->outputs()[0], "output");
}

TEST(OnednnExecutorTest, WeightWrittenBetweenForwardsIsUsed) {
  auto fast = Bind(true);
  auto ref = Bind(false);
  fast->Forward(false);
  const std::vector<float> first(fast->outputs()[0].data<float>(),
                                 fast->outputs()[0].data<float>() + fast->outputs()[0].size());
  // Write new weights and biases straight into the bound arrays of both.
  for (const char* name : {"c1_weight", "c1_bias", "c2_weight"}) {
    Fill(fast->arg_dict().at(name), 99);
    Fill(ref->arg_dict().at(name), 99);
  }
  fast->Forward(false);
  ref->Forward(false);
  ExpectClose(fast->outputs()[0], ref->outputs()[0], "output after the weights changed");
  bool changed = false;
  for (int64_t i = 0; i < fast->outputs()[0].size(); ++i) {
    changed |= fast->outputs()[0].data<float>()[i] != first[i];
  }
  EXPECT_TRUE(changed) << "the second forward ignored the new weights";
}

// Binds that compute no gradient keep the converted weights between calls and
// convert again only after a weight was written (a writable pointer taken,
// Fill, CopyParamsFrom); the results always follow the weights.
TEST(OnednnExecutorTest, ConvertedWeightsAreKeptUntilWritten) {
  auto fast = Bind(true);
  auto ref = Bind(false);
  fast->Forward(false);
  const int64_t after_first = cpu::CachedOperand::Conversions();
  fast->Forward(false);
  fast->Forward(true);  // a training forward of an inference bind reads the same weights
  EXPECT_EQ(cpu::CachedOperand::Conversions(), after_first) << "unchanged weights converted again";

  // A write through a pointer taken now.
  for (auto* exe : {fast.get(), ref.get()}) exe->arg_dict().at("c1_weight").data<float>()[5] = 3.f;
  fast->Forward(false);
  ref->Forward(false);
  EXPECT_GT(cpu::CachedOperand::Conversions(), after_first);
  ExpectClose(fast->outputs()[0], ref->outputs()[0], "after a pointer write");

  // Fill and CopyParamsFrom.
  const int64_t before_fill = cpu::CachedOperand::Conversions();
  for (auto* exe : {fast.get(), ref.get()}) exe->arg_dict().at("c2_weight").Fill(0.25);
  fast->Forward(false);
  ref->Forward(false);
  EXPECT_GT(cpu::CachedOperand::Conversions(), before_fill);
  ExpectClose(fast->outputs()[0], ref->outputs()[0], "after Fill");
  Tensor w = Tensor::Empty(fast->arg_dict().at("c1_weight").shape(), DType::kFloat32).value();
  Fill(w, 1234);
  fast->CopyParamsFrom({{"c1_weight", w}});
  ref->CopyParamsFrom({{"c1_weight", w}});
  fast->Forward(false);
  ref->Forward(false);
  ExpectClose(fast->outputs()[0], ref->outputs()[0], "after CopyParamsFrom");
}

TEST(OnednnExecutorTest, TrainingStepMatchesTheReference) {
  std::map<std::string, std::vector<float>> grads[2];
  for (int onednn = 0; onednn < 2; ++onednn) {
    auto exe = Bind(onednn == 1, GradReq::kAdd);
    Tensor head = Tensor::Empty(exe->outputs()[0].shape(), DType::kFloat32).value();
    Fill(head, 7);
    // Two steps with grad_req add: the gradients accumulate.
    for (int step = 0; step < 2; ++step) {
      exe->Forward(true);
      exe->Backward({head});
    }
    for (const auto& [name, g] : exe->grad_dict()) {
      grads[onednn][name].assign(g.data<float>(), g.data<float>() + g.size());
    }
  }
  ASSERT_EQ(grads[0].size(), grads[1].size());
  for (const auto& [name, ref] : grads[0]) {
    const std::vector<float>& got = grads[1].at(name);
    ASSERT_EQ(got.size(), ref.size()) << name;
    for (size_t i = 0; i < ref.size(); ++i) {
      ASSERT_NEAR(got[i], ref[i], 1e-3 * (1 + std::abs(ref[i]))) << name << " element " << i;
    }
  }
}

// LRN's oneDNN step writes the output and the kernel computes the hidden
// tmp_norm (which an Eigen backward would read) itself: run the kernel
// directly, prepared and not, and compare both outputs.
TEST(OnednnExecutorTest, LrnPreparedKernelWritesBothOutputs) {
  NodePtr node = MakeOpNode("LRN", "lrn",
                            {{"nsize", "5"}, {"alpha", "0.5"}, {"beta", "0.75"}, {"knorm", "1.5"}},
                            {{MakeVariableNode("data"), 0, 0}})
                     .value();
  const KernelInfo* k = KernelRegistry::Find("LRN", DeviceType::kCPU);
  ASSERT_NE(k, nullptr);
  ASSERT_NE(k->prepare, nullptr);
  const Shape shape{2, 16, 5, 3};  // a case oneDNN has a real kernel for
  Tensor data = Tensor::Empty(shape, DType::kFloat32).value();
  Fill(data, 3);
  std::vector<float> outputs[2][2];
  for (int onednn = 0; onednn < 2; ++onednn) {
    KernelContext ctx;
    ctx.attrs = &node->attrs;
    ctx.device = GetDevice(Context::CPU(0)).value();
    ctx.num_threads = 2;
    ctx.inputs = {data};
    for (int j = 0; j < 2; ++j) ctx.outputs.push_back(Tensor::Empty(shape, DType::kFloat32).value());
    ctx.req = {OpReq::kWrite, OpReq::kWrite};
    if (onednn == 1) {
      size_t bytes = 0;
      ASSERT_TRUE(k->prepare(&ctx, &bytes).ok());
      ASSERT_NE(ctx.state, nullptr) << "oneDNN took the case";
      if (bytes > 0) {
        ctx.workspace = Tensor::Empty(Shape{static_cast<int64_t>(bytes)}, DType::kUint8).value();
      }
    }
    ASSERT_TRUE(k->fn(ctx).ok());
    for (int j = 0; j < 2; ++j) {
      const float* p = ctx.outputs[j].data<float>();
      outputs[onednn][j].assign(p, p + ctx.outputs[j].size());
    }
  }
  for (int j = 0; j < 2; ++j) {
    for (size_t i = 0; i < outputs[0][j].size(); ++i) {
      ASSERT_NEAR(outputs[1][j][i], outputs[0][j][i], 1e-5 * (1 + std::abs(outputs[0][j][i])))
          << (j == 0 ? "output" : "tmp_norm") << " element " << i;
    }
  }
}

#else

TEST(OnednnExecutorTest, BuiltWithoutOnednn) {
  GTEST_SKIP() << "built with --config=no_onednn: there is no oneDNN path to check";
}

#endif

}  // namespace
}  // namespace symx
