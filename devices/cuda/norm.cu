// The norm family's CUDA kernels (launchers in devices/cuda/norm_launch.h).
//
// LayerNorm, GroupNorm, InstanceNorm and L2Normalization on the GPU: one block
// per column of the (outer, n, inner) view (launch.h states each variant).
// Statistics in two passes (mean, then squared deviations), in double as the
// CPU's group norms and L2Normalization are (the kernels are memory-bound, so
// it costs little); parameter gradients by a second kernel, one block per
// parameter, with a fixed summation order (deterministic).
//
// BatchNorm on the GPU with MXNet's semantics (as devices/cpu/norm_kernels.cc
// states them): one block per channel of the (outer, channels, inner) view;
// two-pass statistics in the compute type (float for the half types).
#include "devices/cuda/block_reduce.cuh"
#include "devices/cuda/elem_types.cuh"
#include "devices/cuda/norm_launch.h"
#include "devices/cuda/reduce_launch.h"

namespace symx {
namespace cuda {
namespace {

__device__ __forceinline__ int64_t ColumnBase(const ColumnNormDims& d, int64_t c) {
  return (c / d.inner) * d.n * d.inner + c % d.inner;
}

template <typename C>
__device__ __forceinline__ C SafeInv(C v) {
  return v > C(0) ? C(1) / v : C(0);
}

// 1 / std of column c from its second statistic: guarded for the group norms
// as their CPU kernels are, plain for LayerNorm as its CPU kernel is.
template <typename T>
__device__ __forceinline__ double InvStdOf(ColumnNormFn f, const T* stat2, int64_t c, double eps) {
  const double v = ToDouble(stat2[c]);
  if (f == ColumnNormFn::kGroupVar) return SafeInv(sqrt(v + eps));
  return f == ColumnNormFn::kLayer ? 1.0 / v : SafeInv(v);
}

template <typename T>
__global__ void ColumnNormForwardKernel(ColumnNormFn f, const T* x, const T* gamma, const T* beta,
                                        T* y, T* stat1, T* stat2, ColumnNormDims d, double eps) {
  using C = double;
  const Reducer<C> sum{ReduceFn::kSum};
  const C n = static_cast<C>(d.n);
  for (int64_t c = blockIdx.x; c < d.columns; c += gridDim.x) {
    const int64_t base = ColumnBase(d, c);
    C m = C(0);
    if (f != ColumnNormFn::kL2) {
      C acc = C(0);
      for (int64_t k = threadIdx.x; k < d.n; k += blockDim.x) acc += Load(x, base + k * d.inner);
      const C total = BlockReduce(acc, sum);
      m = d.n > 0 ? total / n : C(0);
    }
    C sq = C(0);
    for (int64_t k = threadIdx.x; k < d.n; k += blockDim.x) {
      const C v = Load(x, base + k * d.inner) - m;
      sq += v * v;
    }
    const C total_sq = BlockReduce(sq, sum);
    if (f == ColumnNormFn::kL2) {
      const C norm = sqrt(total_sq + static_cast<C>(eps));
      for (int64_t k = threadIdx.x; k < d.n; k += blockDim.x) {
        const int64_t i = base + k * d.inner;
        Store(y, i, static_cast<Acc<T>>(Load(x, i) / norm));
      }
      if (threadIdx.x == 0) Store(stat1, c, static_cast<Acc<T>>(norm));
      continue;
    }
    const C var = d.n > 0 ? total_sq / n : C(0);
    const C sd = sqrt(var + static_cast<C>(eps));
    const bool layer = f == ColumnNormFn::kLayer;
    const int64_t group = c % d.groups;
    for (int64_t k = threadIdx.x; k < d.n; k += blockDim.x) {
      const int64_t i = base + k * d.inner;
      const int64_t p = layer ? k : group;
      Store(y, i, static_cast<Acc<T>>((Load(x, i) - m) / sd * Load(gamma, p) + Load(beta, p)));
    }
    if (threadIdx.x == 0) {
      Store(stat1, c, static_cast<Acc<T>>(m));
      Store(stat2, c, static_cast<Acc<T>>(f == ColumnNormFn::kGroupVar ? var : sd));
    }
  }
}

// The data gradient, per column.
template <typename T>
__global__ void ColumnNormDataGradKernel(ColumnNormFn f, const T* dy, const T* x, const T* gamma,
                                         const T* stat1, const T* stat2, T* dx, ColumnNormDims d,
                                         double eps) {
  using C = double;
  const Reducer<C> sum{ReduceFn::kSum};
  const C n = static_cast<C>(d.n);
  for (int64_t c = blockIdx.x; c < d.columns; c += gridDim.x) {
    const int64_t base = ColumnBase(d, c);
    if (f == ColumnNormFn::kL2) {
      // gx = (g - y * sum(g * y)) / norm, x being the output y here.
      C acc = C(0);
      for (int64_t k = threadIdx.x; k < d.n; k += blockDim.x) {
        const int64_t i = base + k * d.inner;
        acc += Load(dy, i) * Load(x, i);
      }
      const C s = BlockReduce(acc, sum);
      const C inv = C(1) / Load(stat1, c);
      for (int64_t k = threadIdx.x; k < d.n; k += blockDim.x) {
        const int64_t i = base + k * d.inner;
        Store(dx, i, static_cast<Acc<T>>((Load(dy, i) - Load(x, i) * s) * inv));
      }
      continue;
    }
    const bool layer = f == ColumnNormFn::kLayer;
    const C m = Load(stat1, c);
    const C inv = InvStdOf(f, stat2, c, eps);
    const C gm = layer ? C(1) : Load(gamma, c % d.groups);
    // g = dy * gamma (per position for LayerNorm): a = sum g, b = sum g * xhat.
    C a = C(0), b = C(0);
    for (int64_t k = threadIdx.x; k < d.n; k += blockDim.x) {
      const int64_t i = base + k * d.inner;
      const C g = Load(dy, i) * (layer ? Load(gamma, k) : C(1));
      a += g;
      b += g * (Load(x, i) - m) * inv;
    }
    const C sa = BlockReduce(a, sum);
    const C sb = BlockReduce(b, sum);
    const C mean_g = d.n > 0 ? sa / n : C(0);
    const C mean_gx = d.n > 0 ? sb / n : C(0);
    for (int64_t k = threadIdx.x; k < d.n; k += blockDim.x) {
      const int64_t i = base + k * d.inner;
      const C g = Load(dy, i) * (layer ? Load(gamma, k) : C(1));
      const C xh = (Load(x, i) - m) * inv;
      Store(dx, i, static_cast<Acc<T>>(gm * inv * (g - mean_g - xh * mean_gx)));
    }
  }
}

// gamma/beta gradients: one block per parameter p, summing dy * xhat and dy
// over every element p scales (LayerNorm: position p of every column;
// Group/InstanceNorm: every element of the columns of group p).
template <typename T>
__global__ void ColumnNormParamGradKernel(ColumnNormFn f, const T* dy, const T* x, const T* stat1,
                                          const T* stat2, T* dgamma, T* dbeta, ColumnNormDims d,
                                          int64_t params, double eps) {
  using C = double;
  const Reducer<C> sum{ReduceFn::kSum};
  const bool layer = f == ColumnNormFn::kLayer;
  const int64_t count = layer ? d.columns : (d.columns / d.groups) * d.n;
  for (int64_t p = blockIdx.x; p < params; p += gridDim.x) {
    C sg = C(0), sb = C(0);
    for (int64_t j = threadIdx.x; j < count; j += blockDim.x) {
      const int64_t c = layer ? j : (j / d.n) * d.groups + p;
      const int64_t k = layer ? p : j % d.n;
      const int64_t i = ColumnBase(d, c) + k * d.inner;
      const C g = Load(dy, i);
      sg += g * (Load(x, i) - Load(stat1, c)) * InvStdOf(f, stat2, c, eps);
      sb += g;
    }
    const C tg = BlockReduce(sg, sum);
    const C tb = BlockReduce(sb, sum);
    if (threadIdx.x == 0) {
      if (dgamma != nullptr) Store(dgamma, p, static_cast<Acc<T>>(tg));
      if (dbeta != nullptr) Store(dbeta, p, static_cast<Acc<T>>(tb));
    }
  }
}

unsigned BlocksFor(int64_t units) {
  const int64_t cap = 65535 * 8;
  return static_cast<unsigned>(units < 1 ? 1 : (units > cap ? cap : units));
}

template <typename C>
__device__ __forceinline__ C InvStd(C var, double eps) {
  const C denom = var + static_cast<C>(eps);
  return denom > C(0) ? C(1) / sqrt(denom) : C(0);
}

template <typename T>
__global__ void BatchNormForwardKernel(const T* x, const T* gamma, const T* beta, T* moving_mean,
                                       T* moving_var, T* y, T* mean_out, T* var_out,
                                       BatchNormDims d, double eps, double momentum, bool fix_gamma,
                                       bool batch_stats) {
  using C = Acc<T>;
  const int64_t c = blockIdx.x;
  const int64_t count = d.outer * d.inner;
  const Reducer<C> sum{ReduceFn::kSum};
  auto at = [&](int64_t k) {
    return (k / d.inner) * d.channels * d.inner + c * d.inner + k % d.inner;
  };
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
                                        const T* var, T* dx, T* dgamma, T* dbeta, BatchNormDims d,
                                        double eps, bool fix_gamma, bool batch_stats) {
  using C = Acc<T>;
  const int64_t c = blockIdx.x;
  const int64_t count = d.outer * d.inner;
  const Reducer<C> sum{ReduceFn::kSum};
  auto at = [&](int64_t k) {
    return (k / d.inner) * d.channels * d.inner + c * d.inner + k % d.inner;
  };
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

cudaError_t LaunchColumnNormForward(ColumnNormFn f, Elem t, const void* x, const void* gamma,
                                    const void* beta, void* y, void* stat1, void* stat2,
                                    const ColumnNormDims& d, double eps, cudaStream_t s) {
  if (d.columns == 0) return cudaSuccess;
  if (d.groups < 1) return cudaErrorInvalidValue;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    ColumnNormForwardKernel<T><<<BlocksFor(d.columns), kThreads, 0, s>>>(
        f, static_cast<const T*>(x), static_cast<const T*>(gamma), static_cast<const T*>(beta),
        static_cast<T*>(y), static_cast<T*>(stat1), static_cast<T*>(stat2), d, eps);
  });
  return LastLaunchError();
}

cudaError_t LaunchColumnNormBackward(ColumnNormFn f, Elem t, const void* dy, const void* x,
                                     const void* gamma, const void* stat1, const void* stat2,
                                     void* dx, void* dgamma, void* dbeta, const ColumnNormDims& d,
                                     double eps, cudaStream_t s) {
  if (d.groups < 1) return cudaErrorInvalidValue;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    if (dx != nullptr && d.columns > 0) {
      ColumnNormDataGradKernel<T><<<BlocksFor(d.columns), kThreads, 0, s>>>(
          f, static_cast<const T*>(dy), static_cast<const T*>(x), static_cast<const T*>(gamma),
          static_cast<const T*>(stat1), static_cast<const T*>(stat2), static_cast<T*>(dx), d, eps);
    }
    const int64_t params = f == ColumnNormFn::kLayer ? d.n : d.groups;
    if (f != ColumnNormFn::kL2 && (dgamma != nullptr || dbeta != nullptr) && params > 0) {
      ColumnNormParamGradKernel<T><<<BlocksFor(params), kThreads, 0, s>>>(
          f, static_cast<const T*>(dy), static_cast<const T*>(x), static_cast<const T*>(stat1),
          static_cast<const T*>(stat2), static_cast<T*>(dgamma), static_cast<T*>(dbeta), d, params,
          eps);
    }
  });
  return LastLaunchError();
}

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
                                    void* dbeta, const BatchNormDims& d, double eps, bool fix_gamma,
                                    bool batch_stats, cudaStream_t s) {
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

// ---------------------------------------------------------------- SyncBatchNorm sums

namespace {

template <typename T>
__global__ void ChannelSumsKernel(const T* x, const T* dy, const double* center, BatchNormDims d,
                                  double* sums) {
  const int64_t c = blockIdx.x;
  const int64_t n = d.outer * d.inner;
  double a = 0, b = 0;
  for (int64_t k = threadIdx.x; k < n; k += blockDim.x) {
    const int64_t at = ((k / d.inner) * d.channels + c) * d.inner + k % d.inner;
    const double xv = ToDouble(x[at]);
    if (dy == nullptr) {
      const double dev = center == nullptr ? xv : xv - center[c];
      a += center == nullptr ? dev : dev * dev;
    } else {
      const double g = ToDouble(dy[at]);
      a += g;
      b += g * (xv - center[c]);
    }
  }
  a = BlockReduce(a, Reducer<double>{ReduceFn::kSum});
  if (dy != nullptr) b = BlockReduce(b, Reducer<double>{ReduceFn::kSum});
  if (threadIdx.x == 0) {
    sums[c] = a;
    if (dy != nullptr) sums[d.channels + c] = b;
  }
}

template <typename T>
__global__ void ChannelCombineKernel(const T* u, const T* v, const double* coef, BatchNormDims d,
                                     T* out, int64_t total) {
  SYMX_GRID_STRIDE(at, total) {
    const int64_t c = (at / d.inner) % d.channels;
    double r = coef[c] * ToDouble(u[at]) + coef[2 * d.channels + c];
    if (v != nullptr) r += coef[d.channels + c] * ToDouble(v[at]);
    out[at] = FromDouble<T>(r);
  }
}

}  // namespace

cudaError_t LaunchChannelSums(Elem t, const void* x, const void* dy, const double* center,
                              const BatchNormDims& d, double* sums, cudaStream_t s) {
  if (d.channels == 0) return cudaSuccess;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    ChannelSumsKernel<T><<<static_cast<unsigned>(d.channels), kThreads, 0, s>>>(
        static_cast<const T*>(x), static_cast<const T*>(dy), center, d, sums);
  });
  return LastLaunchError();
}

cudaError_t LaunchChannelCombine(Elem t, const void* u, const void* v, const double* coef,
                                 const BatchNormDims& d, void* out, cudaStream_t s) {
  const int64_t total = d.outer * d.channels * d.inner;
  if (total == 0) return cudaSuccess;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    ChannelCombineKernel<T><<<GridFor(total), kThreads, 0, s>>>(
        static_cast<const T*>(u), static_cast<const T*>(v), coef, d, static_cast<T*>(out), total);
  });
  return LastLaunchError();
}

}  // namespace cuda
}  // namespace symx
