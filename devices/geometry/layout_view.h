// Strided views of the layout and scatter families (graph/ops/layout.h,
// graph/ops/scatter.h), written once for the CPU and the GPU kernels: each
// op is a copy between a contiguous array and a view of another
// (devices/geometry/strided_view.h).
#ifndef SYMX_DEVICES_GEOMETRY_LAYOUT_VIEW_H_
#define SYMX_DEVICES_GEOMETRY_LAYOUT_VIEW_H_

#include <cstdint>

#include "absl/status/status.h"
#include "devices/geometry/im2col_map.h"
#include "devices/geometry/strided_view.h"
#include "devices/kernel.h"
#include "graph/ops/layout.h"
#include "graph/ops/tensor.h"
#include "graph/shape.h"

namespace symx {

// depth_to_space: where the elements of the output, in order, sit in the
// (N, C, H, W) input `in` (the view gathers the output from it).
absl::Status DepthToSpaceView(const KernelContext& ctx, const Shape& in, int64_t block,
                              StridedView* v);

// space_to_depth: the same for space_to_depth's output.
absl::Status SpaceToDepthView(const KernelContext& ctx, const Shape& in, int64_t block,
                              StridedView* v);

// Elements [begin, end) of `axis` of `whole`: one part of _split_v2.
StridedView AxisRangeView(const Shape& whole, int axis, int64_t begin, int64_t end);

// The positions slice `p` takes from `whole`; an error naming the node when
// begin has more entries than whole has dims.
absl::Status SliceParamView(const KernelContext& ctx, const SliceParam& p, const Shape& whole,
                            StridedView* v);

// im2col / col2im: the map between `image` (N, C, spatial...) and `cols`
// (N, C * prod(kernel), L) for `p`; an error naming the node when they do
// not fit each other.
absl::Status MakeIm2colDims(const KernelContext& ctx, const SlidingParam& p, const Shape& image,
                            const Shape& cols, Im2colDims* d);

}  // namespace symx

#endif  // SYMX_DEVICES_GEOMETRY_LAYOUT_VIEW_H_
