// What the image families' .cu files share: MXNet's compute type for an
// image's storage type (float, double for float64 data) and the load into it.
#ifndef SYMX_DEVICES_CUDA_IMAGE_CALC_CUH_
#define SYMX_DEVICES_CUDA_IMAGE_CALC_CUH_

#include <cstdint>
#include <type_traits>

#include "devices/cuda/elem_types.cuh"

namespace symx {
namespace cuda {

template <typename T>
using ImageCalc = std::conditional_t<std::is_same_v<T, double>, double, float>;

template <typename T>
__device__ __forceinline__ ImageCalc<T> ImageLoad(const T* p, int64_t i) {
  return static_cast<ImageCalc<T>>(ToDouble(p[i]));
}

}  // namespace cuda
}  // namespace symx

#endif  // SYMX_DEVICES_CUDA_IMAGE_CALC_CUH_
