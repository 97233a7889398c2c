// The layout family's CUDA kernels (launchers in devices/cuda/layout_launch.h):
// im2col and col2im over devices/geometry/im2col_map.h, the map the CPU
// kernels use.
#include "devices/cuda/elem_types.cuh"
#include "devices/cuda/layout_launch.h"
#include "devices/geometry/im2col_map.h"

namespace symx {
namespace cuda {
namespace {

template <typename T>
__global__ void Im2colKernel(const T* image, Im2colDims d, T* cols, int64_t n) {
  SYMX_GRID_STRIDE(i, n) {
    const int64_t l = i % d.columns, r = i / d.columns;
    const int64_t k = r % d.kernel_size, plane = r / d.kernel_size;
    const int64_t at = Im2colSource(d, k, l);
    Store(cols, i, at < 0 ? Acc<T>(0) : Load(image, plane * d.image_size + at));
  }
}

template <typename T>
__global__ void Col2imKernel(const T* cols, Im2colDims d, T* image, int64_t n) {
  SYMX_GRID_STRIDE(i, n) {
    const int64_t plane = i / d.image_size, p = i % d.image_size;
    Acc<T> acc = Acc<T>(0);
    for (int64_t k = 0; k < d.kernel_size; ++k) {
      const int64_t l = Col2imColumn(d, p, k);
      if (l >= 0) acc += Load(cols, (plane * d.kernel_size + k) * d.columns + l);
    }
    Store(image, i, acc);
  }
}

}  // namespace

cudaError_t LaunchIm2col(Elem t, const void* image, const Im2colDims& d, int64_t planes, void* cols,
                         cudaStream_t s) {
  const int64_t n = planes * d.kernel_size * d.columns;
  if (n == 0) return cudaSuccess;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    Im2colKernel<T>
        <<<GridFor(n), kThreads, 0, s>>>(static_cast<const T*>(image), d, static_cast<T*>(cols), n);
  });
  return LastLaunchError();
}

cudaError_t LaunchCol2im(Elem t, const void* cols, const Im2colDims& d, int64_t planes, void* image,
                         cudaStream_t s) {
  const int64_t n = planes * d.image_size;
  if (n == 0) return cudaSuccess;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    Col2imKernel<T>
        <<<GridFor(n), kThreads, 0, s>>>(static_cast<const T*>(cols), d, static_cast<T*>(image), n);
  });
  return LastLaunchError();
}

}  // namespace cuda
}  // namespace symx
