// CollectVariables: the forward graph and its arguments and aux states.
#include "absl/strings/str_cat.h"
#include "executor/passes/passes.h"
#include "graph/op.h"

namespace symx {

std::string NodeLabel(const Node& node) {
  if (node.is_variable()) return absl::StrCat("variable ", node.name());
  return absl::StrCat("operator ", node.name(), " (", node.op()->name(), ")");
}

absl::Status CollectVariables(BindState* s) {
  s->full_outputs = s->symbol.outputs();
  s->fwd = std::make_unique<IndexedGraph>(s->full_outputs);
  const IndexedGraph& fwd = *s->fwd;
  for (uint32_t nid : fwd.arg_nodes()) {
    s->arg_vars.push_back(fwd[nid].node.get());
    s->arg_names.push_back(fwd[nid].node->name());
  }
  for (uint32_t nid : fwd.aux_nodes()) {
    s->aux_vars.push_back(fwd[nid].node.get());
    s->aux_names.push_back(fwd[nid].node->name());
  }
  if (s->arg_vars.size() != s->bind.args.size() || s->aux_vars.size() != s->bind.aux.size()) {
    return absl::InternalError("argument/aux counts differ from the symbol's");
  }
  // Transfers exist only inside a plan: an OptimizedSymbol of a cross-rank
  // executor cannot be bound again (its placement is lost).
  for (uint32_t nid = 0; nid < fwd.num_nodes(); ++nid) {
    const Node& node = *fwd[nid].node;
    if (!node.is_variable() && (node.op()->name() == "_send" || node.op()->name() == "_recv")) {
      return absl::InvalidArgumentError(absl::StrCat(
          "cannot bind a symbol with ", node.op()->name(), " node '", node.name(),
          "': it is the optimized symbol of a cross-rank executor; bind the original symbol"));
    }
  }
  s->bind.allocate_grad.resize(s->arg_vars.size(), false);
  s->bind_ctx = s->ranks().FromOption(s->bind.ctx);
  return absl::OkStatus();
}

}  // namespace symx
