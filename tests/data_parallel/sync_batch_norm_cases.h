// The cases of _contrib_SyncBatchNorm over a data-parallel job's replicas
// that run both with ranks as threads (sync_batch_norm_test, in-process
// communicator) and as processes under mpirun
// (tests/distributed/mpi_sync_batch_norm_test): a small net, its batch, and
// BatchNorm on one executor holding the whole batch as the reference.
#ifndef SYMX_TESTS_DATA_PARALLEL_SYNC_BATCH_NORM_CASES_H_
#define SYMX_TESTS_DATA_PARALLEL_SYNC_BATCH_NORM_CASES_H_

#include <cmath>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "data_parallel/gradient_reducer.h"
#include "distributed/communicator.h"
#include "executor/device_workers.h"
#include "graph/error.h"
#include "graph/scope.h"
#include "graph/symbol.h"
#include "gtest/gtest.h"

namespace symx {
namespace sync_bn_cases {

constexpr int64_t kBatch = 12;

// data (rows, 3, 2, 2) -> [Sync]BatchNorm -> FullyConnected(5) -> SoftmaxOutput.
inline Symbol Net(const std::string& norm, int ndev = 2) {
  NameScope names;
  Symbol h = Symbol::Variable("data");
  OpCall bn(norm);
  bn.Name("bn").Attr("fix_gamma", "False").Attr("momentum", "0.8").Input(h);
  if (norm == "_contrib_SyncBatchNorm") bn.Attr("ndev", ndev).Attr("key", "bn0");
  h = bn;
  h = OpCall("FullyConnected").Name("fc").Attr("num_hidden", 5).Input(h);
  return OpCall("SoftmaxOutput").Name("softmax").Input(h);
}

const std::vector<std::string> kParams = {"bn_gamma", "bn_beta", "fc_weight", "fc_bias"};

// Parameters, aux states and the rows [begin, end) of one fixed batch.
inline void Fill(Executor& exe, int64_t begin, int64_t end) {
  std::mt19937 rng(9);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> data(kBatch * 12), label(kBatch);
  for (size_t i = 0; i < data.size(); ++i) data[i] = u(rng) * (1 + (i / 4) % 3) + (i / 4) % 3;
  for (double& x : label) x = rng() % 5;
  std::map<std::string, Tensor> args, aux;
  args["data"] =
      Tensor::FromVector(Shape{end - begin, 3, 2, 2},
                         std::vector<double>(data.begin() + begin * 12, data.begin() + end * 12));
  args["softmax_label"] = Tensor::FromVector(
      Shape{end - begin}, std::vector<double>(label.begin() + begin, label.begin() + end));
  for (const std::string& p : kParams) {
    const Tensor t = exe.arg_dict().at(p);
    std::vector<double> v(t.size());
    for (double& x : v) x = u(rng);
    args[p] = Tensor::FromVector(t.shape(), v);
  }
  aux["bn_moving_mean"] = Tensor::FromVector(Shape{3}, {0.1, -0.2, 0.3});
  aux["bn_moving_var"] = Tensor::FromVector(Shape{3}, {1.5, 0.5, 2.0});
  exe.CopyParamsFrom(args, aux);
}

inline std::unique_ptr<Executor> BindRows(const Symbol& net, Context ctx, int64_t begin,
                                          int64_t end) {
  std::map<std::string, GradReq> reqs;
  for (const std::string& p : kParams) reqs[p] = GradReq::kWrite;
  reqs["data"] = GradReq::kWrite;  // each replica's own rows, from the job's sums
  auto exe = Executor::SimpleBind(
      net, {.ctx = ctx, .shapes = {{"data", Shape{end - begin, 3, 2, 2}}}, .grad_req = reqs});
  Fill(*exe, begin, end);
  return exe;
}

struct Result {
  std::vector<double> output, data_grad;  // the softmax rows, the data's gradient
  std::map<std::string, std::vector<double>> grads, aux;
};

// BatchNorm on one executor holding the whole batch.
inline Result Reference() {
  auto exe = BindRows(Net("BatchNorm"), Context::CPU(0), 0, kBatch);
  exe->Forward(true);
  exe->Backward();
  Result r;
  r.output = exe->outputs()[0].ToDoubles();
  r.data_grad = exe->grad_dict().at("data").ToDoubles();
  for (const std::string& p : kParams) r.grads[p] = exe->grad_dict().at(p).ToDoubles();
  for (const auto& [name, t] : exe->aux_dict()) r.aux[name] = t.ToDoubles();
  return r;
}

inline void ExpectClose(const std::vector<double>& got, const std::vector<double>& want,
                        const std::string& what, size_t offset = 0) {
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_LT(offset + i, want.size()) << what;
    ASSERT_NEAR(got[i], want[offset + i], 1e-5 * (1 + std::abs(want[offset + i])))
        << what << " element " << i;
  }
}

// Every replica's Forward/Backward, concurrently, between Start and Finish.
inline absl::Status Step(GradientReducer& reducer, const std::vector<Executor*>& replicas) {
  reducer.Start();
  DeviceWorkers workers(replicas.size());
  std::vector<absl::Status> errors(replicas.size());
  workers.RunAll([&](size_t k) {
    try {
      replicas[k]->Forward(true);
      replicas[k]->Backward();
    } catch (const Error& e) {
      errors[k] = absl::Status(e.code(), e.what());
    }
  });
  for (const absl::Status& s : errors) SYMX_RETURN_IF_ERROR(s);
  return reducer.Finish();
}

// Replica outputs are its rows of the reference; gradients and moving
// statistics are the whole batch's.
inline void ExpectReference(const Result& want, Executor& exe, int64_t begin,
                            const std::string& who) {
  ExpectClose(exe.outputs()[0].ToDoubles(), want.output, who + " output", begin * 5);
  ExpectClose(exe.grad_dict().at("data").ToDoubles(), want.data_grad, who + " data gradient",
              begin * 12);
  for (const std::string& p : kParams) {
    ExpectClose(exe.grad_dict().at(p).ToDoubles(), want.grads.at(p), who + " " + p);
  }
  for (const auto& [name, t] : exe.aux_dict()) {
    ExpectClose(t.ToDoubles(), want.aux.at(name), who + " " + name);
  }
}

// One rank's part of a job of comm->size() ranks, each holding its share of
// the batch over two CPU devices of its own: every replica must see
// whole-batch BatchNorm.
inline void RanksAndDevicesTogether(const std::shared_ptr<Communicator>& comm) {
  const Result want = Reference();
  Symbol net = Net("_contrib_SyncBatchNorm", 4);
  const int rank = comm->rank(), ranks = comm->size();
  const int64_t begin = kBatch * rank / ranks, end = kBatch * (rank + 1) / ranks;
  const int64_t middle = begin + (end - begin) / 2;
  // Devices of their own for two ranks sharing a process (threads).
  const int dev = 1 + 2 * (rank % 2);
  {
    // Two steps in a row: the meetings of one node repeat.
    auto a = BindRows(net, Context::CPU(dev), begin, middle);
    auto b = BindRows(net, Context::CPU(dev + 1), middle, end);
    std::vector<Executor*> replicas = {a.get(), b.get()};
    auto reducer = GradientReducer::Create(replicas, kParams, comm, {});
    ASSERT_TRUE(reducer.ok()) << reducer.status();
    EXPECT_EQ((*reducer)->total_replicas(), 2 * ranks);
    for (int round = 0; round < 2; ++round) {
      absl::Status s = Step(**reducer, replicas);
      ASSERT_TRUE(s.ok()) << s;
    }
  }
  // One step from the reference's start (the reducer goes before its replicas).
  auto c = BindRows(net, Context::CPU(dev), begin, middle);
  auto d = BindRows(net, Context::CPU(dev + 1), middle, end);
  std::vector<Executor*> fresh = {c.get(), d.get()};
  auto reducer = GradientReducer::Create(fresh, kParams, comm, {});
  ASSERT_TRUE(reducer.ok()) << reducer.status();
  absl::Status s = Step(**reducer, fresh);
  ASSERT_TRUE(s.ok()) << s;
  ExpectReference(want, *c, begin, absl::StrCat("rank ", rank, " replica 0"));
  ExpectReference(want, *d, middle, absl::StrCat("rank ", rank, " replica 1"));
}

}  // namespace sync_bn_cases
}  // namespace symx

#endif  // SYMX_TESTS_DATA_PARALLEL_SYNC_BATCH_NORM_CASES_H_
