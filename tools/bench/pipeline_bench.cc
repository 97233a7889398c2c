// A model split across the ranks of an mpirun job as a pipeline (issue 34):
// how much of each step the stages spend idle, the bubble, against the
// textbook (p-1)/(m+p-1) for p stages and m micro-batches.
//
// The model: p stages of `layers` FullyConnected(width) + relu each (the last
// ending in FullyConnected(10) + SoftmaxOutput), stage k on rank k. In one
// run, for each schedule and m in 1, 2, 4, 8, 16: the median step time
// (ParallelModel::TrainStep, timed until every rank is done) over repeated
// steps, and the ideal: m steps of the whole model on one micro-batch in one
// process (so smaller GEMMs' lower efficiency is not counted as bubble),
// divided by the number of stages that can run at once (min(p, cores): on a
// machine with fewer cores than ranks the stages share them, which fills
// part of the bubble with other ranks' work).
//   bubble = 1 - ideal / measured
// Also: the intermediate memory each rank plans (GPipe holds m micro-batches'
// activations, 1F1B at most p). With 4 or more ranks, a 2-stage model as 2
// stages x p/2 replicas against p-way data parallelism.
//   mpirun -np P bazel-bin/tools/bench/pipeline_bench [--width W] [--layers L]
//          [--batch B] [--steps N]
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#include "devices/cpu/cpu_device.h"
#include "distributed/mpi_communicator.h"
#include "executor/executor.h"
#include "graph/error.h"
#include "graph/scope.h"
#include "train/parallel_model.h"

