// The softmax family: softmax, log_softmax, softmin and SoftmaxActivation,
// with their backward ops (which need the forward output, not the input).
//
// Registers softmax and log_softmax along one axis, with their backward ops (which need the
// forward output, not the input).
//
// use_length=True (masking each row by a second "length" input) is rejected at parse time:
// symx has no kernel for it.
//
// Facts checked against a live MXNet 1.9.1:
// - SoftmaxActivation: mode=instance is a softmax over all but the first dim
//   (data seen as (N, rest)), mode=channel over axis 1 (data (N, C, rest),
//   at least 3 dims). Instance mode needs at least 2 dims here. The gradient is
//   the exact one of that forward. (MXNet 1.9.1 disagrees with itself for
//   instance mode on data of 3+ dims: its oneDNN forward normalizes over the last
//   axis only and its backward always uses the channel formula; on 2-D data, and
//   in channel mode, all agree.)
#include "graph/ops/softmax.h"

#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/infer_util.h"
#include "graph/op.h"
#include "graph/ops/op_helpers.h"

namespace symx {

absl::StatusOr<OpParamPtr> ParseSoftmax(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<SoftmaxParam>();
  p->axis = r.Int("axis", -1);
  p->temperature = r.OptionalFloat("temperature");
  p->dtype = r.OptionalDtype("dtype");
  p->use_length = r.Bool("use_length", false);
  if (p->temperature && (*p->temperature == 0 || !std::isfinite(*p->temperature))) {
    r.Fail("temperature", "must be a finite non-zero number");
  }
  if (p->dtype && *p->dtype != DType::kFloat16 && *p->dtype != DType::kFloat32 &&
      *p->dtype != DType::kFloat64) {
    r.Fail("dtype", "must be None, float16, float32 or float64");
  }
  if (p->use_length) {
    r.Fail("use_length", "use_length=True (a second 'length' input) is not supported by symx");
  }
  return r.Finish(std::move(p));
}

absl::Status InferSoftmaxShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                               std::vector<Shape>* out) {
  SYMX_RETURN_IF_ERROR(InferSameShape(in, out));
  const Shape& data = (*in)[0];
  if (!data.ndim_known()) return absl::OkStatus();
  int axis = 0;
  return NormalizeAxis(Param<SoftmaxParam>(attrs).axis, data.ndim(),
                       absl::StrCat(attrs.op != nullptr ? attrs.op->name() : "softmax", ": axis"),
                       &axis);
}

absl::Status InferSoftmaxType(const NodeAttrs& attrs, std::vector<DType>* in,
                              std::vector<DType>* out) {
  const auto& p = Param<SoftmaxParam>(attrs);
  if (p.dtype) return AssignType(out, 0, *p.dtype, "output");
  SYMX_RETURN_IF_ERROR(AssignType(out, 0, (*in)[0], "output"));
  return AssignType(in, 0, (*out)[0], "input data");
}

// The output may overwrite the input only when both have one type.
std::vector<std::pair<int, int>> SoftmaxInplace(const NodeAttrs& attrs) {
  if (Param<SoftmaxParam>(attrs).dtype) return {};
  return {{0, 0}};
}

namespace {

std::vector<NodeEntry> SoftmaxGradient(const NodePtr& node,
                                       const std::vector<NodeEntry>& out_grads) {
  if (!out_grads[0].node) return {NodeEntry{}};
  return MakeBackwardNode(absl::StrCat("_backward_", node->op()->name()), node,
                          {out_grads[0], Out(node, 0)});
}

}  // namespace

SYMX_REGISTER_OP("softmax")
    .SetPrecisionClass(PrecisionClass::kFloat32)
    .Describe("exp(x / temperature) normalized to sum to 1 along `axis`.")
    .SetParse(ParseSoftmax)
    .SetInferShape(InferSoftmaxShape)
    .SetInferType(InferSoftmaxType)
    .SetInplace(SoftmaxInplace)
    .SetGradient(SoftmaxGradient);

