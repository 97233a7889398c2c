// CPU kernels for the data-movement ops: the reshape family (Flatten, Reshape,
// expand_dims, squeeze, _backward_reshape), transpose, and the join/split ops
// (Concat, _rnn_param_concat, SliceChannel, slice_axis and their backward ops).
//
// None of them computes, so all work on every dtype by moving bytes: the
// reshape family is a memcpy (nothing when the executor ran it in place),
// transpose (after dropping size-1 dims and merging dims that stay together)
// is a tiled copy for (batched) matrices, else an Eigen shuffle, over unsigned
// integers of the element's width,
// and joins/splits copy one contiguous block per (outer index, part).
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/cpu/kernel_util.h"
#include "devices/cpu/reduce_kernels.h"
#include "graph/error.h"
#include "graph/infer_util.h"
#include "graph/ops/shape.h"

namespace symx {
namespace cpu {
namespace {

// memcpy, split in parallel chunks when large. Nothing when dst == src.
void CopyBytes(const KernelContext& ctx, void* dst, const void* src, size_t n) {
  if (dst == src || n == 0) return;
  constexpr size_t kChunk = size_t{1} << 18;
  const int64_t chunks = static_cast<int64_t>((n + kChunk - 1) / kChunk);
  ParallelFor(ctx, chunks, static_cast<double>(kChunk), [&](int64_t begin, int64_t end) {
    const size_t from = static_cast<size_t>(begin) * kChunk;
    const size_t to = std::min(n, static_cast<size_t>(end) * kChunk);
    std::memcpy(static_cast<char*>(dst) + from, static_cast<const char*>(src) + from, to - from);
  });
}

// ----------------------------------------------------------------------------- reshape family

// Flatten, Reshape, expand_dims, squeeze and _backward_reshape: the same bytes
// under another shape.
absl::Status ReshapeCopy(const KernelContext& ctx) {
  const Tensor& in = ctx.inputs[0];
  const Tensor& out = ctx.outputs[0];
  if (in.nbytes() != out.nbytes()) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": input ", in.DebugString(),
                                                   " and output ", out.DebugString(),
                                                   " differ in size"));
  }
  CopyBytes(ctx, out.raw_data(), in.raw_data(), in.nbytes());
  return absl::OkStatus();
}

// ----------------------------------------------------------------------------- transpose

// dst[b] = src[b]^T for `batch` row-major rows x cols matrices, in cache-sized
// tiles, parallel over (matrix, tile).
template <typename E>
void TransposeMatrices(const KernelContext& ctx, const E* src, E* dst, int64_t batch, int64_t rows,
                       int64_t cols) {
  constexpr int64_t kTile = 32;
  const int64_t tr = (rows + kTile - 1) / kTile, tc = (cols + kTile - 1) / kTile;
  ParallelFor(ctx, batch * tr * tc, static_cast<double>(kTile * kTile), [&](int64_t b, int64_t e) {
    for (int64_t u = b; u < e; ++u) {
      const int64_t m = u / (tr * tc), t = u % (tr * tc);
      const int64_t i0 = (t / tc) * kTile, j0 = (t % tc) * kTile;
      const int64_t i1 = std::min(rows, i0 + kTile), j1 = std::min(cols, j0 + kTile);
      const E* s = src + m * rows * cols;
      E* d = dst + m * rows * cols;
      // Through a local tile so that both sides move whole rows: power-of-two
      // strides would otherwise thrash cache sets.
      E tile[kTile * kTile];
      for (int64_t i = i0; i < i1; ++i) {
        for (int64_t j = j0; j < j1; ++j) tile[(j - j0) * kTile + (i - i0)] = s[i * cols + j];
      }
      for (int64_t j = j0; j < j1; ++j) {
        std::memcpy(d + j * rows + i0, tile + (j - j0) * kTile,
                    static_cast<size_t>(i1 - i0) * sizeof(E));
      }
    }
  });
}

