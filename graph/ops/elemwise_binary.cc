// Elementwise binary ops on equal shapes (elemwise_add/sub/mul/div, _maximum,
// _minimum, _power) and the backward ops of the last three.
//
// Unlike the broadcast_* family these require lhs, rhs and the output to have
// one shape, so inference simply merges all three. The +, -, *, / gradients are
// exact compositions of forward ops; max, min and power need a backward op that
// sees both operands.
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
}  // namespace symx
