// Pipelined model parallelism (train/pipeline.h, ParallelModel's pipeline):
// the schedules' orders and slot use; a model of the ranks running them
// (deadlock-free with deferred sends, the bubble (p-1)/(m+p-1) with unit
// stages, and why waiting for each send at the end of a phase deadlocks
// 1F1B); the stage order and 1F1B's chain rule; and on two in-process ranks,
// the gradients of micro-batched steps against the whole batch's, GPipe and
// 1F1B bitwise equal, BatchNorm's per-micro-batch statistics, and the
// activation memory each schedule plans. Runs under TSan.
#include "train/pipeline.h"

#include <functional>
#include <map>
#include <mutex>
#include <random>
#include <thread>

#include "distributed/inprocess_communicator.h"
#include "executor/executor.h"
#include "graph/error.h"
#include "graph/scope.h"
#include "gtest/gtest.h"
#include "tests/expect_contains.h"
#include "train/parallel_model.h"

namespace symx::train {
namespace {

// ---------------------------------------------------------------- schedules

TEST(PipelineSchedule, GpipeRunsEveryForwardThenEveryBackward) {
  const std::vector<PipelineOp> want = {{true, 0},  {true, 1},  {true, 2},
                                        {false, 0}, {false, 1}, {false, 2}};
  for (int stage = 0; stage < 3; ++stage) {
    EXPECT_EQ(StageSchedule(PipelineSchedule::kGpipe, 3, stage, 3), want);
  }
  EXPECT_EQ(ActivationSlots(PipelineSchedule::kGpipe, 3, 8), 8);
}

TEST(PipelineSchedule, OneFOneBWarmsUpThenAlternates) {
  using P = PipelineOp;
  EXPECT_EQ(StageSchedule(PipelineSchedule::kOneFOneB, 3, 0, 4), (std::vector<P>{{true, 0},
                                                                                 {true, 1},
                                                                                 {true, 2},
                                                                                 {false, 0},
                                                                                 {true, 3},
                                                                                 {false, 1},
                                                                                 {false, 2},
                                                                                 {false, 3}}));
  EXPECT_EQ(StageSchedule(PipelineSchedule::kOneFOneB, 3, 2, 4), (std::vector<P>{{true, 0},
                                                                                 {false, 0},
                                                                                 {true, 1},
                                                                                 {false, 1},
                                                                                 {true, 2},
                                                                                 {false, 2},
                                                                                 {true, 3},
                                                                                 {false, 3}}));
  EXPECT_EQ(ActivationSlots(PipelineSchedule::kOneFOneB, 4, 16), 4);
  EXPECT_EQ(ActivationSlots(PipelineSchedule::kOneFOneB, 4, 2), 2);
}

// Every micro-batch once each way, in order, its forward first; never more
// in flight than the slots, so slot i % slots is free again when reused.
TEST(PipelineSchedule, EverySlotIsFreeWhenReused) {
  for (auto schedule : {PipelineSchedule::kGpipe, PipelineSchedule::kOneFOneB}) {
    for (int p = 1; p <= 8; ++p) {
      for (int m = 1; m <= 16; ++m) {
        const int slots = ActivationSlots(schedule, p, m);
        for (int s = 0; s < p; ++s) {
          SCOPED_TRACE(testing::Message() << PipelineScheduleName(schedule) << " p=" << p
                                          << " m=" << m << " stage " << s);
          int next_f = 0, next_b = 0;
          std::map<int, int> holder;  // slot -> micro-batch in flight
          for (const PipelineOp& op : StageSchedule(schedule, p, s, m)) {
            const int slot = op.microbatch % slots;
            if (op.forward) {
              ASSERT_EQ(op.microbatch, next_f++);
              ASSERT_EQ(holder.count(slot), 0u) << "slot " << slot << " still busy";
              holder[slot] = op.microbatch;
              ASSERT_LE(static_cast<int>(holder.size()),
                        p - s + (schedule == PipelineSchedule::kGpipe ? m : 0));
            } else {
              ASSERT_EQ(op.microbatch, next_b++);
              ASSERT_EQ(holder.at(slot), op.microbatch);
              holder.erase(slot);
            }
          }
          EXPECT_EQ(next_f, m);
          EXPECT_EQ(next_b, m);
        }
      }
    }
  }
}

// A model of p ranks running their schedules with unit-time ops. F(i) at
// stage s can start once stage s-1 has computed F(i); B(i) once stage s+1
// has computed B(i). With `rendezvous`, an op that sends (a forward below
// the last stage, a backward above the first) also holds its stage until the
// receiving stage has started the matching op, as an MPI send of a large
// message does when the phase waits for it. Returns the time steps taken,
// or -1 on deadlock.
int Simulate(PipelineSchedule schedule, int p, int m, bool rendezvous) {
  std::vector<std::vector<PipelineOp>> ops(p);
  for (int s = 0; s < p; ++s) ops[s] = StageSchedule(schedule, p, s, m);
  std::vector<size_t> next(p, 0);
  // When each stage computed / started each micro-batch's ops (-1: not yet).
  std::vector<std::vector<int>> f_computed(p, std::vector<int>(m, -1)),
      b_computed(p, std::vector<int>(m, -1)), f_started(p, std::vector<int>(m, -1)),
      b_started(p, std::vector<int>(m, -1));
  std::vector<int> busy_until(p, 0);
  std::vector<bool> holding(p, false);  // computed, waiting for the receiver
  for (int t = 0; t < 8 * (m + p); ++t) {
    bool all_done = true;
    for (int s = 0; s < p; ++s) all_done = all_done && next[s] == ops[s].size();
    if (all_done) return t;
    for (int s = 0; s < p; ++s) {
      if (next[s] == ops[s].size() || busy_until[s] > t) continue;
      const PipelineOp op = ops[s][next[s]];
      const int i = op.microbatch;
      if (holding[s]) {
        const bool received = op.forward ? f_started[s + 1][i] >= 0 : b_started[s - 1][i] >= 0;
        if (!received) continue;
        holding[s] = false;
        ++next[s];
        if (next[s] == ops[s].size()) continue;
        // The stage is free again this step: fall through to its next op.
      }
      const PipelineOp now = ops[s][next[s]];
      const int j = now.microbatch;
      const bool ready =
          now.forward ? (s == 0 || (f_computed[s - 1][j] >= 0 && f_computed[s - 1][j] <= t))
                      : (s == p - 1 || (b_computed[s + 1][j] >= 0 && b_computed[s + 1][j] <= t));
      if (!ready) continue;
      (now.forward ? f_started : b_started)[s][j] = t;
      (now.forward ? f_computed : b_computed)[s][j] = t + 1;
      busy_until[s] = t + 1;
      const bool sends = now.forward ? s < p - 1 : s > 0;
      if (rendezvous && sends) {
        holding[s] = true;
      } else {
        ++next[s];
      }
    }
  }
  return -1;
}

TEST(PipelineSchedule, DeferredSendsNeverDeadlockAndTheBubbleIsTheTextbooks) {
  for (auto schedule : {PipelineSchedule::kGpipe, PipelineSchedule::kOneFOneB}) {
    for (int p = 1; p <= 6; ++p) {
      for (int m = 1; m <= 16; ++m) {
        SCOPED_TRACE(testing::Message()
                     << PipelineScheduleName(schedule) << " p=" << p << " m=" << m);
        const int steps = Simulate(schedule, p, m, /*rendezvous=*/false);
        ASSERT_GT(steps, 0) << "deadlock";
        // Each stage works 2m steps of 2(m+p-1): bubble (p-1)/(m+p-1).
        EXPECT_EQ(steps, 2 * (m + p - 1));
      }
    }
  }
}

TEST(PipelineSchedule, WaitingForSendsAtEachPhaseEndDeadlocksOneFOneB) {
  EXPECT_EQ(Simulate(PipelineSchedule::kOneFOneB, 2, 2, /*rendezvous=*/true), -1);
  EXPECT_GT(Simulate(PipelineSchedule::kGpipe, 2, 2, /*rendezvous=*/true), 0);
}

TEST(PipelineSchedule, ParsesItsNames) {
  EXPECT_EQ(*ParsePipelineSchedule("gpipe"), PipelineSchedule::kGpipe);
  EXPECT_EQ(*ParsePipelineSchedule("1f1b"), PipelineSchedule::kOneFOneB);
  auto bad = ParsePipelineSchedule("pipedream");
  ASSERT_FALSE(bad.ok());
  EXPECT_CONTAINS(std::string(bad.status().message()),
                  "unknown pipeline schedule 'pipedream': use gpipe or 1f1b");
}

// ---------------------------------------------------------------- stages

Context OnRank(int rank) {
  Context c = Context::CPU(0);
  c.rank = rank;
  return c;
}

Symbol Fc(const std::string& name, const Symbol& in, int hidden) {
  return OpCall("FullyConnected").Name(name).Attr("num_hidden", hidden).Input("data", in);
}

TEST(PipelineStages, RanksInTheOrderTheForwardGraphMeetsThem) {
  Symbol net = Symbol::Load("tools/examples/legacy_mlp-symbol.json");
  auto stages =
      PipelineStages(net, Context::CPU(0), {{"stage1", OnRank(0)}, {"stage2", OnRank(1)}}, true);
  ASSERT_TRUE(stages.ok()) << stages.status();
  EXPECT_EQ(*stages, (std::vector<int>{0, 1}));
  stages =
      PipelineStages(net, Context::CPU(0), {{"stage1", OnRank(1)}, {"stage2", OnRank(0)}}, true);
  ASSERT_TRUE(stages.ok()) << stages.status();
  EXPECT_EQ(*stages, (std::vector<int>{1, 0}));

  // A skip connection from stage 1 to stage 3: fine for GPipe, not 1F1B.
  Symbol out;
  {
    NameScope names;
    Symbol data = Symbol::Variable("data"), a, b;
    {
      AttrScope g(AttrMap{{"ctx_group", "s1"}});
      a = Fc("fc1", data, 8);
    }
    {
      AttrScope g(AttrMap{{"ctx_group", "s2"}});
      b = Fc("fc2", a, 8);
    }
    AttrScope g(AttrMap{{"ctx_group", "s3"}});
    out = OpCall("elemwise_add").Name("skip").Input(Fc("fc3", b, 8)).Input(a);
  }
  const std::map<std::string, Context> three = {
      {"s1", OnRank(0)}, {"s2", OnRank(1)}, {"s3", OnRank(2)}};
  auto gpipe = PipelineStages(out, Context::CPU(0), three, false);
  ASSERT_TRUE(gpipe.ok());
  EXPECT_EQ(*gpipe, (std::vector<int>{0, 1, 2}));
  auto chain = PipelineStages(out, Context::CPU(0), three, true);
  ASSERT_FALSE(chain.ok());
  EXPECT_CONTAINS(std::string(chain.status().message()),
                  "op 'skip' (rank 2, stage 2) reads 'fc1' (rank 0, stage 0)");
}

// ---------------------------------------------------------------- two ranks

Tensor Random(const Shape& shape, uint32_t seed, double scale) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-scale, scale);
  std::vector<double> v(shape.Size());
  for (double& x : v) x = u(rng);
  return Tensor::FromVector(shape, v);
}

