// What the CUDA kernels of the image families (image_kernels.cc,
// image_random_kernels.cc) share: MXNet's image dtypes as launcher elements.
#ifndef SYMX_DEVICES_CUDA_IMAGE_KERNELS_H_
#define SYMX_DEVICES_CUDA_IMAGE_KERNELS_H_

#include "devices/cuda/kernel_util.h"

namespace symx {
namespace cuda {

// MXNet's image dtypes (no bool or bfloat16).
inline absl::StatusOr<Elem> ImageElem(const KernelContext& ctx, DType t) {
  if (t == DType::kBool || t == DType::kBFloat16) return UnsupportedDType(ctx, t);
  return AnyElem(ctx, t);
}

}  // namespace cuda
}  // namespace symx

#endif  // SYMX_DEVICES_CUDA_IMAGE_KERNELS_H_
