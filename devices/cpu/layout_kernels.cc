// CPU kernels of the layout family (graph/ops/layout.cc): reshape_like,
// shape_array, size_array, depth_to_space, space_to_depth, _split_v2 and
// _backward_split_v2, im2col, col2im and _backward_im2col.
//
// None computes: reshape_like copies bytes (nothing when run in place), the
// block rearrangements and the split are copies through the views of
// devices/geometry/layout_view.h, so every dtype is served. im2col gathers
// each column element from its image position (devices/geometry/im2col_map.h,
// zero in the padding); col2im and im2col's gradient gather, for each image
// element, the column elements that read it and sum them in double (no two
// threads write one element). These take float32, float64 and float16.
#include <cstdint>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/cpu/kernel_util.h"
#include "devices/cpu/strided_copy.h"
#include "devices/dtype_switch.h"
#include "devices/geometry/layout_view.h"
#include "graph/infer_util.h"
#include "graph/ops/layout.h"

namespace symx {
namespace cpu {
namespace {

absl::Status ReshapeLike(const KernelContext& ctx) {
  const Tensor& in = ctx.inputs[0];
  const Tensor& out = ctx.outputs[0];
  if (in.nbytes() != out.nbytes()) {
    return Fail(ctx, absl::StrCat("input ", in.DebugString(), " and output ", out.DebugString(),
                                  " differ in size"));
  }
  if (out.read_raw_data() != in.read_raw_data() && in.nbytes() > 0) {
    std::memcpy(out.raw_data(), in.read_raw_data(), in.nbytes());
  }
  return absl::OkStatus();
}

absl::Status WriteInt64s(const KernelContext& ctx, const std::vector<int64_t>& v) {
  const Tensor& out = ctx.outputs[0];
  if (out.dtype() != DType::kInt64) return UnsupportedDType(ctx, out.dtype());
  if (out.size() != static_cast<int64_t>(v.size())) {
    return Fail(ctx,
                absl::StrCat("output ", out.DebugString(), " should hold ", v.size(), " values"));
  }
  if (!v.empty()) std::memcpy(out.raw_data(), v.data(), v.size() * sizeof(int64_t));
  return absl::OkStatus();
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
  return CopyThroughView(ctx, v, ctx.inputs[0], ctx.outputs[0], /*gather=*/true);
}

absl::Status SpaceToDepth(const KernelContext& ctx) {
  StridedView v;
  SYMX_RETURN_IF_ERROR(
      SpaceToDepthView(ctx, ctx.inputs[0].shape(), ctx.param<BlockSizeParam>().block_size, &v));
  return CopyThroughView(ctx, v, ctx.inputs[0], ctx.outputs[0], /*gather=*/true);
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
  if (!forward) std::memset(whole.raw_data(), 0, whole.nbytes());
  for (size_t i = 0; i < parts.size(); ++i) {
    if (forward && !OutputWanted(ctx.req, i)) continue;
    const StridedView v = AxisRangeView(whole.shape(), axis, begins[i], ends[i]);
    SYMX_RETURN_IF_ERROR(CopyThroughView(ctx, v, whole, parts[i], forward));
  }
  return absl::OkStatus();
}

absl::Status SplitV2(const KernelContext& ctx) { return SplitV2Impl(ctx, true); }
absl::Status SplitV2Backward(const KernelContext& ctx) { return SplitV2Impl(ctx, false); }

// cols (N, C*K, L) from image (N, C, spatial...).
absl::Status Im2colImpl(const KernelContext& ctx, const Tensor& image, const Tensor& cols) {
  Im2colDims d;
  SYMX_RETURN_IF_ERROR(
      MakeIm2colDims(ctx, ctx.param<SlidingParam>(), image.shape(), cols.shape(), &d));
  const int64_t rows = cols.shape()[0] * cols.shape()[1];
  SYMX_FLOAT_STORAGE_SWITCH(ctx, image.dtype(), T, {
    const T* x = image.read_data<T>();
    T* y = cols.data<T>();
    ParallelFor(ctx, rows, static_cast<double>(d.columns) * 4, [&](int64_t b, int64_t e) {
      for (int64_t r = b; r < e; ++r) {
        const int64_t nc = r / d.kernel_size, k = r % d.kernel_size;
        const T* plane = x + nc * d.image_size;
        for (int64_t l = 0; l < d.columns; ++l) {
          const int64_t at = Im2colSource(d, k, l);
          y[r * d.columns + l] = at < 0 ? FromDouble<T>(0.0) : plane[at];
        }
      }
    });
  });
  return absl::OkStatus();
}

// image (N, C, spatial...) = the sums of cols (N, C*K, L) over the column
// elements reading each position.
absl::Status Col2imImpl(const KernelContext& ctx, const Tensor& cols, const Tensor& image) {
  Im2colDims d;
  SYMX_RETURN_IF_ERROR(
      MakeIm2colDims(ctx, ctx.param<SlidingParam>(), image.shape(), cols.shape(), &d));
  const int64_t planes = image.shape()[0] * image.shape()[1];
  SYMX_FLOAT_STORAGE_SWITCH(ctx, image.dtype(), T, {
    const T* y = cols.read_data<T>();
    T* x = image.data<T>();
    ParallelFor(ctx, planes * d.image_size, static_cast<double>(d.kernel_size) * 4,
                [&](int64_t b, int64_t e) {
                  for (int64_t i = b; i < e; ++i) {
                    const int64_t nc = i / d.image_size, p = i % d.image_size;
                    double acc = 0;
                    for (int64_t k = 0; k < d.kernel_size; ++k) {
                      const int64_t l = Col2imColumn(d, p, k);
                      if (l >= 0) acc += ToDouble(y[(nc * d.kernel_size + k) * d.columns + l]);
                    }
                    x[i] = FromDouble<T>(acc);
                  }
                });
  });
  return absl::OkStatus();
}

absl::Status Im2col(const KernelContext& ctx) {
  return Im2colImpl(ctx, ctx.inputs[0], ctx.outputs[0]);
}

absl::Status Col2im(const KernelContext& ctx) {
  return Col2imImpl(ctx, ctx.inputs[0], ctx.outputs[0]);
}

}  // namespace

SYMX_REGISTER_KERNEL("im2col", kCPU, Im2col);
SYMX_REGISTER_KERNEL("col2im", kCPU, Col2im);
SYMX_REGISTER_KERNEL("_backward_im2col", kCPU, Col2im);
SYMX_REGISTER_KERNEL("reshape_like", kCPU, ReshapeLike);
SYMX_REGISTER_KERNEL("shape_array", kCPU, ShapeArray);
SYMX_REGISTER_KERNEL("size_array", kCPU, SizeArray);
SYMX_REGISTER_KERNEL("depth_to_space", kCPU, DepthToSpace);
SYMX_REGISTER_KERNEL("space_to_depth", kCPU, SpaceToDepth);
SYMX_REGISTER_KERNEL("_split_v2", kCPU, SplitV2);
SYMX_REGISTER_KERNEL("_backward_split_v2", kCPU, SplitV2Backward);

}  // namespace cpu
}  // namespace symx
