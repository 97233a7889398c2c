// PlaceAndPartition: a device per node of the full graph (global contexts),
// then copies and transfers where edges cross devices and ranks.
#include "absl/strings/str_cat.h"
#include "executor/passes/passes.h"
#include "executor/place.h"

namespace symx {
namespace {

// A bound gradient array must be where its gradient is computed.
absl::Status CheckGradientHomes(const BindState& s, const IndexedGraph& g0,
                                const std::vector<Context>& where) {
  for (size_t k = 0; k < s.x_arg.size(); ++k) {
    const size_t arg = s.x_arg[k];
    if (s.bind.allocate_grad[arg] || !s.homes.grads[arg].found) continue;
    const NodeEntry& ge = s.gradient(k);
    const Context& computed = where[g0.node_id(ge.node.get())];
    if (s.homes.grads[arg].ctx != computed) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Trying to save gradient to ", s.homes.grads[arg].ctx.ToString(),
          " while its source node \"", ge.node->name(), "\" computes it on ", computed.ToString(),
          ". Check your ctx in NDArray allocation: the gradient array of argument ",
          s.arg_vars[arg]->name(), " must be on ", computed.ToString()));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status PlaceAndPartition(BindState* s) {
  const RankView& ranks = s->ranks();
  ExecPlan& plan = s->plan;
  const size_t num_fwd = s->num_forward_outputs();
  {
    IndexedGraph g0(s->full_outputs);
    PlaceOptions popt;
    popt.default_ctx = s->bind_ctx;
    for (const auto& [group, c] : s->bind.group2ctx) popt.group2ctx[group] = ranks.FromOption(c);
    popt.origins = &s->origins;
    popt.ranks = ranks;
    popt.var_ctx.resize(g0.num_nodes());
    for (size_t i = 0; i < s->arg_vars.size(); ++i)
      popt.var_ctx[g0.node_id(s->arg_vars[i])] = s->homes.args[i].ctx;
    for (size_t i = 0; i < s->aux_vars.size(); ++i)
      popt.var_ctx[g0.node_id(s->aux_vars[i])] = s->homes.aux[i].ctx;
    SYMX_ASSIGN_OR_RETURN(std::vector<Context> where, Place(g0, popt));
    SYMX_RETURN_IF_ERROR(CheckGradientHomes(*s, g0, where));
    SYMX_ASSIGN_OR_RETURN(Partitioned parts, Partition(g0, s->full_outputs, where));
    s->full_outputs = std::move(parts.outputs);
    plan.num_copies = parts.num_copies;
    plan.graph = std::make_unique<IndexedGraph>(s->full_outputs);
    plan.node_ctx.resize(plan.graph->num_nodes());
    for (uint32_t nid = 0; nid < plan.graph->num_nodes(); ++nid) {
      plan.node_ctx[nid] = parts.node_ctx.at((*plan.graph)[nid].node.get());
    }
  }
  const IndexedGraph& g = *plan.graph;
  s->placed_fwd.assign(s->full_outputs.begin(), s->full_outputs.begin() + num_fwd);
  plan.optimized = Symbol(s->placed_fwd);
  IndexedGraph placed(s->placed_fwd);
  plan.num_forward_nodes = static_cast<uint32_t>(placed.num_nodes());
  for (uint32_t nid = 0; nid < placed.num_nodes(); ++nid) {
    if (g[nid].node != placed[nid].node) {
      return absl::InternalError("forward nodes are not a prefix of the full graph");
    }
  }
  for (const Node* v : s->arg_vars) s->arg_nodes.push_back(g.node_id(v));
  for (const Node* v : s->aux_vars) s->aux_nodes.push_back(g.node_id(v));
  return absl::OkStatus();
}

}  // namespace symx
