// Data movement and reductions over strided views (up to kMaxDims dims):
// transpose, slicing, concatenation, tiling, broadcasting and the reductions
// that undo it. One thread per output element; each decomposes its index
// over the dims and walks the strides.
#include "devices/cuda/block_reduce.cuh"
#include "devices/cuda/elem_types.cuh"
#include "devices/cuda/elemwise_launch.h"
#include "devices/cuda/reduce_launch.h"
#include "devices/cuda/strided_launch.h"

namespace symx {
namespace cuda {
namespace {

template <typename U>
__global__ void StridedCopyKernel(const U* src, U* dst, StridedDims d, int64_t n) {
  SYMX_GRID_STRIDE(i, n) {
    int64_t rest = i, si = 0, di = 0;
    for (int k = d.ndim - 1; k >= 0; --k) {
      const int64_t idx = rest % d.dims[k];
      rest /= d.dims[k];
      si += idx * d.src_strides[k];
      di += idx * d.dst_strides[k];
    }
    dst[di] = src[si];
  }
}

__device__ __forceinline__ int64_t Offset(const StridedDims& d, int64_t i) {
  int64_t rest = i, off = 0;
  for (int k = d.ndim - 1; k >= 0; --k) {
    const int64_t idx = rest % d.dims[k];
    rest /= d.dims[k];
    off += idx * d.src_strides[k];
  }
  return off;
}

template <typename T>
__global__ void ReduceStridedKernel(ReduceFn f, const T* x, StridedDims kept, StridedDims red,
                                    int64_t reduced_count, Acc<T> scale, T* y, int64_t outputs) {
  using C = Acc<T>;
  const Reducer<C> rd{f};
  SYMX_GRID_STRIDE(j, outputs) {
    const T* base = x + Offset(kept, j);
    C acc = rd.Init();
    for (int64_t r = 0; r < reduced_count; ++r) {
      acc = rd.Apply(acc, rd.Map(Load(base, Offset(red, r))));
      if (acc != acc) break;  // NaN stays NaN in every reduction
    }
    Store(y, j, rd.Finish(acc, scale));
  }
}

// Few outputs over many elements (a bias gradient, a sum to a scalar): a
// block per output, each thread striding over the reduced space, then a tree
// in shared memory (a fixed order: deterministic).
template <typename T>
__global__ void ReduceStridedBlockKernel(ReduceFn f, const T* x, StridedDims kept, StridedDims red,
                                         int64_t reduced_count, Acc<T> scale, T* y) {
  using C = Acc<T>;
  const Reducer<C> r{f};
  const T* base = x + Offset(kept, blockIdx.x);
  C acc = r.Init();
  for (int64_t k = threadIdx.x; k < reduced_count; k += blockDim.x) {
    acc = r.Apply(acc, r.Map(Load(base, Offset(red, k))));
  }
  acc = BlockReduce(acc, r);
  if (threadIdx.x == 0) Store(y, blockIdx.x, r.Finish(acc, scale));
}

template <typename C>
__device__ __forceinline__ C GradTerm(BinaryFn f, bool rhs, C g, C a, C b) {
  switch (f) {
    case BinaryFn::kAdd:
      return g;
    case BinaryFn::kSub:
      return rhs ? -g : g;
    case BinaryFn::kMul:
      return rhs ? g * a : g * b;
    case BinaryFn::kDiv:
      return rhs ? -g * a / (b * b) : g / b;
    case BinaryFn::kMax:
      return (a >= b) != rhs ? g : C(0);
    case BinaryFn::kMin:
      return (a <= b) != rhs ? g : C(0);
    case BinaryFn::kPow:
      return rhs ? g * pow(a, b) * log(a) : g * b * pow(a, b - C(1));
    default:  // comparisons: no gradient
      return C(0);
  }
}

template <typename T>
__global__ void BroadcastGradKernel(BinaryFn f, bool rhs, const T* g, const T* a, const T* b,
                                    BroadcastDims d, T* out, int64_t n) {
  SYMX_GRID_STRIDE(i, n) {
    int64_t rest = i, ai = 0, bi = 0;
    for (int k = d.ndim - 1; k >= 0; --k) {
      const int64_t idx = rest % d.out_dims[k];
      rest /= d.out_dims[k];
      ai += idx * d.a_strides[k];
      bi += idx * d.b_strides[k];
    }
    Store(out, i, GradTerm<Acc<T>>(f, rhs, Load(g, i), Load(a, ai), Load(b, bi)));
  }
}

template <typename T>
__global__ void ReduceGradKernel(ReduceGradFn f, const T* x, const T* y, const T* g, StridedDims d,
                                 T* dx, int64_t n) {
  using C = Acc<T>;
  SYMX_GRID_STRIDE(i, n) {
    const int64_t r = Offset(d, i);
    const C xi = Load(x, i), yr = Load(y, r), gr = Load(g, r);
    C v;
    switch (f) {
      case ReduceGradFn::kEqual:
        v = xi == yr ? gr : C(0);
        break;
      case ReduceGradFn::kProd:
        v = gr * (yr / xi);
        break;
      case ReduceGradFn::kNanSum:
        v = gr * (xi != xi ? C(0) : C(1));
        break;
      case ReduceGradFn::kNanProd:
        v = gr * (xi != xi ? C(0) : yr / xi);
        break;
      case ReduceGradFn::kNorm1:
        v = gr * C((xi > C(0)) - (xi < C(0)));
        break;
      default:  // kNorm2
        v = gr * (xi / yr);
        break;
    }
    Store(dx, i, v);
  }
}

template <typename T>
__global__ void VarianceStridedKernel(const T* x, const T* mean, StridedDims kept, StridedDims red,
                                      int64_t reduced_count, Acc<T> scale, T* y,
                                      int64_t outputs) {
  using C = Acc<T>;
  SYMX_GRID_STRIDE(j, outputs) {
    const T* base = x + Offset(kept, j);
    const C m = Load(mean, j);
    C acc = C(0);
    for (int64_t r = 0; r < reduced_count; ++r) {
      const C d = Load(base, Offset(red, r)) - m;
      acc += d * d;
    }
    Store(y, j, acc * scale);
  }
}

template <typename T>
__global__ void MomentsGradKernel(const T* gm, const T* gv, const T* x, const T* mean,
                                  StridedDims d, Acc<T> inv_n, T* dx, int64_t n) {
  using C = Acc<T>;
  SYMX_GRID_STRIDE(i, n) {
    const int64_t r = Offset(d, i);
    Store(dx, i,
          Load(gm, r) * inv_n + Load(gv, r) * (Load(x, i) - Load(mean, r)) * C(2) * inv_n);
  }
}

}  // namespace

cudaError_t LaunchStridedCopy(size_t elem_bytes, const void* src, void* dst, const StridedDims& d,
                              int64_t n, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  if (d.ndim < 0 || d.ndim > kMaxDims) return cudaErrorInvalidValue;
  switch (elem_bytes) {
    case 1:
      StridedCopyKernel<uint8_t><<<GridFor(n), kThreads, 0, s>>>(static_cast<const uint8_t*>(src),
                                                                 static_cast<uint8_t*>(dst), d, n);
      break;
    case 2:
      StridedCopyKernel<uint16_t><<<GridFor(n), kThreads, 0, s>>>(
          static_cast<const uint16_t*>(src), static_cast<uint16_t*>(dst), d, n);
      break;
    case 4:
      StridedCopyKernel<uint32_t><<<GridFor(n), kThreads, 0, s>>>(
          static_cast<const uint32_t*>(src), static_cast<uint32_t*>(dst), d, n);
      break;
    case 8:
      StridedCopyKernel<uint64_t><<<GridFor(n), kThreads, 0, s>>>(
          static_cast<const uint64_t*>(src), static_cast<uint64_t*>(dst), d, n);
      break;
    default:
      return cudaErrorInvalidValue;
  }
  return LastLaunchError();
}

cudaError_t LaunchReduceStrided(ReduceFn f, Elem t, const void* x, const StridedDims& kept,
                                const StridedDims& reduced, double scale, void* y, int64_t outputs,
                                cudaStream_t s) {
  if (outputs == 0) return cudaSuccess;
  int64_t count = 1;
  for (int k = 0; k < reduced.ndim; ++k) count *= reduced.dims[k];
  // A thread per output keeps the GPU busy when there are many outputs; a
  // block per output when there are few, each over many elements.
  const bool per_block = outputs < 4096 && count >= 1024;
  SYMX_CUDA_REDUCE_SWITCH(t, f, T, {
    if (per_block) {
      ReduceStridedBlockKernel<T><<<static_cast<unsigned>(outputs), kThreads, 0, s>>>(
          f, static_cast<const T*>(x), kept, reduced, count, static_cast<Acc<T>>(scale),
          static_cast<T*>(y));
    } else {
      ReduceStridedKernel<T><<<GridFor(outputs), kThreads, 0, s>>>(
          f, static_cast<const T*>(x), kept, reduced, count, static_cast<Acc<T>>(scale),
          static_cast<T*>(y), outputs);
    }
  });
  return LastLaunchError();
}

cudaError_t LaunchBroadcastGradTerms(BinaryFn f, bool rhs, Elem t, const void* g, const void* a,
                                     const void* b, const BroadcastDims& d, void* out, int64_t n,
                                     cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    BroadcastGradKernel<T>
        <<<GridFor(n), kThreads, 0, s>>>(f, rhs, static_cast<const T*>(g), static_cast<const T*>(a),
                                         static_cast<const T*>(b), d, static_cast<T*>(out), n);
  });
  return LastLaunchError();
}