namespace symx {
namespace {

const absl::Duration kTimeout = absl::Seconds(300);

Symbol StagedMlp(int stages, int layers, int width) {
  NameScope names;
  Symbol h = Symbol::Variable("data");
  for (int s = 0; s < stages; ++s) {
    AttrScope group(AttrMap{{"ctx_group", "stage" + std::to_string(s)}});
    for (int l = 0; l < layers; ++l) {
      const std::string id = std::to_string(s) + "_" + std::to_string(l);
      h = OpCall("FullyConnected").Name("fc" + id).Attr("num_hidden", width).Input(h);
      h = OpCall("Activation").Name("relu" + id).Attr("act_type", "relu").Input(h);
    }
    if (s == stages - 1) {
      h = OpCall("FullyConnected").Name("out").Attr("num_hidden", 10).Input(h);
      h = OpCall("SoftmaxOutput").Name("softmax").Input(h);
    }
  }
  return h;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Run {
  double step_seconds = 0;
  size_t planned_bytes = 0;  // the largest over ranks
};

Run Measure(const Symbol& net, train::ParallelOptions o, int steps) {
  train::ParallelModel model(net, o);
  std::map<std::string, Tensor> args;
  for (const std::string& name : model.param_names()) {
    args[name] = ValueOrThrow(Tensor::Zeros(model.shapes().at(name), DType::kFloat32));
    args[name].Fill(0.01);
  }
  model.SetParams(args, {});
  const int64_t batch = o.batch_size;
  Tensor data = ValueOrThrow(Tensor::Zeros(model.shapes().at("data"), DType::kFloat32));
  data.Fill(0.5);
  Tensor label = ValueOrThrow(Tensor::Zeros(Shape{batch}, DType::kFloat32));
  std::vector<double> times;
  for (int i = 0; i < steps + 2; ++i) {
    train::Metrics m;
    MPI_Barrier(MPI_COMM_WORLD);
    auto t0 = std::chrono::steady_clock::now();
    model.TrainStep(data, label, &m);
    MPI_Barrier(MPI_COMM_WORLD);
    if (i >= 2) {
      times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
  }
  Run r;
  r.step_seconds = Median(times);
  unsigned long long bytes = model.planned_bytes(), most = 0;
  MPI_Allreduce(&bytes, &most, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
  r.planned_bytes = most;
  return r;
}

// The whole model's step in one process (rank 0; the others wait).
double SingleProcessStep(const Symbol& net, int64_t batch, int width, int steps) {
  double seconds = 0;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    auto exe = Executor::SimpleBind(
        net, {.shapes = {{"data", Shape{batch, width}}, {"softmax_label", Shape{batch}}}});
    for (auto& [name, t] : exe->arg_dict()) t.Fill(name == "softmax_label" ? 0.0 : 0.01);
    std::vector<double> times;
    for (int i = 0; i < steps + 2; ++i) {
      auto t0 = std::chrono::steady_clock::now();
      exe->Forward(true);
      exe->Backward();
      if (i >= 2) {
        times.push_back(
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      }
    }
    seconds = Median(times);
  }
  MPI_Bcast(&seconds, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  return seconds;
}

}  // namespace
}  // namespace symx

int main(int argc, char** argv) {
  using namespace symx;
  if (!StartedByMpiLauncher()) {
    std::fprintf(stderr, "run under mpirun: mpirun -np P %s\n", argv[0]);
    return 2;
  }
  auto world = ValueOrThrow(InitMpiWorld(&argc, &argv));
  int width = 512, layers = 4, steps = 9;
  int64_t batch = 256;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--width")) width = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--layers")) layers = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--batch")) batch = std::atoll(argv[i + 1]);
    if (!std::strcmp(argv[i], "--steps")) steps = std::atoi(argv[i + 1]);
  }
  const int p = world->size();
  const int cores = static_cast<int>(std::thread::hardware_concurrency());
  // One thread per rank: the stages are the parallelism measured here.
  SetCpuThreadsForNewDevices(1);
  const Symbol net = StagedMlp(p, layers, width);
  const double single = SingleProcessStep(net, batch, width, steps);
  if (world->rank() == 0) {
    std::printf(
        "pipeline_bench: %d stages (ranks) on %d cores, %d x FullyConnected(%d) per stage, batch "
        "%lld; one process: %.2f ms/step\n",
        p, cores, layers, width, static_cast<long long>(batch), single * 1e3);
    std::printf("%-6s %4s %10s %9s %8s %14s %16s\n", "sched", "m", "step ms", "ideal ms", "bubble",
                "(p-1)/(m+p-1)", "planned MB/rank");
  }
  for (auto schedule : {train::PipelineSchedule::kGpipe, train::PipelineSchedule::kOneFOneB}) {
    for (int m : {1, 2, 4, 8, 16}) {
      if (batch % m != 0) continue;
      train::ParallelOptions o;
      o.ctx = Context::CPU(0);
      for (int s = 0; s < p; ++s) {
        Context c = Context::CPU(0);
        c.rank = s;
        o.group2ctx["stage" + std::to_string(s)] = c;
      }
      o.comm = world;
      o.comm_timeout = kTimeout;
      o.batch_size = batch;
      o.example_shape = Shape{width};
      o.microbatches = m;
      o.schedule = schedule;
      const double ideal = m * SingleProcessStep(net, batch / m, width, steps) / std::min(p, cores);
      Run r = Measure(net, o, steps);
      if (world->rank() == 0) {
        std::printf("%-6s %4d %10.2f %9.2f %7.1f%% %13.1f%% %16.2f\n",
                    train::PipelineScheduleName(schedule), m, r.step_seconds * 1e3, ideal * 1e3,
                    100 * (1 - ideal / r.step_seconds), 100.0 * (p - 1) / (m + p - 1),
                    r.planned_bytes / 1048576.0);
      }
    }
  }
  // With 4 ranks or more (an even number): 2 stages x p/2 replicas against
  // p-way data parallelism, on the same 2-stage model and global batch.
  if (p >= 4 && p % 2 == 0) {
    const Symbol two = StagedMlp(2, layers * p / 2, width);
    train::ParallelOptions dp;
    dp.ctx = Context::CPU(0);
    dp.comm = world;
    dp.comm_timeout = kTimeout;
    dp.batch_size = batch;
    dp.example_shape = Shape{width};
    const Run data_parallel = Measure(two, dp, steps);
    train::ParallelOptions sr = dp;
    Context second = Context::CPU(0);
    second.rank = 1;
    sr.group2ctx = {{"stage0", Context::CPU(0)}, {"stage1", second}};
    sr.replicas = p / 2;
    sr.microbatches = 4;
    sr.schedule = train::PipelineSchedule::kOneFOneB;
    const Run staged = Measure(two, sr, steps);
    if (world->rank() == 0) {
      std::printf(
          "2 stages x %d replicas (1f1b, 4 micro-batches): %.2f ms/step, %.2f MB planned/rank; "
          "%d-way data parallel: %.2f ms/step, %.2f MB; ratio %.2f\n",
          p / 2, staged.step_seconds * 1e3, staged.planned_bytes / 1048576.0, p,
          data_parallel.step_seconds * 1e3, data_parallel.planned_bytes / 1048576.0,
          staged.step_seconds / data_parallel.step_seconds);
    }
  }
  world.reset();
  FinalizeMpi();
  return 0;
}
