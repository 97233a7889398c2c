// Launchers of the roi CUDA kernels (devices/cuda/roi.cu), declared in plain
// C++ for the kernel registrations (devices/cuda/launch.h says why and what
// every launcher returns).
#ifndef SYMX_DEVICES_CUDA_ROI_LAUNCH_H_
#define SYMX_DEVICES_CUDA_ROI_LAUNCH_H_

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "devices/cuda/launch.h"

namespace symx {
namespace cuda {

// ROIPooling and _contrib_ROIAlign over (N, C, H, W) data and rois (R, 5)
// (devices/geometry/roi_geometry.h, shared with the CPU; float compute for the float
// and half types, double for double). One thread per output element; the
// data gradients add with atomics (float scratch for the half types,
// `scratch`, N * C * H * W floats), so their sums have no fixed order.
// ROIAlign rois that are empty with aligned=True leave their number in
// *first_bad (set to all ones beforehand).
struct RoiDims {
  int64_t n = 0, c = 0, h = 0, w = 0;     // data
  int64_t r = 0, co = 0, ph = 0, pw = 0;  // output
  float scale = 1;
  int64_t sample_ratio = -1;
  bool position_sensitive = false, aligned = false;
};
cudaError_t LaunchRoiPool(Elem t, const void* x, const void* rois, const RoiDims& d, void* y,
                          void* argmax, cudaStream_t s);
cudaError_t LaunchRoiPoolGrad(Elem t, const void* g, const void* rois, const void* argmax,
                              const RoiDims& d, void* gx, void* scratch, cudaStream_t s);
cudaError_t LaunchRoiAlign(Elem t, const void* x, const void* rois, const RoiDims& d, void* y,
                           unsigned long long* first_bad, cudaStream_t s);
cudaError_t LaunchRoiAlignGrad(Elem t, const void* g, const void* rois, const RoiDims& d, void* gx,
                               void* scratch, unsigned long long* first_bad, cudaStream_t s);

// _contrib_RROIAlign over rois (R, 6) (d.sample_ratio is its sampling_ratio):
// one thread per output element.
cudaError_t LaunchRroiAlign(Elem t, const void* x, const void* rois, const RoiDims& d, void* y,
                            cudaStream_t s);

// _contrib_PSROIPooling and _contrib_DeformablePSROIPooling over (N, C, H, W)
// data, rois (R, 5) and trans (R, 2 * classes, part, part), with the bins and
// samples of devices/geometry/psroi_geometry.h (shared with the CPU). One
// thread per output element; the gradients add with atomics (float scratch
// for the half types: `scratch` N * C * H * W floats for data, `trans_scratch`
// the trans's size), so their sums have no fixed order.
struct PsRoiDims {
  int64_t n = 0, c = 0, h = 0, w = 0;  // data
  int64_t r = 0, d = 0, p = 0;         // rois, output_dim, pooled_size
  int64_t group = 1, classes = 1, part = 1, per_part = 1;
  float scale = 1, trans_std = 0;
  bool has_trans = false;
};
cudaError_t LaunchPsRoiPool(Elem t, const void* x, const void* rois, const PsRoiDims& d, void* y,
                            cudaStream_t s);
cudaError_t LaunchPsRoiPoolGrad(Elem t, const void* g, const void* rois, const PsRoiDims& d,
                                void* gx, void* scratch, cudaStream_t s);
// `count` is the hidden top_count output (samples per bin).
cudaError_t LaunchDeformPsRoiPool(Elem t, const void* x, const void* rois, const void* trans,
                                  const PsRoiDims& d, void* y, void* count, cudaStream_t s);
// gx or gtrans null: not wanted.
cudaError_t LaunchDeformPsRoiPoolGrad(Elem t, const void* g, const void* x, const void* rois,
                                      const void* trans, const void* count, const PsRoiDims& d,
                                      void* gx, void* scratch, void* gtrans, void* trans_scratch,
                                      cudaStream_t s);

// Proposal / MultiProposal (float32): cls_prob (n, 2a, h, w), bbox_pred
// (n, 4a, h, w), im_info (n, 3); devices/geometry/proposal_plan.h's sizes.
struct ProposalArgs {
  int64_t n = 0, a = 0, h = 0, w = 0, count = 0, pre = 0, post_nms = 0, rows = 0;
  int64_t stride = 16, min_size = 16;
  float threshold = 0.7f;
  bool iou_loss = false;
};
// Every proposal (props: n * count * 5) and its score as a sort key (keys:
// n * count); `anchors` (a * 4, on the device) are the base anchors. Sorted
// descending (LaunchSortRows), the positions feed LaunchProposalNms, which
// writes rois (n * rows, 5) and scores (n * rows) with per-image scratch
// ordered (pre * 5), area (pre), dead (pre) and keep (pre).
cudaError_t LaunchProposalDecode(const float* cls, const float* deltas, const float* info,
                                 const float* anchors, const ProposalArgs& a, float* props,
                                 float* keys, cudaStream_t s);
cudaError_t LaunchProposalNms(const float* props, const int32_t* positions, const ProposalArgs& a,
                              float* ordered, float* area, uint8_t* dead, int32_t* keep, float* out,
                              float* score, cudaStream_t s);

}  // namespace cuda
}  // namespace symx

#endif  // SYMX_DEVICES_CUDA_ROI_LAUNCH_H_
