// CommitPools: the bind's results leave the state, and the blocks the plan
// allocated join their pools, only once every pass has succeeded (a failed
// bind leaves a shared pool as it was).
#include "executor/passes/passes.h"

namespace symx {

absl::Status CommitPools(BindState* s) {
  const ExecPlan& plan = s->plan;
  const IndexedGraph& g = *plan.graph;
  s->outputs->clear();
  for (const NodeEntry& out : s->placed_fwd) s->outputs->push_back(s->entry[g.entry_id(out)]);
  for (size_t slot = 0; slot < plan.devices.size(); ++slot) {
    MemoryPool& pool = *s->pools[plan.devices[slot]];
    pool.blocks.insert(pool.blocks.end(), s->new_blocks[slot].begin(), s->new_blocks[slot].end());
  }
  // Pools of devices this plan does not use are passed on unchanged.
  for (const auto& [c, pool] : s->bind.pools) s->pools.emplace(c, pool);
  s->bind.grads = std::move(s->grads);
  *s->pools_out = std::move(s->pools);
  return absl::OkStatus();
}

}  // namespace symx
