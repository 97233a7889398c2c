// CUDA kernels of the tensor family (graph/ops/tensor.cc): diag, Pad, repeat,
// reverse, slice, slice_like, stack, SwapAxis, tile, with their backward ops.
//
// Each op is one strided copy per part (devices/cuda/strided.cu) over any
// dtype; the gradients of tile and repeat are strided sums. Pad shares its
// shape checks and maps with the CPU (devices/geometry/pad_geometry.h).
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/geometry/axis_layout.h"
#include "devices/cuda/kernel_util.h"
#include "devices/cuda/strided_kernels.h"
#include "devices/kernel.h"
#include "devices/geometry/pad_geometry.h"
#include "devices/geometry/strided_view.h"
#include "devices/geometry/upsampling_geometry.h"
#include "graph/infer_util.h"
#include "graph/ops/resample.h"
#include "graph/ops/tensor.h"
#include "devices/cuda/reduce_launch.h"
#include "devices/cuda/strided_launch.h"
#include "devices/cuda/tensor_launch.h"

namespace symx {
namespace cuda {
namespace {

// SwapAxis: a transpose exchanging two axes (its own gradient).
absl::Status SwapAxis(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const auto& p = ctx.param<SwapAxisParam>();
  const Tensor& in = ctx.inputs[0];
  const Tensor& out = ctx.outputs[0];
  const int nd = in.shape().ndim();
  if (nd > kMaxDims || in.size() != out.size()) {
    return Fail(ctx, absl::StrCat("cannot swap axes of ", in.DebugString(), " into ",
                                  out.DebugString(), " on the GPU"));
  }
  int a = 0, b = 0;
  absl::Status s = NormalizeAxis(p.dim1, nd, "dim1", &a);
  if (s.ok()) s = NormalizeAxis(p.dim2, nd, "dim2", &b);
  if (!s.ok()) return Fail(ctx, std::string(s.message()));
  const std::vector<int64_t> st = StridesOf(in.shape());
  StridedDims d;
  d.ndim = nd;
  int64_t dst = 1;
  for (int k = nd - 1; k >= 0; --k) {
    const int src_axis = k == a ? b : (k == b ? a : k);
    d.dims[k] = in.shape()[src_axis];
    d.src_strides[k] = st[src_axis];
    d.dst_strides[k] = dst;
    dst *= d.dims[k];
  }
  SYMX_CUDA_LAUNCH(ctx, LaunchStridedCopy(DTypeSize(in.dtype()), in.read_raw_data(), out.raw_data(),
                                          d, in.size(), device->stream()));
  return absl::OkStatus();
}

}  // namespace

SYMX_REGISTER_KERNEL("SwapAxis", kGPU, SwapAxis);

}  // namespace cuda

namespace cuda {
namespace {

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

// Gives dst strides to a view walked in row-major order over a contiguous dst.
void ContiguousDst(StridedDims* d) {
  int64_t stride = 1;
  for (int k = d->ndim - 1; k >= 0; --k) {
    d->dst_strides[k] = stride;
    stride *= d->dims[k];
  }
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
  SYMX_CUDA_LAUNCH(ctx, LaunchReduceStrided(ReduceFn::kSum, t, ograd.read_raw_data(), kept, reduced,
                                            1.0, gin.raw_data(), gin.size(), device->stream()));
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
  SYMX_CUDA_LAUNCH(ctx, LaunchReduceStrided(ReduceFn::kSum, t, ograd.read_raw_data(), kept, reduced,
                                            1.0, gin.raw_data(), gin.size(), device->stream()));
  return absl::OkStatus();
}

}  // namespace

SYMX_REGISTER_KERNEL("reverse", kGPU, Reverse);
SYMX_REGISTER_KERNEL("tile", kGPU, Tile);
SYMX_REGISTER_KERNEL("_backward_tile", kGPU, TileBackward);
SYMX_REGISTER_KERNEL("repeat", kGPU, Repeat);
SYMX_REGISTER_KERNEL("_backward_repeat", kGPU, RepeatBackward);
SYMX_REGISTER_KERNEL("slice", kGPU, Slice);
SYMX_REGISTER_KERNEL("_backward_slice", kGPU, SliceBackward);
SYMX_REGISTER_KERNEL("slice_like", kGPU, SliceLike);
SYMX_REGISTER_KERNEL("_backward_slice_like", kGPU, SliceLikeBackward);
SYMX_REGISTER_KERNEL("diag", kGPU, Diag);
SYMX_REGISTER_KERNEL("_backward_diag", kGPU, DiagBackward);
SYMX_REGISTER_KERNEL("stack", kGPU, Stack);
SYMX_REGISTER_KERNEL("_backward_stack", kGPU, StackBackward);

}  // namespace cuda

namespace cuda {
namespace {

absl::StatusOr<PadDims> PadDimsOf(const KernelContext& ctx, const Shape& in, const Shape& out) {
  SYMX_RETURN_IF_ERROR(CheckPadShapes(ctx, in, out));
  if (in.ndim() < 1 || in.ndim() > kMaxDims) {
    return absl::InvalidArgumentError(
        absl::StrCat(ctx.Where(), ": cannot pad ", in.ToString(), " on the GPU"));
  }
  const auto& p = ctx.param<PadParam>();
  PadDims d;
  d.ndim = in.ndim();
  d.kind = static_cast<int>(PadKindOf(p.mode));
  for (int k = 0; k < d.ndim; ++k) {
    d.in[k] = in[k];
    d.out[k] = out[k];
    d.before[k] = p.pad_width[2 * k];
  }
  return d;
}

// Inputs: data. Output: out. Floating types only, as MXNet.
absl::Status Pad(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& in = ctx.inputs[0];
  const Tensor& out = ctx.outputs[0];
  if (in.dtype() != out.dtype()) return UnsupportedDType(ctx, out.dtype());
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, in.dtype()));
  SYMX_ASSIGN_OR_RETURN(PadDims d, PadDimsOf(ctx, in.shape(), out.shape()));
  SYMX_CUDA_LAUNCH(ctx, LaunchPad(t, in.read_raw_data(), d, ctx.param<PadParam>().constant_value,
                                  out.raw_data(), out.size(), device->stream()));
  return absl::OkStatus();
}

// Inputs: ograd. Output: grad data.
absl::Status PadBackward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& og = ctx.inputs[0];
  const Tensor& gx = ctx.outputs[0];
  if (og.dtype() != gx.dtype()) return UnsupportedDType(ctx, gx.dtype());
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, gx.dtype()));
  SYMX_ASSIGN_OR_RETURN(PadDims d, PadDimsOf(ctx, gx.shape(), og.shape()));
  SYMX_CUDA_LAUNCH(
      ctx, LaunchPadGrad(t, og.read_raw_data(), d, gx.raw_data(), gx.size(), device->stream()));
  return absl::OkStatus();
}

}  // namespace

SYMX_REGISTER_KERNEL("Pad", kGPU, Pad);
SYMX_REGISTER_KERNEL("_backward_Pad", kGPU, PadBackward);

}  // namespace cuda

}  // namespace symx
