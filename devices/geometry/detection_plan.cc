#include "devices/geometry/detection_plan.h"

#include <cmath>

#include "absl/strings/str_cat.h"

namespace symx {
absl::StatusOr<PriorGrid> MakePriorGrid(const KernelContext& ctx) {
  const auto& p = ctx.param<MultiBoxPriorParam>();
  const Tensor& out = ctx.outputs[0];
  if (out.dtype() != DType::kFloat32) return UnsupportedDType(ctx, out.dtype());
  const Shape& d = ctx.inputs[0].shape();
  if (d.ndim() < 4) {  // the schema's check; dims 2 and 3 are the map, as MXNet
    return Fail(ctx, absl::StrCat("data ", ctx.inputs[0].DebugString(), " must be 4-D"));
  }
  PriorGrid g;
  g.in_h = d[2];
  g.in_w = d[3];
  g.anchors = p.num_anchors();
  if (out.size() != g.in_h * g.in_w * g.anchors * 4) {
    return Fail(ctx, absl::StrCat("output ", out.DebugString(), " should have ",
                                  g.in_h * g.in_w * g.anchors * 4, " elements"));
  }
  if (out.size() == 0) return g;
  g.step_y = p.step_y > 0 ? static_cast<float>(p.step_y) : 1.0f / g.in_h;
  g.step_x = p.step_x > 0 ? static_cast<float>(p.step_x) : 1.0f / g.in_w;
  g.off_y = static_cast<float>(p.offset_y);
  g.off_x = static_cast<float>(p.offset_x);
  const float aspect = static_cast<float>(g.in_h) / static_cast<float>(g.in_w);
  const float r0 = std::sqrt(static_cast<float>(p.ratios[0]));
  for (double s : p.sizes) {
    const float fs = static_cast<float>(s);
    g.half.push_back(fs * aspect * r0 / 2);
    g.half.push_back(fs / r0 / 2);
  }
  const float s0 = static_cast<float>(p.sizes[0]);
  for (size_t j = 1; j < p.ratios.size(); ++j) {
    const float rq = std::sqrt(static_cast<float>(p.ratios[j]));
    g.half.push_back(s0 * aspect * rq / 2);
    g.half.push_back(s0 / rq / 2);
  }
  return g;
}

absl::StatusOr<BoxNmsDims> CheckBoxNms(const KernelContext& ctx) {
  const auto& p = ctx.param<BoxNmsParam>();
  const Tensor& data = ctx.inputs[0];
  const Shape& s = data.shape();
  if (s.ndim() < 2) return Fail(ctx, absl::StrCat("input ", data.DebugString(), " must be 2-D+"));
  BoxNmsDims d;
  d.width = s[s.ndim() - 1];
  d.n = s[s.ndim() - 2];
  d.batches = (d.n * d.width) == 0 ? 0 : data.size() / (d.n * d.width);
  if (p.coord_start + 3 >= d.width || p.score_index >= d.width || p.id_index >= d.width) {
    return Fail(ctx, absl::StrCat("input ", data.DebugString(), " is too narrow for the indices"));
  }
  if (ctx.outputs[0].read_raw_data() == data.read_raw_data()) {
    return Fail(ctx, "output may not alias the input");
  }
  return d;
}

absl::StatusOr<BoxNmsDims> CheckBoxNmsBackward(const KernelContext& ctx) {
  const Tensor& og = ctx.inputs[0];
  const Tensor& rec = ctx.inputs[1];
  const Shape& s = og.shape();
  if (s.ndim() < 2) return Fail(ctx, absl::StrCat("ograd ", og.DebugString(), " must be 2-D+"));
  BoxNmsDims d;
  d.n = s[s.ndim() - 2];
  const int64_t rows = rec.size();  // one source index per output row
  d.width = rows == 0 ? 0 : og.size() / rows;
  d.batches = d.n == 0 ? 0 : rows / d.n;
  if (d.batches * d.n != rows) {
    return Fail(ctx, absl::StrCat("out_index ", rec.DebugString(), " does not hold ", d.n,
                                  " rows per batch of ograd ", og.DebugString()));
  }
  if (ctx.outputs[0].size() != og.size()) return Fail(ctx, "gradient and output sizes differ");
  return d;
}

absl::StatusOr<MultiBoxDims> CheckMultiBoxDetection(const KernelContext& ctx) {
  const Tensor& cls = ctx.inputs[0];
  const Tensor& loc = ctx.inputs[1];
  const Tensor& anc = ctx.inputs[2];
  if (cls.shape().ndim() != 3) {
    return Fail(ctx, absl::StrCat("cls_prob ", cls.DebugString(), " must be 3-D"));
  }
  MultiBoxDims d{cls.shape()[0], cls.shape()[1], cls.shape()[2]};
  if (loc.size() != d.batch * d.anchors * 4 || anc.size() < d.anchors * 4 ||
      ctx.outputs[0].size() != d.batch * d.anchors * 6) {
    return Fail(ctx, "inputs do not match cls_prob's batch and anchor counts");
  }
  if (loc.dtype() != cls.dtype() || anc.dtype() != cls.dtype()) {
    return Fail(ctx, "cls_prob, loc_pred and anchor must have one dtype");
  }
  return d;
}

absl::StatusOr<MultiBoxTargetDims> CheckMultiBoxTarget(const KernelContext& ctx) {
  const Tensor& anc = ctx.inputs[0];
  const Tensor& lab = ctx.inputs[1];
  const Tensor& cls = ctx.inputs[2];
  if (anc.shape().ndim() != 3 || lab.shape().ndim() != 3 || cls.shape().ndim() != 3) {
    return Fail(ctx, absl::StrCat("anchor ", anc.DebugString(), ", label ", lab.DebugString(),
                                  " and cls_pred ", cls.DebugString(), " must be 3-D"));
  }
  MultiBoxTargetDims d;
  d.anchors = anc.shape()[1];
  d.batch = lab.shape()[0];
  d.labels = lab.shape()[1];
  d.label_width = lab.shape()[2];
  d.classes = cls.shape()[1];
  if (lab.dtype() != anc.dtype() || cls.dtype() != anc.dtype()) {
    return Fail(ctx, "anchor, label and cls_pred must have one dtype");
  }
  if (cls.shape()[0] != d.batch || cls.shape()[2] != d.anchors ||
      ctx.outputs[2].size() != d.batch * d.anchors) {
    return Fail(ctx, "inputs do not match label's batch and anchor's anchor count");
  }
  return d;
}

}  // namespace symx
