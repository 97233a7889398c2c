// CUDA kernels of the image family (graph/ops/image.cc): to_tensor, normalize
// and adjust_lighting on the launchers of devices/cuda/image_launch.h; the
// flips and the crop as copies through strided views
// (devices/geometry/strided_view.h), as on the CPU.
#include "devices/cuda/image_kernels.h"

#include <cstdint>

#include "absl/strings/str_cat.h"
#include "devices/cuda/image_launch.h"
#include "devices/cuda/image_resize_launch.h"
#include "devices/cuda/kernel_util.h"
#include "devices/cuda/strided_kernels.h"
#include "devices/geometry/image_resize.h"
#include "devices/geometry/strided_view.h"
#include "graph/ops/image.h"
#include "graph/ops/image_resize.h"

namespace symx {
namespace cuda {
namespace {

absl::Status ToTensor(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& x = ctx.inputs[0];
  SYMX_ASSIGN_OR_RETURN(Elem t, ImageElem(ctx, x.dtype()));
  const Shape& s = x.shape();
  const int64_t n = s.ndim() == 4 ? s[0] : 1;
  SYMX_CUDA_LAUNCH(
      ctx,
      LaunchToTensor(t, x.read_raw_data(), n, s[s.ndim() - 3] * s[s.ndim() - 2], s[s.ndim() - 1],
                     static_cast<float*>(ctx.outputs[0].raw_data()), device->stream()));
  return absl::OkStatus();
}

absl::Status Normalize(const KernelContext& ctx, bool backward) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const auto& p = ctx.param<ImageNormalizeParam>();
  const Tensor& x = ctx.inputs[0];
  SYMX_ASSIGN_OR_RETURN(Elem t, ImageElem(ctx, x.dtype()));
  const Shape& s = ctx.outputs[0].shape();
  NormalizeArgs a;
  a.n = s.ndim() == 4 ? s[0] : 1;
  a.c = s[s.ndim() - 3];
  a.hw = s[s.ndim() - 2] * s[s.ndim() - 1];
  if (a.c > 3) return Fail(ctx, absl::StrCat("data ", s.ToString(), " has more than 3 channels"));
  for (int64_t c = 0; c < a.c; ++c) {
    a.mean[c] = p.mean.size() == 1 ? p.mean[0] : p.mean[c];
    a.std[c] = p.std.size() == 1 ? p.std[0] : p.std[c];
  }
  SYMX_CUDA_LAUNCH(ctx, LaunchImageNormalize(t, x.read_raw_data(), a, backward,
                                             ctx.outputs[0].raw_data(), device->stream()));
  return absl::OkStatus();
}

absl::Status NormalizeForward(const KernelContext& ctx) { return Normalize(ctx, false); }
absl::Status NormalizeBackward(const KernelContext& ctx) { return Normalize(ctx, true); }

absl::Status Flip(const KernelContext& ctx, int from_end) {
  const Shape& s = ctx.inputs[0].shape();
  return CopyView(ctx, FlipView(s, s.ndim() - from_end), ctx.inputs[0], ctx.outputs[0],
                  /*gather=*/true);
}

absl::Status FlipLeftRight(const KernelContext& ctx) { return Flip(ctx, 2); }
absl::Status FlipTopBottom(const KernelContext& ctx) { return Flip(ctx, 3); }

absl::Status Lighting(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& x = ctx.inputs[0];
  SYMX_ASSIGN_OR_RETURN(Elem t, ImageElem(ctx, x.dtype()));
  if (x.shape()[2] == 1) {
    // One channel: unchanged (MXNet leaves the output unwritten).
    if (ctx.outputs[0].raw_data() == x.read_raw_data()) return absl::OkStatus();
    SYMX_CUDA_LAUNCH(ctx, cudaMemcpyAsync(ctx.outputs[0].raw_data(), x.read_raw_data(), x.nbytes(),
                                          cudaMemcpyDeviceToDevice, device->stream()));
    return absl::OkStatus();
  }
  float pca[3];
  LightingOffsets(ctx.param<ImageLightingParam>().alpha, pca);
  SYMX_CUDA_LAUNCH(ctx, LaunchImageLighting(t, x.read_raw_data(), x.shape().Size() / 3, pca,
                                            ctx.outputs[0].raw_data(), device->stream()));
  return absl::OkStatus();
}

absl::Status ImageCrop(const KernelContext& ctx) {
  StridedView v;
  SYMX_RETURN_IF_ERROR(ImageCropView(ctx, ctx.inputs[0].shape(), ctx.outputs[0].shape(), &v));
  return CopyView(ctx, v, ctx.inputs[0], ctx.outputs[0], /*gather=*/true);
}

absl::Status ImageCropBackward(const KernelContext& ctx) {
  StridedView v;
  SYMX_RETURN_IF_ERROR(ImageCropView(ctx, ctx.outputs[0].shape(), ctx.inputs[0].shape(), &v));
  return CopyView(ctx, v, ctx.outputs[0], ctx.inputs[0], /*gather=*/false, /*zero_first=*/true);
}

}  // namespace

SYMX_REGISTER_KERNEL("_image_to_tensor", kGPU, ToTensor);
SYMX_REGISTER_KERNEL("_image_normalize", kGPU, NormalizeForward);
SYMX_REGISTER_KERNEL("_backward_image_normalize", kGPU, NormalizeBackward);
SYMX_REGISTER_KERNEL("_image_flip_left_right", kGPU, FlipLeftRight);
SYMX_REGISTER_KERNEL("_image_flip_top_bottom", kGPU, FlipTopBottom);
SYMX_REGISTER_KERNEL("_image_adjust_lighting", kGPU, Lighting);
SYMX_REGISTER_KERNEL("_image_crop", kGPU, ImageCrop);
SYMX_REGISTER_KERNEL("_backward_image_crop", kGPU, ImageCropBackward);

// _image_resize: the forward on the launcher of
// devices/cuda/image_resize_launch.h (the CPU's per-pixel math), the backward
// a device copy of the head gradient.
namespace {

absl::Status ImageResize(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& x = ctx.inputs[0];
  const DType t = x.dtype();
  if (t != DType::kUint8 && t != DType::kFloat32 && t != DType::kFloat64 && t != DType::kInt32) {
    return UnsupportedDType(ctx, t);
  }
  SYMX_ASSIGN_OR_RETURN(Elem e, AnyElem(ctx, t));
  const Shape& s = x.shape();
  const Shape& o = ctx.outputs[0].shape();
  const int d = s.ndim();
  const ResizeGeom g = MakeResizeGeom(s[d - 3], s[d - 2], o[d - 3], o[d - 2], s[d - 1],
                                      ctx.param<ImageResizeParam>().interp);
  SYMX_CUDA_LAUNCH(ctx, LaunchImageResize(e, x.read_raw_data(), d == 4 ? s[0] : 1, g,
                                          ctx.outputs[0].raw_data(), device->stream()));
  return absl::OkStatus();
}

absl::Status ImageResizeBackward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& g = ctx.inputs[0];
  if (ctx.outputs[0].raw_data() == g.read_raw_data() || g.nbytes() == 0) return absl::OkStatus();
  SYMX_CUDA_LAUNCH(ctx, cudaMemcpyAsync(ctx.outputs[0].raw_data(), g.read_raw_data(), g.nbytes(),
                                        cudaMemcpyDeviceToDevice, device->stream()));
  return absl::OkStatus();
}

}  // namespace

SYMX_REGISTER_KERNEL("_image_resize", kGPU, ImageResize);
SYMX_REGISTER_KERNEL("_backward_image_resize", kGPU, ImageResizeBackward);

}  // namespace cuda
}  // namespace symx
