// Reductions over the middle axis of an (outer, len, inner) view, column sums
// (bias gradients) and softmax. Rows along the last axis (inner == 1) get one
// block each, reduced in shared memory; otherwise each thread owns one
// (outer, inner) position, so neighbouring threads read neighbouring memory.
#include <cfloat>

#include "devices/cuda/block_reduce.cuh"
#include "devices/cuda/elem_types.cuh"
#include "devices/cuda/launch.h"
#include "devices/stable_math.h"

namespace symx {
namespace cuda {
namespace {

template <typename T>
__global__ void ReduceRowsKernel(Reducer<Acc<T>> r, const T* x, int64_t len, Acc<T> scale,
                                 bool accumulate, T* y) {
  using C = Acc<T>;
  const T* row = x + static_cast<int64_t>(blockIdx.x) * len;
  C v = r.Init();
  for (int64_t l = threadIdx.x; l < len; l += blockDim.x) v = r.Apply(v, Load(row, l));
  v = BlockReduce(v, r);
  if (threadIdx.x == 0) {
    C out = r.f == ReduceFn::kSum ? v * scale : v;
    if (accumulate) out += Load(y, blockIdx.x);
    Store(y, blockIdx.x, out);
  }
}

template <typename T>
__global__ void ReduceStridedKernel(Reducer<Acc<T>> r, const T* x, int64_t outer, int64_t len,
                                    int64_t inner, Acc<T> scale, bool accumulate, T* y) {
  using C = Acc<T>;
  SYMX_GRID_STRIDE(p, outer * inner) {
    const int64_t o = p / inner, i = p % inner;
    const T* base = x + o * len * inner + i;
    C v = r.Init();
    for (int64_t l = 0; l < len; ++l) v = r.Apply(v, Load(base, l * inner));
    C out = r.f == ReduceFn::kSum ? v * scale : v;
    if (accumulate) out += Load(y, p);
    Store(y, p, out);
  }
}

template <typename T>
cudaError_t Reduce(ReduceFn f, const T* x, int64_t outer, int64_t len, int64_t inner,
                   double scale, bool accumulate, T* y, cudaStream_t s) {
  const int64_t outputs = outer * inner;
  if (outputs == 0) return cudaSuccess;
  Reducer<Acc<T>> r{f};
  if (inner == 1 && outer <= 0x7fffffff) {
    ReduceRowsKernel<T><<<static_cast<unsigned>(outer), kThreads, 0, s>>>(
        r, x, len, static_cast<Acc<T>>(scale), accumulate, y);
  } else {
    ReduceStridedKernel<T><<<GridFor(outputs), kThreads, 0, s>>>(
        r, x, outer, len, inner, static_cast<Acc<T>>(scale), accumulate, y);
  }
  return LastLaunchError();
}

// Softmax along a row (inner == 1): one block per row.
template <typename T>
__global__ void SoftmaxRowsKernel(const T* x, int64_t len, Acc<T> inv_temp, bool log, T* y) {
  using C = Acc<T>;
  const int64_t off = static_cast<int64_t>(blockIdx.x) * len;
  Reducer<C> max_r{ReduceFn::kMax}, sum_r{ReduceFn::kSum};
  C m = max_r.Init();
  for (int64_t l = threadIdx.x; l < len; l += blockDim.x) m = max_r.Apply(m, Load(x + off, l) * inv_temp);
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

template <typename T>
__global__ void ArgExtremeKernel(const T* x, int64_t outer, int64_t len, int64_t inner, bool max,
                                 T* y) {
  using C = Acc<T>;
  SYMX_GRID_STRIDE(p, outer * inner) {
    const int64_t o = p / inner, i = p % inner;
    const T* line = x + o * len * inner + i;
    int64_t best = 0;
    C bv = Load(line, 0);
    for (int64_t j = 1; j < len && bv == bv; ++j) {
      const C v = Load(line, j * inner);
      if (v != v || (max ? v > bv : v < bv)) {
        bv = v;
        best = j;
      }
    }
    Store(y, p, static_cast<C>(best));
  }
}

template <typename O>
constexpr bool kHalfType = std::is_same_v<O, __half> || std::is_same_v<O, __nv_bfloat16>;

template <typename I, typename O>
__global__ void CumsumKernel(const I* x, O* y, int64_t n, int64_t inner, int64_t columns) {
  SYMX_GRID_STRIDE(c, columns) {
    const int64_t base = (c / inner) * n * inner + c % inner;
    if constexpr (kHalfType<O> || kHalfType<I>) {
      double acc = 0;
      for (int64_t j = 0; j < n; ++j) {
        const int64_t at = base + j * inner;
        const O v = CastValueOnDevice<O>(ToDouble(x[at]));
        const O sum = CastValueOnDevice<O>(acc + ToDouble(v));
        y[at] = sum;
        acc = ToDouble(sum);
      }
    } else {
      O acc = O(0);
      for (int64_t j = 0; j < n; ++j) {
        const int64_t at = base + j * inner;
        acc = static_cast<O>(acc + static_cast<O>(x[at]));
        y[at] = acc;
      }
    }
  }
}

template <typename O, typename G>
__global__ void CumsumGradKernel(const O* g, G* gx, int64_t n, int64_t inner, int64_t columns) {
  SYMX_GRID_STRIDE(c, columns) {
    const int64_t base = (c / inner) * n * inner + c % inner;
    double acc = 0;
    for (int64_t j = n - 1; j >= 0; --j) {
      const int64_t at = base + j * inner;
      acc += ToDouble(g[at]);
      gx[at] = FromDouble<G>(acc);
    }
  }
}

}  // namespace

cudaError_t LaunchArgExtreme(Elem t, const void* x, int64_t outer, int64_t len, int64_t inner,
                             bool max, void* y, cudaStream_t s) {
  if (outer * inner == 0) return cudaSuccess;
  if (len == 0) return cudaErrorInvalidValue;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    ArgExtremeKernel<T><<<GridFor(outer * inner), kThreads, 0, s>>>(
        static_cast<const T*>(x), outer, len, inner, max, static_cast<T*>(y));
  });
  return LastLaunchError();
}

cudaError_t LaunchReduce(ReduceFn f, Elem t, const void* x, int64_t outer, int64_t len,
                         int64_t inner, double scale, void* y, cudaStream_t s) {
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    return Reduce<T>(f, static_cast<const T*>(x), outer, len, inner, scale, false,
                     static_cast<T*>(y), s);
  });
  return cudaSuccess;
}

