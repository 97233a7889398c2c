// Parameters of the region ops used by Faster R-CNN style models
// (graph/ops/roi.cc), shared by the schemas and the CPU kernels
// (devices/cpu/roi_kernels.cc): ROIPooling, _contrib_ROIAlign,
// _contrib_Proposal, _contrib_MultiProposal, _contrib_PSROIPooling,
// _contrib_DeformablePSROIPooling and _contrib_RROIAlign.
#ifndef SYMX_GRAPH_OPS_ROI_H_
#define SYMX_GRAPH_OPS_ROI_H_

#include <cstdint>
#include <vector>

#include "graph/param.h"

namespace symx {

struct ROIPoolingParam : OpParam {
  int64_t pooled_h = 1, pooled_w = 1;  // pooled_size, exactly 2 values
  float spatial_scale = 1;             // MXNet keeps it as a float
};

struct ROIAlignParam : OpParam {
  int64_t pooled_h = 1, pooled_w = 1;
  float spatial_scale = 1;
  int64_t sample_ratio = -1;  // <= 0: ceil(roi size / pooled size) samples per bin
  bool position_sensitive = false;
  bool aligned = false;
};

// _contrib_RROIAlign: rois [batch, cx, cy, w, h, angle in degrees].
struct RROIAlignParam : OpParam {
  int64_t pooled_h = 1, pooled_w = 1;
  float spatial_scale = 1;
  int64_t sampling_ratio = -1;  // <= 0: ceil(roi size / pooled size) samples per bin
};

// _contrib_PSROIPooling and _contrib_DeformablePSROIPooling (`deformable`).
struct PSROIPoolingParam : OpParam {
  bool deformable = false;
  float spatial_scale = 1;
  int64_t output_dim = 1;
  int64_t pooled_size = 1;
  int64_t group_size = 1;  // 0 in the attributes: pooled_size
  // Deformable only.
  int64_t part_size = 1;  // 0 in the attributes: pooled_size
  int64_t sample_per_part = 1;
  float trans_std = 0;
  bool no_trans = false;
  bool has_trans() const { return deformable && !no_trans; }
};

struct ProposalParam : OpParam {
  int64_t rpn_pre_nms_top_n = 6000;
  int64_t rpn_post_nms_top_n = 300;
  float threshold = 0.7f;
  int64_t rpn_min_size = 16;
  std::vector<float> scales = {4, 8, 16, 32};
  std::vector<float> ratios = {0.5f, 1, 2};
  int64_t feature_stride = 16;
  bool output_score = false;
  bool iou_loss = false;
  int64_t num_anchors() const {
    return static_cast<int64_t>(scales.size()) * static_cast<int64_t>(ratios.size());
  }
};

}  // namespace symx

#endif  // SYMX_GRAPH_OPS_ROI_H_
