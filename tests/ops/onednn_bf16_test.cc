// bfloat16 convolutions (EngineOptions::onednn_bf16): inference
// binds run their convolutions and fused convolutions in bfloat16 and stay
// within bfloat16's precision of the float32 results; binds with gradients
// and the switch off are bit-for-bit float32.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>

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

// conv -> bn -> relu (fused at inference) -> max pool -> conv 1x1 -> + skip.
Symbol Net() {
  Symbol x = ReluLayer("r1", BatchNormLayer("bn1", ConvLayer("c1", Symbol::Variable("data"), 32, 3),
                                            /*fix_gamma=*/false));
  x = OpCall("Pooling")
          .Name("p1")
          .Attr("kernel", "(2,2)")
          .Attr("stride", "(2,2)")
          .Attr("pool_type", "max")
          .Input(x)
          .Build();
  Symbol y = ConvLayer("c2", x, 32, 1);
  return OpCall("elemwise_add").Name("sum").Input(x).Input(y).Build();
}

std::unique_ptr<Executor> BindNet(bool bf16, GradReq req) {
  EngineOptions engine;
  engine.onednn_bf16 = bf16;
  auto exe = Executor::SimpleBind(Net(), {.ctx = Context::CPU(0),
                                          .shapes = {{"data", Shape{2, 16, 12, 12}}},
                                          .grad_req = req,
                                          .engine = engine});
  uint64_t seed = 1;
  for (const auto& [name, t] : exe->arg_dict()) testing::FillUniform(t, seed++);
  for (const auto& [name, t] : exe->aux_dict()) {
    const bool var = name.find("moving_var") != std::string::npos;
    testing::FillUniform(t, seed++, var ? 0.5f : -0.5f, var ? 1.5f : 0.5f);
  }
  return exe;
}

bool SameBits(const Tensor& a, const Tensor& b) {
  return a.nbytes() == b.nbytes() && std::memcmp(a.raw_data(), b.raw_data(), a.nbytes()) == 0;
}

TEST(OnednnBf16Test, OffByDefault) { EXPECT_FALSE(EngineOptions{}.onednn_bf16); }

TEST(OnednnBf16Test, InferenceWithinBfloat16Precision) {
  if (!cpu::CpuHasBf16()) GTEST_SKIP() << "this CPU has no bfloat16 instructions";
  auto f32 = BindNet(false, GradReq::kNull);
  auto bf16 = BindNet(true, GradReq::kNull);
  f32->Forward(false);
  bf16->Forward(false);
  const Tensor& want = f32->outputs()[0];
  const Tensor& got = bf16->outputs()[0];
  ASSERT_EQ(want.shape(), got.shape());
  EXPECT_FALSE(SameBits(want, got)) << "the bfloat16 path did not run";
  // bfloat16 keeps 8 significant bits: a product's error is about 2^-8 of
  // its terms' magnitude; the sums over 144 and 32 terms stay within a few
  // hundredths of the output's scale.
  const float* w = want.data<float>();
  const float* g = got.data<float>();
  float scale = 0;
  for (int64_t i = 0; i < want.size(); ++i) scale = std::max(scale, std::abs(w[i]));
  for (int64_t i = 0; i < want.size(); ++i) {
    ASSERT_NEAR(g[i], w[i], 0.03f * scale) << "element " << i;
  }
}

TEST(OnednnBf16Test, BindsWithGradientsStayFloat32) {
  auto f32 = BindNet(false, GradReq::kWrite);
  auto asked = BindNet(true, GradReq::kWrite);
  f32->Forward(true);
  asked->Forward(true);
  EXPECT_TRUE(SameBits(f32->outputs()[0], asked->outputs()[0]));
}

#else

TEST(OnednnBf16Test, BuiltWithoutOnednn) {
  GTEST_SKIP() << "built with --config=no_onednn: there is no oneDNN path to check";
}

#endif

}  // namespace
}  // namespace symx