cudaError_t LaunchColumnSums(Elem t, const void* in, int64_t rows, int64_t cols, double scale,
                             bool accumulate, void* out, cudaStream_t s) {
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    return Reduce<T>(ReduceFn::kSum, static_cast<const T*>(in), 1, rows, cols, scale, accumulate,
                     static_cast<T*>(out), s);
  });
  return cudaSuccess;
}

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

cudaError_t LaunchCumsum(Elem in_t, const void* x, Elem out_t, void* y, int64_t outer, int64_t n,
                         int64_t inner, cudaStream_t s) {
  const int64_t columns = outer * inner;
  if (columns == 0 || n == 0) return cudaSuccess;
  if (out_t == Elem::kBool) return cudaErrorInvalidValue;
  SYMX_CUDA_ALL_SWITCH(out_t, O, {
    SYMX_CUDA_ALL_SWITCH(in_t, I, {
      CumsumKernel<I, O><<<GridFor(columns), kThreads, 0, s>>>(
          static_cast<const I*>(x), static_cast<O*>(y), n, inner, columns);
    });
  });
  return LastLaunchError();
}

cudaError_t LaunchCumsumGrad(Elem og_t, const void* g, Elem grad_t, void* gx, int64_t outer,
                             int64_t n, int64_t inner, cudaStream_t s) {
  const int64_t columns = outer * inner;
  if (columns == 0 || n == 0) return cudaSuccess;
  SYMX_CUDA_FLOAT_SWITCH(og_t, O, {
    SYMX_CUDA_FLOAT_SWITCH(grad_t, G, {
      CumsumGradKernel<O, G><<<GridFor(columns), kThreads, 0, s>>>(
          static_cast<const O*>(g), static_cast<G*>(gx), n, inner, columns);
    });
  });
  return LastLaunchError();
}

}  // namespace cuda
}  // namespace symx
