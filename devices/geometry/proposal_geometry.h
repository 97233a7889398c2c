// Proposal / MultiProposal box arithmetic (Faster R-CNN's region proposals,
// pixel boxes with MXNet's +1 width convention), in float, written once for
// the CPU kernel (devices/cpu/roi_kernels.cc) and the CUDA one
// (devices/cuda/roi.cu). Min and max make std::min/std::max's choices.
#ifndef SYMX_DEVICES_GEOMETRY_PROPOSAL_GEOMETRY_H_
#define SYMX_DEVICES_GEOMETRY_PROPOSAL_GEOMETRY_H_

#include <math.h>

#include <cstdint>

#include "devices/host_device.h"

namespace symx {

SYMX_HOST_DEVICE inline float ProposalMax(float a, float b) { return a < b ? b : a; }
SYMX_HOST_DEVICE inline float ProposalMin(float a, float b) { return b < a ? b : a; }

// The proposal (x1, y1, x2, y2, score) of base anchor `anchor` shifted to
// feature cell (x, y), moved by `delta` (4 values `delta_stride` apart:
// corner offsets with iou_loss, else centre offsets and log sizes), clipped
// into the image; then MXNet's minimum-size rule: a box narrower or shorter
// than `min_size` grows by it and loses its score (-1), as does a cell
// outside the image's real extent (`outside`).
SYMX_HOST_DEVICE inline void ProposalBox(const float* anchor, int64_t x, int64_t y, int64_t stride,
                                         const float* delta, int64_t delta_stride, bool iou_loss,
                                         float im_h, float im_w, float min_size, float score,
                                         bool outside, float* box) {
  const float ax1 = anchor[0] + static_cast<float>(x * stride);
  const float ay1 = anchor[1] + static_cast<float>(y * stride);
  const float ax2 = anchor[2] + static_cast<float>(x * stride);
  const float ay2 = anchor[3] + static_cast<float>(y * stride);
  const float d0 = delta[0], d1 = delta[delta_stride], d2 = delta[2 * delta_stride],
              d3 = delta[3 * delta_stride];
  float x1, y1, x2, y2;
  if (iou_loss) {
    x1 = ax1 + d0;
    y1 = ay1 + d1;
    x2 = ax2 + d2;
    y2 = ay2 + d3;
  } else {
    const float bw = ax2 - ax1 + 1.0f, bh = ay2 - ay1 + 1.0f;
    const float cx = ax1 + 0.5f * (bw - 1.0f), cy = ay1 + 0.5f * (bh - 1.0f);
    const float pcx = d0 * bw + cx, pcy = d1 * bh + cy;
    const float pw = expf(d2) * bw, ph = expf(d3) * bh;
    x1 = pcx - 0.5f * (pw - 1.0f);
    y1 = pcy - 0.5f * (ph - 1.0f);
    x2 = pcx + 0.5f * (pw - 1.0f);
    y2 = pcy + 0.5f * (ph - 1.0f);
  }
  box[0] = ProposalMax(ProposalMin(x1, im_w - 1.0f), 0.0f);
  box[1] = ProposalMax(ProposalMin(y1, im_h - 1.0f), 0.0f);
  box[2] = ProposalMax(ProposalMin(x2, im_w - 1.0f), 0.0f);
  box[3] = ProposalMax(ProposalMin(y2, im_h - 1.0f), 0.0f);
  box[4] = outside ? -1.0f : score;
  const float iw = box[2] - box[0] + 1.0f, ih = box[3] - box[1] + 1.0f;
  if (iw < min_size || ih < min_size) {
    box[0] -= min_size / 2;
    box[1] -= min_size / 2;
    box[2] += min_size / 2;
    box[3] += min_size / 2;
    box[4] = -1.0f;
  }
}

SYMX_HOST_DEVICE inline float ProposalArea(const float* b) {
  return (b[2] - b[0] + 1) * (b[3] - b[1] + 1);
}

// Whether box j overlaps box i by more than `threshold` (IoU, +1 widths).
SYMX_HOST_DEVICE inline bool ProposalSuppresses(const float* bi, float area_i, const float* bj,
                                                float area_j, float threshold) {
  const float xx1 = ProposalMax(bi[0], bj[0]), yy1 = ProposalMax(bi[1], bj[1]);
  const float xx2 = ProposalMin(bi[2], bj[2]), yy2 = ProposalMin(bi[3], bj[3]);
  const float w = ProposalMax(0.0f, xx2 - xx1 + 1.0f), h = ProposalMax(0.0f, yy2 - yy1 + 1.0f);
  const float inter = w * h;
  return inter / (area_i + area_j - inter) > threshold;
}

}  // namespace symx

#endif  // SYMX_DEVICES_GEOMETRY_PROPOSAL_GEOMETRY_H_
