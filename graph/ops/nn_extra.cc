// Registers neural-network ops of MXNet 1.9.1 found in older checkpoints, with
// their backward ops: SoftmaxActivation, softmin, L2Normalization, LRN,
// InstanceNorm, GroupNorm, _contrib_AdaptiveAvgPooling2D and
// _contrib_BilinearResize2D. (Crop is in crop.cc.) Facts checked against a live
// MXNet 1.9.1:
// - SoftmaxActivation: mode=instance is a softmax over all but the first dim
//   (data seen as (N, rest)), mode=channel over axis 1 (data (N, C, rest),
//   at least 3 dims). Instance mode needs at least 2 dims here. The gradient is
//   the exact one of that forward. (MXNet 1.9.1 disagrees with itself for
//   instance mode on data of 3+ dims: its oneDNN forward normalizes over the last
//   axis only and its backward always uses the channel formula; on 2-D data, and
//   in channel mode, all agree.)
// - L2Normalization: out = x / sqrt(sum(x^2) + eps), the sum over all but dim 0
//   (instance), over axis 1 (channel) or over dims 2.. (spatial); channel and
//   spatial need at least 3 dims. Hidden output `norm`: instance (N,), channel
//   (N, d2, ...), spatial (N, C).
// - LRN: 4-D data; tmp_norm = knorm + alpha / nsize * sum of x^2 over the
//   channels [c - nsize/2, c + nsize/2] (clipped); out = x * tmp_norm^-beta.
//   nsize must be odd (MXNet's reference kernel requires it; its oneDNN path
//   accepts even sizes with a different window). tmp_norm is a hidden output.
// - InstanceNorm: per (n, c) statistics over dims 2..; gamma and beta (C,);
//   hidden outputs mean and var (N, C).
// - GroupNorm: channels split into num_groups groups, statistics per (n, group)
//   over the group's channels and dims 2..; gamma and beta are per GROUP,
//   (num_groups,), exactly as MXNet 1.9.1's shape inference has them; outputs
//   mean and std = sqrt(var + eps), (N, num_groups), visible with output_mean_var.
// - _contrib_AdaptiveAvgPooling2D: 4-D data; output_size () -> 1x1, (k,) -> kxk;
//   cell (i, j) averages rows [floor(i*H/h), ceil((i+1)*H/h)) and likewise columns
//   (the output may be larger than the input).
// - _contrib_BilinearResize2D: 4-D data; mode size (height/width, or both scales:
//   out = int(float(in) * scale), the sizes then ignored), like (second input
//   `like` gives H and W, zero gradient), odd_scale and to_{even,odd}_{down,up}
//   (see BilinearOutputDim in nn_extra.h). Source coordinate of output index i:
//   align_corners (MXNet's default) i*(in-1)/(out-1), else
//   max((i+0.5)*in/out-0.5, 0); an output size of 1 always samples index 0.
// Head gradients on the hidden/statistics outputs are ignored, as in MXNet.
#include "graph/ops/nn_extra.h"

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
#include "graph/ops/softmax.h"

namespace symx {
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

// ------------------------------------------------------------------ LRN

absl::StatusOr<OpParamPtr> ParseLRN(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<LRNParam>();
  p->alpha = r.Float("alpha", 1e-4);
  p->beta = r.Float("beta", 0.75);
  p->knorm = r.Float("knorm", 2);
  p->nsize = r.Int("nsize");
  if (p->nsize < 1 || p->nsize % 2 == 0) {
    r.Fail("nsize", "must be an odd number >= 1 (MXNet's LRN supports only odd local sizes)");
  }
  if (!std::isfinite(p->alpha)) r.Fail("alpha", "must be finite");
  if (!std::isfinite(p->beta)) r.Fail("beta", "must be finite");
  if (!std::isfinite(p->knorm)) r.Fail("knorm", "must be finite");
  return r.Finish(std::move(p));
}

absl::Status InferLRNShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                           std::vector<Shape>* out) {
  SYMX_RETURN_IF_ERROR(InferSameShape(in, out));
  const Shape& d = (*in)[0];
  if (d.ndim_known() && d.ndim() != 4) {
    return ShapeError("input data", d, "4 dims (batch, channel, height, width)");
  }
  return absl::OkStatus();
}

