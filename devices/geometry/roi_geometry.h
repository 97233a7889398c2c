// ROIPooling's bins and ROIAlign's sample points, for host and device code:
// the CPU and GPU kernels compute them with one definition, in the compute
// type C (float for float32/float16 data, double for float64, with
// spatial_scale a float as in MXNet), so bin bounds agree to the last bit.
#ifndef SYMX_DEVICES_GEOMETRY_ROI_GEOMETRY_H_
#define SYMX_DEVICES_GEOMETRY_ROI_GEOMETRY_H_

#include <math.h>

#include <cstdint>

#include "devices/host_device.h"

namespace symx {

SYMX_HOST_DEVICE inline int64_t Clamp64(int64_t v, int64_t lo, int64_t hi) {
  return v < lo ? lo : (v > hi ? hi : v);
}

// ROIPooling: the input window [h0, h1) x [w0, w1) of output bin (i, j) of an
// roi (x1, y1, x2, y2 in image coordinates) over an (h, w) map; empty when
// h1 <= h0 or w1 <= w0.
struct RoiPoolWindow {
  int64_t h0, h1, w0, w1;
};

template <typename C>
SYMX_HOST_DEVICE inline RoiPoolWindow RoiPoolBin(C x1, C y1, C x2, C y2, C scale, int64_t i,
                                                 int64_t j, int64_t ph, int64_t pw, int64_t h,
                                                 int64_t w) {
  const int64_t sw = static_cast<int64_t>(round(x1 * scale));
  const int64_t sh = static_cast<int64_t>(round(y1 * scale));
  const int64_t ew = static_cast<int64_t>(round(x2 * scale));
  const int64_t eh = static_cast<int64_t>(round(y2 * scale));
  const int64_t rh = eh - sh + 1 > 1 ? eh - sh + 1 : 1;
  const int64_t rw = ew - sw + 1 > 1 ? ew - sw + 1 : 1;
  const C bin_h = static_cast<C>(rh) / static_cast<C>(ph);
  const C bin_w = static_cast<C>(rw) / static_cast<C>(pw);
  RoiPoolWindow win;
  win.h0 = Clamp64(static_cast<int64_t>(floor(static_cast<C>(i) * bin_h)) + sh, 0, h);
  win.h1 = Clamp64(static_cast<int64_t>(ceil(static_cast<C>(i + 1) * bin_h)) + sh, 0, h);
  win.w0 = Clamp64(static_cast<int64_t>(floor(static_cast<C>(j) * bin_w)) + sw, 0, w);
  win.w1 = Clamp64(static_cast<int64_t>(ceil(static_cast<C>(j + 1) * bin_w)) + sw, 0, w);
  return win;
}

// ROIAlign: one bilinear sample, up to 4 (offset, weight) pairs; count 0
// outside the map.
template <typename C>
struct RoiSample {
  int64_t at[4];
  C wt[4];
  int count = 0;
};

template <typename C>
SYMX_HOST_DEVICE inline RoiSample<C> RoiBilinearSample(C y, C x, int64_t height, int64_t width) {
  RoiSample<C> s;
  if (y < C(-1) || y > static_cast<C>(height) || x < C(-1) || x > static_cast<C>(width)) {
    return s;
  }
  if (y <= 0) y = 0;
  if (x <= 0) x = 0;
  int64_t y0 = static_cast<int64_t>(y), x0 = static_cast<int64_t>(x), y1, x1;
  if (y0 >= height - 1) {
    y1 = y0 = height - 1;
    y = static_cast<C>(y0);
  } else {
    y1 = y0 + 1;
  }
  if (x0 >= width - 1) {
    x1 = x0 = width - 1;
    x = static_cast<C>(x0);
  } else {
    x1 = x0 + 1;
  }
  const C ly = y - static_cast<C>(y0), lx = x - static_cast<C>(x0);
  const C hy = C(1) - ly, hx = C(1) - lx;
  s.at[0] = y0 * width + x0;
  s.at[1] = y0 * width + x1;
  s.at[2] = y1 * width + x0;
  s.at[3] = y1 * width + x1;
  s.wt[0] = hy * hx;
  s.wt[1] = hy * lx;
  s.wt[2] = ly * hx;
  s.wt[3] = ly * lx;
  s.count = 4;
  return s;
}

// ROIAlign's grid over one roi: start, bin sizes and samples per bin; `valid`
// false for an empty roi with aligned=True (MXNet aborts there; the kernels
// report an error).
template <typename C>
struct RoiAlignGrid {
  C sw, sh, bin_w, bin_h, count;
  C rw, rh;  // the roi's size on the map
  int64_t gh, gw;
  bool valid;
};

template <typename C>
SYMX_HOST_DEVICE inline RoiAlignGrid<C> MakeRoiAlignGrid(C x1, C y1, C x2, C y2, C scale,
                                                         bool aligned, int64_t ph, int64_t pw,
                                                         int64_t sample_ratio) {
  const C offset = aligned ? C(0.5) : C(0);
  RoiAlignGrid<C> g;
  g.sw = x1 * scale - offset;
  g.sh = y1 * scale - offset;
  const C ew = x2 * scale - offset;
  const C eh = y2 * scale - offset;
  C rw = ew - g.sw, rh = eh - g.sh;
  g.valid = true;
  if (!aligned) {
    rw = rw > C(1) ? rw : C(1);
    rh = rh > C(1) ? rh : C(1);
  } else if (!(rw > 0) || !(rh > 0)) {
    g.valid = false;
  }
  g.rw = rw;
  g.rh = rh;
  g.bin_h = rh / static_cast<C>(ph);
  g.bin_w = rw / static_cast<C>(pw);
  g.gh = sample_ratio > 0 ? sample_ratio : static_cast<int64_t>(ceil(rh / static_cast<C>(ph)));
  g.gw = sample_ratio > 0 ? sample_ratio : static_cast<int64_t>(ceil(rw / static_cast<C>(pw)));
  g.count = static_cast<C>(g.gh * g.gw);
  return g;
}

// Sample (iy, ix) of bin (i, j).
template <typename C>
SYMX_HOST_DEVICE inline void RoiAlignPoint(const RoiAlignGrid<C>& g, int64_t i, int64_t j,
                                           int64_t iy, int64_t ix, C* y, C* x) {
  *y = g.sh + static_cast<C>(i) * g.bin_h +
       (static_cast<C>(iy) + C(0.5)) * g.bin_h / static_cast<C>(g.gh);
  *x = g.sw + static_cast<C>(j) * g.bin_w +
       (static_cast<C>(ix) + C(0.5)) * g.bin_w / static_cast<C>(g.gw);
}

// _contrib_RROIAlign's grid for a rotated roi [batch, cx, cy, w, h, angle in
// degrees], as MXNet computes it in C: centre and size times spatial_scale,
// the size at least 1x1, grid_h x grid_w samples per bin (sampling_ratio, or
// ceil(size / pooled) when it is <= 0).
template <typename C>
struct RroiGrid {
  C cx, cy, start_h, start_w, bin_h, bin_w, cos_t, sin_t, count;
  int64_t gh, gw;
};

template <typename C>
SYMX_HOST_DEVICE inline RroiGrid<C> MakeRroiGrid(C cx, C cy, C w, C h, C angle, C scale, int64_t ph,
                                                 int64_t pw, int64_t ratio) {
  RroiGrid<C> g;
  g.cx = cx * scale;
  g.cy = cy * scale;
  w = w * scale;
  h = h * scale;
  const C theta = static_cast<C>(static_cast<double>(angle) * 3.14159265358979323846 / 180.0);
  g.cos_t = cos(theta);
  g.sin_t = sin(theta);
  w = w > C(1) ? w : C(1);
  h = h > C(1) ? h : C(1);
  g.start_h = -h / C(2);
  g.start_w = -w / C(2);
  g.bin_h = h / static_cast<C>(ph);
  g.bin_w = w / static_cast<C>(pw);
  g.gh = ratio > 0 ? ratio : static_cast<int64_t>(ceil(h / static_cast<C>(ph)));
  g.gw = ratio > 0 ? ratio : static_cast<int64_t>(ceil(w / static_cast<C>(pw)));
  g.count = static_cast<C>(g.gh * g.gw);
  return g;
}

// Sample (iy, ix) of bin (i, j), rotated about the roi's centre: (y, x) on the map.
template <typename C>
SYMX_HOST_DEVICE inline void RroiPoint(const RroiGrid<C>& g, int64_t i, int64_t j, int64_t iy,
                                       int64_t ix, C* y, C* x) {
  const C yy = g.start_h + static_cast<C>(i) * g.bin_h +
               static_cast<C>(static_cast<float>(iy) + 0.5f) * g.bin_h / static_cast<C>(g.gh);
  const C xx = g.start_w + static_cast<C>(j) * g.bin_w +
               static_cast<C>(static_cast<float>(ix) + 0.5f) * g.bin_w / static_cast<C>(g.gw);
  *x = xx * g.cos_t + yy * g.sin_t + g.cx;
  *y = yy * g.cos_t - xx * g.sin_t + g.cy;
}

}  // namespace symx

#endif  // SYMX_DEVICES_GEOMETRY_ROI_GEOMETRY_H_
