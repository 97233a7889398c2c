// Proposal / MultiProposal on the GPU over the CPU's box arithmetic
// (devices/proposal_geometry.h): every (image, cell, anchor) proposal decoded
// in parallel, each image's scores sorted by CUB's segmented radix sort
// (stable, so score ties keep cell order, as the CPU's std::stable_sort),
// then one block per image runs the greedy NMS over the best
// `pre`, each kept box suppressing the later ones in parallel.
#include "devices/cuda/elem_types.cuh"
#include "devices/cuda/launch.h"
#include "devices/proposal_geometry.h"

namespace symx {
namespace cuda {
namespace {

__global__ void ProposalDecodeKernel(const float* cls, const float* deltas, const float* info,
                                     const float* anchors, ProposalArgs a, float* props,
                                     float* keys, int64_t total) {
  SYMX_GRID_STRIDE(e, total) {
    const int64_t b = e / a.count, k = e % a.count;
    const int64_t anchor = k % a.a, cell = k / a.a;
    const int64_t y = cell / a.w, x = cell % a.w, plane = a.h * a.w;
    const float im_h = info[b * 3], im_w = info[b * 3 + 1], im_scale = info[b * 3 + 2];
    const float stride = static_cast<float>(a.stride);
    const int64_t real_h = static_cast<int64_t>(im_h / stride);
    const int64_t real_w = static_cast<int64_t>(im_w / stride);
    const float* fg = cls + (b * 2 * a.a + a.a) * plane;  // foreground scores
    const float* dl = deltas + b * 4 * a.a * plane;
    float* box = props + e * 5;
    ProposalBox(anchors + anchor * 4, x, y, a.stride, dl + anchor * 4 * plane + cell, plane,
                a.iou_loss, im_h, im_w, static_cast<float>(a.min_size) * im_scale,
                fg[anchor * plane + cell], y >= real_h || x >= real_w, box);
    keys[e] = box[4];
  }
}

__global__ void ProposalNmsKernel(const float* props, const int32_t* pos, ProposalArgs a,
                                  float* ordered_all, float* area_all, uint8_t* dead_all,
                                  int32_t* keep_all, float* out, float* score) {
  const int64_t b = blockIdx.x, tid = threadIdx.x, nt = blockDim.x, pre = a.pre;
  float* ordered = ordered_all + b * pre * 5;
  float* area = area_all + b * pre;
  uint8_t* dead = dead_all + b * pre;
  int32_t* keep = keep_all + b * pre;
  __shared__ int64_t kept;
  if (tid == 0) kept = 0;
  for (int64_t i = tid; i < pre; i += nt) {
    const float* src = props + (b * a.count + pos[b * a.count + i]) * 5;
    for (int j = 0; j < 5; ++j) ordered[i * 5 + j] = src[j];
    area[i] = ProposalArea(ordered + i * 5);
    dead[i] = 0;
  }
  for (int64_t i = 0; i < pre; ++i) {
    __syncthreads();  // dead[i] and kept are final here
    const int64_t now = kept;
    __syncthreads();  // everyone has read kept before thread 0 moves it
    if (now >= a.post_nms) break;
    if (dead[i]) continue;
    for (int64_t j = i + 1 + tid; j < pre; j += nt) {
      if (dead[j]) continue;
      if (ProposalSuppresses(ordered + i * 5, area[i], ordered + j * 5, area[j], a.threshold)) {
        dead[j] = 1;
      }
    }
    if (tid == 0) {
      keep[now] = static_cast<int32_t>(i);
      kept = now + 1;
    }
  }
  __syncthreads();
  const int64_t n_kept = kept;
  if (n_kept == 0) return;  // no rows can be asked for then (post_nms >= 1 when rows >= 1)
  // Rows past the kept boxes repeat them cyclically (MXNet's keep[i % kept]).
  for (int64_t i = tid; i < a.rows; i += nt) {
    const float* bx = ordered + static_cast<int64_t>(keep[i % n_kept]) * 5;
    float* o = out + (b * a.rows + i) * 5;
    o[0] = static_cast<float>(b);
    for (int j = 0; j < 4; ++j) o[j + 1] = bx[j];
    score[b * a.rows + i] = bx[4];
  }
}

}  // namespace

cudaError_t LaunchProposalDecode(const float* cls, const float* deltas, const float* info,
                                 const float* anchors, const ProposalArgs& a, float* props,
                                 float* keys, cudaStream_t s) {
  const int64_t total = a.n * a.count;
  if (total == 0) return cudaSuccess;
  ProposalDecodeKernel<<<GridFor(total), kThreads, 0, s>>>(cls, deltas, info, anchors, a, props,
                                                           keys, total);
  return LastLaunchError();
}

cudaError_t LaunchProposalNms(const float* props, const int32_t* positions, const ProposalArgs& a,
                              float* ordered, float* area, uint8_t* dead, int32_t* keep,
                              float* out, float* score, cudaStream_t s) {
  if (a.n == 0) return cudaSuccess;
  if (a.n > 0x7fffffff) return cudaErrorInvalidValue;
  ProposalNmsKernel<<<static_cast<unsigned>(a.n), kThreads, 0, s>>>(
      props, positions, a, ordered, area, dead, keep, out, score);
  return LastLaunchError();
}

}  // namespace cuda
}  // namespace symx
