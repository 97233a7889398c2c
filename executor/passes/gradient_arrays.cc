// AllocateGradients: the gradient arrays the bind makes itself (SimpleBind's),
// zeros on the device that computes the gradient, when that is here.
#include "executor/passes/passes.h"

namespace symx {

absl::Status AllocateGradients(BindState* s) {
  const ExecPlan& plan = s->plan;
  const IndexedGraph& g = *plan.graph;
  s->grads = s->bind.grads;
  for (size_t k = 0; k < s->x_arg.size(); ++k) {
    const size_t arg = s->x_arg[k];
    if (!s->bind.allocate_grad[arg]) continue;
    const NodeEntry& ge = s->gradient(k);
    const uint32_t producer = g.node_id(ge.node.get());
    if (!s->local(producer)) continue;
    const uint32_t e = g.entry_id(ge);
    const Context c = RankView::Local(plan.node_ctx[producer]);
    SYMX_ASSIGN_OR_RETURN(s->grads[arg], Tensor::Zeros(plan.shapes[e], plan.types[e], c));
    s->CountAllocated(c, s->grads[arg].nbytes());
  }
  return absl::OkStatus();
}

}  // namespace symx
