// Registers the parameterized activations Activation and LeakyReLU (leaky, prelu, elu, selu,
// gelu, rrelu), the standalone hard_sigmoid and softsign, and their backward ops.
#include "graph/ops/activation.h"

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

// ---------------------------------------------------------------------------------------
// Activation

absl::StatusOr<OpParamPtr> ParseActivation(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<ActivationParam>();
  static const std::vector<std::string> kNames = {"relu", "sigmoid",  "log_sigmoid", "mish",
                                                  "tanh", "softrelu", "softsign"};
  static const ActivationType kTypes[] = {ActivationType::kRelu,       ActivationType::kSigmoid,
                                          ActivationType::kLogSigmoid, ActivationType::kMish,
                                          ActivationType::kTanh,       ActivationType::kSoftRelu,
                                          ActivationType::kSoftSign};
  p->act_type = r.Enum("act_type", kNames);
  for (size_t i = 0; i < kNames.size(); ++i) {
    if (p->act_type == kNames[i]) p->type = kTypes[i];
  }
  return r.Finish(std::move(p));
}

std::vector<NodeEntry> ActivationGradient(const NodePtr& node,
                                          const std::vector<NodeEntry>& ograds) {
  if (!ograds[0].node) return {NodeEntry{}};
  // Most derivatives come from the output alone; mish and softsign need the
  // input. Not keeping the input alive for backward lets the forward run in
  // place (relu over its FullyConnected's output) in training too, as in MXNet.
  if (!ActivationNeedsData(Param<ActivationParam>(node->attrs))) {
    return MakeBackwardNode("_backward_Activation", node, {ograds[0], Out(node)});
  }
  return MakeBackwardNode("_backward_Activation", node, {ograds[0], Out(node), node->inputs[0]});
}

SYMX_REGISTER_OP("Activation")
    .SetLayoutAgnostic()
    .Describe(
        "Elementwise activation: relu, sigmoid, tanh, softrelu (log(1 + exp(x))) or "
        "softsign (x / (1 + |x|)).")
    .SetParse(ParseActivation)
    .SetInferShape([](const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out) {
      return InferSameShape(in, out);
    })
    .SetInplace({{0, 0}})
    .SetGradient(ActivationGradient);

Op& backward_activation_registration =
    RegisterBackwardOp(
        "_backward_Activation", ParseActivation,
        [](const NodeAttrs& attrs) {
          if (!ActivationNeedsData(Param<ActivationParam>(attrs))) {
            return std::vector<std::string>{"ograd", "output"};
          }
          return std::vector<std::string>{"ograd", "output", "data"};
        },
        [](const NodeAttrs&) { return 1; })
        .SetLayoutAgnostic();

// ---------------------------------------------------------------------------------------
// LeakyReLU

absl::StatusOr<OpParamPtr> ParseLeakyReLU(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<LeakyReLUParam>();
  static const std::vector<std::string> kNames = {"leaky", "prelu", "elu", "selu", "gelu", "rrelu"};
  static const LeakyReLUType kTypes[] = {LeakyReLUType::kLeaky, LeakyReLUType::kPReLU,
                                         LeakyReLUType::kELU,   LeakyReLUType::kSELU,
                                         LeakyReLUType::kGELU,  LeakyReLUType::kRReLU};
  p->act_type = r.Enum("act_type", kNames, "leaky");
  for (size_t i = 0; i < kNames.size(); ++i) {
    if (p->act_type == kNames[i]) p->type = kTypes[i];
  }
  p->slope = r.Float("slope", 0.25);
  p->lower_bound = r.Float("lower_bound", 0.125);
  p->upper_bound = r.Float("upper_bound", 0.334);
  if (p->has_mask() && p->lower_bound > p->upper_bound) {
    r.Fail("lower_bound", "must not exceed upper_bound");
  }
  return r.Finish(std::move(p));
}

std::vector<std::string> LeakyReLUInputNames(const NodeAttrs& attrs) {
  if (Param<LeakyReLUParam>(attrs).has_gamma()) return {"data", "gamma"};
  return {"data"};
}

std::vector<std::string> LeakyReLUOutputNames(const NodeAttrs& attrs) {
  if (Param<LeakyReLUParam>(attrs).has_mask()) return {"output", "mask"};
  return {"output"};
}