// Runs fn(rank, comm) on the two ranks of a new in-process group, one
// thread each.
void OnTwoRanks(const std::function<void(int, std::shared_ptr<Communicator>)>& fn) {
  std::vector<std::shared_ptr<Communicator>> group = CreateInProcessGroup(2);
  std::vector<std::thread> threads;
  for (int rank = 0; rank < 2; ++rank) threads.emplace_back([&, rank] { fn(rank, group[rank]); });
  for (std::thread& t : threads) t.join();
}

struct StepResult {
  std::map<std::string, std::vector<double>> grads, aux;  // this rank's
  Metrics metrics;
  std::string layout;
  size_t planned_bytes = 0;
};

// One training step of legacy_mlp (fc1 + relu on rank 0; fc2, BatchNorm and
// softmax on rank 1) on a batch of 8, on two in-process ranks.
std::vector<StepResult> StepOnTwoRanks(int microbatches, PipelineSchedule schedule,
                                       int64_t batch = 8) {
  Symbol net = Symbol::Load("tools/examples/legacy_mlp-symbol.json");
  std::vector<StepResult> out(2);
  OnTwoRanks([&](int rank, std::shared_ptr<Communicator> comm) {
    ParallelOptions o;
    o.ctx = Context::CPU(0);
    o.group2ctx = {{"stage1", OnRank(0)}, {"stage2", OnRank(1)}};
    o.comm = comm;
    o.batch_size = batch;
    o.example_shape = Shape{10};
    o.microbatches = microbatches;
    o.schedule = schedule;
    ParallelModel model(net, o);
    std::map<std::string, Tensor> args, aux;
    uint32_t seed = 1;
    for (const std::string& name : model.param_names()) {
      args[name] = Random(model.shapes().at(name), seed++, 0.5);
    }
    for (const std::string& name : net.ListAuxiliaryStates()) {
      aux[name] = Random(model.shapes().at(name), seed++, 0.2);
      if (name.find("var") != std::string::npos) aux[name].Fill(1.0);
    }
    model.SetParams(args, aux);
    Tensor data = Random(Shape{batch, 10}, 7, 1.0);
    std::vector<double> labels;
    for (int64_t i = 0; i < batch; ++i) labels.push_back(i % 4);
    Tensor label = Tensor::FromVector(Shape{batch}, labels);
    StepResult& r = out[rank];
    model.TrainStep(data, label, &r.metrics);
    for (const auto& [name, g] : model.grads()) {
      if (g.defined()) r.grads[name] = g.ToDoubles();
    }
    std::map<std::string, Tensor> all_args, all_aux;
    model.Gather(&all_args, &all_aux);
    for (const auto& [name, t] : all_aux) r.aux[name] = t.ToDoubles();
    r.layout = model.Describe();
    r.planned_bytes = model.planned_bytes();
  });
  return out;
}

