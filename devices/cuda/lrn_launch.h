// Launchers of the lrn CUDA kernels (devices/cuda/lrn.cu), declared in plain
// C++ for the kernel registrations (devices/cuda/launch.h says why and what
// every launcher returns).
#ifndef SYMX_DEVICES_CUDA_LRN_LAUNCH_H_
#define SYMX_DEVICES_CUDA_LRN_LAUNCH_H_

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "devices/cuda/launch.h"

namespace symx {
namespace cuda {

// LRN across channels of (N, C, S) data (S = H * W), as the CPU kernel
// (devices/cpu/lrn_kernels.cc): tmp = knorm + alpha / nsize * the window's sum
// of squares, y = x * tmp^-beta; the gradient gathers over each element's
// window (deterministic).
struct LrnDims {
  int64_t batch = 0, channels = 0, spatial = 0, nsize = 1;
  double alpha = 0, beta = 0, knorm = 0;
};
cudaError_t LaunchLrn(Elem t, const void* x, const LrnDims& d, void* y, void* tmp, cudaStream_t s);
cudaError_t LaunchLrnGrad(Elem t, const void* g, const void* x, const void* tmp, const LrnDims& d,
                          void* gx, cudaStream_t s);

}  // namespace cuda
}  // namespace symx

#endif  // SYMX_DEVICES_CUDA_LRN_LAUNCH_H_
