// Registers _symx_fused_conv (see fused_conv.h). Shapes and dtypes follow from
// the parts' own inference: the convolution's, then the BatchNorm's on the
// convolution's output; the sum operand has the output's shape and dtype.
#include "graph/ops/fused_conv.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "graph/infer_util.h"
#include "graph/op.h"
#include "graph/ops/activation.h"

namespace symx {
namespace {

constexpr char kBnPrefix[] = "bn.";
constexpr char kActPrefix[] = "act.";

// Parses `dict` as op `op_name`'s attributes into `attrs`; errors name the part.
absl::Status ParsePart(absl::string_view op_name, absl::string_view part, AttrMap dict,
                       NodeAttrs* attrs) {
  const Op* op = OpRegistry::Global().Find(op_name);
  if (op == nullptr) return absl::InternalError(absl::StrCat("op ", op_name, " not registered"));
  auto parsed = op->Parse(dict);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the fused ", part, " (", op_name, "): ", parsed.status().message()));
  }
  attrs->op = op;
  attrs->dict = std::move(dict);
  attrs->parsed = *std::move(parsed);
  return absl::OkStatus();
}

absl::StatusOr<OpParamPtr> ParseFusedConv(const AttrMap& attrs) {
  AttrMap conv, bn, act;
  AttrMap own;  // with_bn, with_sum, act
  for (const auto& [key, value] : attrs) {
    if (absl::StartsWith(key, kBnPrefix)) {
      bn[key.substr(sizeof(kBnPrefix) - 1)] = value;
    } else if (absl::StartsWith(key, kActPrefix)) {
      act[key.substr(sizeof(kActPrefix) - 1)] = value;
    } else if (key == "with_bn" || key == "with_sum" || key == "act") {
      own[key] = value;
    } else if (!IsDunderKey(key)) {
      conv[key] = value;
    }
  }
  ParamReader r(own);
  auto p = std::make_shared<FusedConvParam>();
  p->with_bn = r.Bool("with_bn", false);
  p->with_sum = r.Bool("with_sum", false);
  const std::string act_op = r.Enum("act", {"none", "Activation", "clip"}, "none");
  SYMX_RETURN_IF_ERROR(r.Finish(std::make_shared<OpParam>()).status());
  SYMX_RETURN_IF_ERROR(ParsePart("Convolution", "convolution", std::move(conv), &p->conv));
  // (Convolution accepts channel-first layouts only.)
  if (p->with_bn) {
    SYMX_RETURN_IF_ERROR(ParsePart("BatchNorm", "BatchNorm", std::move(bn), &p->bn));
    if (p->bn_param().axis != 1 || p->bn_param().output_mean_var) {
      return absl::InvalidArgumentError(
          "the fused BatchNorm must normalize axis 1 and not output its mean and var");
    }
  } else if (!bn.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("attribute 'bn.", bn.begin()->first, "' given without with_bn=True"));
  }
  if (act_op != "none") {
    SYMX_RETURN_IF_ERROR(ParsePart(act_op, "activation", std::move(act), &p->act));
    if (act_op == "Activation") {
      const ActivationType t = Param<ActivationParam>(p->act).type;
      if (t != ActivationType::kRelu && t != ActivationType::kSigmoid &&
          t != ActivationType::kTanh && t != ActivationType::kSoftRelu) {
        return absl::InvalidArgumentError(
            absl::StrCat("the fused activation takes act_type relu, sigmoid, tanh or softrelu, "
                         "not ",
                         Param<ActivationParam>(p->act).act_type));
      }
    }
  } else if (!act.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("attribute 'act.", act.begin()->first, "' given without act"));
  }
  return OpParamPtr(std::move(p));
}

std::vector<std::string> FusedConvInputNames(const NodeAttrs& attrs) {
  const auto& p = Param<FusedConvParam>(attrs);
  std::vector<std::string> names = p.conv.op->InputNames(p.conv);
  if (p.with_bn) {
    for (const char* n : {"gamma", "beta", "moving_mean", "moving_var"}) names.push_back(n);
  }
  if (p.with_sum) names.push_back("sum");
  return names;
}