TEST(Pipeline, GpipeAndOneFOneBAgreeBitwise) {
  const std::vector<StepResult> whole = StepOnTwoRanks(1, PipelineSchedule::kGpipe);
  const std::vector<StepResult> gpipe = StepOnTwoRanks(4, PipelineSchedule::kGpipe);
  const std::vector<StepResult> ofob = StepOnTwoRanks(4, PipelineSchedule::kOneFOneB);
  EXPECT_EQ(ofob[0].layout,
            "split over 2 ranks (rank 0 runs its part), pipelined: 2 stages (ranks 0, 1), 4 "
            "micro-batches of 2, 1f1b, 2 activation slots");
  for (int rank = 0; rank < 2; ++rank) {
    ASSERT_FALSE(whole[rank].grads.empty());
    EXPECT_EQ(gpipe[rank].grads, ofob[rank].grads) << "rank " << rank;
    // BatchNorm normalizes each micro-batch by its own statistics, so the
    // gradients are not the whole batch's here (the next test has none).
    EXPECT_NE(gpipe[rank].grads, whole[rank].grads) << "rank " << rank;
  }
  // The loss head is on rank 1: every row counted once.
  EXPECT_EQ(gpipe[1].metrics.count, 8);
  EXPECT_EQ(ofob[1].metrics.count, 8);
  EXPECT_EQ(gpipe[1].metrics.loss_sum, ofob[1].metrics.loss_sum);
}

