// Registers the spatial ops of MXNet 1.9.1: GridGenerator, BilinearSampler,
// SpatialTransformer and Correlation, with their backward ops.
//
// Grids are (N, 2, H, W): channel 0 holds x and channel 1 holds y, both
// normalized to [-1, 1] over the source image (-1 the first pixel centre, 1 the
// last). Sampling is bilinear with zero padding: a neighbour outside the image
// contributes 0.
//
// GridGenerator affine: data (N, 6) is a row-major 2x3 matrix per sample and the
// output is that matrix applied to the target grid (x, y, 1), x = linspace(-1, 1,
// W), y = linspace(-1, 1, H). warp: data (N, 2, H, W) is a pixel flow and the
// output is (flow + pixel coordinates) normalized to [-1, 1].
// SpatialTransformer = BilinearSampler(data, GridGenerator(loc, affine)).
//
// MXNet declares hidden temporaries (GridGenerator's grid_dst, BilinearSampler's
// tmp, SpatialTransformer's grid_dst/grid_src); symx keeps one output and
// recomputes what the backward needs. cudnn_off is accepted and ignored.
// target_shape must have exactly two entries (MXNet silently reads the first two
// of a longer tuple).
//
// Correlation (FlowNet): data1 and data2 (N, C, H, W), both zero-padded by
// pad_size; output (N, (2r + 1)^2, OH, OW), r = max_displacement / stride2,
// OW = ceil((W + 2 pad - 2 (max_displacement + (kernel_size - 1) / 2)) /
// stride1). Output (k, i, j) with k = (dy + r) * (2r + 1) + (dx + r) sums,
// over the kernel_size^2 window whose top-left corner is (i * stride1 +
// max_displacement, j * stride1 + max_displacement) in padded coordinates and
// over the channels, data1 * data2 (is_multiply) or |data1 - data2| with data2
// moved by (dy, dx) * stride2, divided by kernel_size^2 * C. The gradients of
// the absolute difference take sign +1 for data1 where data1 >= data2 (-1 for
// data2), as MXNet. kernel_size must be odd and the strides >= 1 (MXNet
// divides by zero); data2 must have data1's shape (MXNet reads past its end
// otherwise). MXNet's hidden padded copies tmp1 and tmp2 are not kept.
#include "graph/ops/spatial.h"

#include <cstdint>
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

// MXNet's "boolean or None": absent or "None" is nullopt.
std::optional<bool> OptionalBool(ParamReader* r, const AttrMap& attrs, const std::string& key) {
  auto it = attrs.find(key);
  if (it == attrs.end()) return std::nullopt;
  if (it->second == "None") {
    r->String(key, "None");
    return std::nullopt;
  }
  return r->Bool(key, false);
}

std::vector<int64_t> ReadTargetShape(ParamReader* r) {
  std::vector<int64_t> t = r->Tuple("target_shape", {0, 0});
  if (t.size() != 2) {
    r->Fail("target_shape", "must have two entries (H, W)");
    return {0, 0};
  }
  if (t[0] < 0 || t[1] < 0) r->Fail("target_shape", "must not be negative");
  return t;
}

absl::Status CheckTargetShape(const std::vector<int64_t>& t) {
  if (t[0] > 0 && t[1] > 0) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("incorrect target_shape (", t[0], ", ", t[1],
                                                 "): both entries must be positive"));
}

// Checks `s` (if its ndim is known) has `ndim` dims; `expected` describes the layout.
absl::Status CheckNdim(const Shape& s, int ndim, absl::string_view what,
                       absl::string_view expected) {
  if (!s.ndim_known() || s.ndim() == ndim) return absl::OkStatus();
  return ShapeError(what, s, expected);
}

// Merges dim `d` of (*shapes)[i] (ndim `nd`) with `value`; errors name `what`.
absl::Status AssignDim(std::vector<Shape>* shapes, size_t i, int nd, int d, int64_t value,
                       absl::string_view what) {
  if (value == kUnknownDim) return absl::OkStatus();
  Shape s = (*shapes)[i];
  if (!s.ndim_known()) s = Shape(std::vector<int64_t>(nd, kUnknownDim));
  s[d] = value;
  return AssignShape(shapes, i, s, what);
}

int64_t DimOf(const Shape& s, int d) {
  return s.ndim_known() && s.dim_known(d) ? s[d] : kUnknownDim;
}

