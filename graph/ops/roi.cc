// Registers the region ops of MXNet 1.9.1 used by Faster R-CNN style models:
// ROIPooling and _contrib_ROIAlign (with their backward ops), and the
// non-differentiable _contrib_Proposal and _contrib_MultiProposal. Facts checked
// against a live MXNet 1.9.1:
// - ROIPooling: data (N, C, H, W), rois (R, 5) rows [batch, x1, y1, x2, y2];
//   output (R, C, ph, pw) and a hidden `maxidx` (same shape, the data dtype):
//   h * W + w of each bin's maximum, -1 for an empty bin (whose output is 0).
//   ROI corners are round(coord * spatial_scale) (half away from zero); the
//   ROI spans max(end - start + 1, 1) cells; bin i covers
//   [floor(i * bin), ceil((i + 1) * bin)) + start, clipped to the map. An ROI
//   whose batch index is outside [0, N) gives zeros. The data gradient routes
//   each output's gradient to its maxidx; rois get none.
// - _contrib_ROIAlign: output (R, C, ph, pw), or (R, C / (ph * pw), ph, pw) with
//   position_sensitive (output channel c, bin (i, j) reads input channel
//   (c * ph + i) * pw + j). Corners are coord * spatial_scale (- 0.5 when
//   aligned); without aligned the ROI is at least 1x1. Each bin averages
//   grid_h x grid_w bilinear samples (sample_ratio, or ceil(roi / pooled) when
//   sample_ratio <= 0) at the centres of a regular grid; a sample outside
//   [-1, H] x [-1, W] is 0, otherwise its coordinates are clamped to the map.
//   A negative batch index gives zeros (MXNet reads out of bounds for an index
//   >= N; symx gives zeros there too). MXNet aborts on an aligned ROI of zero
//   (or negative) size; symx's kernel returns an error.
// - _contrib_Proposal / _contrib_MultiProposal: cls_prob (N, 2A, H, W) with
//   A = len(scales) * len(ratios), bbox_pred (N, 4A, H, W), im_info (N, 3)
//   [height, width, scale]; outputs `output` (P, 5) [batch, x1, y1, x2, y2] and
//   `score` (P, 1), P = rpn_post_nms_top_n for Proposal (which needs N = 1) and
//   N * rpn_post_nms_top_n for MultiProposal; `score` is visible with
//   output_score. float32 only, as MXNet. Their gradients are zero in MXNet;
//   here they are non-differentiable.
// - _contrib_PSROIPooling (R-FCN): output (R, output_dim, P, P), P =
//   pooled_size; group_size 0 means P. The roi's corners are rounded (half
//   away from zero), the far one + 1, then times spatial_scale; the roi is at
//   least 0.1 wide and high; bin i spans [floor(y0 + i * bin), ceil(y0 + (i +
//   1) * bin)) clipped to the map, and averages input channel (ctop * G + gh) *
//   G + gw, (gh, gw) = (i * G / P, j * G / P): data needs at least
//   output_dim * G * G channels (MXNet reads past the end otherwise). An empty
//   bin is 0. The data gradient spreads each output's gradient evenly over
//   its bin; rois get a zero gradient.
// - _contrib_DeformablePSROIPooling: the same channels, corners shifted by
//   -0.5, and each bin the average of sample_per_part^2 samples from
//   (x0 + j * bin_w + tx * roi_w, y0 + i * bin_h + ty * roi_h) in steps of
//   bin / sample_per_part, where (tx, ty) = trans_std * trans[r, 2 * class +
//   (0, 1), part_h, part_w] (class = ctop / (output_dim / classes), classes =
//   trans channels / 2; part = floor(i / P * part_size), part_size 0 meaning
//   P; no trans with no_trans). A sample outside [-0.5, W - 0.5] x [-0.5, H -
//   0.5] is skipped, others are clamped to the map and read bilinearly from
//   their floor and ceil neighbours; a bin without samples is 0. The hidden
//   output `top_count` (float) holds each bin's number of samples. Gradients
//   for data and trans are MXNet's: trans's is the bilinear form's derivative
//   at the clamped point (nonzero in the clamped margins, where the forward
//   does not move) times trans_std and the roi size. rois get zero.
//   Both PS poolings take float16/32/64; an roi whose batch index is outside
//   [0, N) gives zeros (MXNet reads out of bounds).
// - _contrib_RROIAlign: rois (R, 6) [batch, cx, cy, w, h, angle in degrees];
//   output (R, C, ph, pw). Centre and size are times spatial_scale, the size
//   at least 1x1; bin (i, j) averages grid_h x grid_w samples (sampling_ratio,
//   or ceil(size / pooled) when <= 0) at the centres of a regular grid over
//   the unrotated roi, rotated by the angle about the centre (x' = x cos + y
//   sin + cx, y' = y cos - x sin + cy) and read as ROIAlign reads (0 outside
//   [-1, H] x [-1, W], else clamped). MXNet registers no gradient for it (its
//   unused _backward_RROIAlign says "Backward is not supported"; binding one
//   for a gradient is an error there); here it is not differentiable, as the
//   scatter family's ops without one. float16/32/64; a batch index outside
//   [0, N) gives zeros.
#include "graph/ops/roi.h"

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "graph/infer_util.h"
#include "graph/op.h"
#include "graph/ops/op_helpers.h"

