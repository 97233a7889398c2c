// Parameters of the tensor data-movement ops (slice, slice_like, SwapAxis, tile, repeat,
// reverse, Pad, stack, diag), shared by the schemas (graph/ops/tensor.cc) and the CPU kernels
// (devices/cpu/tensor_kernels.cc), with the index arithmetic both sides must agree on.
#ifndef SYMX_GRAPH_OPS_TENSOR_H_
#define SYMX_GRAPH_OPS_TENSOR_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "graph/param.h"
#include "graph/shape.h"

namespace symx {

// slice: per-axis begin/end/step, each entry possibly None. step may be empty (all 1).
struct SliceParam : OpParam {
  std::vector<std::optional<int64_t>> begin;
  std::vector<std::optional<int64_t>> end;
  std::vector<std::optional<int64_t>> step;
};

// One axis of a slice, resolved against the axis length the way Python's
// slice.indices does (which is what MXNet 1.9.1 computes): the first index, the
// step, and how many elements are taken (0 for an empty range).
struct SliceRange {
  int64_t begin = 0;
  int64_t step = 1;
  int64_t count = 0;
};
SliceRange ResolveSlice(std::optional<int64_t> begin, std::optional<int64_t> end,
                        std::optional<int64_t> step, int64_t len);
// Every axis of `shape` (fully known) for `p`; axes past begin's length are taken whole.
std::vector<SliceRange> ResolveSliceAll(const SliceParam& p, const Shape& shape);

struct SliceLikeParam : OpParam {
  std::vector<int64_t> axes;  // empty: every axis
};

struct SwapAxisParam : OpParam {
  int64_t dim1 = 0;
  int64_t dim2 = 0;
};

struct TileParam : OpParam {
  std::vector<int64_t> reps;
};

struct RepeatParam : OpParam {
  int64_t repeats = 0;
  std::optional<int64_t> axis;  // None: the flattened input
};

// tile's input shape and reps, both padded with leading 1s to the output's
// ndim (every device's kernels view the output as (rep, dim) pairs).
inline void AlignTile(const TileParam& p, const Shape& in, std::vector<int64_t>* dims,
                      std::vector<int64_t>* reps) {
  const int nr = static_cast<int>(p.reps.size());
  const int on = in.ndim() > nr ? in.ndim() : nr;
  dims->assign(on, 1);
  reps->assign(on, 1);
  for (int d = 0; d < in.ndim(); ++d) (*dims)[on - in.ndim() + d] = in[d];
  for (int d = 0; d < nr; ++d) (*reps)[on - nr + d] = p.reps[d];
}

// repeat's input as dims with the repeated axis at `ax` (the flattened input
// for axis=None); an axis out of range is an error naming it.
absl::Status RepeatDims(const RepeatParam& p, const Shape& in, std::vector<int64_t>* dims, int* ax);

struct ReverseParam : OpParam {
  std::vector<int64_t> axis;  // non-negative (MXNet rejects negative axes); repeats cancel
};

enum class PadMode { kConstant, kEdge, kReflect };
struct PadParam : OpParam {
  PadMode mode = PadMode::kConstant;
  std::vector<int64_t> pad_width;  // (before, after) for every axis
  double constant_value = 0.0;
};

struct StackParam : OpParam {
  int64_t axis = 0;
  int64_t num_args = 0;
};

struct DiagParam : OpParam {
  int64_t k = 0;
  int64_t axis1 = 0;
  int64_t axis2 = 1;
};

// The output shape of diag for a fully known input, or an error naming the op and shape.
absl::Status DiagOutputShape(const DiagParam& p, const Shape& in, Shape* out);

}  // namespace symx

#endif  // SYMX_GRAPH_OPS_TENSOR_H_
