// Pad's shapes checked once for every device's kernels (the per-axis map
// itself is devices/geometry/pad_map.h, shared with device code).
#ifndef SYMX_DEVICES_GEOMETRY_PAD_GEOMETRY_H_
#define SYMX_DEVICES_GEOMETRY_PAD_GEOMETRY_H_

#include "absl/status/status.h"
#include "devices/geometry/pad_map.h"
#include "devices/kernel.h"
#include "graph/ops/tensor.h"

namespace symx {

PadKind PadKindOf(PadMode mode);

// `out` is `in` padded by the node's pad_width, and no empty axis is padded by
// edge or reflection; else an error naming the node.
absl::Status CheckPadShapes(const KernelContext& ctx, const Shape& in, const Shape& out);

}  // namespace symx

#endif  // SYMX_DEVICES_GEOMETRY_PAD_GEOMETRY_H_
