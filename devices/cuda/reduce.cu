// Reductions over the middle axis of an (outer, len, inner) view, column sums
// (bias gradients) and softmax. Rows along the last axis (inner == 1) get one
// block each, reduced in shared memory; otherwise each thread owns one
// (outer, inner) position, so neighbouring threads read neighbouring memory.
#include <cfloat>

#include "devices/cuda/block_reduce.cuh"
#include "devices/cuda/elem_types.cuh"
#include "devices/cuda/reduce_launch.h"
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
  for (int64_t l = threadIdx.x; l < len; l += blockDim.x) v = r.Apply(v, r.Map(Load(row, l)));
  v = BlockReduce(v, r);
  if (threadIdx.x == 0) {
    C out = r.Finish(v, scale);
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
    for (int64_t l = 0; l < len; ++l) v = r.Apply(v, r.Map(Load(base, l * inner)));
    C out = r.Finish(v, scale);
    if (accumulate) out += Load(y, p);
    Store(y, p, out);
  }
}

template <typename T>
cudaError_t Reduce(ReduceFn f, const T* x, int64_t outer, int64_t len, int64_t inner, double scale,
                   bool accumulate, T* y, cudaStream_t s) {
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

}  // namespace

cudaError_t LaunchReduce(ReduceFn f, Elem t, const void* x, int64_t outer, int64_t len,
                         int64_t inner, double scale, void* y, cudaStream_t s) {
  SYMX_CUDA_REDUCE_SWITCH(t, f, T, {
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

}  // namespace cuda
}  // namespace symx
