// `symx bench`: binds a symbol file like `symx run` (arrays filled from a
// seed), runs warm-up iterations, then times --iters iterations of Forward
// (and Backward with --train, head gradients of ones unless the head is a
// loss). Reports the median, min and max milliseconds per iteration and the
// executor's planned and allocated bytes, as text or (--json) as
//   {"ms_per_iter": {"median", "min", "max"}, "iters", "bytes_planned",
//    "bytes_allocated"}
// plus "devices": [{"ctx", "bytes_planned", "bytes_allocated"}, ...] when the
// executor uses several devices (the top-level numbers are then totals).
// Under mpirun every rank runs its part of each iteration; rank 0 prints its
// timings and every rank's devices (contexts with @rankN).
#ifndef SYMX_TOOLS_SYMX_BENCH_H_
#define SYMX_TOOLS_SYMX_BENCH_H_

#include <ostream>
#include <string>
#include <vector>

#include "tools/symx/bound_model.h"
#include "tools/symx/command.h"

namespace symx::cli {

struct BenchOptions {
  ModelSpec model;
  int64_t iters = 20;
  int64_t warmup = -1;  // -1: min(5, max(1, iters / 5))
  bool json = false;
};

struct BenchResult {
  std::vector<double> ms;  // one per timed iteration
  double median = 0, min = 0, max = 0;
  std::vector<MemoryStats> memory;
  // This process's devices: the most bytes their allocators held at once
  // since the bind (arrays, planned memory, workspaces, library scratch),
  // the figure to hold against another engine's peak.
  std::vector<std::pair<Context, size_t>> peak_bytes;
};

// Throws symx::Error on bad input.
BenchResult RunBench(const BenchOptions& options);
void PrintBench(const BenchOptions& options, const BenchResult& result, std::ostream& out);

// Entry point from main: parses `args` (after "bench"), returns the exit code.
int BenchMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err,
              const Job& job = {});

}  // namespace symx::cli

#endif  // SYMX_TOOLS_SYMX_BENCH_H_
