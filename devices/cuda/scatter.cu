// The scatter family's CUDA kernels (launchers in devices/cuda/scatter_launch.h):
// one indexed row copy, one thread per element, whose row tables the kernel
// registrations compute on the host (devices/geometry/scatter_plan.h).
#include "devices/cuda/elem_types.cuh"
#include "devices/cuda/scatter_launch.h"

namespace symx {
namespace cuda {
namespace {

template <typename E>
__global__ void RowCopyKernel(const E* src, const int64_t* src_rows, E* dst,
                              const int64_t* dst_rows, int64_t slice, int64_t n) {
  SYMX_GRID_STRIDE(i, n) {
    const int64_t r = i / slice, k = i - r * slice;
    const int64_t from = src_rows ? src_rows[r] : r;
    const int64_t to = dst_rows ? dst_rows[r] : r;
    dst[to * slice + k] = src[from * slice + k];
  }
}

template <typename E>
cudaError_t Launch(const void* src, const int64_t* src_rows, void* dst, const int64_t* dst_rows,
                   int64_t slice, int64_t n, cudaStream_t s) {
  RowCopyKernel<E><<<GridFor(n), kThreads, 0, s>>>(static_cast<const E*>(src), src_rows,
                                                   static_cast<E*>(dst), dst_rows, slice, n);
  return LastLaunchError();
}

}  // namespace

cudaError_t LaunchRowCopy(size_t elem_bytes, const void* src, const int64_t* src_rows, void* dst,
                          const int64_t* dst_rows, int64_t count, int64_t slice, cudaStream_t s) {
  const int64_t n = count * slice;
  if (n == 0) return cudaSuccess;
  switch (elem_bytes) {
    case 1:
      return Launch<uint8_t>(src, src_rows, dst, dst_rows, slice, n, s);
    case 2:
      return Launch<uint16_t>(src, src_rows, dst, dst_rows, slice, n, s);
    case 4:
      return Launch<uint32_t>(src, src_rows, dst, dst_rows, slice, n, s);
    case 8:
      return Launch<uint64_t>(src, src_rows, dst, dst_rows, slice, n, s);
    default:
      return cudaErrorInvalidValue;
  }
}

}  // namespace cuda
}  // namespace symx
