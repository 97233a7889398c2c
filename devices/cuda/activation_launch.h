// Launchers of the activation CUDA kernels (devices/cuda/activation.cu), declared in plain
// C++ for the kernel registrations (devices/cuda/launch.h says why and what
// every launcher returns).
#ifndef SYMX_DEVICES_CUDA_ACTIVATION_LAUNCH_H_
#define SYMX_DEVICES_CUDA_ACTIVATION_LAUNCH_H_

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "devices/cuda/launch.h"

namespace symx {
namespace cuda {

// LeakyReLU's types (MXNet 1.x formulas, as devices/cpu/activation_kernels.cc):
// leaky x*slope, elu slope*(e^x - 1), selu, exact gelu, and rrelu/prelu with a
// per-element (mask) or per-channel (gamma over (outer, channels, inner),
// or one shared value) slope for x <= 0.
enum class LeakyFn { kLeaky, kELU, kSELU, kGELU };
cudaError_t LaunchLeaky(LeakyFn f, Elem t, const void* x, double slope, void* y, int64_t n,
                        cudaStream_t s);
// From g, the data x and the output y.
cudaError_t LaunchLeakyGrad(LeakyFn f, Elem t, const void* g, const void* x, const void* y,
                            double slope, void* dx, int64_t n, cudaStream_t s);
struct ChannelDims {
  int64_t outer = 1, channels = 1, inner = 1;
  bool shared = false;  // one slope for every channel
};
// y = x > 0 ? x : slope * x, slope from gamma (per channel) or, with a null
// gamma, from mask (per element).
cudaError_t LaunchPReLU(Elem t, const void* x, const void* gamma, const void* mask,
                        const ChannelDims& d, void* y, cudaStream_t s);
// dx = x > 0 ? g : slope * g (as LaunchPReLU picks the slope); `terms`, when
// not null, gets x <= 0 ? x * g : 0 per element (prelu's gamma gradient,
// summed per channel afterwards).
cudaError_t LaunchPReLUGrad(Elem t, const void* g, const void* x, const void* gamma,
                            const void* mask, const ChannelDims& d, void* dx, void* terms,
                            cudaStream_t s);
// Uniform values in [lo, hi) from a counter-based generator keyed by `seed`
// (rrelu's training slopes).
cudaError_t LaunchUniform(Elem t, uint64_t seed, double lo, double hi, void* y, int64_t n,
                          cudaStream_t s);

// hard_sigmoid: y = clip(alpha x + beta, 0, 1) (the sum rounded to the dtype
// before the clip); dx = alpha g where 0 < alpha x + beta < 1, else 0.
// alpha and beta as the host's kernels pass them (the gradient's rounded to
// the dtype).
cudaError_t LaunchHardSigmoid(Elem t, const void* x, double alpha, double beta, void* y, int64_t n,
                              cudaStream_t s);
cudaError_t LaunchHardSigmoidGrad(Elem t, const void* g, const void* x, double alpha, double beta,
                                  void* dx, int64_t n, cudaStream_t s);

}  // namespace cuda
}  // namespace symx

#endif  // SYMX_DEVICES_CUDA_ACTIVATION_LAUNCH_H_
