// `symx train`: trains the example MLP or LeNet on MNIST idx files
// (--data-dir) or, without one, on the built-in synthetic set
// (train/data.h), printing loss, train accuracy, test accuracy and time
// per epoch, and saves PREFIX-symbol.json and PREFIX-NNNN.params (MXNet's
// checkpoint layout). A progress bar goes to stderr when it is a terminal.
#ifndef SYMX_TOOLS_SYMX_TRAIN_H_
#define SYMX_TOOLS_SYMX_TRAIN_H_

#include <ostream>
#include <string>
#include <vector>

#include "tools/symx/command.h"

namespace symx::cli {

// Entry point from main: parses `args` (after "train"), returns the exit code.
// `progress_tty`: draw a progress bar on `err`.
// Under mpirun (`job`) every rank trains (data parallel, or split across
// ranks when --group2ctx names other ranks' devices); rank 0 alone prints and
// writes the checkpoint.
int TrainMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
              bool progress_tty, const Job& job = {});

}  // namespace symx::cli

#endif  // SYMX_TOOLS_SYMX_TRAIN_H_
