// CUDA kernels that move data: transpose, Concat, SliceChannel, slice_axis,
// slice, stack, reverse, tile, repeat and their backward ops. Each is one
// strided copy per part (devices/cuda/strided.cu) over any dtype; the
// gradients of tile and repeat are strided sums.
#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/cuda/kernel_util.h"
#include "devices/strided_view.h"
#include "graph/infer_util.h"
#include "graph/ops/shape.h"
#include "graph/ops/tensor.h"

namespace symx {
namespace cuda {
namespace {

absl::Status WithWhere(const KernelContext& ctx, const absl::Status& s) {
  return absl::Status(s.code(), absl::StrCat(ctx.Where(), ": ", s.message()));
}

absl::StatusOr<int> Axis(const KernelContext& ctx, int64_t axis, int ndim, const char* what) {
  int out = 0;
  absl::Status s = NormalizeAxis(axis, ndim, what, &out);
  if (!s.ok()) return WithWhere(ctx, s);
  return out;
}

absl::Status Copy(const KernelContext& ctx, const void* src, void* dst, const StridedDims& d,
                  int64_t n, DType dtype) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  if (d.ndim > kMaxDims) {
    return absl::InvalidArgumentError(
        absl::StrCat(ctx.Where(), ": more than ", kMaxDims, " dims on the GPU"));
  }
  SYMX_CUDA_LAUNCH(ctx, LaunchStridedCopy(DTypeSize(dtype), src, dst, d, n, device->stream()));
  return absl::OkStatus();
}

absl::Status Transpose(const KernelContext& ctx) {
  const Tensor& in = ctx.inputs[0];
  const Tensor& out = ctx.outputs[0];
  const int ndim = in.shape().ndim();
  const auto& p = ctx.param<TransposeParam>();
  if ((!p.axes.empty() && static_cast<int>(p.axes.size()) != ndim) || in.size() != out.size() ||
      ndim > kMaxDims) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": cannot transpose ",
                                                   in.DebugString(), " into ", out.DebugString(),
                                                   " on the GPU"));
  }
  const std::vector<int> perm = TransposePermutation(p, ndim);
  const std::vector<int64_t> st = StridesOf(in.shape());
  StridedDims d;
  d.ndim = ndim;
  int64_t dst_stride = 1;
  for (int k = ndim - 1; k >= 0; --k) {
    d.dims[k] = out.shape()[k];
    d.src_strides[k] = st[perm[k]];
    d.dst_strides[k] = dst_stride;
    dst_stride *= out.shape()[k];
  }
  return Copy(ctx, in.read_raw_data(), out.raw_data(), d, in.size(), in.dtype());
}

// Parts laid along `axis` of `whole` (viewed as (outer, total, inner)), part
// k taking lens[k] from offset sum(lens[:k]). join: parts -> whole; else
// whole -> parts. Undefined or unwanted parts are skipped.
absl::Status CutAlong(const KernelContext& ctx, bool join, const Tensor& whole, int axis,
                      const std::vector<Tensor>& parts, const std::vector<int64_t>& lens,
                      const std::vector<bool>& wanted) {
  int64_t outer = 1, inner = 1;
  for (int k = 0; k < axis; ++k) outer *= whole.shape()[k];
  for (int k = axis + 1; k < whole.shape().ndim(); ++k) inner *= whole.shape()[k];
  const int64_t total = whole.shape()[axis];
  const size_t elem = DTypeSize(whole.dtype());
  int64_t offset = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    const int64_t len = lens[i];
    const Tensor& part = parts[i];
    if (part.defined() && part.size() != outer * len * inner) {
      return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": part ", part.DebugString(),
                                                     " does not fit axis ", axis, " of ",
                                                     whole.DebugString()));
    }
    if (part.defined() && wanted[i] && part.size() > 0) {
      StridedDims d;
      d.ndim = 3;
      d.dims[0] = outer;
      d.dims[1] = len;
      d.dims[2] = inner;
      const int64_t whole_st[3] = {total * inner, inner, 1};
      const int64_t part_st[3] = {len * inner, inner, 1};
      for (int k = 0; k < 3; ++k) {
        d.src_strides[k] = join ? part_st[k] : whole_st[k];
        d.dst_strides[k] = join ? whole_st[k] : part_st[k];
      }
      // Only a join writes the whole (reading it must not count as a write).
      void* base = join ? whole.raw_data() : const_cast<void*>(whole.read_raw_data());
      char* w = static_cast<char*>(base) + static_cast<size_t>(offset * inner) * elem;
      if (join) {
        SYMX_RETURN_IF_ERROR(Copy(ctx, part.read_raw_data(), w, d, part.size(), whole.dtype()));
      } else {
        SYMX_RETURN_IF_ERROR(Copy(ctx, w, part.raw_data(), d, part.size(), whole.dtype()));
      }
    }
    offset += len;
  }
  return absl::OkStatus();
}