namespace symx {
namespace {

// pooled_size: exactly two positive values (MXNet rejects any other count).
void ReadPooledSize(ParamReader* r, int64_t* h, int64_t* w) {
  std::vector<int64_t> ps = r->Tuple("pooled_size");
  if (ps.size() != 2) {
    r->Fail("pooled_size", "must have exactly 2 values (pooled height, pooled width)");
    return;
  }
  if (ps[0] < 1 || ps[1] < 1) {
    r->Fail("pooled_size", "values must be >= 1");
    return;
  }
  *h = ps[0];
  *w = ps[1];
}

float ReadScale(ParamReader* r) {
  const double s = r->Float("spatial_scale");
  if (!(s > 0) || !std::isfinite(s)) r->Fail("spatial_scale", "must be a finite number > 0");
  return static_cast<float>(s);
}

// Shapes of data (N, C, H, W), rois (R, 5) -> output (R, c_out, ph, pw); the
// outputs from index 0 to num_out - 1 all get that shape.
absl::Status InferRoiShape(std::vector<Shape>* in, std::vector<Shape>* out, int64_t ph, int64_t pw,
                           int64_t channel_div, int num_out) {
  const Shape& data = (*in)[0];
  const Shape& rois = (*in)[1];
  if (data.ndim_known() && data.ndim() != 4) {
    return ShapeError("input data", data, "4 dims (batch, channel, height, width)");
  }
  if (rois.ndim_known()) {
    if (rois.ndim() != 2) return ShapeError("input rois", rois, "2 dims (num_rois, 5)");
    if (rois[1] != kUnknownDim && rois[1] != 5) {
      return ShapeError("input rois", rois, "5 columns [batch_index, x1, y1, x2, y2]");
    }
    if (rois[1] == kUnknownDim) {
      SYMX_RETURN_IF_ERROR(AssignShape(in, 1, Shape{rois[0], 5}, "input rois"));
    }
  }
  if (!data.ndim_known() || !(*in)[1].ndim_known()) return absl::OkStatus();
  int64_t c = data[1];
  if (c != kUnknownDim && channel_div > 1) {
    if (c % channel_div != 0) {
      return ShapeError("input data", data,
                        absl::StrCat("channels divisible by pooled height * width = ", channel_div,
                                     " with position_sensitive"));
    }
    c /= channel_div;
  }
  const Shape o{(*in)[1][0], c, ph, pw};
  for (int i = 0; i < num_out; ++i) {
    SYMX_RETURN_IF_ERROR(AssignShape(out, i, o, i == 0 ? "output" : "output maxidx"));
  }
  return absl::OkStatus();
}

// ------------------------------------------------------------------ ROIPooling

absl::StatusOr<OpParamPtr> ParseROIPooling(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<ROIPoolingParam>();
  ReadPooledSize(&r, &p->pooled_h, &p->pooled_w);
  p->spatial_scale = ReadScale(&r);
  return r.Finish(std::move(p));
}

absl::Status InferROIPoolingShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                                  std::vector<Shape>* out) {
  const auto& p = Param<ROIPoolingParam>(attrs);
  return InferRoiShape(in, out, p.pooled_h, p.pooled_w, 1, 2);
}

std::vector<NodeEntry> ROIPoolingGradient(const NodePtr& node,
                                          const std::vector<NodeEntry>& ograds) {
  if (!ograds[0].node) return {NodeEntry{}, NodeEntry{}};
  std::vector<NodeEntry> g =
      MakeBackwardNode("_backward_ROIPooling", node, {ograds[0], node->inputs[1], Out(node, 1)});
  return {g[0], NodeEntry{}};
}

// ------------------------------------------------------------------ ROIAlign

absl::StatusOr<OpParamPtr> ParseROIAlign(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<ROIAlignParam>();
  ReadPooledSize(&r, &p->pooled_h, &p->pooled_w);
  p->spatial_scale = ReadScale(&r);
  p->sample_ratio = r.Int("sample_ratio", -1);
  p->position_sensitive = r.Bool("position_sensitive", false);
  p->aligned = r.Bool("aligned", false);
  return r.Finish(std::move(p));
}

absl::Status InferROIAlignShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                                std::vector<Shape>* out) {
  const auto& p = Param<ROIAlignParam>(attrs);
  return InferRoiShape(in, out, p.pooled_h, p.pooled_w,
                       p.position_sensitive ? p.pooled_h * p.pooled_w : 1, 1);
}

