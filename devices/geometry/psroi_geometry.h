// The bins and samples of the position-sensitive ROI poolings
// (_contrib_PSROIPooling, _contrib_DeformablePSROIPooling), for host and device
// code: the CPU and GPU kernels compute them with one definition, in the
// compute type C (float for float32/float16 data, double for float64, with
// spatial_scale a float as in MXNet), so bins and sample points agree to the
// last bit. MXNet 1.9.1's rules (graph/ops/roi.cc has the summary).
#ifndef SYMX_DEVICES_GEOMETRY_PSROI_GEOMETRY_H_
#define SYMX_DEVICES_GEOMETRY_PSROI_GEOMETRY_H_

#include <math.h>

#include <cstdint>

#include "devices/host_device.h"

namespace symx {

// An roi's corner and size on the feature map: its corners rounded (half away
// from zero), the far one + 1, times spatial_scale, minus `shift` (0.5 for the
// deformable op, 0 for PSROIPooling); at least 0.1 wide and high.
template <typename C>
struct PsRoiRect {
  C x0, y0, width, height;
};

template <typename C>
SYMX_HOST_DEVICE inline PsRoiRect<C> MakePsRoiRect(C x1, C y1, C x2, C y2, C scale, C shift) {
  PsRoiRect<C> r;
  r.x0 = static_cast<C>(round(x1)) * scale - shift;
  r.y0 = static_cast<C>(round(y1)) * scale - shift;
  const C x_end = (static_cast<C>(round(x2)) + C(1)) * scale - shift;
  const C y_end = (static_cast<C>(round(y2)) + C(1)) * scale - shift;
  r.width = x_end - r.x0 > C(0.1) ? x_end - r.x0 : C(0.1);
  r.height = y_end - r.y0 > C(0.1) ? y_end - r.y0 : C(0.1);
  return r;
}

// The input channel that output channel ctop, bin (i, j) reads: bin (i, j)
// falls in group cell (i * group / pooled, j * group / pooled).
SYMX_HOST_DEVICE inline int64_t PsRoiChannel(int64_t ctop, int64_t i, int64_t j, int64_t pooled,
                                             int64_t group) {
  int64_t gh = i * group / pooled, gw = j * group / pooled;
  gh = gh < group - 1 ? gh : group - 1;
  gw = gw < group - 1 ? gw : group - 1;
  return (ctop * group + gh) * group + gw;
}

// PSROIPooling's window of bin (i, j): [h0, h1) x [w0, w1), clipped to the
// (h, w) map; empty when h1 <= h0 or w1 <= w0.
struct PsRoiWindow {
  int64_t h0, h1, w0, w1;
};

SYMX_HOST_DEVICE inline int64_t ClampTo(int64_t v, int64_t hi) {
  return v < 0 ? 0 : (v > hi ? hi : v);
}

template <typename C>
SYMX_HOST_DEVICE inline PsRoiWindow PsRoiBin(const PsRoiRect<C>& r, int64_t i, int64_t j,
                                             int64_t pooled, int64_t h, int64_t w) {
  const C bin_h = r.height / static_cast<C>(pooled);
  const C bin_w = r.width / static_cast<C>(pooled);
  PsRoiWindow win;
  win.h0 = ClampTo(static_cast<int64_t>(floor(static_cast<C>(i) * bin_h + r.y0)), h);
  win.w0 = ClampTo(static_cast<int64_t>(floor(static_cast<C>(j) * bin_w + r.x0)), w);
  win.h1 = ClampTo(static_cast<int64_t>(ceil(static_cast<C>(i + 1) * bin_h + r.y0)), h);
  win.w1 = ClampTo(static_cast<int64_t>(ceil(static_cast<C>(j + 1) * bin_w + r.x0)), w);
  return win;
}

// DeformablePSROIPooling: the part cell of bin (i, j) (floor(i / pooled *
// part_size) in C, as MXNet computes it).
template <typename C>
SYMX_HOST_DEVICE inline int64_t PsRoiPart(int64_t i, int64_t pooled, int64_t part_size) {
  return static_cast<int64_t>(
      floor(static_cast<C>(i) / static_cast<C>(pooled) * static_cast<C>(part_size)));
}

// DeformablePSROIPooling's first sample of bin (i, j), moved by the bin's
// translation (tx, ty, already times trans_std) in roi widths and heights;
// samples are then (x + iw * step_w, y + ih * step_h).
template <typename C>
struct PsRoiSamples {
  C x, y, step_w, step_h;
};

template <typename C>
SYMX_HOST_DEVICE inline PsRoiSamples<C> MakePsRoiSamples(const PsRoiRect<C>& r, int64_t i,
                                                         int64_t j, int64_t pooled,
                                                         int64_t per_part, C tx, C ty) {
  const C bin_h = r.height / static_cast<C>(pooled);
  const C bin_w = r.width / static_cast<C>(pooled);
  PsRoiSamples<C> s;
  s.step_h = bin_h / static_cast<C>(per_part);
  s.step_w = bin_w / static_cast<C>(per_part);
  s.x = static_cast<C>(j) * bin_w + r.x0;
  s.x += tx * r.width;
  s.y = static_cast<C>(i) * bin_h + r.y0;
  s.y += ty * r.height;
  return s;
}

// One DeformablePSROIPooling sample at (x, y) on an (h, w) map: none outside
// [-0.5, w - 0.5] x [-0.5, h - 0.5]; otherwise clamped to the map and read
// from its floor and ceil neighbours. The derivatives along x and y are
// MXNet's: those of the bilinear form at the clamped point (nonzero in the
// clamped margins, where the value does not move).
template <typename C>
struct PsRoiPoint {
  int64_t x0, x1, y0, y1;
  C dx, dy;  // x - x0, y - y0
};

template <typename C>
SYMX_HOST_DEVICE inline bool MakePsRoiPoint(C x, C y, int64_t h, int64_t w, PsRoiPoint<C>* p) {
  if (x < C(-0.5) || x > static_cast<C>(w) - C(0.5) || y < C(-0.5) ||
      y > static_cast<C>(h) - C(0.5)) {
    return false;
  }
  x = x < C(0) ? C(0) : (x > static_cast<C>(w - 1) ? static_cast<C>(w - 1) : x);
  y = y < C(0) ? C(0) : (y > static_cast<C>(h - 1) ? static_cast<C>(h - 1) : y);
  p->x0 = static_cast<int64_t>(floor(x));
  p->x1 = static_cast<int64_t>(ceil(x));
  p->y0 = static_cast<int64_t>(floor(y));
  p->y1 = static_cast<int64_t>(ceil(y));
  p->dx = x - static_cast<C>(p->x0);
  p->dy = y - static_cast<C>(p->y0);
  return true;
}

}  // namespace symx

#endif  // SYMX_DEVICES_GEOMETRY_PSROI_GEOMETRY_H_
