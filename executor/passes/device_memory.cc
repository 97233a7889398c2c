// PlanDeviceMemory: one memory plan per device slot (executor/plan_memory.h)
// and its blocks from the device's pool.
#include <memory>
#include <vector>

#include "executor/passes/passes.h"
#include "executor/plan_memory.h"

namespace symx {
namespace {

std::vector<size_t> PoolBlockBytes(const MemoryPool& pool) {
  std::vector<size_t> bytes;
  for (const auto& b : pool.blocks) bytes.push_back(b->bytes());
  return bytes;
}

// Blocks for one device's plan, largest first, each taking the smallest free
// pool block that fits (MatchPoolBlocks). Newly allocated blocks go to
// `new_blocks`; they join the pool only once the whole bind has succeeded.
absl::Status AssignBlocks(const MemoryPlan& plan, MemoryPool* pool, Device* device,
                          std::vector<std::shared_ptr<Storage>>* blocks,
                          std::vector<std::shared_ptr<Storage>>* new_blocks, size_t* allocated) {
  const std::vector<size_t>& sizes = plan.storage_bytes;
  const std::vector<int> match = MatchPoolBlocks(sizes, PoolBlockBytes(*pool));
  blocks->assign(sizes.size(), nullptr);
  for (size_t id = 0; id < sizes.size(); ++id) {
    if (match[id] >= 0) {
      (*blocks)[id] = pool->blocks[match[id]];
      continue;
    }
    SYMX_ASSIGN_OR_RETURN((*blocks)[id], device->allocator().Allocate(sizes[id]));
    *allocated += sizes[id];
    new_blocks->push_back((*blocks)[id]);
  }
  return absl::OkStatus();
}

// What the planner of slot `s` may reuse: only entries its own steps produce.
MemoryPlanOptions SlotPlanOptions(const BindState& st, size_t s, const IndexedGraph& g) {
  MemoryPlanOptions mopt;
  mopt.external.assign(g.num_entries(), false);
  mopt.keep.assign(g.num_entries(), false);
  for (size_t e = 0; e < g.num_entries(); ++e) {
    const bool mine = st.producer_slot[e] == static_cast<int>(s);
    mopt.external[e] = st.external[e] || !mine;
    mopt.keep[e] = st.keep[e] || (mine && st.read_elsewhere[e]);
  }
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    if (st.slot[nid] == static_cast<int>(s)) mopt.order.push_back(nid);
  }
  return mopt;
}

}  // namespace

absl::Status PlanDeviceMemory(BindState* s) {
  ExecPlan& plan = s->plan;
  const IndexedGraph& g = *plan.graph;
  const size_t num_slots = plan.devices.size();
  plan.memory.resize(num_slots);
  s->new_blocks.assign(num_slots, {});
  s->devices.assign(num_slots, nullptr);
  for (size_t slot = 0; slot < num_slots; ++slot) {
    const Context& c = plan.devices[slot];
    SYMX_ASSIGN_OR_RETURN(s->devices[slot], GetDevice(c));
    MemoryPlanOptions mopt = SlotPlanOptions(*s, slot, g);
    auto it = s->bind.pools.find(c);
    std::shared_ptr<MemoryPool> pool;
    if (it != s->bind.pools.end() && it->second) {
      pool = it->second;
    } else {
      pool = std::make_shared<MemoryPool>();
      pool->ctx = c;
    }
    mopt.pool_blocks = PoolBlockBytes(*pool);
    plan.memory[slot] = PlanMemory(g, plan.shapes, plan.types, mopt);
    std::vector<std::shared_ptr<Storage>> blocks;
    SYMX_RETURN_IF_ERROR(AssignBlocks(plan.memory[slot], pool.get(), s->devices[slot], &blocks,
                                      &s->new_blocks[slot], &s->stats[c].allocated_bytes));
    for (size_t e = 0; e < g.num_entries(); ++e) {
      const int id = plan.memory[slot].storage_id[e];
      if (id != MemoryPlan::kExternal) {
        s->entry[e] =
            Tensor(blocks[id], plan.memory[slot].storage_offset[e], plan.shapes[e], plan.types[e]);
      }
    }
    s->pools[c] = pool;
  }
  for (size_t e = 0; e < g.num_entries(); ++e) {
    if (s->alias_of[e] >= 0) s->entry[e] = s->entry[s->alias_of[e]];
  }
  return absl::OkStatus();
}

}  // namespace symx
