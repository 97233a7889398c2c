// The per-pixel color math of the image_random family (graph/ops/
// image_random.cc), written once for the CPU kernels and (compiled by nvcc)
// the GPU kernels, in the compute type C: float, or double for float64 data.
//
// Facts from MXNet 1.9.1 (src/operator/image/image_random-inl.h): gray is
// 0.299 R + 0.587 G + 0.114 B; hue is rotated through the HLS model with
// channel values in [0, 1] (divided by 255 on the way in, times 255 on the
// way out), the hue in degrees in [0, 360), and no hue or saturation for a
// pixel whose channels span at most the float epsilon. The arithmetic keeps
// MXNet's order of operations so that float results round as MXNet's do.
#ifndef SYMX_DEVICES_GEOMETRY_IMAGE_COLOR_H_
#define SYMX_DEVICES_GEOMETRY_IMAGE_COLOR_H_

#include <math.h>

#include "devices/host_device.h"

namespace symx {

// The color steps, in color_jitter's numbering (its shuffled order draws
// from these four).
enum class ImageColorStep : int {
  kBrightness = 0,
  kContrast = 1,
  kSaturation = 2,
  kHue = 3,
};

template <typename C>
SYMX_HOST_DEVICE inline C GrayOf(C r, C g, C b) {
  return r * C(0.299f) + g * C(0.587f) + b * C(0.114f);
}

// Saturation: each channel moves toward (alpha < 1) or away from the pixel's
// gray.
template <typename C>
SYMX_HOST_DEVICE inline void Saturate3(C alpha, C* r, C* g, C* b) {
  const C gray = GrayOf(*r, *g, *b) * (C(1) - alpha);
  *r = gray + *r * alpha;
  *g = gray + *g * alpha;
  *b = gray + *b * alpha;
}

// The hue of (r, g, b) in [0, 255] turned by `degrees`, through HLS.
template <typename C>
SYMX_HOST_DEVICE inline void RotateHue(C degrees, C* r, C* g, C* b) {
  // MXNet's threshold is the float epsilon whatever the data's type.
  const C eps = C(1.1920928955078125e-07);
  const C rn = *r / C(255), gn = *g / C(255), bn = *b / C(255);
  C hi = rn > gn ? rn : gn;
  hi = hi > bn ? hi : bn;
  C lo = rn < gn ? rn : gn;
  lo = lo < bn ? lo : bn;
  C span = hi - lo;
  const C light = (hi + lo) * C(0.5f);
  C hue = 0, sat = 0;
  if (span > eps) {
    sat = light < C(0.5f) ? span / (hi + lo) : span / (C(2) - hi - lo);
    span = C(60) / span;
    if (hi == rn) {
      hue = (gn - bn) * span;
    } else if (hi == gn) {
      hue = (bn - rn) * span + C(120);
    } else {
      hue = (rn - gn) * span + C(240);
    }
    if (hue < 0) hue += C(360);
  }
  hue += degrees;
  C out_r = light, out_g = light, out_b = light;
  if (sat != 0) {
    const C top = light <= C(0.5f) ? light * (C(1) + sat) : light + sat - light * sat;
    const C bottom = C(2) * light - top;
    C h = hue * (C(1) / C(60));
    if (h > C(-1536) && h < C(1536)) {
      // MXNet's stepwise wrap (its rounding) for any sane factor.
      while (h < 0) h += C(6);
      while (h >= C(6)) h -= C(6);
    } else if (h == h) {
      // Huge turns: one floor instead of a loop without end (h - 6 == h).
      h -= C(6) * floor(h / C(6));
      if (!(h >= 0 && h < C(6))) h = 0;
    }
    int sector = h == h ? static_cast<int>(h) : 0;  // NaN data stays NaN below
    sector = sector < 0 ? 0 : sector > 5 ? 5 : sector;
    h -= static_cast<C>(sector);
    // Per sector: which of (top, bottom, falling, rising) each of b, g, r takes.
    const C levels[4] = {top, bottom, bottom + (top - bottom) * (C(1) - h),
                         bottom + (top - bottom) * h};
    const unsigned char pick[6][3] = {{1, 3, 0}, {1, 0, 2}, {3, 0, 1},
                                      {0, 2, 1}, {0, 1, 3}, {2, 1, 0}};
    out_b = levels[pick[sector][0]];
    out_g = levels[pick[sector][1]];
    out_r = levels[pick[sector][2]];
  }
  *r = out_r * C(255);
  *g = out_g * C(255);
  *b = out_b * C(255);
}

}  // namespace symx

#endif  // SYMX_DEVICES_GEOMETRY_IMAGE_COLOR_H_
