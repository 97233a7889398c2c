// Registers MXNet 1.9.1's SSD-style detection ops: _contrib_MultiBoxPrior,
// _contrib_MultiBoxDetection, _contrib_MultiBoxTarget, _contrib_box_nms (alias
// _contrib_box_non_maximum_suppression) with its backward op, and
// _contrib_box_iou. Facts checked against a live MXNet 1.9.1:
// - MultiBoxPrior: data (N, C, H, W, ...) gives only H = dim 2 and W = dim 3;
//   output float32 (1, H*W*A, 4), A = len(sizes) + len(ratios) - 1, corner
//   boxes (xmin, ymin, xmax, ymax) normalized to [0, 1]. Cell (r, c), row-major,
//   centre ((c + offsets[1]) * step_x, (r + offsets[0]) * step_y) with steps =
//   (step_y, step_x), -1 meaning 1/H and 1/W; its anchors are every size s with
//   ratios[0], then every further ratio q with sizes[0]; half-width
//   s * H / W * sqrt(q) / 2, half-height s / sqrt(q) / 2; clip clamps to [0, 1].
//   The gradient is zero. (MXNet accepts only float32 data; symx takes any
//   dtype, since only the shape is read. MXNet accepts empty, zero and negative
//   sizes/ratios and more than two offsets; symx rejects them.)
// - MultiBoxDetection: cls_prob (N, C, A), loc_pred (N, A*4), anchor (B, A, 4)
//   (only anchor[0] is read) -> (N, A, 6) rows [id, score, xmin, ymin, xmax,
//   ymax]. Per batch, in anchor order: the class j in 1..C-1 with the largest
//   probability (strictly larger than the running best, which starts at -1;
//   class 0 is always the background: MXNet 1.9.1's CPU kernel ignores
//   background_id) with probability >= threshold gives a row [j - 1, p, box],
//   box = the anchor moved by loc_pred: centre + loc[0:2] * variances[0:2] *
//   anchor size, size * exp(loc[2:4] * variances[2:4]), clipped to [0, 1]
//   with clip. The n valid rows are first; the rest are -1. Unless
//   nms_threshold <= 0 or > 1 (then the rows stay in anchor order), the first
//   k = min(n, nms_topk if > 0) rows in descending score order are written
//   first, rows k..n-1 keep their anchor-order contents with id -1 (MXNet's
//   leftovers), and each of the k rows in turn gives id -1 to later ones with
//   IoU >= nms_threshold (not strict) and the same id (any id with
//   force_suppress). Not differentiable.
// - MultiBoxTarget: anchor (1, A, 4), label (N, M, W >= 5) rows [class, xmin,
//   ymin, xmax, ymax, ...] (the first row of class -1 ends a batch's boxes),
//   cls_pred (N, C, A) -> loc_target (N, A*4), loc_mask (N, A*4), cls_target
//   (N, A). Per batch with G > 0 boxes: bipartite matching (repeatedly the
//   largest IoU > 1e-6 between an unmatched anchor and an unmatched box,
//   earliest anchor then box on ties), then with overlap_threshold > 0 every
//   other anchor whose best IoU is > overlap_threshold takes that box. Matched
//   anchors are positives: cls_target = class + 1, mask 1, target ((gx - ax) /
//   aw / v0, (gy - ay) / ah / v1, log(gw / aw) / v2, log(gh / ah) / v3). With
//   negative_mining_ratio > 0, min(positives * ratio (truncated), A -
//   positives) of the unmatched anchors whose best IoU is <
//   negative_mining_thresh, those of lowest background (class 0) softmax
//   probability of cls_pred, are negatives (cls_target 0) and the rest get
//   ignore_label; without mining every unmatched anchor is negative. A batch
//   without boxes gets ignore_label everywhere. MXNet 1.9.1's CPU kernel
//   ignores minimum_negative_samples; so does symx. Not differentiable.
// - box_nms: data (..., num_box, width), leading dims are batches. Per batch:
//   rows with score > valid_thresh (strict) and, when id_index >= 0, id !=
//   background_id (also when it is the default -1) are candidates; sorted by
//   score descending, cut to the first topk (topk > 0), then greedily each kept
//   row suppresses later rows whose IoU with it is > overlap_thresh (strict),
//   only rows of the same id unless force_suppress or id_index < 0. The output
//   has the kept rows in score order, then rows of -1; box coordinates are
//   converted from in_format to out_format, other columns copied (MXNet's
//   quirk, kept: a row whose first coordinate is negative is not converted,
//   since MXNet takes x < 0 for a filler row). A hidden
//   output `out_index` (data shape without the last dim) records each output
//   row's source row (-1 for filler); the gradient routes each output row's
//   gradient back to its source row, zero elsewhere.
// - box_iou: lhs (..., 4), rhs (..., 4), each at least 2-D ->
//   lhs.shape[:-1] + rhs.shape[:-1];
//   boxes with negative width or height have area 0; IoU is 0 where the union
//   is not positive. The gradient is zero.
// - box_encode: samples (B, N), matches (B, N), anchors (B, N, 4) corner
//   boxes, refs (B, M, 4) corner boxes, means (4,), stds (4,) -> targets and
//   masks, both (B, N, 4). Sample (b, i) is valid when samples > 0.5: its mask
//   is 1 and its targets are ((rx - ax) / aw - means[0]) / stds[0], the same
//   for y with the height, (log(rw / aw) - means[2]) / stds[2] and the same for
//   the height, where r is refs[b, matches[b, i]] (the match truncated toward
//   zero) and x, y are centres; an invalid sample has mask and targets 0. The
//   gradient is zero. (MXNet reads out of range for a valid sample whose match
//   is not in [0, M); symx gives it NaN targets. MXNet accepts anchors and refs
//   of more than 3 dims and then fails at run time; symx asks for 3 dims.)
// - box_decode: data (B, N, 4) offsets, anchors (1, N, 4) in `format`
//   (default center) -> (B, N, 4) corner boxes: centre = offset[0:2] * std0/1
//   * anchor size + anchor centre, size = exp(offset[2:4] * std2/3, first
//   clipped to at most clip when clip > 0) * anchor size. The gradient is zero.
// - bipartite_matching: data (..., R, C) scores -> row matches (..., R) and
//   column matches (..., C), -1 where unmatched. Per batch, the R*C pairs in
//   a stable sort of their scores (descending, ascending with is_ascend; ties
//   in row-major order, MXNet's std::stable_sort) are taken in turn: a pair
//   whose row and column are both free matches them when its score is >
//   threshold (< with is_ascend; threshold rounded to float32), and the first
//   free pair that fails the test ends the batch. MXNet counts the matches and
//   stops once the count exceeds topk (topk > 0): topk + 1 matches at most,
//   kept. The gradient is zero.
// MXNet's MultiBoxDetection and MultiBoxTarget take float32 only; symx's
// kernels also take float64. symx requires loc_pred's batch to be cls_prob's
// and cls_pred's to be label's, which MXNet does not check (it reads out of
// range).
#include "graph/ops/detection.h"

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "graph/infer_util.h"
#include "graph/op.h"
#include "graph/ops/op_helpers.h"

