// BuildGradientGraph: the backward graph for the arguments whose req is not
// null; a head-gradient variable per forward output that is not a loss head.
#include "absl/strings/str_cat.h"
#include "executor/passes/passes.h"
#include "graph/op.h"

namespace symx {

absl::Status BuildGradientGraph(BindState* s) {
  const IndexedGraph& fwd = *s->fwd;
  const std::vector<NodeEntry> fwd_outputs = s->full_outputs;
  std::vector<NodeEntry> xs;
  for (size_t i = 0; i < s->arg_vars.size(); ++i) {
    if (s->bind.reqs[i] != GradReq::kNull) {
      xs.push_back(NodeEntry{fwd[fwd.node_id(s->arg_vars[i])].node, 0, 0});
      s->x_arg.push_back(i);
    }
  }
  s->head_vars.assign(fwd_outputs.size(), nullptr);
  s->plan.head_is_loss.assign(fwd_outputs.size(), false);
  if (xs.empty()) return absl::OkStatus();
  std::vector<NodeEntry> heads(fwd_outputs.size());
  for (size_t i = 0; i < fwd_outputs.size(); ++i) {
    const Node& out = *fwd_outputs[i].node;
    if (!out.is_variable() && out.op()->is_loss()) {
      s->plan.head_is_loss[i] = true;
      continue;
    }
    s->head_vars[i] = MakeVariableNode(absl::StrCat("_head_grad_", i));
    heads[i] = NodeEntry{s->head_vars[i], 0, 0};
  }
  SYMX_ASSIGN_OR_RETURN(std::vector<NodeEntry> grads,
                        Gradient(fwd_outputs, heads, xs, &s->origins));
  s->full_outputs.insert(s->full_outputs.end(), grads.begin(), grads.end());
  return absl::OkStatus();
}

}  // namespace symx
