// Launchers of the dropout CUDA kernels (devices/cuda/dropout.cu), declared in plain
// C++ for the kernel registrations (devices/cuda/launch.h says why and what
// every launcher returns).
#ifndef SYMX_DEVICES_CUDA_DROPOUT_LAUNCH_H_
#define SYMX_DEVICES_CUDA_DROPOUT_LAUNCH_H_

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "devices/cuda/launch.h"

namespace symx {
namespace cuda {

// Dropout's mask, drawn exactly as the CPU kernel draws it (so a device
// seeded alike gives the same mask): chunks of 2^16 elements, chunk c from a
// SplitMix64 seeded with mix(base + c * 0xd1b54a32d192ed03); each 64-bit draw
// gives two 32-bit uniforms; kept where the uniform is below keep * 2^32,
// with the value `scale` (else 0).
cudaError_t LaunchDropoutMask(Elem t, uint64_t base, double keep, double scale, void* mask,
                              int64_t n, cudaStream_t s);

}  // namespace cuda
}  // namespace symx

#endif  // SYMX_DEVICES_CUDA_DROPOUT_LAUNCH_H_
