// Launchers of the random family's CUDA kernels (devices/cuda/random.cu),
// declared in plain C++ for the kernel registrations (devices/cuda/launch.h
// says why and what every launcher returns).
#ifndef SYMX_DEVICES_CUDA_RANDOM_LAUNCH_H_
#define SYMX_DEVICES_CUDA_RANDOM_LAUNCH_H_

#include <cuda_runtime.h>

#include <cstdint>

#include "devices/cuda/launch.h"

namespace symx {
namespace cuda {

// out[i] (n elements of type t) = a draw of distribution `dist` (a RandomDraw
// value, devices/geometry/random_draws.h) from element i's Philox stream
// under `key`, with the parameters of distribution i / block: pa[j], pb[j]
// (float64 device arrays) where given, else the scalars a, b. The CPU
// kernels draw the same streams.
cudaError_t LaunchRandomDraws(Elem t, int dist, uint64_t key, const double* pa, const double* pb,
                              double a, double b, int64_t block, void* out, int64_t n,
                              cudaStream_t s);

// out[i] (int32 or int64) = low + a draw from [0, range) (range > 0).
cudaError_t LaunchRandInt(Elem t, uint64_t key, int64_t low, uint64_t range, void* out, int64_t n,
                          cudaStream_t s);

// _shuffle: the rows of `in` (rows x row_elems elements of elem_bytes each)
// in the order of ShufflePermutation(key) (drawn on one thread into `perm`,
// a device buffer of `rows` int64s), into `out` (not aliasing `in`).
cudaError_t LaunchShuffle(uint64_t key, int64_t* perm, int64_t rows, size_t elem_bytes,
                          int64_t row_elems, const void* in, void* out, cudaStream_t s);

// _sample_multinomial: m draws from each of `rows` categorical distributions
// of k probabilities (`prob`, of type pt), as indices of type st (uint8,
// int32 or a float type); `log_prob` (type pt, may be null) gets
// log(p[draw]). Draw j of row i reads stream i * m + j, as on the CPU.
cudaError_t LaunchMultinomial(Elem pt, Elem st, uint64_t key, const void* prob, int64_t rows,
                              int64_t k, int64_t m, void* sample, void* log_prob, cudaStream_t s);

// Its backward: grad (rows x k, type pt) = the sum over row i's draws of
// ograd / p at each drawn category (zero elsewhere).
cudaError_t LaunchMultinomialGrad(Elem pt, Elem st, const void* ograd, const void* prob,
                                  const void* sample, int64_t rows, int64_t k, int64_t m,
                                  void* grad, cudaStream_t s);

// _sample_unique_zipfian: UniqueZipfianRow for each of `rows` rows (one
// thread each), with `seen` a device buffer of rows * ceil(range_max / 64)
// words that the threads zero themselves; samples (rows x n) and tries
// (rows) are int64.
cudaError_t LaunchUniqueZipfian(uint64_t key, int64_t range_max, int64_t rows, int64_t n,
                                uint64_t* seen, int64_t* samples, int64_t* tries, cudaStream_t s);

}  // namespace cuda
}  // namespace symx

#endif  // SYMX_DEVICES_CUDA_RANDOM_LAUNCH_H_
