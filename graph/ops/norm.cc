// The norm family: BatchNorm, LayerNorm, InstanceNorm, GroupNorm and
// L2Normalization, with their backward ops.
//
// Registers BatchNorm (moving statistics as aux states, batch mean/var as hidden outputs)
// and _backward_BatchNorm, and its variants: MXNet's legacy BatchNorm_v1 (channel axis 1,
// eps a float), _contrib_SyncBatchNorm (with ndev > 1 in training its batch statistics
// are summed over every replica of the data-parallel job, devices and ranks, by its
// kernels; elsewhere BatchNorm), and _contrib_BatchNormWithReLU (relu of
// BatchNorm's output, in one kernel). MXNet's BatchNorm_v1 and SyncBatchNorm update the
// moving statistics in their backward pass; symx does it in the training forward pass, as
// for BatchNorm, which leaves the same values after every forward-and-backward step.
//
// Registers LayerNorm (normalization over one axis, with hidden mean/std outputs) and
// _backward_LayerNorm.
//
// Facts checked against a live MXNet 1.9.1:
// - L2Normalization: out = x / sqrt(sum(x^2) + eps), the sum over all but dim 0
//   (instance), over axis 1 (channel) or over dims 2.. (spatial); channel and
//   spatial need at least 3 dims. Hidden output `norm`: instance (N,), channel
//   (N, d2, ...), spatial (N, C).
// - InstanceNorm: per (n, c) statistics over dims 2..; gamma and beta (C,);
//   hidden outputs mean and var (N, C).
// - GroupNorm: channels split into num_groups groups, statistics per (n, group)
//   over the group's channels and dims 2..; gamma and beta are per GROUP,
//   (num_groups,), exactly as MXNet 1.9.1's shape inference has them; outputs
//   mean and std = sqrt(var + eps), (N, num_groups), visible with output_mean_var.
// Head gradients on hidden or statistics outputs are ignored, as in MXNet.
#include "graph/ops/norm.h"

#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "graph/dtype.h"
#include "graph/infer_util.h"
#include "graph/op.h"
#include "graph/ops/op_helpers.h"
#include "graph/ops/softmax.h"
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

// The gradient through `backward_op` (BatchNorm's backward kernels, under the
// name whose parse function reads the forward node's attributes). With
// `relu`, the output gradient first goes through the relu of the output: it
// is selected where the output is positive, not multiplied by a 0/1 mask, so
// an infinite or NaN head gradient where the relu is off gives 0 (the
// function is constant there), as relu's own gradient and MXNet's oneDNN
// kernel do.
GradientFn BatchNormGradient(std::string backward_op, bool relu = false) {
  return [backward_op, relu](const NodePtr& node,
                             const std::vector<NodeEntry>& ograds) -> std::vector<NodeEntry> {
    // Gradients flowing into the mean/var outputs are ignored, as MXNet does.
    if (!ograds[0].node) return std::vector<NodeEntry>(node->inputs.size());
    const std::vector<NodeEntry>& x = node->inputs;
    NodeEntry g = ograds[0];
    if (relu) {
      // where(y > 0, g, 0), from forward ops so inference sizes it like any
      // other node.
      NodeEntry mask = MakeInternalEntry("_greater_scalar", node->name() + "_relu_mask",
                                         {Out(node, 0)}, {{"scalar", "0"}});
      NodeEntry zero = MakeInternalEntry("zeros_like", node->name() + "_relu_zero", {g});
      g = MakeInternalEntry("where", node->name() + "_relu_backward", {mask, g, zero});
    }
    std::vector<NodeEntry> grads = MakeBackwardNode(
        backward_op, node, {g, x[0], x[1], x[2], Out(node, 1), Out(node, 2), x[3], x[4]});
    grads.resize(node->inputs.size());  // aux states get no gradient
    return grads;
  };
}

// The legacy BatchNorm_v1: channel axis 1, eps a float (1e-3f).
absl::StatusOr<OpParamPtr> ParseBatchNormV1(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<BatchNormParam>();
  p->eps = r.Float("eps", static_cast<double>(1e-3f));
  if (p->eps < 0) r.Fail("eps", "must be >= 0");
  p->momentum = r.Float("momentum", 0.9);
  p->fix_gamma = r.Bool("fix_gamma", true);
  p->use_global_stats = r.Bool("use_global_stats", false);
  p->output_mean_var = r.Bool("output_mean_var", false);
  return r.Finish(std::move(p));
}

