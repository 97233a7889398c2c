// Broadcasting binary ops (broadcast_add/sub/mul/div/maximum/minimum/power)
// and their backward ops.
//
// Shapes follow numpy: dims are aligned on the right, a missing dim counts as
// 1, and a 1 stretches to the other side's size. Inference works with unknown
// dims as far as the rule allows and fills an input dim from the output only
// where the input's dim is forced, never guessing between 1 and n.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/infer_util.h"
#include "graph/op.h"
#include "graph/ops/op_helpers.h"

namespace symx {
namespace {


std::vector<NodeEntry> GradOnly(const std::string& backward_op, const NodePtr& n,
                                const std::vector<NodeEntry>& og) {
  if (!og[0].node) return ZeroGradient(n, og);
  return MakeBackwardNode(backward_op, n, {og[0]});
}

std::vector<NodeEntry> GradWithInputs(const std::string& backward_op, const NodePtr& n,
                                      const std::vector<NodeEntry>& og) {
  if (!og[0].node) return ZeroGradient(n, og);
  return MakeBackwardNode(backward_op, n, {og[0], n->inputs[0], n->inputs[1]});
}

// Registers broadcast_<name> (plus `alias` if any) and _backward_broadcast_<name>.
// The backward op sums the head gradient over broadcast dims; add and sub need
// nothing else, the others also read both operands.
Op& RegisterBroadcastOp(const std::string& name, const std::string& alias,
                        const std::string& description, bool backward_needs_inputs) {
  std::string backward_op = absl::StrCat("_backward_broadcast_", name);
  std::vector<std::string> backward_inputs = {"ograd"};
  if (backward_needs_inputs) {
    backward_inputs.push_back("lhs");
    backward_inputs.push_back("rhs");
  }
  RegisterBackwardOp(backward_op, ParseNoParams, backward_inputs,
                     [](const NodeAttrs&) { return 2; });
  Op& op = OpRegistry::Global()
               .Register(absl::StrCat("broadcast_", name))
               .Describe(description)
               .SetInputNames({"lhs", "rhs"})
               .SetInferShape(InferBroadcastShape)
               .SetInplace({{0, 0}, {1, 0}});
  if (!alias.empty()) op.AddAlias(alias);
  if (backward_needs_inputs) {
    op.SetGradient([backward_op](const NodePtr& n, const std::vector<NodeEntry>& og) {
      return GradWithInputs(backward_op, n, og);
    });
  } else {
    op.SetGradient([backward_op](const NodePtr& n, const std::vector<NodeEntry>& og) {
      return GradOnly(backward_op, n, og);
    });
  }
  return op;
}

[[maybe_unused]] const bool kRegistered = [] {
  RegisterBroadcastOp("add", "broadcast_plus", "lhs + rhs with broadcasting.", false);
  RegisterBroadcastOp("sub", "broadcast_minus", "lhs - rhs with broadcasting.", false);
  RegisterBroadcastOp("mul", "", "lhs * rhs with broadcasting.", true);
  RegisterBroadcastOp("div", "", "lhs / rhs with broadcasting.", true);
  RegisterBroadcastOp("maximum", "", "Elementwise max(lhs, rhs) with broadcasting.", true);
  RegisterBroadcastOp("minimum", "", "Elementwise min(lhs, rhs) with broadcasting.", true);
  RegisterBroadcastOp("power", "", "lhs ^ rhs with broadcasting.", true);
  return true;
}();

}  // namespace
}  // namespace symx