// Without BatchNorm in the way, micro-batches give the whole batch's
// gradient for every parameter (to float32 rounding: the sum is taken per
// micro-batch, then over them).
TEST(Pipeline, WithoutBatchNormEveryGradientIsTheWholeBatchs) {
  // mlp: fc1 + relu (stage1), fc2 + relu + fc3 + softmax (stage2); no BatchNorm.
  Symbol net;
  {
    NameScope names;
    Symbol data = Symbol::Variable("data"), h;
    {
      AttrScope g(AttrMap{{"ctx_group", "stage1"}});
      h = OpCall("Activation")
              .Name("relu1")
              .Attr("act_type", "relu")
              .Input("data", Fc("fc1", data, 12));
    }
    AttrScope g(AttrMap{{"ctx_group", "stage2"}});
    h = OpCall("Activation").Name("relu2").Attr("act_type", "relu").Input("data", Fc("fc2", h, 8));
    net = OpCall("SoftmaxOutput").Name("softmax").Input("data", Fc("fc3", h, 4));
  }
  auto run = [&](int m, PipelineSchedule schedule) {
    std::vector<std::map<std::string, std::vector<double>>> grads(2);
    OnTwoRanks([&](int rank, std::shared_ptr<Communicator> comm) {
      ParallelOptions o;
      o.ctx = Context::CPU(0);
      o.group2ctx = {{"stage1", OnRank(0)}, {"stage2", OnRank(1)}};
      o.comm = comm;
      o.batch_size = 12;
      o.example_shape = Shape{6};
      o.microbatches = m;
      o.schedule = schedule;
      ParallelModel model(net, o);
      std::map<std::string, Tensor> args;
      uint32_t seed = 3;
      for (const std::string& name : model.param_names()) {
        args[name] = Random(model.shapes().at(name), seed++, 0.5);
      }
      model.SetParams(args, {});
      std::vector<double> labels;
      for (int i = 0; i < 12; ++i) labels.push_back(i % 4);
      Metrics metrics;
      model.TrainStep(Random(Shape{12, 6}, 11, 1.0), Tensor::FromVector(Shape{12}, labels),
                      &metrics);
      for (const auto& [name, g] : model.grads()) {
        if (g.defined()) grads[rank][name] = g.ToDoubles();
      }
    });
    return grads;
  };
  const auto whole = run(1, PipelineSchedule::kGpipe);
  for (int m : {2, 3, 6, 12}) {
    const auto piped = run(m, PipelineSchedule::kOneFOneB);
    for (int rank = 0; rank < 2; ++rank) {
      ASSERT_EQ(piped[rank].size(), whole[rank].size());
      for (const auto& [name, want] : whole[rank]) {
        const std::vector<double>& got = piped[rank].at(name);
        for (size_t i = 0; i < want.size(); ++i) {
          ASSERT_NEAR(got[i], want[i], 1e-5 * (1 + std::fabs(want[i])))
              << "m=" << m << " " << name << " " << i;
        }
      }
    }
  }
}

