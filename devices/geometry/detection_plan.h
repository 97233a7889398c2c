// Host-side pieces of the detection ops shared by the CPU and GPU kernels:
// MultiBoxPrior's anchor sizes and grid, and box_nms's row layout checks.
#ifndef SYMX_DEVICES_GEOMETRY_DETECTION_PLAN_H_
#define SYMX_DEVICES_GEOMETRY_DETECTION_PLAN_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "devices/kernel.h"
#include "graph/ops/detection.h"

namespace symx {

// MultiBoxPrior over an (in_h, in_w) feature map, computed in float as MXNet:
// the centre of cell (r, c) is ((r + offset_y) * step_y, (c + offset_x) *
// step_x), and anchor j of a cell spans +-half[2j] across and +-half[2j + 1]
// down (every size with ratios[0], then every other ratio with sizes[0]).
struct PriorGrid {
  int64_t in_h = 0, in_w = 0, anchors = 0;
  float step_y = 0, step_x = 0, off_y = 0, off_x = 0;
  std::vector<float> half;  // 2 * anchors
};
// Also checks the output: float32, in_h * in_w * anchors * 4 elements.
absl::StatusOr<PriorGrid> MakePriorGrid(const KernelContext& ctx);

// box_nms's view of its input: `batches` blocks of n rows of `width`.
struct BoxNmsDims {
  int64_t width = 0, n = 0, batches = 0;
};
// Checks the indices fit the width and the output does not alias the input.
absl::StatusOr<BoxNmsDims> CheckBoxNms(const KernelContext& ctx);
// box_nms's gradient view: ograd's batches of n rows of `width`, one
// out_index entry per row.
absl::StatusOr<BoxNmsDims> CheckBoxNmsBackward(const KernelContext& ctx);

// MultiBoxDetection's sizes: cls_prob (batch, classes, anchors), loc_pred
// (batch, anchors * 4), anchors (1, anchors, 4); checks they and the output
// (batch, anchors, 6) agree and share one dtype.
struct MultiBoxDims {
  int64_t batch = 0, classes = 0, anchors = 0;
};
absl::StatusOr<MultiBoxDims> CheckMultiBoxDetection(const KernelContext& ctx);

// MultiBoxTarget's sizes: anchor (1, anchors, 4), label (batch, labels,
// label_width), cls_pred (batch, classes, anchors); checks they agree with
// each other and the cls_target output, and share one dtype.
struct MultiBoxTargetDims {
  int64_t batch = 0, anchors = 0, labels = 0, label_width = 0, classes = 0;
};
absl::StatusOr<MultiBoxTargetDims> CheckMultiBoxTarget(const KernelContext& ctx);

}  // namespace symx

#endif  // SYMX_DEVICES_GEOMETRY_DETECTION_PLAN_H_
