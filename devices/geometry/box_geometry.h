// Box arithmetic of the detection ops (box_iou, box_nms, MultiBox*), for host
// and device code: the CPU and GPU kernels compute IoU with one definition,
// in the compute type C (float for float32/float16 as MXNet, double for
// float64), so IoU ties with thresholds fall the same way on both.
#ifndef SYMX_DEVICES_GEOMETRY_BOX_GEOMETRY_H_
#define SYMX_DEVICES_GEOMETRY_BOX_GEOMETRY_H_

#include <math.h>

#include <cstdint>

#include "devices/host_device.h"

namespace symx {

template <typename C>
struct Box {
  C x1, y1, x2, y2;
};

// A box from 4 coordinates in corner (x1, y1, x2, y2) or center (x, y, w, h) form.
template <typename C>
SYMX_HOST_DEVICE inline Box<C> ToCorner(C a, C b, C c, C d, bool center) {
  if (!center) return {a, b, c, d};
  return {a - c / 2, b - d / 2, a + c / 2, b + d / 2};
}

template <typename C>
SYMX_HOST_DEVICE inline C Area(const Box<C>& b) {
  const C w = b.x2 - b.x1, h = b.y2 - b.y1;
  return (w < 0 || h < 0) ? C(0) : w * h;
}

template <typename C>
SYMX_HOST_DEVICE inline C Iou(const Box<C>& a, const Box<C>& b) {
  // std::min/std::max's exact choices (NaNs included), written for device code.
  const C right = b.x2 < a.x2 ? b.x2 : a.x2, left = a.x1 < b.x1 ? b.x1 : a.x1;
  const C bottom = b.y2 < a.y2 ? b.y2 : a.y2, top = a.y1 < b.y1 ? b.y1 : a.y1;
  const C w = C(0) < right - left ? right - left : C(0);
  const C h = C(0) < bottom - top ? bottom - top : C(0);
  const C inter = w * h;
  const C uni = Area(a) + Area(b) - inter;
  return uni <= 0 ? C(0) : inter / uni;
}

// box_nms's output coordinates of a kept row given in in_center form: false
// when they stay as they are (formats equal, or the row's first coordinate is
// negative: MXNet converts only rows that pass its test for the -1 filler
// rows, so a box at x < 0 keeps its input format).
template <typename C>
SYMX_HOST_DEVICE inline bool NmsOutputCoords(C a, C b, C c, C d, bool in_center, bool out_center,
                                             C* out) {
  if (in_center == out_center || a < 0) return false;
  const Box<C> bb = ToCorner(a, b, c, d, in_center);
  if (out_center) {
    out[0] = (bb.x1 + bb.x2) / 2;
    out[1] = (bb.y1 + bb.y2) / 2;
    out[2] = bb.x2 - bb.x1;
    out[3] = bb.y2 - bb.y1;
  } else {
    out[0] = bb.x1;
    out[1] = bb.y1;
    out[2] = bb.x2;
    out[3] = bb.y2;
  }
  return true;
}

// MultiBoxPrior's anchor (x1, y1, x2, y2) around a cell centre, clipped to
// [0, 1] when asked (std::min/std::max's choices).
SYMX_HOST_DEVICE inline void PriorCorners(float cx, float cy, float hw, float hh, bool clip,
                                          float* out) {
  const float v[4] = {cx - hw, cy - hh, cx + hw, cy + hh};
  for (int j = 0; j < 4; ++j) {
    float x = v[j];
    if (clip) {
      x = 0.0f < x ? x : 0.0f;  // std::max(0.0f, x): NaN becomes 0
      x = x < 1.0f ? x : 1.0f;  // std::min(1.0f, x)
    }
    out[j] = x;
  }
}

// MultiBoxDetection's class of one anchor: the most probable non-background
// class (the first on ties; `cls` points at class 0 of the anchor, classes
// `stride` apart), or 0 when none beats -1 or the best is under `threshold`.
template <typename C, typename T>
SYMX_HOST_DEVICE inline int64_t MultiBoxBestClass(const T* cls, int64_t classes, int64_t stride,
                                                  C threshold, C* score) {
  C best = -1;
  int64_t id = 0;
  for (int64_t j = 1; j < classes; ++j) {
    const C v = static_cast<C>(cls[j * stride]);
    if (v > best) best = v, id = j;
  }
  if (id > 0 && best < threshold) id = 0;
  *score = best;
  return id;
}

// MultiBoxDetection's box (x1, y1, x2, y2) from an anchor's corners and its
// location prediction (centre offsets and log sizes, scaled by the
// variances), clipped to [0, 1] when asked (std::max(0, std::min(1, v))).
template <typename C>
SYMX_HOST_DEVICE inline void DecodeMultiBox(const C* anchor, const C* loc, const C* var, bool clip,
                                            C* out) {
  const C al = anchor[0], at = anchor[1], ar = anchor[2], ab = anchor[3];
  const C aw = ar - al, ah = ab - at, ax = (al + ar) / 2, ay = (at + ab) / 2;
  const C ox = loc[0] * var[0] * aw + ax, oy = loc[1] * var[1] * ah + ay;
  const C ow = exp(loc[2] * var[2]) * aw / 2, oh = exp(loc[3] * var[3]) * ah / 2;
  const C v[4] = {ox - ow, oy - oh, ox + ow, oy + oh};
  for (int j = 0; j < 4; ++j) {
    if (!clip) {
      out[j] = v[j];
      continue;
    }
    const C lo = v[j] < C(1) ? v[j] : C(1);
    out[j] = C(0) < lo ? lo : C(0);
  }
}

// MultiBoxTarget's regression target of an anchor matched to a box: centre
// offsets over the anchor's size and log size ratios, each over its variance.
template <typename C>
SYMX_HOST_DEVICE inline void EncodeMultiBox(const Box<C>& a, const Box<C>& t, const C* var,
                                            C* out) {
  const C aw = a.x2 - a.x1, ah = a.y2 - a.y1;
  const C ax = (a.x1 + a.x2) / 2, ay = (a.y1 + a.y2) / 2;
  const C gw = t.x2 - t.x1, gh = t.y2 - t.y1;
  const C gx = (t.x1 + t.x2) / 2, gy = (t.y1 + t.y2) / 2;
  out[0] = (gx - ax) / aw / var[0];
  out[1] = (gy - ay) / ah / var[1];
  out[2] = log(gw / aw) / var[2];
  out[3] = log(gh / ah) / var[3];
}

// MultiBoxTarget's hard-negative score of an anchor: the softmax probability
// of the background (class 0) over its `classes` predictions `stride` apart,
// in double.
template <typename T>
SYMX_HOST_DEVICE inline double MultiBoxBackgroundProb(const T* col, int64_t classes,
                                                      int64_t stride) {
  double mx = -HUGE_VAL;
  for (int64_t c = 0; c < classes; ++c) {
    const double v = static_cast<double>(col[c * stride]);
    mx = mx < v ? v : mx;  // std::max(mx, v)
  }
  double sum = 0;
  for (int64_t c = 0; c < classes; ++c) sum += exp(static_cast<double>(col[c * stride]) - mx);
  return exp(static_cast<double>(col[0]) - mx) / sum;
}

// box_encode's four targets of a valid sample: ref and anchor are corner
// boxes; centre offsets over the anchor's size and log size ratios, each less
// its mean and over its std.
template <typename C>
SYMX_HOST_DEVICE inline void BoxEncodeTargets(const C* ref, const C* anchor, const C* means,
                                              const C* stds, C* out) {
  const C rw = ref[2] - ref[0], rh = ref[3] - ref[1];
  const C rx = ref[0] + rw * C(0.5), ry = ref[1] + rh * C(0.5);
  const C aw = anchor[2] - anchor[0], ah = anchor[3] - anchor[1];
  const C ax = anchor[0] + aw * C(0.5), ay = anchor[1] + ah * C(0.5);
  out[0] = ((rx - ax) / aw - means[0]) / stds[0];
  out[1] = ((ry - ay) / ah - means[1]) / stds[1];
  out[2] = (log(rw / aw) - means[2]) / stds[2];
  out[3] = (log(rh / ah) - means[3]) / stds[3];
}

// box_decode's corner box from offsets x and an anchor in center (x, y, w, h)
// or corner form; with has_clip the scaled log sizes are first clipped to at
// most clip (a NaN one becomes clip, as MXNet's `dw < clip ? dw : clip`).
template <typename C>
SYMX_HOST_DEVICE inline void BoxDecodeCorners(const C* x, const C* anchor, bool center,
                                              const C* stds, bool has_clip, C clip, C* out) {
  C ax = anchor[0], ay = anchor[1], aw = anchor[2], ah = anchor[3];
  if (!center) {
    aw = aw - ax;
    ah = ah - ay;
    ax = ax + aw * C(0.5);
    ay = ay + ah * C(0.5);
  }
  const C ox = x[0] * stds[0] * aw + ax, oy = x[1] * stds[1] * ah + ay;
  C dw = x[2] * stds[2], dh = x[3] * stds[3];
  if (has_clip) {
    dw = dw < clip ? dw : clip;
    dh = dh < clip ? dh : clip;
  }
  const C ow = exp(dw) * aw * C(0.5), oh = exp(dh) * ah * C(0.5);
  out[0] = ox - ow;
  out[1] = oy - oh;
  out[2] = ox + ow;
  out[3] = oy + oh;
}

}  // namespace symx

#endif  // SYMX_DEVICES_GEOMETRY_BOX_GEOMETRY_H_
