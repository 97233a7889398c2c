// CPU kernels of the image_random family (graph/ops/image_random.cc): each
// call takes one key from the device's generator, draws its factors on the
// host (devices/geometry/image_draws.h) and runs the color steps of
// devices/geometry/image_color.h over the (H, W, C) image, in float (double
// for float64 data). The random flips copy through image.cc's flip views.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "absl/status/status.h"
#include "devices/cpu/image_kernels.h"
#include "devices/cpu/kernel_util.h"
#include "devices/cpu/strided_copy.h"
#include "devices/dtype_switch.h"
#include "devices/geometry/image_color.h"
#include "devices/geometry/image_draws.h"
#include "devices/geometry/strided_view.h"
#include "graph/ops/image.h"

namespace symx {
namespace cpu {
namespace {

template <typename T>
using Calc = ImageCalc<T>;

absl::StatusOr<uint64_t> CallKey(const KernelContext& ctx) {
  if (ctx.device == nullptr) return Fail(ctx, "no device to draw random numbers from");
  return ctx.device->rng()();
}

// Rough scalar operations per pixel of a step (hue's HLS round trip).
constexpr double kPixelCost = 40.0;

// One color step over the image `x` (pixels x channels) into `y` (x may be y).
template <typename T>
void RunStep(const KernelContext& ctx, ImageColorStep step, float factor, const T* x, T* y,
             int64_t pixels, int64_t channels) {
  using C = Calc<T>;
  const C a = static_cast<C>(factor);
  const int64_t n = pixels * channels;
  if (step == ImageColorStep::kBrightness) {
    ParallelFor(ctx, n, 2.0, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) y[i] = ImageStore<T>(ImageLoad(x, i) * a);
    });
    return;
  }
  if (step == ImageColorStep::kContrast) {
    // The mean gray in double, in one order whatever the thread count.
    double sum = 0;
    for (int64_t p = 0; p < pixels; ++p) {
      sum += channels == 3
                 ? static_cast<double>(GrayOf(ImageLoad(x, 3 * p), ImageLoad(x, 3 * p + 1),
                                              ImageLoad(x, 3 * p + 2)))
                 : static_cast<double>(ImageLoad(x, p));
    }
    const C mean = static_cast<C>(pixels > 0 ? sum / static_cast<double>(pixels) : 0.0);
    const C beta = (C(1) - a) * mean;
    ParallelFor(ctx, n, 2.0, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) y[i] = ImageStore<T>(ImageLoad(x, i) * a + beta);
    });
    return;
  }
  if (channels == 1) {
    // Saturation and hue leave gray images as they are.
    if (y != x) std::copy(x, x + n, y);
    return;
  }
  const C degrees = step == ImageColorStep::kHue ? a * C(360) : C(0);
  ParallelFor(ctx, pixels, kPixelCost, [&](int64_t begin, int64_t end) {
    for (int64_t p = begin; p < end; ++p) {
      C r = ImageLoad(x, 3 * p), g = ImageLoad(x, 3 * p + 1), b = ImageLoad(x, 3 * p + 2);
      if (step == ImageColorStep::kSaturation) {
        Saturate3(a, &r, &g, &b);
      } else {
        RotateHue(degrees, &r, &g, &b);
      }
      y[3 * p] = ImageStore<T>(r);
      y[3 * p + 1] = ImageStore<T>(g);
      y[3 * p + 2] = ImageStore<T>(b);
    }
  });
}

template <typename T>
absl::Status RunPlan(const KernelContext& ctx, const ImageColorPlan& plan) {
  const Shape& s = ctx.inputs[0].shape();
  const T* x = ctx.inputs[0].data<T>();
  T* y = ctx.outputs[0].data<T>();
  const int64_t pixels = s[0] * s[1], channels = s[2];
  if (plan.steps == 0 && y != x) std::copy(x, x + pixels * channels, y);
  for (int k = 0; k < plan.steps; ++k) {
    // The first step reads the input, the others the output so far.
    RunStep<T>(ctx, plan.step[k], plan.factor[k], k == 0 ? x : y, y, pixels, channels);
  }
  return absl::OkStatus();
}