cudaError_t LaunchReduceGrad(ReduceGradFn f, Elem t, const void* x, const void* y, const void* g,
                             const StridedDims& d, void* dx, int64_t n, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    ReduceGradKernel<T>
        <<<GridFor(n), kThreads, 0, s>>>(f, static_cast<const T*>(x), static_cast<const T*>(y),
                                         static_cast<const T*>(g), d, static_cast<T*>(dx), n);
  });
  return LastLaunchError();
}

cudaError_t LaunchVarianceStrided(Elem t, const void* x, const void* mean, const StridedDims& kept,
                                  const StridedDims& reduced, double scale, void* y,
                                  int64_t outputs, cudaStream_t s) {
  if (outputs == 0) return cudaSuccess;
  int64_t count = 1;
  for (int k = 0; k < reduced.ndim; ++k) count *= reduced.dims[k];
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    VarianceStridedKernel<T><<<GridFor(outputs), kThreads, 0, s>>>(
        static_cast<const T*>(x), static_cast<const T*>(mean), kept, reduced, count,
        static_cast<Acc<T>>(scale), static_cast<T*>(y), outputs);
  });
  return LastLaunchError();
}

cudaError_t LaunchMomentsGrad(Elem t, const void* gm, const void* gv, const void* x,
                              const void* mean, const StridedDims& d, double inv_n, void* dx,
                              int64_t n, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    MomentsGradKernel<T><<<GridFor(n), kThreads, 0, s>>>(
        static_cast<const T*>(gm), static_cast<const T*>(gv), static_cast<const T*>(x),
        static_cast<const T*>(mean), d, static_cast<Acc<T>>(inv_n), static_cast<T*>(dx), n);
  });
  return LastLaunchError();
}

}  // namespace cuda
}  // namespace symx