// Copies with output dim i = input dim perm[i]; `dims` are the input's.
template <typename E>
void TransposeElements(const KernelContext& ctx, const std::vector<int64_t>& dims,
                       const std::vector<int>& perm, const E* src, E* dst, int64_t size) {
  const int n = static_cast<int>(dims.size());
  // Matrix and batched-matrix transposes (the common cases) by tiles.
  if (n == 2) return TransposeMatrices(ctx, src, dst, 1, dims[0], dims[1]);
  if (n == 3 && perm[0] == 0 && perm[1] == 2) {
    return TransposeMatrices(ctx, src, dst, dims[0], dims[1], dims[2]);
  }
  bool done = DispatchRank(n, [&](auto rank) {
    constexpr int N = decltype(rank)::value;
    Eigen::array<int64_t, N> in_dims;
    Eigen::array<int64_t, N> out_dims;
    Eigen::array<int, N> shuffle;
    for (int i = 0; i < N; ++i) {
      in_dims[i] = dims[i];
      out_dims[i] = dims[perm[i]];
      shuffle[i] = perm[i];
    }
    TensorN<const E, N> in(src, in_dims);
    TensorN<E, N> out(dst, out_dims);
    Assign(ctx, out, in.shuffle(shuffle), size);
  });
  if (done) return;
  // Beyond Eigen's instantiated ranks: walk the output in order with an
  // odometer over its dims, stepping through the input by its strides.
  std::vector<int64_t> in_stride(n), out_dims(n), step(n);
  int64_t s = 1;
  for (int d = n - 1; d >= 0; --d) {
    in_stride[d] = s;
    s *= dims[d];
  }
  for (int i = 0; i < n; ++i) {
    out_dims[i] = dims[perm[i]];
    step[i] = in_stride[perm[i]];
  }
  ParallelFor(ctx, size, 2.0 * n, [&](int64_t begin, int64_t end) {
    std::vector<int64_t> idx(n);
    int64_t rest = begin, j = 0;
    for (int d = n - 1; d >= 0; --d) {
      idx[d] = rest % out_dims[d];
      rest /= out_dims[d];
      j += idx[d] * step[d];
    }
    for (int64_t i = begin; i < end; ++i) {
      dst[i] = src[j];
      for (int d = n - 1; d >= 0; --d) {
        j += step[d];
        if (++idx[d] < out_dims[d]) break;
        j -= step[d] * out_dims[d];
        idx[d] = 0;
      }
    }
  });
}

absl::Status Transpose(const KernelContext& ctx) {
  const Tensor& in = ctx.inputs[0];
  const Tensor& out = ctx.outputs[0];
  const int ndim = in.shape().ndim();
  const auto& p = ctx.param<TransposeParam>();
  if (!p.axes.empty() && static_cast<int>(p.axes.size()) != ndim) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": axes has ", p.axes.size(),
                                                   " entries for input ", in.DebugString()));
  }
  if (in.size() != out.size() || in.dtype() != out.dtype()) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": output ", out.DebugString(),
                                                   " does not match input ", in.DebugString()));
  }
  if (in.size() == 0) return absl::OkStatus();
  const std::vector<int> perm = TransposePermutation(p, ndim);

  // Drop size-1 dims, then merge input dims that stay adjacent in the output.
  std::vector<int> keep_index(ndim, -1);
  std::vector<int64_t> dims;
  for (int d = 0; d < ndim; ++d) {
    if (in.shape()[d] != 1) {
      keep_index[d] = static_cast<int>(dims.size());
      dims.push_back(in.shape()[d]);
    }
  }
  std::vector<int> kept_perm;
  for (int i = 0; i < ndim; ++i) {
    if (keep_index[perm[i]] >= 0) kept_perm.push_back(keep_index[perm[i]]);
  }
  // Groups of output positions whose input axes are consecutive.
  std::vector<std::vector<int>> groups;
  for (size_t i = 0; i < kept_perm.size(); ++i) {
    if (i > 0 && kept_perm[i] == kept_perm[i - 1] + 1) {
      groups.back().push_back(kept_perm[i]);
    } else {
      groups.push_back({kept_perm[i]});
    }
  }
  // Order the groups by their first input axis to get the merged input dims.
  std::vector<int> by_input(groups.size());
  for (size_t g = 0; g < groups.size(); ++g) by_input[g] = static_cast<int>(g);
  std::sort(by_input.begin(), by_input.end(),
            [&](int a, int b) { return groups[a][0] < groups[b][0]; });
  std::vector<int64_t> merged_dims(groups.size());
  std::vector<int> merged_perm(groups.size());
  std::vector<int> input_pos(groups.size());
  for (size_t k = 0; k < by_input.size(); ++k) {
    int64_t prod = 1;
    for (int a : groups[by_input[k]]) prod *= dims[a];
    merged_dims[k] = prod;
    input_pos[by_input[k]] = static_cast<int>(k);
  }
  for (size_t g = 0; g < groups.size(); ++g) merged_perm[g] = input_pos[g];

  const size_t esize = DTypeSize(in.dtype());
  if (merged_dims.size() <= 1) {
    CopyBytes(ctx, out.raw_data(), in.raw_data(), in.nbytes());
    return absl::OkStatus();
  }
  switch (esize) {
    case 1:
      TransposeElements(ctx, merged_dims, merged_perm, in.data<uint8_t>(), out.data<uint8_t>(),
                        in.size());
      break;
    case 2:
      TransposeElements(ctx, merged_dims, merged_perm, in.data<uint16_t>(), out.data<uint16_t>(),
                        in.size());
      break;
    case 4:
      TransposeElements(ctx, merged_dims, merged_perm, in.data<uint32_t>(), out.data<uint32_t>(),
                        in.size());
      break;
    case 8:
      TransposeElements(ctx, merged_dims, merged_perm, in.data<uint64_t>(), out.data<uint64_t>(),
                        in.size());
      break;
    default:
      return UnsupportedDType(ctx, in.dtype());
  }
  return absl::OkStatus();
}