namespace symx {
namespace {

// A "tuple of <float>" attribute with its default written as MXNet shows it.
std::vector<double> FloatTuple(ParamReader* r, const char* key, const std::string& def) {
  absl::StatusOr<std::vector<double>> d = ParseFloatTuple(def);
  return r->FloatTuple(key, d.ok() ? *d : std::vector<double>{});
}

// ------------------------------------------------------------------ MultiBoxPrior

absl::StatusOr<OpParamPtr> ParseMultiBoxPrior(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<MultiBoxPriorParam>();
  p->sizes = FloatTuple(&r, "sizes", "(1)");
  p->ratios = FloatTuple(&r, "ratios", "(1)");
  p->clip = r.Bool("clip", false);
  std::vector<double> steps = FloatTuple(&r, "steps", "(-1, -1)");
  std::vector<double> offsets = FloatTuple(&r, "offsets", "(0.5, 0.5)");
  auto positive = [&](const char* key, const std::vector<double>& v) {
    if (v.empty()) r.Fail(key, "must have at least one value");
    for (double x : v) {
      if (!(x > 0) || !std::isfinite(x)) {
        r.Fail(key, "every value must be a finite number > 0");
        break;
      }
    }
  };
  positive("sizes", p->sizes);
  positive("ratios", p->ratios);
  if (steps.size() == 2) {
    p->step_y = steps[0];
    p->step_x = steps[1];
  } else {
    r.Fail("steps", "must have 2 values (step_y, step_x)");
  }
  if (offsets.size() == 2) {
    p->offset_y = offsets[0];
    p->offset_x = offsets[1];
  } else {
    r.Fail("offsets", "must have 2 values (offset_y, offset_x)");
  }
  return r.Finish(std::move(p));
}

absl::Status InferMultiBoxPriorShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                                     std::vector<Shape>* out) {
  const Shape& d = (*in)[0];
  if (!d.ndim_known()) return absl::OkStatus();
  if (d.ndim() < 4) return ShapeError("input data", d, "at least 4 dims (batch, channel, y, x)");
  if (d[2] < 0 || d[3] < 0) return absl::OkStatus();
  const int64_t a = Param<MultiBoxPriorParam>(attrs).num_anchors();
  return AssignShape(out, 0, Shape({1, d[2] * d[3] * a, 4}), "output");
}

absl::Status InferMultiBoxPriorType(const NodeAttrs&, std::vector<DType>*,
                                    std::vector<DType>* out) {
  return AssignType(out, 0, DType::kFloat32, "output");
}

// ------------------------------------------------------------------ MultiBoxDetection

absl::StatusOr<OpParamPtr> ParseMultiBoxDetection(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<MultiBoxDetectionParam>();
  p->clip = r.Bool("clip", true);
  p->threshold = r.Float("threshold", 0.01);
  p->background_id = r.Int("background_id", 0);
  p->nms_threshold = r.Float("nms_threshold", 0.5);
  p->force_suppress = r.Bool("force_suppress", false);
  p->variances = FloatTuple(&r, "variances", "(0.1, 0.1, 0.2, 0.2)");
  p->nms_topk = r.Int("nms_topk", -1);
  if (p->variances.size() != 4) r.Fail("variances", "must have 4 values");
  for (double v : p->variances) {
    if (!std::isfinite(v)) r.Fail("variances", "must be finite");
  }
  if (std::isnan(p->threshold)) r.Fail("threshold", "must be a number");
  if (std::isnan(p->nms_threshold)) r.Fail("nms_threshold", "must be a number");
  return r.Finish(std::move(p));
}

absl::Status InferMultiBoxDetectionShape(const NodeAttrs&, std::vector<Shape>* in,
                                         std::vector<Shape>* out) {
  const Shape& c = (*in)[0];
  const Shape& l = (*in)[1];
  const Shape& a = (*in)[2];
  if (c.ndim_known() && c.ndim() != 3) {
    return ShapeError("input cls_prob", c, "3 dims (batch, classes, anchors)");
  }
  if (l.ndim_known() && l.ndim() != 2) {
    return ShapeError("input loc_pred", l, "2 dims (batch, anchors * 4)");
  }
  if (a.ndim_known() && (a.ndim() != 3 || (a[2] >= 0 && a[2] != 4))) {
    return ShapeError("input anchor", a, "3 dims (1, anchors, 4)");
  }
  if (!c.ndim_known()) return absl::OkStatus();
  const int64_t n = c[0], anchors = c[2];
  if (anchors >= 0) {
    if (l.ndim_known()) {
      SYMX_RETURN_IF_ERROR(
          AssignShape(in, 1, Shape({n, anchors * 4}), "input loc_pred (anchors * 4 per batch)"));
    }
    if (a.ndim_known() && a[1] >= 0 && a[1] != anchors) {
      return ShapeError("input anchor", a, absl::StrCat(anchors, " anchors, as cls_prob"));
    }
  }
  return AssignShape(out, 0, Shape({n, anchors, 6}), "output");
}

// ------------------------------------------------------------------ MultiBoxTarget

absl::StatusOr<OpParamPtr> ParseMultiBoxTarget(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<MultiBoxTargetParam>();
  p->overlap_threshold = r.Float("overlap_threshold", 0.5);
  p->ignore_label = r.Float("ignore_label", -1);
  p->negative_mining_ratio = r.Float("negative_mining_ratio", -1);
  p->negative_mining_thresh = r.Float("negative_mining_thresh", 0.5);
  p->minimum_negative_samples = r.Int("minimum_negative_samples", 0);
  p->variances = FloatTuple(&r, "variances", "(0.1, 0.1, 0.2, 0.2)");
  if (p->variances.size() != 4) r.Fail("variances", "must have 4 values");
  for (double v : p->variances) {
    if (!std::isfinite(v) || v == 0) r.Fail("variances", "must be finite and non-zero");
  }
  if (std::isnan(p->overlap_threshold)) r.Fail("overlap_threshold", "must be a number");
  if (std::isnan(p->negative_mining_ratio)) r.Fail("negative_mining_ratio", "must be a number");
  if (std::isnan(p->negative_mining_thresh)) r.Fail("negative_mining_thresh", "must be a number");
  return r.Finish(std::move(p));
}

absl::Status InferMultiBoxTargetShape(const NodeAttrs&, std::vector<Shape>* in,
                                      std::vector<Shape>* out) {
  const Shape& a = (*in)[0];
  const Shape& l = (*in)[1];
  const Shape& c = (*in)[2];
  if (a.ndim_known() && (a.ndim() != 3 || (a[0] >= 0 && a[0] != 1) || (a[2] >= 0 && a[2] != 4))) {
    return ShapeError("input anchor", a, "(1, anchors, 4): anchors are shared by the batch");
  }
  if (l.ndim_known() && (l.ndim() != 3 || (l[2] >= 0 && l[2] < 5))) {
    return ShapeError("input label", l, "3 dims (batch, boxes, width >= 5)");
  }
  if (c.ndim_known() && c.ndim() != 3) {
    return ShapeError("input cls_pred", c, "3 dims (batch, classes, anchors)");
  }
  if (!a.ndim_known() || !l.ndim_known()) return absl::OkStatus();
  const int64_t n = l[0], anchors = a[1];
  if (c.ndim_known() && anchors >= 0 && c[2] >= 0 && c[2] != anchors) {
    return ShapeError("input cls_pred", c, absl::StrCat(anchors, " anchors, as anchor"));
  }
  if (c.ndim_known() && n >= 0 && c[0] >= 0 && c[0] != n) {
    return ShapeError("input cls_pred", c, absl::StrCat("batch ", n, ", as label"));
  }
  const int64_t four = anchors < 0 ? kUnknownDim : anchors * 4;
  SYMX_RETURN_IF_ERROR(AssignShape(out, 0, Shape({n, four}), "output loc_target"));
  SYMX_RETURN_IF_ERROR(AssignShape(out, 1, Shape({n, four}), "output loc_mask"));
  return AssignShape(out, 2, Shape({n, anchors}), "output cls_target");
}

// ------------------------------------------------------------------ box_nms

absl::StatusOr<OpParamPtr> ParseBoxNms(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<BoxNmsParam>();
  p->overlap_thresh = r.Float("overlap_thresh", 0.5);
  p->valid_thresh = r.Float("valid_thresh", 0);
  p->topk = r.Int("topk", -1);
  p->coord_start = r.Int("coord_start", 2);
  p->score_index = r.Int("score_index", 1);
  p->id_index = r.Int("id_index", -1);
  p->background_id = r.Int("background_id", -1);
  p->force_suppress = r.Bool("force_suppress", false);
  p->in_center = r.Enum("in_format", {"center", "corner"}, "corner") == "center";
  p->out_center = r.Enum("out_format", {"center", "corner"}, "corner") == "center";
  if (std::isnan(p->overlap_thresh)) r.Fail("overlap_thresh", "must be a number");
  if (std::isnan(p->valid_thresh)) r.Fail("valid_thresh", "must be a number");
  if (p->coord_start < 0) r.Fail("coord_start", "must be >= 0");
  if (p->score_index < 0) r.Fail("score_index", "must be >= 0");
  return r.Finish(std::move(p));
}

absl::Status InferBoxNmsShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                              std::vector<Shape>* out) {
  SYMX_RETURN_IF_ERROR(AssignShape(in, 0, (*out)[0], "input data"));
  SYMX_RETURN_IF_ERROR(AssignShape(out, 0, (*in)[0], "output"));
  const Shape& d = (*in)[0];
  if (!d.ndim_known()) return absl::OkStatus();
  if (d.ndim() < 2) return ShapeError("input data", d, "at least 2 dims (..., num_box, width)");
  const int64_t width = d[d.ndim() - 1];
  if (width >= 0) {
    const auto& p = Param<BoxNmsParam>(attrs);
    if (p.coord_start + 3 >= width) {
      return ShapeError("input data", d,
                        absl::StrCat("a last dim > coord_start + 3 = ", p.coord_start + 3));
    }
    if (p.score_index >= width) {
      return ShapeError("input data", d,
                        absl::StrCat("a last dim > score_index = ", p.score_index));
    }
    if (p.id_index >= width) {
      return ShapeError("input data", d, absl::StrCat("a last dim > id_index = ", p.id_index));
    }
  }
  std::vector<int64_t> rows = d.dims();
  rows.pop_back();
  return AssignShape(out, 1, Shape(rows), "output out_index");
}

