// _contrib_SyncBatchNorm's GPU kernels over two replicas (logical GPUs 0 and
// 1, which SYMX_LOGICAL_GPUS may map onto one physical GPU) meeting through a
// JobReplicaSync, against BatchNorm on one GPU holding the whole batch: the
// outputs, the data gradients and the moving statistics per replica, and the
// sum of the replicas' gamma/beta gradients. Skips without GPUs.
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "data_parallel/replica_sync.h"
#include "devices/cuda/cuda_device.h"
#include "executor/executor.h"
#include "graph/error.h"
#include "graph/scope.h"
#include "graph/symbol.h"
#include "gtest/gtest.h"
#include "tests/cuda/gpu_test_util.h"

namespace symx {
namespace {

constexpr int64_t kRows = 10;

Symbol Norm(const std::string& op) {
  NameScope names;
  OpCall bn(op);
  bn.Name("bn").Attr("fix_gamma", "False").Input(Symbol::Variable("data"));
  if (op == "_contrib_SyncBatchNorm") bn.Attr("ndev", 2).Attr("key", "bn0");
  return bn;
}

struct Replica {
  std::unique_ptr<Executor> exe;
  int64_t begin;
};

Replica Bind(const Symbol& net, Context ctx, int64_t begin, int64_t end) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> data(kRows * 4 * 3);
  for (size_t i = 0; i < data.size(); ++i) data[i] = u(rng) * (1 + (i / 3) % 4) + (i / 3) % 4;
  auto exe =
      Executor::SimpleBind(net, {.ctx = ctx, .shapes = {{"data", Shape{end - begin, 4, 3}}}});
  std::map<std::string, Tensor> args, aux;
  args["data"] =
      Tensor::FromVector(Shape{end - begin, 4, 3},
                         std::vector<double>(data.begin() + begin * 12, data.begin() + end * 12));
  args["bn_gamma"] = Tensor::FromVector(Shape{4}, {0.5, 1.5, -1.0, 2.0});
  args["bn_beta"] = Tensor::FromVector(Shape{4}, {0.1, 0.2, 0.3, 0.4});
  aux["bn_moving_mean"] = Tensor::FromVector(Shape{4}, {0, 1, 0, 1});
  aux["bn_moving_var"] = Tensor::FromVector(Shape{4}, {1, 2, 1, 2});
  exe->CopyParamsFrom(args, aux);
  return {std::move(exe), begin};
}

std::vector<double> Host(const Tensor& t) {
  return ValueOrThrow(CopyToNew(t, Context::CPU(), DType::kFloat64)).ToDoubles();
}

void Step(Executor& exe, const std::vector<double>& head) {
  exe.Forward(true);
  const Tensor& y = exe.outputs()[0];
  Tensor g = ValueOrThrow(Tensor::Zeros(y.shape(), y.dtype(), y.ctx()));
  ThrowIfError(CopyTensor(Tensor::FromVector(y.shape(), head, y.dtype()), g));
  exe.Backward({g});
}

void ExpectNear(const std::vector<double>& got, const std::vector<double>& want, size_t offset,
                const std::string& what) {
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(got[i], want[offset + i], 1e-4 * (1 + std::abs(want[offset + i])))
        << what << " element " << i;
  }
}

TEST(GpuSyncBatchNorm, TwoReplicasNormalizeWithTheWholeBatch) {
  SYMX_REQUIRE_GPUS(2);
  std::vector<double> head(kRows * 12);
  for (size_t i = 0; i < head.size(); ++i) head[i] = std::sin(0.7 * static_cast<double>(i));
  Replica whole = Bind(Norm("BatchNorm"), Context::GPU(0), 0, kRows);
  Step(*whole.exe, head);
  Symbol sync = Norm("_contrib_SyncBatchNorm");
  std::vector<Replica> runs;
  runs.push_back(Bind(sync, Context::GPU(0), 0, 4));  // uneven shares
  runs.push_back(Bind(sync, Context::GPU(1), 4, kRows));
  auto meeting = std::make_shared<JobReplicaSync>(2, nullptr, 2, absl::Seconds(60));
  for (int k = 0; k < 2; ++k) runs[k].exe->SetReplicaSync(meeting, k);
  std::vector<std::thread> threads;
  for (Replica& r : runs) {
    threads.emplace_back([&r, &head] {
      const int64_t rows = r.exe->outputs()[0].shape()[0];
      Step(*r.exe,
           std::vector<double>(head.begin() + r.begin * 12, head.begin() + (r.begin + rows) * 12));
    });
  }
  for (std::thread& t : threads) t.join();
  std::vector<double> dgamma(4, 0.0), dbeta(4, 0.0);
  for (Replica& r : runs) {
    ExpectNear(Host(r.exe->outputs()[0]), Host(whole.exe->outputs()[0]), r.begin * 12, "output");
    ExpectNear(Host(r.exe->grad_dict().at("data")), Host(whole.exe->grad_dict().at("data")),
               r.begin * 12, "data gradient");
    for (const char* aux : {"bn_moving_mean", "bn_moving_var"}) {
      ExpectNear(Host(r.exe->aux_dict().at(aux)), Host(whole.exe->aux_dict().at(aux)), 0, aux);
    }
    const std::vector<double> g = Host(r.exe->grad_dict().at("bn_gamma"));
    const std::vector<double> b = Host(r.exe->grad_dict().at("bn_beta"));
    for (int c = 0; c < 4; ++c) {
      dgamma[c] += g[c];
      dbeta[c] += b[c];
    }
  }
  ExpectNear(dgamma, Host(whole.exe->grad_dict().at("bn_gamma")), 0, "gamma gradient sum");
  ExpectNear(dbeta, Host(whole.exe->grad_dict().at("bn_beta")), 0, "beta gradient sum");
}

}  // namespace
}  // namespace symx