SYMX_REGISTER_OP("log_softmax")
    .SetPrecisionClass(PrecisionClass::kFloat32)
    .Describe("log(softmax(x)) along `axis`, computed stably.")
    .SetParse(ParseSoftmax)
    .SetInferShape(InferSoftmaxShape)
    .SetInferType(InferSoftmaxType)
    .SetInplace(SoftmaxInplace)
    .SetGradient(SoftmaxGradient);

static Op& symx_backward_softmax_registration =
    RegisterBackwardOp("_backward_softmax", ParseSoftmax, {"ograd", "output"},
                       [](const NodeAttrs&) { return 1; })
        .Describe("Gradient of softmax from the output gradient and the forward output.");

static Op& symx_backward_log_softmax_registration =
    RegisterBackwardOp("_backward_log_softmax", ParseSoftmax, {"ograd", "output"},
                       [](const NodeAttrs&) { return 1; })
        .Describe("Gradient of log_softmax from the output gradient and the forward output.");

namespace {

// ------------------------------------------------------------------ SoftmaxActivation

absl::StatusOr<OpParamPtr> ParseSoftmaxActivation(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<SoftmaxActivationParam>();
  p->channel = r.Enum("mode", {"channel", "instance"}, "instance") == "channel";
  return r.Finish(std::move(p));
}

absl::Status InferSoftmaxActivationShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                                         std::vector<Shape>* out) {
  SYMX_RETURN_IF_ERROR(InferSameShape(in, out));
  const Shape& d = (*in)[0];
  if (!d.ndim_known()) return absl::OkStatus();
  if (Param<SoftmaxActivationParam>(attrs).channel) {
    if (d.ndim() < 3) return ShapeError("input data", d, "at least 3 dims with mode=channel");
  } else if (d.ndim() < 2) {
    return ShapeError("input data", d, "at least 2 dims with mode=instance");
  }
  return absl::OkStatus();
}

// "<backward>"(ograd, output) for ops whose gradient needs only the forward output.
std::vector<NodeEntry> FromOutputGradient(const NodePtr& node,
                                          const std::vector<NodeEntry>& ograds) {
  if (!ograds[0].node) return {NodeEntry{}};
  return MakeBackwardNode(absl::StrCat("_backward_", node->op()->name()), node,
                          {ograds[0], Out(node, 0)});
}

// ------------------------------------------------------------------ softmin

// softmin shares softmax's schema pieces (graph/ops/softmax.h).

}  // namespace

SYMX_REGISTER_OP("SoftmaxActivation")
    .SetPrecisionClass(PrecisionClass::kFloat32)
    .Describe("Softmax over all but the first dim (mode=instance) or over axis 1 (mode=channel).")
    .SetParse(ParseSoftmaxActivation)
    .SetInferShape(InferSoftmaxActivationShape)
    .SetInplace({{0, 0}})
    .SetGradient(FromOutputGradient);

static Op& symx_backward_softmax_activation_registration =
    RegisterBackwardOp("_backward_SoftmaxActivation", ParseSoftmaxActivation, {"ograd", "output"},
                       [](const NodeAttrs&) { return 1; })
        .Describe("Gradient of SoftmaxActivation from the output gradient and the output.");

SYMX_REGISTER_OP("softmin")
    .Describe("softmax(-x / temperature) along `axis`.")
    .SetParse(ParseSoftmax)
    .SetInferShape(InferSoftmaxShape)
    .SetInferType(InferSoftmaxType)
    .SetInplace(SoftmaxInplace)
    .SetGradient(FromOutputGradient);

static Op& symx_backward_softmin_registration =
    RegisterBackwardOp("_backward_softmin", ParseSoftmax, {"ograd", "output"},
                       [](const NodeAttrs&) { return 1; })
        .Describe("Gradient of softmin from the output gradient and the forward output.");

}  // namespace symx
