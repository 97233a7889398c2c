// Launchers of the optimizer CUDA kernels (devices/cuda/optimizer.cu),
// declared in plain C++ for the kernel registrations (devices/cuda/launch.h
// says why and what every launcher returns).
#ifndef SYMX_DEVICES_CUDA_OPTIMIZER_LAUNCH_H_
#define SYMX_DEVICES_CUDA_OPTIMIZER_LAUNCH_H_

#include <cuda_runtime.h>

#include <cstdint>

#include "devices/cuda/launch.h"
#include "devices/geometry/update_rules.h"

namespace symx {
namespace cuda {

// One update op over n elements, the rule as the CPU computes it
// (devices/geometry/update_rules.h). weight and grad (LAMB phase 2: the
// direction) are `t`; the states and master copy are `t` too, or float32 for
// the mixed-precision forms (master non-null), which compute in float32; the
// output is `t` (float32 for mp_lamb_update_phase1's direction). r1, r2: LAMB
// phase 2's one-element norms.
struct UpdateOperands {
  UpdateRule rule = UpdateRule::kSGD;
  int num_states = 0;
  const void* weight = nullptr;
  const void* grad = nullptr;
  void* states[3] = {nullptr, nullptr, nullptr};
  float* master = nullptr;
  void* out = nullptr;
  const void* r1 = nullptr;
  const void* r2 = nullptr;
  // preloaded_multi_*: this weight's rate and weight decay on the device
  // (they replace the scalars' lr and wd).
  const float* lr = nullptr;
  const float* wd = nullptr;
  bool out_float32 = false;
  bool nag_reads_new_weight = false;
  int64_t n = 0;
};
cudaError_t LaunchUpdate(Elem t, const UpdateOperands& u, const UpdateScalars<float>& f,
                         const UpdateScalars<double>& d, cudaStream_t s);

}  // namespace cuda
}  // namespace symx

#endif  // SYMX_DEVICES_CUDA_OPTIMIZER_LAUNCH_H_
