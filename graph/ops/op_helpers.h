// Shared pieces for op schema files: building gradient nodes and registering
// backward ops. Used only by graph/ops/*.cc.
//
// Conventions (see docs/architecture.md, "Gradients"):
// - A gradient function returns one entry per forward input; an empty entry
//   (node == nullptr) means "zero" and is pruned by the gradient pass.
// - Gradients are built from forward ops where that is cheap and exact
//   (d(x*y) = (g*y, g*x)), else from a backward op "_backward_<Op>".
// - A backward op node copies the forward node's attributes, has the forward
//   node as control_deps[0], and output i is the gradient of forward input i
//   (same shape and dtype; the inference passes take them from the forward
//   node). Only non-aux inputs get outputs.
#ifndef SYMX_GRAPH_OPS_OP_HELPERS_H_
#define SYMX_GRAPH_OPS_OP_HELPERS_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "graph/node.h"
#include "graph/op.h"

namespace symx {

// Creates an internal node (gradient construction). Input counts and attributes
// are fixed by the calling code, so a failure is a bug and aborts with a message.
NodePtr MakeInternalNode(absl::string_view op_name, std::string name, std::vector<NodeEntry> inputs,
                         AttrMap attrs = {}, std::vector<NodePtr> control_deps = {});

// Output 0 of a new internal node.
NodeEntry MakeInternalEntry(absl::string_view op_name, std::string name,
                            std::vector<NodeEntry> inputs, AttrMap attrs = {});

// A node of backward op `op_name` for forward node `fwd`, named
// "<fwd>_backward", with fwd's attributes and control dependency. Returns an
// entry for each of its outputs.
std::vector<NodeEntry> MakeBackwardNode(absl::string_view op_name, const NodePtr& fwd,
                                        std::vector<NodeEntry> inputs);

// zeros_like(entry), named after `name_hint`.
NodeEntry MakeZerosLike(const NodeEntry& entry, const std::string& name_hint);

// `out_grads` with each empty entry replaced by zeros_like(node output i), for
// backward ops that need every output gradient.
std::vector<NodeEntry> FillZeroGrads(const NodePtr& node, const std::vector<NodeEntry>& out_grads);

// The parsed params of `attrs`, parsing them when a caller asks for input
// names before the node is built (variadic ops: Concat, stack); null when
// they do not parse (the caller reports that elsewhere).
template <typename P>
std::shared_ptr<const P> ParamsOf(const NodeAttrs& attrs,
                                  absl::StatusOr<OpParamPtr> (*parse)(const AttrMap&)) {
  if (attrs.parsed) return std::static_pointer_cast<const P>(attrs.parsed);
  absl::StatusOr<OpParamPtr> parsed = parse(attrs.dict);
  return parsed.ok() ? std::static_pointer_cast<const P>(*parsed) : nullptr;
}

// Entry `index` of `node` (version 0).
inline NodeEntry Out(const NodePtr& node, uint32_t index = 0) { return NodeEntry{node, index, 0}; }

// Registers backward op `name` with the given inputs and `num_grads(attrs)`
// outputs "grad0", "grad1", ...; output i pairs with forward input i. The parse
// function is the forward op's, since the attributes are the forward node's.
// The op's source file is the caller's.
Op& RegisterBackwardOp(const std::string& name, ParseFn parse, std::vector<std::string> input_names,
                       std::function<int(const NodeAttrs&)> num_grads,
                       const char* file = __builtin_FILE());

// Same, for a backward op whose inputs depend on the attributes.
Op& RegisterBackwardOp(const std::string& name, ParseFn parse, NamesFn input_names,
                       std::function<int(const NodeAttrs&)> num_grads,
                       const char* file = __builtin_FILE());

// Gradient helpers for common cases.
// Every input receives the output gradient unchanged (identity, +, ElementWiseSum).
std::vector<NodeEntry> PassThroughGradient(const NodePtr& node,
                                           const std::vector<NodeEntry>& out_grads);
// For one-input ops: "<backward_op>"(ograd, v), v being the forward output
// (`use_output`) or the forward input; zero when the output gradient is zero.
GradientFn UnaryBackwardGradient(std::string backward_op, bool use_output);
// Shape inference of two-input numpy broadcasting (broadcast_add, broadcast_equal,
// ...): dims align on the right, a missing dim counts as 1 and a 1 stretches.
// Unknown dims are filled only where the rule forces them, never guessing
// between 1 and n.
absl::Status InferBroadcastShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                                 std::vector<Shape>* out);
// Every input's gradient is zero (BlockGrad, zeros_like, comparison ops).
std::vector<NodeEntry> ZeroGradient(const NodePtr& node, const std::vector<NodeEntry>& out_grads);

}  // namespace symx

#endif  // SYMX_GRAPH_OPS_OP_HELPERS_H_