absl::Status SameType(const NodeAttrs&, std::vector<DType>* in, std::vector<DType>* out) {
  DType t = DType::kUnknown;
  for (DType d : *in) {
    if (d != DType::kUnknown) {
      t = d;
      break;
    }
  }
  if (t == DType::kUnknown) t = (*out)[0];
  if (t == DType::kUnknown) return absl::OkStatus();
  for (size_t i = 0; i < in->size(); ++i) {
    SYMX_RETURN_IF_ERROR(AssignType(in, i, t, absl::StrCat("input ", i)));
  }
  return AssignType(out, 0, t, "output");
}

// ------------------------------------------------------------------ GridGenerator

absl::StatusOr<OpParamPtr> ParseGridGenerator(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<GridGeneratorParam>();
  p->transform_type = r.Enum("transform_type", {"affine", "warp"});
  p->target_shape = ReadTargetShape(&r);
  return r.Finish(std::move(p));
}

absl::Status InferGridGenerator(const NodeAttrs& attrs, std::vector<Shape>* in,
                                std::vector<Shape>* out) {
  const auto& p = Param<GridGeneratorParam>(attrs);
  if (p.transform_type == "affine") {
    SYMX_RETURN_IF_ERROR(CheckNdim((*in)[0], 2, "input data", "(N, 6) with transform_type=affine"));
    SYMX_RETURN_IF_ERROR(CheckNdim((*out)[0], 4, "output", "(N, 2, H, W)"));
    SYMX_RETURN_IF_ERROR(CheckTargetShape(p.target_shape));
    SYMX_RETURN_IF_ERROR(AssignDim(in, 0, 2, 1, 6, "input data"));
    SYMX_RETURN_IF_ERROR(AssignDim(in, 0, 2, 0, DimOf((*out)[0], 0), "input data"));
    Shape o{DimOf((*in)[0], 0), 2, p.target_shape[0], p.target_shape[1]};
    return AssignShape(out, 0, o, "output");
  }
  SYMX_RETURN_IF_ERROR(
      CheckNdim((*in)[0], 4, "input data", "(N, 2, H, W) with transform_type=warp"));
  SYMX_RETURN_IF_ERROR(AssignDim(in, 0, 4, 1, 2, "input data"));
  return InferSameShape(in, out);
}

std::vector<NodeEntry> GridGeneratorGradient(const NodePtr& node,
                                             const std::vector<NodeEntry>& og) {
  if (!og[0].node) return ZeroGradient(node, og);
  return MakeBackwardNode("_backward_GridGenerator", node, {og[0]});
}

// ------------------------------------------------------------------ BilinearSampler

absl::StatusOr<OpParamPtr> ParseBilinearSampler(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<BilinearSamplerParam>();
  p->cudnn_off = OptionalBool(&r, attrs, "cudnn_off");
  return r.Finish(std::move(p));
}

// data (N, C, IH, IW), grid (N, 2, H, W) -> (N, C, H, W).
absl::Status InferSampled(std::vector<Shape>* in, std::vector<Shape>* out, absl::string_view grid,
                          absl::string_view grid_layout) {
  SYMX_RETURN_IF_ERROR(CheckNdim((*in)[0], 4, "input data", "(N, C, H, W)"));
  SYMX_RETURN_IF_ERROR(CheckNdim((*in)[1], 4, grid, grid_layout));
  SYMX_RETURN_IF_ERROR(CheckNdim((*out)[0], 4, "output", "(N, C, H, W)"));
  SYMX_RETURN_IF_ERROR(AssignDim(in, 1, 4, 1, 2, grid));
  // Batch: any of the three.
  int64_t n = DimOf((*in)[0], 0);
  if (n == kUnknownDim) n = DimOf((*in)[1], 0);
  if (n == kUnknownDim) n = DimOf((*out)[0], 0);
  SYMX_RETURN_IF_ERROR(AssignDim(in, 0, 4, 0, n, "input data"));
  SYMX_RETURN_IF_ERROR(AssignDim(in, 1, 4, 0, n, grid));
  SYMX_RETURN_IF_ERROR(AssignDim(out, 0, 4, 0, n, "output"));
  SYMX_RETURN_IF_ERROR(AssignDim(out, 0, 4, 1, DimOf((*in)[0], 1), "output"));
  SYMX_RETURN_IF_ERROR(AssignDim(in, 0, 4, 1, DimOf((*out)[0], 1), "input data"));
  for (int d = 2; d < 4; ++d) {
    SYMX_RETURN_IF_ERROR(AssignDim(out, 0, 4, d, DimOf((*in)[1], d), "output"));
    SYMX_RETURN_IF_ERROR(AssignDim(in, 1, 4, d, DimOf((*out)[0], d), grid));
  }
  return absl::OkStatus();
}

absl::Status InferBilinearSampler(const NodeAttrs&, std::vector<Shape>* in,
                                  std::vector<Shape>* out) {
  return InferSampled(in, out, "input grid", "(N, 2, H, W)");
}

