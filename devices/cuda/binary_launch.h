// Launchers of the binary family's own CUDA kernels (devices/cuda/binary.cu):
// mod and hypot, in the integer dtypes too, which the shared elementwise
// launchers do not take. Declared in plain C++ for the kernel registrations
// (devices/cuda/launch.h says why and what every launcher returns).
#ifndef SYMX_DEVICES_CUDA_BINARY_LAUNCH_H_
#define SYMX_DEVICES_CUDA_BINARY_LAUNCH_H_

#include <cuda_runtime.h>

#include <cstdint>

#include "devices/cuda/elemwise_launch.h"
#include "devices/cuda/launch.h"

namespace symx {
namespace cuda {

// MXNet's modulo (the divisor's sign, 0 for a zero divisor, computed in
// double) and hypot (in float for the narrow types; integers truncate), as
// the CPU kernels (devices/cpu/binary_kernels.cc).
enum class ArithFn { kMod, kHypot };

// out[i] = f(a[i . a_strides], b[i . b_strides]) in float32, float64,
// float16, uint8, int8, int32 and int64.
cudaError_t LaunchArith(ArithFn f, Elem t, const void* a, const void* b, void* out,
                        const BroadcastDims& d, int64_t n, cudaStream_t s);

// The per-element gradient terms of out = f(a, b) over the output's shape,
// for the lhs (`rhs` false) or the rhs: mod (g, -floor(a / b) g), hypot
// (a g / hypot, b g / hypot). Floating types only.
cudaError_t LaunchArithGradTerms(ArithFn f, bool rhs, Elem t, const void* g, const void* a,
                                 const void* b, const BroadcastDims& d, void* out, int64_t n,
                                 cudaStream_t s);

// With a scalar (already converted to the array's type by the caller):
// x mod s, s mod x, hypot(x, s); and the gradients of the last two,
// -floor(s / x) g and x g / hypot(x, s) (kMod's is g itself).
enum class ArithScalarFn { kMod, kRMod, kHypot };
cudaError_t LaunchArithScalar(ArithScalarFn f, Elem t, const void* x, double scalar, void* y,
                              int64_t n, cudaStream_t s);
cudaError_t LaunchArithScalarGrad(ArithScalarFn f, Elem t, const void* g, const void* x,
                                  double scalar, void* dx, int64_t n, cudaStream_t s);

}  // namespace cuda
}  // namespace symx

#endif  // SYMX_DEVICES_CUDA_BINARY_LAUNCH_H_
