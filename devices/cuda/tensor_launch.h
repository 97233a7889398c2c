// Launchers of the tensor CUDA kernels (devices/cuda/tensor.cu), declared in plain
// C++ for the kernel registrations (devices/cuda/launch.h says why and what
// every launcher returns).
#ifndef SYMX_DEVICES_CUDA_TENSOR_LAUNCH_H_
#define SYMX_DEVICES_CUDA_TENSOR_LAUNCH_H_

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "devices/cuda/launch.h"

namespace symx {
namespace cuda {

// Pad (devices/geometry/pad_map.h) over up to kMaxDims dims: y = x at each output's
// source, or `value` for the constant. The gradient gathers, per input
// element, every output that copies it (the one position inside, plus the
// edge/reflect copies in the pad regions): no atomics, deterministic.
struct PadDims {
  int ndim = 0;
  int kind = 0;  // PadKind
  int64_t in[kMaxDims] = {};
  int64_t out[kMaxDims] = {};
  int64_t before[kMaxDims] = {};
};
cudaError_t LaunchPad(Elem t, const void* x, const PadDims& d, double value, void* y, int64_t n,
                      cudaStream_t s);
cudaError_t LaunchPadGrad(Elem t, const void* g, const PadDims& d, void* gx, int64_t n,
                          cudaStream_t s);

}  // namespace cuda
}  // namespace symx

#endif  // SYMX_DEVICES_CUDA_TENSOR_LAUNCH_H_
