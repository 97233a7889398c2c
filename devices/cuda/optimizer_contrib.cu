// The contributed optimizer family's CUDA kernels (launchers in
// devices/cuda/optimizer_contrib_launch.h), applying the element rules the
// CPU kernels share (devices/geometry/update_rules_contrib.h), compiled
// without fused multiply-adds (exact_srcs) so the updates' numbers are the
// CPU's.
#include <type_traits>

#include "devices/cuda/block_reduce.cuh"
#include "devices/cuda/elem_types.cuh"
#include "devices/cuda/optimizer_contrib_launch.h"

namespace symx {
namespace cuda {
namespace {

// One block: each thread sums a strided share, then the block adds them.
template <typename T>
__global__ void SumSqKernel(const T* x, int64_t n, float* sum) {
  float acc = 0.0f;
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
    const float v = static_cast<float>(Load(x, i));
    acc += v * v;
  }
  const float total = BlockReduce<float>(acc, Reducer<float>{ReduceFn::kSum});
  if (threadIdx.x == 0) *sum = total;
}

__global__ void SetFlagKernel(float* flag, float value) { *flag = value; }

// Every failing thread writes the same 0, so the race is benign.
template <typename T>
__global__ void ClearFlagKernel(const T* x, int64_t n, float* flag) {
  SYMX_GRID_STRIDE(i, n) {
    if (!isfinite(static_cast<float>(Load(x, i)))) *flag = 0.0f;
  }
}

__global__ void LarsKernel(const float* lrs, const float* wss, const float* gss, const float* wds,
                           float* out, int64_t n, float eta, float eps, float rescale_grad) {
  SYMX_GRID_STRIDE(i, n) {
    out[i] = LarsRate(lrs[i], wss[i], gss[i], wds[i], eta, eps, rescale_grad);
  }
}

template <typename R>
__device__ float RescaleOf(const void* p) {
  return static_cast<float>(Load(static_cast<const R*>(p), 0));
}

// T: the weight's storage; S: the states'; C: the compute type.
template <typename T, typename S, typename C>
__global__ void AdamWKernel(AdamWOperands u, AdamWScalars<C> p) {
  float rescale = 0.0f;
  switch (u.rescale_t) {
    case Elem::kF64:
      rescale = RescaleOf<double>(u.rescale);
      break;
    case Elem::kF16:
      rescale = RescaleOf<__half>(u.rescale);
      break;
    default:
      rescale = RescaleOf<float>(u.rescale);
  }
  if (!AdamWStepTaken(rescale)) {
    // Skipped (AMP overflow): an output that is not the weight gets it.
    if (u.out != u.weight) {
      SYMX_GRID_STRIDE(i, u.n) {
        Store(static_cast<T*>(u.out), i, Load(static_cast<const T*>(u.weight), i));
      }
    }
    return;
  }
  p.rescale = static_cast<C>(rescale);
  SYMX_GRID_STRIDE(i, u.n) {
    const C w = u.master != nullptr ? static_cast<C>(u.master[i])
                                    : static_cast<C>(Load(static_cast<const T*>(u.weight), i));
    C m = static_cast<C>(Load(static_cast<const S*>(u.mean), i));
    C v = static_cast<C>(Load(static_cast<const S*>(u.var), i));
    const C g = static_cast<C>(Load(static_cast<const T*>(u.grad), i));
    const C r = AdamWElement<C>(p, w, g, &m, &v, u.multi_form);
    Store(static_cast<S*>(u.mean), i, static_cast<Acc<S>>(m));
    Store(static_cast<S*>(u.var), i, static_cast<Acc<S>>(v));
    if (u.master != nullptr) u.master[i] = static_cast<float>(r);
    Store(static_cast<T*>(u.out), i, static_cast<Acc<T>>(r));
  }
}

template <typename T, typename S, typename C>
cudaError_t LaunchAdamWAs(const AdamWOperands& u, const AdamWScalars<C>& p, cudaStream_t s) {
  AdamWKernel<T, S, C><<<GridFor(u.n), kThreads, 0, s>>>(u, p);
  return LastLaunchError();
}

// As the CPU kernel: the row's mean square first, then its elements.
template <typename T, typename C>
__global__ void GroupAdagradKernel(GroupAdagradOperands u) {
  const T* w = static_cast<const T*>(u.weight);
  const T* g = static_cast<const T*>(u.grad);
  T* history = static_cast<T*>(u.history);
  T* out = static_cast<T*>(u.out);
  const C rescale = static_cast<C>(u.rescale_grad), clip = static_cast<C>(u.clip_gradient);
  const C lr = static_cast<C>(u.lr), eps = static_cast<C>(u.epsilon);
  SYMX_GRID_STRIDE(r, u.rows) {
    const int64_t base = r * u.cols;
    C ssq = C(0);
    for (int64_t j = 0; j < u.cols; ++j) {
      const C gj = GroupAdagradGrad<C>(static_cast<C>(Load(g, base + j)), rescale, clip);
      ssq += gj * gj;
    }
    const C h = static_cast<C>(Load(history, r)) + ssq / static_cast<C>(u.cols);
    Store(history, r, static_cast<Acc<T>>(h));
    const C denom = sqrt(h + eps);
    for (int64_t j = 0; j < u.cols; ++j) {
      const C gj = GroupAdagradGrad<C>(static_cast<C>(Load(g, base + j)), rescale, clip);
      Store(out, base + j,
            static_cast<Acc<T>>(static_cast<C>(Load(w, base + j)) - lr * gj / denom));
    }
  }
}

// T: the weight's storage; S: the states'; C: the compute type.
template <typename T, typename S, typename C>
__global__ void LambDirectionKernel(LambOperands u, LambScalars<C> p) {
  SYMX_GRID_STRIDE(i, u.n) {
    const C w = u.master != nullptr ? static_cast<C>(u.master[i])
                                    : static_cast<C>(Load(static_cast<const T*>(u.weight), i));
    C m = static_cast<C>(Load(static_cast<const S*>(u.mean), i));
    C v = static_cast<C>(Load(static_cast<const S*>(u.var), i));
    const C g = static_cast<C>(Load(static_cast<const T*>(u.grad), i));
    u.direction[i] = LambDirection<C>(p, w, g, &m, &v);
    Store(static_cast<S*>(u.mean), i, static_cast<Acc<S>>(m));
    Store(static_cast<S*>(u.var), i, static_cast<Acc<S>>(v));
  }
}

template <typename T, typename C>
__global__ void LambStepKernel(LambOperands u, const float* sums, float lr, float lower_bound,
                               float upper_bound) {
  const C rate = static_cast<C>(lr) *
                 static_cast<C>(LambTrustRatio(sums[0], sums[1], lower_bound, upper_bound));
  SYMX_GRID_STRIDE(i, u.n) {
    C w = u.master != nullptr ? static_cast<C>(u.master[i])
                              : static_cast<C>(Load(static_cast<const T*>(u.weight), i));
    w -= rate * static_cast<C>(u.direction[i]);
    if (u.master != nullptr) u.master[i] = static_cast<float>(w);
    Store(static_cast<T*>(u.out), i, static_cast<Acc<T>>(w));
  }
}

template <typename T, typename S, typename C>
cudaError_t LaunchLambDirectionAs(const LambOperands& u, const LambScalars<C>& p, cudaStream_t s) {
  LambDirectionKernel<T, S, C><<<GridFor(u.n), kThreads, 0, s>>>(u, p);
  return LastLaunchError();
}

template <typename T, typename C>
cudaError_t LaunchLambStepAs(const LambOperands& u, const float* sums, float lr, float lower,
                             float upper, cudaStream_t s) {
  LambStepKernel<T, C><<<GridFor(u.n), kThreads, 0, s>>>(u, sums, lr, lower, upper);
  return LastLaunchError();
}

}  // namespace

cudaError_t LaunchSumSq(Elem t, const void* x, int64_t n, float* sum, cudaStream_t s) {
  switch (t) {
    case Elem::kF32:
      SumSqKernel<float><<<1, kThreads, 0, s>>>(static_cast<const float*>(x), n, sum);
      break;
    case Elem::kF64:
      SumSqKernel<double><<<1, kThreads, 0, s>>>(static_cast<const double*>(x), n, sum);
      break;
    case Elem::kF16:
      SumSqKernel<__half><<<1, kThreads, 0, s>>>(static_cast<const __half*>(x), n, sum);
      break;
    default:
      return cudaErrorInvalidValue;
  }
  return LastLaunchError();
}

cudaError_t LaunchSetFlag(float* flag, float value, cudaStream_t s) {
  SetFlagKernel<<<1, 1, 0, s>>>(flag, value);
  return LastLaunchError();
}

cudaError_t LaunchClearFlagIfNotFinite(Elem t, const void* x, int64_t n, float* flag,
                                       cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  switch (t) {
    case Elem::kF32:
      ClearFlagKernel<float><<<GridFor(n), kThreads, 0, s>>>(static_cast<const float*>(x), n, flag);
      break;
    case Elem::kF64:
      ClearFlagKernel<double>
          <<<GridFor(n), kThreads, 0, s>>>(static_cast<const double*>(x), n, flag);
      break;
    case Elem::kF16:
      ClearFlagKernel<__half>
          <<<GridFor(n), kThreads, 0, s>>>(static_cast<const __half*>(x), n, flag);
      break;
    default:
      return cudaErrorInvalidValue;
  }
  return LastLaunchError();
}

cudaError_t LaunchLars(const float* lrs, const float* weights_sum_sq, const float* grads_sum_sq,
                       const float* wds, float* out, int64_t n, float eta, float eps,
                       float rescale_grad, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  LarsKernel<<<GridFor(n), kThreads, 0, s>>>(lrs, weights_sum_sq, grads_sum_sq, wds, out, n, eta,
                                             eps, rescale_grad);
  return LastLaunchError();
}

// The (weight, state, compute) types of an update in dtype `t`: float16
// computes in float; float64 in float with a float32 master copy (mp), else
// in double; `fn` gets them as a Types value and the matching scalars.
template <typename T, typename S, typename C>
struct Types {
  using Weight = T;
  using State = S;
  using Compute = C;
};

template <typename Fn>
cudaError_t ByUpdateTypes(Elem t, bool mp, Fn&& fn) {
  switch (t) {
    case Elem::kF32:
      return fn(Types<float, float, float>{});
    case Elem::kF64:
      return mp ? fn(Types<double, float, float>{}) : fn(Types<double, double, double>{});
    case Elem::kF16:
      return mp ? fn(Types<__half, float, float>{}) : fn(Types<__half, __half, float>{});
    default:
      return cudaErrorInvalidValue;
  }
}

template <typename C, typename F, typename D>
const auto& ScalarsFor(const F& f, const D& d) {
  if constexpr (std::is_same_v<C, double>) {
    return d;
  } else {
    return f;
  }
}

cudaError_t LaunchAdamW(Elem t, const AdamWOperands& u, const AdamWScalars<float>& f,
                        const AdamWScalars<double>& d, cudaStream_t s) {
  if (u.n == 0) return cudaSuccess;
  return ByUpdateTypes(t, u.master != nullptr, [&](auto types) {
    using Ty = decltype(types);
    using C = typename Ty::Compute;
    return LaunchAdamWAs<typename Ty::Weight, typename Ty::State, C>(u, ScalarsFor<C>(f, d), s);
  });
}

cudaError_t LaunchGroupAdagrad(Elem t, const GroupAdagradOperands& u, cudaStream_t s) {
  if (u.rows == 0 || u.cols == 0) return cudaSuccess;
  switch (t) {
    case Elem::kF32:
      GroupAdagradKernel<float, float><<<GridFor(u.rows), kThreads, 0, s>>>(u);
      break;
    case Elem::kF64:
      GroupAdagradKernel<double, double><<<GridFor(u.rows), kThreads, 0, s>>>(u);
      break;
    case Elem::kF16:
      GroupAdagradKernel<__half, float><<<GridFor(u.rows), kThreads, 0, s>>>(u);
      break;
    default:
      return cudaErrorInvalidValue;
  }
  return LastLaunchError();
}

cudaError_t LaunchLambDirection(Elem t, const LambOperands& u, const LambScalars<float>& f,
                                const LambScalars<double>& d, cudaStream_t s) {
  if (u.n == 0) return cudaSuccess;
  return ByUpdateTypes(t, u.master != nullptr, [&](auto types) {
    using Ty = decltype(types);
    using C = typename Ty::Compute;
    return LaunchLambDirectionAs<typename Ty::Weight, typename Ty::State, C>(
        u, ScalarsFor<C>(f, d), s);
  });
}

cudaError_t LaunchLambStep(Elem t, const LambOperands& u, const float* sums, float lr,
                           float lower_bound, float upper_bound, cudaStream_t s) {
  if (u.n == 0) return cudaSuccess;
  const bool mp = u.master != nullptr;
  switch (t) {
    case Elem::kF32:
      return LaunchLambStepAs<float, float>(u, sums, lr, lower_bound, upper_bound, s);
    case Elem::kF64:
      return mp ? LaunchLambStepAs<double, float>(u, sums, lr, lower_bound, upper_bound, s)
                : LaunchLambStepAs<double, double>(u, sums, lr, lower_bound, upper_bound, s);
    case Elem::kF16:
      return LaunchLambStepAs<__half, float>(u, sums, lr, lower_bound, upper_bound, s);
    default:
      return cudaErrorInvalidValue;
  }
}

}  // namespace cuda
}  // namespace symx
