// Launchers of the attention family's own CUDA kernels (devices/cuda/attention.cu),
// declared in plain C++ for the kernel registrations (devices/cuda/launch.h
// says why and what every launcher returns). The interleaved products are
// cuBLAS GEMMs (devices/cuda/cublas_gemm.h) and need no kernel of their own.
#ifndef SYMX_DEVICES_CUDA_ATTENTION_LAUNCH_H_
#define SYMX_DEVICES_CUDA_ATTENTION_LAUNCH_H_

#include <cuda_runtime.h>

#include <cstdint>

#include "devices/cuda/launch.h"

namespace symx {
namespace cuda {

// _contrib_div_sqrt_dim: y = x / divisor with the divisor converted to t
// first (integers divide by its integer part, truncating; float16 and
// bfloat16 divide in float and round once), as the CPU kernel. y may be x.
cudaError_t LaunchDivInType(Elem t, const void* x, double divisor, void* y, int64_t n,
                            cudaStream_t s);

}  // namespace cuda
}  // namespace symx

#endif  // SYMX_DEVICES_CUDA_ATTENTION_LAUNCH_H_
