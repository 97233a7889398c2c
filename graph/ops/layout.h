// Parameters of the layout family (reshape_like, shape_array, size_array,
// depth_to_space, space_to_depth, _split_v2), shared by the schemas
// (graph/ops/layout.cc) and the kernels of both devices, with the arithmetic
// both sides must agree on.
#ifndef SYMX_GRAPH_OPS_LAYOUT_H_
#define SYMX_GRAPH_OPS_LAYOUT_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "graph/param.h"
#include "graph/shape.h"

namespace symx {

// reshape_like: lhs dims [lhs_begin, lhs_end) are replaced by rhs dims
// [rhs_begin, rhs_end); None begins are 0 and None ends the ndim.
struct ReshapeLikeParam : OpParam {
  std::optional<int64_t> lhs_begin, lhs_end, rhs_begin, rhs_end;
};

// The output shape of reshape_like for known lhs and rhs ndims (dims may be
// unknown); an error naming the bound and the shapes when a range is empty or
// out of range.
absl::Status ReshapeLikeShape(const ReshapeLikeParam& p, const Shape& lhs, const Shape& rhs,
                              Shape* out);

// depth_to_space and space_to_depth.
struct BlockSizeParam : OpParam {
  int64_t block_size = 0;
};

// _split_v2: parts of one axis, by boundaries (`indices`, part i starting at
// indices[i] and running to the next boundary or the axis' end) or in
// `sections` near-equal parts (the first len % sections one longer).
struct SplitV2Param : OpParam {
  std::vector<int64_t> indices;
  int64_t axis = 1;
  bool squeeze_axis = false;
  int64_t sections = 0;

  int64_t num_outputs() const {
    return sections > 0 ? sections : static_cast<int64_t>(indices.size());
  }
};

// The [begin, end) of every part along an axis of length `len`; an error
// naming the indices when they decrease or pass the axis' end.
absl::Status SplitV2Bounds(const SplitV2Param& p, int64_t len, std::vector<int64_t>* begins,
                           std::vector<int64_t>* ends);

// im2col / col2im: per spatial dim (1 to 3) the kernel, stride (default 1),
// dilate (default 1) and pad (default 0); col2im's image size too.
struct SlidingParam : OpParam {
  std::vector<int64_t> kernel, stride, dilate, pad;
  std::vector<int64_t> output_size;  // col2im only
};

// The number of kernel positions along each spatial dim of `image` (its
// spatial dims, one per kernel dim); an error naming the dim when the dilated
// kernel exceeds the padded image.
absl::Status SlidingPositions(const SlidingParam& p, const std::vector<int64_t>& image,
                              std::vector<int64_t>* positions);

}  // namespace symx

#endif  // SYMX_GRAPH_OPS_LAYOUT_H_
