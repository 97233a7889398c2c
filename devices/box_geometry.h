// Box arithmetic of the detection ops (box_iou, box_nms, MultiBox*), for host
// and device code: the CPU and GPU kernels compute IoU with one definition,
// in the compute type C (float for float32/float16 as MXNet, double for
// float64), so IoU ties with thresholds fall the same way on both.
#ifndef SYMX_DEVICES_BOX_GEOMETRY_H_
#define SYMX_DEVICES_BOX_GEOMETRY_H_

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

}  // namespace symx

#endif  // SYMX_DEVICES_BOX_GEOMETRY_H_
