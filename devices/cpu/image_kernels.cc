// CPU kernels of the image family (graph/ops/image.cc): _image_to_tensor,
// _image_normalize and its backward, the flips, _image_adjust_lighting and
// _image_crop with its backward. The flips and the crop are copies through
// strided views (devices/geometry/strided_view.h); the others read each value
// through double and compute as MXNet does: in float, or in double for
// float64 data.
#include "devices/cpu/image_kernels.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "devices/cpu/kernel_util.h"
#include "devices/cpu/strided_copy.h"
#include "devices/dtype_switch.h"
#include "devices/geometry/image_resize.h"
#include "devices/geometry/strided_view.h"
#include "graph/ops/image.h"
#include "graph/ops/image_resize.h"

namespace symx {
namespace cpu {
namespace {

template <typename T>
using Calc = ImageCalc<T>;

template <typename T>
inline Calc<T> Read(const T* p, int64_t i) {
  return ImageLoad(p, i);
}

// (N, H, W, C) -> (N, C, H, W) float32 / 255 (N = 1 for 3-D data).
template <typename T>
absl::Status ToTensorT(const KernelContext& ctx) {
  const Shape& s = ctx.inputs[0].shape();
  const int64_t n = s.ndim() == 4 ? s[0] : 1;
  const int64_t h = s[s.ndim() - 3], w = s[s.ndim() - 2], c = s[s.ndim() - 1];
  const T* x = ctx.inputs[0].data<T>();
  float* y = ctx.outputs[0].data<float>();
  const int64_t hw = h * w;
  ParallelFor(ctx, n * c, static_cast<double>(hw), [&](int64_t begin, int64_t end) {
    for (int64_t nc = begin; nc < end; ++nc) {
      const int64_t b = nc / c, ch = nc % c;
      for (int64_t i = 0; i < hw; ++i) {
        y[nc * hw + i] =
            static_cast<float>(Read(x, (b * hw + i) * c + ch) / static_cast<Calc<T>>(255));
      }
    }
  });
  return absl::OkStatus();
}

absl::Status ToTensor(const KernelContext& ctx) {
  SYMX_IMAGE_SWITCH(ctx, ctx.inputs[0].dtype(), T, return ToTensorT<T>(ctx));
}

// (N, C, H, W) planes: forward (x - mean[c]) / std[c]; backward g * (1 / std[c])
// (MXNet's reciprocal in double).
template <typename T>
absl::Status NormalizeT(const KernelContext& ctx, bool backward) {
  const auto& p = ctx.param<ImageNormalizeParam>();
  const Shape& s = (backward ? ctx.outputs[0] : ctx.inputs[0]).shape();
  const int64_t n = s.ndim() == 4 ? s[0] : 1;
  const int64_t c = s[s.ndim() - 3], hw = s[s.ndim() - 2] * s[s.ndim() - 1];
  const T* x = ctx.inputs[0].data<T>();
  T* y = ctx.outputs[0].data<T>();
  ParallelFor(ctx, n * c, static_cast<double>(hw), [&](int64_t begin, int64_t end) {
    for (int64_t nc = begin; nc < end; ++nc) {
      const int64_t ch = nc % c;
      const float mean = p.mean.size() == 1 ? p.mean[0] : p.mean[ch];
      const float sd = p.std.size() == 1 ? p.std[0] : p.std[ch];
      for (int64_t i = nc * hw; i < (nc + 1) * hw; ++i) {
        if (backward) {
          y[i] = FromDouble<T>(ToDouble(x[i]) * (1.0 / static_cast<double>(sd)));
        } else {
          y[i] = FromDouble<T>(static_cast<double>((Read(x, i) - mean) / sd));
        }
      }
    }
  });
  return absl::OkStatus();
}

absl::Status Normalize(const KernelContext& ctx) {
  SYMX_IMAGE_SWITCH(ctx, ctx.inputs[0].dtype(), T, return NormalizeT<T>(ctx, false));
}

absl::Status NormalizeBackward(const KernelContext& ctx) {
  SYMX_IMAGE_SWITCH(ctx, ctx.inputs[0].dtype(), T, return NormalizeT<T>(ctx, true));
}

// Flips: a gather through the reversed view. Width is axis ndim - 2, height
// ndim - 3.
absl::Status Flip(const KernelContext& ctx, int from_end) {
  const Shape& s = ctx.inputs[0].shape();
  return CopyThroughView(ctx, FlipView(s, s.ndim() - from_end), ctx.inputs[0], ctx.outputs[0],
                         /*gather=*/true);
}

absl::Status FlipLeftRight(const KernelContext& ctx) { return Flip(ctx, 2); }
absl::Status FlipTopBottom(const KernelContext& ctx) { return Flip(ctx, 3); }

absl::Status Lighting(const KernelContext& ctx) {
  float pca[3];
  LightingOffsets(ctx.param<ImageLightingParam>().alpha, pca);
  SYMX_IMAGE_SWITCH(ctx, ctx.inputs[0].dtype(), T, return AddLighting<T>(ctx, pca));
}

absl::Status ImageCrop(const KernelContext& ctx) {
  StridedView v;
  SYMX_RETURN_IF_ERROR(ImageCropView(ctx, ctx.inputs[0].shape(), ctx.outputs[0].shape(), &v));
  return CopyThroughView(ctx, v, ctx.inputs[0], ctx.outputs[0], /*gather=*/true);
}

// The head gradient scattered into a zeroed data gradient.
absl::Status ImageCropBackward(const KernelContext& ctx) {
  StridedView v;
  SYMX_RETURN_IF_ERROR(ImageCropView(ctx, ctx.outputs[0].shape(), ctx.inputs[0].shape(), &v));
  std::memset(ctx.outputs[0].raw_data(), 0, ctx.outputs[0].nbytes());
  return CopyThroughView(ctx, v, ctx.outputs[0], ctx.inputs[0], /*gather=*/false);
}

}  // namespace

SYMX_REGISTER_KERNEL("_image_to_tensor", kCPU, ToTensor);
SYMX_REGISTER_KERNEL("_image_normalize", kCPU, Normalize);
SYMX_REGISTER_KERNEL("_backward_image_normalize", kCPU, NormalizeBackward);
SYMX_REGISTER_KERNEL("_image_flip_left_right", kCPU, FlipLeftRight);
SYMX_REGISTER_KERNEL("_image_flip_top_bottom", kCPU, FlipTopBottom);
SYMX_REGISTER_KERNEL("_image_adjust_lighting", kCPU, Lighting);
SYMX_REGISTER_KERNEL("_image_crop", kCPU, ImageCrop);
SYMX_REGISTER_KERNEL("_backward_image_crop", kCPU, ImageCropBackward);

// _image_resize: each output value is ResizePixel
// (devices/geometry/image_resize.h), the math the CUDA kernel runs too; the
// backward copies the head gradient (the schema admits it only when the size
// is unchanged).
namespace {

template <typename T>
absl::Status ImageResizeT(const KernelContext& ctx) {
  const Shape& s = ctx.inputs[0].shape();
  const Shape& o = ctx.outputs[0].shape();
  const int d = s.ndim();
  const int64_t n = d == 4 ? s[0] : 1;
  const ResizeGeom g = MakeResizeGeom(s[d - 3], s[d - 2], o[d - 3], o[d - 2], s[d - 1],
                                      ctx.param<ImageResizeParam>().interp);
  const int64_t in_size = g.in_h * g.in_w * g.c, row = g.out_w * g.c;
  if (n * g.out_h * row == 0) return absl::OkStatus();
  const T* x = ctx.inputs[0].data<T>();
  T* y = ctx.outputs[0].data<T>();
  ParallelFor(ctx, n * g.out_h, static_cast<double>(row) * 16, [&](int64_t begin, int64_t end) {
    for (int64_t ny = begin; ny < end; ++ny) {
      const int64_t b = ny / g.out_h, oy = ny % g.out_h;
      const T* img = x + b * in_size;
      T* out = y + ny * row;
      for (int64_t ox = 0; ox < g.out_w; ++ox) {
        for (int64_t ch = 0; ch < g.c; ++ch) out[ox * g.c + ch] = ResizePixel(g, img, oy, ox, ch);
      }
    }
  });
  return absl::OkStatus();
}

absl::Status ImageResize(const KernelContext& ctx) {
  switch (ctx.inputs[0].dtype()) {
    SYMX_DTYPE_CASE_(kUint8, uint8_t, T, return ImageResizeT<T>(ctx);)
    SYMX_DTYPE_CASE_(kFloat32, float, T, return ImageResizeT<T>(ctx);)
    SYMX_DTYPE_CASE_(kFloat64, double, T, return ImageResizeT<T>(ctx);)
    SYMX_DTYPE_CASE_(kInt32, int32_t, T, return ImageResizeT<T>(ctx);)
    default:
      return UnsupportedDType(ctx, ctx.inputs[0].dtype());
  }
}

absl::Status ImageResizeBackward(const KernelContext& ctx) {
  if (ctx.outputs[0].raw_data() != ctx.inputs[0].read_raw_data()) {
    std::memcpy(ctx.outputs[0].raw_data(), ctx.inputs[0].read_raw_data(), ctx.inputs[0].nbytes());
  }
  return absl::OkStatus();
}

}  // namespace

SYMX_REGISTER_KERNEL("_image_resize", kCPU, ImageResize);
SYMX_REGISTER_KERNEL("_backward_image_resize", kCPU, ImageResizeBackward);

}  // namespace cpu
}  // namespace symx
