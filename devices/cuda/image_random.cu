// The image_random family's kernels on the GPU: the color steps of
// devices/geometry/image_color.h (compiled here as on the CPU, without fused
// multiply-adds, so both devices round alike) and the flip-or-copy of the
// random flips, which reads its decision from the device.
#include <type_traits>

#include "devices/cuda/block_reduce.cuh"
#include "devices/cuda/elem_types.cuh"
#include "devices/cuda/image_calc.cuh"
#include "devices/cuda/image_random_launch.h"
#include "devices/geometry/image_color.h"

namespace symx {
namespace cuda {
namespace {

template <typename T>
using Calc = ImageCalc<T>;

// uint8 clamped to [0, 255] and truncated (MXNet); other integers saturate,
// floats round (FromDouble).
template <typename T, typename C>
__device__ __forceinline__ T Store(C v) {
  if constexpr (std::is_same_v<T, uint8_t>) {
    return static_cast<uint8_t>(v < C(0) ? C(0) : v > C(255) ? C(255) : v);
  } else {
    return FromDouble<T>(static_cast<double>(v));
  }
}

template <typename T>
__global__ void ScaleKernel(const T* x, Calc<T> a, T* y, int64_t total) {
  SYMX_GRID_STRIDE(i, total) { y[i] = Store<T>(ImageLoad(x, i) * a); }
}

// One block: the mean gray (double, fixed order per thread count), then
// x * a + (1 - a) * mean.
template <typename T>
__global__ void ContrastKernel(const T* x, Calc<T> a, T* y, int64_t pixels, int64_t channels) {
  using C = Calc<T>;
  double sum = 0;
  for (int64_t p = threadIdx.x; p < pixels; p += blockDim.x) {
    sum += channels == 3 ? static_cast<double>(GrayOf(ImageLoad(x, 3 * p), ImageLoad(x, 3 * p + 1),
                                                      ImageLoad(x, 3 * p + 2)))
                         : static_cast<double>(ImageLoad(x, p));
  }
  sum = BlockReduce(sum, Reducer<double>{ReduceFn::kSum});
  const C mean = static_cast<C>(pixels > 0 ? sum / static_cast<double>(pixels) : 0.0);
  const C beta = (C(1) - a) * mean;
  for (int64_t i = threadIdx.x; i < pixels * channels; i += blockDim.x) {
    y[i] = Store<T>(ImageLoad(x, i) * a + beta);
  }
}

template <typename T>
__global__ void PixelKernel(const T* x, bool hue, Calc<T> a, T* y, int64_t pixels) {
  using C = Calc<T>;
  SYMX_GRID_STRIDE(p, pixels) {
    C r = ImageLoad(x, 3 * p), g = ImageLoad(x, 3 * p + 1), b = ImageLoad(x, 3 * p + 2);
    if (hue) {
      RotateHue(a * C(360), &r, &g, &b);
    } else {
      Saturate3(a, &r, &g, &b);
    }
    y[3 * p] = Store<T>(r);
    y[3 * p + 1] = Store<T>(g);
    y[3 * p + 2] = Store<T>(b);
  }
}

template <typename T>
__global__ void FlipIfKernel(const uint8_t* flag, int axis, const T* x, int64_t h, int64_t w,
                             int64_t c, T* y, int64_t total) {
  const bool flip = *flag != 0;
  SYMX_GRID_STRIDE(i, total) {
    int64_t row = i / (w * c), col = (i / c) % w;
    if (flip) {
      if (axis == 0) {
        row = h - 1 - row;
      } else {
        col = w - 1 - col;
      }
    }
    y[i] = x[(row * w + col) * c + i % c];
  }
}

}  // namespace

cudaError_t LaunchImageColorStep(Elem t, int step, float factor, const void* x, void* y,
                                 int64_t pixels, int64_t channels, cudaStream_t s) {
  const int64_t total = pixels * channels;
  if (total == 0) return cudaSuccess;
  const auto kind = static_cast<ImageColorStep>(step);
  if (channels == 1 && (kind == ImageColorStep::kSaturation || kind == ImageColorStep::kHue)) {
    // Gray images keep their colors.
    if (x == y) return cudaSuccess;
    SYMX_CUDA_ALL_SWITCH(
        t, T, { return cudaMemcpyAsync(y, x, total * sizeof(T), cudaMemcpyDeviceToDevice, s); });
    return cudaErrorInvalidValue;
  }
  SYMX_CUDA_ALL_SWITCH(t, T, {
    const T* in = static_cast<const T*>(x);
    T* out = static_cast<T*>(y);
    const auto a = static_cast<Calc<T>>(factor);
    switch (kind) {
      case ImageColorStep::kBrightness:
        ScaleKernel<T><<<GridFor(total), kThreads, 0, s>>>(in, a, out, total);
        break;
      case ImageColorStep::kContrast:
        ContrastKernel<T><<<1, kThreads, 0, s>>>(in, a, out, pixels, channels);
        break;
      default:
        PixelKernel<T>
            <<<GridFor(pixels), kThreads, 0, s>>>(in, kind == ImageColorStep::kHue, a, out, pixels);
        break;
    }
  });
  return LastLaunchError();
}

cudaError_t LaunchImageFlipIf(Elem t, const uint8_t* flag, int axis, const void* x, int64_t h,
                              int64_t w, int64_t c, void* y, cudaStream_t s) {
  const int64_t total = h * w * c;
  if (total == 0) return cudaSuccess;
  SYMX_CUDA_ALL_SWITCH(t, T, {
    FlipIfKernel<T><<<GridFor(total), kThreads, 0, s>>>(flag, axis, static_cast<const T*>(x), h, w,
                                                        c, static_cast<T*>(y), total);
  });
  return LastLaunchError();
}

}  // namespace cuda
}  // namespace symx
