// Launchers of the init family's own CUDA kernels (devices/cuda/init.cu),
// declared in plain C++ for the kernel registrations (devices/cuda/launch.h
// says why and what every launcher returns). The rest of the family runs on
// the elementwise launchers (fills, _arange).
#ifndef SYMX_DEVICES_CUDA_INIT_LAUNCH_H_
#define SYMX_DEVICES_CUDA_INIT_LAUNCH_H_

#include <cuda_runtime.h>

#include <cstdint>

#include "devices/cuda/launch.h"

namespace symx {
namespace cuda {

// _linspace: y[i] = start + step * i in double, stored as the host's
// CastValue stores it (integers truncate through int64).
cudaError_t LaunchLinspace(Elem t, double start, double step, void* y, int64_t n, cudaStream_t s);

// _eye: y (rows x cols) all zero but ones at (r, r + k).
cudaError_t LaunchEye(Elem t, int64_t rows, int64_t cols, int64_t k, void* y, cudaStream_t s);

}  // namespace cuda
}  // namespace symx

#endif  // SYMX_DEVICES_CUDA_INIT_LAUNCH_H_
