// Launchers of the pooling CUDA kernels (devices/cuda/pooling.cu), declared in plain
// C++ for the kernel registrations (devices/cuda/launch.h says why and what
// every launcher returns).
#ifndef SYMX_DEVICES_CUDA_POOLING_LAUNCH_H_
#define SYMX_DEVICES_CUDA_POOLING_LAUNCH_H_

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "devices/cuda/launch.h"

namespace symx {
namespace cuda {

// Pooling over (planes, d0, d1, d2) data, MXNet's window rules
// (devices/cpu/pooling_kernels.cc states them; devices/geometry/pool_geom.h builds the
// geometry). Backward gathers, per input element, the gradient of every
// window that holds it, so no atomics are needed and the result is
// deterministic.
enum class PoolFn { kMax, kAvg, kSum, kLp };
struct PoolDims {
  int64_t planes = 0;
  int64_t in[3] = {1, 1, 1};
  int64_t out[3] = {1, 1, 1};
  int64_t kernel[3] = {1, 1, 1};
  int64_t stride[3] = {1, 1, 1};
  int64_t pad[3] = {0, 0, 0};
  PoolFn type = PoolFn::kMax;
  bool count_include_pad = true;
  int64_t p = 1;
};
cudaError_t LaunchPoolForward(Elem t, const void* x, const PoolDims& d, void* y, cudaStream_t s);
// (ograd, data, output) -> grad of data. Max pooling needs `workspace` for
// one int64 per output (PoolBackwardWorkspaceBytes).
cudaError_t LaunchPoolBackward(Elem t, const void* dy, const void* x, const void* y,
                               const PoolDims& d, void* workspace, void* dx, cudaStream_t s);
// Pooling_v1 (max, avg, sum) over (planes, 1, h, w) data with its legacy rules
// (devices/geometry/pool_geom.h); backward gathers as above, without workspace.
cudaError_t LaunchPoolV1Forward(Elem t, const void* x, const PoolDims& d, void* y, cudaStream_t s);
cudaError_t LaunchPoolV1Backward(Elem t, const void* dy, const void* x, const void* y,
                                 const PoolDims& d, void* dx, cudaStream_t s);

}  // namespace cuda
}  // namespace symx

#endif  // SYMX_DEVICES_CUDA_POOLING_LAUNCH_H_
