// Correlation's geometry (devices/geometry/correlation_map.h's CorrelationGeom)
// from the op's parameters and the data and output shapes, for the host side
// of both devices' kernels (devices/cpu/spatial_kernels.cc,
// devices/cuda/spatial_kernels.cc). Host only: nvcc does not read it.
#ifndef SYMX_DEVICES_GEOMETRY_CORRELATION_GEOM_H_
#define SYMX_DEVICES_GEOMETRY_CORRELATION_GEOM_H_

#include "devices/geometry/correlation_map.h"
#include "graph/ops/spatial.h"
#include "graph/shape.h"

namespace symx {

// data (N, C, H, W), out (N, K, OH, OW); the caller checks the ranks.
inline CorrelationGeom CorrelationGeomFrom(const CorrelationParam& p, const Shape& data,
                                           const Shape& out) {
  CorrelationGeom g;
  g.n = data[0];
  g.c = data[1];
  g.h = data[2];
  g.w = data[3];
  g.oc = out[1];
  g.oh = out[2];
  g.ow = out[3];
  g.k = p.kernel_size;
  g.max_displacement = p.max_displacement;
  g.pad = p.pad_size;
  g.stride1 = p.stride1;
  g.stride2 = p.stride2;
  g.radius = p.grid_radius();
  g.grid = p.grid_width();
  g.multiply = p.is_multiply;
  return g;
}

}  // namespace symx

#endif  // SYMX_DEVICES_GEOMETRY_CORRELATION_GEOM_H_
