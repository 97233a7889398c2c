// Registers Dropout (with its hidden mask output, including variational dropout over `axes`)
// and _backward_Dropout.
#include "graph/ops/dropout.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "graph/infer_util.h"
#include "graph/op.h"
#include "graph/ops/op_helpers.h"
#include "graph/param.h"
#include "graph/shape.h"

namespace symx {
namespace {

absl::StatusOr<OpParamPtr> ParseDropout(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto param = std::make_shared<DropoutParam>();
  param->p = r.Float("p", 0.5);
  if (!(param->p >= 0 && param->p < 1)) r.Fail("p", "must be in [0, 1)");
  param->mode = r.Enum("mode", {"training", "always"}, "training");
  param->axes = r.Tuple("axes", {});
  // MXNet declares cudnn_off as an optional bool, so "None" may appear in saved graphs.
  param->cudnn_off = r.BoolOrNone("cudnn_off", false);
  return r.Finish(std::move(param));
}

absl::Status DropoutInferShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                               std::vector<Shape>* out) {
  const DropoutParam& p = Param<DropoutParam>(attrs);
  SYMX_RETURN_IF_ERROR(AssignShape(in, 0, (*out)[0], "input data"));
  SYMX_RETURN_IF_ERROR(AssignShape(out, 0, (*in)[0], "output"));
  const Shape& data = (*in)[0];
  int ndim = data.ndim_known() ? data.ndim() : (*out)[1].ndim();
  if (ndim < 0) return absl::OkStatus();

  // The mask has the data's shape with every dim in `axes` set to 1.
  std::vector<bool> shared(ndim, false);
  for (int64_t a : p.axes) {
    int axis = 0;
    SYMX_RETURN_IF_ERROR(NormalizeAxis(a, ndim, "Dropout axis", &axis));
    shared[axis] = true;
  }
  if ((*out)[1].ndim() == ndim) {
    // Only the unshared dims of the data can be read back from the mask.
    Shape from_mask = data.ndim_known() ? data : Shape::UnknownDims(ndim);
    for (int d = 0; d < ndim; ++d) {
      if (!shared[d] && from_mask[d] == kUnknownDim) from_mask[d] = (*out)[1][d];
    }
    SYMX_RETURN_IF_ERROR(AssignShape(in, 0, from_mask, "input data"));
    SYMX_RETURN_IF_ERROR(AssignShape(out, 0, from_mask, "output"));
  }
  Shape mask = (*in)[0];
  for (int d = 0; d < ndim; ++d) {
    if (shared[d]) mask[d] = 1;
  }
  return AssignShape(out, 1, mask, "output mask");
}

std::vector<NodeEntry> DropoutGradient(const NodePtr& node, const std::vector<NodeEntry>& ograds) {
  if (!ograds[0].node) return {NodeEntry{}};
  return MakeBackwardNode("_backward_Dropout", node, {ograds[0], Out(node, 1)});
}

SYMX_REGISTER_OP("Dropout")
    .Describe(
        "Zeroes each element with probability p while training (always, with mode "
        "'always') and scales the rest by 1/(1-p); the mask output is hidden.")
    .SetParse(ParseDropout)
    .SetOutputNames({"output", "mask"})
    .SetNumVisibleOutputs([](const NodeAttrs&) { return 1; })
    .SetInferShape(DropoutInferShape)
    .SetInplace({{0, 0}})
    .SetGradient(DropoutGradient);

Op& backward_dropout_registration = RegisterBackwardOp(
    "_backward_Dropout", ParseDropout, {"ograd", "mask"}, [](const NodeAttrs&) { return 1; });

}  // namespace
}  // namespace symx