absl::Status FusedConvInferShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                                 std::vector<Shape>* out) {
  const auto& p = Param<FusedConvParam>(attrs);
  const int b = p.bn_input(), s = p.sum_input();
  if (p.with_sum) {
    SYMX_RETURN_IF_ERROR(AssignShape(out, 0, (*in)[s], "output"));
    SYMX_RETURN_IF_ERROR(AssignShape(in, s, (*out)[0], "input sum"));
  }
  std::vector<Shape> conv_in(in->begin(), in->begin() + b);
  SYMX_RETURN_IF_ERROR(p.conv.op->infer_shape()(p.conv, &conv_in, out));
  std::copy(conv_in.begin(), conv_in.end(), in->begin());
  if (p.with_bn) {
    std::vector<Shape> bn_in = {(*out)[0], (*in)[b], (*in)[b + 1], (*in)[b + 2], (*in)[b + 3]};
    std::vector<Shape> bn_out = {(*out)[0], Shape(), Shape()};
    SYMX_RETURN_IF_ERROR(p.bn.op->infer_shape()(p.bn, &bn_in, &bn_out));
    for (int i = 1; i < 5; ++i) (*in)[b + i - 1] = bn_in[i];
  }
  if (p.with_sum) SYMX_RETURN_IF_ERROR(AssignShape(in, s, (*out)[0], "input sum"));
  return absl::OkStatus();
}

absl::Status FusedConvInferType(const NodeAttrs& attrs, std::vector<DType>* in,
                                std::vector<DType>* out) {
  const auto& p = Param<FusedConvParam>(attrs);
  const int b = p.bn_input(), s = p.sum_input();
  if (p.with_sum) {
    SYMX_RETURN_IF_ERROR(AssignType(out, 0, (*in)[s], "output"));
    SYMX_RETURN_IF_ERROR(AssignType(in, s, (*out)[0], "input sum"));
  }
  std::vector<DType> conv_in(in->begin(), in->begin() + b);
  SYMX_RETURN_IF_ERROR(p.conv.op->infer_type()(p.conv, &conv_in, out));
  std::copy(conv_in.begin(), conv_in.end(), in->begin());
  if (p.with_bn) {
    std::vector<DType> bn_in = {(*out)[0], (*in)[b], (*in)[b + 1], (*in)[b + 2], (*in)[b + 3]};
    std::vector<DType> bn_out = {(*out)[0], DType::kUnknown, DType::kUnknown};
    SYMX_RETURN_IF_ERROR(p.bn.op->infer_type()(p.bn, &bn_in, &bn_out));
    for (int i = 1; i < 5; ++i) (*in)[b + i - 1] = bn_in[i];
  }
  if (p.with_sum) SYMX_RETURN_IF_ERROR(AssignType(in, s, (*out)[0], "input sum"));
  return absl::OkStatus();
}

SYMX_REGISTER_OP(kFusedConvOp)
    .Describe(
        "Convolution followed by BatchNorm (moving statistics), a sum with another tensor and "
        "an activation, in one step: made by the inference fusion of binds that compute no "
        "gradient (it has none itself). With is_train a BatchNorm that uses batch statistics "
        "runs unfused, updating its moving statistics as BatchNorm does.")
    .SetInferenceOnly()
    .SetParse(ParseFusedConv)
    .SetInputNames(FusedConvInputNames)
    .SetAuxInputs([](const NodeAttrs& attrs) {
      const auto& p = Param<FusedConvParam>(attrs);
      if (!p.with_bn) return std::vector<int>{};
      return std::vector<int>{p.bn_input() + 2, p.bn_input() + 3};
    })
    .SetInferShape(FusedConvInferShape)
    .SetInferType(FusedConvInferType)
    .SetInplace([](const NodeAttrs& attrs) {
      const auto& p = Param<FusedConvParam>(attrs);
      if (!p.with_sum) return std::vector<std::pair<int, int>>{};
      return std::vector<std::pair<int, int>>{{p.sum_input(), 0}};
    });

}  // namespace

AttrMap FusedConvAttrs(const AttrMap& conv, const AttrMap* bn, bool with_sum, const Node* act) {
  AttrMap out = conv;
  if (bn != nullptr) {
    out["with_bn"] = "True";
    for (const auto& [k, v] : *bn) {
      if (!IsDunderKey(k)) out[absl::StrCat(kBnPrefix, k)] = v;
    }
  }
  if (with_sum) out["with_sum"] = "True";
  if (act != nullptr) {
    out["act"] = act->op()->name();
    for (const auto& [k, v] : act->attrs.dict) {
      if (!IsDunderKey(k)) out[absl::StrCat(kActPrefix, k)] = v;
    }
  }
  return out;
}

}  // namespace symx