std::vector<NodeEntry> ROIAlignGradient(const NodePtr& node, const std::vector<NodeEntry>& ograds) {
  if (!ograds[0].node) return {NodeEntry{}, NodeEntry{}};
  std::vector<NodeEntry> g =
      MakeBackwardNode("_backward_ROIAlign", node, {ograds[0], node->inputs[1]});
  return {g[0], NodeEntry{}};
}

// ------------------------------------------------------------------ PSROIPooling

// spatial_scale in [0, 1], as MXNet's range.
float ReadUnitScale(ParamReader* r) {
  const double s = r->Float("spatial_scale");
  if (!(s >= 0 && s <= 1)) r->Fail("spatial_scale", absl::StrCat(s, ": must be in [0, 1]"));
  return static_cast<float>(s);
}

int64_t ReadPositive(ParamReader* r, const char* key, int64_t value) {
  if (value < 1) r->Fail(key, absl::StrCat(value, ": must be >= 1"));
  return value < 1 ? 1 : value;
}

absl::StatusOr<OpParamPtr> ParsePSROIPoolingCommon(const AttrMap& attrs, bool deformable) {
  ParamReader r(attrs);
  auto p = std::make_shared<PSROIPoolingParam>();
  p->deformable = deformable;
  p->spatial_scale = ReadUnitScale(&r);
  p->output_dim = ReadPositive(&r, "output_dim", r.Int("output_dim"));
  p->pooled_size = ReadPositive(&r, "pooled_size", r.Int("pooled_size"));
  const int64_t group = deformable ? r.Int("group_size") : r.Int("group_size", 0);
  if (group < 0) r.Fail("group_size", absl::StrCat(group, ": must be >= 0 (0: pooled_size)"));
  p->group_size = group <= 0 ? p->pooled_size : group;
  if (deformable) {
    const int64_t part = r.Int("part_size", 0);
    if (part < 0) r.Fail("part_size", absl::StrCat(part, ": must be >= 0 (0: pooled_size)"));
    p->part_size = part <= 0 ? p->pooled_size : part;
    p->sample_per_part = ReadPositive(&r, "sample_per_part", r.Int("sample_per_part", 1));
    const double trans_std = r.Float("trans_std", 0);
    if (!(trans_std >= 0 && trans_std <= 1)) {
      r.Fail("trans_std", absl::StrCat(trans_std, ": must be in [0, 1]"));
    }
    p->trans_std = static_cast<float>(trans_std);
    p->no_trans = r.Bool("no_trans", false);
  }
  return r.Finish(std::move(p));
}