// BatchNorm in a pipeline: each micro-batch is normalized by its own
// statistics and moves the moving averages once, as two forwards of the
// halves in turn do on one executor.
TEST(Pipeline, BatchNormMovesItsAveragesOncePerMicroBatch) {
  const std::vector<StepResult> two = StepOnTwoRanks(2, PipelineSchedule::kOneFOneB);
  Symbol net = Symbol::Load("tools/examples/legacy_mlp-symbol.json");
  auto exe = Executor::SimpleBind(net, {.shapes = {{"data", Shape{4, 10}}}});
  std::map<std::string, Tensor> args, aux;
  uint32_t seed = 1;
  for (const std::string& name : net.ListArguments()) {
    if (name == "data" || name == "softmax_label") continue;
    args[name] = Random(exe->arg_dict().at(name).shape(), seed++, 0.5);
  }
  for (const std::string& name : net.ListAuxiliaryStates()) {
    aux[name] = Random(exe->aux_dict().at(name).shape(), seed++, 0.2);
    if (name.find("var") != std::string::npos) aux[name].Fill(1.0);
  }
  exe->CopyParamsFrom(args, aux);
  Tensor data = Random(Shape{8, 10}, 7, 1.0);
  Tensor label = Tensor::FromVector(Shape{8}, {0, 1, 2, 3, 0, 1, 2, 3});
  for (int half = 0; half < 2; ++half) {
    exe->Forward(true, {{"data", *data.Slice(4 * half, 4 * half + 4)},
                        {"softmax_label", *label.Slice(4 * half, 4 * half + 4)}});
  }
  ASSERT_FALSE(two[0].aux.empty());  // gathered on rank 0
  for (const auto& [name, t] : exe->aux_dict()) {
    const std::vector<double> want = t.ToDoubles();
    const std::vector<double>& got = two[0].aux.at(name);
    ASSERT_EQ(got.size(), want.size()) << name;
    for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-6) << name << " " << i;
  }
}

