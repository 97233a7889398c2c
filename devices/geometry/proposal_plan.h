// Proposal / MultiProposal's host-side plan for every device: the sizes, the
// base anchors, and the checks (inputs, and each image's im_info against the
// feature map).
#ifndef SYMX_DEVICES_GEOMETRY_PROPOSAL_PLAN_H_
#define SYMX_DEVICES_GEOMETRY_PROPOSAL_PLAN_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "devices/kernel.h"
#include "graph/ops/roi.h"

namespace symx {

// cls_prob (n, 2a, h, w): count = a * h * w proposals per image, the best
// `pre` go through NMS, at most `post_nms` survive, `rows` output rows per
// image (rpn_post_nms_top_n; rows past the survivors repeat them).
struct ProposalDims {
  int64_t n = 0, a = 0, h = 0, w = 0, count = 0, pre = 0, post_nms = 0, rows = 0;
};
ProposalDims GetProposalDims(const ProposalParam& p, const Shape& cls);

// The base anchors (x1, y1, x2, y2) around [0, 0, stride - 1, stride - 1]:
// for each ratio, for each scale, in float as MXNet.
std::vector<float> MakeProposalAnchors(const ProposalParam& p);

// float32 inputs, cls_prob (N, 2 * anchors, H, W), one image for Proposal;
// an empty feature map is an error unless the outputs are empty too (then
// the dims have count or n 0 and there is nothing to do).
absl::StatusOr<ProposalDims> CheckProposal(const KernelContext& ctx, bool multi);

// Image b's extent on the feature map from its im_info height and width: an
// error naming the image when it exceeds the map.
absl::Status CheckProposalImage(const KernelContext& ctx, const ProposalDims& d, int64_t b,
                                float im_h, float im_w, int64_t* real_h, int64_t* real_w);

}  // namespace symx

#endif  // SYMX_DEVICES_GEOMETRY_PROPOSAL_PLAN_H_