// ----------------------------------------------------------------------------- join / split

// One piece of a tensor cut along an axis: viewed as (outer, len * inner), it
// sits at column `offset` (elements along the axis) of the whole.
struct Piece {
  char* data;
  int64_t len;
  int64_t offset;
};

// Copies between the whole, viewed as (outer, total * inner), and its pieces:
// into the whole (join) or out of it (split). Parallel over (row, piece) blocks.
void JoinOrSplit(const KernelContext& ctx, bool join, char* whole, int64_t outer, int64_t total,
                 int64_t inner, size_t esize, const std::vector<Piece>& pieces) {
  const int64_t np = static_cast<int64_t>(pieces.size());
  if (outer == 0 || inner == 0 || np == 0) return;
  const size_t whole_row = static_cast<size_t>(total * inner) * esize;
  const double cost = static_cast<double>(whole_row) / static_cast<double>(np) / 4.0 + 1.0;
  ParallelFor(ctx, outer * np, cost, [&](int64_t begin, int64_t end) {
    for (int64_t u = begin; u < end; ++u) {
      const int64_t row = u / np;
      const Piece& piece = pieces[u % np];
      const size_t bytes = static_cast<size_t>(piece.len * inner) * esize;
      if (bytes == 0) continue;
      char* w = whole + row * whole_row + static_cast<size_t>(piece.offset * inner) * esize;
      char* q = piece.data + row * bytes;
      if (join) {
        std::memcpy(w, q, bytes);
      } else {
        std::memcpy(q, w, bytes);
      }
    }
  });
}

struct AxisView {
  int64_t outer = 1, total = 0, inner = 1;
};

AxisView ViewAlong(const Shape& s, int axis) {
  AxisView v;
  for (int d = 0; d < axis; ++d) v.outer *= s[d];
  v.total = s[axis];
  for (int d = axis + 1; d < s.ndim(); ++d) v.inner *= s[d];
  return v;
}

absl::Status WithWhere(const KernelContext& ctx, const absl::Status& s) {
  return absl::Status(s.code(), absl::StrCat(ctx.Where(), ": ", s.message()));
}

