#include "graph/indexed_graph.h"

#include <unordered_set>

#include "graph/op.h"

namespace symx {

void PostOrderVisit(const std::vector<NodeEntry>& outputs,
                    const std::function<void(const NodePtr&)>& visit) {
  std::unordered_set<const Node*> seen;
  // Explicit stack of (node, next child index): long chains must not overflow.
  std::vector<std::pair<NodePtr, size_t>> stack;
  for (const NodeEntry& head : outputs) {
    if (!head.node || seen.count(head.node.get())) continue;
    seen.insert(head.node.get());
    stack.emplace_back(head.node, 0);
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      size_t num_children = node->inputs.size() + node->control_deps.size();
      if (next < num_children) {
        const NodePtr& child = next < node->inputs.size()
                                   ? node->inputs[next].node
                                   : node->control_deps[next - node->inputs.size()];
        ++next;
        if (child && !seen.count(child.get())) {
          seen.insert(child.get());
          stack.emplace_back(child, 0);
        }
      } else {
        NodePtr done = node;
        stack.pop_back();
        visit(done);
      }
    }
  }
}

IndexedGraph::IndexedGraph(const std::vector<NodeEntry>& outputs) {
  row_ptr_.push_back(0);
  PostOrderVisit(outputs, [&](const NodePtr& node) {
    uint32_t id = static_cast<uint32_t>(nodes_.size());
    ids_[node.get()] = id;
    NodeInfo info;
    info.node = node;
    for (const NodeEntry& e : node->inputs) {
      info.inputs.push_back(Entry{ids_.at(e.node.get()), e.index, e.version});
    }
    for (const NodePtr& dep : node->control_deps) info.control_deps.push_back(ids_.at(dep.get()));
    nodes_.push_back(std::move(info));
    row_ptr_.push_back(row_ptr_.back() + node->num_outputs());
    if (node->is_variable()) input_nodes_.push_back(id);
  });
  mutable_.assign(nodes_.size(), false);
  for (const NodeInfo& info : nodes_) {
    if (info.node->is_variable()) continue;
    for (int aux : info.node->op()->AuxInputs(info.node->attrs)) {
      if (aux < static_cast<int>(info.inputs.size())) {
        uint32_t src = info.inputs[aux].node_id;
        if (nodes_[src].node->is_variable()) mutable_[src] = true;
      }
    }
  }
  for (const NodeEntry& e : outputs) {
    outputs_.push_back(Entry{ids_.at(e.node.get()), e.index, e.version});
  }
}

std::vector<uint32_t> IndexedGraph::arg_nodes() const {
  std::vector<uint32_t> out;
  for (uint32_t id : input_nodes_) {
    if (!mutable_[id]) out.push_back(id);
  }
  return out;
}

std::vector<uint32_t> IndexedGraph::aux_nodes() const {
  std::vector<uint32_t> out;
  for (uint32_t id : input_nodes_) {
    if (mutable_[id]) out.push_back(id);
  }
  return out;
}

}  // namespace symx
