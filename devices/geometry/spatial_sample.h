// The bilinear sampling of GridGenerator, BilinearSampler and
// SpatialTransformer, in doubles, for host and device code (the CPU and GPU
// kernels share it): grid point (gx, gy) in [-1, 1] maps to source pixel
// x = (gx + 1) (IW - 1) / 2, y = (gy + 1) (IH - 1) / 2; the four neighbours
// (floor(y) + {0,1}, floor(x) + {0,1}) are weighted bilinearly and a
// neighbour outside the image reads zero. The grid gradient is the
// derivative of that piecewise-bilinear function.
#ifndef SYMX_DEVICES_GEOMETRY_SPATIAL_SAMPLE_H_
#define SYMX_DEVICES_GEOMETRY_SPATIAL_SAMPLE_H_

#include <math.h>

#include <cstdint>

#include "devices/host_device.h"

namespace symx {

// Normalized target coordinate i of n points: linspace(-1, 1, n)[i].
SYMX_HOST_DEVICE inline double Lin(int64_t i, int64_t n) {
  return n > 1 ? -1.0 + 2.0 * static_cast<double>(i) / static_cast<double>(n - 1) : -1.0;
}

// Affine grid point (h, w) of an (H, W) output grid from loc (6 values).
SYMX_HOST_DEVICE inline void AffineGridPoint(const double loc[6], int64_t h, int64_t w, int64_t H,
                                             int64_t W, double* gx, double* gy) {
  const double x = Lin(w, W), y = Lin(h, H);
  *gx = loc[0] * x + loc[1] * y + loc[2];
  *gy = loc[3] * x + loc[4] * y + loc[5];
}

// The gradient of loc from the grid gradient (dgx, dgy) at point (h, w).
SYMX_HOST_DEVICE inline void AffineLocGrad(double dgx, double dgy, int64_t h, int64_t w, int64_t H,
                                           int64_t W, double out[6]) {
  const double x = Lin(w, W), y = Lin(h, H);
  out[0] = dgx * x;
  out[1] = dgx * y;
  out[2] = dgx;
  out[3] = dgy * x;
  out[4] = dgy * y;
  out[5] = dgy;
}

// One sampled point of an (ih, iw) image: its four neighbours (offset -1
// outside the image, which reads zero) and their row and column weights.
struct SamplePoint {
  int64_t at[2][2];  // [a][b]: row y0 + a, column x0 + b
  double wy[2], wx[2];
  double fx, fy;  // fractions, for the grid gradient
};

SYMX_HOST_DEVICE inline SamplePoint Locate(double gx, double gy, int64_t ih, int64_t iw) {
  const double x = (gx + 1) * static_cast<double>(iw - 1) / 2.0;
  const double y = (gy + 1) * static_cast<double>(ih - 1) / 2.0;
  const double fx0 = floor(x), fy0 = floor(y);
  const int64_t x0 = static_cast<int64_t>(fx0), y0 = static_cast<int64_t>(fy0);
  SamplePoint p;
  p.fx = x - fx0;
  p.fy = y - fy0;
  p.wy[0] = 1 - p.fy;
  p.wy[1] = p.fy;
  p.wx[0] = 1 - p.fx;
  p.wx[1] = p.fx;
  for (int a = 0; a < 2; ++a) {
    for (int b = 0; b < 2; ++b) {
      const int64_t yy = y0 + a, xx = x0 + b;
      p.at[a][b] = yy >= 0 && yy < ih && xx >= 0 && xx < iw ? yy * iw + xx : -1;
    }
  }
  return p;
}

// The unscaled grid gradient of go * sample(v) at p, given the neighbour
// values v (0 outside the image), added into *sx, *sy; the caller scales the
// sums over channels by (iw - 1) / 2 and (ih - 1) / 2 (GridGradScale).
SYMX_HOST_DEVICE inline void AddGridGrad(const SamplePoint& p, const double v[2][2], double go,
                                         double* sx, double* sy) {
  *sx += go * ((1 - p.fy) * (v[0][1] - v[0][0]) + p.fy * (v[1][1] - v[1][0]));
  *sy += go * ((1 - p.fx) * (v[1][0] - v[0][0]) + p.fx * (v[1][1] - v[0][1]));
}

SYMX_HOST_DEVICE inline void GridGradScale(double sx, double sy, int64_t ih, int64_t iw,
                                           double* dgx, double* dgy) {
  *dgx = sx * static_cast<double>(iw - 1) / 2.0;
  *dgy = sy * static_cast<double>(ih - 1) / 2.0;
}

}  // namespace symx

#endif  // SYMX_DEVICES_GEOMETRY_SPATIAL_SAMPLE_H_
