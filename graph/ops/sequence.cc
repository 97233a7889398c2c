// The sequence family: SequenceMask (alias _npx_sequence_mask), SequenceLast
// and SequenceReverse, with _backward_SequenceLast.
//
// Facts checked against a live MXNet 1.9.1:
// - data has 2+ dims; axis 0 is (time, batch, ...), axis 1 (batch, time, ...)
//   (SequenceMask and SequenceLast; SequenceReverse takes axis 0 only).
//   sequence_length is an input iff use_sequence_length, shape (batch), of any
//   numeric dtype; when its dtype is unknown it takes data's. A length is
//   truncated toward zero (1.7 reads 1).
// - value is a float parameter: it is rounded to float32 first, then to the
//   data's dtype (through an integer for integer data: -1 in uint8 is 255).
// - Gradients: SequenceMask's is the head gradient masked with 0, SequenceReverse's
//   the head gradient reversed alike, SequenceLast's the head gradient placed
//   at each sequence's last step; sequence_length has none.
// - MXNet reads and writes out of bounds for lengths outside the data: symx
//   clamps SequenceMask's and SequenceReverse's lengths to [0, time steps]
//   (a negative length masks everything and reverses nothing, a longer one
//   masks nothing and reverses all steps) and refuses SequenceLast's lengths
//   outside [1, time steps], naming the entry.
#include "graph/ops/sequence.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/infer_util.h"
#include "graph/op.h"
#include "graph/ops/op_helpers.h"

namespace symx {
namespace {

enum class SeqOp { kMask, kLast, kReverse };

absl::StatusOr<OpParamPtr> ParseSequence(const AttrMap& attrs, SeqOp op) {
  ParamReader r(attrs);
  auto p = std::make_shared<SequenceParam>();
  p->use_sequence_length = r.Bool("use_sequence_length", false);
  const int64_t axis = r.Int("axis", 0);
  if (op == SeqOp::kReverse) {
    if (axis != 0) r.Fail("axis", "SequenceReverse supports axis 0 only");
  } else if (axis != 0 && axis != 1) {
    r.Fail("axis", "must be 0 or 1");
  }
  p->axis = static_cast<int>(axis);
  // A float parameter in MXNet: rounded to float32 before it meets the data.
  if (op == SeqOp::kMask) p->value = static_cast<float>(r.Float("value", 0));
  return r.Finish(std::move(p));
}

absl::StatusOr<OpParamPtr> ParseMask(const AttrMap& a) { return ParseSequence(a, SeqOp::kMask); }
absl::StatusOr<OpParamPtr> ParseLast(const AttrMap& a) { return ParseSequence(a, SeqOp::kLast); }
absl::StatusOr<OpParamPtr> ParseReverse(const AttrMap& a) {
  return ParseSequence(a, SeqOp::kReverse);
}

const SequenceParam& SeqParam(const NodeAttrs& attrs) { return Param<SequenceParam>(attrs); }

std::vector<std::string> SequenceInputs(const NodeAttrs& attrs) {
  if (SeqParam(attrs).use_sequence_length) return {"data", "sequence_length"};
  return {"data"};
}

absl::Status CheckSequenceData(const std::vector<Shape>& in) {
  const Shape& d = in[0];
  if (d.ndim_known() && d.ndim() < 2) {
    return ShapeError("input data", d, "2 or more dims (time and batch first, in axis's order)");
  }
  return absl::OkStatus();
}

absl::Status InferSequenceLength(const NodeAttrs& attrs, std::vector<Shape>* in) {
  const auto& p = SeqParam(attrs);
  const Shape& d = (*in)[0];
  if (!p.use_sequence_length || !d.ndim_known()) return absl::OkStatus();
  const int batch_axis = p.axis == 0 ? 1 : 0;
  if (!d.dim_known(batch_axis)) return absl::OkStatus();
  return AssignShape(in, 1, Shape{d[batch_axis]}, "input sequence_length");
}

// SequenceMask and SequenceReverse: the output is data's shape.
absl::Status InferSameAsData(const NodeAttrs& attrs, std::vector<Shape>* in,
                             std::vector<Shape>* out) {
  SYMX_RETURN_IF_ERROR(CheckSequenceData(*in));
  if ((*in)[0].ndim_known()) {
    SYMX_RETURN_IF_ERROR(AssignShape(out, 0, (*in)[0], "output"));
  } else if ((*out)[0].ndim_known()) {
    SYMX_RETURN_IF_ERROR(AssignShape(in, 0, (*out)[0], "input data"));
  }
  SYMX_RETURN_IF_ERROR(CheckSequenceData(*in));
  return InferSequenceLength(attrs, in);
}

// SequenceLast: data without its time axis, (batch, rest...).
absl::Status InferLastShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                            std::vector<Shape>* out) {
  SYMX_RETURN_IF_ERROR(CheckSequenceData(*in));
  const Shape& d = (*in)[0];
  if (d.ndim_known()) {
    const int time_axis = SeqParam(attrs).axis;
    std::vector<int64_t> dims;
    for (int i = 0; i < d.ndim(); ++i) {
      if (i != time_axis) dims.push_back(d[i]);
    }
    SYMX_RETURN_IF_ERROR(AssignShape(out, 0, Shape(std::move(dims)), "output"));
  }
  return InferSequenceLength(attrs, in);
}

// The output and a missing sequence_length dtype follow data (MXNet); data
// may also be inferred from the output.
absl::Status InferSequenceType(const NodeAttrs& attrs, std::vector<DType>* in,
                               std::vector<DType>* out) {
  if ((*in)[0] == DType::kUnknown && (*out)[0] != DType::kUnknown) {
    SYMX_RETURN_IF_ERROR(AssignType(in, 0, (*out)[0], "input data"));
  }
  const DType d = (*in)[0];
  if (d == DType::kUnknown) return absl::OkStatus();
  SYMX_RETURN_IF_ERROR(AssignType(out, 0, d, "output"));
  if (in->size() > 1 && (*in)[1] == DType::kUnknown) (*in)[1] = d;
  return absl::OkStatus();
}

// The gradient of data is the forward op applied to the head gradient (the
// mask's fill 0); sequence_length has none.
std::vector<NodeEntry> SelfGradient(const NodePtr& node, const std::vector<NodeEntry>& og) {
  std::vector<NodeEntry> grads(node->inputs.size());
  if (!og[0].node) return grads;
  std::vector<NodeEntry> inputs = {og[0]};
  if (node->inputs.size() > 1) inputs.push_back(node->inputs[1]);
  AttrMap attrs = node->attrs.dict;
  if (node->op()->name() == "SequenceMask") attrs["value"] = "0";
  grads[0] = MakeInternalEntry(node->op()->name(), node->attrs.name + "_backward",
                               std::move(inputs), std::move(attrs));
  return grads;
}

std::vector<NodeEntry> LastGradient(const NodePtr& node, const std::vector<NodeEntry>& og) {
  std::vector<NodeEntry> grads(node->inputs.size());
  if (!og[0].node) return grads;
  // data's shape is the gradient's own: only the lengths are read.
  std::vector<NodeEntry> inputs = {og[0]};
  if (node->inputs.size() > 1) inputs.push_back(node->inputs[1]);
  grads[0] = MakeBackwardNode("_backward_SequenceLast", node, std::move(inputs))[0];
  return grads;
}

}  // namespace

