// A data-parallel training step under mpirun (tools/bench/run_mpi.sh): how
// much of the gradient communication backward hides.
//
// Each rank trains a replica on its share of the global batch. In one run,
// alternating, medians of repeated samples, each timed until every rank is
// done (a barrier):
//   compute:   Forward + Backward alone (no gradient sum)
//   allreduce: the gradient buckets' allreduces alone (no compute)
//   step:      Forward + Backward with the GradientReducer summing buckets
//              on its thread as backward finishes them
// hidden = (compute + allreduce - step) / allreduce: the share of the
// communication that overlapped compute (1 = all of it, 0 = none).
// Models: the MLP 784-1024-1024-10 (global batch 256) and LeNet (128), with
// the default 25 MB buckets and with 1 MB buckets.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

#include "devices/cpu/cpu_device.h"
#include "data_parallel/gradient_reducer.h"
#include "distributed/mpi_communicator.h"
#include "executor/executor.h"
#include "graph/error.h"
#include "graph/scope.h"
#include "tools/examples/models.h"

namespace symx {
namespace {

const absl::Duration kTimeout = absl::Seconds(120);

Symbol Mlp() {
  NameScope names;
  Symbol h = Symbol::Variable("data");
  for (int i = 1; i <= 2; ++i) {
    h = OpCall("FullyConnected").Name("fc" + std::to_string(i)).Attr("num_hidden", 1024).Input(h);
    h = OpCall("Activation").Name("relu" + std::to_string(i)).Attr("act_type", "relu").Input(h);
  }
  h = OpCall("FullyConnected").Name("fc3").Attr("num_hidden", 10).Input(h);
  return OpCall("SoftmaxOutput").Name("softmax").Input(h);
}

// Until every rank is done: a data-parallel step is as slow as its slowest
// rank, so compute alone is timed the same way.
double Seconds(const std::function<void()>& fn) {
  MPI_Barrier(MPI_COMM_WORLD);
  auto t0 = std::chrono::steady_clock::now();
  fn();
  MPI_Barrier(MPI_COMM_WORLD);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

void Bench(const char* name, const Symbol& net, Shape data, size_t bucket_bytes,
           std::shared_ptr<Communicator> comm) {
  std::map<std::string, GradReq> reqs;
  std::vector<std::string> params;
  for (const std::string& a : net.ListArguments()) {
    if (a == "data" || a == "softmax_label") continue;
    params.push_back(a);
    reqs[a] = GradReq::kWrite;
  }
  auto exe = Executor::SimpleBind(
      net, {.shapes = {{"data", data}, {"softmax_label", Shape{data[0]}}}, .grad_req = reqs});
  for (auto& [n, t] : exe->arg_dict()) t.Fill(n == "softmax_label" ? 1.0 : 0.01);
  ReducerOptions ro;
  ro.bucket_bytes = bucket_bytes;
  ro.timeout = kTimeout;
  auto reducer = ValueOrThrow(GradientReducer::Create({exe.get()}, params, comm, ro));
  std::vector<Tensor> flats;
  for (const auto& b : reducer->buckets()) {
    flats.push_back(ValueOrThrow(Tensor::Zeros(Shape{b.elements}, b.dtype)));
  }
  auto compute = [&] {
    exe->Forward(true);
    exe->Backward();
  };
  auto allreduce = [&] {
    for (Tensor& f : flats) ThrowIfError(WaitFor(comm->Allreduce(f, ReduceOp::kSum), kTimeout));
  };
  auto step = [&] {
    reducer->Start();
    compute();
    ThrowIfError(reducer->Finish());
  };
  for (int i = 0; i < 3; ++i) step();
  std::vector<double> c, a, s;
  for (int rep = 0; rep < 15; ++rep) {
    c.push_back(Seconds(compute));
    a.push_back(Seconds(allreduce));
    s.push_back(Seconds(step));
  }
  const double mc = Median(c) * 1e3, ma = Median(a) * 1e3, ms = Median(s) * 1e3;
  const double hidden = std::clamp((mc + ma - ms) / ma, 0.0, 1.0);
  if (comm->rank() == 0) {
    std::printf(
        "%-7s %3d ranks  %5.1f MB buckets (%zu)  compute %7.2f ms  allreduce %6.2f ms  "
        "step %7.2f ms  hidden %3.0f%%  step/compute %.3f\n",
        name, comm->size(), bucket_bytes / 1048576.0, reducer->buckets().size(), mc, ma, ms,
        hidden * 100, ms / mc);
  }
}

}  // namespace
}  // namespace symx

int main(int argc, char** argv) {
  if (!symx::StartedByMpiLauncher()) {
    std::fprintf(stderr, "run under mpirun: tools/bench/run_mpi.sh\n");
    return 2;
  }
  auto world = symx::ValueOrThrow(symx::InitMpiWorld(&argc, &argv));
  // The ranks of a host share its cores, as symx's command line does.
  const int cores = static_cast<int>(std::thread::hardware_concurrency());
  symx::SetCpuThreadsForNewDevices(std::max(1, cores / symx::MpiLocalSize()));
  const int64_t n = world->size();
  for (size_t bucket : {size_t{25} << 20, size_t{1} << 20}) {
    symx::Bench("MLP", symx::Mlp(), symx::Shape{256 / n, 784}, bucket, world);
    symx::Bench("LeNet", symx::examples::LeNet(), symx::Shape{128 / n, 1, 28, 28}, bucket, world);
  }
  world.reset();
  symx::FinalizeMpi();
  return 0;
}
