// Launchers of the statistics CUDA kernels (devices/cuda/statistics.cu),
// declared in plain C++ for the kernel registrations (devices/cuda/launch.h
// says why and what every launcher returns).
#ifndef SYMX_DEVICES_CUDA_STATISTICS_LAUNCH_H_
#define SYMX_DEVICES_CUDA_STATISTICS_LAUNCH_H_

#include <cuda_runtime.h>

#include <cstdint>

#include "devices/cuda/launch.h"

namespace symx {
namespace cuda {

// _histogram of n values x (dtype t) into nbins int64 counts, with the
// nbins + 1 edges written to `edges_out`: from `bins` (the same dtype) when
// not null, else nbins equal bins over [lo, hi] (devices/geometry/histogram_bins.h).
// Counts are integer atomics, so the result does not depend on the order.
cudaError_t LaunchHistogram(Elem t, const void* x, int64_t n, const void* bins, int64_t nbins,
                            double lo, double hi, void* edges_out, int64_t* counts, cudaStream_t s);

}  // namespace cuda
}  // namespace symx

#endif  // SYMX_DEVICES_CUDA_STATISTICS_LAUNCH_H_