std::vector<bool> AllWanted(size_t n) { return std::vector<bool>(n, true); }

std::vector<bool> OutputsWanted(const KernelContext& ctx) {
  std::vector<bool> w(ctx.outputs.size());
  for (size_t j = 0; j < w.size(); ++j) w[j] = OutputWanted(ctx.req, j);
  return w;
}

absl::Status ConcatImpl(const KernelContext& ctx, bool forward) {
  const Tensor& whole = forward ? ctx.outputs[0] : ctx.inputs[0];
  const std::vector<Tensor>& parts = forward ? ctx.inputs : ctx.outputs;
  SYMX_ASSIGN_OR_RETURN(int axis,
                        Axis(ctx, ctx.param<ConcatParam>().dim, whole.shape().ndim(), "dim"));
  std::vector<int64_t> lens;
  for (const Tensor& t : parts) {
    if (t.shape().ndim() != whole.shape().ndim()) {
      return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": part ", t.DebugString(),
                                                     " does not match ", whole.DebugString()));
    }
    lens.push_back(t.shape()[axis]);
  }
  return CutAlong(ctx, forward, whole, axis, parts, lens,
                  forward ? AllWanted(parts.size()) : OutputsWanted(ctx));
}

absl::Status Concat(const KernelContext& ctx) { return ConcatImpl(ctx, true); }
absl::Status ConcatBackward(const KernelContext& ctx) { return ConcatImpl(ctx, false); }

absl::Status SliceChannelImpl(const KernelContext& ctx, bool forward) {
  const Tensor& whole = forward ? ctx.inputs[0] : ctx.outputs[0];
  const std::vector<Tensor>& parts = forward ? ctx.outputs : ctx.inputs;
  SYMX_ASSIGN_OR_RETURN(
      int axis, Axis(ctx, ctx.param<SliceChannelParam>().axis, whole.shape().ndim(), "axis"));
  const int64_t k = static_cast<int64_t>(parts.size());
  const int64_t d = whole.shape()[axis];
  if (k == 0 || d % k != 0) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": cannot split axis ", axis,
                                                   " of ", whole.DebugString(), " into ", k,
                                                   " parts"));
  }
  return CutAlong(ctx, !forward, whole, axis, parts, std::vector<int64_t>(k, d / k),
                  forward ? OutputsWanted(ctx) : AllWanted(parts.size()));
}

absl::Status SliceChannel(const KernelContext& ctx) { return SliceChannelImpl(ctx, true); }
absl::Status SliceChannelBackward(const KernelContext& ctx) {
  return SliceChannelImpl(ctx, false);
}