std::vector<NodeEntry> BoxNmsGradient(const NodePtr& node, const std::vector<NodeEntry>& ograds) {
  if (!ograds[0].node) return {NodeEntry{}};
  return MakeBackwardNode("_backward_contrib_box_nms", node, {ograds[0], Out(node, 1)});
}

// ------------------------------------------------------------------ box_iou

absl::StatusOr<OpParamPtr> ParseBoxIou(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<BoxIouParam>();
  p->center = r.Enum("format", {"center", "corner"}, "corner") == "center";
  return r.Finish(std::move(p));
}

absl::Status InferBoxIouShape(const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape& l = (*in)[0];
  const Shape& r = (*in)[1];
  if (l.ndim_known() && (l.ndim() < 2 || (l[l.ndim() - 1] >= 0 && l[l.ndim() - 1] != 4))) {
    return ShapeError("input lhs", l, "at least 2 dims and a last dim of 4 (one box per row)");
  }
  if (r.ndim_known() && (r.ndim() < 2 || (r[r.ndim() - 1] >= 0 && r[r.ndim() - 1] != 4))) {
    return ShapeError("input rhs", r, "at least 2 dims and a last dim of 4 (one box per row)");
  }
  if (!l.ndim_known() || !r.ndim_known()) return absl::OkStatus();
  std::vector<int64_t> dims(l.dims().begin(), l.dims().end() - 1);
  dims.insert(dims.end(), r.dims().begin(), r.dims().end() - 1);
  return AssignShape(out, 0, Shape(dims), "output");
}

