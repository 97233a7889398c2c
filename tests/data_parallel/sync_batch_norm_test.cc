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
#include "tests/data_parallel/sync_batch_norm_cases.h"

namespace symx {
namespace {

using ::testing::HasSubstr;

using namespace sync_bn_cases;  // NOLINT: the cases' helpers

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
  std::vector<std::shared_ptr<Communicator>> group = CreateInProcessGroup(2);
  std::thread t([&] { RanksAndDevicesTogether(group[1]); });
  RanksAndDevicesTogether(group[0]);
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
