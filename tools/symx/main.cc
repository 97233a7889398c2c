// symx: the command line. Subcommands: inspect, run, bench, viz, train.
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "tools/symx/bench.h"
#include "tools/symx/inspect.h"
#include "tools/symx/run.h"
#include "tools/symx/train.h"
#include "tools/symx/viz.h"

namespace {

constexpr char kUsage[] =
    "usage: symx <command> [options]\n"
    "commands:\n"
    "  inspect MODEL-symbol.json [--shape NAME=D0,D1,...]... [--dtype NAME=TYPE]... [--json]\n"
    "      list arguments, auxiliary states, outputs and node shapes of a symbol file\n"
    "  run     MODEL-symbol.json [--params FILE.params] [--shape ...] [--input NAME=FILE.npy]...\n"
    "          [--ctx CTX] [--group2ctx GROUP=CTX]... [--train] [--out-dir DIR] [--seed N]\n"
    "      run forward (and backward with --train); write outputs and gradients as .npy\n"
    "  bench   MODEL-symbol.json --shape ... [--ctx CTX] [--group2ctx ...] [--train] [--iters N]\n"
    "          [--json]\n"
    "      time forward (and backward) iterations; report ms per iteration and memory\n"
    "  viz     MODEL-symbol.json [--shape ...] [--ctx CTX] [--group2ctx GROUP=CTX]...\n"
    "          -o FILE.(dot|svg|png)\n"
    "      draw the forward graph as placed on devices (Graphviz; svg/png need `dot`)\n"
    "  train   [--model mlp|lenet] [--data-dir MNIST_DIR] [--epochs N] [--batch-size N] [--lr X]\n"
    "          [--ctx CTX] [--group2ctx GROUP=CTX]... [--prefix PATH] [--optimizer sgd|adam]\n"
    "          [--momentum X] [--wd X] [--seed N] [--save-every-epoch]\n"
    "      train an example classifier (synthetic data without --data-dir); save a checkpoint\n";

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    std::cerr << kUsage;
    return 2;
  }
  if (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
    std::cout << kUsage;
    return 0;
  }
  std::string command = args[0];
  args.erase(args.begin());
  if (command == "inspect") return symx::cli::InspectMain(args, std::cout, std::cerr);
  if (command == "run") return symx::cli::RunMain(args, std::cout, std::cerr);
  if (command == "bench") return symx::cli::BenchMain(args, std::cout, std::cerr);
  if (command == "train") {
    return symx::cli::TrainMain(args, std::cout, std::cerr, isatty(fileno(stderr)) != 0);
  }
  if (command == "viz") return symx::cli::VizMain(args, std::cout, std::cerr);
  std::cerr << "symx: unknown command '" << command << "'\n" << kUsage;
  return 2;
}
