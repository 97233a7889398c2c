// Launchers of the scatter family's CUDA kernels (devices/cuda/scatter.cu),
// declared in plain C++ for the kernel registrations (devices/cuda/launch.h
// says why and what every launcher returns).
#ifndef SYMX_DEVICES_CUDA_SCATTER_LAUNCH_H_
#define SYMX_DEVICES_CUDA_SCATTER_LAUNCH_H_

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "devices/cuda/launch.h"

namespace symx {
namespace cuda {

// Rows of `slice` elements of `elem_bytes` (1, 2, 4 or 8) bytes: for each
// r < count, dst row dst_rows[r] = src row src_rows[r] (a null table reads
// r). Both tables live on the device. Where two entries write one dst row,
// one of them wins.
cudaError_t LaunchRowCopy(size_t elem_bytes, const void* src, const int64_t* src_rows, void* dst,
                          const int64_t* dst_rows, int64_t count, int64_t slice, cudaStream_t s);

}  // namespace cuda
}  // namespace symx

#endif  // SYMX_DEVICES_CUDA_SCATTER_LAUNCH_H_
