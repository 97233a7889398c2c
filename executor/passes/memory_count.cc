// CountMemory: plan.stats, the bytes per device that Executor::memory_stats
// reports.
#include <algorithm>

#include "executor/passes/passes.h"

namespace symx {

absl::Status CountMemory(BindState* s) {
  ExecPlan& plan = s->plan;
  for (const std::vector<Tensor>* arrays : {&s->bind.args, &s->grads, &s->bind.aux}) {
    for (const Tensor& t : *arrays) {
      if (t.defined()) s->CountArray(t.ctx(), t.nbytes());
    }
  }
  for (const auto& [c, bytes] : s->bind.allocated_array_bytes) s->CountAllocated(c, bytes);
  for (size_t slot = 0; slot < plan.devices.size(); ++slot) {
    MemoryStats& m = s->stats[plan.devices[slot]];
    m.planned_bytes = plan.memory[slot].total_bytes + s->workspace_bytes[slot];
    m.no_reuse_bytes = plan.memory[slot].no_reuse_bytes;
  }
  // The devices that run steps (bind context first), then those that only
  // hold arrays.
  plan.stats.clear();
  for (const Context& c : plan.devices) plan.stats.push_back(s->stats[c]);
  for (const auto& [c, m] : s->stats) {
    if (std::find(plan.devices.begin(), plan.devices.end(), c) == plan.devices.end()) {
      plan.stats.push_back(m);
    }
  }
  return absl::OkStatus();
}

}  // namespace symx