absl::StatusOr<OpParamPtr> ParsePSROIPooling(const AttrMap& attrs) {
  return ParsePSROIPoolingCommon(attrs, false);
}
absl::StatusOr<OpParamPtr> ParseDeformablePSROIPooling(const AttrMap& attrs) {
  return ParsePSROIPoolingCommon(attrs, true);
}

absl::Status InferPSROIPoolingShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                                    std::vector<Shape>* out) {
  const auto& p = Param<PSROIPoolingParam>(attrs);
  const Shape& data = (*in)[0];
  const Shape& rois = (*in)[1];
  if (data.ndim_known() && data.ndim() != 4) {
    return ShapeError("input data", data, "4 dims (batch, channel, height, width)");
  }
  if (rois.ndim_known()) {
    if (rois.ndim() != 2) return ShapeError("input rois", rois, "2 dims (num_rois, 5)");
    if (rois[1] != kUnknownDim && rois[1] != 5) {
      return ShapeError("input rois", rois, "5 columns [batch_index, x1, y1, x2, y2]");
    }
  }
  const int64_t needed = p.output_dim * p.group_size * p.group_size;
  if (data.ndim_known() && data[1] != kUnknownDim && data[1] < needed) {
    return ShapeError("input data", data,
                      absl::StrCat("at least output_dim * group_size^2 = ", needed, " channels"));
  }
  int64_t num_rois = rois.ndim_known() ? rois[0] : kUnknownDim;
  if (p.has_trans()) {
    const Shape& trans = (*in)[2];
    if (trans.ndim_known()) {
      if (trans.ndim() != 4) {
        return ShapeError("input trans", trans, "4 dims (num_rois, 2 * classes, part, part)");
      }
      if (trans[1] != kUnknownDim &&
          (trans[1] < 2 || trans[1] % 2 != 0 || p.output_dim % (trans[1] / 2) != 0)) {
        return ShapeError(
            "input trans", trans,
            absl::StrCat("2 * classes channels, classes dividing output_dim = ", p.output_dim));
      }
      for (int i = 2; i < 4; ++i) {
        if (trans[i] != kUnknownDim && trans[i] != p.part_size) {
          return ShapeError("input trans", trans,
                            absl::StrCat("part_size = ", p.part_size, " in dims 2 and 3"));
        }
      }
      if (num_rois == kUnknownDim) num_rois = trans[0];
      if (trans[0] != kUnknownDim && num_rois != trans[0]) {
        return ShapeError("input trans", trans,
                          absl::StrCat("one row per roi (", num_rois, " rois)"));
      }
    }
  }
  SYMX_RETURN_IF_ERROR(AssignShape(in, 1, Shape{num_rois, 5}, "input rois"));
  if (num_rois == kUnknownDim) return absl::OkStatus();
  const Shape o{num_rois, p.output_dim, p.pooled_size, p.pooled_size};
  SYMX_RETURN_IF_ERROR(AssignShape(out, 0, o, "output"));
  if (p.deformable) SYMX_RETURN_IF_ERROR(AssignShape(out, 1, o, "output top_count"));
  return absl::OkStatus();
}

std::vector<NodeEntry> PSROIPoolingGradient(const NodePtr& node,
                                            const std::vector<NodeEntry>& ograds) {
  if (!ograds[0].node) return std::vector<NodeEntry>(node->inputs.size());
  std::vector<NodeEntry> g =
      MakeBackwardNode("_backward_PSROIPooling", node, {ograds[0], node->inputs[1]});
  return {g[0], NodeEntry{}};
}

std::vector<NodeEntry> DeformablePSROIPoolingGradient(const NodePtr& node,
                                                      const std::vector<NodeEntry>& ograds) {
  if (!ograds[0].node) return std::vector<NodeEntry>(node->inputs.size());
  const auto& p = Param<PSROIPoolingParam>(node->attrs);
  std::vector<NodeEntry> inputs = {ograds[0], node->inputs[0], node->inputs[1]};
  if (p.has_trans()) inputs.push_back(node->inputs[2]);
  inputs.push_back(Out(node, 1));
  std::vector<NodeEntry> g =
      MakeBackwardNode("_backward_DeformablePSROIPooling", node, std::move(inputs));
  if (p.has_trans()) return {g[0], NodeEntry{}, g[2]};
  return {g[0], NodeEntry{}};
}

