// Registers transpose: permutes the dims by `axes` (empty = reverse them). Its gradient is a
// transpose by the inverse permutation, so it needs no backward op of its own.
#include "graph/ops/transpose.h"

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/infer_util.h"
#include "graph/op.h"
#include "graph/ops/op_helpers.h"

namespace symx {

std::vector<int> TransposePermutation(const TransposeParam& p, int n) {
  std::vector<int> perm(n);
  for (int i = 0; i < n; ++i) perm[i] = p.axes.empty() ? n - 1 - i : static_cast<int>(p.axes[i]);
  return perm;
}

namespace {

absl::StatusOr<OpParamPtr> ParseTranspose(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<TransposeParam>();
  p->axes = r.Tuple("axes", {});
  // axes must list every dim once, so its length is the input's rank and it can be checked
  // here. Negative entries count from the end.
  const int64_t n = static_cast<int64_t>(p->axes.size());
  std::vector<bool> seen(p->axes.size(), false);
  for (int64_t& a : p->axes) {
    if (a < -n || a >= n) {
      r.Fail("axes",
             absl::StrCat("must be a permutation of 0..", n - 1, "; ", a, " is out of range"));
      break;
    }
    if (a < 0) a += n;
    if (seen[a]) {
      r.Fail("axes",
             absl::StrCat("must be a permutation of 0..", n - 1, "; axis ", a, " appears twice"));
      break;
    }
    seen[a] = true;
  }
  return r.Finish(std::move(p));
}

absl::Status InferTranspose(const NodeAttrs& attrs, std::vector<Shape>* in,
                            std::vector<Shape>* out) {
  const auto& p = Param<TransposeParam>(attrs);
  const Shape& data = (*in)[0];
  int n = data.ndim_known() ? data.ndim() : (*out)[0].ndim();
  if (n < 0) return absl::OkStatus();
  if (!p.axes.empty() && static_cast<int>(p.axes.size()) != n) {
    const Shape& known = data.ndim_known() ? data : (*out)[0];
    return absl::InvalidArgumentError(absl::StrCat(
        "transpose: axes (", absl::StrJoin(p.axes, ", "), ") has ", p.axes.size(), " entries but ",
        data.ndim_known() ? "input data " : "output ", known.ToString(), " has ", n, " dims"));
  }
  const std::vector<int> perm = TransposePermutation(p, n);
  if (data.ndim_known()) {
    Shape o = Shape::UnknownDims(n);
    for (int i = 0; i < n; ++i) o[i] = data[perm[i]];
    SYMX_RETURN_IF_ERROR(AssignShape(out, 0, o, "output"));
  }
  const Shape& o = (*out)[0];
  if (!o.ndim_known()) return absl::OkStatus();
  Shape back = Shape::UnknownDims(o.ndim());
  for (int i = 0; i < n && i < o.ndim(); ++i) back[perm[i]] = o[i];
  return AssignShape(in, 0, back, "input data");
}

std::vector<NodeEntry> TransposeGradient(const NodePtr& node,
                                         const std::vector<NodeEntry>& out_grads) {
  if (!out_grads[0].node) return {NodeEntry{}};
  const auto& p = Param<TransposeParam>(node->attrs);
  AttrMap attrs;
  // Reversing the dims is its own inverse.
  if (!p.axes.empty()) {
    std::vector<int64_t> inverse(p.axes.size());
    for (size_t i = 0; i < p.axes.size(); ++i) inverse[p.axes[i]] = static_cast<int64_t>(i);
    attrs["axes"] = AttrValue(inverse).str();
  }
  return {MakeInternalEntry("transpose", absl::StrCat(node->name(), "_backward"), {out_grads[0]},
                            std::move(attrs))};
}

}  // namespace

SYMX_REGISTER_OP("transpose")
    .Describe("Permutes the dims: output dim i is input dim axes[i]; empty axes reverse them.")
    .SetParse(ParseTranspose)
    .SetInferShape(InferTranspose)
    .SetGradient(TransposeGradient);

}  // namespace symx