// ------------------------------------------------------------------ bipartite_matching

absl::StatusOr<OpParamPtr> ParseBipartiteMatching(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<BipartiteMatchingParam>();
  p->is_ascend = r.Bool("is_ascend", false);
  p->threshold = r.Float("threshold");
  p->topk = r.Int("topk", -1);
  return r.Finish(std::move(p));
}

absl::Status InferBipartiteMatchingShape(const NodeAttrs&, std::vector<Shape>* in,
                                         std::vector<Shape>* out) {
  const Shape& d = (*in)[0];
  if (!d.ndim_known()) return absl::OkStatus();
  if (d.ndim() < 2) return ShapeError("input data", d, "at least 2 dims (..., rows, columns)");
  std::vector<int64_t> rows(d.dims().begin(), d.dims().end() - 1);
  std::vector<int64_t> cols(d.dims().begin(), d.dims().end() - 2);
  cols.push_back(d[d.ndim() - 1]);
  SYMX_RETURN_IF_ERROR(AssignShape(out, 0, Shape(rows), "output 0 (row matches)"));
  return AssignShape(out, 1, Shape(cols), "output 1 (column matches)");
}

// ------------------------------------------------------------------ box_encode

absl::Status InferBoxEncodeShape(const NodeAttrs&, std::vector<Shape>* in,
                                 std::vector<Shape>* out) {
  SYMX_RETURN_IF_ERROR(AssignShape(in, 4, Shape({4}), "input means"));
  SYMX_RETURN_IF_ERROR(AssignShape(in, 5, Shape({4}), "input stds"));
  const Shape& s = (*in)[0];
  const Shape& m = (*in)[1];
  const Shape& a = (*in)[2];
  const Shape& r = (*in)[3];
  if (s.ndim_known() && s.ndim() != 2) return ShapeError("input samples", s, "2 dims (B, N)");
  if (m.ndim_known() && m.ndim() != 2) return ShapeError("input matches", m, "2 dims (B, N)");
  if (a.ndim_known() && (a.ndim() != 3 || (a[2] >= 0 && a[2] != 4))) {
    return ShapeError("input anchors", a, "3 dims (B, N, 4)");
  }
  if (r.ndim_known() && (r.ndim() != 3 || (r[2] >= 0 && r[2] != 4))) {
    return ShapeError("input refs", r, "3 dims (B, M, 4)");
  }
  if (!a.ndim_known()) return absl::OkStatus();
  SYMX_RETURN_IF_ERROR(AssignShape(out, 0, a, "output targets"));
  SYMX_RETURN_IF_ERROR(AssignShape(out, 1, a, "output masks"));
  if (!a.fully_known()) return absl::OkStatus();
  const Shape bn({a[0], a[1]});
  if (s.fully_known() && s != bn) {
    return ShapeError("input samples", s, absl::StrCat("anchors' (B, N) ", bn.ToString()));
  }
  if (m.fully_known() && m != bn) {
    return ShapeError("input matches", m, absl::StrCat("anchors' (B, N) ", bn.ToString()));
  }
  if (r.ndim_known() && r[0] >= 0 && r[0] != a[0]) {
    return ShapeError("input refs", r, absl::StrCat("anchors' batch B = ", a[0]));
  }
  return absl::OkStatus();
}

