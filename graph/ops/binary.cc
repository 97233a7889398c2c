// The binary family: elementwise ops of two arrays, on equal shapes
// (elemwise_*, _maximum, _minimum, _power) or broadcasting (broadcast_*).
//
// Elementwise binary ops on equal shapes (elemwise_add/sub/mul/div, _maximum,
// _minimum, _power) and the backward ops of the last three.
//
// Unlike the broadcast_* family these require lhs, rhs and the output to have
// one shape, so inference simply merges all three. The +, -, *, / gradients are
// exact compositions of forward ops; max, min and power need a backward op that
// sees both operands.
//
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

absl::Status BinaryShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  return InferSameShape(in, out);
}

NodeEntry Internal(absl::string_view op, const NodePtr& n, absl::string_view suffix,
                   std::vector<NodeEntry> inputs) {
  return MakeInternalEntry(op, absl::StrCat(n->name(), "_backward_", suffix), std::move(inputs));
}

std::vector<NodeEntry> AddGradient(const NodePtr& n, const std::vector<NodeEntry>& og) {
  if (!og[0].node) return ZeroGradient(n, og);
  return PassThroughGradient(n, og);
}

std::vector<NodeEntry> SubGradient(const NodePtr& n, const std::vector<NodeEntry>& og) {
  if (!og[0].node) return ZeroGradient(n, og);
  return {og[0], Internal("negative", n, "rhs", {og[0]})};
}

std::vector<NodeEntry> MulGradient(const NodePtr& n, const std::vector<NodeEntry>& og) {
  if (!og[0].node) return ZeroGradient(n, og);
  return {Internal("elemwise_mul", n, "lhs", {og[0], n->inputs[1]}),
          Internal("elemwise_mul", n, "rhs", {og[0], n->inputs[0]})};
}

// d(l/r) = dl/r - (l/r) dr/r, and l/r is the forward output, so both terms
// share g/r.
std::vector<NodeEntry> DivGradient(const NodePtr& n, const std::vector<NodeEntry>& og) {
  if (!og[0].node) return ZeroGradient(n, og);
  NodeEntry g_over_rhs = Internal("elemwise_div", n, "lhs", {og[0], n->inputs[1]});
  NodeEntry scaled = Internal("elemwise_mul", n, "rhs_scaled", {g_over_rhs, Out(n)});
  return {g_over_rhs, Internal("negative", n, "rhs", {scaled})};
}

// "_backward_<op>"(ograd, lhs, rhs) with one output per operand.
GradientFn ViaBackwardOp(std::string backward_op) {
  return
      [backward_op](const NodePtr& n, const std::vector<NodeEntry>& og) -> std::vector<NodeEntry> {
        if (!og[0].node) return ZeroGradient(n, og);
        return MakeBackwardNode(backward_op, n, {og[0], n->inputs[0], n->inputs[1]});
      };
}

SYMX_REGISTER_OP("elemwise_add")
    .SetLayoutAgnostic()
    .Describe("lhs + rhs for arrays of one shape.")
    .AddAlias("_add")
    .AddAlias("_plus")
    .AddAlias("_Plus")
    .SetInputNames({"lhs", "rhs"})
    .SetInferShape(BinaryShape)
    .SetInplace({{0, 0}, {1, 0}})
    .SetGradient(AddGradient);

SYMX_REGISTER_OP("elemwise_sub")
    .SetLayoutAgnostic()
    .Describe("lhs - rhs for arrays of one shape.")
    .AddAlias("_sub")
    .AddAlias("_minus")
    .AddAlias("_Minus")
    .SetInputNames({"lhs", "rhs"})
    .SetInferShape(BinaryShape)
    .SetInplace({{0, 0}, {1, 0}})
    .SetGradient(SubGradient);

SYMX_REGISTER_OP("elemwise_mul")
    .SetLayoutAgnostic()
    .Describe("lhs * rhs for arrays of one shape.")
    .AddAlias("_mul")
    .AddAlias("_Mul")
    .SetInputNames({"lhs", "rhs"})
    .SetInferShape(BinaryShape)
    .SetInplace({{0, 0}, {1, 0}})
    .SetGradient(MulGradient);

SYMX_REGISTER_OP("elemwise_div")
    .SetLayoutAgnostic()
    .Describe("lhs / rhs for arrays of one shape.")
    .AddAlias("_div")
    .AddAlias("_Div")
    .SetInputNames({"lhs", "rhs"})
    .SetInferShape(BinaryShape)
    .SetInplace({{0, 0}, {1, 0}})
    .SetGradient(DivGradient);

SYMX_REGISTER_OP("_maximum")
    .Describe("Elementwise max(lhs, rhs) for arrays of one shape.")
    .AddAlias("_Maximum")
    .SetInputNames({"lhs", "rhs"})
    .SetInferShape(BinaryShape)
    .SetInplace({{0, 0}, {1, 0}})
    .SetGradient(ViaBackwardOp("_backward_maximum"));

SYMX_REGISTER_OP("_minimum")
    .Describe("Elementwise min(lhs, rhs) for arrays of one shape.")
    .AddAlias("_Minimum")
    .SetInputNames({"lhs", "rhs"})
    .SetInferShape(BinaryShape)
    .SetInplace({{0, 0}, {1, 0}})
    .SetGradient(ViaBackwardOp("_backward_minimum"));

SYMX_REGISTER_OP("_power")
    .Describe("Elementwise lhs^rhs for arrays of one shape.")
    .AddAlias("_Power")
    .SetInputNames({"lhs", "rhs"})
    .SetInferShape(BinaryShape)
    .SetInplace({{0, 0}, {1, 0}})
    .SetGradient(ViaBackwardOp("_backward_power"));

[[maybe_unused]] const bool kBackwardOpsRegistered = [] {
  for (const char* name : {"_backward_maximum", "_backward_minimum", "_backward_power"}) {
    RegisterBackwardOp(name, ParseNoParams, {"ograd", "lhs", "rhs"},
                       [](const NodeAttrs&) { return 2; });
  }
  return true;
}();

}  // namespace

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
