#include "graph/node.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/error.h"
#include "graph/op.h"

namespace symx {

Node::~Node() {
  std::vector<NodePtr> pending;
  auto release = [&pending](Node* node) {
    for (NodeEntry& e : node->inputs) {
      if (e.node && e.node.use_count() == 1) pending.push_back(std::move(e.node));
    }
    for (NodePtr& dep : node->control_deps) {
      if (dep && dep.use_count() == 1) pending.push_back(std::move(dep));
    }
  };
  release(this);
  while (!pending.empty()) {
    NodePtr last = std::move(pending.back());
    pending.pop_back();
    release(last.get());
  }  // `last` is destroyed here with its sole-owned inputs already moved out
}

int Node::num_outputs() const { return is_variable() ? 1 : attrs.op->NumOutputs(attrs); }

int Node::num_visible_outputs() const {
  return is_variable() ? 1 : attrs.op->NumVisibleOutputs(attrs);
}

absl::Status CheckVariadicCount(const Op& op, const AttrMap& dict, size_t num_inputs,
                                absl::string_view where) {
  if (op.variadic_key().empty()) return absl::OkStatus();
  auto it = dict.find(op.variadic_key());
  int64_t n = 0;
  if (it == dict.end() || !absl::SimpleAtoi(it->second, &n)) return absl::OkStatus();
  if (n != static_cast<int64_t>(num_inputs)) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": ", op.variadic_key(), " = ", n,
                                                   " but ", num_inputs, " inputs are given"));
  }
  return absl::OkStatus();
}

NodePtr MakeVariableNode(std::string name, AttrMap dict) {
  auto node = std::make_shared<Node>();
  node->attrs.name = std::move(name);
  node->attrs.dict = std::move(dict);
  return node;
}

absl::StatusOr<NodePtr> MakeOpNode(const Op* op, std::string name, AttrMap dict,
                                   std::vector<NodeEntry> inputs,
                                   std::vector<NodePtr> control_deps) {
  auto node = std::make_shared<Node>();
  node->attrs.op = op;
  node->attrs.name = std::move(name);
  node->attrs.dict = std::move(dict);
  std::string where = absl::StrCat("operator '", node->attrs.name, "' (", op->name(), ")");
  absl::StatusOr<OpParamPtr> parsed = op->Parse(node->attrs.dict);
  if (!parsed.ok()) return Annotate(parsed.status(), where);
  node->attrs.parsed = *std::move(parsed);
  SYMX_RETURN_IF_ERROR(CheckVariadicCount(*op, node->attrs.dict, inputs.size(), where));
  std::vector<std::string> names = op->InputNames(node->attrs);
  if (names.size() != inputs.size()) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": expects ", names.size(), " inputs (",
                                                   absl::StrJoin(names, ", "), ") but got ",
                                                   inputs.size()));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const NodeEntry& e = inputs[i];
    if (!e.node) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": input '", names[i], "' is empty"));
    }
    if (static_cast<int>(e.index) >= e.node->num_outputs()) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": input '", names[i], "' refers to output ", e.index, " of '",
                       e.node->name(), "', which has ", e.node->num_outputs(), " outputs"));
    }
  }
  node->inputs = std::move(inputs);
  node->control_deps = std::move(control_deps);
  return node;
}

absl::Status AttachSubgraphs(Node* node, std::vector<SubgraphPtr> subgraphs) {
  const Op* op = node->op();
  std::string where = absl::StrCat("operator '", node->name(), "' (", op->name(), ")");
  if (static_cast<int>(subgraphs.size()) != op->num_subgraphs()) {
    return absl::InvalidArgumentError(
        op->num_subgraphs() == 0 ? absl::StrCat(where, ": this operator takes no subgraphs but ",
                                                subgraphs.size(), " are given")
                                 : absl::StrCat(where, ": expects ", op->num_subgraphs(),
                                                " subgraph(s) but got ", subgraphs.size()));
  }
  for (const SubgraphPtr& g : subgraphs) {
    if (g == nullptr || g->outputs.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": a subgraph has no outputs"));
    }
  }
  node->attrs.subgraphs = std::move(subgraphs);
  if (op->check_subgraphs()) {
    absl::Status s = op->check_subgraphs()(node->attrs, node->inputs.size());
    if (!s.ok()) return Annotate(s, where);
  }
  return absl::OkStatus();
}

absl::StatusOr<NodePtr> MakeOpNode(absl::string_view op_name, std::string name, AttrMap dict,
                                   std::vector<NodeEntry> inputs,
                                   std::vector<NodePtr> control_deps) {
  SYMX_ASSIGN_OR_RETURN(const Op* op, OpRegistry::Global().Lookup(op_name));
  return MakeOpNode(op, std::move(name), std::move(dict), std::move(inputs),
                    std::move(control_deps));
}

}  // namespace symx
