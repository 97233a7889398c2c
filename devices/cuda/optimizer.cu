// The optimizer family's CUDA kernels (launcher in devices/cuda/optimizer_launch.h):
// one grid-stride kernel applies the shared element rule
// (devices/geometry/update_rules.h), compiled without fused multiply-adds
// (exact_srcs) so the GPU's numbers are the CPU's.
#include "devices/cuda/elem_types.cuh"
#include "devices/cuda/optimizer_launch.h"

namespace symx {
namespace cuda {
namespace {

// T: the weight's storage; S: the states' (and LAMB phase 2's direction and
// norms in the mp_ form); O: the output's; C: the compute type.
template <typename T, typename S, typename O, typename C>
__global__ void UpdateKernel(UpdateOperands u, UpdateScalars<C> p) {
  const bool lamb2 = u.rule == UpdateRule::kLambPhase2;
  const bool mp = u.master != nullptr;
  if (u.lr != nullptr) p.lr = static_cast<C>(*u.lr);
  if (u.wd != nullptr) p.wd = static_cast<C>(*u.wd);
  if (lamb2) {
    const C r1 = static_cast<C>(mp ? Load(static_cast<const S*>(u.r1), 0)
                                   : Load(static_cast<const T*>(u.r1), 0));
    const C r2 = static_cast<C>(mp ? Load(static_cast<const S*>(u.r2), 0)
                                   : Load(static_cast<const T*>(u.r2), 0));
    p.lr = LambScale<C>(p, r1, r2);
  }
  const bool writes_master = mp && u.rule != UpdateRule::kLambPhase1;
  SYMX_GRID_STRIDE(i, u.n) {
    const C w =
        mp ? static_cast<C>(u.master[i]) : static_cast<C>(Load(static_cast<const T*>(u.weight), i));
    const C g = (lamb2 && mp) ? static_cast<C>(Load(static_cast<const S*>(u.grad), i))
                              : static_cast<C>(Load(static_cast<const T*>(u.grad), i));
    C st[3] = {C(0), C(0), C(0)};
    for (int k = 0; k < u.num_states; ++k) {
      st[k] = static_cast<C>(Load(static_cast<const S*>(u.states[k]), i));
    }
    const C r = ApplyUpdate<C>(u.rule, p, w, g, &st[0], &st[1], &st[2], u.nag_reads_new_weight);
    for (int k = 0; k < u.num_states; ++k) {
      Store(static_cast<S*>(u.states[k]), i, static_cast<Acc<S>>(st[k]));
    }
    if (writes_master) u.master[i] = static_cast<float>(r);
    Store(static_cast<O*>(u.out), i, static_cast<Acc<O>>(r));
  }
}

template <typename T, typename S, typename O, typename C>
cudaError_t Launch(const UpdateOperands& u, const UpdateScalars<C>& p, cudaStream_t s) {
  UpdateKernel<T, S, O, C><<<GridFor(u.n), kThreads, 0, s>>>(u, p);
  return LastLaunchError();
}

}  // namespace

cudaError_t LaunchUpdate(Elem t, const UpdateOperands& u, const UpdateScalars<float>& f,
                         const UpdateScalars<double>& d, cudaStream_t s) {
  if (u.n == 0) return cudaSuccess;
  const bool mp = u.master != nullptr;
  switch (t) {
    case Elem::kF32:
      return Launch<float, float, float, float>(u, f, s);
    case Elem::kF64:
      if (mp) {
        return u.out_float32 ? Launch<double, float, float, float>(u, f, s)
                             : Launch<double, float, double, float>(u, f, s);
      }
      return Launch<double, double, double, double>(u, d, s);
    case Elem::kF16:
      if (mp) {
        return u.out_float32 ? Launch<__half, float, float, float>(u, f, s)
                             : Launch<__half, float, __half, float>(u, f, s);
      }
      return Launch<__half, __half, __half, float>(u, f, s);
    default:
      return cudaErrorInvalidValue;
  }
}

}  // namespace cuda
}  // namespace symx