absl::Status SliceAxisImpl(const KernelContext& ctx, bool forward) {
  const Tensor& whole = forward ? ctx.inputs[0] : ctx.outputs[0];
  const Tensor& part = forward ? ctx.outputs[0] : ctx.inputs[0];
  const auto& p = ctx.param<SliceAxisParam>();
  SYMX_ASSIGN_OR_RETURN(int axis, Axis(ctx, p.axis, whole.shape().ndim(), "axis"));
  const int64_t d = whole.shape()[axis];
  const int64_t b = p.begin < 0 ? p.begin + d : p.begin;
  const int64_t e = !p.end ? d : (*p.end < 0 ? *p.end + d : *p.end);
  if (b < 0 || e > d || b >= e) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": the range [", b, ", ", e,
                                                   ") is empty or outside axis ", axis, " of ",
                                                   whole.DebugString()));
  }
  if (!forward) {
    SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
    SYMX_RETURN_IF_ERROR(device->Memset(whole.raw_data(), 0, whole.nbytes()));
  }
  // The part is the middle one of three: [0, b), [b, e), [e, d).
  std::vector<Tensor> parts = {Tensor(), part, Tensor()};
  return CutAlong(ctx, !forward, whole, axis, parts, {b, e - b, d - e}, AllWanted(3));
}

absl::Status SliceAxis(const KernelContext& ctx) { return SliceAxisImpl(ctx, true); }
absl::Status SliceAxisBackward(const KernelContext& ctx) { return SliceAxisImpl(ctx, false); }

// slice with begin/end/step per axis: one strided copy either way.
absl::Status SliceImpl(const KernelContext& ctx, bool forward) {
  const Tensor& whole = forward ? ctx.inputs[0] : ctx.outputs[0];
  const Tensor& part = forward ? ctx.outputs[0] : ctx.inputs[0];
  const std::vector<SliceRange> ranges = ResolveSliceAll(ctx.param<SliceParam>(), whole.shape());
  const int ndim = whole.shape().ndim();
  if (ndim > kMaxDims || static_cast<int>(ranges.size()) != ndim) {
    return absl::InvalidArgumentError(
        absl::StrCat(ctx.Where(), ": cannot slice ", whole.DebugString(), " on the GPU"));
  }
  const std::vector<int64_t> st = StridesOf(whole.shape());
  StridedDims d;
  d.ndim = ndim;
  int64_t base = 0, count = 1, part_stride = 1;
  for (int k = ndim - 1; k >= 0; --k) {
    d.dims[k] = ranges[k].count;
    const int64_t whole_stride = st[k] * ranges[k].step;
    base += ranges[k].begin * st[k];
    (forward ? d.src_strides : d.dst_strides)[k] = whole_stride;
    (forward ? d.dst_strides : d.src_strides)[k] = part_stride;
    part_stride *= ranges[k].count;
    count *= ranges[k].count;
  }
  if (count != part.size()) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": slice ", part.DebugString(),
                                                   " does not fit ", whole.DebugString()));
  }
  const size_t elem = DTypeSize(whole.dtype());
  if (forward) {
    const char* src = static_cast<const char*>(whole.read_raw_data()) + base * elem;
    return Copy(ctx, src, part.raw_data(), d, count, whole.dtype());
  }
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  SYMX_RETURN_IF_ERROR(device->Memset(whole.raw_data(), 0, whole.nbytes()));
  char* dst = static_cast<char*>(whole.raw_data()) + base * elem;
  return Copy(ctx, part.read_raw_data(), dst, d, count, whole.dtype());
}

absl::Status Slice(const KernelContext& ctx) { return SliceImpl(ctx, true); }
absl::Status SliceBackward(const KernelContext& ctx) { return SliceImpl(ctx, false); }

