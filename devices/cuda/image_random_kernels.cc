// CUDA kernels of the image_random family (graph/ops/image_random.cc): the
// call's factors are drawn on the host from the device's generator, as the
// CPU kernels draw them (devices/geometry/image_draws.h), and the color steps
// run on the launchers of devices/cuda/image_random_launch.h; lighting runs on
// _image_adjust_lighting's launcher. The flips write their decision to the
// hidden output and the kernel reads it there, so the backward needs no copy
// back to the host.
#include <cstdint>

#include "devices/cuda/image_kernels.h"
#include "devices/cuda/image_launch.h"
#include "devices/cuda/image_random_launch.h"
#include "devices/cuda/kernel_util.h"
#include "devices/geometry/image_draws.h"
#include "graph/ops/image.h"

namespace symx {
namespace cuda {
namespace {

absl::Status RunColorPlan(const KernelContext& ctx, CudaDevice* device,
                          const ImageColorPlan& plan) {
  const Tensor& x = ctx.inputs[0];
  SYMX_ASSIGN_OR_RETURN(Elem t, ImageElem(ctx, x.dtype()));
  const Shape& s = x.shape();
  void* y = ctx.outputs[0].raw_data();
  if (plan.steps == 0 && y != x.read_raw_data()) {
    SYMX_CUDA_LAUNCH(ctx, cudaMemcpyAsync(y, x.read_raw_data(), x.nbytes(),
                                          cudaMemcpyDeviceToDevice, device->stream()));
  }
  for (int k = 0; k < plan.steps; ++k) {
    // The first step reads the input, the others the output so far.
    const void* from = k == 0 ? x.read_raw_data() : y;
    SYMX_CUDA_LAUNCH(ctx, LaunchImageColorStep(t, static_cast<int>(plan.step[k]), plan.factor[k],
                                               from, y, s[0] * s[1], s[2], device->stream()));
  }
  return absl::OkStatus();
}

template <ImageColorStep kStep>
absl::Status Enhance(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  return RunColorPlan(ctx, device,
                      DrawEnhance(kStep, ctx.param<ImageEnhanceParam>(), device->rng()()));
}

absl::Status ColorJitter(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  return RunColorPlan(ctx, device, DrawJitter(ctx.param<ImageJitterParam>(), device->rng()()));
}

absl::Status RandomLighting(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& x = ctx.inputs[0];
  SYMX_ASSIGN_OR_RETURN(Elem t, ImageElem(ctx, x.dtype()));
  float alpha[3], pca[3];
  DrawLightingAlphas(ctx.param<ImageRandomLightingParam>(), device->rng()(), alpha);
  if (x.shape()[2] == 1) {
    // One channel: unchanged (MXNet leaves the output unwritten).
    if (ctx.outputs[0].raw_data() == x.read_raw_data()) return absl::OkStatus();
    SYMX_CUDA_LAUNCH(ctx, cudaMemcpyAsync(ctx.outputs[0].raw_data(), x.read_raw_data(), x.nbytes(),
                                          cudaMemcpyDeviceToDevice, device->stream()));
    return absl::OkStatus();
  }
  LightingOffsets(alpha, pca);
  SYMX_CUDA_LAUNCH(ctx, LaunchImageLighting(t, x.read_raw_data(), x.shape().Size() / 3, pca,
                                            ctx.outputs[0].raw_data(), device->stream()));
  return absl::OkStatus();
}

// `in` (h, w, c) flipped along `axis` into `out` where the device byte `flag`
// says so, else copied.
absl::Status FlipIf(const KernelContext& ctx, CudaDevice* device, const uint8_t* flag, int axis,
                    const Tensor& in, const Tensor& out) {
  SYMX_ASSIGN_OR_RETURN(Elem t, ImageElem(ctx, in.dtype()));
  const Shape& s = in.shape();
  SYMX_CUDA_LAUNCH(ctx, LaunchImageFlipIf(t, flag, axis, in.read_raw_data(), s[0], s[1], s[2],
                                          out.raw_data(), device->stream()));
  return absl::OkStatus();
}

template <int kAxis>
absl::Status RandomFlip(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const bool flip = DrawFlip(device->rng()());
  auto* flag = static_cast<uint8_t*>(ctx.outputs[1].raw_data());
  SYMX_CUDA_LAUNCH(ctx, cudaMemsetAsync(flag, flip ? 1 : 0, 1, device->stream()));
  return FlipIf(ctx, device, flag, kAxis, ctx.inputs[0], ctx.outputs[0]);
}

template <int kAxis>
absl::Status RandomFlipBackward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  return FlipIf(ctx, device, static_cast<const uint8_t*>(ctx.inputs[1].read_raw_data()), kAxis,
                ctx.inputs[0], ctx.outputs[0]);
}

}  // namespace

SYMX_REGISTER_KERNEL("_image_random_brightness", kGPU, Enhance<ImageColorStep::kBrightness>);
SYMX_REGISTER_KERNEL("_image_random_contrast", kGPU, Enhance<ImageColorStep::kContrast>);
SYMX_REGISTER_KERNEL("_image_random_saturation", kGPU, Enhance<ImageColorStep::kSaturation>);
SYMX_REGISTER_KERNEL("_image_random_hue", kGPU, Enhance<ImageColorStep::kHue>);
SYMX_REGISTER_KERNEL("_image_random_color_jitter", kGPU, ColorJitter);
SYMX_REGISTER_KERNEL("_image_random_lighting", kGPU, RandomLighting);
SYMX_REGISTER_KERNEL("_image_random_flip_left_right", kGPU, RandomFlip<1>);
SYMX_REGISTER_KERNEL("_image_random_flip_top_bottom", kGPU, RandomFlip<0>);
SYMX_REGISTER_KERNEL("_backward_image_random_flip_left_right", kGPU, RandomFlipBackward<1>);
SYMX_REGISTER_KERNEL("_backward_image_random_flip_top_bottom", kGPU, RandomFlipBackward<0>);

}  // namespace cuda
}  // namespace symx
