// Launchers of the image CUDA kernels (devices/cuda/image.cu), declared in
// plain C++ for the kernel registrations (devices/cuda/launch.h says why and
// what every launcher returns).
#ifndef SYMX_DEVICES_CUDA_IMAGE_LAUNCH_H_
#define SYMX_DEVICES_CUDA_IMAGE_LAUNCH_H_

#include <cuda_runtime.h>

#include <cstdint>

#include "devices/cuda/launch.h"

namespace symx {
namespace cuda {

// _image_to_tensor: x (n, hw, c) of dtype t -> y (n, c, hw) float32 / 255.
cudaError_t LaunchToTensor(Elem t, const void* x, int64_t n, int64_t hw, int64_t c, float* y,
                           cudaStream_t s);
// _image_normalize over (n, c, hw) planes with per-channel mean and std (c <= 3
// values each): forward (x - mean) / std, backward g * (1 / std).
struct NormalizeArgs {
  int64_t n = 0, c = 0, hw = 0;
  float mean[3] = {0, 0, 0};
  float std[3] = {1, 1, 1};
};
cudaError_t LaunchImageNormalize(Elem t, const void* x, const NormalizeArgs& a, bool backward,
                                 void* y, cudaStream_t s);
// _image_adjust_lighting over `pixels` RGB triples: y = saturate(x + pca[c]).
cudaError_t LaunchImageLighting(Elem t, const void* x, int64_t pixels, const float pca[3], void* y,
                                cudaStream_t s);

}  // namespace cuda
}  // namespace symx

#endif  // SYMX_DEVICES_CUDA_IMAGE_LAUNCH_H_