// stack: inputs of one shape S joined along a new axis; the output viewed as
// (prod S[:axis], k, prod S[axis:]) takes input i at index i of the middle.
absl::Status StackImpl(const KernelContext& ctx, bool forward) {
  const Tensor& whole = forward ? ctx.outputs[0] : ctx.inputs[0];
  const std::vector<Tensor>& parts = forward ? ctx.inputs : ctx.outputs;
  SYMX_ASSIGN_OR_RETURN(int axis,
                        Axis(ctx, ctx.param<StackParam>().axis, whole.shape().ndim(), "axis"));
  std::vector<int64_t> dims;
  for (int k = 0; k < whole.shape().ndim(); ++k) {
    if (k != axis) dims.push_back(whole.shape()[k]);
  }
  // The joined view: the new axis split out.
  std::vector<int64_t> view(dims.begin(), dims.begin() + axis);
  view.push_back(1);
  view.insert(view.end(), dims.begin() + axis, dims.end());
  std::vector<Tensor> viewed;
  for (const Tensor& t : parts) {
    if (!t.defined()) {
      viewed.emplace_back();
      continue;
    }
    SYMX_ASSIGN_OR_RETURN(Tensor v, t.View(Shape(view)));
    viewed.push_back(v);
  }
  return CutAlong(ctx, forward, whole, axis, viewed, std::vector<int64_t>(parts.size(), 1),
                  forward ? AllWanted(parts.size()) : OutputsWanted(ctx));
}

absl::Status Stack(const KernelContext& ctx) { return StackImpl(ctx, true); }
absl::Status StackBackward(const KernelContext& ctx) { return StackImpl(ctx, false); }

// Appends a (dim, src stride, dst stride) triple; errors past kMaxDims.
absl::Status Push(const KernelContext& ctx, StridedDims* d, int64_t dim, int64_t src,
                  int64_t dst) {
  if (d->ndim == kMaxDims) {
    return absl::InvalidArgumentError(absl::StrCat(
        ctx.Where(), ": the copy needs more than ", kMaxDims, " dims, the most the GPU takes"));
  }
  d->dims[d->ndim] = dim;
  d->src_strides[d->ndim] = src;
  d->dst_strides[d->ndim] = dst;
  ++d->ndim;
  return absl::OkStatus();
}

// Gives dst strides to a view walked in row-major order over a contiguous dst.
void ContiguousDst(StridedDims* d) {
  int64_t stride = 1;
  for (int k = d->ndim - 1; k >= 0; --k) {
    d->dst_strides[k] = stride;
    stride *= d->dims[k];
  }
}

// A copy through a shared strided view (devices/strided_view.h): gather,
// contig = strided[view]; else strided[view] = contig, the strided side zeroed
// first with `zero_first` (scatters into gradients).
absl::Status CopyView(const KernelContext& ctx, StridedView v, const Tensor& strided,
                      const Tensor& contig, bool gather, bool zero_first = false) {
  if (strided.dtype() != contig.dtype() || contig.size() != v.size()) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": ", contig.DebugString(),
                                                   " does not fit a view of ",
                                                   strided.DebugString()));
  }
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  if (zero_first) SYMX_RETURN_IF_ERROR(device->Memset(strided.raw_data(), 0, strided.nbytes()));
  if (v.size() == 0) return absl::OkStatus();
  v.Simplify();
  StridedDims d;
  for (size_t k = 0; k < v.dims.size(); ++k) {
    SYMX_RETURN_IF_ERROR(Push(ctx, &d, v.dims[k], 0, 0));
    (gather ? d.src_strides : d.dst_strides)[k] = v.steps[k];
  }
  int64_t stride = 1;
  for (int k = d.ndim - 1; k >= 0; --k) {
    (gather ? d.dst_strides : d.src_strides)[k] = stride;
    stride *= d.dims[k];
  }
  const size_t elem = DTypeSize(strided.dtype());
  if (gather) {
    const char* src = static_cast<const char*>(strided.read_raw_data()) + v.offset * elem;
    return Copy(ctx, src, contig.raw_data(), d, contig.size(), strided.dtype());
  }
  char* dst = static_cast<char*>(strided.raw_data()) + v.offset * elem;
  return Copy(ctx, contig.read_raw_data(), dst, d, contig.size(), strided.dtype());
}

