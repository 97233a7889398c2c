// Memory planning through Bind: the bounds on a 20-layer MLP.
#include <algorithm>

#include "executor/executor.h"
#include "graph/symbol.h"
#include "gtest/gtest.h"

namespace symx {
namespace {

Symbol DeepMlp(int layers, int hidden, bool with_loss) {
  Symbol x = Symbol::Variable("data");
  for (int i = 0; i < layers; ++i) {
    x = OpCall("FullyConnected").Name("fc" + std::to_string(i)).Attr("num_hidden", hidden).Input(x);
    x = OpCall("Activation").Name("act" + std::to_string(i)).Attr("act_type", "relu").Input(x);
  }
  if (with_loss) x = OpCall("SoftmaxOutput").Name("softmax").Input("data", x);
  return x;
}

TEST(MemoryTest, InferencePlanIsAtMostTwiceTheLargestActivation) {
  const int64_t batch = 32, hidden = 512;
  auto exe = Executor::SimpleBind(
      DeepMlp(20, hidden, false),
      {.shapes = {{"data", Shape{batch, hidden}}}, .grad_req = GradReq::kNull});
  MemoryStats m = exe->memory_stats()[0];
  const size_t largest = batch * hidden * sizeof(float);
  EXPECT_LE(m.planned_bytes, 2 * largest) << exe->DebugStr();
  EXPECT_EQ(m.no_reuse_bytes, 40 * largest);
}

TEST(MemoryTest, TrainingPlanIsBelowTheSumOfActivationsAndGradients) {
  const int64_t batch = 32, hidden = 256;
  auto exe = Executor::SimpleBind(
      DeepMlp(20, hidden, true),
      {.shapes = {{"data", Shape{batch, hidden}}, {"softmax_label", Shape{batch}}}});
  MemoryStats m = exe->memory_stats()[0];
  // Every forward activation and every intermediate gradient, without reuse.
  EXPECT_GT(m.no_reuse_bytes, 40 * batch * hidden * sizeof(float));
  EXPECT_LT(m.planned_bytes, m.no_reuse_bytes);
  // Well below: training keeps the forward activations for backward, and the
  // backward's gradients fit in blocks forward and backward have freed.
  EXPECT_LT(m.planned_bytes, 0.6 * m.no_reuse_bytes) << exe->DebugStr();
  // A fresh SimpleBind allocated its planned blocks and every array itself.
  EXPECT_GT(m.array_bytes, 0u);
  EXPECT_EQ(m.allocated_bytes, m.planned_bytes + m.array_bytes);
  // Forward/backward still run.
  exe->Forward(true);
  exe->Backward();
}

TEST(MemoryTest, PlannedBytesUseRealDTypeSizes) {
  auto f32 = Executor::SimpleBind(DeepMlp(2, 64, false),
                                  {.shapes = {{"data", Shape{4, 64}}}, .grad_req = GradReq::kNull});
  auto f64 =
      Executor::SimpleBind(DeepMlp(2, 64, false),
                           {.shapes = {{"data", Shape{4, 64}}},
                            .grad_req = GradReq::kNull,
                            .type_dict = std::map<std::string, DType>{{"data", DType::kFloat64}}});
  EXPECT_EQ(f64->memory_stats()[0].planned_bytes, 2 * f32->memory_stats()[0].planned_bytes);
}

}  // namespace
}  // namespace symx
