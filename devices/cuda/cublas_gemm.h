// Row-major GEMMs through cuBLAS (FullyConnected, dot, batch_dot, RNN).
// Row-major products are computed as their column-major transposes
// (C^T = op(B)^T op(A)^T), so no operand is ever copied. float16 and bfloat16
// accumulate in float32 (tensor cores); float32 stays IEEE float32 (no TF32),
// as MXNet computed it; float64 in float64.
#ifndef SYMX_DEVICES_CUDA_CUBLAS_GEMM_H_
#define SYMX_DEVICES_CUDA_CUBLAS_GEMM_H_

#include <cstdint>

#include "absl/status/status.h"
#include "devices/cuda/kernel_util.h"

namespace symx {
namespace cuda {

// Row-major C (m x n, leading dim ldc) = alpha op(A) op(B) + beta C, op(A)
// m x k. `batch` products at the given element strides. Errors name the node.
absl::Status Gemm(const KernelContext& ctx, CudaDevice* device, Elem t, bool ta, bool tb,
                  int64_t m, int64_t n, int64_t k, const void* a, int64_t lda, const void* b,
                  int64_t ldb, void* c, int64_t ldc, double alpha, double beta,
                  int64_t batch = 1, int64_t sa = 0, int64_t sb = 0, int64_t sc = 0);

}  // namespace cuda
}  // namespace symx

#endif  // SYMX_DEVICES_CUDA_CUBLAS_GEMM_H_