std::vector<std::string> DeformablePSROIPoolingInputs(const NodeAttrs& attrs) {
  if (Param<PSROIPoolingParam>(attrs).has_trans()) return {"data", "rois", "trans"};
  return {"data", "rois"};
}

// ------------------------------------------------------------------ RROIAlign

absl::StatusOr<OpParamPtr> ParseRROIAlign(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<RROIAlignParam>();
  ReadPooledSize(&r, &p->pooled_h, &p->pooled_w);
  p->spatial_scale = ReadUnitScale(&r);
  p->sampling_ratio = r.Int("sampling_ratio", -1);
  return r.Finish(std::move(p));
}

absl::Status InferRROIAlignShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                                 std::vector<Shape>* out) {
  const auto& p = Param<RROIAlignParam>(attrs);
  const Shape& data = (*in)[0];
  const Shape& rois = (*in)[1];
  if (data.ndim_known() && data.ndim() != 4) {
    return ShapeError("input data", data, "4 dims (batch, channel, height, width)");
  }
  if (rois.ndim_known()) {
    if (rois.ndim() != 2) return ShapeError("input rois", rois, "2 dims (num_rois, 6)");
    if (rois[1] != kUnknownDim && rois[1] != 6) {
      return ShapeError("input rois", rois, "6 columns [batch_index, cx, cy, w, h, angle]");
    }
    SYMX_RETURN_IF_ERROR(AssignShape(in, 1, Shape{rois[0], 6}, "input rois"));
  }
  if (!data.ndim_known() || !(*in)[1].ndim_known()) return absl::OkStatus();
  return AssignShape(out, 0, Shape{(*in)[1][0], data[1], p.pooled_h, p.pooled_w}, "output");
}

// ------------------------------------------------------------------ Proposal

// "(4, 8, 16, 32)", "[0.5,1,2]", "2": a non-empty tuple of positive floats;
// absent keeps *out (the default).
// `*out` holds the default on entry.
void ReadFloatTuple(ParamReader* r, const AttrMap& attrs, const char* key,
                    std::vector<float>* out) {
  const std::vector<double> v = r->FloatTuple(key, std::vector<double>(out->begin(), out->end()));
  if (!attrs.count(key)) return;
  const std::string& text = attrs.at(key);
  if (v.empty()) {
    r->Fail(key, absl::StrCat("'", text, "': must have at least one value"));
    return;
  }
  std::vector<float> f;
  for (double x : v) {
    if (!(x > 0) || !std::isfinite(static_cast<float>(x))) {
      r->Fail(key, absl::StrCat("'", text, "': values must be finite and > 0"));
      return;
    }
    f.push_back(static_cast<float>(x));
  }
  *out = std::move(f);
}

absl::StatusOr<OpParamPtr> ParseProposal(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<ProposalParam>();
  p->rpn_pre_nms_top_n = r.Int("rpn_pre_nms_top_n", 6000);
  p->rpn_post_nms_top_n = r.Int("rpn_post_nms_top_n", 300);
  const double threshold = r.Float("threshold", 0.699999988);
  p->threshold = static_cast<float>(threshold);
  p->rpn_min_size = r.Int("rpn_min_size", 16);
  ReadFloatTuple(&r, attrs, "scales", &p->scales);
  ReadFloatTuple(&r, attrs, "ratios", &p->ratios);
  p->feature_stride = r.Int("feature_stride", 16);
  p->output_score = r.Bool("output_score", false);
  p->iou_loss = r.Bool("iou_loss", false);
  if (p->rpn_post_nms_top_n < 1) r.Fail("rpn_post_nms_top_n", "must be >= 1");
  if (!std::isfinite(threshold)) r.Fail("threshold", "must be finite");
  if (p->rpn_min_size < 0) r.Fail("rpn_min_size", "must be >= 0");
  if (p->feature_stride < 1) r.Fail("feature_stride", "must be >= 1");
  return r.Finish(std::move(p));
}

