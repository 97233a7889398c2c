// Launchers of the rnn CUDA kernels (devices/cuda/rnn.cu), declared in plain
// C++ for the kernel registrations (devices/cuda/launch.h says why and what
// every launcher returns).
#ifndef SYMX_DEVICES_CUDA_RNN_LAUNCH_H_
#define SYMX_DEVICES_CUDA_RNN_LAUNCH_H_

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "devices/cuda/launch.h"

namespace symx {
namespace cuda {

// One step of the fused RNN for batch x hidden units (devices/geometry/rnn_cell.h's
// math; kind an RnnCellKind). Forward: x (batch, gates*hidden), this step's
// input-side products, becomes the gate activations; g the recurrent products;
// bx, bh their biases; hp, cp (batch, hidden) the previous states (cp, c: lstm
// only; hn: gru only, else null); writes h.
cudaError_t LaunchRnnStepForward(int kind, Elem t, int64_t batch, int64_t hidden, void* x,
                                 const void* bx, const void* g, const void* bh, const void* hp,
                                 const void* cp, void* c, void* hn, void* h, cudaStream_t s);
// Backward of one step from the carried hidden gradient dh plus the output's
// dy (rows dy_stride apart) and, for lstm, dc: writes the pre-activation
// gradients gx and gh (batch, gates*hidden) and the previous step's direct
// parts dhp (and dcp).
cudaError_t LaunchRnnStepBackward(int kind, Elem t, int64_t batch, int64_t hidden, const void* x,
                                  const void* c, const void* cp, const void* hn, const void* hp,
                                  const void* dh, const void* dy, int64_t dy_stride, const void* dc,
                                  void* gx, void* gh, void* dhp, void* dcp, cudaStream_t s);

}  // namespace cuda
}  // namespace symx

#endif  // SYMX_DEVICES_CUDA_RNN_LAUNCH_H_
