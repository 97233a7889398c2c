// Launchers of the contributed optimizer family's CUDA kernels
// (devices/cuda/optimizer_contrib.cu), declared in plain C++ for the kernel
// registrations (devices/cuda/launch.h says why and what every launcher
// returns).
#ifndef SYMX_DEVICES_CUDA_OPTIMIZER_CONTRIB_LAUNCH_H_
#define SYMX_DEVICES_CUDA_OPTIMIZER_CONTRIB_LAUNCH_H_

#include <cuda_runtime.h>

#include <cstdint>

#include "devices/cuda/launch.h"
#include "devices/geometry/update_rules_contrib.h"

namespace symx {
namespace cuda {

// *sum = the sum of squares of n elements of `t` (each cast to float and
// squared in float, as MXNet's GPU kernel), summed in float by one block.
cudaError_t LaunchSumSq(Elem t, const void* x, int64_t n, float* sum, cudaStream_t s);

// *flag = value (all_finite's init_output).
cudaError_t LaunchSetFlag(float* flag, float value, cudaStream_t s);
// *flag = 0 when an element of `t`, cast to float, is not finite.
cudaError_t LaunchClearFlagIfNotFinite(Elem t, const void* x, int64_t n, float* flag,
                                       cudaStream_t s);

// multi_lars over n float32 layers.
cudaError_t LaunchLars(const float* lrs, const float* weights_sum_sq, const float* grads_sum_sq,
                       const float* wds, float* out, int64_t n, float eta, float eps,
                       float rescale_grad, cudaStream_t s);

// One weight's AdamW step over n elements: weight, grad and out `t`; mean
// and var `t`, or float32 with the float32 master copy (non-null), which
// then computes in float32. The kernel reads rescale_grad[0] (`rescale_t`)
// and writes nothing when the step is not taken (AdamWStepTaken); the
// scalars' `rescale` is replaced by it.
struct AdamWOperands {
  const void* weight = nullptr;
  const void* grad = nullptr;
  void* mean = nullptr;
  void* var = nullptr;
  float* master = nullptr;
  void* out = nullptr;
  const void* rescale = nullptr;
  Elem rescale_t = Elem::kF32;
  bool multi_form = false;
  int64_t n = 0;
};
cudaError_t LaunchAdamW(Elem t, const AdamWOperands& u, const AdamWScalars<float>& f,
                        const AdamWScalars<double>& d, cudaStream_t s);

// GroupAdaGrad over `rows` rows of `cols` elements (weight, grad, out) and
// one history value per row, all `t`; one thread per row.
struct GroupAdagradOperands {
  const void* weight = nullptr;
  const void* grad = nullptr;
  void* history = nullptr;
  void* out = nullptr;
  int64_t rows = 0, cols = 0;
  float lr = 0, rescale_grad = 1, clip_gradient = -1, epsilon = 0;
};
cudaError_t LaunchGroupAdagrad(Elem t, const GroupAdagradOperands& u, cudaStream_t s);

// One tensor of multi-tensor LAMB over n elements: weight, grad and out `t`;
// mean and var `t`, or float32 with the float32 master copy (non-null);
// `direction` n floats of scratch.
struct LambOperands {
  const void* weight = nullptr;
  const void* grad = nullptr;
  void* mean = nullptr;
  void* var = nullptr;
  float* master = nullptr;
  void* out = nullptr;
  float* direction = nullptr;
  int64_t n = 0;
};
// The moving averages and the direction (LambDirection).
cudaError_t LaunchLambDirection(Elem t, const LambOperands& u, const LambScalars<float>& f,
                                const LambScalars<double>& d, cudaStream_t s);
// weight -= lr * ratio * direction, the ratio from sums[0] = |w|^2 and
// sums[1] = |d|^2 on the device (LambTrustRatio).
cudaError_t LaunchLambStep(Elem t, const LambOperands& u, const float* sums, float lr,
                           float lower_bound, float upper_bound, cudaStream_t s);

}  // namespace cuda
}  // namespace symx

#endif  // SYMX_DEVICES_CUDA_OPTIMIZER_CONTRIB_LAUNCH_H_
