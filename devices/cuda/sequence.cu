// The sequence family's CUDA kernels (launchers in devices/cuda/sequence_launch.h).
#include <cstring>

#include "devices/cuda/elem_types.cuh"
#include "devices/cuda/sequence_launch.h"

namespace symx {
namespace cuda {
namespace {

enum Mode { kMask, kReverse, kLast, kLastGrad };

// Calls body with `using L = <storage type>` for the length dtypes MXNet
// takes; cudaErrorInvalidValue for the others.
#define SYMX_SEQ_LENGTH_SWITCH(elem, L, ...)              \
  switch (elem) {                                         \
    SYMX_CUDA_CASE(Elem::kF32, L, float, __VA_ARGS__)     \
    SYMX_CUDA_CASE(Elem::kF64, L, double, __VA_ARGS__)    \
    SYMX_CUDA_CASE(Elem::kF16, L, __half, __VA_ARGS__)    \
    SYMX_CUDA_CASE(Elem::kU8, L, uint8_t, __VA_ARGS__)    \
    SYMX_CUDA_CASE(Elem::kI8, L, int8_t, __VA_ARGS__)     \
    SYMX_CUDA_CASE(Elem::kI32, L, int32_t, __VA_ARGS__)   \
    SYMX_CUDA_CASE(Elem::kI64, L, int64_t, __VA_ARGS__)   \
    default:                                              \
      return cudaErrorInvalidValue;                       \
  }

template <typename L>
__device__ __forceinline__ double LengthOf(const L* lengths, int64_t b, int64_t steps) {
  return lengths == nullptr ? static_cast<double>(steps) : ToDouble(lengths[b]);
}

// n output elements: data-shaped for kMask, kReverse and kLastGrad,
// (batch, rest) for kLast.
template <Mode kMode, typename U, typename L>
__global__ void SequenceKernel(const U* x, const L* lengths, SequenceDims d, U fill, U* y,
                               int64_t n) {
  SYMX_GRID_STRIDE(i, n) {
    const int64_t r = i % d.rest;
    if constexpr (kMode == kLast) {
      const int64_t b = i / d.rest;
      const int64_t last = LastStep(LengthOf(lengths, b, d.steps), d.steps);
      y[i] = x[StepOffset(d, last, b) + r];
    } else {
      int64_t t = 0, b = 0;
      StepOf(d, i, &t, &b);
      const double v = LengthOf(lengths, b, d.steps);
      if constexpr (kMode == kMask) {
        y[i] = t < ClampedLength(v, d.steps) ? x[i] : fill;
      } else if constexpr (kMode == kReverse) {
        y[i] = x[StepOffset(d, ReversedStep(t, ClampedLength(v, d.steps)), b) + r];
      } else {
        y[i] = t == LastStep(v, d.steps) ? x[b * d.rest + r] : U(0);
      }
    }
  }
}

template <Mode kMode>
cudaError_t Launch(size_t elem_bytes, const void* x, Elem length_type, const void* lengths,
                   const SequenceDims& d, uint64_t fill_bits, void* y, cudaStream_t s) {
  const int64_t n = (kMode == kLast ? 1 : d.steps) * d.batch * d.rest;
  if (n == 0) return cudaSuccess;
  SYMX_CUDA_WIDTH_SWITCH(elem_bytes, U, {
    U fill;
    std::memcpy(&fill, &fill_bits, sizeof(U));
    SYMX_SEQ_LENGTH_SWITCH(length_type, L, {
      SequenceKernel<kMode, U, L><<<GridFor(n), kThreads, 0, s>>>(
          static_cast<const U*>(x), static_cast<const L*>(lengths), d, fill, static_cast<U*>(y),
          n);
    });
  });
  return LastLaunchError();
}

}  // namespace

cudaError_t LaunchSequenceMask(size_t elem_bytes, const void* x, Elem length_type,
                               const void* lengths, const SequenceDims& d, uint64_t fill_bits,
                               void* y, cudaStream_t s) {
  return Launch<kMask>(elem_bytes, x, length_type, lengths, d, fill_bits, y, s);
}

cudaError_t LaunchSequenceReverse(size_t elem_bytes, const void* x, Elem length_type,
                                  const void* lengths, const SequenceDims& d, void* y,
                                  cudaStream_t s) {
  return Launch<kReverse>(elem_bytes, x, length_type, lengths, d, 0, y, s);
}

cudaError_t LaunchSequenceLast(size_t elem_bytes, const void* x, Elem length_type,
                               const void* lengths, const SequenceDims& d, void* y,
                               cudaStream_t s) {
  return Launch<kLast>(elem_bytes, x, length_type, lengths, d, 0, y, s);
}

cudaError_t LaunchSequenceLastGrad(size_t elem_bytes, const void* g, Elem length_type,
                                   const void* lengths, const SequenceDims& d, void* gx,
                                   cudaStream_t s) {
  return Launch<kLastGrad>(elem_bytes, g, length_type, lengths, d, 0, gx, s);
}

}  // namespace cuda
}  // namespace symx
