// Launchers of the deformable family's CUDA kernels (devices/cuda/deformable.cu),
// declared in plain C++ for the kernel registrations (devices/cuda/launch.h
// says why and what every launcher returns).
#ifndef SYMX_DEVICES_CUDA_DEFORMABLE_LAUNCH_H_
#define SYMX_DEVICES_CUDA_DEFORMABLE_LAUNCH_H_

#include <cuda_runtime.h>

#include <cstdint>

#include "devices/cuda/launch.h"
#include "devices/geometry/deformable_sample.h"

namespace symx {
namespace cuda {

// One sample's columns (g.col_elems(), rows channel * taps + tap, one column
// per output pixel) from its data (C, H, W), offset (2 * taps * dg, Ho, Wo)
// and mask (taps * dg, Ho, Wo; null for the unmodulated op), with the samples
// of devices/geometry/deformable_sample.h. Compute in float for the half
// types, double for double.
cudaError_t LaunchDeformIm2col(Elem t, const void* x, const void* offset, const void* mask,
                               const DeformGeom& g, void* col, cudaStream_t s);

// One sample's gradients from its column gradient `col`: the data gradient
// added (atomics) into `dx_acc` (float for the half types, else T; null: not
// wanted), and the offset and mask gradients written (null: not wanted).
cudaError_t LaunchDeformCol2im(Elem t, const void* col, const void* x, const void* offset,
                               const void* mask, const DeformGeom& g, void* dx_acc, void* doffset,
                               void* dmask, cudaStream_t s);

// y (n, f, l) += bias[f].
cudaError_t LaunchDeformAddBias(Elem t, const void* bias, int64_t n, int64_t f, int64_t l, void* y,
                                cudaStream_t s);
// db[f] = sum over n and l of dy (n, f, l).
cudaError_t LaunchDeformBiasGrad(Elem t, const void* dy, int64_t n, int64_t f, int64_t l, void* db,
                                 cudaStream_t s);
// out[i] = acc[i] (float) rounded to the half type t, i < count.
cudaError_t LaunchDeformRoundHalf(Elem t, const float* acc, int64_t count, void* out,
                                  cudaStream_t s);

}  // namespace cuda
}  // namespace symx

#endif  // SYMX_DEVICES_CUDA_DEFORMABLE_LAUNCH_H_
