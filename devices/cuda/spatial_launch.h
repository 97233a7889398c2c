// Launchers of the spatial CUDA kernels (devices/cuda/spatial.cu), declared in plain
// C++ for the kernel registrations (devices/cuda/launch.h says why and what
// every launcher returns).
#ifndef SYMX_DEVICES_CUDA_SPATIAL_LAUNCH_H_
#define SYMX_DEVICES_CUDA_SPATIAL_LAUNCH_H_

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "devices/cuda/launch.h"
#include "devices/geometry/correlation_map.h"

namespace symx {
namespace cuda {

// GridGenerator, BilinearSampler and SpatialTransformer
// (devices/geometry/spatial_sample.h, shared with the CPU): data (N, C, IH, IW), output
// (N, C, H, W); the grid is (N, 2, H, W), or with `affine` loc (N, 6) applied
// to the output grid. The data gradient is added with atomics (in float
// scratch for the half types: `scratch`, N * C * IH * IW floats), so its sums
// have no fixed order; the grid and loc gradients are computed per point, and
// loc's summed per sample by one block (deterministic).
struct SamplerDims {
  int64_t n = 0, c = 0, ih = 0, iw = 0, h = 0, w = 0;
  bool affine = false;
};
cudaError_t LaunchGridGenerator(Elem t, const void* in, const SamplerDims& d, void* grid,
                                cudaStream_t s);
cudaError_t LaunchGridGeneratorGrad(Elem t, const void* g, const SamplerDims& d, void* gin,
                                    cudaStream_t s);
cudaError_t LaunchSampler(Elem t, const void* data, const void* grid, const SamplerDims& d,
                          void* out, cudaStream_t s);
cudaError_t LaunchSamplerGrad(Elem t, const void* g, const void* data, const void* grid,
                              const SamplerDims& d, void* gdata, void* ggrid, void* scratch,
                              cudaStream_t s);

// Correlation over devices/geometry/correlation_map.h's index map (shared with
// the CPU): one thread per output element; the gradients one thread per input
// element, gathering every output that reads it (no atomics, deterministic).
// Sums in double for double, float otherwise.
cudaError_t LaunchCorrelation(Elem t, const void* a, const void* b, const CorrelationGeom& g,
                              void* out, cudaStream_t s);
// ga or gb null: not wanted.
cudaError_t LaunchCorrelationGrad(Elem t, const void* og, const void* a, const void* b,
                                  const CorrelationGeom& g, void* ga, void* gb, cudaStream_t s);

}  // namespace cuda
}  // namespace symx

#endif  // SYMX_DEVICES_CUDA_SPATIAL_LAUNCH_H_
