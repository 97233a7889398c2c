// The image family's elementwise kernels on the GPU (to_tensor, normalize,
// adjust_lighting), one thread per output element, computing as the CPU does:
// in float, or in double for float64 data.
#include <type_traits>

#include "devices/cuda/elem_types.cuh"
#include "devices/cuda/image_calc.cuh"
#include "devices/cuda/image_launch.h"

namespace symx {
namespace cuda {
namespace {

template <typename T>
using Calc = ImageCalc<T>;

template <typename T>
__global__ void ToTensorKernel(const T* x, int64_t hw, int64_t c, float* y, int64_t total) {
  SYMX_GRID_STRIDE(i, total) {
    const int64_t p = i % hw, nc = i / hw, ch = nc % c, b = nc / c;
    y[i] = static_cast<float>(ImageLoad(x, (b * hw + p) * c + ch) / static_cast<Calc<T>>(255));
  }
}

template <typename T>
__global__ void NormalizeKernel(const T* x, NormalizeArgs a, bool backward, T* y, int64_t total) {
  SYMX_GRID_STRIDE(i, total) {
    const int64_t ch = (i / a.hw) % a.c;
    if (backward) {
      y[i] = FromDouble<T>(ToDouble(x[i]) * (1.0 / static_cast<double>(a.std[ch])));
    } else {
      y[i] = FromDouble<T>(static_cast<double>((ImageLoad(x, i) - a.mean[ch]) / a.std[ch]));
    }
  }
}

template <typename T>
__global__ void LightingKernel(const T* x, float pr, float pg, float pb, T* y, int64_t total) {
  SYMX_GRID_STRIDE(i, total) {
    const int64_t ch = i % 3;
    const Calc<T> v = ImageLoad(x, i) + static_cast<Calc<T>>(ch == 0 ? pr : ch == 1 ? pg : pb);
    if constexpr (std::is_same_v<T, uint8_t>) {
      y[i] = static_cast<uint8_t>(fminf(fmaxf(v, 0.0f), 255.0f));
    } else {
      y[i] = FromDouble<T>(static_cast<double>(v));
    }
  }
}

}  // namespace

cudaError_t LaunchToTensor(Elem t, const void* x, int64_t n, int64_t hw, int64_t c, float* y,
                           cudaStream_t s) {
  const int64_t total = n * c * hw;
  if (total == 0) return cudaSuccess;
  SYMX_CUDA_ALL_SWITCH(t, T, {
    ToTensorKernel<T>
        <<<GridFor(total), kThreads, 0, s>>>(static_cast<const T*>(x), hw, c, y, total);
  });
  return LastLaunchError();
}

cudaError_t LaunchImageNormalize(Elem t, const void* x, const NormalizeArgs& a, bool backward,
                                 void* y, cudaStream_t s) {
  const int64_t total = a.n * a.c * a.hw;
  if (total == 0) return cudaSuccess;
  SYMX_CUDA_ALL_SWITCH(t, T, {
    NormalizeKernel<T><<<GridFor(total), kThreads, 0, s>>>(static_cast<const T*>(x), a, backward,
                                                           static_cast<T*>(y), total);
  });
  return LastLaunchError();
}

cudaError_t LaunchImageLighting(Elem t, const void* x, int64_t pixels, const float pca[3], void* y,
                                cudaStream_t s) {
  const int64_t total = pixels * 3;
  if (total == 0) return cudaSuccess;
  SYMX_CUDA_ALL_SWITCH(t, T, {
    LightingKernel<T><<<GridFor(total), kThreads, 0, s>>>(static_cast<const T*>(x), pca[0], pca[1],
                                                          pca[2], static_cast<T*>(y), total);
  });
  return LastLaunchError();
}

}  // namespace cuda
}  // namespace symx