absl::Status LeakyReLUInferShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                                 std::vector<Shape>* out) {
  const LeakyReLUParam& p = Param<LeakyReLUParam>(attrs);
  // data, output and (rrelu) mask share one shape.
  Shape merged = (*in)[0];
  for (size_t i = 0; i < out->size(); ++i) {
    SYMX_RETURN_IF_ERROR(AssignShape(out, i, merged, i == 0 ? "output" : "output mask"));
    merged = (*out)[i];
  }
  SYMX_RETURN_IF_ERROR(AssignShape(in, 0, merged, "input data"));
  for (size_t i = 0; i < out->size(); ++i) {
    SYMX_RETURN_IF_ERROR(AssignShape(out, i, merged, i == 0 ? "output" : "output mask"));
  }
  if (!p.has_gamma()) return absl::OkStatus();

  const Shape& data = (*in)[0];
  if (data.ndim_known() && data.ndim() < 2) {
    return ShapeError("input data", data, "at least 2 dims (batch, channel, ...) for prelu");
  }
  const Shape& gamma = (*in)[1];
  if (gamma.ndim_known() && gamma.ndim() != 1) {
    return ShapeError("input gamma", gamma, "1 dim (one slope per channel, or one for all)");
  }
  if (!data.ndim_known() || !data.dim_known(1)) return absl::OkStatus();
  // MXNet also accepts a single slope shared by all channels.
  if (gamma.ndim_known() && gamma[0] == 1) return absl::OkStatus();
  return AssignShape(in, 1, Shape{data[1]}, "input gamma");
}

std::vector<NodeEntry> LeakyReLUGradient(const NodePtr& node,
                                         const std::vector<NodeEntry>& ograds) {
  // The mask output only records rrelu's random slopes; it has no gradient of its own.
  if (!ograds[0].node) return std::vector<NodeEntry>(node->inputs.size());
  const LeakyReLUParam& p = Param<LeakyReLUParam>(node->attrs);
  std::vector<NodeEntry> inputs = {ograds[0], node->inputs[0]};
  if (p.has_gamma()) inputs.push_back(node->inputs[1]);
  inputs.push_back(Out(node, 0));
  if (p.has_mask()) inputs.push_back(Out(node, 1));
  return MakeBackwardNode("_backward_LeakyReLU", node, std::move(inputs));
}

SYMX_REGISTER_OP("LeakyReLU")
    .Describe(
        "Leaky rectifiers and relatives: leaky (slope), prelu (learned per-channel "
        "gamma), elu, selu, gelu, rrelu (random slope in [lower_bound, upper_bound] "
        "while training).")
    .SetParse(ParseLeakyReLU)
    .SetInputNames(LeakyReLUInputNames)
    .SetOutputNames(LeakyReLUOutputNames)
    .SetNumVisibleOutputs([](const NodeAttrs&) { return 1; })
    // A prelu's gamma starts at 0.25 (MXNet's initializer hint, in its text).
    .SetInputVarAttrs([](const NodeAttrs& attrs, int input, AttrMap* var_attrs) {
      if (input == 1 && Param<LeakyReLUParam>(attrs).type == LeakyReLUType::kPReLU) {
        var_attrs->emplace("__init__", "[\"Constant\", {\"value\": 0.25}]");
      }
    })
    .SetInferShape(LeakyReLUInferShape)
    .SetGradient(LeakyReLUGradient);

Op& backward_leaky_relu_registration = RegisterBackwardOp(
    "_backward_LeakyReLU", ParseLeakyReLU,
    [](const NodeAttrs& attrs) {
      const LeakyReLUParam& p = Param<LeakyReLUParam>(attrs);
      std::vector<std::string> names = {"ograd", "data"};
      if (p.has_gamma()) names.push_back("gamma");
      names.push_back("output");
      if (p.has_mask()) names.push_back("mask");
      return names;
    },
    [](const NodeAttrs& attrs) { return Param<LeakyReLUParam>(attrs).has_gamma() ? 2 : 1; });

// ---------------------------------------------------------------------------------------
// hard_sigmoid, softsign

absl::StatusOr<OpParamPtr> ParseHardSigmoid(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<HardSigmoidParam>();
  p->alpha = static_cast<float>(r.Float("alpha", 0.2));
  p->beta = static_cast<float>(r.Float("beta", 0.5));
  return r.Finish(std::move(p));
}

absl::Status SameShape(const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out) {
  return InferSameShape(in, out);
}

SYMX_REGISTER_OP("hard_sigmoid")
    .SetLayoutAgnostic()
    .Describe("Elementwise max(0, min(1, alpha x + beta)).")
    .SetParse(ParseHardSigmoid)
    .SetInputNames({"data"})
    .SetInferShape(SameShape)
    .SetInplace({{0, 0}})
    .SetGradient(UnaryBackwardGradient("_backward_hard_sigmoid", /*use_output=*/false));

SYMX_REGISTER_OP("softsign")
    .SetLayoutAgnostic()
    .Describe("Elementwise x / (1 + |x|).")
    .SetInputNames({"data"})
    .SetInferShape(SameShape)
    .SetInplace({{0, 0}})
    .SetGradient(UnaryBackwardGradient("_backward_softsign", /*use_output=*/false));

Op& backward_hard_sigmoid_registration =
    RegisterBackwardOp("_backward_hard_sigmoid", ParseHardSigmoid, {"ograd", "data"},
                       [](const NodeAttrs&) { return 1; });
Op& backward_softsign_registration = RegisterBackwardOp(
    "_backward_softsign", ParseNoParams, {"ograd", "data"}, [](const NodeAttrs&) { return 1; });

}  // namespace
}  // namespace symx
