// Dropout masks, Embedding, where and clip on the GPU.
#include "devices/cuda/elem_types.cuh"
#include "devices/cuda/launch.h"

namespace symx {
namespace cuda {
namespace {

constexpr uint64_t kGamma = 0x9e3779b97f4a7c15ull;

__device__ __forceinline__ uint64_t Mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

template <typename T>
__global__ void DropoutMaskKernel(uint64_t base, uint64_t threshold, Acc<T> scale, T* mask,
                                  int64_t n) {
  constexpr int64_t kChunk = int64_t{1} << 16;
  SYMX_GRID_STRIDE(i, n) {
    const int64_t c = i / kChunk;
    const int64_t k = (i - c * kChunk) / 2;  // the chunk generator's draw
    // The chunk's seed is its SplitMix64's first output; draw k is the
    // (k + 1)-th output of a SplitMix64 started at that seed.
    const uint64_t seed = Mix(base + static_cast<uint64_t>(c) * 0xd1b54a32d192ed03ull + kGamma);
    const uint64_t r = Mix(seed + static_cast<uint64_t>(k + 1) * kGamma);
    const uint64_t u = ((i - c * kChunk) % 2 == 0) ? (r >> 32) : (r & 0xffffffffull);
    Store(mask, i, u < threshold ? scale : Acc<T>(0));
  }
}

__device__ __forceinline__ int64_t EmbeddingRow(double v, int64_t rows) {
  if (!(v > 0)) return 0;
  if (v >= static_cast<double>(rows - 1)) return rows - 1;
  return static_cast<int64_t>(v);
}

template <typename I, typename T>
__global__ void EmbeddingKernel(const I* idx, const T* w, int64_t rows, int64_t dim, T* out,
                                int64_t total) {
  SYMX_GRID_STRIDE(j, total) {
    const int64_t i = j / dim;
    const int64_t r = EmbeddingRow(ToDouble(idx[i]), rows);
    out[j] = w[r * dim + j % dim];
  }
}

// Adds ograd rows into an accumulator of type A (float, or double for
// double): atomic adds, so the order of the sums is not fixed.
template <typename I, typename T, typename A>
__global__ void EmbeddingGradKernel(const I* idx, const T* g, int64_t rows, int64_t dim, A* acc,
                                    int64_t total) {
  SYMX_GRID_STRIDE(j, total) {
    const int64_t i = j / dim;
    const int64_t r = EmbeddingRow(ToDouble(idx[i]), rows);
    atomicAdd(acc + r * dim + j % dim, static_cast<A>(Load(g, j)));
  }
}

template <typename C, typename T>
__global__ void WhereKernel(const C* cond, const T* x, const T* y, int64_t row, T* out,
                            int64_t n) {
  SYMX_GRID_STRIDE(i, n) { out[i] = ToDouble(cond[i / row]) != 0.0 ? x[i] : y[i]; }
}

template <typename C, typename T>
__global__ void WhereGradKernel(const C* cond, const T* g, int64_t row, T* gx, T* gy, int64_t n) {
  SYMX_GRID_STRIDE(i, n) {
    const bool take = ToDouble(cond[i / row]) != 0.0;
    const Acc<T> v = Load(g, i);
    if (gx != nullptr) Store(gx, i, take ? v : Acc<T>(0));
    if (gy != nullptr) Store(gy, i, take ? Acc<T>(0) : v);
  }
}

template <typename T>
__global__ void ClipKernel(const T* x, Acc<T> lo, Acc<T> hi, T* y, int64_t n) {
  SYMX_GRID_STRIDE(i, n) {
    const Acc<T> v = Load(x, i);
    Store(y, i, v < lo ? lo : (v > hi ? hi : v));
  }
}

template <typename T>
__global__ void ClipGradKernel(const T* g, const T* x, Acc<T> lo, Acc<T> hi, T* dx, int64_t n) {
  SYMX_GRID_STRIDE(i, n) {
    const Acc<T> v = Load(x, i);
    Store(dx, i, (v < lo || v > hi) ? Acc<T>(0) : Load(g, i));
  }
}

template <typename T>
__global__ void LrnKernel(const T* x, LrnDims d, T* y, T* tmp, int64_t n) {
  const int64_t half = d.nsize / 2;
  const double a = d.alpha / static_cast<double>(d.nsize);
  SYMX_GRID_STRIDE(i, n) {
    const int64_t c = (i / d.spatial) % d.channels;
    const int64_t base = i - c * d.spatial;  // channel 0 of this (sample, position)
    double s = 0;
    const int64_t lo = c - half < 0 ? 0 : c - half;
    const int64_t hi = c + half > d.channels - 1 ? d.channels - 1 : c + half;
    for (int64_t k = lo; k <= hi; ++k) {
      const double v = ToDouble(x[base + k * d.spatial]);
      s += v * v;
    }
    const double t = d.knorm + a * s;
    tmp[i] = FromDouble<T>(t);
    y[i] = FromDouble<T>(ToDouble(x[i]) * pow(t, -d.beta));
  }
}

template <typename T>
__global__ void LrnGradKernel(const T* g, const T* x, const T* tmp, LrnDims d, T* gx, int64_t n) {
  const int64_t half = d.nsize / 2;
  const double k2 = 2.0 * d.beta * d.alpha / static_cast<double>(d.nsize);
  SYMX_GRID_STRIDE(j, n) {
    const int64_t c = (j / d.spatial) % d.channels;
    const int64_t base = j - c * d.spatial;
    double s = 0;
    const int64_t lo = c - half < 0 ? 0 : c - half;
    const int64_t hi = c + half > d.channels - 1 ? d.channels - 1 : c + half;
    for (int64_t i = lo; i <= hi; ++i) {
      const int64_t at = base + i * d.spatial;
      s += ToDouble(g[at]) * ToDouble(x[at]) * pow(ToDouble(tmp[at]), -d.beta - 1.0);
    }
    gx[j] = FromDouble<T>(ToDouble(g[j]) * pow(ToDouble(tmp[j]), -d.beta) - k2 * ToDouble(x[j]) * s);
  }
}

}  // namespace

cudaError_t LaunchDropoutMask(Elem t, uint64_t base, double keep, double scale, void* mask,
                              int64_t n, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  const uint64_t threshold = static_cast<uint64_t>(ldexp(keep, 32));
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    DropoutMaskKernel<T><<<GridFor(n), kThreads, 0, s>>>(base, threshold,
                                                         static_cast<Acc<T>>(scale),
                                                         static_cast<T*>(mask), n);
  });
  return LastLaunchError();
}

