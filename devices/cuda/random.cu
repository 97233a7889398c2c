// The random family's CUDA kernels (launchers in devices/cuda/random_launch.h):
// one thread per output element, each drawing from the element's own Philox
// stream (devices/geometry/random_draws.h), as the CPU kernels do.
#include <type_traits>

#include "devices/cuda/elem_types.cuh"
#include "devices/cuda/random_launch.h"
#include "devices/geometry/random_draws.h"

namespace symx {
namespace cuda {
namespace {

template <typename T>
__global__ void DrawKernel(uint64_t key, RandomDraw dist, const double* pa, const double* pb,
                           double a, double b, int64_t block, T* out, int64_t n) {
  SYMX_GRID_STRIDE(i, n) {
    const int64_t j = i / block;
    RandomStream s(key, static_cast<uint64_t>(i));
    const double v = DrawSample(dist, pa != nullptr ? pa[j] : a, pb != nullptr ? pb[j] : b, &s);
    Store(out, i, static_cast<Acc<T>>(v));
  }
}

template <typename T>
__global__ void RandIntKernel(uint64_t key, int64_t low, uint64_t range, T* out, int64_t n) {
  SYMX_GRID_STRIDE(i, n) {
    RandomStream s(key, static_cast<uint64_t>(i));
    out[i] = static_cast<T>(static_cast<uint64_t>(low) + DrawBelow(range, &s));
  }
}

__global__ void PermutationKernel(uint64_t key, int64_t* perm, int64_t n) {
  if (blockIdx.x == 0 && threadIdx.x == 0) ShufflePermutation(key, perm, n);
}

template <typename U>
__global__ void GatherRowsKernel(const int64_t* perm, int64_t row_elems, const U* in, U* out,
                                 int64_t n) {
  SYMX_GRID_STRIDE(i, n) {
    const int64_t r = i / row_elems;
    out[i] = in[perm[r] * row_elems + (i - r * row_elems)];
  }
}

template <typename P>
struct LoadAsDouble {
  __device__ double operator()(P v) const { return static_cast<double>(Acc<P>(v)); }
};

template <typename S>
__device__ __forceinline__ void StoreIndex(S* p, int64_t i, int64_t c) {
  if constexpr (std::is_integral_v<S>) {
    p[i] = static_cast<S>(c);
  } else {
    Store(p, i, static_cast<Acc<S>>(c));
  }
}

template <typename S>
__device__ __forceinline__ int64_t LoadIndex(const S* p, int64_t i) {
  if constexpr (std::is_integral_v<S>) {
    return static_cast<int64_t>(p[i]);
  } else {
    return static_cast<int64_t>(Load(p, i));
  }
}

template <typename P, typename S>
__global__ void MultinomialKernel(uint64_t key, const P* prob, int64_t k, int64_t m, S* sample,
                                  P* log_prob, int64_t n) {
  SYMX_GRID_STRIDE(d, n) {
    const int64_t i = d / m;
    const P* p = prob + i * k;
    double total = 0;
    for (int64_t c = 0; c < k; ++c) total += static_cast<double>(Load(p, c));
    RandomStream s(key, static_cast<uint64_t>(d));
    const int64_t c = PickCategory(p, k, total * s.Uniform(), LoadAsDouble<P>());
    StoreIndex(sample, d, c);
    if (log_prob != nullptr) {
      Store(log_prob, d, static_cast<Acc<P>>(log(static_cast<double>(Load(p, c)))));
    }
  }
}

template <typename P, typename S>
__global__ void MultinomialGradKernel(const P* ograd, const P* prob, const S* sample, int64_t k,
                                      int64_t m, P* grad, int64_t rows) {
  SYMX_GRID_STRIDE(i, rows) {
    for (int64_t c = 0; c < k; ++c) Store(grad, i * k + c, Acc<P>(0));
    for (int64_t j = 0; j < m; ++j) {
      const int64_t c = LoadIndex(sample, i * m + j);
      if (c < 0 || c >= k) continue;
      const double g =
          static_cast<double>(Load(grad, i * k + c)) +
          static_cast<double>(Load(ograd, i * m + j)) / static_cast<double>(Load(prob, i * k + c));
      Store(grad, i * k + c, static_cast<Acc<P>>(g));
    }
  }
}

__global__ void UniqueZipfianKernel(uint64_t key, int64_t range_max, int64_t rows, int64_t n,
                                    int64_t words, uint64_t* seen, int64_t* samples,
                                    int64_t* tries) {
  SYMX_GRID_STRIDE(i, rows) {
    uint64_t* row_seen = seen + i * words;
    for (int64_t w = 0; w < words; ++w) row_seen[w] = 0;
    tries[i] = UniqueZipfianRow(key, i, range_max, n, row_seen, samples + i * n);
  }
}

// Calls body with `using S = <sample storage type>` for _sample_multinomial's
// dtypes.
#define SYMX_SAMPLE_INDEX_SWITCH(elem, S, ...)          \
  switch (elem) {                                       \
    SYMX_CUDA_CASE(Elem::kU8, S, uint8_t, __VA_ARGS__)  \
    SYMX_CUDA_CASE(Elem::kI32, S, int32_t, __VA_ARGS__) \
    SYMX_CUDA_CASE(Elem::kF16, S, __half, __VA_ARGS__)  \
    SYMX_CUDA_CASE(Elem::kF32, S, float, __VA_ARGS__)   \
    SYMX_CUDA_CASE(Elem::kF64, S, double, __VA_ARGS__)  \
    default:                                            \
      return cudaErrorInvalidValue;                     \
  }

}  // namespace

cudaError_t LaunchShuffle(uint64_t key, int64_t* perm, int64_t rows, size_t elem_bytes,
                          int64_t row_elems, const void* in, void* out, cudaStream_t s) {
  const int64_t n = rows * row_elems;
  if (n == 0) return cudaSuccess;
  PermutationKernel<<<1, 1, 0, s>>>(key, perm, rows);
  cudaError_t e = LastLaunchError();
  if (e != cudaSuccess) return e;
  SYMX_CUDA_WIDTH_SWITCH(elem_bytes, U, {
    GatherRowsKernel<U><<<GridFor(n), kThreads, 0, s>>>(perm, row_elems, static_cast<const U*>(in),
                                                        static_cast<U*>(out), n);
  });
  return LastLaunchError();
}

cudaError_t LaunchUniqueZipfian(uint64_t key, int64_t range_max, int64_t rows, int64_t n,
                                uint64_t* seen, int64_t* samples, int64_t* tries, cudaStream_t s) {
  if (rows == 0) return cudaSuccess;
  if (n > range_max) return cudaErrorInvalidValue;
  UniqueZipfianKernel<<<GridFor(rows), kThreads, 0, s>>>(
      key, range_max, rows, n, (range_max + 63) / 64, seen, samples, tries);
  return LastLaunchError();
}

cudaError_t LaunchMultinomial(Elem pt, Elem st, uint64_t key, const void* prob, int64_t rows,
                              int64_t k, int64_t m, void* sample, void* log_prob, cudaStream_t s) {
  const int64_t n = rows * m;
  if (n == 0) return cudaSuccess;
  if (k <= 0) return cudaErrorInvalidValue;
  SYMX_CUDA_FLOAT_SWITCH(pt, P, {
    SYMX_SAMPLE_INDEX_SWITCH(st, S, {
      MultinomialKernel<P, S><<<GridFor(n), kThreads, 0, s>>>(key, static_cast<const P*>(prob), k,
                                                              m, static_cast<S*>(sample),
                                                              static_cast<P*>(log_prob), n);
    });
  });
  return LastLaunchError();
}

cudaError_t LaunchMultinomialGrad(Elem pt, Elem st, const void* ograd, const void* prob,
                                  const void* sample, int64_t rows, int64_t k, int64_t m,
                                  void* grad, cudaStream_t s) {
  if (rows == 0) return cudaSuccess;
  SYMX_CUDA_FLOAT_SWITCH(pt, P, {
    SYMX_SAMPLE_INDEX_SWITCH(st, S, {
      MultinomialGradKernel<P, S><<<GridFor(rows), kThreads, 0, s>>>(
          static_cast<const P*>(ograd), static_cast<const P*>(prob), static_cast<const S*>(sample),
          k, m, static_cast<P*>(grad), rows);
    });
  });
  return LastLaunchError();
}

cudaError_t LaunchRandomDraws(Elem t, int dist, uint64_t key, const double* pa, const double* pb,
                              double a, double b, int64_t block, void* out, int64_t n,
                              cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  if (block <= 0) return cudaErrorInvalidValue;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    DrawKernel<T><<<GridFor(n), kThreads, 0, s>>>(key, static_cast<RandomDraw>(dist), pa, pb, a, b,
                                                  block, static_cast<T*>(out), n);
  });
  return LastLaunchError();
}

cudaError_t LaunchRandInt(Elem t, uint64_t key, int64_t low, uint64_t range, void* out, int64_t n,
                          cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  if (range == 0) return cudaErrorInvalidValue;
  switch (t) {
    case Elem::kI32:
      RandIntKernel<int32_t>
          <<<GridFor(n), kThreads, 0, s>>>(key, low, range, static_cast<int32_t*>(out), n);
      break;
    case Elem::kI64:
      RandIntKernel<int64_t>
          <<<GridFor(n), kThreads, 0, s>>>(key, low, range, static_cast<int64_t*>(out), n);
      break;
    default:
      return cudaErrorInvalidValue;
  }
  return LastLaunchError();
}

}  // namespace cuda
}  // namespace symx
