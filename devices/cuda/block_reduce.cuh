// Block-wide reductions for the .cu files: a Reducer (a ReduceFn: sum, max or
// min with NaN winning, prod, the NaN-skipping ones, the norms; integer types
// for all but the norms) and BlockReduce over kThreads threads.
#ifndef SYMX_DEVICES_CUDA_BLOCK_REDUCE_CUH_
#define SYMX_DEVICES_CUDA_BLOCK_REDUCE_CUH_

#include <cfloat>
#include <limits>
#include <type_traits>

#include "devices/cuda/elem_types.cuh"
#include "devices/cuda/reduce_launch.h"

namespace symx {
namespace cuda {

template <typename C>
struct Reducer {
  ReduceFn f;
  __device__ C Init() const {
    if (f == ReduceFn::kMax) return std::is_integral_v<C> ? std::numeric_limits<C>::lowest() : -Inf();
    if (f == ReduceFn::kMin) return Inf();
    if (f == ReduceFn::kProd || f == ReduceFn::kNanProd) return C(1);
    return C(0);
  }
  // What an input element contributes (Apply takes mapped values only).
  __device__ C Map(C x) const {
    switch (f) {
      case ReduceFn::kNanSum:
        return x != x ? C(0) : x;
      case ReduceFn::kNanProd:
        return x != x ? C(1) : x;
      case ReduceFn::kNorm1:
        if constexpr (std::is_unsigned_v<C>) {
          return x;
        } else {
          return x < C(0) ? -x : x;
        }
      case ReduceFn::kNorm2:
        return x * x;
      default:
        return x;
    }
  }
  __device__ C Apply(C a, C b) const {
    if (f == ReduceFn::kSum) return a + b;
    if (f == ReduceFn::kProd || f == ReduceFn::kNanProd) return a * b;
    if (f != ReduceFn::kMax && f != ReduceFn::kMin) return a + b;
    // NaN wins, as in MXNet's max/min.
    if (a != a) return a;
    if (b != b) return b;
    return f == ReduceFn::kMax ? (a > b ? a : b) : (a < b ? a : b);
  }
  // The result from the accumulated value: kSum scaled, kNorm2's square root.
  __device__ C Finish(C v, C scale) const {
    if (f == ReduceFn::kSum) return v * scale;
    if constexpr (!std::is_integral_v<C>) {
      if (f == ReduceFn::kNorm2) return sqrt(v);
    }
    return v;
  }
  static __device__ C Inf() {
    if constexpr (std::is_integral_v<C>) {
      return std::numeric_limits<C>::max();
    } else if constexpr (std::is_same_v<C, double>) {
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

// The dtype switch of the reduce launchers: the float types, and the integer
// types MXNet reduces (int8, uint8, int32, int64) for all but the norms;
// cudaErrorInvalidValue for the others.
#define SYMX_CUDA_REDUCE_SWITCH(elem, f, T, ...)                                          \
  if ((elem) == ::symx::cuda::Elem::kI8 || (elem) == ::symx::cuda::Elem::kU8 ||           \
      (elem) == ::symx::cuda::Elem::kI32 || (elem) == ::symx::cuda::Elem::kI64) {         \
    if ((f) == ::symx::cuda::ReduceFn::kNorm1 || (f) == ::symx::cuda::ReduceFn::kNorm2) { \
      return cudaErrorInvalidValue;                                                       \
    }                                                                                     \
    switch (elem) {                                                                       \
      SYMX_CUDA_CASE(::symx::cuda::Elem::kI8, T, int8_t, __VA_ARGS__)                     \
      SYMX_CUDA_CASE(::symx::cuda::Elem::kU8, T, uint8_t, __VA_ARGS__)                    \
      SYMX_CUDA_CASE(::symx::cuda::Elem::kI32, T, int32_t, __VA_ARGS__)                   \
      SYMX_CUDA_CASE(::symx::cuda::Elem::kI64, T, int64_t, __VA_ARGS__)                   \
      default:                                                                            \
        break;                                                                            \
    }                                                                                     \
  } else {                                                                                \
    SYMX_CUDA_FLOAT_SWITCH(elem, T, __VA_ARGS__)                                          \
  }

#endif  // SYMX_DEVICES_CUDA_BLOCK_REDUCE_CUH_
