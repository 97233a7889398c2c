// A model split across two ranks whose parts run on GPUs (group2ctx
// `gpu(N)@rankR`): the _send/_recv steps between them go over NCCL when the
// ranks have distinct GPUs (distributed/nccl_transfer.cc), and through host
// copies over the host communicator when both ranks share one GPU. Either
// way the outputs and gradients equal those of the whole model bound in one
// process on one GPU. Ranks are threads over the in-process communicator.
#include <thread>
#include <vector>

#include "devices/cuda/cuda_device.h"
#include "distributed/inprocess_communicator.h"
#include "executor/executor.h"
#include "graph/error.h"
#include "graph/scope.h"
#include "gtest/gtest.h"
#include "tests/executor/executor_test_util.h"

namespace symx {
namespace {

Context OnRank(Context c, int rank) {
  c.rank = rank;
  return c;
}

Symbol TwoStages() {
  Symbol h;
  {
    AttrScope scope(AttrMap{{"ctx_group", "stage1"}});
    h = OpCall("FullyConnected").Name("fc1").Attr("num_hidden", 16).Input(Symbol::Variable("data"));
    h = OpCall("Activation").Name("relu").Attr("act_type", "relu").Input(h).Build();
  }
  AttrScope scope(AttrMap{{"ctx_group", "stage2"}});
  h = OpCall("FullyConnected").Name("fc2").Attr("num_hidden", 4).Input(h).Build();
  return OpCall("SoftmaxOutput").Name("softmax").Input("data", h).Build();
}

std::vector<double> Host(const Tensor& t) {
  return ValueOrThrow(CopyToNew(t, Context::CPU(), t.dtype())).ToDoubles();
}

void ExpectSame(const std::map<std::string, Tensor>& split,
                const std::map<std::string, Tensor>& whole, const std::string& what) {
  for (const auto& [name, t] : split) {
    if (!t.defined()) continue;  // another rank's
    const std::vector<double> a = Host(t), b = Host(whole.at(name));
    ASSERT_EQ(a.size(), b.size()) << what << " " << name;
    for (size_t i = 0; i < a.size(); ++i) {
      EXPECT_NEAR(a[i], b[i], 1e-5 * (1 + std::abs(b[i]))) << what << " " << name << " " << i;
    }
  }
}

void RunSplit(int gpu_of_rank1) {
  Symbol net = TwoStages();
  SimpleBindOptions o{.ctx = Context::GPU(0), .shapes = {{"data", Shape{6, 10}}}};
  auto whole = Executor::SimpleBind(net, o);
  testing::RandomParams p = testing::MakeRandomParams(*whole, 3, /*label_classes=*/4);
  whole->CopyParamsFrom(p.args, p.aux);
  whole->Forward(true);
  whole->Backward();
  auto group = CreateInProcessGroup(2);
  auto rank = [&](int r) {
    SimpleBindOptions so = o;
    so.group2ctx = {{"stage1", OnRank(Context::GPU(0), 0)},
                    {"stage2", OnRank(Context::GPU(gpu_of_rank1), 1)}};
    so.comm = group[r];
    so.comm_timeout = absl::Seconds(60);
    auto split = Executor::SimpleBind(net, so);
    split->CopyParamsFrom(p.args, p.aux);
    for (int step = 0; step < 2; ++step) {
      split->Forward(true);
      split->Backward();
    }
    ExpectSame(split->output_dict(), whole->output_dict(), "output");
    ExpectSame(split->grad_dict(), whole->grad_dict(), "gradient");
  };
  std::thread other([&] { rank(1); });
  rank(0);
  other.join();
}

TEST(GpuCrossRank, DistinctGpusTransferOverNccl) {
  if (cuda::NumPhysicalGpus() < 2) {
    GTEST_SKIP() << "needs 2 physical GPUs; this machine has " << cuda::NumPhysicalGpus();
  }
  RunSplit(1);
}

TEST(GpuCrossRank, OneSharedGpuTransfersThroughHostCopies) {
  if (cuda::NumPhysicalGpus() < 1) GTEST_SKIP() << "needs a GPU; this machine has none";
  RunSplit(0);
}

}  // namespace
}  // namespace symx