absl::Status SliceLike(const KernelContext& ctx) {
  StridedView v;
  SYMX_RETURN_IF_ERROR(FrontView(ctx, ctx.inputs[0].shape(), ctx.outputs[0].shape(), &v));
  return CopyView(ctx, v, ctx.inputs[0], ctx.outputs[0], /*gather=*/true);
}

// Outputs: grad data, and (when present) shape_like's gradient, zero.
absl::Status SliceLikeBackward(const KernelContext& ctx) {
  StridedView v;
  SYMX_RETURN_IF_ERROR(FrontView(ctx, ctx.outputs[0].shape(), ctx.inputs[0].shape(), &v));
  SYMX_RETURN_IF_ERROR(CopyView(ctx, v, ctx.outputs[0], ctx.inputs[0], false, true));
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  for (size_t i = 1; i < ctx.outputs.size(); ++i) {
    SYMX_RETURN_IF_ERROR(device->Memset(ctx.outputs[i].raw_data(), 0, ctx.outputs[i].nbytes()));
  }
  return absl::OkStatus();
}

// diag of a matrix (a gather), or a vector placed on a diagonal (a scatter
// into zeros); the backward is the other one.
absl::Status DiagImpl(const KernelContext& ctx, bool forward) {
  const Tensor& in = forward ? ctx.inputs[0] : ctx.outputs[0];
  const Tensor& out = forward ? ctx.outputs[0] : ctx.inputs[0];
  StridedView v;
  if (in.shape().ndim() == 1) {
    SYMX_RETURN_IF_ERROR(DiagView(ctx, out.shape(), in.shape(), &v));
    return CopyView(ctx, v, out, in, /*gather=*/!forward, /*zero_first=*/forward);
  }
  SYMX_RETURN_IF_ERROR(DiagView(ctx, in.shape(), out.shape(), &v));
  return CopyView(ctx, v, in, out, /*gather=*/forward, /*zero_first=*/!forward);
}

// Crop: the window gathered; its backward zeroes the data gradient (and a
// crop_like gradient, when there is one) and scatters the window back.
absl::Status Crop(const KernelContext& ctx) {
  StridedView v;
  SYMX_RETURN_IF_ERROR(CropView(ctx, ctx.inputs[0].shape(), ctx.outputs[0].shape(), &v));
  return CopyView(ctx, v, ctx.inputs[0], ctx.outputs[0], /*gather=*/true);
}

absl::Status CropBackward(const KernelContext& ctx) {
  StridedView v;
  SYMX_RETURN_IF_ERROR(CropView(ctx, ctx.outputs[0].shape(), ctx.inputs[0].shape(), &v));
  SYMX_RETURN_IF_ERROR(CopyView(ctx, v, ctx.outputs[0], ctx.inputs[0], false, true));
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  for (size_t i = 1; i < ctx.outputs.size(); ++i) {
    SYMX_RETURN_IF_ERROR(device->Memset(ctx.outputs[i].raw_data(), 0, ctx.outputs[i].nbytes()));
  }
  return absl::OkStatus();
}

absl::Status Diag(const KernelContext& ctx) { return DiagImpl(ctx, true); }
absl::Status DiagBackward(const KernelContext& ctx) { return DiagImpl(ctx, false); }

