// _contrib_SyncBatchNorm over the replicas of a data-parallel job: replicas
// on several CPU devices of one process, and ranks as threads (in-process
// communicator). With ndev > 1 its outputs, moving statistics and reduced
// gradients must equal BatchNorm's on one executor holding the whole batch
// (up to summation order), on every replica; with ndev = 1 each replica keeps
// its own statistics, as in MXNet. A replica or rank that does not come ends
// the step with an error naming the meeting. Runs under TSan.
#include <cmath>
#include <cstring>
#include <random>
#include <thread>

#include "absl/strings/str_cat.h"
#include "data_parallel/gradient_reducer.h"
#include "distributed/inprocess_communicator.h"
#include "executor/device_workers.h"
#include "gmock/gmock.h"
#include "graph/error.h"
#include "graph/scope.h"
#include "graph/symbol.h"
#include "gtest/gtest.h"

namespace symx {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kBatch = 12;

// data (rows, 3, 2, 2) -> [Sync]BatchNorm -> FullyConnected(5) -> SoftmaxOutput.
Symbol Net(const std::string& norm, int ndev = 2) {
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
void Fill(Executor& exe, int64_t begin, int64_t end) {
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

std::unique_ptr<Executor> BindRows(const Symbol& net, Context ctx, int64_t begin, int64_t end) {
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
Result Reference() {
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

void ExpectClose(const std::vector<double>& got, const std::vector<double>& want,
                 const std::string& what, size_t offset = 0) {
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_LT(offset + i, want.size()) << what;
    ASSERT_NEAR(got[i], want[offset + i], 1e-5 * (1 + std::abs(want[offset + i])))
        << what << " element " << i;
  }
}

// Every replica's Forward/Backward, concurrently, between Start and Finish.
absl::Status Step(GradientReducer& reducer, const std::vector<Executor*>& replicas) {
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
void ExpectReference(const Result& want, Executor& exe, int64_t begin, const std::string& who) {
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

TEST(SyncBatchNorm, TwoDevicesOfOneProcessNormalizeWithTheWholeBatch) {
  const Result want = Reference();
  Symbol net = Net("_contrib_SyncBatchNorm");
  auto a = BindRows(net, Context::CPU(1), 0, 5);  // uneven shares
  auto b = BindRows(net, Context::CPU(2), 5, kBatch);
  std::vector<Executor*> replicas = {a.get(), b.get()};
  auto reducer = *GradientReducer::Create(replicas, kParams, nullptr, {});
  absl::Status s = Step(*reducer, replicas);
  ASSERT_TRUE(s.ok()) << s;
  ExpectReference(want, *a, 0, "replica 0");
  ExpectReference(want, *b, 5, "replica 1");
  // And again: the moving statistics keep moving together.
  ASSERT_TRUE(Step(*reducer, replicas).ok());
  for (const auto& [name, t] : a->aux_dict()) {
    EXPECT_EQ(t.ToDoubles(), b->aux_dict().at(name).ToDoubles()) << name;
  }
}

TEST(SyncBatchNorm, RanksAndDevicesTogether) {
  const Result want = Reference();
  Symbol net = Net("_contrib_SyncBatchNorm", 4);
  std::vector<std::shared_ptr<Communicator>> group = CreateInProcessGroup(2);
  auto rank_body = [&](int rank) {
    // Rank r holds rows [6r, 6r+6), split over two devices of its own.
    const int64_t begin = rank * 6;
    auto a = BindRows(net, Context::CPU(1 + 2 * rank), begin, begin + 2);
    auto b = BindRows(net, Context::CPU(2 + 2 * rank), begin + 2, begin + 6);
    std::vector<Executor*> replicas = {a.get(), b.get()};
    auto reducer = GradientReducer::Create(replicas, kParams, group[rank], {});
    ASSERT_TRUE(reducer.ok()) << reducer.status();
    absl::Status s = Step(**reducer, replicas);
    ASSERT_TRUE(s.ok()) << s;
    ExpectReference(want, *a, begin, absl::StrCat("rank ", rank, " replica 0"));
    ExpectReference(want, *b, begin + 2, absl::StrCat("rank ", rank, " replica 1"));
  };
  std::thread t([&] { rank_body(1); });
  rank_body(0);
  t.join();
}

// ndev = 1 is MXNet's per-device BatchNorm: each replica its own statistics.
TEST(SyncBatchNorm, OneDeviceKeysKeepTheirOwnStatistics) {
  Symbol net = Net("_contrib_SyncBatchNorm", 1);
  auto a = BindRows(net, Context::CPU(1), 0, 6);
  auto b = BindRows(net, Context::CPU(2), 6, kBatch);
  std::vector<Executor*> replicas = {a.get(), b.get()};
  auto reducer = *GradientReducer::Create(replicas, kParams, nullptr, {});
  ASSERT_TRUE(Step(*reducer, replicas).ok());
  auto alone = BindRows(Net("BatchNorm"), Context::CPU(0), 0, 6);
  alone->Forward(true);
  ExpectClose(a->outputs()[0].ToDoubles(), alone->outputs()[0].ToDoubles(), "replica 0 output");
  EXPECT_NE(a->aux_dict().at("bn_moving_mean").ToDoubles(),
            b->aux_dict().at("bn_moving_mean").ToDoubles());
}

// Outside a data-parallel job (one executor) it is BatchNorm over its batch.
TEST(SyncBatchNorm, OneExecutorIsBatchNorm) {
  const Result want = Reference();
  auto exe = BindRows(Net("_contrib_SyncBatchNorm"), Context::CPU(0), 0, kBatch);
  exe->Forward(true);
  exe->Backward();
  ExpectReference(want, *exe, 0, "alone");
}

TEST(SyncBatchNorm, AReplicaThatDoesNotComeIsNamed) {
  Symbol net = Net("_contrib_SyncBatchNorm");
  auto a = BindRows(net, Context::CPU(1), 0, 6);
  auto b = BindRows(net, Context::CPU(2), 6, kBatch);
  ReducerOptions o;
  o.timeout = absl::Milliseconds(300);
  auto reducer = *GradientReducer::Create({a.get(), b.get()}, kParams, nullptr, o);
  reducer->Start();
  // Replica 1 never runs.
  try {
    a->Forward(true);
    FAIL() << "replica 0 ran alone";
  } catch (const Error& e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr("operator bn (_contrib_SyncBatchNorm) mean"));
    EXPECT_THAT(std::string(e.what()), HasSubstr("1 of 2 came"));
  }
}

TEST(SyncBatchNorm, ARankThatDoesNotComeIsNamed) {
  Symbol net = Net("_contrib_SyncBatchNorm");
  std::vector<std::shared_ptr<Communicator>> group = CreateInProcessGroup(2);
  ReducerOptions o;
  o.timeout = absl::Milliseconds(500);
  std::string error;
  auto rank_body = [&](int rank) {
    auto a = BindRows(net, Context::CPU(1 + rank), rank * 6, rank * 6 + 6);
    auto reducer = GradientReducer::Create({a.get()}, kParams, group[rank], o);
    ASSERT_TRUE(reducer.ok()) << reducer.status();
    if (rank == 1) return;  // bound, then gone
    (*reducer)->Start();
    try {
      a->Forward(true);
    } catch (const Error& e) {
      error = e.what();
    }
  };
  std::thread t([&] { rank_body(1); });
  rank_body(0);
  t.join();
  EXPECT_THAT(error, HasSubstr("replica sync"));
  EXPECT_THAT(error, HasSubstr("rank 1"));
  EXPECT_THAT(error, HasSubstr("operator bn (_contrib_SyncBatchNorm)"));
}

}  // namespace
}  // namespace symx
