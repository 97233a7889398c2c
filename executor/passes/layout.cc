// PlanLayout: which values (forward values and gradients alike) are stored
// channels-last (executor/layout_plan.h).
#include "executor/layout_plan.h"
#include "executor/passes/passes.h"

namespace symx {

// Values that leave the plan, outlive it or cross devices stay plain.
absl::Status PlanLayout(BindState* s) {
  const ExecPlan& plan = s->plan;
  const IndexedGraph& g = *plan.graph;
  LayoutPlanInput lin;
  lin.graph = &g;
  lin.kernels = &s->kernels;
  lin.shapes = &plan.shapes;
  lin.types = &plan.types;
  lin.options = s->bind.engine;
  lin.pinned.assign(g.num_entries(), false);
  lin.inplace_from.assign(g.num_entries(), -1);
  for (size_t e = 0; e < g.num_entries(); ++e) {
    // A gradient accumulated into its array (grad_req add) is read plain.
    lin.pinned[e] = s->external[e] || s->keep[e] || s->read_elsewhere[e] || s->alias_of[e] >= 0 ||
                    s->producer_slot[e] < 0 || s->add_grads.count(static_cast<uint32_t>(e)) != 0;
    if (s->producer_slot[e] >= 0) {
      lin.inplace_from[e] = plan.memory[s->producer_slot[e]].inplace_from[e];
    }
  }
  s->channels_last = PlanChannelsLast(lin);
  return absl::OkStatus();
}

}  // namespace symx
