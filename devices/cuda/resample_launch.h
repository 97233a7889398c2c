// Launchers of the resample CUDA kernels (devices/cuda/resample.cu), declared in plain
// C++ for the kernel registrations (devices/cuda/launch.h says why and what
// every launcher returns).
#ifndef SYMX_DEVICES_CUDA_RESAMPLE_LAUNCH_H_
#define SYMX_DEVICES_CUDA_RESAMPLE_LAUNCH_H_

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "devices/cuda/launch.h"

namespace symx {
namespace cuda {

// UpSampling nearest, for one input of (N, c, h, w) into channels [offset,
// offset + c) of the (N, C, H, W) output (H, W multiples of h, w): y = x of
// the covering pixel, added when `add` (multi_input_mode=sum past the first
// input). The gradient sums each pixel's block of the output gradient.
struct UpDims {
  int64_t n = 0, c = 0, h = 0, w = 0;  // this input
  int64_t C = 0, H = 0, W = 0;         // the output
  int64_t offset = 0;                  // first output channel
};
cudaError_t LaunchUpSampleNearest(Elem t, const void* x, const UpDims& d, bool add, void* y,
                                  cudaStream_t s);
cudaError_t LaunchUpSampleNearestGrad(Elem t, const void* g, const UpDims& d, void* gx,
                                      cudaStream_t s);
// UpSampling bilinear: a depthwise transposed convolution of (N, C, h, w) data
// with weight (C, 1, k, k), stride and pad, into (N, C, H, W), gathered per
// output pixel; gradients of data (gathered per input pixel) and weight (one
// block per weight element, a fixed-order sum).
struct DepthwiseUpDims {
  int64_t n = 0, c = 0, h = 0, w = 0, H = 0, W = 0, k = 0, stride = 1, pad = 0;
};
cudaError_t LaunchDepthwiseUp(Elem t, const void* x, const void* weight, const DepthwiseUpDims& d,
                              void* y, cudaStream_t s);
cudaError_t LaunchDepthwiseUpGrad(Elem t, const void* g, const void* x, const void* weight,
                                  const DepthwiseUpDims& d, void* gx, void* gweight,
                                  cudaStream_t s);

// _contrib_AdaptiveAvgPooling2D and _contrib_BilinearResize2D over planes of
// (H, W) input and (h, w) output (devices/geometry/resize_map.h, shared with the CPU).
// Gradients gather, per input pixel, every output that samples it.
struct ResizeDims {
  int64_t planes = 0, H = 0, W = 0, h = 0, w = 0;
  bool align_corners = false;
};
cudaError_t LaunchAdaptiveAvgPool(Elem t, const void* x, const ResizeDims& d, void* y,
                                  cudaStream_t s);
cudaError_t LaunchAdaptiveAvgPoolGrad(Elem t, const void* g, const ResizeDims& d, void* gx,
                                      cudaStream_t s);
cudaError_t LaunchBilinearResize(Elem t, const void* x, const ResizeDims& d, void* y,
                                 cudaStream_t s);
cudaError_t LaunchBilinearResizeGrad(Elem t, const void* g, const ResizeDims& d, void* gx,
                                     cudaStream_t s);

}  // namespace cuda
}  // namespace symx

#endif  // SYMX_DEVICES_CUDA_RESAMPLE_LAUNCH_H_
