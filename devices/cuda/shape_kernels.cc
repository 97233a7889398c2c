// CUDA kernels of the shape family (graph/ops/shape.cc): Concat, expand_dims,
// Flatten, Reshape, slice_axis, SliceChannel, squeeze, transpose, with their
// backward ops.
//
// Each op is one strided copy per part (devices/cuda/strided.cu) over any
// dtype; the views (Reshape, Flatten, expand_dims, squeeze) copy or alias.
#include <cstring>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/cuda/elemwise_kernels.h"
#include "devices/cuda/kernel_util.h"
#include "devices/cuda/strided_kernels.h"
#include "devices/dtype_switch.h"
#include "devices/geometry/strided_view.h"
#include "graph/infer_util.h"
#include "graph/ops/shape.h"
#include "devices/cuda/strided_launch.h"

namespace symx {
namespace cuda {
namespace {}  // namespace

SYMX_REGISTER_KERNEL("Flatten", kGPU, Identity);
SYMX_REGISTER_KERNEL("Reshape", kGPU, Identity);
SYMX_REGISTER_KERNEL("expand_dims", kGPU, Identity);
SYMX_REGISTER_KERNEL("squeeze", kGPU, Identity);
SYMX_REGISTER_KERNEL("_backward_reshape", kGPU, Identity);

}  // namespace cuda

namespace cuda {
namespace {

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

absl::Status SliceChannelBackward(const KernelContext& ctx) { return SliceChannelImpl(ctx, false); }

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

}  // namespace

SYMX_REGISTER_KERNEL("transpose", kGPU, Transpose);
SYMX_REGISTER_KERNEL("Concat", kGPU, Concat);
SYMX_REGISTER_KERNEL("_backward_Concat", kGPU, ConcatBackward);
SYMX_REGISTER_KERNEL("_rnn_param_concat", kGPU, Concat);
SYMX_REGISTER_KERNEL("SliceChannel", kGPU, SliceChannel);
SYMX_REGISTER_KERNEL("_backward_SliceChannel", kGPU, SliceChannelBackward);
SYMX_REGISTER_KERNEL("slice_axis", kGPU, SliceAxis);
SYMX_REGISTER_KERNEL("_backward_slice_axis", kGPU, SliceAxisBackward);

}  // namespace cuda

}  // namespace symx
