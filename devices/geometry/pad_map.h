// Pad's geometry along one axis, for host and device code (the CPU and GPU
// kernels of Pad and its gradient share it): which input index an output
// index copies.
#ifndef SYMX_DEVICES_GEOMETRY_PAD_MAP_H_
#define SYMX_DEVICES_GEOMETRY_PAD_MAP_H_

#include <cstdint>

#include "devices/host_device.h"

namespace symx {

enum class PadKind : int { kConstant = 0, kEdge = 1, kReflect = 2 };

// The input index output index `o` copies along an axis of `len` input
// elements padded by `before` in front, or -1 for the constant. Reflection
// pads are smaller than the axis (checked at inference), so one bounce
// suffices; the loop also keeps a length-1 axis safe. len > 0 unless the
// kind is constant.
SYMX_HOST_DEVICE inline int64_t PadSource(int64_t o, int64_t before, int64_t len, PadKind kind) {
  int64_t i = o - before;
  if (i >= 0 && i < len) return i;
  if (kind == PadKind::kConstant) return -1;
  if (kind == PadKind::kEdge) return i < 0 ? 0 : len - 1;
  while (i < 0 || i >= len) {
    if (len == 1) return 0;
    i = i < 0 ? -i : 2 * (len - 1) - i;
  }
  return i;
}

}  // namespace symx

#endif  // SYMX_DEVICES_GEOMETRY_PAD_MAP_H_