SYMX_REGISTER_OP("SequenceMask")
    .AddAlias("_npx_sequence_mask")
    .Describe(
        "Sets the steps of each sequence past its length (input sequence_length, with "
        "use_sequence_length) to value; identity otherwise.")
    .SetParse(ParseMask)
    .SetInputNames(SequenceInputs)
    .SetIndexInputs({1})
    .SetInferShape(InferSameAsData)
    .SetInferType(InferSequenceType)
    .SetInplace({{0, 0}})
    .SetGradient(SelfGradient);

SYMX_REGISTER_OP("SequenceLast")
    .Describe(
        "The last step of each sequence (its length from sequence_length with "
        "use_sequence_length, else the time axis's size): data without its time axis.")
    .SetParse(ParseLast)
    .SetInputNames(SequenceInputs)
    .SetIndexInputs({1})
    .SetInferShape(InferLastShape)
    .SetInferType(InferSequenceType)
    .SetGradient(LastGradient);

SYMX_REGISTER_OP("SequenceReverse")
    .Describe(
        "Reverses the first sequence_length steps of each sequence along axis 0 (all steps "
        "without use_sequence_length); later steps stay in place.")
    .SetParse(ParseReverse)
    .SetInputNames(SequenceInputs)
    .SetIndexInputs({1})
    .SetInferShape(InferSameAsData)
    .SetInferType(InferSequenceType)
    .SetGradient(SelfGradient);

static Op& symx_backward_sequence_last_registration =
    RegisterBackwardOp(
        "_backward_SequenceLast", ParseLast,
        [](const NodeAttrs& attrs) {
          std::vector<std::string> names = {"ograd"};
          if (SeqParam(attrs).use_sequence_length) names.push_back("sequence_length");
          return names;
        },
        [](const NodeAttrs&) { return 1; })
        .Describe("Gradient of SequenceLast: the head gradient at each sequence's last step.");

}  // namespace symx
