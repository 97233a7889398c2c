// Training on GPUs (train/trainer.h): one GPU in float32, float16 and
// bfloat16 mixed precision against the CPU's float32 accuracy, and data
// parallel over every physical GPU with gradients summed over NCCL
// (data_parallel/nccl_reducer.cc). Skips without GPUs.
#include <vector>

#include "devices/cuda/cuda_device.h"
#include "graph/error.h"
#include "gtest/gtest.h"
#include "train/trainer.h"

namespace symx::train {
namespace {

TrainResult TrainMlp(const std::vector<Context>& contexts, DType dtype) {
  TrainOptions o;
  o.epochs = 2;
  o.batch_size = 50;
  o.seed = 11;
  o.dtype = dtype;
  o.ctx = contexts[0];
  if (contexts.size() > 1) o.contexts = contexts;
  return Train(o, SyntheticDataset(3000, 500, o.seed));
}

TEST(GpuTraining, OneGpuInEveryPrecisionReachesTheCpuAccuracy) {
  if (cuda::NumPhysicalGpus() < 1) GTEST_SKIP() << "needs a GPU; this machine has none";
  const double cpu = TrainMlp({Context::CPU()}, DType::kFloat32).epochs[1].test_accuracy;
  for (DType dt : {DType::kFloat32, DType::kFloat16, DType::kBFloat16}) {
    TrainResult r = TrainMlp({Context::GPU(0)}, dt);
    EXPECT_EQ(r.layout, "gpu(0)");
    EXPECT_GT(r.epochs[1].test_accuracy, cpu - 0.01) << DTypeName(dt);
    for (const auto& [name, t] : r.arg_params) {
      EXPECT_EQ(t.dtype(), DType::kFloat32) << name;
    }
  }
}

TEST(GpuTraining, DataParallelOverEveryGpuSumsOverNccl) {
  const int n = cuda::NumPhysicalGpus();
  if (n < 2) GTEST_SKIP() << "needs 2 physical GPUs; this machine has " << n;
  std::vector<Context> gpus;
  for (int i = 0; i < n; ++i) gpus.push_back(Context::GPU(i));
  const TrainResult one = TrainMlp({Context::GPU(0)}, DType::kFloat32);
  for (DType dt : {DType::kFloat32, DType::kBFloat16}) {
    TrainResult r = TrainMlp(gpus, dt);
    EXPECT_NE(r.layout.find("data parallel"), std::string::npos) << r.layout;
    EXPECT_GT(r.epochs[1].test_accuracy, one.epochs[1].test_accuracy - 0.01) << DTypeName(dt);
  }
}

}  // namespace
}  // namespace symx::train
