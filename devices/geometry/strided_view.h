// Strided views: where the elements of a contiguous array sit in a strided
// one (element `flat` of the contiguous side, row-major over `dims`, is at
// offset + sum(index[d] * steps[d]) on the strided side). The data-movement
// ops of every device are copies through such views; the views of the ops
// whose geometry is more than a slice are built here once, for the CPU and
// the GPU kernels alike.
#ifndef SYMX_DEVICES_GEOMETRY_STRIDED_VIEW_H_
#define SYMX_DEVICES_GEOMETRY_STRIDED_VIEW_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "devices/kernel.h"
#include "graph/shape.h"

namespace symx {

// Row-major strides (in elements) of `s`.
std::vector<int64_t> StridesOf(const Shape& s);

struct StridedView {
  std::vector<int64_t> dims;
  std::vector<int64_t> steps;
  int64_t offset = 0;

  int64_t size() const;
  // Drops size-1 dims and merges neighbours that are contiguous on the
  // strided side too (at least one dim remains).
  void Simplify();
};

// slice_like: the front corner of `whole` with `part`'s shape; an error naming
// the node when `part` does not fit.
absl::Status FrontView(const KernelContext& ctx, const Shape& whole, const Shape& part,
                       StridedView* v);

// diag: the diagonal's positions in the matrix-like side `mat` (a 1-D `vec`
// placed on diagonal k of a square matrix, or the diagonal of `mat` along
// axis1/axis2 giving `vec`); an error naming the node when they disagree.
absl::Status DiagView(const KernelContext& ctx, const Shape& mat, const Shape& vec, StridedView* v);

// Crop: the window of `big` (N, C, H, W) with `small`'s shape (N, C, h, w) at
// the op's offset (graph/ops/crop.h's CropOffset); an error naming the node
// when it does not fit.
absl::Status CropView(const KernelContext& ctx, const Shape& big, const Shape& small,
                      StridedView* v);

// The image family's flips: `shape` read with axis `axis` reversed (a gather
// through it is the flipped array).
StridedView FlipView(const Shape& shape, int axis);

// _image_crop: the window of `big` ((H, W, C) or (N, H, W, C)) with `small`'s
// shape at the op's (y, x); an error naming the node when it does not fit.
absl::Status ImageCropView(const KernelContext& ctx, const Shape& big, const Shape& small,
                           StridedView* v);

}  // namespace symx

#endif  // SYMX_DEVICES_GEOMETRY_STRIDED_VIEW_H_
