// The indexing family's CUDA kernels (launchers in devices/cuda/indexing_launch.h).
//
// one_hot, pick, take and gather_nd on the GPU. Index values become
// positions through devices/geometry/index_position.h, the functions the CPU kernels
// use; positions are computed once per call into the workspace, and values a
// mode rejects are reported through `first_bad` for the host to name.
//
// Dropout masks, Embedding, where and clip on the GPU.
#include "devices/cuda/elem_types.cuh"
#include "devices/cuda/elemwise_launch.h"
#include "devices/cuda/indexing_launch.h"
#include "devices/geometry/index_position.h"

namespace symx {
namespace cuda {
namespace {

template <typename I>
__global__ void PositionsKernel(const I* idx, int64_t count, int64_t n, IndexPosMode mode,
                                int64_t* pos, unsigned long long* first_bad) {
  SYMX_GRID_STRIDE(i, count) {
    const double v = ToDouble(idx[i]);
    int64_t p;
    if (mode == IndexPosMode::kRaise) {
      p = RaisePosition(v, n);
      if (p < 0) atomicMin(first_bad, static_cast<unsigned long long>(i));
    } else {
      p = ClipOrWrapPosition(v, n, mode == IndexPosMode::kWrap);
    }
    pos[i] = p;
  }
}

struct NdDims {
  int64_t d[kMaxDims];
};

template <typename I>
__global__ void GatherNdOffsetsKernel(const I* idx, int64_t count, int m, NdDims dims, int64_t* pos,
                                      unsigned long long* first_bad) {
  SYMX_GRID_STRIDE(y, count) {
    int64_t off = 0;
    for (int k = 0; k < m; ++k) {
      const int64_t at = GatherNdPosition(ToDouble(idx[k * count + y]), dims.d[k]);
      if (at < 0) {
        atomicMin(first_bad, static_cast<unsigned long long>(y));
        off = -1;
        break;
      }
      off = off * dims.d[k] + at;
    }
    pos[y] = off;
  }
}

template <typename U>
__global__ void GatherRowsKernel(const U* x, const int64_t* pos, int64_t n, int64_t m,
                                 int64_t inner, U* y, int64_t total) {
  SYMX_GRID_STRIDE(j, total) {
    const int64_t r = j % inner;
    const int64_t t = j / inner;  // o * m + i
    const int64_t o = t / m, i = t % m;
    y[j] = x[(o * n + pos[i]) * inner + r];
  }
}

template <typename T, typename A>
__global__ void ScatterAddRowsKernel(const T* g, const int64_t* pos, int64_t n, int64_t m,
                                     int64_t inner, A* acc, int64_t total) {
  SYMX_GRID_STRIDE(j, total) {
    const int64_t r = j % inner;
    const int64_t t = j / inner;
    const int64_t o = t / m, i = t % m;
    atomicAdd(acc + (o * n + pos[i]) * inner + r, static_cast<A>(Load(g, j)));
  }
}

template <typename T>
__global__ void RoundKernel(const float* acc, T* out, int64_t total) {
  SYMX_GRID_STRIDE(j, total) { Store(out, j, acc[j]); }
}

template <typename U>
__global__ void PickKernel(const U* x, const int64_t* pos, int64_t n, int64_t inner, U* y,
                           bool scatter, int64_t total) {
  SYMX_GRID_STRIDE(i, total) {
    const int64_t o = i / inner, r = i % inner;
    const int64_t at = (o * n + pos[i]) * inner + r;
    if (scatter) {
      y[at] = x[i];
    } else {
      y[i] = x[at];
    }
  }
}

template <typename I, typename U>
__global__ void OneHotKernel(const I* idx, int64_t depth, U on, U off, U* out, int64_t total) {
  SYMX_GRID_STRIDE(j, total) {
    const int64_t i = j / depth;
    out[j] = OneHotColumn(ToDouble(idx[i]), depth) == j % depth ? on : off;
  }
}

// Zeroes the accumulator (grad itself, or float scratch for the half types),
// adds every row in, and rounds the scratch into grad.
template <typename T>
cudaError_t ScatterAddRows(const T* g, const int64_t* pos, int64_t outer, int64_t n, int64_t m,
                           int64_t inner, T* grad, void* scratch, cudaStream_t s) {
  constexpr bool kHalf = !std::is_same_v<T, float> && !std::is_same_v<T, double>;
  using A = std::conditional_t<kHalf, float, T>;
  const int64_t size = outer * n * inner, total = outer * m * inner;
  A* acc = nullptr;
  if constexpr (kHalf) {
    acc = static_cast<A*>(scratch);
  } else {
    acc = grad;
  }
  if (size > 0) {
    const cudaError_t e = cudaMemsetAsync(acc, 0, static_cast<size_t>(size) * sizeof(A), s);
    if (e != cudaSuccess) return e;
  }
  if (total > 0) {
    ScatterAddRowsKernel<T, A><<<GridFor(total), kThreads, 0, s>>>(g, pos, n, m, inner, acc, total);
  }
  if constexpr (kHalf) {
    if (size > 0) RoundKernel<T><<<GridFor(size), kThreads, 0, s>>>(acc, grad, size);
  }
  return cudaSuccess;
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

}  // namespace

cudaError_t LaunchIndexPositions(Elem idx_t, const void* idx, int64_t count, int64_t n,
                                 IndexPosMode mode, int64_t* pos, unsigned long long* first_bad,
                                 cudaStream_t s) {
  if (count == 0) return cudaSuccess;
  SYMX_CUDA_ALL_SWITCH(idx_t, I, {
    PositionsKernel<I><<<GridFor(count), kThreads, 0, s>>>(static_cast<const I*>(idx), count, n,
                                                           mode, pos, first_bad);
  });
  return LastLaunchError();
}

cudaError_t LaunchGatherNdOffsets(Elem idx_t, const void* idx, int64_t count, int m,
                                  const int64_t* dims, int64_t* pos, unsigned long long* first_bad,
                                  cudaStream_t s) {
  if (count == 0) return cudaSuccess;
  if (m < 1 || m > kMaxDims) return cudaErrorInvalidValue;
  NdDims d{};
  for (int k = 0; k < m; ++k) d.d[k] = dims[k];
  SYMX_CUDA_ALL_SWITCH(idx_t, I, {
    GatherNdOffsetsKernel<I><<<GridFor(count), kThreads, 0, s>>>(static_cast<const I*>(idx), count,
                                                                 m, d, pos, first_bad);
  });
  return LastLaunchError();
}

cudaError_t LaunchGatherRows(size_t elem_bytes, const void* x, const int64_t* pos, int64_t outer,
                             int64_t n, int64_t m, int64_t inner, void* y, cudaStream_t s) {
  const int64_t total = outer * m * inner;
  if (total == 0) return cudaSuccess;
  SYMX_CUDA_WIDTH_SWITCH(elem_bytes, U, {
    GatherRowsKernel<U><<<GridFor(total), kThreads, 0, s>>>(static_cast<const U*>(x), pos, n, m,
                                                            inner, static_cast<U*>(y), total);
  });
  return LastLaunchError();
}

cudaError_t LaunchScatterAddRows(Elem t, const void* g, const int64_t* pos, int64_t outer,
                                 int64_t n, int64_t m, int64_t inner, void* grad, void* scratch,
                                 cudaStream_t s) {
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    const cudaError_t e = ScatterAddRows<T>(static_cast<const T*>(g), pos, outer, n, m, inner,
                                            static_cast<T*>(grad), scratch, s);
    if (e != cudaSuccess) return e;
  });
  return LastLaunchError();
}

cudaError_t LaunchPick(size_t elem_bytes, const void* x, const int64_t* pos, int64_t outer,
                       int64_t n, int64_t inner, void* y, bool scatter, cudaStream_t s) {
  const int64_t total = outer * inner;
  if (scatter && outer * n * inner > 0) {
    const cudaError_t e =
        cudaMemsetAsync(y, 0, static_cast<size_t>(outer * n * inner) * elem_bytes, s);
    if (e != cudaSuccess) return e;
  }
  if (total == 0) return cudaSuccess;
  SYMX_CUDA_WIDTH_SWITCH(elem_bytes, U, {
    PickKernel<U><<<GridFor(total), kThreads, 0, s>>>(static_cast<const U*>(x), pos, n, inner,
                                                      static_cast<U*>(y), scatter, total);
  });
  return LastLaunchError();
}

cudaError_t LaunchOneHot(Elem idx_t, const void* idx, int64_t count, int64_t depth,
                         size_t elem_bytes, uint64_t on, uint64_t off, void* out, cudaStream_t s) {
  const int64_t total = count * depth;
  if (total == 0) return cudaSuccess;
  SYMX_CUDA_ALL_SWITCH(idx_t, I, {
    SYMX_CUDA_WIDTH_SWITCH(elem_bytes, U, {
      OneHotKernel<I, U><<<GridFor(total), kThreads, 0, s>>>(
          static_cast<const I*>(idx), depth, static_cast<U>(on), static_cast<U>(off),
          static_cast<U*>(out), total);
    });
  });
  return LastLaunchError();
}

cudaError_t LaunchEmbedding(Elem idx_t, const void* idx, int64_t n, Elem t, const void* weight,
                            int64_t rows, int64_t dim, void* out, cudaStream_t s) {
  const int64_t total = n * dim;
  if (total == 0) return cudaSuccess;
  SYMX_CUDA_ALL_SWITCH(idx_t, I, {
    SYMX_CUDA_FLOAT_SWITCH(t, T, {
      EmbeddingKernel<I, T><<<GridFor(total), kThreads, 0, s>>>(static_cast<const I*>(idx),
                                                                static_cast<const T*>(weight), rows,
                                                                dim, static_cast<T*>(out), total);
    });
  });
  return LastLaunchError();
}

cudaError_t LaunchEmbeddingGrad(Elem idx_t, const void* idx, int64_t n, Elem t, const void* ograd,
                                int64_t rows, int64_t dim, void* grad_weight, void* scratch,
                                cudaStream_t s) {
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

}  // namespace cuda
}  // namespace symx
