// `symx run`: binds a symbol file with parameters and inputs (see
// bound_model.h for where values come from), runs one forward pass (and with
// --train a backward pass with head gradients of ones unless the head is a
// loss) and writes every output as DIR/<output name>.npy and, with --train,
// every gradient as DIR/<argument name>_grad.npy. Under mpirun each rank
// writes the outputs and gradients that live on it.
#ifndef SYMX_TOOLS_SYMX_RUN_H_
#define SYMX_TOOLS_SYMX_RUN_H_

#include <ostream>
#include <string>
#include <vector>

#include "tools/symx/bound_model.h"
#include "tools/symx/command.h"

namespace symx::cli {

struct RunOptions {
  ModelSpec model;
  std::string out_dir = ".";
};

// Throws symx::Error on bad input. Prints what it wrote to `out`.
void RunRun(const RunOptions& options, std::ostream& out);

// Entry point from main: parses `args` (after "run"), returns the exit code.
int RunMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
            const Job& job = {});

}  // namespace symx::cli

#endif  // SYMX_TOOLS_SYMX_RUN_H_