TEST(Pipeline, OneFOneBPlansFewerActivationsThanGpipe) {
  const std::vector<StepResult> gpipe = StepOnTwoRanks(8, PipelineSchedule::kGpipe, 64);
  const std::vector<StepResult> ofob = StepOnTwoRanks(8, PipelineSchedule::kOneFOneB, 64);
  for (int rank = 0; rank < 2; ++rank) {
    // 8 slots against 2 of the same executor.
    EXPECT_EQ(gpipe[rank].planned_bytes, 4 * ofob[rank].planned_bytes) << "rank " << rank;
    EXPECT_GT(ofob[rank].planned_bytes, 0u);
  }
}

std::vector<std::string> ErrorsOnTwoRanks(const std::function<void(ParallelOptions*)>& edit) {
  Symbol net = Symbol::Load("tools/examples/legacy_mlp-symbol.json");
  std::vector<std::string> errors(2);
  OnTwoRanks([&](int rank, std::shared_ptr<Communicator> comm) {
    ParallelOptions o;
    o.ctx = Context::CPU(0);
    o.group2ctx = {{"stage1", OnRank(0)}, {"stage2", OnRank(1)}};
    o.comm = comm;
    o.batch_size = 8;
    o.example_shape = Shape{10};
    o.comm_timeout = absl::Seconds(20);
    edit(&o);
    try {
      ParallelModel model(net, o);
    } catch (const Error& e) {
      errors[rank] = e.what();
    }
  });
  return errors;
}

TEST(Pipeline, BadLayoutsAreErrors) {
  for (const std::string& e : ErrorsOnTwoRanks([](ParallelOptions* o) { o->microbatches = 3; })) {
    EXPECT_CONTAINS(e, "the batch size 8 is not a multiple of the 3 micro-batches");
  }
  for (const std::string& e : ErrorsOnTwoRanks([](ParallelOptions* o) {
         o->group2ctx.clear();
         o->microbatches = 2;
       })) {
    EXPECT_CONTAINS(e, "micro-batches (2) pipeline a model split across ranks");
    EXPECT_CONTAINS(e, "this model runs data parallel");
  }
  // Ranks that disagree: every rank names both pipelines.
  int calls = 0;
  std::mutex mu;
  for (const std::string& e : ErrorsOnTwoRanks([&](ParallelOptions* o) {
         std::lock_guard<std::mutex> lock(mu);
         o->microbatches = calls++ == 0 ? 4 : 2;
         o->schedule = PipelineSchedule::kOneFOneB;
       })) {
    EXPECT_CONTAINS(e, "the ranks disagree on the pipeline: rank 0 runs ");
    EXPECT_CONTAINS(e, " micro-batches (1f1b) in 1 replica, rank 1 runs ");
  }
  // Replicas too, before the splits they would make (a collective only the
  // replicating rank would join).
  calls = 0;
  for (const std::string& e : ErrorsOnTwoRanks([&](ParallelOptions* o) {
         std::lock_guard<std::mutex> lock(mu);
         o->replicas = calls++ == 0 ? 2 : 1;
       })) {
    EXPECT_CONTAINS(e,
                    "the ranks disagree on the pipeline: rank 0 runs 1 micro-batches (gpipe) in ");
  }
}

}  // namespace
}  // namespace symx::train
