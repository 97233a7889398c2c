// Launchers of the compare family's own CUDA kernels (devices/cuda/compare.cu),
// declared in plain C++ for the kernel registrations (devices/cuda/launch.h
// says why and what every launcher returns). The comparisons themselves run
// on the elementwise launchers.
#ifndef SYMX_DEVICES_CUDA_COMPARE_LAUNCH_H_
#define SYMX_DEVICES_CUDA_COMPARE_LAUNCH_H_

#include <cuda_runtime.h>

#include <cstdint>

#include "devices/cuda/launch.h"

namespace symx {
namespace cuda {

// _contrib_allclose: *out (uint8) = 1 when every a[i], b[i] pass the CPU
// kernel's test (devices/cpu/compare_kernels.cc), else 0. Float types and
// uint8, int8, int32, int64.
cudaError_t LaunchAllClose(Elem t, const void* a, const void* b, int64_t n, float rtol, float atol,
                           bool equal_nan, uint8_t* out, cudaStream_t s);

}  // namespace cuda
}  // namespace symx

#endif  // SYMX_DEVICES_CUDA_COMPARE_LAUNCH_H_
