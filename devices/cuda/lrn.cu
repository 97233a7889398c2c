// The lrn family's CUDA kernels (launchers in devices/cuda/lrn_launch.h).
//
// Dropout masks, Embedding, where and clip on the GPU.
#include "devices/cuda/elem_types.cuh"
#include "devices/cuda/lrn_launch.h"

namespace symx {
namespace cuda {
namespace {

template <typename T>
__global__ void LrnKernel(const T* x, LrnDims d, T* y, T* tmp, int64_t n) {
  const int64_t half = d.nsize / 2;
  const double a = d.alpha / static_cast<double>(d.nsize);
  SYMX_GRID_STRIDE(i, n) {
    const int64_t c = (i / d.spatial) % d.channels;
    const int64_t base = i - c * d.spatial;  // channel 0 of this (sample, position)
    double s = 0;
    const int64_t lo = c - half < 0 ? 0 : c - half;
    const int64_t hi = c + half > d.channels - 1 ? d.channels - 1 : c + half;
    for (int64_t k = lo; k <= hi; ++k) {
      const double v = ToDouble(x[base + k * d.spatial]);
      s += v * v;
    }
    const double t = d.knorm + a * s;
    tmp[i] = FromDouble<T>(t);
    y[i] = FromDouble<T>(ToDouble(x[i]) * pow(t, -d.beta));
  }
}

template <typename T>
__global__ void LrnGradKernel(const T* g, const T* x, const T* tmp, LrnDims d, T* gx, int64_t n) {
  const int64_t half = d.nsize / 2;
  const double k2 = 2.0 * d.beta * d.alpha / static_cast<double>(d.nsize);
  SYMX_GRID_STRIDE(j, n) {
    const int64_t c = (j / d.spatial) % d.channels;
    const int64_t base = j - c * d.spatial;
    double s = 0;
    const int64_t lo = c - half < 0 ? 0 : c - half;
    const int64_t hi = c + half > d.channels - 1 ? d.channels - 1 : c + half;
    for (int64_t i = lo; i <= hi; ++i) {
      const int64_t at = base + i * d.spatial;
      s += ToDouble(g[at]) * ToDouble(x[at]) * pow(ToDouble(tmp[at]), -d.beta - 1.0);
    }
    gx[j] =
        FromDouble<T>(ToDouble(g[j]) * pow(ToDouble(tmp[j]), -d.beta) - k2 * ToDouble(x[j]) * s);
  }
}

}  // namespace

cudaError_t LaunchLrn(Elem t, const void* x, const LrnDims& d, void* y, void* tmp, cudaStream_t s) {
  const int64_t n = d.batch * d.channels * d.spatial;
  if (n == 0) return cudaSuccess;
  if (d.nsize < 1) return cudaErrorInvalidValue;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    LrnKernel<T><<<GridFor(n), kThreads, 0, s>>>(static_cast<const T*>(x), d, static_cast<T*>(y),
                                                 static_cast<T*>(tmp), n);
  });
  return LastLaunchError();
}

cudaError_t LaunchLrnGrad(Elem t, const void* g, const void* x, const void* tmp, const LrnDims& d,
                          void* gx, cudaStream_t s) {
  const int64_t n = d.batch * d.channels * d.spatial;
  if (n == 0) return cudaSuccess;
  if (d.nsize < 1) return cudaErrorInvalidValue;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    LrnGradKernel<T>
        <<<GridFor(n), kThreads, 0, s>>>(static_cast<const T*>(g), static_cast<const T*>(x),
                                         static_cast<const T*>(tmp), d, static_cast<T*>(gx), n);
  });
  return LastLaunchError();
}

}  // namespace cuda
}  // namespace symx
