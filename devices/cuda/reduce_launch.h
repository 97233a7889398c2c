// Launchers of the reduce CUDA kernels (devices/cuda/reduce.cu), declared in plain
// C++ for the kernel registrations (devices/cuda/launch.h says why and what
// every launcher returns).
#ifndef SYMX_DEVICES_CUDA_REDUCE_LAUNCH_H_
#define SYMX_DEVICES_CUDA_REDUCE_LAUNCH_H_

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "devices/cuda/launch.h"

namespace symx {
namespace cuda {

// out[c] = scale * sum over r of in[r, c] for a rows x cols matrix, or
// out[c] += that when `accumulate` (float types; float32 accumulation for the
// half types).
cudaError_t LaunchColumnSums(Elem t, const void* in, int64_t rows, int64_t cols, double scale,
                             bool accumulate, void* out, cudaStream_t s);

// What a reduction computes: kSum is scaled by the launch's `scale`; kMax and
// kMin let NaN win; kNanSum and kNanProd skip NaN; kNorm1 sums |x|, kNorm2 is
// the square root of the sum of x^2.
enum class ReduceFn { kSum, kMax, kMin, kProd, kNanSum, kNanProd, kNorm1, kNorm2 };
// Reductions over the middle axis of an (outer, len, inner) view:
// y[o, i] = scale * sum_l x[o, l, i] (kSum), or the other reductions of ReduceFn;
// float types, and int8, uint8, int32, int64 (accumulated in their own type)
// for all but the norms.
cudaError_t LaunchReduce(ReduceFn f, Elem t, const void* x, int64_t outer, int64_t len,
                         int64_t inner, double scale, void* y, cudaStream_t s);

}  // namespace cuda
}  // namespace symx

#endif  // SYMX_DEVICES_CUDA_REDUCE_LAUNCH_H_
