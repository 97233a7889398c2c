// Launchers of the softmax CUDA kernels (devices/cuda/softmax.cu), declared in plain
// C++ for the kernel registrations (devices/cuda/launch.h says why and what
// every launcher returns).
#ifndef SYMX_DEVICES_CUDA_SOFTMAX_LAUNCH_H_
#define SYMX_DEVICES_CUDA_SOFTMAX_LAUNCH_H_

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "devices/cuda/launch.h"

namespace symx {
namespace cuda {

// Softmax over the middle axis of (outer, len, inner): y = softmax(x / temperature),
// or its log when `log`.
cudaError_t LaunchSoftmax(Elem t, const void* x, int64_t outer, int64_t len, int64_t inner,
                          double temperature, bool log, void* y, cudaStream_t s);
// Its gradient from the output y and head gradient g:
// softmax: dx = (g - sum(g * y)) * y / temperature;
// log_softmax: dx = (g - exp(y) * sum(g)) / temperature.
cudaError_t LaunchSoftmaxGrad(Elem t, const void* g, const void* y, int64_t outer, int64_t len,
                              int64_t inner, double temperature, bool log, void* dx,
                              cudaStream_t s);

}  // namespace cuda
}  // namespace symx

#endif  // SYMX_DEVICES_CUDA_SOFTMAX_LAUNCH_H_
