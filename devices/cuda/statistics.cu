// _histogram on the GPU: one kernel writes the edges, one thread per value
// then finds its bin (devices/geometry/histogram_bins.h, the CPU's rules) and
// adds one to its count with an integer atomic. _contrib_hawkesll: one thread
// per sample walks its events (devices/geometry/hawkes.h, the CPU's code);
// its backward then sums alpha's and beta's per-sample rows, one thread per
// process, in sample order (deterministic, as on the CPU).
#include "devices/cuda/elem_types.cuh"
#include "devices/cuda/statistics_launch.h"
#include "devices/geometry/hawkes.h"
#include "devices/geometry/histogram_bins.h"

namespace symx {
namespace cuda {
namespace {

template <typename T>
__global__ void HistogramEdgesKernel(const T* bins, int64_t nbins, double lo, double hi, T* edges) {
  SYMX_GRID_STRIDE(i, nbins + 1) {
    edges[i] = bins != nullptr ? bins[i] : CastValueOnDevice<T>(UniformEdge(i, nbins, lo, hi));
  }
}

template <typename T>
__global__ void HistogramCountKernel(const T* x, int64_t n, bool uniform, int64_t nbins, double lo,
                                     double hi, const T* edges, unsigned long long* counts) {
  auto edge = [edges](int64_t i) { return ToDouble(edges[i]); };
  SYMX_GRID_STRIDE(i, n) {
    const double v = ToDouble(x[i]);
    const int64_t b = uniform ? UniformBin(v, nbins, lo, hi, edge) : EdgeBin(v, nbins, edge);
    if (b >= 0) atomicAdd(counts + b, 1ULL);
  }
}

template <typename C, typename M>
__global__ void HawkesKernel(HawkesArgs a, C* ll, C* out_state, C* last) {
  const C* state = static_cast<const C*>(a.state);
  const C* valid = static_cast<const C*>(a.valid_length);
  SYMX_GRID_STRIDE(i, a.n) {
    C* st = out_state + i * a.k;
    for (int64_t k = 0; k < a.k; ++k) st[k] = state[i * a.k + k];
    ll[i] = HawkesLogLikelihood<C, M>(
        static_cast<const C*>(a.mu) + i * a.k, static_cast<const C*>(a.alpha),
        static_cast<const C*>(a.beta), static_cast<const C*>(a.lags) + i * a.t,
        static_cast<const M*>(a.marks) + i * a.t, HawkesEvents(static_cast<double>(valid[i]), a.t),
        static_cast<const C*>(a.max_time)[i], a.k, st, last + i * a.k);
  }
}

template <typename C, typename M>
__global__ void HawkesBackwardKernel(HawkesArgs a, const C* g, C* mu_g, C* scratch) {
  const C* state = static_cast<const C*>(a.state);
  const C* valid = static_cast<const C*>(a.valid_length);
  const int64_t nk = a.n * a.k;
  C* alpha_rows = scratch;
  C* beta_rows = scratch + nk;
  SYMX_GRID_STRIDE(i, a.n) {
    C* phi = scratch + 2 * nk + i * a.k;
    C* phig = scratch + 3 * nk + i * a.k;
    C* last = scratch + 4 * nk + i * a.k;
    for (int64_t k = 0; k < a.k; ++k) phi[k] = state[i * a.k + k];
    HawkesLogLikelihoodGrad<C, M>(
        static_cast<const C*>(a.mu) + i * a.k, static_cast<const C*>(a.alpha),
        static_cast<const C*>(a.beta), static_cast<const C*>(a.lags) + i * a.t,
        static_cast<const M*>(a.marks) + i * a.t, HawkesEvents(static_cast<double>(valid[i]), a.t),
        static_cast<const C*>(a.max_time)[i], a.k, g[i], phi, phig, last, mu_g + i * a.k,
        alpha_rows + i * a.k, beta_rows + i * a.k);
  }
}

template <typename C>
__global__ void SumRowsKernel(const C* rows, int64_t n, int64_t k, C* out) {
  SYMX_GRID_STRIDE(j, k) {
    C sum = C(0);
    for (int64_t i = 0; i < n; ++i) sum += rows[i * k + j];
    out[j] = sum;
  }
}

// Calls body with `using C` (float or double) and `using M` (the marks' type).
#define SYMX_HAWKES_SWITCH(t_data, t_marks, ...)          \
  SYMX_CUDA_F32_F64_SWITCH(t_data, C, {                   \
    switch (t_marks) {                                    \
      SYMX_CUDA_CASE(Elem::kF32, M, float, __VA_ARGS__)   \
      SYMX_CUDA_CASE(Elem::kF64, M, double, __VA_ARGS__)  \
      SYMX_CUDA_CASE(Elem::kU8, M, uint8_t, __VA_ARGS__)  \
      SYMX_CUDA_CASE(Elem::kI8, M, int8_t, __VA_ARGS__)   \
      SYMX_CUDA_CASE(Elem::kI32, M, int32_t, __VA_ARGS__) \
      SYMX_CUDA_CASE(Elem::kI64, M, int64_t, __VA_ARGS__) \
      default:                                            \
        return cudaErrorInvalidValue;                     \
    }                                                     \
  })

}  // namespace

cudaError_t LaunchHawkes(Elem t_data, Elem t_marks, const HawkesArgs& a, void* ll, void* out_state,
                         void* scratch, cudaStream_t s) {
  if (a.n == 0) return cudaSuccess;
  SYMX_HAWKES_SWITCH(t_data, t_marks, {
    HawkesKernel<C, M><<<GridFor(a.n), kThreads, 0, s>>>(
        a, static_cast<C*>(ll), static_cast<C*>(out_state), static_cast<C*>(scratch));
  });
  return LastLaunchError();
}

cudaError_t LaunchHawkesBackward(Elem t_data, Elem t_marks, const HawkesArgs& a, const void* g,
                                 void* mu_g, void* alpha_g, void* beta_g, void* scratch,
                                 cudaStream_t s) {
  SYMX_HAWKES_SWITCH(t_data, t_marks, {
    C* rows = static_cast<C*>(scratch);
    if (a.n > 0) {
      HawkesBackwardKernel<C, M><<<GridFor(a.n), kThreads, 0, s>>>(a, static_cast<const C*>(g),
                                                                   static_cast<C*>(mu_g), rows);
    }
    if (a.k > 0) {
      SumRowsKernel<C><<<GridFor(a.k), kThreads, 0, s>>>(rows, a.n, a.k, static_cast<C*>(alpha_g));
      SumRowsKernel<C>
          <<<GridFor(a.k), kThreads, 0, s>>>(rows + a.n * a.k, a.n, a.k, static_cast<C*>(beta_g));
    }
  });
  return LastLaunchError();
}

cudaError_t LaunchHistogram(Elem t, const void* x, int64_t n, const void* bins, int64_t nbins,
                            double lo, double hi, void* edges_out, int64_t* counts,
                            cudaStream_t s) {
  static_assert(sizeof(unsigned long long) == sizeof(int64_t), "64-bit counters");
  cudaError_t err = cudaMemsetAsync(counts, 0, sizeof(int64_t) * nbins, s);
  if (err != cudaSuccess) return err;
  SYMX_CUDA_ALL_SWITCH(t, T, {
    T* edges = static_cast<T*>(edges_out);
    HistogramEdgesKernel<T>
        <<<GridFor(nbins + 1), kThreads, 0, s>>>(static_cast<const T*>(bins), nbins, lo, hi, edges);
    if (n > 0) {
      HistogramCountKernel<T><<<GridFor(n), kThreads, 0, s>>>(
          static_cast<const T*>(x), n, bins == nullptr, nbins, lo, hi, edges,
          reinterpret_cast<unsigned long long*>(counts));
    }
  });
  return LastLaunchError();
}

}  // namespace cuda
}  // namespace symx