// ------------------------------------------------------------------ box_decode

absl::StatusOr<OpParamPtr> ParseBoxDecode(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<BoxDecodeParam>();
  p->std0 = r.Float("std0", 1.0);
  p->std1 = r.Float("std1", 1.0);
  p->std2 = r.Float("std2", 1.0);
  p->std3 = r.Float("std3", 1.0);
  p->clip = r.Float("clip", -1.0);
  p->center = r.Enum("format", {"center", "corner"}, "center") == "center";
  return r.Finish(std::move(p));
}

absl::Status InferBoxDecodeShape(const NodeAttrs&, std::vector<Shape>* in,
                                 std::vector<Shape>* out) {
  const Shape& d = (*in)[0];
  const Shape& a = (*in)[1];
  if (d.ndim_known() && (d.ndim() != 3 || (d[2] >= 0 && d[2] != 4))) {
    return ShapeError("input data", d, "3 dims (B, N, 4)");
  }
  if (a.ndim_known() && (a.ndim() != 3 || (a[0] >= 0 && a[0] != 1) || (a[2] >= 0 && a[2] != 4))) {
    return ShapeError("input anchors", a, "3 dims (1, N, 4)");
  }
  if (d.ndim_known() && a.ndim_known() && d[1] >= 0 && a[1] >= 0 && d[1] != a[1]) {
    return ShapeError("input anchors", a, absl::StrCat("data's N = ", d[1], " anchors"));
  }
  if (!d.ndim_known()) return absl::OkStatus();
  return AssignShape(out, 0, d, "output");
}

}  // namespace

