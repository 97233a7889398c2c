// MemoryStats: the bytes an executor plans and allocates on one device
// (Executor::memory_stats; filled by the bind passes).
#ifndef SYMX_EXECUTOR_MEMORY_STATS_H_
#define SYMX_EXECUTOR_MEMORY_STATS_H_

#include <cstddef>

#include "devices/context.h"

namespace symx {

// Bytes per device.
struct MemoryStats {
  Context ctx;
  size_t planned_bytes = 0;    // intermediate blocks + workspace in the plan
  size_t no_reuse_bytes = 0;   // what intermediates would take with no reuse or in-place
  size_t allocated_bytes = 0;  // device memory this executor allocated (pool hits excluded)
  size_t array_bytes = 0;      // bound argument/gradient/aux/head-gradient arrays
};

}  // namespace symx

#endif  // SYMX_EXECUTOR_MEMORY_STATS_H_