cudaError_t LaunchEmbedding(Elem idx_t, const void* idx, int64_t n, Elem t, const void* weight,
                            int64_t rows, int64_t dim, void* out, cudaStream_t s) {
  const int64_t total = n * dim;
  if (total == 0) return cudaSuccess;
  SYMX_CUDA_ALL_SWITCH(idx_t, I, {
    SYMX_CUDA_FLOAT_SWITCH(t, T, {
      EmbeddingKernel<I, T><<<GridFor(total), kThreads, 0, s>>>(
          static_cast<const I*>(idx), static_cast<const T*>(weight), rows, dim,
          static_cast<T*>(out), total);
    });
  });
  return LastLaunchError();
}

cudaError_t LaunchEmbeddingGrad(Elem idx_t, const void* idx, int64_t n, Elem t,
                                const void* ograd, int64_t rows, int64_t dim, void* grad_weight,
                                void* scratch, cudaStream_t s) {
  // float16/bfloat16 sums run in a float32 scratch, rounded once at the end.
  const bool half = t == Elem::kF16 || t == Elem::kBF16;
  if (half && scratch == nullptr) return cudaErrorInvalidValue;
  const Elem acc_t = half ? Elem::kF32 : t;
  void* acc = half ? scratch : grad_weight;
  const size_t elem = acc_t == Elem::kF64 ? 8 : 4;
  cudaError_t e = cudaMemsetAsync(acc, 0, static_cast<size_t>(rows * dim) * elem, s);
  if (e != cudaSuccess) return e;
  const int64_t total = n * dim;
  if (total > 0) {
    SYMX_CUDA_ALL_SWITCH(idx_t, I, {
      SYMX_CUDA_FLOAT_SWITCH(t, T, {
        using A = std::conditional_t<std::is_same_v<T, double>, double, float>;
        EmbeddingGradKernel<I, T, A><<<GridFor(total), kThreads, 0, s>>>(
            static_cast<const I*>(idx), static_cast<const T*>(ograd), rows, dim,
            static_cast<A*>(acc), total);
      });
    });
    e = LastLaunchError();
    if (e != cudaSuccess) return e;
  }
  if (half) return LaunchCast(Elem::kF32, scratch, t, grad_weight, rows * dim, s);
  return cudaSuccess;
}