SYMX_REGISTER_OP("_contrib_MultiBoxPrior")
    .Describe(
        "SSD anchor boxes for each cell of data's (H, W) feature map: (1, H*W*A, 4) corner "
        "boxes, every size with ratios[0] then every other ratio with sizes[0].")
    .SetParse(ParseMultiBoxPrior)
    .SetInferShape(InferMultiBoxPriorShape)
    .SetInferType(InferMultiBoxPriorType)
    .SetGradient(ZeroGradient);

SYMX_REGISTER_OP("_contrib_MultiBoxDetection")
    .Describe(
        "SSD detections from class probabilities, box offsets and anchors: (N, A, 6) rows "
        "[class, score, xmin, ymin, xmax, ymax] sorted by score after per-class NMS.")
    .SetParse(ParseMultiBoxDetection)
    .SetInputNames({"cls_prob", "loc_pred", "anchor"})
    .SetInferShape(InferMultiBoxDetectionShape)
    .SetNonDifferentiable();

SYMX_REGISTER_OP("_contrib_MultiBoxTarget")
    .Describe(
        "SSD training targets: anchors matched to labelled boxes (bipartite, then by "
        "overlap_threshold), optional hard negative mining; outputs loc_target, loc_mask, "
        "cls_target.")
    .SetParse(ParseMultiBoxTarget)
    .SetInputNames({"anchor", "label", "cls_pred"})
    .SetOutputNames({"loc_target", "loc_mask", "cls_target"})
    .SetInferShape(InferMultiBoxTargetShape)
    .SetNonDifferentiable();