absl::StatusOr<OpParamPtr> ParseSyncBatchNorm(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<SyncBatchNormParam>();
  p->eps = r.Float("eps", static_cast<double>(1e-3f));
  if (p->eps < 0) r.Fail("eps", "must be >= 0");
  p->momentum = r.Float("momentum", 0.9);
  p->fix_gamma = r.Bool("fix_gamma", true);
  p->use_global_stats = r.Bool("use_global_stats", false);
  p->output_mean_var = r.Bool("output_mean_var", false);
  p->ndev = r.Int("ndev", 1);
  if (p->ndev < 1) r.Fail("ndev", "must be >= 1 (the devices sharing the batch statistics)");
  p->key = r.String("key");
  return r.Finish(std::move(p));
}

// The schema every BatchNorm variant shares but its name, parse and gradient.
Op& RegisterBatchNormLike(const std::string& name, ParseFn parse, GradientFn gradient,
                          const char* description, const char* file = __builtin_FILE()) {
  return OpRegistry::Global()
      .Register(name, file)
      .SetPrecisionClass(PrecisionClass::kFloat32)
      .Describe(description)
      .SetParse(std::move(parse))
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
      .SetGradient(std::move(gradient));
}

Op& batch_norm_v1_registration = RegisterBatchNormLike(
    "BatchNorm_v1", ParseBatchNormV1, BatchNormGradient("_backward_BatchNorm"),
    "MXNet's legacy batch normalization: BatchNorm over channel axis 1.");

Op& sync_batch_norm_registration = RegisterBatchNormLike(
    "_contrib_SyncBatchNorm", ParseSyncBatchNorm, BatchNormGradient("_backward_SyncBatchNorm"),
    "BatchNorm whose batch statistics, with ndev > 1 in training, are summed over every replica "
    "of the data-parallel job (its devices and ranks).");

Op& backward_sync_batch_norm_registration = RegisterBackwardOp(
    "_backward_SyncBatchNorm", ParseSyncBatchNorm,
    {"ograd", "data", "gamma", "beta", "mean", "var", "moving_mean", "moving_var"},
    [](const NodeAttrs&) { return 3; });

Op& batch_norm_relu_registration = RegisterBatchNormLike(
    "_contrib_BatchNormWithReLU", ParseBatchNorm, BatchNormGradient("_backward_BatchNorm", true),
    "relu(BatchNorm(data)), in one kernel.");

Op& batch_norm_registration = RegisterBatchNormLike(
    "BatchNorm", ParseBatchNorm, BatchNormGradient("_backward_BatchNorm"),
    "Batch normalization over all axes but `axis`; keeps moving_mean/moving_var as auxiliary "
    "states. Outputs mean and var are hidden unless output_mean_var.");

Op& backward_batch_norm_registration = RegisterBackwardOp(
    "_backward_BatchNorm", ParseBatchNorm,
    {"ograd", "data", "gamma", "beta", "mean", "var", "moving_mean", "moving_var"},
    [](const NodeAttrs&) { return 3; });

}  // namespace

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

namespace {

// ------------------------------------------------------------------ L2Normalization

absl::StatusOr<OpParamPtr> ParseL2Normalization(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<L2NormalizationParam>();
  p->eps = r.Float("eps", 1e-10);
  p->mode = r.Enum("mode", {"channel", "instance", "spatial"}, "instance");
  if (!(p->eps >= 0) || !std::isfinite(p->eps)) r.Fail("eps", "must be a finite number >= 0");
  return r.Finish(std::move(p));
}

absl::Status InferL2NormalizationShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                                       std::vector<Shape>* out) {
  const auto& p = Param<L2NormalizationParam>(attrs);
  SYMX_RETURN_IF_ERROR(AssignShape(in, 0, (*out)[0], "input data"));
  SYMX_RETURN_IF_ERROR(AssignShape(out, 0, (*in)[0], "output"));
  const Shape& d = (*in)[0];
  if (!d.ndim_known()) return absl::OkStatus();
  if (d.ndim() < 1) return ShapeError("input data", d, "at least 1 dim");
  std::vector<int64_t> norm;
  if (p.mode == "instance") {
    norm = {d[0]};
  } else {
    if (d.ndim() < 3) {
      return ShapeError("input data", d, absl::StrCat("at least 3 dims with mode=", p.mode));
    }
    if (p.mode == "channel") {
      norm = d.dims();
      norm.erase(norm.begin() + 1);
    } else {
      norm = {d[0], d[1]};
    }
  }
  return AssignShape(out, 1, Shape(norm), "output norm");
}

