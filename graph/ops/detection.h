// Parameters of MXNet 1.9.1's SSD-style detection ops (graph/ops/detection.cc),
// shared by the schemas and the CPU kernels (devices/cpu/detection_kernels.cc):
// _contrib_MultiBoxPrior, _contrib_MultiBoxDetection, _contrib_MultiBoxTarget,
// _contrib_box_nms and _contrib_box_iou.
#ifndef SYMX_GRAPH_OPS_DETECTION_H_
#define SYMX_GRAPH_OPS_DETECTION_H_

#include <cstdint>
#include <vector>

#include "graph/param.h"

namespace symx {

struct MultiBoxPriorParam : OpParam {
  std::vector<double> sizes{1.0};   // non-empty, each > 0
  std::vector<double> ratios{1.0};  // non-empty, each > 0
  bool clip = false;
  double step_y = -1, step_x = -1;        // steps; -1 -> 1 / height, 1 / width
  double offset_y = 0.5, offset_x = 0.5;  // offsets
  // Anchors per feature-map cell: every size with ratios[0], then every other
  // ratio with sizes[0].
  int64_t num_anchors() const { return static_cast<int64_t>(sizes.size() + ratios.size()) - 1; }
};

struct BoxNmsParam : OpParam {
  double overlap_thresh = 0.5;
  double valid_thresh = 0;
  int64_t topk = -1;
  int64_t coord_start = 2;
  int64_t score_index = 1;
  int64_t id_index = -1;
  int64_t background_id = -1;
  bool force_suppress = false;
  bool in_center = false;   // in_format == "center"
  bool out_center = false;  // out_format == "center"
};

struct MultiBoxDetectionParam : OpParam {
  bool clip = true;
  double threshold = 0.01;
  int64_t background_id = 0;  // parsed, and ignored as by MXNet 1.9.1's CPU kernel
  double nms_threshold = 0.5;
  bool force_suppress = false;
  std::vector<double> variances{0.1, 0.1, 0.2, 0.2};
  int64_t nms_topk = -1;
};

struct MultiBoxTargetParam : OpParam {
  double overlap_threshold = 0.5;
  double ignore_label = -1;
  double negative_mining_ratio = -1;
  double negative_mining_thresh = 0.5;
  int64_t minimum_negative_samples = 0;  // parsed, and ignored as by MXNet 1.9.1's CPU kernel
  std::vector<double> variances{0.1, 0.1, 0.2, 0.2};
};

struct BoxIouParam : OpParam {
  bool center = false;  // format == "center"
};

struct BipartiteMatchingParam : OpParam {
  bool is_ascend = false;
  double threshold = 0;  // required; compared as a float32, as MXNet's
  int64_t topk = -1;     // > 0: stop after the (topk + 1)-th match (MXNet's count)
};

struct BoxDecodeParam : OpParam {
  double std0 = 1, std1 = 1, std2 = 1, std3 = 1;
  double clip = -1;    // > 0: the log-size offsets are clipped to at most clip
  bool center = true;  // format == "center" (MXNet's default), the anchors' form
};

}  // namespace symx

#endif  // SYMX_GRAPH_OPS_DETECTION_H_
