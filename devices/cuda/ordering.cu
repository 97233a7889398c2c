// The ordering family's CUDA kernels (launchers in devices/cuda/ordering_launch.h).
//
// Reductions over the middle axis of an (outer, len, inner) view, column sums
// (bias gradients) and softmax. Rows along the last axis (inner == 1) get one
// block each, reduced in shared memory; otherwise each thread owns one
// (outer, inner) position, so neighbouring threads read neighbouring memory.
//
// sort/argsort/topk on the GPU: rows gathered contiguous, sorted by CUB's
// segmented radix sort (stable) with their positions, then the first k of
// each row written out. One translation unit holds every CUB instantiation
// (a key type per dtype, both directions): they are heavy to compile.
#include <cfloat>
#include <cub/device/device_segmented_radix_sort.cuh>

#include "devices/cuda/block_reduce.cuh"
#include "devices/cuda/elem_types.cuh"
#include "devices/cuda/ordering_launch.h"
#include "devices/stable_math.h"

namespace symx {
namespace cuda {
namespace {

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

size_t Aligned(size_t b) { return (b + 255) / 256 * 256; }

// The workspace's pieces, in order.
struct SortLayout {
  size_t keys_in = 0, keys_out = 0, pos_in = 0, pos_out = 0, offsets = 0, temp = 0, temp_bytes = 0,
         total = 0;
  cudaError_t error = cudaSuccess;  // of CUB's scratch-size queries
};

template <typename T>
SortLayout LayoutFor(const SortDims& d) {
  SortLayout l;
  const int64_t items = d.outer * d.n * d.inner, rows = d.outer * d.inner;
  size_t at = 0;
  l.keys_in = at;
  at += Aligned(items * sizeof(T));
  l.keys_out = at;
  at += Aligned(items * sizeof(T));
  l.pos_in = at;
  at += Aligned(items * sizeof(int32_t));
  l.pos_out = at;
  at += Aligned(items * sizeof(int32_t));
  l.offsets = at;
  at += Aligned((rows + 1) * sizeof(int32_t));
  l.temp = at;
  l.error = cub::DeviceSegmentedRadixSort::SortPairs(
      nullptr, l.temp_bytes, static_cast<const T*>(nullptr), static_cast<T*>(nullptr),
      static_cast<const int32_t*>(nullptr), static_cast<int32_t*>(nullptr), static_cast<int>(items),
      static_cast<int>(rows), static_cast<const int32_t*>(nullptr),
      static_cast<const int32_t*>(nullptr) + 1);
  size_t desc = 0;
  const cudaError_t e = cub::DeviceSegmentedRadixSort::SortPairsDescending(
      nullptr, desc, static_cast<const T*>(nullptr), static_cast<T*>(nullptr),
      static_cast<const int32_t*>(nullptr), static_cast<int32_t*>(nullptr), static_cast<int>(items),
      static_cast<int>(rows), static_cast<const int32_t*>(nullptr),
      static_cast<const int32_t*>(nullptr) + 1);
  if (l.error == cudaSuccess) l.error = e;
  if (desc > l.temp_bytes) l.temp_bytes = desc;
  l.total = at + Aligned(l.temp_bytes);
  return l;
}

bool Fits(const SortDims& d) {
  const int64_t items = d.outer * d.n * d.inner;
  return items >= 0 && items < (int64_t{1} << 31) - 1 && d.n < (int64_t{1} << 31) - 1;
}

template <typename T>
__global__ void GatherRowsKernel(const T* x, SortDims d, T* keys, int32_t* pos, int32_t* offsets,
                                 int64_t items) {
  SYMX_GRID_STRIDE(e, items) {  // e = row * n + j
    const int64_t row = e / d.n, j = e % d.n;
    const int64_t o = row / d.inner, r = row % d.inner;
    keys[e] = x[(o * d.n + j) * d.inner + r];
    pos[e] = static_cast<int32_t>(j);
    if (j == 0) offsets[row] = static_cast<int32_t>(e);
    if (e == items - 1) offsets[row + 1] = static_cast<int32_t>(items);
  }
}

template <typename T>
cudaError_t SortRows(const T* x, const SortDims& d, bool ascending, char* ws, size_t ws_bytes,
                     const void** keys, const int32_t** positions, cudaStream_t s) {
  const SortLayout l = LayoutFor<T>(d);
  if (l.error != cudaSuccess) return l.error;
  if (ws_bytes < l.total) return cudaErrorInvalidValue;
  T* keys_in = reinterpret_cast<T*>(ws + l.keys_in);
  T* keys_out = reinterpret_cast<T*>(ws + l.keys_out);
  int32_t* pos_in = reinterpret_cast<int32_t*>(ws + l.pos_in);
  int32_t* pos_out = reinterpret_cast<int32_t*>(ws + l.pos_out);
  int32_t* offsets = reinterpret_cast<int32_t*>(ws + l.offsets);
  *keys = keys_out;
  *positions = pos_out;
  const int64_t items = d.outer * d.n * d.inner, rows = d.outer * d.inner;
  if (items == 0) return cudaSuccess;
  GatherRowsKernel<T><<<GridFor(items), kThreads, 0, s>>>(x, d, keys_in, pos_in, offsets, items);
  size_t temp_bytes = l.temp_bytes;
  if (ascending) {
    return cub::DeviceSegmentedRadixSort::SortPairs(
        ws + l.temp, temp_bytes, keys_in, keys_out, pos_in, pos_out, static_cast<int>(items),
        static_cast<int>(rows), offsets, offsets + 1, 0, static_cast<int>(sizeof(T) * 8), s);
  }
  return cub::DeviceSegmentedRadixSort::SortPairsDescending(
      ws + l.temp, temp_bytes, keys_in, keys_out, pos_in, pos_out, static_cast<int>(items),
      static_cast<int>(rows), offsets, offsets + 1, 0, static_cast<int>(sizeof(T) * 8), s);
}

// Over (row, j < k): the value and index outputs, shaped (outer, k, inner).
template <typename T, typename I>
__global__ void TopKOutKernel(const T* keys, const int32_t* pos, SortDims d, int64_t k, T* values,
                              I* indices, int64_t count) {
  SYMX_GRID_STRIDE(e, count) {
    const int64_t row = e / k, j = e % k;
    const int64_t o = row / d.inner, r = row % d.inner;
    const int64_t at = (o * k + j) * d.inner + r;
    if (values != nullptr) values[at] = keys[row * d.n + j];
    if (indices != nullptr) {
      indices[at] = CastValueOnDevice<I>(static_cast<double>(pos[row * d.n + j]));
    }
  }
}

// Over (row, j < n): each position gets 1 if it ranks among the first k.
template <typename T>
__global__ void TopKMaskKernel(const int32_t* pos, SortDims d, int64_t k, T* mask, int64_t items) {
  SYMX_GRID_STRIDE(e, items) {
    const int64_t row = e / d.n, j = e % d.n;
    const int64_t o = row / d.inner, r = row % d.inner;
    mask[(o * d.n + pos[e]) * d.inner + r] = FromDouble<T>(j < k ? 1.0 : 0.0);
  }
}

template <typename T, typename I>
__global__ void TopKGradKernel(const T* g, const I* idx, SortDims d, int64_t k, T* gx,
                               unsigned long long* first_bad, int64_t count) {
  SYMX_GRID_STRIDE(e, count) {  // over (outer, k, inner)
    const int64_t r = e % d.inner, o = e / (k * d.inner);
    const double v = ToDouble(idx[e]);
    if (!(v >= 0 && v < static_cast<double>(d.n))) {
      atomicMin(first_bad, static_cast<unsigned long long>(e));
      continue;
    }
    atomicAdd(gx + (o * d.n + static_cast<int64_t>(v)) * d.inner + r, g[e]);
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

template <typename T>
size_t WorkspaceFor(const SortDims& d) {
  const SortLayout l = LayoutFor<T>(d);
  return l.error == cudaSuccess ? l.total : 0;
}

size_t SortWorkspaceBytes(Elem t, const SortDims& d) {
  if (!Fits(d) || !IsKnownElem(t)) return 0;
  switch (t) {
    case Elem::kF32:
      return WorkspaceFor<float>(d);
    case Elem::kF64:
      return WorkspaceFor<double>(d);
    case Elem::kF16:
      return WorkspaceFor<__half>(d);
    case Elem::kBF16:
      return WorkspaceFor<__nv_bfloat16>(d);
    case Elem::kU8:
      return WorkspaceFor<uint8_t>(d);
    case Elem::kI8:
      return WorkspaceFor<int8_t>(d);
    case Elem::kI32:
      return WorkspaceFor<int32_t>(d);
    case Elem::kI64:
      return WorkspaceFor<int64_t>(d);
    case Elem::kBool:
      return WorkspaceFor<bool>(d);
  }
  return 0;
}

cudaError_t LaunchSortRows(Elem t, const void* x, const SortDims& d, bool ascending,
                           void* workspace, size_t workspace_bytes, const void** keys,
                           const int32_t** positions, cudaStream_t s) {
  if (!Fits(d)) return cudaErrorInvalidValue;
  SYMX_CUDA_ALL_SWITCH(t, T, {
    const cudaError_t e =
        SortRows<T>(static_cast<const T*>(x), d, ascending, static_cast<char*>(workspace),
                    workspace_bytes, keys, positions, s);
    if (e != cudaSuccess) return e;
  });
  return LastLaunchError();
}

cudaError_t LaunchTopKOutputs(Elem t, const void* keys, const int32_t* positions, const SortDims& d,
                              int64_t k, bool mask, void* values, Elem idx_t, void* indices,
                              cudaStream_t s) {
  const int64_t rows = d.outer * d.inner;
  if (mask) {
    const int64_t items = rows * d.n;
    if (items == 0) return cudaSuccess;
    SYMX_CUDA_ALL_SWITCH(t, T, {
      TopKMaskKernel<T>
          <<<GridFor(items), kThreads, 0, s>>>(positions, d, k, static_cast<T*>(values), items);
    });
    return LastLaunchError();
  }
  const int64_t count = rows * k;
  if (count == 0) return cudaSuccess;
  SYMX_CUDA_ALL_SWITCH(t, T, {
    SYMX_CUDA_ALL_SWITCH(idx_t, I, {
      TopKOutKernel<T, I><<<GridFor(count), kThreads, 0, s>>>(
          static_cast<const T*>(keys), positions, d, k, static_cast<T*>(values),
          static_cast<I*>(indices), count);
    });
  });
  return LastLaunchError();
}

cudaError_t LaunchTopKGrad(Elem t, const void* g, Elem idx_t, const void* indices,
                           const SortDims& d, int64_t k, void* gx, unsigned long long* first_bad,
                           cudaStream_t s) {
  const int64_t size = d.outer * d.n * d.inner, count = d.outer * k * d.inner;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    if (size > 0) {
      const cudaError_t e = cudaMemsetAsync(gx, 0, static_cast<size_t>(size) * sizeof(T), s);
      if (e != cudaSuccess) return e;
    }
    if (count > 0) {
      SYMX_CUDA_ALL_SWITCH(idx_t, I, {
        TopKGradKernel<T, I><<<GridFor(count), kThreads, 0, s>>>(
            static_cast<const T*>(g), static_cast<const I*>(indices), d, k, static_cast<T*>(gx),
            first_bad, count);
      });
    }
  });
  return LastLaunchError();
}

}  // namespace cuda
}  // namespace symx
