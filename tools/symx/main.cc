// symx: the command line. Subcommands: inspect, run, bench, viz, train, im2rec.
//
// Started by mpirun (its environment says so), symx joins the MPI job:
// run, bench and train work across its ranks; inspect and viz act on rank 0
// only. A command that fails on any rank ends the whole job (MPI_Abort), so
// no rank is left waiting for one that gave up.
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "distributed/mpi_communicator.h"
#include "tools/env/engine_env.h"
#include "tools/symx/bench.h"
#include "tools/symx/command.h"
#include "tools/symx/im2rec.h"
#include "tools/symx/inspect.h"
#include "tools/symx/run.h"
#include "tools/symx/train.h"
#include "tools/symx/viz.h"

namespace {

constexpr char kUsage[] =
    "usage: symx <command> [options]            (under mpirun: run, bench and train span the "
    "ranks)\n"
    "commands:\n"
    "  inspect MODEL-symbol.json [--shape NAME=D0,D1,...]... [--dtype NAME=TYPE]... [--json]\n"
    "      list arguments, auxiliary states, outputs and node shapes of a symbol file\n"
    "  run     MODEL-symbol.json [--params FILE.params] [--shape ...] [--input NAME=FILE.npy]...\n"
    "          [--ctx CTX] [--group2ctx GROUP=CTX]... [--train] [--out-dir DIR] [--seed N]\n"
    "          [--comm-timeout SECONDS]\n"
    "      run forward (and backward with --train); write outputs and gradients as .npy\n"
    "  bench   MODEL-symbol.json --shape ... [--ctx CTX] [--group2ctx ...] [--train] [--iters N]\n"
    "          [--json] [--comm-timeout SECONDS]\n"
    "      time forward (and backward) iterations; report ms per iteration and memory\n"
    "  viz     MODEL-symbol.json [--shape ...] [--ctx CTX] [--group2ctx GROUP=CTX]...\n"
    "          -o FILE.(dot|svg|png)\n"
    "      draw the forward graph as placed on devices and ranks (Graphviz; svg/png need `dot`)\n"
    "  train   [--model mlp|lenet] [--data-dir MNIST_DIR] [--epochs N] [--batch-size N] [--lr X]\n"
    "          [--ctx CTX[,CTX...]] [--group2ctx GROUP=CTX]... [--prefix PATH]\n"
    "          [--optimizer NAME[:KEY=VALUE,...]] [--lr-schedule NAME:KEY=VALUE,...]\n"
    "          [--momentum X] [--wd X] [--clip-gradient X] [--seed N] [--save-every-epoch]\n"
    "          [--comm-timeout SECONDS] [--bucket-mb MB] [--dtype float32|float16|bfloat16]\n"
    "          [--microbatches M] [--schedule gpipe|1f1b] [--replicas N]\n"
    "      train an example classifier (synthetic data without --data-dir); save a checkpoint;\n"
    "      several --ctx devices or mpirun ranks train data parallel\n"
    "  train   MODEL-symbol.json --train-rec FILE.rec --data-shape C,H,W [--val-rec FILE]\n"
    "          [--params FILE.params] [--num-classes N] [--fixed-params REGEX] [--resize N] ...\n"
    "      train or fine-tune any model on a RecordIO image set (symx train --help)\n"
    "  im2rec  PREFIX ROOT [--list [--recursive] [--train-ratio X] ...] [--resize N] [--quality "
    "N]\n"
    "          [--encoding .jpg|.png] [--pass-through] [--num-thread N]\n"
    "      list a folder of images (a class per subfolder), pack lists into RecordIO .rec/.idx\n"
    "contexts: cpu, cpu(N), gpu(N), and another rank's device as cpu(N)@rankR\n";

int Dispatch(const std::string& command, const std::vector<std::string>& args,
             const symx::cli::Job& job) {
  using namespace symx::cli;  // NOLINT
  if (command == "run") return RunMain(args, std::cout, std::cerr, job);
  if (command == "bench") return BenchMain(args, std::cout, std::cerr, job);
  if (command == "train") {
    return TrainMain(args, std::cout, std::cerr, isatty(fileno(stderr)) != 0, job);
  }
  // One rank is enough for commands that only read and draw.
  if ((command == "inspect" || command == "viz" || command == "im2rec") && !job.root()) return 0;
  if (command == "inspect") return InspectMain(args, std::cout, std::cerr);
  if (command == "im2rec") return Im2recMain(args, std::cout, std::cerr);
  if (command == "viz") return VizMain(args, std::cout, std::cerr);
  std::cerr << "symx: unknown command '" << command << "'\n" << kUsage;
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  symx::cli::Job job;
  if (symx::StartedByMpiLauncher()) {
    auto world = symx::InitMpiWorld(&argc, &argv);
    if (!world.ok()) {
      std::cerr << "symx: " << world.status().message() << "\n";
      return 1;
    }
    if ((*world)->size() > 1) job.comm = *world;
  }
  // The SYMX_* switches, read here once for every command (tools/env/engine_env.h).
  absl::StatusOr<symx::DeviceOptions> devices = symx::DeviceOptionsFromEnvironment();
  absl::StatusOr<symx::EngineOptions> engine = symx::EngineOptionsFromEnvironment();
  if (devices.ok() && devices->cpu_threads == 0) {
    // No SYMX_CPU_THREADS: the machine's cores, shared by the ranks on one
    // host under mpirun (MpiLocalSize is 1 otherwise).
    const int cores = static_cast<int>(std::thread::hardware_concurrency());
    job.cpu_threads = std::max(1, cores / std::max(1, symx::MpiLocalSize()));
    devices->cpu_threads = job.cpu_threads;
  }
  std::vector<std::string> args(argv + 1, argv + argc);
  int rc;
  if (!devices.ok() || !engine.ok()) {
    std::cerr << "symx: " << (devices.ok() ? engine.status() : devices.status()).message() << "\n";
    rc = 2;
  } else if (args.empty()) {
    std::cerr << kUsage;
    rc = 2;
  } else if (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
    if (job.root()) std::cout << kUsage;
    rc = 0;
  } else {
    symx::SetDeviceOptions(*devices);
    job.engine = *engine;
    std::string command = args[0];
    args.erase(args.begin());
    rc = Dispatch(command, args, job);
  }
  if (rc != 0 && job.comm != nullptr) {
    std::cout.flush();
    std::cerr.flush();
    job.comm->Abort(absl::AbortedError("a command failed"));
  }
  job.comm.reset();
  symx::FinalizeMpi();
  return rc;
}