cudaError_t LaunchWhere(Elem cond_t, const void* cond, Elem t, const void* x, const void* y,
                        int64_t row, void* out, int64_t n, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  SYMX_CUDA_ALL_SWITCH(cond_t, C, {
    SYMX_CUDA_FLOAT_SWITCH(t, T, {
      WhereKernel<C, T><<<GridFor(n), kThreads, 0, s>>>(
          static_cast<const C*>(cond), static_cast<const T*>(x), static_cast<const T*>(y), row,
          static_cast<T*>(out), n);
    });
  });
  return LastLaunchError();
}

cudaError_t LaunchWhereGrad(Elem cond_t, const void* cond, Elem t, const void* g, int64_t row,
                            void* gx, void* gy, int64_t n, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  SYMX_CUDA_ALL_SWITCH(cond_t, C, {
    SYMX_CUDA_FLOAT_SWITCH(t, T, {
      WhereGradKernel<C, T><<<GridFor(n), kThreads, 0, s>>>(
          static_cast<const C*>(cond), static_cast<const T*>(g), row, static_cast<T*>(gx),
          static_cast<T*>(gy), n);
    });
  });
  return LastLaunchError();
}

cudaError_t LaunchClip(Elem t, const void* x, double lo, double hi, void* y, int64_t n,
                       cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    ClipKernel<T><<<GridFor(n), kThreads, 0, s>>>(static_cast<const T*>(x),
                                                  static_cast<Acc<T>>(lo),
                                                  static_cast<Acc<T>>(hi), static_cast<T*>(y), n);
  });
  return LastLaunchError();
}

cudaError_t LaunchClipGrad(Elem t, const void* g, const void* x, double lo, double hi, void* dx,
                           int64_t n, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    ClipGradKernel<T><<<GridFor(n), kThreads, 0, s>>>(
        static_cast<const T*>(g), static_cast<const T*>(x), static_cast<Acc<T>>(lo),
        static_cast<Acc<T>>(hi), static_cast<T*>(dx), n);
  });
  return LastLaunchError();
}

cudaError_t LaunchLrn(Elem t, const void* x, const LrnDims& d, void* y, void* tmp,
                      cudaStream_t s) {
  const int64_t n = d.batch * d.channels * d.spatial;
  if (n == 0) return cudaSuccess;
  if (d.nsize < 1) return cudaErrorInvalidValue;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    LrnKernel<T><<<GridFor(n), kThreads, 0, s>>>(static_cast<const T*>(x), d, static_cast<T*>(y),
                                                 static_cast<T*>(tmp), n);
  });
  return LastLaunchError();
}

cudaError_t LaunchLrnGrad(Elem t, const void* g, const void* x, const void* tmp,
                          const LrnDims& d, void* gx, cudaStream_t s) {
  const int64_t n = d.batch * d.channels * d.spatial;
  if (n == 0) return cudaSuccess;
  if (d.nsize < 1) return cudaErrorInvalidValue;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    LrnGradKernel<T><<<GridFor(n), kThreads, 0, s>>>(static_cast<const T*>(g),
                                                     static_cast<const T*>(x),
                                                     static_cast<const T*>(tmp), d,
                                                     static_cast<T*>(gx), n);
  });
  return LastLaunchError();
}

}  // namespace cuda
}  // namespace symx
