// OrderGradients: which backward step finishes each gradient computed here,
// and the order in which Backward finishes them (the gradient-ready callback's).
#include <algorithm>
#include <utility>
#include <vector>

#include "executor/passes/passes.h"

namespace symx {

absl::Status OrderGradients(BindState* s) {
  ExecPlan& plan = s->plan;
  const IndexedGraph& g = *plan.graph;
  std::vector<std::pair<int64_t, size_t>> finished;  // (step, argument)
  for (size_t k = 0; k < s->x_arg.size(); ++k) {
    const uint32_t producer = g.node_id(s->gradient(k).node.get());
    if (s->step_of[producer] < 0 || producer < plan.num_forward_nodes) continue;
    plan.backward.steps[s->step_of[producer]].finishes_gradients.push_back(s->x_arg[k]);
    finished.emplace_back(s->step_of[producer], s->x_arg[k]);
  }
  std::stable_sort(finished.begin(), finished.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  plan.gradient_order.clear();
  for (const auto& [step, arg] : finished) plan.gradient_order.push_back(arg);
  return absl::OkStatus();
}

}  // namespace symx