std::vector<NodeEntry> LRNGradient(const NodePtr& node, const std::vector<NodeEntry>& ograds) {
  if (!ograds[0].node) return {NodeEntry{}};
  return MakeBackwardNode("_backward_LRN", node, {ograds[0], node->inputs[0], Out(node, 1)});
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

// ------------------------------------------------------------------ AdaptiveAvgPooling2D

absl::StatusOr<OpParamPtr> ParseAdaptiveAvgPooling2D(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<AdaptiveAvgPooling2DParam>();
  std::vector<int64_t> size = r.Tuple("output_size", {});
  if (size.size() > 2) {
    r.Fail("output_size", "must be (), (size,) or (height, width)");
  } else if (size.size() == 1) {
    p->out_h = p->out_w = size[0];
  } else if (size.size() == 2) {
    p->out_h = size[0];
    p->out_w = size[1];
  }
  if (p->out_h < 1 || p->out_w < 1) r.Fail("output_size", "sizes must be >= 1");
  return r.Finish(std::move(p));
}

absl::Status InferAdaptiveAvgPooling2DShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                                            std::vector<Shape>* out) {
  const auto& p = Param<AdaptiveAvgPooling2DParam>(attrs);
  const Shape& d = (*in)[0];
  if (d.ndim_known() && d.ndim() != 4) {
    return ShapeError("input data", d, "4 dims (batch, channel, height, width)");
  }
  const Shape& o = (*out)[0];
  if (o.ndim_known() && o.ndim() != 4) return ShapeError("output", o, "4 dims");
  Shape nc = Shape::UnknownDims(4);
  for (const Shape* s : {&d, &o}) {
    if (!s->ndim_known()) continue;
    if (nc[0] == kUnknownDim) nc[0] = (*s)[0];
    if (nc[1] == kUnknownDim) nc[1] = (*s)[1];
  }
  SYMX_RETURN_IF_ERROR(AssignShape(in, 0, nc, "input data"));
  nc[2] = p.out_h;
  nc[3] = p.out_w;
  return AssignShape(out, 0, nc, "output");
}

// "<backward_op>"(ograd) for input 0; a second (shape-only) input gets zero.
GradientFn SingleBackwardGradient(std::string backward_op) {
  return [backward_op](const NodePtr& node,
                       const std::vector<NodeEntry>& ograds) -> std::vector<NodeEntry> {
    std::vector<NodeEntry> grads(node->inputs.size());
    if (!ograds[0].node) return grads;
    grads[0] = MakeBackwardNode(backward_op, node, {ograds[0]})[0];
    return grads;
  };
}

// ------------------------------------------------------------------ BilinearResize2D

absl::StatusOr<OpParamPtr> ParseBilinearResize2D(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<BilinearResize2DParam>();
  p->height = r.Int("height", 1);
  p->width = r.Int("width", 1);
  p->scale_height = r.OptionalFloat("scale_height");
  p->scale_width = r.OptionalFloat("scale_width");
  p->mode = r.Enum(
      "mode",
      {"like", "odd_scale", "size", "to_even_down", "to_even_up", "to_odd_down", "to_odd_up"},
      "size");
  p->align_corners = r.Bool("align_corners", true);
  if (p->mode == "odd_scale" && !p->scale_height && !p->scale_width) {
    r.Fail("mode", "mode=odd_scale needs scale_height and scale_width");
  }
  if (p->height < 1) r.Fail("height", "must be >= 1");
  if (p->width < 1) r.Fail("width", "must be >= 1");
  if (p->scale_height.has_value() != p->scale_width.has_value()) {
    r.Fail(p->scale_height ? "scale_width" : "scale_height",
           "scale_height and scale_width must be given together");
  }
  for (const auto& [key, v] :
       {std::pair<const char*, std::optional<double>>{"scale_height", p->scale_height},
        {"scale_width", p->scale_width}}) {
    if (v && !(*v > 0 && std::isfinite(*v))) r.Fail(key, "must be a finite number > 0");
  }
  return r.Finish(std::move(p));
}

bool BilinearLike(const NodeAttrs& attrs) {
  if (attrs.parsed) return Param<BilinearResize2DParam>(attrs).like();
  auto it = attrs.dict.find("mode");
  return it != attrs.dict.end() && it->second == "like";
}