std::vector<NodeEntry> L2NormalizationGradient(const NodePtr& node,
                                               const std::vector<NodeEntry>& ograds) {
  if (!ograds[0].node) return {NodeEntry{}};
  return MakeBackwardNode("_backward_L2Normalization", node,
                          {ograds[0], Out(node, 0), Out(node, 1)});
}

// ------------------------------------------------------------------ InstanceNorm / GroupNorm

absl::StatusOr<OpParamPtr> ParseInstanceNorm(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<InstanceNormParam>();
  p->eps = r.Float("eps", 1e-3);
  if (!(p->eps >= 0) || !std::isfinite(p->eps)) r.Fail("eps", "must be a finite number >= 0");
  return r.Finish(std::move(p));
}

absl::StatusOr<OpParamPtr> ParseGroupNorm(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<GroupNormParam>();
  p->num_groups = r.Int("num_groups", 1);
  p->eps = r.Float("eps", 1e-5);
  p->output_mean_var = r.Bool("output_mean_var", false);
  if (p->num_groups < 1) r.Fail("num_groups", "must be >= 1");
  if (!(p->eps >= 0) || !std::isfinite(p->eps)) r.Fail("eps", "must be a finite number >= 0");
  return r.Finish(std::move(p));
}

// Shared by InstanceNorm (groups = channels) and GroupNorm: data (N, C, ...) with at
// least 3 dims, gamma and beta (G,), statistics outputs (N, G). `groups` < 0 means
// one group per channel.
absl::Status InferGroupedNormShape(int64_t groups, std::vector<Shape>* in,
                                   std::vector<Shape>* out) {
  SYMX_RETURN_IF_ERROR(AssignShape(in, 0, (*out)[0], "input data"));
  SYMX_RETURN_IF_ERROR(AssignShape(out, 0, (*in)[0], "output"));
  for (int i : {1, 2}) {
    const Shape& g = (*in)[i];
    if (g.ndim_known() && g.ndim() != 1) {
      return ShapeError(i == 1 ? "input gamma" : "input beta", g,
                        groups < 0 ? "1 dim (channels,)" : "1 dim (num_groups,)");
    }
  }
  if (groups > 0) {
    SYMX_RETURN_IF_ERROR(AssignShape(in, 1, Shape{groups}, "input gamma"));
    SYMX_RETURN_IF_ERROR(AssignShape(in, 2, Shape{groups}, "input beta"));
  } else {
    SYMX_RETURN_IF_ERROR(AssignShape(in, 2, (*in)[1], "input beta"));
    SYMX_RETURN_IF_ERROR(AssignShape(in, 1, (*in)[2], "input gamma"));
  }
  const Shape& d = (*in)[0];
  if (!d.ndim_known()) return absl::OkStatus();
  if (d.ndim() < 3) return ShapeError("input data", d, "at least 3 dims (batch, channel, ...)");
  if (groups < 0) {
    Shape data = d;
    if (data[1] == kUnknownDim && (*in)[1].ndim_known()) data[1] = (*in)[1][0];
    SYMX_RETURN_IF_ERROR(AssignShape(in, 0, data, "input data"));
    SYMX_RETURN_IF_ERROR(AssignShape(out, 0, data, "output"));
    SYMX_RETURN_IF_ERROR(AssignShape(in, 1, Shape{data[1]}, "input gamma"));
    SYMX_RETURN_IF_ERROR(AssignShape(in, 2, Shape{data[1]}, "input beta"));
  } else if (d[1] != kUnknownDim && d[1] % groups != 0) {
    return absl::InvalidArgumentError(absl::StrCat("GroupNorm: the channels of input data ",
                                                   d.ToString(), " (", d[1],
                                                   ") are not divisible by num_groups=", groups));
  }
  const int64_t g = groups < 0 ? (*in)[0][1] : groups;
  const Shape stat{d[0], g};
  SYMX_RETURN_IF_ERROR(AssignShape(out, 1, stat, "output mean"));
  return AssignShape(out, 2, stat, groups < 0 ? "output var" : "output std");
}

