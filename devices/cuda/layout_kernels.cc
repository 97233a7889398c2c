// CUDA kernels of the layout family (graph/ops/layout.cc): reshape_like,
// shape_array, size_array, depth_to_space, space_to_depth, _split_v2 and
// _backward_split_v2, im2col, col2im and _backward_im2col.
//
// reshape_like is a device copy (none in place); shape_array and size_array
// write the shape, known on the host, with one small upload; the others are
// strided copies (devices/cuda/strided.cu) through the views the CPU kernels
// use (devices/geometry/layout_view.h), over any dtype; im2col and col2im
// are devices/cuda/layout.cu's kernels on the CPU kernels' map
// (devices/geometry/im2col_map.h), in the float types.
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/cuda/elemwise_kernels.h"
#include "devices/cuda/kernel_util.h"
#include "devices/cuda/layout_launch.h"
#include "devices/cuda/strided_kernels.h"
#include "devices/geometry/layout_view.h"
#include "graph/infer_util.h"
#include "graph/ops/layout.h"

namespace symx {
namespace cuda {
namespace {

absl::Status WriteInt64s(const KernelContext& ctx, const std::vector<int64_t>& v) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& out = ctx.outputs[0];
  if (out.dtype() != DType::kInt64) return UnsupportedDType(ctx, out.dtype());
  if (out.size() != static_cast<int64_t>(v.size())) {
    return Fail(ctx,
                absl::StrCat("output ", out.DebugString(), " should hold ", v.size(), " values"));
  }
  if (v.empty()) return absl::OkStatus();
  return device->CopyFromHost(v.data(), out.raw_data(), v.size() * sizeof(int64_t));
}

absl::Status ShapeArray(const KernelContext& ctx) {
  return WriteInt64s(ctx, ctx.inputs[0].shape().dims());
}

absl::Status SizeArray(const KernelContext& ctx) {
  return WriteInt64s(ctx, {ctx.inputs[0].size()});
}

absl::Status DepthToSpace(const KernelContext& ctx) {
  StridedView v;
  SYMX_RETURN_IF_ERROR(
      DepthToSpaceView(ctx, ctx.inputs[0].shape(), ctx.param<BlockSizeParam>().block_size, &v));
  return CopyView(ctx, v, ctx.inputs[0], ctx.outputs[0], /*gather=*/true);
}

absl::Status SpaceToDepth(const KernelContext& ctx) {
  StridedView v;
  SYMX_RETURN_IF_ERROR(
      SpaceToDepthView(ctx, ctx.inputs[0].shape(), ctx.param<BlockSizeParam>().block_size, &v));
  return CopyView(ctx, v, ctx.inputs[0], ctx.outputs[0], /*gather=*/true);
}

// forward: whole -> parts; else parts -> whole, zeros where no part lies.
absl::Status SplitV2Impl(const KernelContext& ctx, bool forward) {
  const Tensor& whole = forward ? ctx.inputs[0] : ctx.outputs[0];
  const std::vector<Tensor>& parts = forward ? ctx.outputs : ctx.inputs;
  const auto& p = ctx.param<SplitV2Param>();
  int axis = 0;
  absl::Status s = NormalizeAxis(p.axis, whole.shape().ndim(), "axis", &axis);
  std::vector<int64_t> begins, ends;
  if (s.ok()) s = SplitV2Bounds(p, whole.shape()[axis], &begins, &ends);
  if (!s.ok()) return Fail(ctx, std::string(s.message()));
  if (parts.size() != begins.size()) {
    return Fail(ctx, absl::StrCat(parts.size(), " parts for ", begins.size(), " ranges"));
  }
  if (!forward) {
    SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
    SYMX_RETURN_IF_ERROR(device->Memset(whole.raw_data(), 0, whole.nbytes()));
  }
  for (size_t i = 0; i < parts.size(); ++i) {
    if (forward && !OutputWanted(ctx.req, i)) continue;
    const StridedView v = AxisRangeView(whole.shape(), axis, begins[i], ends[i]);
    SYMX_RETURN_IF_ERROR(CopyView(ctx, v, whole, parts[i], forward));
  }
  return absl::OkStatus();
}

absl::Status SplitV2(const KernelContext& ctx) { return SplitV2Impl(ctx, true); }
absl::Status SplitV2Backward(const KernelContext& ctx) { return SplitV2Impl(ctx, false); }

// to_image: image = col2im(cols); else cols = im2col(image).
absl::Status SlidingImpl(const KernelContext& ctx, const Tensor& image, const Tensor& cols,
                         bool to_image) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  Im2colDims d;
  SYMX_RETURN_IF_ERROR(
      MakeIm2colDims(ctx, ctx.param<SlidingParam>(), image.shape(), cols.shape(), &d));
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, image.dtype()));
  const int64_t planes = image.shape()[0] * image.shape()[1];
  if (to_image) {
    SYMX_CUDA_LAUNCH(
        ctx, LaunchCol2im(t, cols.read_raw_data(), d, planes, image.raw_data(), device->stream()));
  } else {
    SYMX_CUDA_LAUNCH(
        ctx, LaunchIm2col(t, image.read_raw_data(), d, planes, cols.raw_data(), device->stream()));
  }
  return absl::OkStatus();
}

absl::Status Im2col(const KernelContext& ctx) {
  return SlidingImpl(ctx, ctx.inputs[0], ctx.outputs[0], false);
}

absl::Status Col2im(const KernelContext& ctx) {
  return SlidingImpl(ctx, ctx.outputs[0], ctx.inputs[0], true);
}

}  // namespace

SYMX_REGISTER_KERNEL("im2col", kGPU, Im2col);
SYMX_REGISTER_KERNEL("col2im", kGPU, Col2im);
SYMX_REGISTER_KERNEL("_backward_im2col", kGPU, Col2im);
SYMX_REGISTER_KERNEL("reshape_like", kGPU, Identity);
SYMX_REGISTER_KERNEL("shape_array", kGPU, ShapeArray);
SYMX_REGISTER_KERNEL("size_array", kGPU, SizeArray);
SYMX_REGISTER_KERNEL("depth_to_space", kGPU, DepthToSpace);
SYMX_REGISTER_KERNEL("space_to_depth", kGPU, SpaceToDepth);
SYMX_REGISTER_KERNEL("_split_v2", kGPU, SplitV2);
SYMX_REGISTER_KERNEL("_backward_split_v2", kGPU, SplitV2Backward);

}  // namespace cuda
}  // namespace symx