// reverse: negative strides along the flipped axes, from the far end.
absl::Status Reverse(const KernelContext& ctx) {
  const auto& p = ctx.param<ReverseParam>();
  const Tensor& in = ctx.inputs[0];
  const int n = in.shape().ndim();
  std::vector<bool> flip(n, false);
  for (int64_t a : p.axis) {
    if (a < 0 || a >= n) {
      return absl::InvalidArgumentError(
          absl::StrCat(ctx.Where(), ": axis ", a, " is out of range for ", in.DebugString()));
    }
    flip[a] = !flip[a];
  }
  const std::vector<int64_t> st = StridesOf(in.shape());
  StridedDims d;
  int64_t offset = 0;
  for (int k = 0; k < n; ++k) {
    const bool f = flip[k] && in.shape()[k] > 0;
    if (f) offset += (in.shape()[k] - 1) * st[k];
    SYMX_RETURN_IF_ERROR(Push(ctx, &d, in.shape()[k], f ? -st[k] : st[k], 0));
  }
  ContiguousDst(&d);
  const char* src = static_cast<const char*>(in.read_raw_data()) +
                    offset * static_cast<int64_t>(DTypeSize(in.dtype()));
  return Copy(ctx, src, ctx.outputs[0].raw_data(), d, in.size(), in.dtype());
}

// tile: the output as (rep, dim) pairs, the input repeated along each rep.
absl::Status Tile(const KernelContext& ctx) {
  const Tensor& in = ctx.inputs[0];
  std::vector<int64_t> dims, reps;
  AlignTile(ctx.param<TileParam>(), in.shape(), &dims, &reps);
  const std::vector<int64_t> st = StridesOf(Shape(dims));
  StridedDims d;
  for (size_t k = 0; k < dims.size(); ++k) {
    if (reps[k] != 1) SYMX_RETURN_IF_ERROR(Push(ctx, &d, reps[k], 0, 0));
    SYMX_RETURN_IF_ERROR(Push(ctx, &d, dims[k], st[k], 0));
  }
  ContiguousDst(&d);
  return Copy(ctx, in.read_raw_data(), ctx.outputs[0].raw_data(), d, ctx.outputs[0].size(),
              in.dtype());
}

// tile's gradient: the head gradient summed over the reps.
absl::Status TileBackward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& ograd = ctx.inputs[0];
  const Tensor& gin = ctx.outputs[0];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, gin.dtype()));
  std::vector<int64_t> dims, reps;
  AlignTile(ctx.param<TileParam>(), gin.shape(), &dims, &reps);
  std::vector<int64_t> odims(dims.size());
  for (size_t k = 0; k < dims.size(); ++k) odims[k] = dims[k] * reps[k];
  if (ograd.size() != Shape(odims).Size()) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": ograd ", ograd.DebugString(),
                                                   " does not match the tiled input"));
  }
  const std::vector<int64_t> ost = StridesOf(Shape(odims));
  StridedDims kept, reduced;
  for (size_t k = 0; k < dims.size(); ++k) {
    SYMX_RETURN_IF_ERROR(Push(ctx, &kept, dims[k], ost[k], 0));
    if (reps[k] != 1) SYMX_RETURN_IF_ERROR(Push(ctx, &reduced, reps[k], dims[k] * ost[k], 0));
  }
  SYMX_CUDA_LAUNCH(ctx, LaunchReduceStrided(ReduceFn::kSum, t, ograd.read_raw_data(), kept,
                                            reduced, 1.0, gin.raw_data(), gin.size(),
                                            device->stream()));
  return absl::OkStatus();
}

absl::Status RepeatLayout(const KernelContext& ctx, const Shape& in, std::vector<int64_t>* dims,
                          int* ax) {
  absl::Status s = RepeatDims(ctx.param<RepeatParam>(), in, dims, ax);
  return s.ok() ? s : WithWhere(ctx, s);
}

// repeat: each element along the axis `repeats` times in a row.
absl::Status Repeat(const KernelContext& ctx) {
  const Tensor& in = ctx.inputs[0];
  const int64_t r = ctx.param<RepeatParam>().repeats;
  std::vector<int64_t> dims;
  int ax = 0;
  SYMX_RETURN_IF_ERROR(RepeatLayout(ctx, in.shape(), &dims, &ax));
  const std::vector<int64_t> st = StridesOf(Shape(dims));
  StridedDims d;
  for (size_t k = 0; k < dims.size(); ++k) {
    SYMX_RETURN_IF_ERROR(Push(ctx, &d, dims[k], st[k], 0));
    if (static_cast<int>(k) == ax) SYMX_RETURN_IF_ERROR(Push(ctx, &d, r, 0, 0));
  }
  ContiguousDst(&d);
  return Copy(ctx, in.read_raw_data(), ctx.outputs[0].raw_data(), d, ctx.outputs[0].size(),
              in.dtype());
}

