// BatchNorm on the GPU with MXNet's semantics (as devices/cpu/norm_kernels.cc
// states them): one block per channel of the (outer, channels, inner) view;
// two-pass statistics in the compute type (float for the half types).
#include "devices/cuda/block_reduce.cuh"
#include "devices/cuda/elem_types.cuh"
#include "devices/cuda/launch.h"

namespace symx {
namespace cuda {
namespace {

template <typename C>
__device__ __forceinline__ C InvStd(C var, double eps) {
  const C denom = var + static_cast<C>(eps);
  return denom > C(0) ? C(1) / sqrt(denom) : C(0);
}

template <typename T>
__global__ void BatchNormForwardKernel(const T* x, const T* gamma, const T* beta, T* moving_mean,
                                       T* moving_var, T* y, T* mean_out, T* var_out,
                                       BatchNormDims d, double eps, double momentum,
                                       bool fix_gamma, bool batch_stats) {
  using C = Acc<T>;
  const int64_t c = blockIdx.x;
  const int64_t count = d.outer * d.inner;
  const Reducer<C> sum{ReduceFn::kSum};
  auto at = [&](int64_t k) { return (k / d.inner) * d.channels * d.inner + c * d.inner + k % d.inner; };
  C m, s2;
  if (batch_stats) {
    C acc = C(0);
    for (int64_t k = threadIdx.x; k < count; k += blockDim.x) acc += Load(x, at(k));
    m = count > 0 ? BlockReduce(acc, sum) / static_cast<C>(count) : C(0);
    C sq = C(0);
    for (int64_t k = threadIdx.x; k < count; k += blockDim.x) {
      const C v = Load(x, at(k)) - m;
      sq += v * v;
    }
    s2 = count > 0 ? BlockReduce(sq, sum) / static_cast<C>(count) : C(0);
  } else {
    m = Load(moving_mean, c);
    s2 = Load(moving_var, c);
  }
  const C scale = (fix_gamma ? C(1) : Load(gamma, c)) * InvStd(s2, eps);
  const C shift = Load(beta, c) - m * scale;
  for (int64_t k = threadIdx.x; k < count; k += blockDim.x) {
    const int64_t i = at(k);
    Store(y, i, Load(x, i) * scale + shift);
  }
  // Every thread has read the moving statistics (before BlockReduce's last
  // barrier or above); they are written last.
  __syncthreads();
  if (threadIdx.x == 0) {
    Store(mean_out, c, m);
    Store(var_out, c, s2);
    if (batch_stats && count > 0) {
      const C mom = static_cast<C>(momentum);
      Store(moving_mean, c, Load(moving_mean, c) * mom + m * (C(1) - mom));
      Store(moving_var, c, Load(moving_var, c) * mom + s2 * (C(1) - mom));
    }
  }
}

template <typename T>
__global__ void BatchNormBackwardKernel(const T* dy, const T* x, const T* gamma, const T* mean,
                                        const T* var, T* dx, T* dgamma, T* dbeta,
                                        BatchNormDims d, double eps, bool fix_gamma,
                                        bool batch_stats) {
  using C = Acc<T>;
  const int64_t c = blockIdx.x;
  const int64_t count = d.outer * d.inner;
  const Reducer<C> sum{ReduceFn::kSum};
  auto at = [&](int64_t k) { return (k / d.inner) * d.channels * d.inner + c * d.inner + k % d.inner; };
  const C m = Load(mean, c);
  const C inv = InvStd(Load(var, c), eps);
  const C g = fix_gamma ? C(1) : Load(gamma, c);
  C a = C(0), b = C(0);
  for (int64_t k = threadIdx.x; k < count; k += blockDim.x) {
    const int64_t i = at(k);
    const C v = Load(dy, i);
    a += v;
    b += v * (Load(x, i) - m);
  }
  const C sum_dy = BlockReduce(a, sum);
  const C sum_dy_xc = BlockReduce(b, sum);
  if (threadIdx.x == 0) {
    if (dgamma != nullptr) Store(dgamma, c, fix_gamma ? C(0) : sum_dy_xc * inv);
    if (dbeta != nullptr) Store(dbeta, c, sum_dy);
  }
  if (dx == nullptr) return;
  const C gi = g * inv;
  if (batch_stats && count > 0) {
    const C mean_dy = sum_dy / static_cast<C>(count);
    const C k2 = inv * inv * sum_dy_xc / static_cast<C>(count);
    for (int64_t k = threadIdx.x; k < count; k += blockDim.x) {
      const int64_t i = at(k);
      Store(dx, i, (Load(dy, i) - mean_dy - (Load(x, i) - m) * k2) * gi);
    }
  } else {
    for (int64_t k = threadIdx.x; k < count; k += blockDim.x) {
      const int64_t i = at(k);
      Store(dx, i, Load(dy, i) * gi);
    }
  }
}

}  // namespace

cudaError_t LaunchBatchNormForward(Elem t, const void* x, const void* gamma, const void* beta,
                                   void* moving_mean, void* moving_var, void* y, void* mean,
                                   void* var, const BatchNormDims& d, double eps, double momentum,
                                   bool fix_gamma, bool batch_stats, cudaStream_t s) {
  if (d.channels == 0) return cudaSuccess;
  if (d.channels > 0x7fffffff) return cudaErrorInvalidValue;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    BatchNormForwardKernel<T><<<static_cast<unsigned>(d.channels), kThreads, 0, s>>>(
        static_cast<const T*>(x), static_cast<const T*>(gamma), static_cast<const T*>(beta),
        static_cast<T*>(moving_mean), static_cast<T*>(moving_var), static_cast<T*>(y),
        static_cast<T*>(mean), static_cast<T*>(var), d, eps, momentum, fix_gamma, batch_stats);
  });
  return LastLaunchError();
}

cudaError_t LaunchBatchNormBackward(Elem t, const void* dy, const void* x, const void* gamma,
                                    const void* mean, const void* var, void* dx, void* dgamma,
                                    void* dbeta, const BatchNormDims& d, double eps,
                                    bool fix_gamma, bool batch_stats, cudaStream_t s) {
  if (d.channels == 0) return cudaSuccess;
  if (d.channels > 0x7fffffff) return cudaErrorInvalidValue;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    BatchNormBackwardKernel<T><<<static_cast<unsigned>(d.channels), kThreads, 0, s>>>(
        static_cast<const T*>(dy), static_cast<const T*>(x), static_cast<const T*>(gamma),
        static_cast<const T*>(mean), static_cast<const T*>(var), static_cast<T*>(dx),
        static_cast<T*>(dgamma), static_cast<T*>(dbeta), d, eps, fix_gamma, batch_stats);
  });
  return LastLaunchError();
}

}  // namespace cuda
}  // namespace symx
