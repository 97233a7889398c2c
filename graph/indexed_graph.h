// IndexedGraph: a read-only, densely numbered view of the DAG reachable from a
// list of output entries, for passes that keep typed side tables (a shape per
// entry id, a device per node id) instead of attribute bags.
//
// Node ids follow MXNet's DFS post-order from the outputs (inputs before control
// dependencies), which is also the node order of the JSON format. Entry ids are
// node_row_ptr[node] + output index. Built iteratively: deep chains are fine.
#ifndef SYMX_GRAPH_INDEXED_GRAPH_H_
#define SYMX_GRAPH_INDEXED_GRAPH_H_

#include <cstdint>
#include <functional>
#include <unordered_map>
#include <vector>

#include "graph/node.h"

namespace symx {

class IndexedGraph {
 public:
  struct Entry {
    uint32_t node_id;
    uint32_t index;
    uint32_t version;
  };
  struct NodeInfo {
    NodePtr node;
    std::vector<Entry> inputs;
    std::vector<uint32_t> control_deps;
  };

  explicit IndexedGraph(const std::vector<NodeEntry>& outputs);

  size_t num_nodes() const { return nodes_.size(); }
  size_t num_entries() const { return row_ptr_.back(); }
  const NodeInfo& operator[](uint32_t node_id) const { return nodes_[node_id]; }
  uint32_t node_id(const Node* node) const { return ids_.at(node); }
  bool contains(const Node* node) const { return ids_.count(node) != 0; }
  uint32_t entry_id(uint32_t node_id, uint32_t index) const { return row_ptr_[node_id] + index; }
  uint32_t entry_id(const Entry& e) const { return entry_id(e.node_id, e.index); }
  uint32_t entry_id(const NodeEntry& e) const { return entry_id(node_id(e.node.get()), e.index); }
  const std::vector<uint32_t>& row_ptr() const { return row_ptr_; }
  const std::vector<Entry>& outputs() const { return outputs_; }

  // Variable nodes in DFS order, and those an op mutates (auxiliary states).
  const std::vector<uint32_t>& input_nodes() const { return input_nodes_; }
  bool is_mutable_input(uint32_t node_id) const { return mutable_[node_id]; }
  std::vector<uint32_t> arg_nodes() const;
  std::vector<uint32_t> aux_nodes() const;

 private:
  std::vector<NodeInfo> nodes_;
  std::unordered_map<const Node*, uint32_t> ids_;
  std::vector<uint32_t> row_ptr_;
  std::vector<Entry> outputs_;
  std::vector<uint32_t> input_nodes_;
  std::vector<bool> mutable_;
};

// Calls `visit` on every node reachable from `outputs` in DFS post-order.
void PostOrderVisit(const std::vector<NodeEntry>& outputs,
                    const std::function<void(const NodePtr&)>& visit);

}  // namespace symx

#endif  // SYMX_GRAPH_INDEXED_GRAPH_H_