template <bool kMulti>
absl::Status InferProposalShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                                std::vector<Shape>* out) {
  const auto& p = Param<ProposalParam>(attrs);
  const Shape& cls = (*in)[0];
  if (!cls.ndim_known()) return absl::OkStatus();
  if (cls.ndim() != 4)
    return ShapeError("input cls_prob", cls, "4 dims (batch, 2 * anchors, H, W)");
  const int64_t a = p.num_anchors();
  if (cls[1] != kUnknownDim && cls[1] != 2 * a) {
    return ShapeError("input cls_prob", cls,
                      absl::StrCat("2 * len(scales) * len(ratios) = ", 2 * a, " channels"));
  }
  SYMX_RETURN_IF_ERROR(AssignShape(in, 1, Shape{cls[0], 4 * a, cls[2], cls[3]}, "input bbox_pred"));
  SYMX_RETURN_IF_ERROR(AssignShape(in, 2, Shape{cls[0], 3}, "input im_info"));
  if (!kMulti && cls[0] != kUnknownDim && cls[0] != 1) {
    return ShapeError("input cls_prob", cls,
                      "batch 1 (MXNet's Proposal takes one image; use _contrib_MultiProposal)");
  }
  int64_t rows = p.rpn_post_nms_top_n;
  if (kMulti) rows = cls[0] == kUnknownDim ? kUnknownDim : cls[0] * rows;
  if (rows == kUnknownDim) return absl::OkStatus();
  SYMX_RETURN_IF_ERROR(AssignShape(out, 0, Shape{rows, 5}, "output"));
  return AssignShape(out, 1, Shape{rows, 1}, "output score");
}

absl::Status InferProposalType(const NodeAttrs&, std::vector<DType>* in, std::vector<DType>* out) {
  const char* names[] = {"input cls_prob", "input bbox_pred", "input im_info"};
  for (size_t i = 0; i < in->size(); ++i) {
    if ((*in)[i] != DType::kUnknown && (*in)[i] != DType::kFloat32) {
      return absl::InvalidArgumentError(absl::StrCat(names[i], " has dtype ", DTypeName((*in)[i]),
                                                     ", but Proposal supports only float32"));
    }
    SYMX_RETURN_IF_ERROR(AssignType(in, i, DType::kFloat32, names[i]));
  }
  SYMX_RETURN_IF_ERROR(AssignType(out, 0, DType::kFloat32, "output"));
  return AssignType(out, 1, DType::kFloat32, "output score");
}

int ProposalVisible(const NodeAttrs& attrs) {
  return Param<ProposalParam>(attrs).output_score ? 2 : 1;
}

}  // namespace

SYMX_REGISTER_OP("ROIPooling")
    .Describe(
        "Max pooling of each region of interest (rows [batch, x1, y1, x2, y2] of rois, scaled "
        "by spatial_scale and rounded) into pooled_size bins; hidden output `maxidx`.")
    .SetParse(ParseROIPooling)
    .SetInputNames({"data", "rois"})
    .SetOutputNames({"output", "maxidx"})
    .SetNumVisibleOutputs([](const NodeAttrs&) { return 1; })
    .SetInferShape(InferROIPoolingShape)
    .SetGradient(ROIPoolingGradient);

static Op& symx_backward_roi_pooling_registration =
    RegisterBackwardOp("_backward_ROIPooling", ParseROIPooling, {"ograd", "rois", "maxidx"},
                       [](const NodeAttrs&) { return 1; })
        .Describe("Gradient of ROIPooling for data: each output gradient goes to its maxidx.");

SYMX_REGISTER_OP("_contrib_ROIAlign")
    .Describe(
        "Average of bilinear samples of each region of interest (no rounding) over pooled_size "
        "bins; position_sensitive reads one channel group per bin.")
    .SetParse(ParseROIAlign)
    .SetInputNames({"data", "rois"})
    .SetInferShape(InferROIAlignShape)
    .SetGradient(ROIAlignGradient);

