// Launcher of _image_resize's CUDA kernel (devices/cuda/image_resize.cu),
// declared in plain C++ for the kernel registration (devices/cuda/launch.h
// says why and what every launcher returns).
#ifndef SYMX_DEVICES_CUDA_IMAGE_RESIZE_LAUNCH_H_
#define SYMX_DEVICES_CUDA_IMAGE_RESIZE_LAUNCH_H_

#include <cuda_runtime.h>

#include <cstdint>

#include "devices/cuda/launch.h"
#include "devices/geometry/image_resize.h"

namespace symx {
namespace cuda {

// `n` images x (g.in_h, g.in_w, g.c) of type t (uint8, int32, float32 or
// float64) -> y (n, g.out_h, g.out_w, g.c), each value ResizePixel.
cudaError_t LaunchImageResize(Elem t, const void* x, int64_t n, const ResizeGeom& g, void* y,
                              cudaStream_t s);

}  // namespace cuda
}  // namespace symx

#endif  // SYMX_DEVICES_CUDA_IMAGE_RESIZE_LAUNCH_H_
