// The deformable convolutions' geometry (devices/geometry/deformable_sample.h's
// DeformGeom) from the op's parameters and the data and output shapes, for the
// host side of both devices' kernels (devices/cpu/deformable_kernels.cc,
// devices/cuda/deformable_kernels.cc). Host only: nvcc does not read it.
#ifndef SYMX_DEVICES_GEOMETRY_DEFORMABLE_GEOM_H_
#define SYMX_DEVICES_GEOMETRY_DEFORMABLE_GEOM_H_

#include "devices/geometry/deformable_sample.h"
#include "devices/kernel.h"
#include "graph/ops/deformable.h"

namespace symx {

// data (N, C, H, W), out (N, F, out_h, out_w); the caller checks the ranks.
inline DeformGeom DeformGeomOf(const DeformableConvParam& p, const Shape& data, const Shape& out) {
  DeformGeom g;
  g.channels = data[1];
  g.height = data[2];
  g.width = data[3];
  g.out_h = out[2];
  g.out_w = out[3];
  g.kernel_h = p.kernel_h;
  g.kernel_w = p.kernel_w;
  g.stride_h = p.stride_h;
  g.stride_w = p.stride_w;
  g.dilate_h = p.dilate_h;
  g.dilate_w = p.dilate_w;
  g.pad_h = p.pad_h;
  g.pad_w = p.pad_w;
  g.deformable_groups = p.num_deformable_group;
  g.edge = static_cast<int>(p.modulated ? DeformEdge::kZeroPadded : DeformEdge::kClamped);
  return g;
}

}  // namespace symx

#endif  // SYMX_DEVICES_GEOMETRY_DEFORMABLE_GEOM_H_
