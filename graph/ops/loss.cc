// Registers the loss heads: SoftmaxOutput, the three regression outputs and MakeLoss. Their
// forward output has data's shape; their backward starts the gradient from the output and the
// label alone (no head gradient), the label's own gradient being zero.
//
// SoftmaxOutput's out_grad=True (scale the loss gradient by a head gradient) is rejected at
// parse time: symx treats every loss head as consuming no head gradient.
//
// SVMOutput is a loss head of the same kind: the identity forward, the L1- or L2-SVM gradient
// of (data, label) backward (MXNet 1.9.1 reads data with more than 2 dims inconsistently; here
// the label holds one class per row of the last axis, which is MXNet's meaning for 2-D data).
//
// Not loss heads: softmax_cross_entropy (the summed cross entropy of softmax(data) against
// integer labels, one value; its gradient scales softmax - onehot by the head gradient) and
// IdentityAttachKLSparseReg (the identity forward; its backward adds the gradient of a KL
// sparseness penalty on the per-channel mean activation, whose moving average it keeps in the
// aux state moving_avg, updated by each backward pass as MXNet's).
#include "graph/ops/loss.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/infer_util.h"
#include "graph/op.h"
#include "graph/ops/op_helpers.h"

namespace symx {
namespace {

const std::vector<std::string>& NormalizationChoices() {
  static const auto* choices = new std::vector<std::string>{"null", "batch", "valid"};
  return *choices;
}

// The output is data itself, transformed elementwise: share what either side knows.
absl::Status MergeDataAndOutput(std::vector<Shape>* in, std::vector<Shape>* out) {
  SYMX_RETURN_IF_ERROR(AssignShape(out, 0, (*in)[0], "output"));
  return AssignShape(in, 0, (*out)[0], "input data");
}

// A label shape a loss head accepts for its data: label dim j is data dim from[j], or has no
// single data dim behind it (-1).
struct LabelShape {
  Shape shape;
  std::vector<int> from;
};

// The label shaped exactly like data.
LabelShape LikeData(const Shape& data) {
  LabelShape c{data, {}};
  for (int i = 0; i < data.ndim(); ++i) c.from.push_back(i);
  return c;
}

// `c` without its label dim j.
LabelShape DropDim(LabelShape c, int j) {
  std::vector<int64_t> dims = c.shape.dims();
  dims.erase(dims.begin() + j);
  c.shape = Shape(std::move(dims));
  c.from.erase(c.from.begin() + j);
  return c;
}

// Merges the first of `candidates` (the preferred one first) that fits the label, then gives
// the label's dims back to data and the output. Errors name the label and what it could be.
absl::Status AssignLabel(const std::vector<LabelShape>& candidates, std::vector<Shape>* in,
                         std::vector<Shape>* out) {
  for (const LabelShape& c : candidates) {
    Shape label = (*in)[1];
    if (!MergeShape(&label, c.shape)) continue;
    (*in)[1] = label;
    Shape data = (*in)[0];
    for (size_t j = 0; j < c.from.size(); ++j) {
      if (c.from[j] >= 0 && label.dim_known(j)) data[c.from[j]] = label[j];
    }
    SYMX_RETURN_IF_ERROR(AssignShape(in, 0, data, "input data"));
    return AssignShape(out, 0, (*in)[0], "output");
  }
  std::vector<std::string> accepted;
  for (const LabelShape& c : candidates) accepted.push_back(c.shape.ToString());
  return absl::InvalidArgumentError(absl::StrCat(
      "Shape inconsistent for input label, Provided = ", (*in)[1].ToString(),
      ", inferred shape = ", candidates[0].shape.ToString(), " (for data ", (*in)[0].ToString(),
      "; accepted label shapes: ", absl::StrJoin(accepted, ", "), ")"));
}

// Every loss op: the gradient comes from one backward op over (output, label) whose output i
// is the gradient of input i.
std::vector<NodeEntry> LossGradient(const NodePtr& node, const std::vector<NodeEntry>&) {
  return MakeBackwardNode(absl::StrCat("_backward_", node->op()->name()), node,
                          {Out(node, 0), node->inputs[1]});
}

int TwoGrads(const NodeAttrs&) { return 2; }

// ----------------------------------------------------------------------------- SoftmaxOutput

absl::StatusOr<OpParamPtr> ParseSoftmaxOutput(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<SoftmaxOutputParam>();
  p->grad_scale = r.Float("grad_scale", 1);
  p->ignore_label = r.Float("ignore_label", -1);
  p->multi_output = r.Bool("multi_output", false);
  p->use_ignore = r.Bool("use_ignore", false);
  p->preserve_shape = r.Bool("preserve_shape", false);
  p->normalization = r.Enum("normalization", NormalizationChoices(), "null");
  p->out_grad = r.Bool("out_grad", false);
  p->smooth_alpha = r.Float("smooth_alpha", 0);
  if (p->out_grad) {
    r.Fail("out_grad", "out_grad=True (scaling by a head gradient) is not supported by symx");
  }
  if (p->smooth_alpha < 0 || p->smooth_alpha > 1) r.Fail("smooth_alpha", "must be in [0, 1]");
  return r.Finish(std::move(p));
}

// Label shapes SoftmaxOutput accepts for `data` (at least 2-D), the one it infers first. A
// label shaped like data holds per-class probabilities.
std::vector<LabelShape> SoftmaxLabelShapes(const SoftmaxOutputParam& p, const Shape& data) {
  const int n = data.ndim();
  if (!p.multi_output) {
    // (N, C) -> (N,); with preserve_shape (.., C) -> (..).
    return {DropDim(LikeData(data), n - 1), LikeData(data)};
  }
  // (N, C, x..): MXNet infers the label flattened, (N, prod x..), and also
  // accepts it as (N, x..) or (N, 1, x..).
  LabelShape by_position = DropDim(LikeData(data), 1);
  int64_t flat = 1;
  for (int i = 2; i < n; ++i) {
    if (!data.dim_known(i) || __builtin_mul_overflow(flat, data[i], &flat)) {
      flat = kUnknownDim;
      break;
    }
  }
  LabelShape flattened{Shape{data[0], flat}, {0, n == 3 ? 2 : -1}};
  LabelShape with_one = LikeData(data);
  with_one.shape[1] = 1;
  with_one.from[1] = -1;
  return {flattened, by_position, with_one, LikeData(data)};
}

absl::Status InferSoftmaxOutput(const NodeAttrs& attrs, std::vector<Shape>* in,
                                std::vector<Shape>* out) {
  SYMX_RETURN_IF_ERROR(MergeDataAndOutput(in, out));
  const Shape data = (*in)[0];
  if (!data.ndim_known()) return absl::OkStatus();
  if (data.ndim() < 2) return ShapeError("input data", data, "at least 2 dims (N, C, ...)");
  return AssignLabel(SoftmaxLabelShapes(Param<SoftmaxOutputParam>(attrs), data), in, out);
}

// ----------------------------------------------------------------------------- regression

absl::StatusOr<OpParamPtr> ParseRegression(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<RegressionParam>();
  p->grad_scale = r.Float("grad_scale", 1);
  return r.Finish(std::move(p));
}

// The label has data's shape, or (N,) for data (N, 1). Like MXNet, any label with data's
// first dim and element count is accepted once both are known.
absl::Status InferRegression(const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out) {
  SYMX_RETURN_IF_ERROR(MergeDataAndOutput(in, out));
  const Shape data = (*in)[0];
  if (!data.ndim_known()) return absl::OkStatus();
  if (data.ndim() < 1) return ShapeError("input data", data, "at least 1 dim (N, ...)");
  const Shape label = (*in)[1];
  // For data (N, ?) the label may yet be (N,) or (N, ?): wait until data's second dim is known.
  if (data.ndim() == 2 && !data.dim_known(1) && !label.ndim_known()) return absl::OkStatus();
  std::vector<LabelShape> candidates = {LikeData(data)};
  if (data.ndim() == 2 && data[1] == 1) {
    candidates.insert(candidates.begin(), LabelShape{Shape{data[0]}, {0}});
  }
  absl::Status preferred = AssignLabel(candidates, in, out);
  if (preferred.ok() || label.ndim() < 1) return preferred;
  // MXNet's looser rule: the same first dim and element count.
  if (label.dim_known(0) && data.dim_known(0) && label[0] != data[0]) return preferred;
  Shape filled_label = label, filled_data = data;
  if (!label.dim_known(0)) filled_label[0] = data[0];
  if (!data.dim_known(0)) filled_data[0] = label[0];
  if (filled_data.fully_known() && filled_label.fully_known()) {
    int64_t a = 1, b = 1;
    bool overflow = false;
    for (int64_t x : filled_data.dims()) overflow |= __builtin_mul_overflow(a, x, &a);
    for (int64_t x : filled_label.dims()) overflow |= __builtin_mul_overflow(b, x, &b);
    if (overflow || a != b) return preferred;
  }
  SYMX_RETURN_IF_ERROR(AssignShape(in, 1, filled_label, "input label"));
  SYMX_RETURN_IF_ERROR(AssignShape(in, 0, filled_data, "input data"));
  return AssignShape(out, 0, (*in)[0], "output");
}

// ----------------------------------------------------------------------------- MakeLoss

absl::StatusOr<OpParamPtr> ParseMakeLoss(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<MakeLossParam>();
  p->grad_scale = r.Float("grad_scale", 1);
  p->valid_thresh = r.Float("valid_thresh", 0);
  p->normalization = r.Enum("normalization", NormalizationChoices(), "null");
  return r.Finish(std::move(p));
}

// d(loss)/d(data) is grad_scale (normalized) everywhere: only the forward node is needed,
// except for normalization=valid, which divides by the number of loss values above
// valid_thresh and so reads the forward output (data itself).
bool MakeLossNeedsOutput(const NodeAttrs& attrs) {
  if (attrs.parsed) return Param<MakeLossParam>(attrs).normalization == "valid";
  // Input names may be asked for before the attributes are parsed.
  auto it = attrs.dict.find("normalization");
  return it != attrs.dict.end() && it->second == "valid";
}

std::vector<NodeEntry> MakeLossGradient(const NodePtr& node, const std::vector<NodeEntry>&) {
  if (MakeLossNeedsOutput(node->attrs)) {
    return MakeBackwardNode("_backward_MakeLoss", node, {Out(node, 0)});
  }
  return MakeBackwardNode("_backward_MakeLoss", node, {});
}

}  // namespace

SYMX_REGISTER_OP("SoftmaxOutput")
    .SetIndexInputs({1})
    .SetPrecisionClass(PrecisionClass::kFloat32LossHead)
    .Describe(
        "Softmax over the class axis (axis 1 with multi_output, the last with preserve_shape) "
        "whose backward is the cross-entropy gradient against `label`.")
    .AddAlias("Softmax")
    .SetParse(ParseSoftmaxOutput)
    .SetInputNames({"data", "label"})
    .SetInferShape(InferSoftmaxOutput)
    .SetInplace({{0, 0}})
    .SetLoss()
    .SetGradient(LossGradient);

static Op& symx_backward_softmax_output_registration =
    RegisterBackwardOp("_backward_SoftmaxOutput", ParseSoftmaxOutput, {"output", "label"}, TwoGrads)
        .Describe("Gradient of SoftmaxOutput: (output - label) scaled; the label's is zero.");

// The three regression heads differ only in their backward kernels.
bool RegisterRegressionOutput(const std::string& name, const std::string& forward,
                              const std::string& loss) {
  OpRegistry::Global()
      .Register(name)
      .Describe(
          absl::StrCat(forward, " whose backward is the ", loss, " gradient against `label`."))
      .SetParse(ParseRegression)
      .SetInputNames({"data", "label"})
      .SetInferShape(InferRegression)
      .SetInplace({{0, 0}})
      .SetLoss()
      .SetIndexInputs({1})
      .SetPrecisionClass(PrecisionClass::kFloat32LossHead)
      .SetGradient(LossGradient);
  RegisterBackwardOp("_backward_" + name, ParseRegression, {"output", "label"}, TwoGrads)
      .Describe(absl::StrCat("Gradient of ", name, "; the label's is zero."));
  return true;
}

static const bool symx_regression_outputs_registered =
    RegisterRegressionOutput("LinearRegressionOutput", "Identity", "squared-error") &&
    RegisterRegressionOutput("LogisticRegressionOutput", "Sigmoid", "log-loss") &&
    RegisterRegressionOutput("MAERegressionOutput", "Identity", "absolute-error");

SYMX_REGISTER_OP("MakeLoss")
    .SetPrecisionClass(PrecisionClass::kFloat32LossHead)
    .Describe("Identity that marks its input as a loss: the backward starts from grad_scale.")
    .AddAlias("make_loss")
    .SetParse(ParseMakeLoss)
    .SetInferShape([](const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out) {
      return InferSameShape(in, out);
    })
    .SetInplace({{0, 0}})
    .SetLoss()
    .SetGradient(MakeLossGradient);

static Op& symx_backward_make_loss_registration =
    RegisterBackwardOp(
        "_backward_MakeLoss", ParseMakeLoss,
        [](const NodeAttrs& attrs) {
          return MakeLossNeedsOutput(attrs) ? std::vector<std::string>{"output"}
                                            : std::vector<std::string>{};
        },
        [](const NodeAttrs&) { return 1; })
        .Describe(
            "Gradient of MakeLoss: grad_scale (normalized) in data's shape; no inputs, except "
            "the forward output with normalization=valid.");

// ----------------------------------------------------------------------------- SVMOutput

namespace {

absl::StatusOr<OpParamPtr> ParseSVMOutput(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<SVMOutputParam>();
  p->margin = static_cast<float>(r.Float("margin", 1));
  p->regularization_coefficient = static_cast<float>(r.Float("regularization_coefficient", 1));
  p->use_linear = r.Bool("use_linear", false);
  return r.Finish(std::move(p));
}

// label = data's dims but the last (one class per row); the output is data.
absl::Status InferSVMOutput(const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out) {
  SYMX_RETURN_IF_ERROR(MergeDataAndOutput(in, out));
  const Shape& data = (*in)[0];
  if (!data.ndim_known()) return absl::OkStatus();
  if (data.ndim() < 2) {
    return ShapeError("input data", data, "at least 2 dims (rows of class scores)");
  }
  std::vector<int64_t> dims(data.dims().begin(), data.dims().end() - 1);
  LabelShape c{Shape(dims), {}};
  for (int i = 0; i + 1 < data.ndim(); ++i) c.from.push_back(i);
  return AssignLabel({c}, in, out);
}

}  // namespace

SYMX_REGISTER_OP("SVMOutput")
    .Describe(
        "Identity forward; backward, the L2-SVM (or, with use_linear, L1-SVM) gradient of the "
        "scores against class `label` with `margin`, scaled by regularization_coefficient.")
    .SetParse(ParseSVMOutput)
    .SetInputNames({"data", "label"})
    .SetInferShape(InferSVMOutput)
    .SetInplace({{0, 0}})
    .SetLoss()
    .SetIndexInputs({1})
    .SetPrecisionClass(PrecisionClass::kFloat32LossHead)
    .SetGradient(LossGradient);

static Op& symx_backward_svm_output_registration =
    RegisterBackwardOp("_backward_SVMOutput", ParseSVMOutput, {"output", "label"}, TwoGrads)
        .Describe("Gradient of SVMOutput; the label's is zero.");

// -----------------------------------------------------------------------------
// softmax_cross_entropy

namespace {

absl::Status InferSoftmaxCrossEntropy(const NodeAttrs&, std::vector<Shape>* in,
                                      std::vector<Shape>* out) {
  const Shape& data = (*in)[0];
  const Shape& label = (*in)[1];
  if (data.ndim_known() && data.ndim() != 2) {
    return ShapeError("input data", data, "2 dims (batch, classes)");
  }
  if (label.ndim_known() && label.ndim() != 1) {
    return ShapeError("input label", label, "1 dim (batch)");
  }
  if (data.ndim_known()) SYMX_RETURN_IF_ERROR(AssignShape(in, 1, Shape{data[0]}, "input label"));
  if ((*in)[1].ndim_known() && (*in)[1].dim_known(0) && data.ndim_known()) {
    Shape d = data;
    d[0] = (*in)[1][0];
    SYMX_RETURN_IF_ERROR(AssignShape(in, 0, d, "input data"));
  }
  return AssignShape(out, 0, Shape{1}, "output");
}

std::vector<NodeEntry> SoftmaxCrossEntropyGradient(const NodePtr& node,
                                                   const std::vector<NodeEntry>& og) {
  if (!og[0].node) return ZeroGradient(node, og);
  return MakeBackwardNode("_backward_softmax_cross_entropy", node,
                          {og[0], node->inputs[0], node->inputs[1]});
}

}  // namespace

SYMX_REGISTER_OP("softmax_cross_entropy")
    .Describe(
        "sum over rows of -log(max(softmax(data)[label], 1e-8)): data (batch, classes), label "
        "(batch,) of class ids; one output value.")
    .SetInputNames({"data", "label"})
    .SetInferShape(InferSoftmaxCrossEntropy)
    .SetIndexInputs({1})
    .SetPrecisionClass(PrecisionClass::kFloat32)
    .SetGradient(SoftmaxCrossEntropyGradient);

static Op& symx_backward_softmax_cross_entropy_registration =
    RegisterBackwardOp("_backward_softmax_cross_entropy", ParseNoParams, {"ograd", "data", "label"},
                       TwoGrads)
        .Describe(
            "Gradient of softmax_cross_entropy: ograd (softmax - onehot); the label's is "
            "zero.");

// -----------------------------------------------------------------------------
// IdentityAttachKLSparseReg

namespace {

absl::StatusOr<OpParamPtr> ParseKLSparseReg(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<KLSparseRegParam>();
  const double target = r.Float("sparseness_target", 0.1);
  const double momentum = r.Float("momentum", 0.9);
  if (target < 0 || target > 1) r.Fail("sparseness_target", "must be in [0, 1]");
  if (momentum < 0 || momentum > 1) r.Fail("momentum", "must be in [0, 1]");
  p->sparseness_target = static_cast<float>(target);
  p->penalty = static_cast<float>(r.Float("penalty", 0.001));
  p->momentum = static_cast<float>(momentum);
  return r.Finish(std::move(p));
}

// The output is data; moving_avg has one entry per channel (axis 1).
absl::Status InferKLSparseReg(const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out) {
  SYMX_RETURN_IF_ERROR(MergeDataAndOutput(in, out));
  const Shape& data = (*in)[0];
  if (!data.ndim_known()) return absl::OkStatus();
  if (data.ndim() < 2) return ShapeError("input data", data, "at least 2 dims (batch, channels)");
  return AssignShape(in, 1, Shape{data[1]}, "auxiliary moving_avg");
}

std::vector<NodeEntry> KLSparseRegGradient(const NodePtr& node, const std::vector<NodeEntry>& og) {
  if (!og[0].node) return ZeroGradient(node, og);
  std::vector<NodeEntry> g = MakeBackwardNode("_backward_IdentityAttachKLSparseReg", node,
                                              {og[0], node->inputs[0], node->inputs[1]});
  g.resize(2);
  return g;
}

}  // namespace

SYMX_REGISTER_OP("IdentityAttachKLSparseReg")
    .Describe(
        "Identity forward; backward adds penalty (-target / avg + (1 - target) / (1 - avg)) to "
        "the head gradient, avg the moving average (momentum) of the per-channel mean, updated "
        "in the aux state moving_avg by each backward pass.")
    .SetParse(ParseKLSparseReg)
    .SetInputNames({"data", "moving_avg"})
    .SetAuxInputs([](const NodeAttrs&) { return std::vector<int>{1}; })
    .SetInferShape(InferKLSparseReg)
    .SetInplace({{0, 0}})
    .SetPrecisionClass(PrecisionClass::kFloat32)
    .SetGradient(KLSparseRegGradient);

static Op& symx_backward_kl_sparse_reg_registration =
    RegisterBackwardOp("_backward_IdentityAttachKLSparseReg", ParseKLSparseReg,
                       {"ograd", "data", "moving_avg"}, [](const NodeAttrs&) { return 1; })
        .Describe(
            "Gradient of IdentityAttachKLSparseReg; updates moving_avg (its third input) first.");

}  // namespace symx
