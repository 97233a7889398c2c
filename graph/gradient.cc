#include "graph/gradient.h"

#include <map>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "graph/indexed_graph.h"
#include "graph/op.h"

namespace symx {
namespace {

absl::StatusOr<NodeEntry> MakeEntry(absl::string_view op, std::string name,
                                    std::vector<NodeEntry> inputs, AttrMap attrs = {}) {
  absl::StatusOr<NodePtr> node =
      MakeOpNode(op, std::move(name), std::move(attrs), std::move(inputs));
  if (!node.ok()) return node.status();
  return NodeEntry{*node, 0, 0};
}

// Sum of the non-empty `terms`; empty if there are none.
absl::StatusOr<NodeEntry> Sum(const std::vector<NodeEntry>& terms, const std::string& name) {
  std::vector<NodeEntry> live;
  for (const NodeEntry& t : terms) {
    if (t.node) live.push_back(t);
  }
  if (live.empty()) return NodeEntry{};
  if (live.size() == 1) return live[0];
  return MakeEntry("ElementWiseSum", name, live, {{"num_args", std::to_string(live.size())}});
}

std::string EntryLabel(const NodeEntry& e) {
  if (e.node->num_outputs() == 1) return e.node->name();
  return absl::StrCat(e.node->name(), "_output", e.index);
}

// Records `origin` for every node reachable from `entry` that is neither in the
// forward graph nor already recorded (head-gradient variables are left out).
void RecordOrigin(const NodeEntry& entry, const Node* origin, const IndexedGraph& fwd,
                  GradientOrigins* origins) {
  if (origins == nullptr || !entry.node) return;
  std::vector<NodePtr> stack{entry.node};
  while (!stack.empty()) {
    NodePtr n = std::move(stack.back());
    stack.pop_back();
    if (n->is_variable() || fwd.contains(n.get()) || origins->of.count(n.get())) continue;
    origins->of[n.get()] = origin;
    for (const NodeEntry& in : n->inputs) stack.push_back(in.node);
    for (const NodePtr& dep : n->control_deps) stack.push_back(dep);
    origins->keep_alive.push_back(std::move(n));
  }
}

}  // namespace

absl::StatusOr<std::vector<NodeEntry>> Gradient(const std::vector<NodeEntry>& ys,
                                                const std::vector<NodeEntry>& head_grads,
                                                const std::vector<NodeEntry>& xs,
                                                GradientOrigins* origins) {
  if (head_grads.size() != ys.size()) {
    return absl::InvalidArgumentError(absl::StrCat("Gradient: ", ys.size(), " outputs but ",
                                                   head_grads.size(), " head gradients"));
  }
  IndexedGraph g(ys);
  // Which nodes depend on a requested variable (only those are differentiated).
  std::vector<bool> needed(g.num_nodes(), false);
  for (const NodeEntry& x : xs) {
    if (!x.node || !x.node->is_variable()) {
      return absl::InvalidArgumentError("Gradient: every x must be a variable");
    }
    if (g.contains(x.node.get())) needed[g.node_id(x.node.get())] = true;
  }
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    const Node& node = *g[nid].node;
    if (node.is_variable() || node.op()->non_differentiable()) continue;
    for (const IndexedGraph::Entry& e : g[nid].inputs)
      needed[nid] = needed[nid] || needed[e.node_id];
  }

  // Gradient contributions per entry id.
  std::map<uint32_t, std::vector<NodeEntry>> contributions;
  for (size_t i = 0; i < ys.size(); ++i) {
    if (head_grads[i].node) contributions[g.entry_id(ys[i])].push_back(head_grads[i]);
  }
  for (uint32_t nid = static_cast<uint32_t>(g.num_nodes()); nid-- > 0;) {
    const NodePtr& node = g[nid].node;
    if (node->is_variable() || !needed[nid]) continue;
    const Op* op = node->op();
    std::vector<NodeEntry> out_grads;
    bool any = false;
    for (int i = 0; i < node->num_outputs(); ++i) {
      uint32_t eid = g.entry_id(nid, i);
      absl::StatusOr<NodeEntry> sum =
          Sum(contributions[eid], absl::StrCat(node->name(), "_out", i, "_grad_sum"));
      if (!sum.ok()) return sum.status();
      any = any || sum->node != nullptr;
      RecordOrigin(*sum, node.get(), g, origins);
      out_grads.push_back(*sum);
    }
    // Only a loss computes a gradient from nothing; elsewhere zero in, zero out.
    if (!any && !op->is_loss()) continue;
    if (op->inference_only()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "operator '", node->name(), "' (", op->name(),
          ") is made by inference fusion and has no gradient: bind the original symbol (not an "
          "executor's OptimizedSymbol) to compute gradients"));
    }
    if (!op->gradient()) {
      return absl::UnimplementedError(
          absl::StrCat("operator '", node->name(), "' (", op->name(), ") has no gradient"));
    }
    std::vector<NodeEntry> in_grads = op->gradient()(node, out_grads);
    for (const NodeEntry& ig : in_grads) RecordOrigin(ig, node.get(), g, origins);
    if (in_grads.size() != node->inputs.size()) {
      return absl::InternalError(absl::StrCat("gradient of ", op->name(), " returned ",
                                              in_grads.size(), " entries for ", node->inputs.size(),
                                              " inputs"));
    }
    for (size_t i = 0; i < in_grads.size(); ++i) {
      const IndexedGraph::Entry& in = g[nid].inputs[i];
      if (!needed[in.node_id] || !in_grads[i].node) continue;
      contributions[g.entry_id(in)].push_back(in_grads[i]);
    }
  }

  std::vector<NodeEntry> result;
  std::set<std::pair<const Node*, uint32_t>> used;
  for (const NodeEntry& x : xs) {
    std::string label = EntryLabel(x);
    NodeEntry grad;
    if (g.contains(x.node.get())) {
      absl::StatusOr<NodeEntry> sum =
          Sum(contributions[g.entry_id(x)], absl::StrCat(label, "_grad_sum"));
      if (!sum.ok()) return sum.status();
      grad = *sum;
    }
    if (!grad.node) {
      absl::StatusOr<NodeEntry> zeros = MakeEntry("zeros_like", label + "_zero_grad", {x});
      if (!zeros.ok()) return zeros.status();
      grad = *zeros;
    } else if (grad.node->is_variable() || used.count({grad.node.get(), grad.index}) ||
               (g.contains(grad.node.get()))) {
      // A head gradient passed straight through, a gradient shared with another
      // variable, or a forward entry: give this variable its own copy.
      absl::StatusOr<NodeEntry> copy = MakeEntry("_copy", label + "_grad_copy", {grad});
      if (!copy.ok()) return copy.status();
      grad = *copy;
    }
    RecordOrigin(grad, x.node.get(), g, origins);
    used.insert({grad.node.get(), grad.index});
    result.push_back(grad);
  }
  return result;
}

}  // namespace symx
