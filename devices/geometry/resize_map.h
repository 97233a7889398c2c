// The sampling geometry of _contrib_AdaptiveAvgPooling2D and
// _contrib_BilinearResize2D along one axis, for host and device code (the
// CPU and GPU kernels share it).
#ifndef SYMX_DEVICES_GEOMETRY_RESIZE_MAP_H_
#define SYMX_DEVICES_GEOMETRY_RESIZE_MAP_H_

#include <math.h>

#include <cstdint>

#include "devices/host_device.h"

namespace symx {

// Adaptive pooling: output cell i of `out` averages input rows
// [floor(i * in / out), ceil((i + 1) * in / out)).
SYMX_HOST_DEVICE inline int64_t BinBegin(int64_t i, int64_t in, int64_t out) {
  return (i * in) / out;
}
SYMX_HOST_DEVICE inline int64_t BinEnd(int64_t i, int64_t in, int64_t out) {
  return ((i + 1) * in + out - 1) / out;
}

// Bilinear resize: output index i of an axis of `out` elements samples an
// axis of `in` elements between i0 and i1, weight l on i1.
struct ResizeTap {
  int64_t i0 = 0, i1 = 0;
  double l = 0;
};

SYMX_HOST_DEVICE inline ResizeTap TapAt(int64_t i, int64_t in, int64_t out, bool align_corners) {
  double src = 0;
  if (out > 1) {
    const double di = static_cast<double>(i), n_in = static_cast<double>(in),
                 n_out = static_cast<double>(out);
    src = align_corners ? di * (n_in - 1) / (n_out - 1) : (di + 0.5) * n_in / n_out - 0.5;
    if (src < 0) src = 0;
  }
  ResizeTap t;
  const int64_t f = static_cast<int64_t>(floor(src));
  t.i0 = f < in - 1 ? f : in - 1;
  t.i1 = t.i0 + 1 < in - 1 ? t.i0 + 1 : in - 1;
  t.l = src - static_cast<double>(t.i0);
  return t;
}

// The weight output index i puts on input index `at` (0 when it does not
// sample it; both taps count when they coincide).
SYMX_HOST_DEVICE inline double TapWeight(const ResizeTap& t, int64_t at) {
  return (t.i0 == at ? 1.0 - t.l : 0.0) + (t.i1 == at ? t.l : 0.0);
}

}  // namespace symx

#endif  // SYMX_DEVICES_GEOMETRY_RESIZE_MAP_H_
