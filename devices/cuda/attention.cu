// The attention family's CUDA kernels (launchers in devices/cuda/attention_launch.h).
#include "devices/cuda/attention_launch.h"
#include "devices/cuda/elem_types.cuh"

namespace symx {
namespace cuda {
namespace {

template <typename T>
__global__ void DivInTypeKernel(const T* x, T divisor, T* y, int64_t n) {
  SYMX_GRID_STRIDE(i, n) {
    if constexpr (std::is_integral_v<T>) {
      y[i] = static_cast<T>(x[i] / divisor);
    } else {
      Store(y, i, Load(x, i) / Load(&divisor, 0));
    }
  }
}

}  // namespace

cudaError_t LaunchDivInType(Elem t, const void* x, double divisor, void* y, int64_t n,
                            cudaStream_t s) {
  if (n == 0) return cudaSuccess;
#define SYMX_DIV_CASE(elem, type)                                                            \
  SYMX_CUDA_CASE(elem, T, type, DivInTypeKernel<T><<<GridFor(n), kThreads, 0, s>>>(          \
                     static_cast<const T*>(x), CastValueOnDevice<T>(divisor),                 \
                     static_cast<T*>(y), n))
  switch (t) {
    SYMX_DIV_CASE(Elem::kU8, uint8_t)
    SYMX_DIV_CASE(Elem::kI8, int8_t)
    SYMX_DIV_CASE(Elem::kI32, int32_t)
    SYMX_DIV_CASE(Elem::kI64, int64_t)
    default:
      SYMX_CUDA_FLOAT_SWITCH(t, T, {
        DivInTypeKernel<T><<<GridFor(n), kThreads, 0, s>>>(
            static_cast<const T*>(x), CastValueOnDevice<T>(divisor), static_cast<T*>(y), n);
      });
  }
#undef SYMX_DIV_CASE
  return LastLaunchError();
}

}  // namespace cuda
}  // namespace symx
