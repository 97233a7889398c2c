// The random_pdf family's CUDA kernels (launchers in
// devices/cuda/random_pdf_launch.h): the densities of
// devices/geometry/random_densities.h, in double, as the CPU kernels compute.
#include "devices/cuda/elem_types.cuh"
#include "devices/cuda/random_pdf_launch.h"
#include "devices/geometry/random_densities.h"

namespace symx {
namespace cuda {
namespace {

template <typename T>
__device__ __forceinline__ double At(const T* p, int64_t i) {
  return static_cast<double>(Load(p, i));
}

template <typename T>
struct Component {
  const T* p;
  __device__ double operator()(int64_t c) const { return At(p, c); }
};

template <typename T>
__global__ void PdfKernel(DensityLaw law, bool is_log, const T* x, const T* a, const T* b,
                          int64_t block, int64_t k, T* out, int64_t n) {
  SYMX_GRID_STRIDE(i, n) {
    const int64_t j = i / block;
    double lpdf = 0;
    if (law == DensityLaw::kDirichlet) {
      lpdf = DirichletLogDensity(Component<T>{x + i * k}, Component<T>{a + j * k}, k);
    } else {
      lpdf = LogDensity(law, At(x, i), At(a, j), b != nullptr ? At(b, j) : 0.0);
    }
    Store(out, i, static_cast<Acc<T>>(is_log ? lpdf : exp(lpdf)));
  }
}

template <typename T>
__global__ void PdfGradKernel(DensityLaw law, bool is_log, const T* og, const T* x, const T* a,
                              const T* b, const T* y, int64_t block, int64_t k, T* gx, T* ga, T* gb,
                              int64_t dists) {
  SYMX_GRID_STRIDE(j, dists) {
    if (law == DensityLaw::kDirichlet) {
      double sum_alpha = 0;
      for (int64_t c = 0; c < k; ++c) sum_alpha += At(a, j * k + c);
      const double psi_sum = Digamma(sum_alpha);
      for (int64_t c = 0; c < k; ++c) {
        const double ac = At(a, j * k + c), psi_a = Digamma(ac);
        double sum = 0;
        for (int64_t i = j * block; i < (j + 1) * block; ++i) {
          const double scale = At(og, i) * (is_log ? 1.0 : At(y, i));
          const double xc = At(x, i * k + c);
          sum += scale * (log(xc) + (psi_sum - psi_a));
          Store(gx, i * k + c, static_cast<Acc<T>>(scale * (ac - 1) / xc));
        }
        Store(ga, j * k + c, static_cast<Acc<T>>(sum));
      }
      continue;
    }
    const double aj = At(a, j), bj = b != nullptr ? At(b, j) : 0.0;
    double sum_a = 0, sum_b = 0;
    for (int64_t i = j * block; i < (j + 1) * block; ++i) {
      const double scale = At(og, i) * (is_log ? 1.0 : At(y, i));
      double dx = 0, da = 0, db = 0;
      LogDensityGrad(law, At(x, i), aj, bj, scale, &dx, &da, &db);
      Store(gx, i, static_cast<Acc<T>>(dx));
      sum_a += da;
      sum_b += db;
    }
    Store(ga, j, static_cast<Acc<T>>(sum_a));
    if (gb != nullptr) Store(gb, j, static_cast<Acc<T>>(sum_b));
  }
}

}  // namespace

cudaError_t LaunchPdf(Elem t, int law, bool is_log, const void* x, const void* a, const void* b,
                      int64_t dists, int64_t block, int64_t k, void* out, cudaStream_t s) {
  const int64_t n = dists * block;
  if (n == 0) return cudaSuccess;
  if (block <= 0 || k <= 0) return cudaErrorInvalidValue;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    PdfKernel<T><<<GridFor(n), kThreads, 0, s>>>(
        static_cast<DensityLaw>(law), is_log, static_cast<const T*>(x), static_cast<const T*>(a),
        static_cast<const T*>(b), block, k, static_cast<T*>(out), n);
  });
  return LastLaunchError();
}

cudaError_t LaunchPdfGrad(Elem t, int law, bool is_log, const void* og, const void* x,
                          const void* a, const void* b, const void* y, int64_t dists, int64_t block,
                          int64_t k, void* gx, void* ga, void* gb, cudaStream_t s) {
  if (dists == 0) return cudaSuccess;
  if (block < 0 || k <= 0) return cudaErrorInvalidValue;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    PdfGradKernel<T><<<GridFor(dists), kThreads, 0, s>>>(
        static_cast<DensityLaw>(law), is_log, static_cast<const T*>(og), static_cast<const T*>(x),
        static_cast<const T*>(a), static_cast<const T*>(b), static_cast<const T*>(y), block, k,
        static_cast<T*>(gx), static_cast<T*>(ga), static_cast<T*>(gb), dists);
  });
  return LastLaunchError();
}

}  // namespace cuda
}  // namespace symx