absl::Status RepeatBackward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& ograd = ctx.inputs[0];
  const Tensor& gin = ctx.outputs[0];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, gin.dtype()));
  const int64_t r = ctx.param<RepeatParam>().repeats;
  std::vector<int64_t> dims;
  int ax = 0;
  SYMX_RETURN_IF_ERROR(RepeatLayout(ctx, gin.shape(), &dims, &ax));
  std::vector<int64_t> odims = dims;
  odims[ax] *= r;
  if (ograd.size() != Shape(odims).Size()) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": ograd ", ograd.DebugString(),
                                                   " does not match the repeated input"));
  }
  const std::vector<int64_t> ost = StridesOf(Shape(odims));
  StridedDims kept, reduced;
  for (size_t k = 0; k < dims.size(); ++k) {
    const bool at = static_cast<int>(k) == ax;
    SYMX_RETURN_IF_ERROR(Push(ctx, &kept, dims[k], at ? ost[k] * r : ost[k], 0));
  }
  SYMX_RETURN_IF_ERROR(Push(ctx, &reduced, r, ost[ax], 0));
  SYMX_CUDA_LAUNCH(ctx, LaunchReduceStrided(ReduceFn::kSum, t, ograd.read_raw_data(), kept,
                                            reduced, 1.0, gin.raw_data(), gin.size(),
                                            device->stream()));
  return absl::OkStatus();
}

}  // namespace

SYMX_REGISTER_KERNEL("reverse", kGPU, Reverse);
SYMX_REGISTER_KERNEL("tile", kGPU, Tile);
SYMX_REGISTER_KERNEL("_backward_tile", kGPU, TileBackward);
SYMX_REGISTER_KERNEL("repeat", kGPU, Repeat);
SYMX_REGISTER_KERNEL("_backward_repeat", kGPU, RepeatBackward);
SYMX_REGISTER_KERNEL("transpose", kGPU, Transpose);
SYMX_REGISTER_KERNEL("Concat", kGPU, Concat);
SYMX_REGISTER_KERNEL("_backward_Concat", kGPU, ConcatBackward);
SYMX_REGISTER_KERNEL("SliceChannel", kGPU, SliceChannel);
SYMX_REGISTER_KERNEL("_backward_SliceChannel", kGPU, SliceChannelBackward);
SYMX_REGISTER_KERNEL("slice_axis", kGPU, SliceAxis);
SYMX_REGISTER_KERNEL("_backward_slice_axis", kGPU, SliceAxisBackward);
SYMX_REGISTER_KERNEL("slice", kGPU, Slice);
SYMX_REGISTER_KERNEL("_backward_slice", kGPU, SliceBackward);
SYMX_REGISTER_KERNEL("slice_like", kGPU, SliceLike);
SYMX_REGISTER_KERNEL("_backward_slice_like", kGPU, SliceLikeBackward);
SYMX_REGISTER_KERNEL("diag", kGPU, Diag);
SYMX_REGISTER_KERNEL("Crop", kGPU, Crop);
SYMX_REGISTER_KERNEL("_backward_Crop", kGPU, CropBackward);
SYMX_REGISTER_KERNEL("_backward_diag", kGPU, DiagBackward);
SYMX_REGISTER_KERNEL("stack", kGPU, Stack);
SYMX_REGISTER_KERNEL("_backward_stack", kGPU, StackBackward);

}  // namespace cuda
}  // namespace symx
