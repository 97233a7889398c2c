// The init family's own CUDA kernels (launchers in devices/cuda/init_launch.h):
// _linspace and _eye.
#include "devices/cuda/elem_types.cuh"
#include "devices/cuda/init_launch.h"

namespace symx {
namespace cuda {
namespace {

template <typename T>
__global__ void LinspaceKernel(double start, double step, T* y, int64_t n) {
  SYMX_GRID_STRIDE(i, n) { y[i] = CastValueOnDevice<T>(start + step * static_cast<double>(i)); }
}

template <typename T>
__global__ void EyeKernel(int64_t rows, int64_t cols, int64_t k, T* y) {
  SYMX_GRID_STRIDE(i, rows * cols) {
    const int64_t r = i / cols, c = i % cols;
    y[i] = CastValueOnDevice<T>(c == r + k ? 1.0 : 0.0);
  }
}

}  // namespace

cudaError_t LaunchLinspace(Elem t, double start, double step, void* y, int64_t n, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  SYMX_CUDA_ALL_SWITCH(t, T, {
    LinspaceKernel<T><<<GridFor(n), kThreads, 0, s>>>(start, step, static_cast<T*>(y), n);
  });
  return LastLaunchError();
}

cudaError_t LaunchEye(Elem t, int64_t rows, int64_t cols, int64_t k, void* y, cudaStream_t s) {
  const int64_t n = rows * cols;
  if (n == 0) return cudaSuccess;
  SYMX_CUDA_ALL_SWITCH(
      t, T, { EyeKernel<T><<<GridFor(n), kThreads, 0, s>>>(rows, cols, k, static_cast<T*>(y)); });
  return LastLaunchError();
}

}  // namespace cuda
}  // namespace symx
