// CUDA, cuBLAS and cuDNN return codes as absl::Status, naming the device and
// the call that failed ("gpu(0): cudaMemcpyAsync: out of memory").
#ifndef SYMX_DEVICES_CUDA_CUDA_STATUS_H_
#define SYMX_DEVICES_CUDA_CUDA_STATUS_H_

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include "absl/status/status.h"
#include "devices/context.h"

namespace symx {
namespace cuda {

absl::Status CudaStatus(cudaError_t e, const Context& ctx, const char* call);
absl::Status CublasStatus(cublasStatus_t e, const Context& ctx, const char* call);
absl::Status CudnnStatus(cudnnStatus_t e, const Context& ctx, const char* call);

}  // namespace cuda
}  // namespace symx

// Returns the failure of a CUDA runtime call, naming `ctx` and the call.
#define SYMX_CUDA_RETURN_IF_ERROR(ctx, call)                                                \
  do {                                                                                      \
    cudaError_t symx_cuda_e_ = (call);                                                      \
    if (symx_cuda_e_ != cudaSuccess) return ::symx::cuda::CudaStatus(symx_cuda_e_, ctx, #call); \
  } while (0)

#define SYMX_CUBLAS_RETURN_IF_ERROR(ctx, call)                          \
  do {                                                                  \
    cublasStatus_t symx_cublas_e_ = (call);                             \
    if (symx_cublas_e_ != CUBLAS_STATUS_SUCCESS)                        \
      return ::symx::cuda::CublasStatus(symx_cublas_e_, ctx, #call);    \
  } while (0)

#define SYMX_CUDNN_RETURN_IF_ERROR(ctx, call)                         \
  do {                                                                \
    cudnnStatus_t symx_cudnn_e_ = (call);                             \
    if (symx_cudnn_e_ != CUDNN_STATUS_SUCCESS)                        \
      return ::symx::cuda::CudnnStatus(symx_cudnn_e_, ctx, #call);     \
  } while (0)

#endif  // SYMX_DEVICES_CUDA_CUDA_STATUS_H_
