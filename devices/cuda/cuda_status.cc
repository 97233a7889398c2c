#include "devices/cuda/cuda_status.h"

#include "absl/strings/str_cat.h"

namespace symx {
namespace cuda {

absl::Status CudaStatus(cudaError_t e, const Context& ctx, const char* call) {
  // Clears a non-sticky error so the next call does not report it again.
  cudaGetLastError();
  std::string msg = absl::StrCat(ctx.ToString(), ": ", call, ": ", cudaGetErrorString(e), " (",
                                 cudaGetErrorName(e), ")");
  if (e == cudaErrorMemoryAllocation) return absl::ResourceExhaustedError(msg);
  if (e == cudaErrorNoDevice || e == cudaErrorInvalidDevice || e == cudaErrorInsufficientDriver) {
    return absl::NotFoundError(msg);
  }
  return absl::InternalError(msg);
}

absl::Status CublasStatus(cublasStatus_t e, const Context& ctx, const char* call) {
  std::string msg =
      absl::StrCat(ctx.ToString(), ": ", call, ": ", cublasGetStatusString(e));
  if (e == CUBLAS_STATUS_ALLOC_FAILED) return absl::ResourceExhaustedError(msg);
  if (e == CUBLAS_STATUS_NOT_SUPPORTED || e == CUBLAS_STATUS_INVALID_VALUE) {
    return absl::InvalidArgumentError(msg);
  }
  return absl::InternalError(msg);
}

absl::Status CudnnStatus(cudnnStatus_t e, const Context& ctx, const char* call) {
  std::string msg = absl::StrCat(ctx.ToString(), ": ", call, ": ", cudnnGetErrorString(e));
  if (e == CUDNN_STATUS_ALLOC_FAILED) return absl::ResourceExhaustedError(msg);
  if (e == CUDNN_STATUS_NOT_SUPPORTED || e == CUDNN_STATUS_BAD_PARAM) {
    return absl::InvalidArgumentError(msg);
  }
  return absl::InternalError(msg);
}

}  // namespace cuda
}  // namespace symx
