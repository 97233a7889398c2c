// Launchers of the sequence family's CUDA kernels (devices/cuda/sequence.cu),
// declared in plain C++ for the kernel registrations (devices/cuda/launch.h
// says why and what every launcher returns).
//
// Data moves by element width (`elem_bytes`: 1, 2, 4 or 8), so every dtype
// runs; `lengths` (null: every sequence spans all steps) is read on the
// device in its own element type, through devices/geometry/sequence_index.h
// as on the CPU. One thread per output element; every output element is
// written (gathers, no atomics).
#ifndef SYMX_DEVICES_CUDA_SEQUENCE_LAUNCH_H_
#define SYMX_DEVICES_CUDA_SEQUENCE_LAUNCH_H_

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "devices/cuda/launch.h"
#include "devices/geometry/sequence_index.h"

namespace symx {
namespace cuda {

// SequenceMask: y = x, with the steps at or past each clamped length set to
// the element whose bytes are the low elem_bytes of `fill_bits`. y may be x.
cudaError_t LaunchSequenceMask(size_t elem_bytes, const void* x, Elem length_type,
                               const void* lengths, const SequenceDims& d, uint64_t fill_bits,
                               void* y, cudaStream_t s);
// SequenceReverse: y's step t is x's step ReversedStep(t, clamped length).
cudaError_t LaunchSequenceReverse(size_t elem_bytes, const void* x, Elem length_type,
                                  const void* lengths, const SequenceDims& d, void* y,
                                  cudaStream_t s);
// SequenceLast: y (batch, rest) from each batch entry's last step. The
// lengths must be in [1, steps] (checked on the host first).
cudaError_t LaunchSequenceLast(size_t elem_bytes, const void* x, Elem length_type,
                               const void* lengths, const SequenceDims& d, void* y, cudaStream_t s);
// SequenceLast's gradient: gx's last step of each entry from g (batch,
// rest), zero elsewhere.
cudaError_t LaunchSequenceLastGrad(size_t elem_bytes, const void* g, Elem length_type,
                                   const void* lengths, const SequenceDims& d, void* gx,
                                   cudaStream_t s);

}  // namespace cuda
}  // namespace symx

#endif  // SYMX_DEVICES_CUDA_SEQUENCE_LAUNCH_H_
