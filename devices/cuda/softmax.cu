// The softmax family's CUDA kernels (launchers in devices/cuda/softmax_launch.h).
//
// Reductions over the middle axis of an (outer, len, inner) view, column sums
// (bias gradients) and softmax. Rows along the last axis (inner == 1) get one
// block each, reduced in shared memory; otherwise each thread owns one
// (outer, inner) position, so neighbouring threads read neighbouring memory.
#include <cfloat>

#include "devices/cuda/block_reduce.cuh"
#include "devices/cuda/elem_types.cuh"
#include "devices/cuda/reduce_launch.h"
#include "devices/cuda/softmax_launch.h"
#include "devices/stable_math.h"

namespace symx {
namespace cuda {
namespace {

// Softmax along a row (inner == 1): one block per row.
template <typename T>
__global__ void SoftmaxRowsKernel(const T* x, int64_t len, Acc<T> inv_temp, bool log, T* y) {
  using C = Acc<T>;
  const int64_t off = static_cast<int64_t>(blockIdx.x) * len;
  Reducer<C> max_r{ReduceFn::kMax}, sum_r{ReduceFn::kSum};
  C m = max_r.Init();
  for (int64_t l = threadIdx.x; l < len; l += blockDim.x)
    m = max_r.Apply(m, Load(x + off, l) * inv_temp);
  m = BlockReduce(m, max_r);
  // The maxima counted apart from the others' exps (stable_math.h).
  C others = C(0), at_max = C(0);
  for (int64_t l = threadIdx.x; l < len; l += blockDim.x) {
    SoftmaxExpTerm(Load(x + off, l) * inv_temp - m, &others, &at_max);
  }
  others = BlockReduce(others, sum_r);
  at_max = BlockReduce(at_max, sum_r);
  const C sum = at_max + others;
  const C log_sum = LogSumOfExps(at_max, others);
  for (int64_t l = threadIdx.x; l < len; l += blockDim.x) {
    const C z = Load(x + off, l) * inv_temp - m;
    Store(y + off, l, log ? z - log_sum : exp(z) / sum);
  }
}

template <typename T>
__global__ void SoftmaxStridedKernel(const T* x, int64_t outer, int64_t len, int64_t inner,
                                     Acc<T> inv_temp, bool log, T* y) {
  using C = Acc<T>;
  SYMX_GRID_STRIDE(p, outer * inner) {
    const int64_t o = p / inner, i = p % inner;
    const int64_t base = o * len * inner + i;
    Reducer<C> max_r{ReduceFn::kMax};
    C m = max_r.Init();
    for (int64_t l = 0; l < len; ++l) m = max_r.Apply(m, Load(x, base + l * inner) * inv_temp);
    C others = C(0), at_max = C(0);
    for (int64_t l = 0; l < len; ++l) {
      SoftmaxExpTerm(Load(x, base + l * inner) * inv_temp - m, &others, &at_max);
    }
    const C sum = at_max + others;
    const C log_sum = LogSumOfExps(at_max, others);
    for (int64_t l = 0; l < len; ++l) {
      const C z = Load(x, base + l * inner) * inv_temp - m;
      Store(y, base + l * inner, log ? z - log_sum : exp(z) / sum);
    }
  }
}

template <typename T>
__global__ void SoftmaxGradStridedKernel(const T* g, const T* y, int64_t outer, int64_t len,
                                         int64_t inner, Acc<T> inv_temp, bool log, T* dx) {
  using C = Acc<T>;
  SYMX_GRID_STRIDE(p, outer * inner) {
    const int64_t o = p / inner, i = p % inner;
    const int64_t base = o * len * inner + i;
    C dot = C(0);
    for (int64_t l = 0; l < len; ++l) {
      const int64_t k = base + l * inner;
      dot += log ? Load(g, k) : Load(g, k) * Load(y, k);
    }
    for (int64_t l = 0; l < len; ++l) {
      const int64_t k = base + l * inner;
      const C v = log ? Load(g, k) - exp(Load(y, k)) * dot : (Load(g, k) - dot) * Load(y, k);
      Store(dx, k, v * inv_temp);
    }
  }
}

template <typename T>
__global__ void SoftmaxGradRowsKernel(const T* g, const T* y, int64_t len, Acc<T> inv_temp,
                                      bool log, T* dx) {
  using C = Acc<T>;
  const int64_t off = static_cast<int64_t>(blockIdx.x) * len;
  C dot = C(0);
  for (int64_t l = threadIdx.x; l < len; l += blockDim.x) {
    dot += log ? Load(g + off, l) : Load(g + off, l) * Load(y + off, l);
  }
  dot = BlockReduce(dot, Reducer<C>{ReduceFn::kSum});
  for (int64_t l = threadIdx.x; l < len; l += blockDim.x) {
    const C gv = Load(g + off, l), yv = Load(y + off, l);
    const C v = log ? gv - exp(yv) * dot : (gv - dot) * yv;
    Store(dx + off, l, v * inv_temp);
  }
}

}  // namespace

cudaError_t LaunchSoftmax(Elem t, const void* x, int64_t outer, int64_t len, int64_t inner,
                          double temperature, bool log, void* y, cudaStream_t s) {
  if (outer * inner == 0 || len == 0) return cudaSuccess;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    const Acc<T> inv_temp = static_cast<Acc<T>>(1.0 / temperature);
    if (inner == 1 && outer <= 0x7fffffff) {
      SoftmaxRowsKernel<T><<<static_cast<unsigned>(outer), kThreads, 0, s>>>(
          static_cast<const T*>(x), len, inv_temp, log, static_cast<T*>(y));
    } else {
      SoftmaxStridedKernel<T><<<GridFor(outer * inner), kThreads, 0, s>>>(
          static_cast<const T*>(x), outer, len, inner, inv_temp, log, static_cast<T*>(y));
    }
  });
  return LastLaunchError();
}

cudaError_t LaunchSoftmaxGrad(Elem t, const void* g, const void* y, int64_t outer, int64_t len,
                              int64_t inner, double temperature, bool log, void* dx,
                              cudaStream_t s) {
  if (outer * inner == 0 || len == 0) return cudaSuccess;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    const Acc<T> inv_temp = static_cast<Acc<T>>(1.0 / temperature);
    if (inner == 1 && outer <= 0x7fffffff) {
      SoftmaxGradRowsKernel<T><<<static_cast<unsigned>(outer), kThreads, 0, s>>>(
          static_cast<const T*>(g), static_cast<const T*>(y), len, inv_temp, log,
          static_cast<T*>(dx));
    } else {
      SoftmaxGradStridedKernel<T><<<GridFor(outer * inner), kThreads, 0, s>>>(
          static_cast<const T*>(g), static_cast<const T*>(y), outer, len, inner, inv_temp, log,
          static_cast<T*>(dx));
    }
  });
  return LastLaunchError();
}

}  // namespace cuda
}  // namespace symx