std::vector<NodeEntry> SamplerGradient(const NodePtr& node, const std::vector<NodeEntry>& og) {
  if (!og[0].node) return ZeroGradient(node, og);
  return MakeBackwardNode(absl::StrCat("_backward_", node->op()->name()), node,
                          {og[0], node->inputs[0], node->inputs[1]});
}

// ------------------------------------------------------------------ SpatialTransformer

absl::StatusOr<OpParamPtr> ParseSpatialTransformer(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<SpatialTransformerParam>();
  p->target_shape = ReadTargetShape(&r);
  p->transform_type = r.Enum("transform_type", {"affine"});
  p->sampler_type = r.Enum("sampler_type", {"bilinear"});
  p->cudnn_off = OptionalBool(&r, attrs, "cudnn_off");
  return r.Finish(std::move(p));
}

// data (N, C, H, W), loc (N, 6) -> (N, C, target H, target W).
absl::Status InferSpatialTransformer(const NodeAttrs& attrs, std::vector<Shape>* in,
                                     std::vector<Shape>* out) {
  const auto& p = Param<SpatialTransformerParam>(attrs);
  SYMX_RETURN_IF_ERROR(CheckNdim((*in)[0], 4, "input data", "(N, C, H, W)"));
  SYMX_RETURN_IF_ERROR(CheckNdim((*in)[1], 2, "input loc", "(N, 6)"));
  SYMX_RETURN_IF_ERROR(CheckNdim((*out)[0], 4, "output", "(N, C, H, W)"));
  SYMX_RETURN_IF_ERROR(CheckTargetShape(p.target_shape));
  SYMX_RETURN_IF_ERROR(AssignDim(in, 1, 2, 1, 6, "input loc"));
  int64_t n = DimOf((*in)[0], 0);
  if (n == kUnknownDim) n = DimOf((*in)[1], 0);
  if (n == kUnknownDim) n = DimOf((*out)[0], 0);
  SYMX_RETURN_IF_ERROR(AssignDim(in, 0, 4, 0, n, "input data"));
  SYMX_RETURN_IF_ERROR(AssignDim(in, 1, 2, 0, n, "input loc"));
  int64_t c = DimOf((*in)[0], 1);
  if (c == kUnknownDim) c = DimOf((*out)[0], 1);
  SYMX_RETURN_IF_ERROR(AssignDim(in, 0, 4, 1, c, "input data"));
  return AssignShape(out, 0, Shape{n, c, p.target_shape[0], p.target_shape[1]}, "output");
}

// ------------------------------------------------------------------ Correlation

absl::StatusOr<OpParamPtr> ParseCorrelation(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<CorrelationParam>();
  p->kernel_size = r.Int("kernel_size", 1);
  p->max_displacement = r.Int("max_displacement", 1);
  p->stride1 = r.Int("stride1", 1);
  p->stride2 = r.Int("stride2", 1);
  p->pad_size = r.Int("pad_size", 0);
  p->is_multiply = r.Bool("is_multiply", true);
  constexpr int64_t kMax = int64_t{1} << 20;
  if (p->kernel_size < 1 || p->kernel_size % 2 == 0 || p->kernel_size > kMax) {
    r.Fail("kernel_size", absl::StrCat(p->kernel_size, ": must be an odd number >= 1"));
    p->kernel_size = 1;
  }
  for (auto [key, v] :
       {std::pair<const char*, int64_t*>{"stride1", &p->stride1}, {"stride2", &p->stride2}}) {
    if (*v < 1 || *v > kMax) {
      r.Fail(key, absl::StrCat(*v, ": must be >= 1"));
      *v = 1;
    }
  }
  for (auto [key, v] : {std::pair<const char*, int64_t*>{"max_displacement", &p->max_displacement},
                        {"pad_size", &p->pad_size}}) {
    if (*v < 0 || *v > kMax) {
      r.Fail(key, absl::StrCat(*v, ": must be >= 0"));
      *v = 0;
    }
  }
  return r.Finish(std::move(p));
}

