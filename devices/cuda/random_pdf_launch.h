// Launchers of the random_pdf family's CUDA kernels (devices/cuda/random_pdf.cu),
// declared in plain C++ for the kernel registrations (devices/cuda/launch.h
// says why and what every launcher returns).
#ifndef SYMX_DEVICES_CUDA_RANDOM_PDF_LAUNCH_H_
#define SYMX_DEVICES_CUDA_RANDOM_PDF_LAUNCH_H_

#include <cuda_runtime.h>

#include <cstdint>

#include "devices/cuda/launch.h"

namespace symx {
namespace cuda {

// The densities (log densities with is_log) of law `law` (a DensityLaw value,
// devices/geometry/random_densities.h): `dists` distributions with
// parameters a[j], b[j] (b null for one-parameter laws; Dirichlet: a holds k
// components per distribution), each owning `block` samples of k components
// in x; out has dists * block elements. All arrays of type t.
cudaError_t LaunchPdf(Elem t, int law, bool is_log, const void* x, const void* a, const void* b,
                      int64_t dists, int64_t block, int64_t k, void* out, cudaStream_t s);

// The gradients of the samples (gx) and parameters (ga, gb; gb null with b)
// from the output gradient og and the forward output y, one thread per
// distribution summing its block, as the CPU kernel does.
cudaError_t LaunchPdfGrad(Elem t, int law, bool is_log, const void* og, const void* x,
                          const void* a, const void* b, const void* y, int64_t dists, int64_t block,
                          int64_t k, void* gx, void* ga, void* gb, cudaStream_t s);

}  // namespace cuda
}  // namespace symx

#endif  // SYMX_DEVICES_CUDA_RANDOM_PDF_LAUNCH_H_
