// Block-wide reductions for the .cu files: a Reducer (sum, max or min, NaN
// winning for max/min) and BlockReduce over kThreads threads.
#ifndef SYMX_DEVICES_CUDA_BLOCK_REDUCE_CUH_
#define SYMX_DEVICES_CUDA_BLOCK_REDUCE_CUH_

#include <cfloat>

#include "devices/cuda/elem_types.cuh"
#include "devices/cuda/reduce_launch.h"

namespace symx {
namespace cuda {

template <typename C>
struct Reducer {
  ReduceFn f;
  __device__ C Init() const {
    if (f == ReduceFn::kMax) return -Inf();
    if (f == ReduceFn::kMin) return Inf();
    return C(0);
  }
  __device__ C Apply(C a, C b) const {
    if (f == ReduceFn::kSum) return a + b;
    // NaN wins, as in MXNet's max/min.
    if (a != a) return a;
    if (b != b) return b;
    return f == ReduceFn::kMax ? (a > b ? a : b) : (a < b ? a : b);
  }
  static __device__ C Inf() {
    if constexpr (std::is_same_v<C, double>) {
      return DBL_MAX * 2.0;
    } else {
      return FLT_MAX * 2.0f;
    }
  }
};

// Block-wide reduction of one value per thread (blockDim.x == kThreads);
// every thread gets the result.
template <typename C>
__device__ C BlockReduce(C v, const Reducer<C>& r) {
  __shared__ C shared[kThreads];
  shared[threadIdx.x] = v;
  __syncthreads();
  for (int stride = kThreads / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) shared[threadIdx.x] = r.Apply(shared[threadIdx.x], shared[threadIdx.x + stride]);
    __syncthreads();
  }
  C out = shared[0];
  __syncthreads();
  return out;
}

}  // namespace cuda
}  // namespace symx

#endif  // SYMX_DEVICES_CUDA_BLOCK_REDUCE_CUH_