// Pieces of `whole` (cut along `axis`) are `parts`, each `len` wide along it
// (their sizes must add up). `join` copies parts -> whole.
absl::Status CutAlong(const KernelContext& ctx, bool join, const Tensor& whole, int axis,
                      const std::vector<Tensor>& parts, const std::vector<int64_t>& lens) {
  AxisView v = ViewAlong(whole.shape(), axis);
  std::vector<Piece> pieces;
  int64_t offset = 0;
  for (size_t k = 0; k < parts.size(); ++k) {
    if (parts[k].dtype() != whole.dtype() || parts[k].size() != v.outer * lens[k] * v.inner) {
      return absl::InvalidArgumentError(
          absl::StrCat(ctx.Where(), ": part ", k, " ", parts[k].DebugString(),
                       " does not fit along axis ", axis, " of ", whole.DebugString()));
    }
    pieces.push_back(Piece{static_cast<char*>(parts[k].raw_data()), lens[k], offset});
    offset += lens[k];
  }
  if (offset != v.total) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": parts cover ", offset,
                                                   " of the ", v.total, " entries along axis ",
                                                   axis, " of ", whole.DebugString()));
  }
  JoinOrSplit(ctx, join, static_cast<char*>(whole.raw_data()), v.outer, v.total, v.inner,
              DTypeSize(whole.dtype()), pieces);
  return absl::OkStatus();
}

// Concat: inputs -> output; _backward_Concat: ograd -> one gradient per input.
absl::Status ConcatImpl(const KernelContext& ctx, bool forward) {
  const Tensor& whole = forward ? ctx.outputs[0] : ctx.inputs[0];
  const std::vector<Tensor>& parts = forward ? ctx.inputs : ctx.outputs;
  int axis = 0;
  absl::Status s = NormalizeAxis(ctx.param<ConcatParam>().dim, whole.shape().ndim(), "dim", &axis);
  if (!s.ok()) return WithWhere(ctx, s);
  if (forward && ctx.OutputChannelsLast(0)) {
    // Channels-last values joined along the channels (ConcatChannelsLast):
    // (N, spatial..., C) rows, joined along the last axis.
    const Shape& plain = whole.shape();
    std::vector<int64_t> dims = {plain[0]};
    for (int d = 2; d < plain.ndim(); ++d) dims.push_back(plain[d]);
    dims.push_back(plain[1]);
    std::vector<int64_t> lens;
    for (const Tensor& t : parts) lens.push_back(t.shape()[1]);
    SYMX_ASSIGN_OR_RETURN(Tensor stored, whole.View(Shape(dims)));
    return CutAlong(ctx, true, stored, plain.ndim() - 1, parts, lens);
  }
  std::vector<int64_t> lens;
  for (const Tensor& t : parts) {
    if (t.shape().ndim() != whole.shape().ndim()) {
      return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": part ", t.DebugString(),
                                                     " does not match ", whole.DebugString()));
    }
    lens.push_back(t.shape()[axis]);
  }
  return CutAlong(ctx, forward, whole, axis, parts, lens);
}

absl::Status Concat(const KernelContext& ctx) { return ConcatImpl(ctx, true); }
absl::Status ConcatBackward(const KernelContext& ctx) { return ConcatImpl(ctx, false); }

// SliceChannel: input -> num_outputs equal parts; backward: ograds -> grad.
absl::Status SliceChannelImpl(const KernelContext& ctx, bool forward) {
  const Tensor& whole = forward ? ctx.inputs[0] : ctx.outputs[0];
  const std::vector<Tensor>& parts = forward ? ctx.outputs : ctx.inputs;
  const auto& p = ctx.param<SliceChannelParam>();
  int axis = 0;
  absl::Status s = NormalizeAxis(p.axis, whole.shape().ndim(), "axis", &axis);
  if (!s.ok()) return WithWhere(ctx, s);
  const int64_t k = static_cast<int64_t>(parts.size());
  const int64_t d = whole.shape()[axis];
  if (k == 0 || d % k != 0) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": cannot split axis ", axis,
                                                   " of ", whole.DebugString(), " into ", k,
                                                   " parts"));
  }
  return CutAlong(ctx, !forward, whole, axis, parts, std::vector<int64_t>(k, d / k));
}

absl::Status SliceChannel(const KernelContext& ctx) { return SliceChannelImpl(ctx, true); }
absl::Status SliceChannelBackward(const KernelContext& ctx) { return SliceChannelImpl(ctx, false); }

