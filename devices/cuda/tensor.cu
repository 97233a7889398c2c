// The tensor family's CUDA kernels (launchers in devices/cuda/tensor_launch.h).
//
// Pad and UpSampling on the GPU: one thread per output element for the
// forward copies, one per input element for the gradients, which gather
// what they sum (deterministic, no atomics). Pad's geometry is
// devices/geometry/pad_map.h, the function the CPU kernel uses.
#include "devices/cuda/block_reduce.cuh"
#include "devices/cuda/elem_types.cuh"
#include "devices/cuda/tensor_launch.h"
#include "devices/geometry/pad_map.h"
#include "devices/geometry/resize_map.h"

namespace symx {
namespace cuda {
namespace {

template <typename T>
__global__ void PadKernel(const T* x, PadDims d, Acc<T> value, T* y, int64_t n) {
  const PadKind kind = static_cast<PadKind>(d.kind);
  SYMX_GRID_STRIDE(i, n) {
    int64_t rest = i, src = 0, stride = 1;
    bool constant = false;
    for (int k = d.ndim - 1; k >= 0; --k) {
      const int64_t o = rest % d.out[k];
      rest /= d.out[k];
      const int64_t at = PadSource(o, d.before[k], d.in[k], kind);
      if (at < 0) constant = true;
      src += at * stride;
      stride *= d.in[k];
    }
    Store(y, i, constant ? value : Load(x, src));
  }
}

// Per input element: the outputs along each axis that copy its coordinate c
// are c + before (inside) and, for edge/reflect, positions in the pad
// regions [0, before) and [before + len, out) whose source is c; the sum runs
// over every combination of them.
template <typename T>
__global__ void PadGradKernel(const T* g, PadDims d, T* gx, int64_t n) {
  using C = Acc<T>;
  const PadKind kind = static_cast<PadKind>(d.kind);
  SYMX_GRID_STRIDE(i, n) {
    int64_t coord[kMaxDims], choices[kMaxDims];
    int64_t rest = i, combos = 1;
    for (int k = d.ndim - 1; k >= 0; --k) {
      coord[k] = rest % d.in[k];
      rest /= d.in[k];
      choices[k] = kind == PadKind::kConstant ? 1 : d.out[k] - d.in[k] + 1;
      combos *= choices[k];
    }
    C acc = C(0);
    for (int64_t combo = 0; combo < combos; ++combo) {
      int64_t r = combo, at = 0, stride = 1;
      bool copies = true;
      for (int k = d.ndim - 1; k >= 0 && copies; --k) {
        const int64_t pick = r % choices[k];
        r /= choices[k];
        int64_t o;
        if (pick == 0) {
          o = coord[k] + d.before[k];
        } else if (pick - 1 < d.before[k]) {
          o = pick - 1;
        } else {
          o = d.before[k] + d.in[k] + (pick - 1 - d.before[k]);
        }
        copies = pick == 0 || PadSource(o, d.before[k], d.in[k], kind) == coord[k];
        at += o * stride;
        stride *= d.out[k];
      }
      if (copies) acc += Load(g, at);
    }
    Store(gx, i, acc);
  }
}

}  // namespace

cudaError_t LaunchPad(Elem t, const void* x, const PadDims& d, double value, void* y, int64_t n,
                      cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  if (d.ndim < 1 || d.ndim > kMaxDims) return cudaErrorInvalidValue;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    PadKernel<T><<<GridFor(n), kThreads, 0, s>>>(static_cast<const T*>(x), d,
                                                 static_cast<Acc<T>>(value), static_cast<T*>(y), n);
  });
  return LastLaunchError();
}

cudaError_t LaunchPadGrad(Elem t, const void* g, const PadDims& d, void* gx, int64_t n,
                          cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  if (d.ndim < 1 || d.ndim > kMaxDims) return cudaErrorInvalidValue;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    PadGradKernel<T>
        <<<GridFor(n), kThreads, 0, s>>>(static_cast<const T*>(g), d, static_cast<T*>(gx), n);
  });
  return LastLaunchError();
}

}  // namespace cuda
}  // namespace symx