absl::Status InferBilinearResize2DShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                                        std::vector<Shape>* out) {
  const auto& p = Param<BilinearResize2DParam>(attrs);
  const Shape& d = (*in)[0];
  if (d.ndim_known() && d.ndim() != 4) {
    return ShapeError("input data", d, "4 dims (batch, channel, height, width)");
  }
  if (p.like() && (*in)[1].ndim_known() && (*in)[1].ndim() != 4) {
    return ShapeError("input like", (*in)[1], "4 dims (batch, channel, height, width)");
  }
  const Shape& o = (*out)[0];
  if (o.ndim_known() && o.ndim() != 4) return ShapeError("output", o, "4 dims");
  Shape nc = Shape::UnknownDims(4);
  for (const Shape* s : {&d, &o}) {
    if (!s->ndim_known()) continue;
    if (nc[0] == kUnknownDim) nc[0] = (*s)[0];
    if (nc[1] == kUnknownDim) nc[1] = (*s)[1];
  }
  SYMX_RETURN_IF_ERROR(AssignShape(in, 0, nc, "input data"));
  const Shape& data = (*in)[0];
  if (p.like()) {
    if ((*in)[1].ndim_known()) {
      nc[2] = (*in)[1][2];
      nc[3] = (*in)[1][3];
    }
  } else if (p.mode == "size" && !p.scale_height) {
    nc[2] = p.height;
    nc[3] = p.width;
  } else if (data[2] != kUnknownDim && data[3] != kUnknownDim) {
    nc[2] = BilinearOutputDim(p, data[2], p.height, p.scale_height);
    nc[3] = BilinearOutputDim(p, data[3], p.width, p.scale_width);
    if (nc[2] < 1 || nc[3] < 1) {
      std::string scales;
      if (p.scale_height) {
        scales = absl::StrCat(" with scales (", *p.scale_height, ", ", *p.scale_width, ")");
      }
      return absl::InvalidArgumentError(absl::StrCat(
          "_contrib_BilinearResize2D: mode=", p.mode, scales, " gives an empty output (", nc[2],
          ", ", nc[3], ") for input data ", data.ToString()));
    }
  }
  return AssignShape(out, 0, nc, "output");
}

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

SYMX_REGISTER_OP("LRN")
    .SetPrecisionClass(PrecisionClass::kFloat32)
    .Describe(
        "Local response normalization across channels: x * (knorm + alpha / nsize * "
        "sum_window x^2)^-beta; hidden output tmp_norm (the bracket).")
    .SetParse(ParseLRN)
    .SetOutputNames({"output", "tmp_norm"})
    .SetNumVisibleOutputs([](const NodeAttrs&) { return 1; })
    .SetInferShape(InferLRNShape)
    .SetGradient(LRNGradient);

static Op& symx_backward_lrn_registration =
    RegisterBackwardOp("_backward_LRN", ParseLRN, {"ograd", "data", "tmp_norm"},
                       [](const NodeAttrs&) { return 1; })
        .Describe("Gradient of LRN from the data and tmp_norm.");

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

SYMX_REGISTER_OP("_contrib_AdaptiveAvgPooling2D")
    .Describe(
        "Average pooling of 4-D data to a fixed (height, width): output cell (i, j) averages "
        "rows [floor(i*H/h), ceil((i+1)*H/h)) and the same for columns.")
    .SetParse(ParseAdaptiveAvgPooling2D)
    .SetInferShape(InferAdaptiveAvgPooling2DShape)
    .SetGradient(SingleBackwardGradient("_backward_contrib_AdaptiveAvgPooling2D"));

static Op& symx_backward_adaptive_avg_pooling_registration =
    RegisterBackwardOp("_backward_contrib_AdaptiveAvgPooling2D", ParseAdaptiveAvgPooling2D,
                       {"ograd"}, [](const NodeAttrs&) { return 1; })
        .Describe("Gradient of _contrib_AdaptiveAvgPooling2D: ograd spread over each cell.");

SYMX_REGISTER_OP("_contrib_BilinearResize2D")
    .Describe(
        "Bilinear resize of 4-D data to (height, width), to the input size times the scales, "
        "to the second input's height and width (mode=like), or to a size derived from the "
        "input's (odd_scale, to_even_down/up, to_odd_down/up); align_corners as MXNet.")
    .SetParse(ParseBilinearResize2D)
    .SetInputNames([](const NodeAttrs& attrs) {
      return BilinearLike(attrs) ? std::vector<std::string>{"data", "like"}
                                 : std::vector<std::string>{"data"};
    })
    .SetInferShape(InferBilinearResize2DShape)
    .SetInferType([](const NodeAttrs&, std::vector<DType>* in, std::vector<DType>* out) {
      SYMX_RETURN_IF_ERROR(AssignType(out, 0, (*in)[0], "output"));
      SYMX_RETURN_IF_ERROR(AssignType(in, 0, (*out)[0], "input data"));
      if (in->size() > 1 && (*in)[1] == DType::kUnknown) (*in)[1] = (*in)[0];
      return absl::OkStatus();
    })
    .SetGradient(SingleBackwardGradient("_backward_contrib_BilinearResize2D"));

static Op& symx_backward_bilinear_resize_registration =
    RegisterBackwardOp("_backward_contrib_BilinearResize2D", ParseBilinearResize2D, {"ograd"},
                       [](const NodeAttrs&) { return 1; })
        .Describe("Gradient of _contrib_BilinearResize2D for data (like gets zero).");

}  // namespace symx
