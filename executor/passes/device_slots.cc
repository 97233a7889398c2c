// AssignDeviceSlots: the devices of this process that run steps, and which
// one runs each node.
#include <algorithm>
#include <set>

#include "executor/passes/passes.h"

namespace symx {

// Only this process's op nodes get a slot; plan.devices are local contexts,
// the bind context's first when it runs anything (or nothing runs at all).
absl::Status AssignDeviceSlots(BindState* s) {
  ExecPlan& plan = s->plan;
  const IndexedGraph& g = *plan.graph;
  const RankView& ranks = s->ranks();
  std::set<Context> used;
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    if (!g[nid].node->is_variable() && ranks.IsLocal(plan.node_ctx[nid])) {
      used.insert(RankView::Local(plan.node_ctx[nid]));
    }
  }
  const Context local_bind = RankView::Local(s->bind_ctx);
  plan.devices.clear();
  if (used.empty() || used.count(local_bind)) plan.devices.push_back(local_bind);
  for (const Context& c : used) {
    if (c != local_bind) plan.devices.push_back(c);
  }
  s->slot.assign(g.num_nodes(), -1);
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    if (g[nid].node->is_variable() || !ranks.IsLocal(plan.node_ctx[nid])) continue;
    s->slot[nid] = static_cast<int>(
        std::find(plan.devices.begin(), plan.devices.end(), RankView::Local(plan.node_ctx[nid])) -
        plan.devices.begin());
  }
  for (const Context& c : plan.devices) s->stats[c].ctx = c;
  return absl::OkStatus();
}

}  // namespace symx
