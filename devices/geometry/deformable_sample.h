// The bilinear samples of the deformable convolutions, for host and device
// code (devices/cpu/deformable_kernels.cc, devices/cuda/deformable.cu): one
// definition of where a tap reads, with what weights, and the weights'
// derivatives along h and w, so both devices agree and the offset gradients
// are the exact derivatives of the forward samples.
//
// Two edge rules, as MXNet 1.9.1 (graph/ops/deformable.cc):
// - kClamped (_contrib_DeformableConvolution): a sample counts when
//   0 <= h < H and 0 <= w < W; in the last row (column) the far corner is the
//   row (column) itself, at weight 0.
// - kZeroPadded (_contrib_ModulatedDeformableConvolution): a sample counts
//   when -1 < h < H and -1 < w < W; corners outside the image read 0.
#ifndef SYMX_DEVICES_GEOMETRY_DEFORMABLE_SAMPLE_H_
#define SYMX_DEVICES_GEOMETRY_DEFORMABLE_SAMPLE_H_

#include <math.h>

#include <cstdint>

#include "devices/host_device.h"

namespace symx {

enum class DeformEdge : int { kClamped = 0, kZeroPadded = 1 };

// Corner k (0: (h0, w0), 1: (h0, w1), 2: (h1, w0), 3: (h1, w1)) sits at
// at[k] (h * W + w), or -1 when it reads 0. value = sum wt[k] * x[at[k]];
// d value / dh = sum dh[k] * x[at[k]], likewise dw.
template <typename C>
struct DeformSample {
  int64_t at[4];
  C wt[4], dh[4], dw[4];
};

// False (and no corners) when the sample reads 0.
template <typename C>
SYMX_HOST_DEVICE inline bool MakeDeformSample(DeformEdge edge, C h, C w, int64_t height,
                                              int64_t width, DeformSample<C>* s) {
  int64_t h0, w0, h1, w1;
  if (edge == DeformEdge::kClamped) {
    if (!(h >= C(0) && w >= C(0) && h < static_cast<C>(height) && w < static_cast<C>(width))) {
      return false;
    }
    h0 = static_cast<int64_t>(floor(h));
    w0 = static_cast<int64_t>(floor(w));
    if (h0 >= height - 1) {
      h0 = h1 = height - 1;
      h = static_cast<C>(h0);
    } else {
      h1 = h0 + 1;
    }
    if (w0 >= width - 1) {
      w0 = w1 = width - 1;
      w = static_cast<C>(w0);
    } else {
      w1 = w0 + 1;
    }
  } else {
    if (!(h > C(-1) && w > C(-1) && h < static_cast<C>(height) && w < static_cast<C>(width))) {
      return false;
    }
    h0 = static_cast<int64_t>(floor(h));
    w0 = static_cast<int64_t>(floor(w));
    h1 = h0 + 1;
    w1 = w0 + 1;
  }
  const C lh = h - static_cast<C>(h0), lw = w - static_cast<C>(w0);
  const C hh = C(1) - lh, hw = C(1) - lw;
  const bool in_h0 = h0 >= 0, in_h1 = h1 <= height - 1;
  const bool in_w0 = w0 >= 0, in_w1 = w1 <= width - 1;
  s->at[0] = in_h0 && in_w0 ? h0 * width + w0 : -1;
  s->at[1] = in_h0 && in_w1 ? h0 * width + w1 : -1;
  s->at[2] = in_h1 && in_w0 ? h1 * width + w0 : -1;
  s->at[3] = in_h1 && in_w1 ? h1 * width + w1 : -1;
  s->wt[0] = hh * hw;
  s->wt[1] = hh * lw;
  s->wt[2] = lh * hw;
  s->wt[3] = lh * lw;
  s->dh[0] = -hw;
  s->dh[1] = -lw;
  s->dh[2] = hw;
  s->dh[3] = lw;
  s->dw[0] = -hh;
  s->dw[1] = hh;
  s->dw[2] = -lh;
  s->dw[3] = lh;
  return true;
}

// Where tap (i, j) of output pixel (y, x) reads before its offset.
struct DeformGeom {
  int64_t channels = 0, height = 0, width = 0;  // data, one sample
  int64_t out_h = 0, out_w = 0;
  int64_t kernel_h = 1, kernel_w = 1, stride_h = 1, stride_w = 1;
  int64_t dilate_h = 1, dilate_w = 1, pad_h = 0, pad_w = 0;
  int64_t deformable_groups = 1;
  int edge = 0;  // DeformEdge
  SYMX_HOST_DEVICE int64_t taps() const { return kernel_h * kernel_w; }
  SYMX_HOST_DEVICE int64_t out_size() const { return out_h * out_w; }
  // Column rows: channels * taps; columns: out_size.
  SYMX_HOST_DEVICE int64_t col_elems() const { return channels * taps() * out_size(); }
};

}  // namespace symx

#endif  // SYMX_DEVICES_GEOMETRY_DEFORMABLE_SAMPLE_H_