absl::Status InferCorrelation(const NodeAttrs& attrs, std::vector<Shape>* in,
                              std::vector<Shape>* out) {
  const auto& p = Param<CorrelationParam>(attrs);
  SYMX_RETURN_IF_ERROR(CheckNdim((*in)[0], 4, "input data1", "4 dims (batch, channel, H, W)"));
  SYMX_RETURN_IF_ERROR(CheckNdim((*in)[1], 4, "input data2", "4 dims (batch, channel, H, W)"));
  // data1 and data2 share their shape.
  if ((*in)[1].ndim_known()) SYMX_RETURN_IF_ERROR(AssignShape(in, 0, (*in)[1], "input data1"));
  if ((*in)[0].ndim_known()) SYMX_RETURN_IF_ERROR(AssignShape(in, 1, (*in)[0], "input data2"));
  const Shape& d = (*in)[0];
  if (!d.ndim_known()) return absl::OkStatus();
  const int64_t border = p.max_displacement + (p.kernel_size - 1) / 2;
  Shape o{d[0], p.grid_width() * p.grid_width(), kUnknownDim, kUnknownDim};
  for (int i = 0; i < 2; ++i) {
    if (d[2 + i] == kUnknownDim) continue;
    const int64_t room = d[2 + i] + 2 * p.pad_size - 2 * border;
    if (room < 1) {
      return ShapeError("input data1", d,
                        absl::StrCat("spatial dims of at least ", 2 * border + 1 - 2 * p.pad_size,
                                     " (2 * (max_displacement + kernel_size / 2) + 1 - 2 * "
                                     "pad_size): the neighbourhood and kernel do not fit"));
    }
    o[2 + i] = (room + p.stride1 - 1) / p.stride1;
  }
  return AssignShape(out, 0, o, "output");
}

std::vector<NodeEntry> CorrelationGradient(const NodePtr& node, const std::vector<NodeEntry>& og) {
  if (!og[0].node) return {NodeEntry{}, NodeEntry{}};
  return MakeBackwardNode("_backward_Correlation", node, {og[0], node->inputs[0], node->inputs[1]});
}

}  // namespace

SYMX_REGISTER_OP("Correlation")
    .Describe(
        "FlowNet's correlation of data1's patches with data2's patches moved by up to "
        "max_displacement: one output channel per displacement.")
    .SetParse(ParseCorrelation)
    .SetInputNames({"data1", "data2"})
    .SetInferShape(InferCorrelation)
    .SetInferType(SameType)
    .SetGradient(CorrelationGradient);

static Op& symx_backward_correlation_registration =
    RegisterBackwardOp("_backward_Correlation", ParseCorrelation, {"ograd", "data1", "data2"},
                       [](const NodeAttrs&) { return 2; })
        .Describe("Gradients of Correlation to data1 and data2.");

SYMX_REGISTER_OP("GridGenerator")
    .Describe(
        "Sampling grid (N, 2, H, W) in [-1, 1] coordinates: an affine map of the target grid "
        "(data (N, 6)) or a pixel flow field made absolute and normalized (data (N, 2, H, W)).")
    .SetParse(ParseGridGenerator)
    .SetInputNames({"data"})
    .SetInferShape(InferGridGenerator)
    .SetInferType(SameType)
    .SetGradient(GridGeneratorGradient);

static Op& symx_backward_grid_generator_registration =
    RegisterBackwardOp("_backward_GridGenerator", ParseGridGenerator, {"ograd"},
                       [](const NodeAttrs&) { return 1; })
        .Describe("Gradient of GridGenerator from the output gradient.");

SYMX_REGISTER_OP("BilinearSampler")
    .Describe(
        "Samples data (N, C, IH, IW) bilinearly at grid (N, 2, H, W) (x, y in [-1, 1]); points "
        "outside the image read zeros.")
    .SetParse(ParseBilinearSampler)
    .SetInputNames({"data", "grid"})
    .SetInferShape(InferBilinearSampler)
    .SetInferType(SameType)
    .SetGradient(SamplerGradient);

static Op& symx_backward_bilinear_sampler_registration =
    RegisterBackwardOp("_backward_BilinearSampler", ParseBilinearSampler, {"ograd", "data", "grid"},
                       [](const NodeAttrs&) { return 2; })
        .Describe("Gradients of BilinearSampler to data and grid.");

SYMX_REGISTER_OP("SpatialTransformer")
    .Describe(
        "BilinearSampler(data, GridGenerator(loc, affine, target_shape)): warps data "
        "(N, C, H, W) by the per-sample 2x3 affine matrix loc (N, 6).")
    .SetParse(ParseSpatialTransformer)
    .SetInputNames({"data", "loc"})
    .SetInferShape(InferSpatialTransformer)
    .SetInferType(SameType)
    .SetGradient(SamplerGradient);

static Op& symx_backward_spatial_transformer_registration =
    RegisterBackwardOp("_backward_SpatialTransformer", ParseSpatialTransformer,
                       {"ograd", "data", "loc"}, [](const NodeAttrs&) { return 2; })
        .Describe("Gradients of SpatialTransformer to data and loc.");

}  // namespace symx
