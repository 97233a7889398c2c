// Training data parallel (over devices of one process, and over ranks as
// threads of the in-process communicator) and split across ranks: the
// per-epoch metrics of one process (to 3 decimals for data parallelism,
// exactly for the split), the same parameters, one checkpoint from rank 0.
// Runs under TSan.
#include <thread>

#include "distributed/inprocess_communicator.h"
#include "gmock/gmock.h"
#include "graph/error.h"
#include "gtest/gtest.h"
#include "train/trainer.h"

namespace symx::train {
namespace {

using ::testing::HasSubstr;

TrainOptions Base() {
  TrainOptions o;
  o.epochs = 2;
  o.batch_size = 40;
  o.seed = 9;
  return o;
}

const DataSplits& Data() {
  static const DataSplits* data = new DataSplits(SyntheticDataset(1200, 200, 9));
  return *data;
}

// Runs Train on `n` in-process ranks; returns each rank's result.
std::vector<TrainResult> OnRanks(int n, const TrainOptions& options) {
  std::vector<std::shared_ptr<Communicator>> group = CreateInProcessGroup(n);
  std::vector<TrainResult> results(n);
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r) {
    threads.emplace_back([&, r] {
      TrainOptions o = options;
      o.comm = group[r];
      results[r] = Train(o, Data());
    });
  }
  for (std::thread& t : threads) t.join();
  return results;
}

// The error Train throws on each of `n` in-process ranks ("" where none).
std::vector<std::string> ErrorsOnRanks(int n, const TrainOptions& options) {
  std::vector<std::shared_ptr<Communicator>> group = CreateInProcessGroup(n);
  std::vector<std::string> errors(n);
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r) {
    threads.emplace_back([&, r] {
      TrainOptions o = options;
      o.comm = group[r];
      try {
        Train(o, Data());
      } catch (const Error& e) {
        errors[r] = e.what();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  return errors;
}

void ExpectSameMetrics(const TrainResult& a, const TrainResult& b, double tol) {
  ASSERT_EQ(a.epochs.size(), b.epochs.size());
  for (size_t e = 0; e < a.epochs.size(); ++e) {
    EXPECT_NEAR(a.epochs[e].train_loss, b.epochs[e].train_loss, tol) << "epoch " << e;
    EXPECT_NEAR(a.epochs[e].train_accuracy, b.epochs[e].train_accuracy, tol) << "epoch " << e;
    EXPECT_NEAR(a.epochs[e].test_accuracy, b.epochs[e].test_accuracy, tol) << "epoch " << e;
    EXPECT_EQ(a.epochs[e].train_examples, b.epochs[e].train_examples);
    EXPECT_EQ(a.epochs[e].test_examples, b.epochs[e].test_examples);
  }
}

void ExpectCloseParams(const TrainResult& a, const TrainResult& b, double tol) {
  ASSERT_EQ(a.arg_params.size(), b.arg_params.size());
  for (const auto& [name, t] : a.arg_params) {
    std::vector<double> x = t.ToDoubles(), y = b.arg_params.at(name).ToDoubles();
    ASSERT_EQ(x.size(), y.size()) << name;
    for (size_t i = 0; i < x.size(); ++i) ASSERT_NEAR(x[i], y[i], tol) << name << " " << i;
  }
}

TEST(ParallelTrainer, DevicesOfOneProcess) {
  TrainResult one = Train(Base(), Data());
  TrainOptions o = Base();
  o.contexts = {Context::CPU(1), Context::CPU(2), Context::CPU(3)};  // uneven shares of 40
  TrainResult dp = Train(o, Data());
  EXPECT_EQ(dp.layout, "data parallel: 1 rank x 3 devices (cpu(1), cpu(2), cpu(3)), 3 replicas");
  ExpectSameMetrics(one, dp, 1e-3);
  ExpectCloseParams(one, dp, 1e-4);
}

TEST(ParallelTrainer, RanksAndDevicesWriteOneCheckpoint) {
  TrainResult one = Train(Base(), Data());
  TrainOptions o = Base();
  o.contexts = {Context::CPU(1), Context::CPU(2)};
  const char* tmp = std::getenv("TEST_TMPDIR");
  o.prefix = std::string(tmp != nullptr ? tmp : "/tmp") + "/parallel_trainer";
  o.bucket_bytes = 4096;  // many buckets
  std::vector<TrainResult> ranks = OnRanks(2, o);
  EXPECT_EQ(ranks[0].layout, "data parallel: 2 ranks x 2 devices (cpu(1), cpu(2)), 4 replicas");
  for (const TrainResult& r : ranks) ExpectSameMetrics(one, r, 1e-3);
  ExpectCloseParams(one, ranks[0], 1e-4);
  EXPECT_EQ(ranks[0].saved_files.size(), 2u);  // symbol and params, by rank 0
  EXPECT_TRUE(ranks[1].saved_files.empty());
  EXPECT_TRUE(ranks[1].arg_params.empty());
}

// The example's stages on cpu(1) and cpu(2) of one process, or with stage2
// on rank 1's cpu(2).
TrainOptions Split(TrainOptions o, bool across_ranks) {
  o.ctx = Context::CPU(1);
  Context stage2 = Context::CPU(2);
  if (across_ranks) stage2.rank = 1;
  o.group2ctx = {{"stage1", Context::CPU(1)}, {"stage2", stage2}};
  return o;
}

TEST(ParallelTrainer, SplitAcrossRanksIsOneProcessExactly) {
  TrainResult one = Train(Split(Base(), false), Data());
  std::vector<TrainResult> ranks = OnRanks(2, Split(Base(), true));
  EXPECT_EQ(ranks[0].layout, "split over 2 ranks (rank 0 runs its part)");
  ExpectSameMetrics(one, ranks[0], 0);
  ExpectCloseParams(one, ranks[0], 0);  // gathered on rank 0 from both
  EXPECT_TRUE(ranks[1].arg_params.empty());
}

// The split as a pipeline of 4 micro-batches: one process's training to
// float32 rounding (the gradient is summed per micro-batch, then over them;
// the example MLP has no BatchNorm), GPipe and 1F1B exactly alike.
TEST(ParallelTrainer, PipelinedSplitIsOneProcessToRounding) {
  TrainResult one = Train(Split(Base(), false), Data());
  TrainOptions o = Split(Base(), true);
  o.microbatches = 4;
  std::vector<TrainResult> gpipe = OnRanks(2, o);
  o.schedule = PipelineSchedule::kOneFOneB;
  std::vector<TrainResult> ofob = OnRanks(2, o);
  EXPECT_EQ(ofob[0].layout,
            "split over 2 ranks (rank 0 runs its part), pipelined: 2 stages (ranks 0, 1), 4 "
            "micro-batches of 10, 1f1b, 2 activation slots");
  ExpectSameMetrics(one, gpipe[0], 1e-3);
  ExpectCloseParams(one, gpipe[0], 1e-4);
  ExpectSameMetrics(gpipe[0], ofob[0], 0);
  ExpectCloseParams(gpipe[0], ofob[0], 0);
  // 4 activation slots against 2.
  EXPECT_EQ(gpipe[0].planned_bytes, 2 * ofob[0].planned_bytes);
}

// 2 stages x 2 replicas on 4 ranks (replica 1 on ranks 2 and 3), with and
// without micro-batches: one process's training to float32 rounding, the
// checkpoint gathered on rank 0; and 2 replicas of the plain split.
TEST(ParallelTrainer, StagesTimesReplicasIsOneProcessToRounding) {
  TrainResult one = Train(Split(Base(), false), Data());
  TrainOptions o = Split(Base(), true);
  o.replicas = 2;
  std::vector<TrainResult> plain = OnRanks(4, o);
  EXPECT_EQ(plain[2].layout,
            "split over 4 ranks (rank 2 runs its part), 2 replicas of 2 ranks (this is replica 1)");
  ExpectSameMetrics(one, plain[0], 1e-3);
  ExpectCloseParams(one, plain[0], 1e-4);
  o.microbatches = 4;
  o.schedule = PipelineSchedule::kOneFOneB;
  std::vector<TrainResult> piped = OnRanks(4, o);
  EXPECT_EQ(piped[3].layout,
            "split over 4 ranks (rank 3 runs its part), 2 replicas of 2 ranks (this is replica 1), "
            "pipelined: 2 stages (ranks 0, 1), 4 micro-batches of 5, 1f1b, 2 activation slots");
  for (const TrainResult& r : piped) ExpectSameMetrics(one, r, 1e-3);
  ExpectCloseParams(one, piped[0], 1e-4);
  EXPECT_EQ(piped[0].saved_files.size(), 0u);  // Base() saves nothing
  for (int r = 1; r < 4; ++r) EXPECT_TRUE(piped[r].arg_params.empty());
}

// --auto-stages 2 on 2 ranks: the MLP cut by cost (its own groups
// replaced), stage k on rank k-1, pipelined; one process's training to
// rounding, and the checkpoint's symbol carries the new groups.
TEST(ParallelTrainer, AutoStagesPipelineIsOneProcessToRounding) {
  TrainResult one = Train(Base(), Data());
  TrainOptions o = Base();
  o.auto_stages = 2;
  o.microbatches = 4;
  o.schedule = PipelineSchedule::kOneFOneB;
  std::vector<TrainResult> ranks = OnRanks(2, o);
  EXPECT_THAT(ranks[0].stages, HasSubstr("2 stages, balance"));
  EXPECT_THAT(ranks[0].stages, HasSubstr("(the model's own ctx_groups were replaced)"));
  EXPECT_THAT(ranks[0].layout, HasSubstr("pipelined: 2 stages (ranks 0, 1), 4 micro-batches"));
  ExpectSameMetrics(one, ranks[0], 1e-3);
  ExpectCloseParams(one, ranks[0], 1e-4);
  EXPECT_THAT(ranks[0].symbol.ToJson(), HasSubstr("\"__ctx_group__\": \"stage2\""));
  // In one process there are no ranks to put the stages on.
  try {
    Train(o, Data());
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("auto stages: 2 stages need as many ranks (mpirun -np), or a "
                                    "group2ctx placing the stages; this job has 1"));
  }
}

TEST(ParallelTrainer, BadReplicaLayoutsAreErrors) {
  TrainOptions o = Split(Base(), true);
  o.replicas = 3;  // 4 ranks
  for (const std::string& e : ErrorsOnRanks(4, o)) {
    EXPECT_THAT(e, HasSubstr("replicas: the job's 4 ranks cannot hold 3 replicas"));
  }
  o.replicas = 2;
  o.group2ctx["stage2"].rank = 3;  // beyond one replica's ranks 0..1
  for (const std::string& e : ErrorsOnRanks(4, o)) {
    EXPECT_THAT(e, HasSubstr("group2ctx describes one replica on ranks 0 to 1 (4 ranks / 2 "
                             "replicas), but group stage2 names cpu(2)@rank3"));
  }
  o = Base();
  o.replicas = 2;
  for (const std::string& e : ErrorsOnRanks(2, o)) {
    EXPECT_THAT(e, HasSubstr("replicas (2) replicate a model split across ranks"));
  }
}

// float16 with a first loss scale that overflows: every rank and replica
// skips the same steps (the overflow is agreed over ranks) and lowers the
// scale alike, and data parallelism still matches one process.
TEST(ParallelTrainer, MixedPrecisionRanksAndDevicesSkipTheSameSteps) {
  TrainOptions o = Base();
  o.dtype = DType::kFloat16;
  o.loss_scaler.initial_scale = 16777216.0;
  TrainResult one = Train(o, Data());
  ASSERT_GT(one.epochs[0].skipped_steps, 0);
  o.contexts = {Context::CPU(1), Context::CPU(2)};
  std::vector<TrainResult> ranks = OnRanks(2, o);
  for (const TrainResult& r : ranks) {
    ASSERT_EQ(r.epochs.size(), one.epochs.size());
    for (size_t e = 0; e < r.epochs.size(); ++e) {
      EXPECT_EQ(r.epochs[e].skipped_steps, one.epochs[e].skipped_steps) << "epoch " << e;
      EXPECT_EQ(r.epochs[e].loss_scale, one.epochs[e].loss_scale) << "epoch " << e;
    }
    // float16 rounds differently on a quarter of the batch than on all of
    // it, so the runs part ways a little.
    EXPECT_NEAR(r.epochs.back().test_accuracy, one.epochs.back().test_accuracy, 0.05);
  }
  ExpectSameMetrics(ranks[0], ranks[1], 0);  // metrics are over all ranks
}

// A split model's ranks hold different gradients: the overflow decision is
// still one for all.
TEST(ParallelTrainer, MixedPrecisionSplitAcrossRanks) {
  TrainOptions o = Base();
  o.dtype = DType::kFloat16;
  o.loss_scaler.initial_scale = 16777216.0;
  TrainResult one = Train(Split(o, false), Data());
  ASSERT_GT(one.epochs[0].skipped_steps, 0);
  std::vector<TrainResult> ranks = OnRanks(2, Split(o, true));
  ExpectSameMetrics(one, ranks[0], 0);
  for (const TrainResult& r : ranks) {
    EXPECT_EQ(r.epochs[0].skipped_steps, one.epochs[0].skipped_steps);
    EXPECT_EQ(r.epochs[1].loss_scale, one.epochs[1].loss_scale);
  }
  EXPECT_GT(one.epochs[1].test_accuracy, 0.85);
}

TEST(ParallelTrainer, BadLayoutsAreErrors) {
  TrainOptions o = Base();
  o.contexts = {Context::CPU(1), Context::CPU(2)};
  o.group2ctx = {{"stage1", Context::CPU(1)}, {"stage2", Context::CPU(2)}};
  try {
    Train(o, Data());
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("cannot be combined with data parallelism"));
  }
  // Across ranks: several devices with a split, and ranks named in --ctx.
  Context rank1 = Context::CPU(0);
  rank1.rank = 1;
  o = Base();
  o.contexts = {Context::CPU(1), Context::CPU(2)};
  o.group2ctx = {{"stage1", Context::CPU(1)}, {"stage2", rank1}};
  for (const std::string& e : ErrorsOnRanks(2, o)) {
    EXPECT_THAT(e, HasSubstr("several devices train data parallel, but group2ctx"));
  }
  o = Base();
  o.contexts = {Context::CPU(1), rank1};
  for (const std::string& e : ErrorsOnRanks(2, o)) {
    EXPECT_THAT(e, HasSubstr("cpu(0)@rank1 names a rank; give plain contexts"));
  }
  o = Base();
  o.batch_size = 2;
  o.contexts = {Context::CPU(1), Context::CPU(2), Context::CPU(3)};
  try {
    Train(o, Data());
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("batch size 2 is smaller than the number of replicas (3)"));
  }
}

}  // namespace
}  // namespace symx::train
