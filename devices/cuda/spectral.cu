// _contrib_count_sketch on the GPU: one thread per input element adds its
// signed value to its column by atomics; the backward gathers, one thread per
// input element.
#include "devices/cuda/elem_types.cuh"
#include "devices/cuda/spectral_launch.h"

namespace symx {
namespace cuda {
namespace {

template <typename T>
__global__ void CountSketchKernel(const T* x, const T* h, const T* s, int64_t d, int64_t out_dim,
                                  T* y, int64_t n) {
  SYMX_GRID_STRIDE(k, n) {
    const int64_t i = k % d, r = k / d;
    atomicAdd(y + r * out_dim + static_cast<int64_t>(h[i]), s[i] * x[k]);
  }
}

template <typename T>
__global__ void CountSketchBackwardKernel(const T* g, const T* h, const T* s, int64_t d,
                                          int64_t out_dim, T* dx, int64_t n) {
  SYMX_GRID_STRIDE(k, n) {
    const int64_t i = k % d, r = k / d;
    dx[k] = s[i] * g[r * out_dim + static_cast<int64_t>(h[i])];
  }
}

}  // namespace

cudaError_t LaunchCountSketch(Elem t, const void* x, const void* h, const void* s, int64_t rows,
                              int64_t d, int64_t out_dim, void* y, cudaStream_t stream) {
  const size_t bytes = t == Elem::kF64 ? sizeof(double) : sizeof(float);
  cudaError_t err = cudaMemsetAsync(y, 0, bytes * rows * out_dim, stream);
  if (err != cudaSuccess || rows * d == 0) return err;
  SYMX_CUDA_F32_F64_SWITCH(t, T, {
    CountSketchKernel<T><<<GridFor(rows * d), kThreads, 0, stream>>>(
        static_cast<const T*>(x), static_cast<const T*>(h), static_cast<const T*>(s), d, out_dim,
        static_cast<T*>(y), rows * d);
  });
  return LastLaunchError();
}

cudaError_t LaunchCountSketchBackward(Elem t, const void* g, const void* h, const void* s,
                                      int64_t rows, int64_t d, int64_t out_dim, void* dx,
                                      cudaStream_t stream) {
  if (rows * d == 0) return cudaSuccess;
  SYMX_CUDA_F32_F64_SWITCH(t, T, {
    CountSketchBackwardKernel<T><<<GridFor(rows * d), kThreads, 0, stream>>>(
        static_cast<const T*>(g), static_cast<const T*>(h), static_cast<const T*>(s), d, out_dim,
        static_cast<T*>(dx), rows * d);
  });
  return LastLaunchError();
}

}  // namespace cuda
}  // namespace symx
