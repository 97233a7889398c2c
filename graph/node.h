// Node and NodeEntry: the immutable DAG that Symbols point into.
//
// A Node is either a variable (op == nullptr) or an op application. Nodes are
// shared by shared_ptr and never mutated after creation (composition builds new
// nodes), so Symbols can share subgraphs freely and are safe to read from many
// threads. A NodeEntry names one output of a node.
#ifndef SYMX_GRAPH_NODE_H_
#define SYMX_GRAPH_NODE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "graph/attrs.h"
#include "graph/param.h"

namespace symx {

class Op;
struct Node;
using NodePtr = std::shared_ptr<Node>;

struct NodeEntry {
  NodePtr node;
  uint32_t index = 0;
  // MXNet's variable version: bumped when an op mutates the variable (aux states
  // are written as version 1). Kept only so JSON round-trips exactly.
  uint32_t version = 0;

  bool operator==(const NodeEntry& o) const {
    return node == o.node && index == o.index && version == o.version;
  }
};

// A body graph that a control-flow op runs (_foreach's step): its outputs. Its
// inputs are its variables in DFS order (IndexedGraph::input_nodes), which the
// op's *_locs parameters map onto the node's inputs, as in MXNet. Immutable,
// shared by the forward node and its backward node.
struct Subgraph {
  std::vector<NodeEntry> outputs;
};
using SubgraphPtr = std::shared_ptr<const Subgraph>;

struct NodeAttrs {
  const Op* op = nullptr;  // nullptr: a variable
  std::string name;
  AttrMap dict;       // every attribute, hidden ones as "__k__"
  OpParamPtr parsed;  // the op's typed parameters (null for variables)
  // Bodies of control-flow ops (MXNet's per-node "subgraphs"); empty otherwise.
  std::vector<SubgraphPtr> subgraphs;
};

struct Node {
  Node() = default;
  Node(const Node&) = default;
  // Releases long input chains iteratively: a 100,000-op chain must not
  // overflow the stack through recursive shared_ptr destruction.
  ~Node();

  NodeAttrs attrs;
  std::vector<NodeEntry> inputs;
  // For backward nodes: control_deps[0] is the forward node they differentiate.
  std::vector<NodePtr> control_deps;

  const Op* op() const { return attrs.op; }
  bool is_variable() const { return attrs.op == nullptr; }
  const std::string& name() const { return attrs.name; }
  // All outputs (a variable has one).
  int num_outputs() const;
  // Outputs a Symbol made from this node exposes (BatchNorm: 1 of 3).
  int num_visible_outputs() const;
};

// The typed parameters of `attrs`, which must belong to an op whose parse
// function produces a `P`.
template <typename P>
const P& Param(const NodeAttrs& attrs) {
  return *static_cast<const P*>(attrs.parsed.get());
}

// For ops with a variable number of inputs: the count attribute ("num_args")
// must equal the number of inputs given. Checked before the op lists its input
// names, so a huge count in a malformed file cannot exhaust memory.
absl::Status CheckVariadicCount(const Op& op, const AttrMap& dict, size_t num_inputs,
                                absl::string_view where);

NodePtr MakeVariableNode(std::string name, AttrMap dict = {});

// Creates an op node: parses `dict` with the op's parser and checks the number
// of inputs. Errors name the node, the op and the offending attribute or count.
absl::StatusOr<NodePtr> MakeOpNode(const Op* op, std::string name, AttrMap dict,
                                   std::vector<NodeEntry> inputs,
                                   std::vector<NodePtr> control_deps = {});

// Gives `node` (just made by MakeOpNode, not yet shared) its body graphs and
// checks them with the op's subgraph check: an op that takes none refuses
// them, one that does needs exactly its count. Errors name the node and op.
absl::Status AttachSubgraphs(Node* node, std::vector<SubgraphPtr> subgraphs);

// Same, looking the op up by name (aliases included).
absl::StatusOr<NodePtr> MakeOpNode(absl::string_view op_name, std::string name, AttrMap dict,
                                   std::vector<NodeEntry> inputs,
                                   std::vector<NodePtr> control_deps = {});

}  // namespace symx

#endif  // SYMX_GRAPH_NODE_H_