// slice_axis: [begin, end) of one axis of the input; backward: ograd placed
// there in zeros of the input's shape.
absl::Status SliceAxisImpl(const KernelContext& ctx, bool forward) {
  const Tensor& whole = forward ? ctx.inputs[0] : ctx.outputs[0];
  const Tensor& part = forward ? ctx.outputs[0] : ctx.inputs[0];
  const auto& p = ctx.param<SliceAxisParam>();
  int axis = 0;
  absl::Status s = NormalizeAxis(p.axis, whole.shape().ndim(), "axis", &axis);
  if (!s.ok()) return WithWhere(ctx, s);
  const int64_t d = whole.shape()[axis];
  const int64_t b = p.begin < 0 ? p.begin + d : p.begin;
  const int64_t e = !p.end ? d : (*p.end < 0 ? *p.end + d : *p.end);
  if (b < 0 || e > d || b >= e) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": the range [", b, ", ", e,
                                                   ") is empty or outside axis ", axis, " of ",
                                                   whole.DebugString()));
  }
  AxisView v = ViewAlong(whole.shape(), axis);
  if (part.dtype() != whole.dtype() || part.size() != v.outer * (e - b) * v.inner) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": slice ", part.DebugString(),
                                                   " does not fit [", b, ", ", e, ") of ",
                                                   whole.DebugString()));
  }
  if (!forward) std::memset(whole.raw_data(), 0, whole.nbytes());
  JoinOrSplit(ctx, !forward, static_cast<char*>(whole.raw_data()), v.outer, v.total, v.inner,
              DTypeSize(whole.dtype()), {Piece{static_cast<char*>(part.raw_data()), e - b, b}});
  return absl::OkStatus();
}

absl::Status SliceAxis(const KernelContext& ctx) { return SliceAxisImpl(ctx, true); }
absl::Status SliceAxisBackward(const KernelContext& ctx) { return SliceAxisImpl(ctx, false); }

SYMX_REGISTER_KERNEL("Flatten", kCPU, ReshapeCopy);
SYMX_REGISTER_KERNEL("Reshape", kCPU, ReshapeCopy);
SYMX_REGISTER_KERNEL("expand_dims", kCPU, ReshapeCopy);
SYMX_REGISTER_KERNEL("squeeze", kCPU, ReshapeCopy);
SYMX_REGISTER_KERNEL("_backward_reshape", kCPU, ReshapeCopy);
SYMX_REGISTER_KERNEL("transpose", kCPU, Transpose);

// Joined along the channels of (N, C, spatial...) values, all of them may be
// channels-last (tied: the kernel has no mixed path).
void ConcatChannelsLast(const NodeAttrs& attrs, const std::vector<Shape>& in,
                        const std::vector<Shape>& out, DType /*dtype*/,
                        const EngineOptions& /*options*/, std::vector<bool>* in_cl,
                        std::vector<bool>* out_cl) {
  if (out.empty() || out[0].ndim() < 3) return;
  int axis = 0;
  if (!NormalizeAxis(Param<ConcatParam>(attrs).dim, out[0].ndim(), "dim", &axis).ok() ||
      axis != 1) {
    return;
  }
  for (const Shape& s : in) {
    if (s.ndim() != out[0].ndim()) return;
  }
  in_cl->assign(in.size(), true);
  (*out_cl)[0] = true;
}

SYMX_REGISTER_KERNEL("Concat", kCPU, .fn = Concat, .channels_last = ConcatChannelsLast,
                     .channels_last_tied = true);
SYMX_REGISTER_KERNEL("_backward_Concat", kCPU, ConcatBackward);
SYMX_REGISTER_KERNEL("_rnn_param_concat", kCPU, Concat);
SYMX_REGISTER_KERNEL("SliceChannel", kCPU, SliceChannel);
SYMX_REGISTER_KERNEL("_backward_SliceChannel", kCPU, SliceChannelBackward);
SYMX_REGISTER_KERNEL("slice_axis", kCPU, SliceAxis);
SYMX_REGISTER_KERNEL("_backward_slice_axis", kCPU, SliceAxisBackward);

}  // namespace
}  // namespace cpu
}  // namespace symx