std::vector<NodeEntry> GroupedNormGradient(const NodePtr& node,
                                           const std::vector<NodeEntry>& ograds) {
  if (!ograds[0].node) return std::vector<NodeEntry>(node->inputs.size());
  return MakeBackwardNode(
      absl::StrCat("_backward_", node->op()->name()), node,
      {ograds[0], node->inputs[0], node->inputs[1], Out(node, 1), Out(node, 2)});
}

}  // namespace

SYMX_REGISTER_OP("L2Normalization")
    .SetPrecisionClass(PrecisionClass::kFloat32)
    .Describe(
        "x / sqrt(sum(x^2) + eps), summed per instance, per channel vector (axis 1) or per "
        "spatial map (dims 2..); hidden output `norm`.")
    .SetParse(ParseL2Normalization)
    .SetOutputNames({"output", "norm"})
    .SetNumVisibleOutputs([](const NodeAttrs&) { return 1; })
    .SetInferShape(InferL2NormalizationShape)
    .SetInplace({{0, 0}})
    .SetGradient(L2NormalizationGradient);

static Op& symx_backward_l2_normalization_registration =
    RegisterBackwardOp("_backward_L2Normalization", ParseL2Normalization,
                       {"ograd", "output", "norm"}, [](const NodeAttrs&) { return 1; })
        .Describe("Gradient of L2Normalization from the output and the norm.");

SYMX_REGISTER_OP("InstanceNorm")
    .SetPrecisionClass(PrecisionClass::kFloat32)
    .Describe(
        "Normalizes each (instance, channel) over dims 2..: gamma * (x - mean) / sqrt(var + "
        "eps) + beta; hidden outputs mean and var (N, C).")
    .SetParse(ParseInstanceNorm)
    .SetInputNames({"data", "gamma", "beta"})
    .SetOutputNames({"output", "mean", "var"})
    .SetNumVisibleOutputs([](const NodeAttrs&) { return 1; })
    .SetInferShape([](const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out) {
      return InferGroupedNormShape(-1, in, out);
    })
    .SetGradient(GroupedNormGradient);

static Op& symx_backward_instance_norm_registration =
    RegisterBackwardOp("_backward_InstanceNorm", ParseInstanceNorm,
                       {"ograd", "data", "gamma", "mean", "var"},
                       [](const NodeAttrs&) { return 3; })
        .Describe("Gradient of InstanceNorm for data, gamma and beta.");

SYMX_REGISTER_OP("GroupNorm")
    .SetPrecisionClass(PrecisionClass::kFloat32)
    .Describe(
        "Normalizes each (instance, channel group) over the group's channels and dims 2..; "
        "gamma and beta per group; outputs mean and std visible with output_mean_var.")
    .SetParse(ParseGroupNorm)
    .SetInputNames({"data", "gamma", "beta"})
    .SetOutputNames({"output", "mean", "std"})
    .SetNumVisibleOutputs([](const NodeAttrs& attrs) {
      return Param<GroupNormParam>(attrs).output_mean_var ? 3 : 1;
    })
    .SetInferShape([](const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
      return InferGroupedNormShape(Param<GroupNormParam>(attrs).num_groups, in, out);
    })
    .SetGradient(GroupedNormGradient);

static Op& symx_backward_group_norm_registration =
    RegisterBackwardOp("_backward_GroupNorm", ParseGroupNorm,
                       {"ograd", "data", "gamma", "mean", "std"},
                       [](const NodeAttrs&) { return 3; })
        .Describe("Gradient of GroupNorm for data, gamma and beta.");

}  // namespace symx
