// Launchers of the ctc CUDA kernels (devices/cuda/ctc.cu), declared in plain
// C++ for the kernel registrations (devices/cuda/launch.h says why and what
// every launcher returns).
#ifndef SYMX_DEVICES_CUDA_CTC_LAUNCH_H_
#define SYMX_DEVICES_CUDA_CTC_LAUNCH_H_

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "devices/cuda/launch.h"

namespace symx {
namespace cuda {

// CTCLoss's loss (batch) and gradient (tmax, batch, alphabet) from the scores
// x, one block per sample: `meta` is the samples' table (devices/geometry/ctc_math.h's
// CtcMetaPerSample layout, on the device), `scratch` scratch_per_sample
// doubles per sample.
cudaError_t LaunchCtcLoss(Elem t, const void* x, int64_t tmax, int64_t batch, int64_t alphabet,
                          int64_t max_symbols, const int64_t* meta, double* scratch,
                          int64_t scratch_per_sample, void* grad, void* loss, cudaStream_t s);

}  // namespace cuda
}  // namespace symx

#endif  // SYMX_DEVICES_CUDA_CTC_LAUNCH_H_
