// Correlation's index map (graph/ops/spatial.cc has MXNet's rules), for host
// and device code: which data1 and data2 windows an output element compares,
// in unpadded coordinates (a position outside the image reads 0).
#ifndef SYMX_DEVICES_GEOMETRY_CORRELATION_MAP_H_
#define SYMX_DEVICES_GEOMETRY_CORRELATION_MAP_H_

#include <cstdint>

#include "devices/host_device.h"

namespace symx {

struct CorrelationGeom {
  int64_t n = 0, c = 0, h = 0, w = 0;  // data1 and data2
  int64_t oc = 0, oh = 0, ow = 0;      // output
  int64_t k = 1;                       // kernel_size
  int64_t max_displacement = 0, pad = 0;
  int64_t stride1 = 1, stride2 = 1;
  int64_t radius = 0, grid = 1;  // max_displacement / stride2, 2 * radius + 1
  bool multiply = true;
  SYMX_HOST_DEVICE bool Inside(int64_t y, int64_t x) const {
    return y >= 0 && y < h && x >= 0 && x < w;
  }
};

// Output element e = ((n * oc + k) * oh + i) * ow + j compares the k x k
// windows with top-left corners (y1, x1) in data1 and (y2, x2) in data2.
struct CorrelationTap {
  int64_t n, y1, x1, y2, x2;
};

SYMX_HOST_DEVICE inline CorrelationTap CorrelationTapOf(const CorrelationGeom& g, int64_t e) {
  const int64_t j = e % g.ow, i = (e / g.ow) % g.oh, ch = (e / (g.ow * g.oh)) % g.oc;
  CorrelationTap t;
  t.n = e / (g.ow * g.oh * g.oc);
  t.y1 = i * g.stride1 + g.max_displacement - g.pad;
  t.x1 = j * g.stride1 + g.max_displacement - g.pad;
  t.x2 = t.x1 + (ch % g.grid - g.radius) * g.stride2;
  t.y2 = t.y1 + (ch / g.grid - g.radius) * g.stride2;
  return t;
}

}  // namespace symx

#endif  // SYMX_DEVICES_GEOMETRY_CORRELATION_MAP_H_
