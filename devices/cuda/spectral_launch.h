// Launchers of the spectral CUDA kernels (devices/cuda/spectral.cu), declared
// in plain C++ for the kernel registrations (devices/cuda/launch.h says why and
// what every launcher returns).
#ifndef SYMX_DEVICES_CUDA_SPECTRAL_LAUNCH_H_
#define SYMX_DEVICES_CUDA_SPECTRAL_LAUNCH_H_

#include <cuda_runtime.h>

#include <cstdint>

#include "devices/cuda/launch.h"

namespace symx {
namespace cuda {

// _contrib_count_sketch over `rows` rows of d columns (float32/float64):
// y (rows x out_dim) = 0, then y[r, h[i]] += s[i] * x[r, i] by atomics (the
// summation order of colliding columns is not fixed). h holds valid column
// indices (checked by the caller).
cudaError_t LaunchCountSketch(Elem t, const void* x, const void* h, const void* s, int64_t rows,
                              int64_t d, int64_t out_dim, void* y, cudaStream_t stream);
// Its backward: dx[r, i] = s[i] * g[r, h[i]].
cudaError_t LaunchCountSketchBackward(Elem t, const void* g, const void* h, const void* s,
                                      int64_t rows, int64_t d, int64_t out_dim, void* dx,
                                      cudaStream_t stream);

}  // namespace cuda
}  // namespace symx

#endif  // SYMX_DEVICES_CUDA_SPECTRAL_LAUNCH_H_
