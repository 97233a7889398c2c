// Launchers of the layout family's CUDA kernels (devices/cuda/layout.cu),
// declared in plain C++ for the kernel registrations (devices/cuda/launch.h
// says why and what every launcher returns).
#ifndef SYMX_DEVICES_CUDA_LAYOUT_LAUNCH_H_
#define SYMX_DEVICES_CUDA_LAYOUT_LAUNCH_H_

#include <cuda_runtime.h>

#include <cstdint>

#include "devices/cuda/launch.h"
#include "devices/geometry/im2col_map.h"

namespace symx {
namespace cuda {

// im2col: cols (planes * K, L) from images (planes, image_size), one thread
// per column element, zeros in the padding.
cudaError_t LaunchIm2col(Elem t, const void* image, const Im2colDims& d, int64_t planes, void* cols,
                         cudaStream_t s);
// col2im (and im2col's gradient): each image element the sum, in float (double
// for double), of the column elements that read it; one thread per image
// element, so no atomics.
cudaError_t LaunchCol2im(Elem t, const void* cols, const Im2colDims& d, int64_t planes, void* image,
                         cudaStream_t s);

}  // namespace cuda
}  // namespace symx

#endif  // SYMX_DEVICES_CUDA_LAYOUT_LAUNCH_H_
