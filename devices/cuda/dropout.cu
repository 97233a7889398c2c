// The dropout family's CUDA kernels (launchers in devices/cuda/dropout_launch.h).
//
// Dropout masks, Embedding, where and clip on the GPU.
#include "devices/cuda/dropout_launch.h"
#include "devices/cuda/elem_types.cuh"

namespace symx {
namespace cuda {
namespace {

constexpr uint64_t kGamma = 0x9e3779b97f4a7c15ull;

__device__ __forceinline__ uint64_t Mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

template <typename T>
__global__ void DropoutMaskKernel(uint64_t base, uint64_t threshold, Acc<T> scale, T* mask,
                                  int64_t n) {
  constexpr int64_t kChunk = int64_t{1} << 16;
  SYMX_GRID_STRIDE(i, n) {
    const int64_t c = i / kChunk;
    const int64_t k = (i - c * kChunk) / 2;  // the chunk generator's draw
    // The chunk's seed is its SplitMix64's first output; draw k is the
    // (k + 1)-th output of a SplitMix64 started at that seed.
    const uint64_t seed = Mix(base + static_cast<uint64_t>(c) * 0xd1b54a32d192ed03ull + kGamma);
    const uint64_t r = Mix(seed + static_cast<uint64_t>(k + 1) * kGamma);
    const uint64_t u = ((i - c * kChunk) % 2 == 0) ? (r >> 32) : (r & 0xffffffffull);
    Store(mask, i, u < threshold ? scale : Acc<T>(0));
  }
}

}  // namespace

cudaError_t LaunchDropoutMask(Elem t, uint64_t base, double keep, double scale, void* mask,
                              int64_t n, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  const uint64_t threshold = static_cast<uint64_t>(ldexp(keep, 32));
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    DropoutMaskKernel<T><<<GridFor(n), kThreads, 0, s>>>(
        base, threshold, static_cast<Acc<T>>(scale), static_cast<T*>(mask), n);
  });
  return LastLaunchError();
}

}  // namespace cuda
}  // namespace symx
