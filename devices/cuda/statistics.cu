// _histogram on the GPU: one kernel writes the edges, one thread per value
// then finds its bin (devices/geometry/histogram_bins.h, the CPU's rules) and
// adds one to its count with an integer atomic.
#include "devices/cuda/elem_types.cuh"
#include "devices/cuda/statistics_launch.h"
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

}  // namespace

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
