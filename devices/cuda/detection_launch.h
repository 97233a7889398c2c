// Launchers of the detection CUDA kernels (devices/cuda/detection.cu), declared in plain
// C++ for the kernel registrations (devices/cuda/launch.h says why and what
// every launcher returns).
#ifndef SYMX_DEVICES_CUDA_DETECTION_LAUNCH_H_
#define SYMX_DEVICES_CUDA_DETECTION_LAUNCH_H_

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "devices/cuda/launch.h"

namespace symx {
namespace cuda {

// _contrib_box_iou: out[i * nr + j] = IoU of lhs box i and rhs box j
// (devices/geometry/box_geometry.h, shared with the CPU; float compute for the float
// and half types, double for double), boxes in corner or center form.
cudaError_t LaunchBoxIou(Elem t, const void* lhs, int64_t nl, const void* rhs, int64_t nr,
                         bool center, void* out, cudaStream_t s);

// _contrib_bipartite_matching: keys (count, BoxNmsKeyElem(t)) from the
// scores; after LaunchSortRows of each batch's keys, the greedy matching, one
// thread per batch, writing rows (batches, nr) and cols (batches, nc).
cudaError_t LaunchMatchKeys(Elem t, const void* x, int64_t count, void* keys, cudaStream_t s);
cudaError_t LaunchMatchGreedy(Elem t, const void* sorted_keys, const int32_t* positions,
                              int64_t batches, int64_t nr, int64_t nc, bool ascend, float threshold,
                              int64_t topk, void* rows, void* cols, cudaStream_t s);

// _contrib_box_encode: rows = B * N samples, n = N anchors a batch, m = M
// refs a batch; all inputs and outputs of one dtype (devices/geometry/box_geometry.h's
// BoxEncodeTargets in the compute type of box_iou).
cudaError_t LaunchBoxEncode(Elem t, const void* samples, const void* matches, const void* anchors,
                            const void* refs, const void* means, const void* stds, int64_t rows,
                            int64_t n, int64_t m, void* targets, void* masks, cudaStream_t s);

// _contrib_box_decode: rows = B * N offsets, anchors (N, 4); stds[4] on the host.
cudaError_t LaunchBoxDecode(Elem t, const void* x, const void* anchors, int64_t rows, int64_t n,
                            bool center, const double* stds, bool has_clip, double clip, void* out,
                            cudaStream_t s);

// MultiBoxPrior's anchors for an (in_h, in_w) map: `half` (on the device)
// holds each anchor's half width and height (devices/geometry/detection_plan.h).
cudaError_t LaunchMultiBoxPrior(int64_t in_h, int64_t in_w, int64_t anchors, float step_y,
                                float step_x, float off_y, float off_x, const float* half,
                                bool clip, float* out, cudaStream_t s);

// MultiBoxDetection (float32/float64): cls_prob (batch, classes, anchors),
// loc_pred (batch, anchors * 4), anchors (anchors * 4).
struct MultiBoxArgs {
  int64_t batch = 0, classes = 0, anchors = 0;
  double threshold = 0, nms_threshold = 0, var[4] = {};
  int64_t nms_topk = -1;
  bool clip = true, force_suppress = false;
};
// Decodes every anchor into a candidate output row (rows: batch * anchors * 6)
// and its sort key (keys: batch * anchors, BoxNmsKeyElem(t); -inf for anchors
// without a class). Sorted descending (LaunchSortRows), the keys and their
// positions feed LaunchMultiBoxNms, which writes the output; `compact` is
// batch * anchors int32 of scratch.
cudaError_t LaunchMultiBoxDecode(Elem t, const void* cls, const void* loc, const void* anchors,
                                 const MultiBoxArgs& a, void* rows, void* keys, cudaStream_t s);
cudaError_t LaunchMultiBoxNms(Elem t, const void* rows, const void* keys, const void* sorted_keys,
                              const int32_t* positions, const MultiBoxArgs& a, int32_t* compact,
                              void* out, cudaStream_t s);

// MultiBoxTarget (float32/float64): anchor (anchors * 4), label (batch,
// labels, label_width), cls_pred (batch, classes, anchors).
struct MultiBoxTargetArgs {
  int64_t batch = 0, anchors = 0, labels = 0, label_width = 0, classes = 0;
  double overlap_threshold = 0, ignore_label = -1, negative_mining_ratio = -1,
         negative_mining_thresh = 0, var[4] = {};
};
// Device scratch: per batch aflag, match, best_iou and keys (anchors each),
// gflag (labels) and info (2 int64: boxes, negatives wanted).
struct MultiBoxTargetScratch {
  int32_t *aflag = nullptr, *match = nullptr, *gflag = nullptr;
  double *best_iou = nullptr, *keys = nullptr;
  int64_t* info = nullptr;
};
// Step 1 (one block per batch): resets the outputs, matches anchors to boxes
// and writes the hard-negative keys (batch * anchors doubles, +inf for
// anchors that cannot be negatives). Sorted ascending (LaunchSortRows), the
// keys and their positions feed step 2, which writes the targets.
cudaError_t LaunchMultiBoxMatch(Elem t, const void* anchors, const void* labels, const void* cls,
                                const MultiBoxTargetArgs& a, const MultiBoxTargetScratch& w,
                                void* loc_target, void* loc_mask, void* cls_target, cudaStream_t s);
cudaError_t LaunchMultiBoxTargetOut(Elem t, const void* anchors, const void* labels,
                                    const double* sorted_keys, const int32_t* positions,
                                    const MultiBoxTargetArgs& a, const MultiBoxTargetScratch& w,
                                    void* loc_target, void* loc_mask, void* cls_target,
                                    cudaStream_t s);

// box_nms over `batches` blocks of n rows of `width` (graph/ops/detection.h's
// BoxNmsParam, indices already checked against the width).
struct BoxNmsArgs {
  int64_t batches = 0, n = 0, width = 0;
  double overlap_thresh = 0, valid_thresh = 0;
  int64_t topk = -1, coord_start = 0, score_index = 0, id_index = -1, background_id = -1;
  bool force_suppress = false, in_center = false, out_center = false;
};
// The dtype of box_nms's sort keys: its compute type (float64 for float64,
// else float32).
Elem BoxNmsKeyElem(Elem t);
// keys (batches * n, BoxNmsKeyElem): each row's score when it is a
// candidate, else -inf. Sorted descending (LaunchSortRows), they and their
// positions feed LaunchBoxNms, which writes out and rec (the source row of
// each output row, -1 past the kept ones); `dead` is batches * n bytes.
cudaError_t LaunchBoxNmsKeys(Elem t, const void* x, const BoxNmsArgs& a, void* keys,
                             cudaStream_t s);
cudaError_t LaunchBoxNms(Elem t, const void* x, const void* sorted_keys, const int32_t* positions,
                         const BoxNmsArgs& a, uint8_t* dead, void* out, void* rec, cudaStream_t s);
// box_nms's gradient: grad's row rec[i] of each batch (n rows) gets ograd's
// row i (added to it when `add`; rows with rec < 0 or >= n are skipped).
cudaError_t LaunchBoxNmsGrad(Elem t, const void* og, const void* rec, int64_t rows, int64_t n,
                             int64_t width, bool add, void* grad, cudaStream_t s);

}  // namespace cuda
}  // namespace symx

#endif  // SYMX_DEVICES_CUDA_DETECTION_LAUNCH_H_
