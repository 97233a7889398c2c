// Registers BatchNorm (moving statistics as aux states, batch mean/var as hidden outputs)
// and _backward_BatchNorm.
#include "graph/ops/batch_norm.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "graph/dtype.h"
#include "graph/infer_util.h"
#include "graph/op.h"
#include "graph/ops/op_helpers.h"
#include "graph/param.h"
#include "graph/shape.h"

namespace symx {
namespace {

absl::StatusOr<OpParamPtr> ParseBatchNorm(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<BatchNormParam>();
  p->eps = r.Float("eps", 1e-3);
  if (p->eps < 0) r.Fail("eps", "must be >= 0");
  p->momentum = r.Float("momentum", 0.9);
  p->fix_gamma = r.Bool("fix_gamma", true);
  p->use_global_stats = r.Bool("use_global_stats", false);
  p->output_mean_var = r.Bool("output_mean_var", false);
  p->axis = r.Int("axis", 1);
  p->cudnn_off = r.Bool("cudnn_off", false);
  p->min_calib_range = r.OptionalFloat("min_calib_range");
  p->max_calib_range = r.OptionalFloat("max_calib_range");
  return r.Finish(std::move(p));
}

// Slots holding one value per channel: gamma, beta, moving_mean, moving_var, mean, var.
constexpr int kChannelInputs[] = {1, 2, 3, 4};
constexpr int kChannelOutputs[] = {1, 2};
const char* const kInputNames[] = {"data", "gamma", "beta", "moving_mean", "moving_var"};
const char* const kOutputNames[] = {"output", "mean", "var"};

absl::Status BatchNormInferShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                                 std::vector<Shape>* out) {
  const BatchNormParam& p = Param<BatchNormParam>(attrs);
  SYMX_RETURN_IF_ERROR(AssignShape(in, 0, (*out)[0], "input data"));
  SYMX_RETURN_IF_ERROR(AssignShape(out, 0, (*in)[0], "output"));
  const Shape& data = (*in)[0];

  // Gather the channel count from every per-channel slot and from the data's axis.
  Shape channels;
  auto gather = [&](const Shape& s, const std::string& what) -> absl::Status {
    if (s.ndim_known() && s.ndim() != 1) return ShapeError(what, s, "1 dim (channels,)");
    if (!MergeShape(&channels, s)) {
      return absl::InvalidArgumentError(absl::StrCat("Shape inconsistent for ", what,
                                                     ", Provided = ", s.ToString(),
                                                     ", inferred shape = ", channels.ToString()));
    }
    return absl::OkStatus();
  };
  // The data's axis goes first so that a conflict names the per-channel slot.
  int axis = -1;
  if (data.ndim_known()) {
    if (data.ndim() == 0) return ShapeError("input data", data, "at least 1 dim");
    SYMX_RETURN_IF_ERROR(NormalizeAxis(p.axis, data.ndim(), "BatchNorm axis", &axis));
    SYMX_RETURN_IF_ERROR(gather(Shape{data[axis]}, "input data"));
  }
  for (int i : kChannelInputs) {
    SYMX_RETURN_IF_ERROR(gather((*in)[i], absl::StrCat("input ", kInputNames[i])));
  }
  for (int i : kChannelOutputs) {
    SYMX_RETURN_IF_ERROR(gather((*out)[i], absl::StrCat("output ", kOutputNames[i])));
  }
  if (!channels.ndim_known()) return absl::OkStatus();

  for (int i : kChannelInputs) {
    SYMX_RETURN_IF_ERROR(AssignShape(in, i, channels, absl::StrCat("input ", kInputNames[i])));
  }
  for (int i : kChannelOutputs) {
    SYMX_RETURN_IF_ERROR(AssignShape(out, i, channels, absl::StrCat("output ", kOutputNames[i])));
  }
  if (axis >= 0 && !data.dim_known(axis)) {
    Shape filled = data;
    filled[axis] = channels[0];
    SYMX_RETURN_IF_ERROR(AssignShape(in, 0, filled, "input data"));
    SYMX_RETURN_IF_ERROR(AssignShape(out, 0, filled, "output"));
  }
  return absl::OkStatus();
}

// Half-precision data keeps its parameters and statistics in float32, as in MXNet.
DType ParamTypeFor(DType data) {
  return data == DType::kFloat16 || data == DType::kBFloat16 ? DType::kFloat32 : data;
}

absl::Status BatchNormInferType(const NodeAttrs& attrs, std::vector<DType>* in,
                                std::vector<DType>* out) {
  SYMX_RETURN_IF_ERROR(AssignType(in, 0, (*out)[0], "input data"));
  SYMX_RETURN_IF_ERROR(AssignType(out, 0, (*in)[0], "output"));
  DType data = (*in)[0];
  if (data == DType::kUnknown) return absl::OkStatus();
  DType param = ParamTypeFor(data);
  for (int i : kChannelInputs) {
    SYMX_RETURN_IF_ERROR(AssignType(in, i, param, absl::StrCat("input ", kInputNames[i])));
  }
  for (int i : kChannelOutputs) {
    SYMX_RETURN_IF_ERROR(AssignType(out, i, param, absl::StrCat("output ", kOutputNames[i])));
  }
  return absl::OkStatus();
}

std::vector<NodeEntry> BatchNormGradient(const NodePtr& node,
                                         const std::vector<NodeEntry>& ograds) {
  // Gradients flowing into the mean/var outputs are ignored, as MXNet does.
  if (!ograds[0].node) return std::vector<NodeEntry>(node->inputs.size());
  const std::vector<NodeEntry>& x = node->inputs;
  std::vector<NodeEntry> grads =
      MakeBackwardNode("_backward_BatchNorm", node,
                       {ograds[0], x[0], x[1], x[2], Out(node, 1), Out(node, 2), x[3], x[4]});
  grads.resize(node->inputs.size());  // aux states get no gradient
  return grads;
}

SYMX_REGISTER_OP("BatchNorm")
    .SetPrecisionClass(PrecisionClass::kFloat32)
    .Describe(
        "Batch normalization over all axes but `axis`; keeps moving_mean/moving_var "
        "as auxiliary states. Outputs mean and var are hidden unless output_mean_var.")
    .SetParse(ParseBatchNorm)
    .SetInputNames({"data", "gamma", "beta", "moving_mean", "moving_var"})
    .SetAuxInputs([](const NodeAttrs&) {
      return std::vector<int>{3, 4};
    })
    .SetOutputNames({"output", "mean", "var"})
    .SetNumVisibleOutputs([](const NodeAttrs& attrs) {
      return Param<BatchNormParam>(attrs).output_mean_var ? 3 : 1;
    })
    // Moving statistics start as mean 0, variance 1 (MXNet's initializer hints).
    .SetInputVarAttrs([](const NodeAttrs&, int input, AttrMap* var_attrs) {
      if (input == 3) var_attrs->emplace("__init__", "[\"zero\", {}]");
      if (input == 4) var_attrs->emplace("__init__", "[\"one\", {}]");
    })
    .SetInferShape(BatchNormInferShape)
    .SetInferType(BatchNormInferType)
    .SetGradient(BatchNormGradient);

Op& backward_batch_norm_registration = RegisterBackwardOp(
    "_backward_BatchNorm", ParseBatchNorm,
    {"ograd", "data", "gamma", "beta", "mean", "var", "moving_mean", "moving_var"},
    [](const NodeAttrs&) { return 3; });

}  // namespace
}  // namespace symx
