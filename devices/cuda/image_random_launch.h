// Launchers of the image_random CUDA kernels (devices/cuda/image_random.cu),
// declared in plain C++ for the kernel registrations (devices/cuda/launch.h
// says why and what every launcher returns).
#ifndef SYMX_DEVICES_CUDA_IMAGE_RANDOM_LAUNCH_H_
#define SYMX_DEVICES_CUDA_IMAGE_RANDOM_LAUNCH_H_

#include <cuda_runtime.h>

#include <cstdint>

#include "devices/cuda/launch.h"

namespace symx {
namespace cuda {

// One color step (ImageColorStep's value: 0 brightness, 1 contrast, 2
// saturation, 3 hue) at `factor` over an image of `pixels` x `channels` (1 or
// 3) values of dtype t, x into y (x may be y). Contrast's mean gray is
// reduced by one block in double before the same block applies it.
cudaError_t LaunchImageColorStep(Elem t, int step, float factor, const void* x, void* y,
                                 int64_t pixels, int64_t channels, cudaStream_t s);

// y = x reversed along height (axis 0) or width (axis 1) of an (h, w, c)
// image when *flag (on the device) is nonzero, else a copy of x.
cudaError_t LaunchImageFlipIf(Elem t, const uint8_t* flag, int axis, const void* x, int64_t h,
                              int64_t w, int64_t c, void* y, cudaStream_t s);

}  // namespace cuda
}  // namespace symx

#endif  // SYMX_DEVICES_CUDA_IMAGE_RANDOM_LAUNCH_H_