absl::Status RunColorPlan(const KernelContext& ctx, const ImageColorPlan& plan) {
  SYMX_IMAGE_SWITCH(ctx, ctx.inputs[0].dtype(), T, return RunPlan<T>(ctx, plan));
}

template <ImageColorStep kStep>
absl::Status Enhance(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(uint64_t key, CallKey(ctx));
  return RunColorPlan(ctx, DrawEnhance(kStep, ctx.param<ImageEnhanceParam>(), key));
}

absl::Status ColorJitter(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(uint64_t key, CallKey(ctx));
  return RunColorPlan(ctx, DrawJitter(ctx.param<ImageJitterParam>(), key));
}

absl::Status RandomLighting(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(uint64_t key, CallKey(ctx));
  float alpha[3], pca[3];
  DrawLightingAlphas(ctx.param<ImageRandomLightingParam>(), key, alpha);
  LightingOffsets(alpha, pca);
  SYMX_IMAGE_SWITCH(ctx, ctx.inputs[0].dtype(), T, return AddLighting<T>(ctx, pca));
}

// `in` flipped along axis ndim - from_end into `out` when `flip`, else copied.
absl::Status FlipOrCopy(const KernelContext& ctx, const Tensor& in, const Tensor& out, bool flip,
                        int from_end) {
  if (flip) {
    const Shape& s = in.shape();
    return CopyThroughView(ctx, FlipView(s, s.ndim() - from_end), in, out, /*gather=*/true);
  }
  if (out.raw_data() != in.read_raw_data()) {
    std::memcpy(out.raw_data(), in.read_raw_data(), in.nbytes());
  }
  return absl::OkStatus();
}

template <int kFromEnd>
absl::Status RandomFlip(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(uint64_t key, CallKey(ctx));
  const bool flip = DrawFlip(key);
  *ctx.outputs[1].data<uint8_t>() = flip ? 1 : 0;
  return FlipOrCopy(ctx, ctx.inputs[0], ctx.outputs[0], flip, kFromEnd);
}

// (ograd, flipped) -> the data gradient, flipped as the forward was.
template <int kFromEnd>
absl::Status RandomFlipBackward(const KernelContext& ctx) {
  const bool flip = *ctx.inputs[1].data<uint8_t>() != 0;
  return FlipOrCopy(ctx, ctx.inputs[0], ctx.outputs[0], flip, kFromEnd);
}

}  // namespace

SYMX_REGISTER_KERNEL("_image_random_brightness", kCPU, Enhance<ImageColorStep::kBrightness>);
SYMX_REGISTER_KERNEL("_image_random_contrast", kCPU, Enhance<ImageColorStep::kContrast>);
SYMX_REGISTER_KERNEL("_image_random_saturation", kCPU, Enhance<ImageColorStep::kSaturation>);
SYMX_REGISTER_KERNEL("_image_random_hue", kCPU, Enhance<ImageColorStep::kHue>);
SYMX_REGISTER_KERNEL("_image_random_color_jitter", kCPU, ColorJitter);
SYMX_REGISTER_KERNEL("_image_random_lighting", kCPU, RandomLighting);
SYMX_REGISTER_KERNEL("_image_random_flip_left_right", kCPU, RandomFlip<2>);
SYMX_REGISTER_KERNEL("_image_random_flip_top_bottom", kCPU, RandomFlip<3>);
SYMX_REGISTER_KERNEL("_backward_image_random_flip_left_right", kCPU, RandomFlipBackward<2>);
SYMX_REGISTER_KERNEL("_backward_image_random_flip_top_bottom", kCPU, RandomFlipBackward<3>);

}  // namespace cpu
}  // namespace symx