static Op& symx_backward_roi_align_registration =
    RegisterBackwardOp("_backward_ROIAlign", ParseROIAlign, {"ograd", "rois"},
                       [](const NodeAttrs&) { return 1; })
        .Describe("Gradient of _contrib_ROIAlign for data (the bilinear weights scattered back).");

SYMX_REGISTER_OP("_contrib_PSROIPooling")
    .Describe(
        "Position-sensitive average pooling of each region of interest (R-FCN): bin (i, j) of "
        "output channel c averages input channel (c * group + gh) * group + gw.")
    .SetParse(ParsePSROIPooling)
    .SetInputNames({"data", "rois"})
    .SetInferShape(InferPSROIPoolingShape)
    .SetGradient(PSROIPoolingGradient);

static Op& symx_backward_psroi_pooling_registration =
    RegisterBackwardOp("_backward_PSROIPooling", ParsePSROIPooling, {"ograd", "rois"},
                       [](const NodeAttrs&) { return 1; })
        .Describe("Gradient of _contrib_PSROIPooling for data: spread evenly over each bin.");

SYMX_REGISTER_OP("_contrib_DeformablePSROIPooling")
    .Describe(
        "Position-sensitive pooling of bilinear samples whose bins move by `trans` (Deformable "
        "R-FCN); hidden output `top_count`, each bin's number of samples.")
    .SetParse(ParseDeformablePSROIPooling)
    .SetInputNames(DeformablePSROIPoolingInputs)
    .SetOutputNames({"output", "top_count"})
    .SetNumVisibleOutputs([](const NodeAttrs&) { return 1; })
    .SetInferShape(InferPSROIPoolingShape)
    .SetGradient(DeformablePSROIPoolingGradient);

static Op& symx_backward_deformable_psroi_pooling_registration =
    RegisterBackwardOp(
        "_backward_DeformablePSROIPooling", ParseDeformablePSROIPooling,
        [](const NodeAttrs& attrs) -> std::vector<std::string> {
          if (Param<PSROIPoolingParam>(attrs).has_trans()) {
            return {"ograd", "data", "rois", "trans", "top_count"};
          }
          return {"ograd", "data", "rois", "top_count"};
        },
        [](const NodeAttrs& attrs) { return Param<PSROIPoolingParam>(attrs).has_trans() ? 3 : 1; })
        .Describe("Gradients of _contrib_DeformablePSROIPooling: data and trans (rois' is zero).");

SYMX_REGISTER_OP("_contrib_RROIAlign")
    .Describe(
        "ROIAlign over rotated regions of interest (rows [batch, cx, cy, w, h, angle in "
        "degrees]); not differentiable (MXNet has no gradient for it).")
    .SetParse(ParseRROIAlign)
    .SetInputNames({"data", "rois"})
    .SetInferShape(InferRROIAlignShape)
    .SetNonDifferentiable();

SYMX_REGISTER_OP("_contrib_Proposal")
    .Describe(
        "Region proposals of one image: anchors moved by bbox_pred, clipped, small boxes "
        "filtered, sorted by foreground score, NMS; rows padded by repeating the kept boxes.")
    .SetParse(ParseProposal)
    .SetInputNames({"cls_prob", "bbox_pred", "im_info"})
    .SetOutputNames({"output", "score"})
    .SetNumVisibleOutputs(ProposalVisible)
    .SetInferShape(InferProposalShape<false>)
    .SetInferType(InferProposalType)
    .SetNonDifferentiable();

SYMX_REGISTER_OP("_contrib_MultiProposal")
    .Describe("_contrib_Proposal for each image of the batch; rows [b, x1, y1, x2, y2].")
    .SetParse(ParseProposal)
    .SetInputNames({"cls_prob", "bbox_pred", "im_info"})
    .SetOutputNames({"output", "score"})
    .SetNumVisibleOutputs(ProposalVisible)
    .SetInferShape(InferProposalShape<true>)
    .SetInferType(InferProposalType)
    .SetNonDifferentiable();

}  // namespace symx
