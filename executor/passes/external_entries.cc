// MarkExternalEntries: which entries live outside the memory plan, and
// where; which are kept for the whole run; which gradients are accumulated.
#include "absl/strings/str_cat.h"
#include "executor/passes/passes.h"

namespace symx {
namespace {

// Head gradients: an array per forward output that takes one, where its
// variable is placed (when that is here).
absl::Status AllocateHeadGradients(BindState* s) {
  ExecPlan& plan = s->plan;
  const IndexedGraph& g = *plan.graph;
  plan.head_grads.assign(s->num_forward_outputs(), Tensor());
  for (size_t i = 0; i < s->head_vars.size(); ++i) {
    if (!s->head_vars[i] || !g.contains(s->head_vars[i].get())) continue;
    const uint32_t hn = g.node_id(s->head_vars[i].get());
    if (!s->local(hn)) continue;
    const uint32_t he = g.entry_id(hn, 0);
    const Context c = RankView::Local(plan.node_ctx[hn]);
    SYMX_ASSIGN_OR_RETURN(plan.head_grads[i], Tensor::Zeros(plan.shapes[he], plan.types[he], c));
    s->entry[he] = plan.head_grads[i];
    s->CountAllocated(c, plan.head_grads[i].nbytes());
    s->CountArray(c, plan.head_grads[i].nbytes());
  }
  return absl::OkStatus();
}

// Gradients: `write` goes straight into the gradient array; `add` is
// computed into planned memory, then accumulated.
absl::Status RouteGradients(BindState* s) {
  const ExecPlan& plan = s->plan;
  const IndexedGraph& g = *plan.graph;
  for (size_t k = 0; k < s->x_arg.size(); ++k) {
    const NodeEntry& ge = s->gradient(k);
    const uint32_t e = g.entry_id(ge);
    const size_t arg = s->x_arg[k];
    if (!s->local(g.node_id(ge.node.get()))) continue;  // another rank's gradient
    const Tensor& garr = s->grads[arg];
    if (!garr.defined()) {
      return absl::InvalidArgumentError(
          absl::StrCat("the gradient of argument ", s->arg_vars[arg]->name(), " is computed on ",
                       plan.node_ctx[g.node_id(ge.node.get())].ToString(),
                       ", where no gradient array was bound for it"));
    }
    if (garr.shape() != plan.shapes[e] || garr.dtype() != plan.types[e]) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the gradient array for argument ", s->arg_vars[arg]->name(), " is ",
          DTypeName(garr.dtype()), " ", garr.shape().ToString(), " but its gradient is ",
          DTypeName(plan.types[e]), " ", plan.shapes[e].ToString()));
    }
    if (s->bind.reqs[arg] == GradReq::kWrite) {
      s->external[e] = true;
      s->entry[e] = garr;
    } else {
      s->add_grads[e] = arg;
      s->keep[e] = false;
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status MarkExternalEntries(BindState* s) {
  const IndexedGraph& g = *s->plan.graph;
  s->entry.assign(g.num_entries(), Tensor());
  for (size_t i = 0; i < s->arg_nodes.size(); ++i) {
    s->entry[g.entry_id(s->arg_nodes[i], 0)] = s->bind.args[i];
  }
  for (size_t i = 0; i < s->aux_nodes.size(); ++i) {
    s->entry[g.entry_id(s->aux_nodes[i], 0)] = s->bind.aux[i];
  }
  SYMX_RETURN_IF_ERROR(AllocateHeadGradients(s));
  s->external.assign(g.num_entries(), false);
  s->keep.assign(g.num_entries(), false);
  s->producer_slot.assign(g.num_entries(), -1);
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    for (int j = 0; j < g[nid].node->num_outputs(); ++j) {
      s->producer_slot[g.entry_id(nid, j)] = s->slot[nid];
    }
    if (g[nid].node->is_variable()) s->external[g.entry_id(nid, 0)] = true;
  }
  for (const NodeEntry& out : s->placed_fwd) s->keep[g.entry_id(out)] = true;
  return RouteGradients(s);
}

}  // namespace symx
