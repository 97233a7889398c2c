// _image_resize on the GPU: one thread per output value, each computing
// ResizePixel (devices/geometry/image_resize.h) as the CPU kernel does, for
// every interp (MXNet's own GPU kernel only does linear).
#include "devices/cuda/elem_types.cuh"
#include "devices/cuda/image_resize_launch.h"

namespace symx {
namespace cuda {
namespace {

template <typename T>
__global__ void ImageResizeKernel(const T* x, ResizeGeom g, T* y, int64_t total) {
  const int64_t in_size = g.in_h * g.in_w * g.c;
  SYMX_GRID_STRIDE(i, total) {
    const int64_t ch = i % g.c, ox = (i / g.c) % g.out_w, oy = (i / (g.c * g.out_w)) % g.out_h;
    const int64_t b = i / (g.c * g.out_w * g.out_h);
    y[i] = ResizePixel(g, x + b * in_size, oy, ox, ch);
  }
}

}  // namespace

cudaError_t LaunchImageResize(Elem t, const void* x, int64_t n, const ResizeGeom& g, void* y,
                              cudaStream_t s) {
  const int64_t total = n * g.out_h * g.out_w * g.c;
  if (total == 0) return cudaSuccess;
#define SYMX_RESIZE_LAUNCH \
  ImageResizeKernel<T>     \
      <<<GridFor(total), kThreads, 0, s>>>(static_cast<const T*>(x), g, static_cast<T*>(y), total)
  switch (t) {
    SYMX_CUDA_CASE(Elem::kU8, T, uint8_t, SYMX_RESIZE_LAUNCH)
    SYMX_CUDA_CASE(Elem::kI32, T, int32_t, SYMX_RESIZE_LAUNCH)
    default:
      SYMX_CUDA_F32_F64_SWITCH(t, T, SYMX_RESIZE_LAUNCH);
  }
#undef SYMX_RESIZE_LAUNCH
  return LastLaunchError();
}

}  // namespace cuda
}  // namespace symx
