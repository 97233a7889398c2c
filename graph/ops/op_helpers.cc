#include "graph/ops/op_helpers.h"

#include <algorithm>
#include <cstdlib>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "graph/infer_util.h"

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

}  // namespace

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
                       std::function<int(const NodeAttrs&)> num_grads, const char* file) {
  return RegisterBackwardOp(
      name, std::move(parse), [input_names](const NodeAttrs&) { return input_names; },
      std::move(num_grads), file);
}

Op& RegisterBackwardOp(const std::string& name, ParseFn parse, NamesFn input_names,
                       std::function<int(const NodeAttrs&)> num_grads, const char* file) {
  return OpRegistry::Global()
      .Register(name, file)
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

absl::Status InferBroadcastShape(const NodeAttrs& attrs, std::vector<Shape>* in,
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

}  // namespace symx
