#include "graph/ops/op_helpers.h"

#include <cstdlib>
#include <iostream>

#include "absl/strings/str_cat.h"

namespace symx {

NodePtr MakeInternalNode(absl::string_view op_name, std::string name, std::vector<NodeEntry> inputs,
                         AttrMap attrs, std::vector<NodePtr> control_deps) {
  absl::StatusOr<NodePtr> node = MakeOpNode(op_name, std::move(name), std::move(attrs),
                                            std::move(inputs), std::move(control_deps));
  if (!node.ok()) {
    std::cerr << "symx internal error building a gradient node: " << node.status().message()
              << "\n";
    std::abort();
  }
  return *std::move(node);
}

NodeEntry MakeInternalEntry(absl::string_view op_name, std::string name,
                            std::vector<NodeEntry> inputs, AttrMap attrs) {
  return Out(MakeInternalNode(op_name, std::move(name), std::move(inputs), std::move(attrs)));
}

std::vector<NodeEntry> MakeBackwardNode(absl::string_view op_name, const NodePtr& fwd,
                                        std::vector<NodeEntry> inputs) {
  NodePtr node = MakeInternalNode(op_name, absl::StrCat(fwd->name(), "_backward"),
                                  std::move(inputs), fwd->attrs.dict, {fwd});
  std::vector<NodeEntry> outs;
  for (int i = 0; i < node->num_outputs(); ++i) outs.push_back(Out(node, i));
  return outs;
}

NodeEntry MakeZerosLike(const NodeEntry& entry, const std::string& name_hint) {
  return MakeInternalEntry("zeros_like", absl::StrCat(name_hint, "_zeros"), {entry});
}

std::vector<NodeEntry> FillZeroGrads(const NodePtr& node, const std::vector<NodeEntry>& out_grads) {
  std::vector<NodeEntry> filled = out_grads;
  for (size_t i = 0; i < filled.size(); ++i) {
    if (!filled[i].node) {
      filled[i] = MakeZerosLike(Out(node, static_cast<uint32_t>(i)),
                                absl::StrCat(node->name(), "_out", i, "_grad"));
    }
  }
  return filled;
}

Op& RegisterBackwardOp(const std::string& name, ParseFn parse, std::vector<std::string> input_names,
                       std::function<int(const NodeAttrs&)> num_grads) {
  return RegisterBackwardOp(
      name, std::move(parse), [input_names](const NodeAttrs&) { return input_names; },
      std::move(num_grads));
}

Op& RegisterBackwardOp(const std::string& name, ParseFn parse, NamesFn input_names,
                       std::function<int(const NodeAttrs&)> num_grads) {
  return OpRegistry::Global()
      .Register(name)
      .SetBackward()
      .SetParse(std::move(parse))
      .SetInputNames(std::move(input_names))
      .SetOutputNames([num_grads](const NodeAttrs& attrs) {
        std::vector<std::string> names;
        int n = num_grads(attrs);
        for (int i = 0; i < n; ++i) names.push_back(absl::StrCat("grad", i));
        return names;
      })
      // Output dtypes come from the forward node's inputs (the inference pass does
      // that); inputs mix gradients and forward values of different dtypes (Cast).
      .SetInferType(nullptr)
      .SetNonDifferentiable();
}

std::vector<NodeEntry> PassThroughGradient(const NodePtr& node,
                                           const std::vector<NodeEntry>& out_grads) {
  return std::vector<NodeEntry>(node->inputs.size(), out_grads[0]);
}

GradientFn UnaryBackwardGradient(std::string backward_op, bool use_output) {
  return [backward_op, use_output](const NodePtr& n,
                                   const std::vector<NodeEntry>& og) -> std::vector<NodeEntry> {
    if (!og[0].node) return ZeroGradient(n, og);
    NodeEntry value = use_output ? Out(n) : n->inputs[0];
    return MakeBackwardNode(backward_op, n, {og[0], value});
  };
}

std::vector<NodeEntry> ZeroGradient(const NodePtr& node, const std::vector<NodeEntry>& out_grads) {
  return std::vector<NodeEntry>(node->inputs.size());
}

}  // namespace symx