SYMX_REGISTER_OP("_contrib_box_nms")
    .Describe(
        "Non-maximum suppression per batch of (num_box, width) rows: kept rows sorted by score, "
        "then rows of -1; hidden output out_index (each output row's source row).")
    .AddAlias("_contrib_box_non_maximum_suppression")
    .SetParse(ParseBoxNms)
    .SetOutputNames({"output", "out_index"})
    .SetNumVisibleOutputs([](const NodeAttrs&) { return 1; })
    .SetInferShape(InferBoxNmsShape)
    .SetGradient(BoxNmsGradient);

static Op& symx_backward_box_nms_registration =
    RegisterBackwardOp("_backward_contrib_box_nms", ParseBoxNms, {"ograd", "out_index"},
                       [](const NodeAttrs&) { return 1; })
        .Describe("Gradient of _contrib_box_nms: each output row's gradient to its source row.");

SYMX_REGISTER_OP("_contrib_box_iou")
    .Describe("Pairwise IoU of lhs (..., 4) and rhs (..., 4) boxes: lhs[:-1] + rhs[:-1].")
    .SetParse(ParseBoxIou)
    .SetInputNames({"lhs", "rhs"})
    .SetInferShape(InferBoxIouShape)
    .SetGradient(ZeroGradient);

SYMX_REGISTER_OP("_contrib_bipartite_matching")
    .Describe(
        "Greedy bipartite matching of (..., R, C) scores, best first: each row's matched column "
        "(..., R) and each column's matched row (..., C), -1 where unmatched.")
    .SetParse(ParseBipartiteMatching)
    .SetOutputNames({"output0", "output1"})
    .SetInferShape(InferBipartiteMatchingShape)
    .SetGradient(ZeroGradient);

SYMX_REGISTER_OP("_contrib_box_encode")
    .Describe(
        "Training targets of matched boxes: (B, N, 4) normalized centre offsets and log size "
        "ratios of refs[matches] to anchors, and their (B, N, 4) masks (samples > 0.5).")
    .SetParse(ParseNoParams)
    .SetInputNames({"samples", "matches", "anchors", "refs", "means", "stds"})
    .SetOutputNames({"targets", "masks"})
    .SetIndexInputs({1})
    .SetInferShape(InferBoxEncodeShape)
    .SetGradient(ZeroGradient);

SYMX_REGISTER_OP("_contrib_box_decode")
    .Describe(
        "Boxes from (B, N, 4) offsets to (1, N, 4) anchors (center or corner form): (B, N, 4) "
        "corner boxes.")
    .SetParse(ParseBoxDecode)
    .SetInputNames({"data", "anchors"})
    .SetInferShape(InferBoxDecodeShape)
    .SetGradient(ZeroGradient);

}  // namespace symx
