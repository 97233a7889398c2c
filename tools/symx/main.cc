// symx: the command line. Subcommands: inspect (and, as the engine grows, run,
// bench, viz and train; see docs/architecture.md for what exists today).
#include <iostream>
#include <string>
#include <vector>

#include "tools/symx/inspect.h"

namespace {

constexpr char kUsage[] =
    "usage: symx <command> [options]\n"
    "commands:\n"
    "  inspect MODEL-symbol.json [--shape NAME=D0,D1,...]... [--dtype NAME=TYPE]... [--json]\n"
    "      list arguments, auxiliary states, outputs and node shapes of a symbol file\n"
    "  run, bench, viz, train\n"
    "      not built yet: they need the executor (see README.md, Status)\n";

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
  if (command == "run" || command == "bench" || command == "viz" || command == "train") {
    std::cerr << "symx " << command
              << ": not available in this build yet: it needs the executor, which is "
                 "not implemented (see README.md, Status)\n";
    return 3;
  }
  std::cerr << "symx: unknown command '" << command << "'\n" << kUsage;
  return 2;
}
