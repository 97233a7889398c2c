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

// Dim `i` of the output as seen from input `s`, which is right-aligned into
// `ndim` dims: 1 where `s` has no such dim.
int64_t AlignedDim(const Shape& s, int ndim, int i) {
  int offset = ndim - s.ndim();
  return i < offset ? 1 : s[i - offset];
}

absl::Status BroadcastError(const Shape& lhs, const Shape& rhs) {
  return absl::InvalidArgumentError(
      absl::StrCat("operands could not be broadcast together with shapes lhs ", lhs.ToString(),
                   " and rhs ", rhs.ToString()));
}

// Fills unknown dims of input `which` that the output and the other input
// force: an output dim of 1 means the input's is 1; where the other input
// contributes 1 (or nothing), the input's dim is the output's.
void FillInputFromOutput(const Shape& out, const Shape& other, Shape* input) {
  int nd = out.ndim();
  int offset = nd - input->ndim();
  for (int j = 0; j < input->ndim(); ++j) {
    int i = j + offset;
    if (input->dim_known(j) || !out.dim_known(i)) continue;
    int64_t o = AlignedDim(other, nd, i);
    if (out[i] == 1) {
      (*input)[j] = 1;
    } else if (o == 1) {
      (*input)[j] = out[i];
    }
  }
}

absl::Status BroadcastShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                            std::vector<Shape>* out) {
  Shape& lhs = (*in)[0];
  Shape& rhs = (*in)[1];
  const Shape& given = (*out)[0];
  // With one input's ndim unknown, the output's ndim pins it down only when
  // the other input has fewer dims than the output.
  for (Shape* s : {&lhs, &rhs}) {
    const Shape& other = s == &lhs ? rhs : lhs;
    if (s->ndim_known() || !other.ndim_known() || !given.ndim_known()) continue;
    if (other.ndim() > given.ndim()) {
      return absl::InvalidArgumentError(
          absl::StrCat("Shape inconsistent for output, Provided = ", given.ToString(), ", but ",
                       s == &lhs ? "rhs " : "lhs ", other.ToString(), " has more dims"));
    }
    if (other.ndim() < given.ndim()) *s = Shape::UnknownDims(given.ndim());
  }
  if (!lhs.ndim_known() || !rhs.ndim_known()) return absl::OkStatus();

  int nd = std::max(lhs.ndim(), rhs.ndim());
  Shape result = Shape::UnknownDims(nd);
  for (int i = 0; i < nd; ++i) {
    int64_t l = AlignedDim(lhs, nd, i);
    int64_t r = AlignedDim(rhs, nd, i);
    bool lk = l != kUnknownDim;
    bool rk = r != kUnknownDim;
    if (lk && rk) {
      if (l != r && l != 1 && r != 1) return BroadcastError(lhs, rhs);
      result[i] = l == 1 ? r : l;
    } else if (lk && l != 1) {
      result[i] = l;  // the unknown side must be 1 or l
    } else if (rk && r != 1) {
      result[i] = r;
    }
  }
  SYMX_RETURN_IF_ERROR(AssignShape(out, 0, result, "output"));

  const Shape merged = (*out)[0];
  Shape lhs_filled = lhs;
  Shape rhs_filled = rhs;
  FillInputFromOutput(merged, rhs, &lhs_filled);
  FillInputFromOutput(merged, lhs, &rhs_filled);
  SYMX_RETURN_IF_ERROR(AssignShape(in, 0, lhs_filled, "input lhs"));
  return AssignShape(in, 1, rhs_filled, "input rhs");
}

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
               .SetInferShape(BroadcastShape)
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
