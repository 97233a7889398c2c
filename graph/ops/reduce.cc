// Axis reductions: sum (sum_axis), mean, max (max_axis) and their backward ops.
//
// Output shapes follow MXNet 1.x's legacy (non-numpy) rules:
// - axis None or () reduces every axis, whatever `exclude` says, giving (1,)
//   or, with keepdims, all ones;
// - `exclude` reduces every axis NOT listed;
// - reducing all listed axes without keepdims still gives (1,), never ().
// Axes may be negative; out-of-range or repeated axes are errors. Dims that
// survive the reduction are also filled back from the output into the input.
#include "graph/ops/reduce.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/infer_util.h"
#include "graph/op.h"
#include "graph/ops/op_helpers.h"

namespace symx {

absl::StatusOr<std::vector<bool>> ReducedAxes(const ReduceParam& p, int ndim) {
  if (!p.axis.has_value() || p.axis->empty()) return std::vector<bool>(ndim, true);
  std::vector<bool> listed(ndim, false);
  for (int64_t a : *p.axis) {
    int axis = 0;
    SYMX_RETURN_IF_ERROR(NormalizeAxis(a, ndim, "axis", &axis));
    if (listed[axis]) {
      return absl::InvalidArgumentError(
          absl::StrCat("axis (", absl::StrJoin(*p.axis, ", "), ") names axis ", axis,
                       " more than once (input has ", ndim, " dimensions)"));
    }
    listed[axis] = true;
  }
  if (p.exclude) listed.flip();
  return listed;
}

namespace {

absl::StatusOr<OpParamPtr> ParseReduce(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<ReduceParam>();
  p->axis = r.OptionalTuple("axis");
  p->keepdims = r.Bool("keepdims", false);
  p->exclude = r.Bool("exclude", false);
  return r.Finish(std::move(p));
}

absl::Status ReduceShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const ReduceParam& p = Param<ReduceParam>(attrs);
  const Shape& data = (*in)[0];
  // Without the input's ndim the reduced axes (negative ones, exclude) are
  // unknown, so nothing can be said in either direction.
  if (!data.ndim_known()) return absl::OkStatus();
  const int ndim = data.ndim();
  SYMX_ASSIGN_OR_RETURN(std::vector<bool> reduced, ReducedAxes(p, ndim));

  // kept[k] = the input axis that output axis k carries.
  std::vector<int> kept;
  std::vector<int64_t> dims;
  for (int i = 0; i < ndim; ++i) {
    if (p.keepdims) {
      if (!reduced[i]) kept.push_back(i);
      dims.push_back(reduced[i] ? 1 : data[i]);
    } else if (!reduced[i]) {
      kept.push_back(i);
      dims.push_back(data[i]);
    }
  }
  if (!p.keepdims && dims.empty()) dims.push_back(1);
  SYMX_RETURN_IF_ERROR(AssignShape(out, 0, Shape(dims), "output"));

  const Shape& result = (*out)[0];
  Shape filled = data;
  for (size_t k = 0; k < kept.size(); ++k) {
    int out_axis = p.keepdims ? kept[k] : static_cast<int>(k);
    filled[kept[k]] = result[out_axis];
  }
  return AssignShape(in, 0, filled, "input data");
}

// max has no identity element, so a known-empty input is rejected as MXNet does.
absl::Status ReduceMaxShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                            std::vector<Shape>* out) {
  SYMX_RETURN_IF_ERROR(ReduceShape(attrs, in, out));
  const Shape& filled = (*in)[0];
  for (int i = 0; i < filled.ndim(); ++i) {
    if (filled[i] == 0) return ShapeError("input data", filled, "a non-empty array to take max of");
  }
  return absl::OkStatus();
}

int OneGrad(const NodeAttrs&) { return 1; }

std::vector<NodeEntry> SumGradient(const NodePtr& n, const std::vector<NodeEntry>& og) {
  if (!og[0].node) return ZeroGradient(n, og);
  return MakeBackwardNode("_backward_sum", n, {og[0]});
}

std::vector<NodeEntry> MeanGradient(const NodePtr& n, const std::vector<NodeEntry>& og) {
  if (!og[0].node) return ZeroGradient(n, og);
  return MakeBackwardNode("_backward_mean", n, {og[0]});
}

// The gradient flows to the positions equal to the max, so the kernel needs
// the input and the (un-broadcast) output.
std::vector<NodeEntry> MaxGradient(const NodePtr& n, const std::vector<NodeEntry>& og) {
  if (!og[0].node) return ZeroGradient(n, og);
  return MakeBackwardNode("_backward_max", n, {og[0], n->inputs[0], Out(n)});
}

SYMX_REGISTER_OP("sum")
    .SetPrecisionClass(PrecisionClass::kFloat32)
    .Describe("Sum over the given axes.")
    .AddAlias("sum_axis")
    .SetParse(ParseReduce)
    .SetInputNames({"data"})
    .SetInferShape(ReduceShape)
    .SetGradient(SumGradient);

SYMX_REGISTER_OP("mean")
    .SetPrecisionClass(PrecisionClass::kFloat32)
    .Describe("Mean over the given axes.")
    .SetParse(ParseReduce)
    .SetInputNames({"data"})
    .SetInferShape(ReduceShape)
    .SetGradient(MeanGradient);

SYMX_REGISTER_OP("max")
    .Describe("Maximum over the given axes.")
    .AddAlias("max_axis")
    .SetParse(ParseReduce)
    .SetInputNames({"data"})
    .SetInferShape(ReduceMaxShape)
    .SetGradient(MaxGradient);

[[maybe_unused]] const bool kBackwardOpsRegistered = [] {
  RegisterBackwardOp("_backward_sum", ParseReduce, {"ograd"}, OneGrad);
  RegisterBackwardOp("_backward_mean", ParseReduce, {"ograd"}, OneGrad);
  RegisterBackwardOp("_backward_max", ParseReduce, {"ograd", "data", "output"}, OneGrad);
  return true;
}();

}  // namespace
}  // namespace symx
