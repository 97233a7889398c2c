// Launchers of the statistics CUDA kernels (_histogram, _contrib_hawkesll)
// (devices/cuda/statistics.cu), declared in plain C++ for the kernel registrations
// (devices/cuda/launch.h says why and what every launcher returns).
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

// _contrib_hawkesll (devices/geometry/hawkes.h), one thread per sample: n
// samples, k processes, t events per row. Data (lda, alpha, beta, state, lags,
// valid_length, max_time) in float32/float64 (`t_data`), marks in `t_marks`
// (validated by the caller). `scratch` holds n * k values of the data dtype.
struct HawkesArgs {
  const void* mu = nullptr;
  const void* alpha = nullptr;
  const void* beta = nullptr;
  const void* state = nullptr;
  const void* lags = nullptr;
  const void* marks = nullptr;
  const void* valid_length = nullptr;
  const void* max_time = nullptr;
  int64_t n = 0, k = 0, t = 0;
};
cudaError_t LaunchHawkes(Elem t_data, Elem t_marks, const HawkesArgs& a, void* ll, void* out_state,
                         void* scratch, cudaStream_t s);
// Its backward from ll's head gradient g (n): the gradients of lda (n, k),
// alpha (k) and beta (k), the last two summed over samples in sample order.
// `scratch` holds 5 * n * k values of the data dtype.
cudaError_t LaunchHawkesBackward(Elem t_data, Elem t_marks, const HawkesArgs& a, const void* g,
                                 void* mu_g, void* alpha_g, void* beta_g, void* scratch,
                                 cudaStream_t s);

}  // namespace cuda
}  // namespace symx

#endif  // SYMX_DEVICES_CUDA_STATISTICS_LAUNCH_H_
