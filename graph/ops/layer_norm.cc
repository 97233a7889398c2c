// Registers LayerNorm (normalization over one axis, with hidden mean/std outputs) and
// _backward_LayerNorm.
#include "graph/ops/layer_norm.h"

#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "graph/infer_util.h"
#include "graph/op.h"
#include "graph/ops/op_helpers.h"
#include "graph/param.h"
#include "graph/shape.h"

namespace symx {
namespace {

absl::StatusOr<OpParamPtr> ParseLayerNorm(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<LayerNormParam>();
  p->axis = r.Int("axis", -1);
  p->eps = r.Float("eps", 1e-5);
  if (p->eps < 0) r.Fail("eps", "must be >= 0");
  p->output_mean_var = r.Bool("output_mean_var", false);
  return r.Finish(std::move(p));
}

absl::Status LayerNormInferShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                                 std::vector<Shape>* out) {
  const LayerNormParam& p = Param<LayerNormParam>(attrs);
  SYMX_RETURN_IF_ERROR(AssignShape(in, 0, (*out)[0], "input data"));
  SYMX_RETURN_IF_ERROR(AssignShape(out, 0, (*in)[0], "output"));
  for (int i : {1, 2}) {
    const Shape& g = (*in)[i];
    if (g.ndim_known() && g.ndim() != 1) {
      return ShapeError(i == 1 ? "input gamma" : "input beta", g, "1 dim (data.shape[axis],)");
    }
  }
  // mean and std keep the data's rank, so they can also tell it.
  int ndim = (*in)[0].ndim();
  for (int i : {1, 2}) {
    if (ndim < 0) ndim = (*out)[i].ndim();
  }
  if (ndim < 0) {
    SYMX_RETURN_IF_ERROR(AssignShape(in, 2, (*in)[1], "input beta"));
    return AssignShape(in, 1, (*in)[2], "input gamma");
  }
  if (ndim == 0) return ShapeError("input data", Shape(std::vector<int64_t>{}), "at least 1 dim");
  int axis = 0;
  SYMX_RETURN_IF_ERROR(NormalizeAxis(p.axis, ndim, "LayerNorm axis", &axis));

  // Unknown data dims off the axis come from mean/std, the axis size from gamma/beta; known
  // dims stay, so conflicts are reported on the other slots.
  Shape data = (*in)[0].ndim_known() ? (*in)[0] : Shape::UnknownDims(ndim);
  for (int i : {1, 2}) {
    const Shape& stat = (*out)[i];
    if (stat.ndim() != ndim) continue;
    for (int d = 0; d < ndim; ++d) {
      if (d != axis && data[d] == kUnknownDim) data[d] = stat[d];
    }
  }
  for (int i : {1, 2}) {
    if ((*in)[i].ndim_known() && data[axis] == kUnknownDim) data[axis] = (*in)[i][0];
  }
  SYMX_RETURN_IF_ERROR(AssignShape(in, 0, data, "input data"));
  SYMX_RETURN_IF_ERROR(AssignShape(out, 0, (*in)[0], "output"));
  data = (*in)[0];

  const Shape channels{data[axis]};
  SYMX_RETURN_IF_ERROR(AssignShape(in, 1, channels, "input gamma"));
  SYMX_RETURN_IF_ERROR(AssignShape(in, 2, channels, "input beta"));
  Shape stat = data;
  stat[axis] = 1;
  SYMX_RETURN_IF_ERROR(AssignShape(out, 1, stat, "output mean"));
  return AssignShape(out, 2, stat, "output std");
}

std::vector<NodeEntry> LayerNormGradient(const NodePtr& node,
                                         const std::vector<NodeEntry>& ograds) {
  // Gradients flowing into the mean/std outputs are ignored, as MXNet does.
  if (!ograds[0].node) return std::vector<NodeEntry>(node->inputs.size());
  return MakeBackwardNode(
      "_backward_LayerNorm", node,
      {ograds[0], node->inputs[0], node->inputs[1], Out(node, 1), Out(node, 2)});
}

SYMX_REGISTER_OP("LayerNorm")
    .SetPrecisionClass(PrecisionClass::kFloat32)
    .Describe(
        "Layer normalization over `axis`: out = gamma * (x - mean) / std + beta. "
        "Outputs mean and std are hidden unless output_mean_var.")
    .SetParse(ParseLayerNorm)
    .SetInputNames({"data", "gamma", "beta"})
    .SetOutputNames({"output", "mean", "std"})
    .SetNumVisibleOutputs([](const NodeAttrs& attrs) {
      return Param<LayerNormParam>(attrs).output_mean_var ? 3 : 1;
    })
    .SetInferShape(LayerNormInferShape)
    .SetGradient(LayerNormGradient);

Op& backward_layer_norm_registration = RegisterBackwardOp("_backward_LayerNorm", ParseLayerNorm,
                                                          {"ograd", "data", "gamma", "mean", "std"},
                                                          [](const NodeAttrs&) { return 3; });

}  // namespace
}  // namespace symx
