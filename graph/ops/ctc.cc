// Registers CTCLoss (MXNet 1.9.1's connectionist temporal classification loss;
// aliases ctc_loss, _contrib_CTCLoss, _contrib_ctc_loss).
//
// Inputs: data (T, B, A) unnormalized scores (softmax is taken over A inside),
// label (B, L), then data_lengths (B,) when use_data_lengths and label_lengths
// (B,) when use_label_lengths (the input names follow the flags, as MXNet's).
// Outputs: the per-sample loss (B,) and, hidden, its gradient to data (T, B, A),
// computed in the forward pass as MXNet does; the backward scales that hidden
// gradient by the head gradient of each sample. Labels and lengths get no
// gradient.
//
// Without label_lengths a label row ends at its first padding value (0 with
// blank_label=first, -1 with blank_label=last).
#include "graph/ops/ctc.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/infer_util.h"
#include "graph/op.h"
#include "graph/ops/op_helpers.h"

namespace symx {
namespace {

absl::StatusOr<OpParamPtr> ParseCTCLoss(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<CTCLossParam>();
  p->use_data_lengths = r.Bool("use_data_lengths", false);
  p->use_label_lengths = r.Bool("use_label_lengths", false);
  p->blank_first = r.Enum("blank_label", {"first", "last"}, "first") == "first";
  return r.Finish(std::move(p));
}

// The flags, also from unparsed attributes (input names may be asked for first).
bool Flag(const NodeAttrs& attrs, const std::string& key) {
  if (attrs.parsed) {
    const auto& p = Param<CTCLossParam>(attrs);
    return key == "use_data_lengths" ? p.use_data_lengths : p.use_label_lengths;
  }
  auto it = attrs.dict.find(key);
  return it != attrs.dict.end() &&
         (it->second == "1" || it->second == "True" || it->second == "true");
}

std::vector<std::string> CTCInputNames(const NodeAttrs& attrs) {
  std::vector<std::string> names = {"data", "label"};
  if (Flag(attrs, "use_data_lengths")) names.push_back("data_lengths");
  if (Flag(attrs, "use_label_lengths")) names.push_back("label_lengths");
  return names;
}

int64_t DimOf(const Shape& s, int d) {
  return s.ndim_known() && s.dim_known(d) ? s[d] : kUnknownDim;
}

absl::Status InferCTCLoss(const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out) {
  Shape& data = (*in)[0];
  const Shape& label = (*in)[1];
  if (data.ndim_known() && data.ndim() != 3) {
    return ShapeError("input data", data, "3 dims (sequence length, batch, alphabet)");
  }
  if (label.ndim_known() && label.ndim() != 2) {
    return ShapeError("input label", label, "2 dims (batch, max label length)");
  }
  for (size_t i = 2; i < in->size(); ++i) {
    if ((*in)[i].ndim_known() && (*in)[i].ndim() != 1) {
      return ShapeError(i == 2 && in->size() == 4 ? "input data_lengths" : "input lengths",
                        (*in)[i], "1 dim (batch,)");
    }
  }
  // The hidden gradient has data's shape.
  SYMX_RETURN_IF_ERROR(AssignShape(out, 1, data, "output grad"));
  SYMX_RETURN_IF_ERROR(AssignShape(in, 0, (*out)[1], "input data"));
  int64_t b = DimOf((*in)[0], 1);
  if (b == kUnknownDim) b = DimOf((*in)[1], 0);
  if (b == kUnknownDim) b = DimOf((*out)[0], 0);
  for (size_t i = 2; i < in->size() && b == kUnknownDim; ++i) b = DimOf((*in)[i], 0);
  if (b != kUnknownDim) {
    if ((*in)[0].ndim_known()) {
      Shape d = (*in)[0];
      d[1] = b;
      SYMX_RETURN_IF_ERROR(AssignShape(in, 0, d, "input data"));
      SYMX_RETURN_IF_ERROR(AssignShape(out, 1, d, "output grad"));
    }
    if ((*in)[1].ndim_known()) {
      Shape l = (*in)[1];
      if (l.dim_known(0) && l[0] != b) {
        return absl::InvalidArgumentError(
            absl::StrCat("The batch size of input label ", l.ToString(),
                         " must equal that of input data ", (*in)[0].ToString()));
      }
      l[0] = b;
      SYMX_RETURN_IF_ERROR(AssignShape(in, 1, l, "input label"));
    }
    for (size_t i = 2; i < in->size(); ++i) {
      SYMX_RETURN_IF_ERROR(AssignShape(
          in, i, Shape{b}, i == 2 && in->size() == 4 ? "input data_lengths" : "input lengths"));
    }
  }
  SYMX_RETURN_IF_ERROR(AssignShape(out, 0, Shape{b}, "output"));
  const int64_t t = DimOf((*in)[0], 0), l = DimOf((*in)[1], 1);
  if (t != kUnknownDim && l != kUnknownDim && l > t) {
    return absl::InvalidArgumentError(absl::StrCat(
        "The max number of labels ", l, " (input label ", (*in)[1].ToString(),
        ") cannot exceed the sequence length ", t, " of input data ", (*in)[0].ToString()));
  }
  return absl::OkStatus();
}

// Outputs take data's dtype; labels and lengths keep theirs (any numeric type).
absl::Status InferCTCType(const NodeAttrs&, std::vector<DType>* in, std::vector<DType>* out) {
  DType t = (*in)[0];
  if (t == DType::kUnknown) t = (*out)[0];
  if (t == DType::kUnknown) t = (*out)[1];
  if (t == DType::kUnknown) return absl::OkStatus();
  SYMX_RETURN_IF_ERROR(AssignType(in, 0, t, "input data"));
  SYMX_RETURN_IF_ERROR(AssignType(out, 0, t, "output"));
  return AssignType(out, 1, t, "output grad");
}

std::vector<NodeEntry> CTCGradient(const NodePtr& node, const std::vector<NodeEntry>& og) {
  std::vector<NodeEntry> grads(node->inputs.size());
  if (!og[0].node) return grads;
  grads[0] = MakeBackwardNode("_backward_CTCLoss", node, {og[0], Out(node, 1)})[0];
  return grads;
}

}  // namespace

SYMX_REGISTER_OP("CTCLoss")
    .SetIndexInputs({1, 2, 3})
    .SetPrecisionClass(PrecisionClass::kFloat32LossHead)
    .Describe(
        "Connectionist temporal classification loss per sample of data (T, B, A) against "
        "label (B, L); hidden output: its gradient to data, computed in the forward pass.")
    .AddAlias("ctc_loss")
    .AddAlias("_contrib_CTCLoss")
    .AddAlias("_contrib_ctc_loss")
    .SetParse(ParseCTCLoss)
    .SetInputNames(CTCInputNames)
    .SetOutputNames({"output0", "output1"})
    .SetNumVisibleOutputs([](const NodeAttrs&) { return 1; })
    .SetInferShape(InferCTCLoss)
    .SetInferType(InferCTCType)
    .SetGradient(CTCGradient);

static Op& symx_backward_ctc_loss_registration =
    RegisterBackwardOp("_backward_CTCLoss", ParseCTCLoss, {"ograd", "grad"}, [](const NodeAttrs&) {
      return 1;
    }).Describe("Gradient of CTCLoss to data: the hidden gradient scaled per sample.");

}  // namespace symx
