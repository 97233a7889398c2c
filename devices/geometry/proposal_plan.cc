#include "devices/geometry/proposal_plan.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"

namespace symx {

ProposalDims GetProposalDims(const ProposalParam& p, const Shape& cls) {
  ProposalDims d;
  d.n = cls[0];
  d.a = cls[1] / 2;
  d.h = cls[2];
  d.w = cls[3];
  d.count = d.a * d.h * d.w;
  d.pre = p.rpn_pre_nms_top_n > 0 ? p.rpn_pre_nms_top_n : d.count;
  d.pre = std::min(d.pre, d.count);
  d.post_nms = std::min(p.rpn_post_nms_top_n, d.pre);
  d.rows = p.rpn_post_nms_top_n;
  return d;
}

std::vector<float> MakeProposalAnchors(const ProposalParam& p) {
  std::vector<float> out;
  const float base = static_cast<float>(p.feature_stride) - 1.0f;
  const float w = base + 1.0f, h = base + 1.0f;
  const float xc = 0.5f * (w - 1.0f), yc = 0.5f * (h - 1.0f);
  const float size = w * h;
  for (float ratio : p.ratios) {
    for (float scale : p.scales) {
      const float size_ratios = std::floor(size / ratio);
      const float nw = std::floor(std::sqrt(size_ratios) + 0.5f) * scale;
      const float nh = std::floor((nw / scale * ratio) + 0.5f) * scale;
      out.push_back(xc - 0.5f * (nw - 1.0f));
      out.push_back(yc - 0.5f * (nh - 1.0f));
      out.push_back(xc + 0.5f * (nw - 1.0f));
      out.push_back(yc + 0.5f * (nh - 1.0f));
    }
  }
  return out;
}

absl::StatusOr<ProposalDims> CheckProposal(const KernelContext& ctx, bool multi) {
  const auto& p = ctx.param<ProposalParam>();
  for (const Tensor& t : ctx.inputs) {
    if (t.dtype() != DType::kFloat32) return UnsupportedDType(ctx, t.dtype());
  }
  const Shape& cs = ctx.inputs[0].shape();
  if (cs.ndim() != 4 || cs[1] != 2 * p.num_anchors()) {
    return Fail(ctx, absl::StrCat("cls_prob ", cs.ToString(), " should be (N, ",
                                  2 * p.num_anchors(), ", H, W)"));
  }
  if (!multi && cs[0] != 1) {
    return Fail(ctx, "Proposal takes a batch of one image (use _contrib_MultiProposal)");
  }
  const ProposalDims d = GetProposalDims(p, cs);
  if ((d.count == 0 || d.n == 0) && ctx.outputs[0].size() != 0) {
    return Fail(ctx, "no anchors: the feature map is empty");
  }
  return d;
}

absl::Status CheckProposalImage(const KernelContext& ctx, const ProposalDims& d, int64_t b,
                                float im_h, float im_w, int64_t* real_h, int64_t* real_w) {
  const auto& p = ctx.param<ProposalParam>();
  const float stride = static_cast<float>(p.feature_stride);
  *real_h = static_cast<int64_t>(im_h / stride);
  *real_w = static_cast<int64_t>(im_w / stride);
  if (*real_h > d.h || *real_w > d.w) {
    return Fail(ctx, absl::StrCat("image ", b, ": im_info height/width ", im_h, "/", im_w,
                                  " over feature_stride ", p.feature_stride,
                                  " exceed the feature map ", d.h, "x", d.w));
  }
  return absl::OkStatus();
}

}  // namespace symx
