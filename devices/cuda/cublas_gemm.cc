// Row-major GEMMs through cuBLAS, for every kernel that multiplies matrices.
#include "devices/cuda/cublas_gemm.h"

#include "absl/strings/str_cat.h"
#include "devices/cuda/cuda_status.h"

namespace symx {
namespace cuda {
namespace {

struct GemmTypes {
  cudaDataType_t data;
  cublasComputeType_t compute;
};

GemmTypes TypesOf(Elem t) {
  switch (t) {
    case Elem::kF64:
      return {CUDA_R_64F, CUBLAS_COMPUTE_64F};
    case Elem::kF16:
      return {CUDA_R_16F, CUBLAS_COMPUTE_32F};
    case Elem::kBF16:
      return {CUDA_R_16BF, CUBLAS_COMPUTE_32F};
    default:
      return {CUDA_R_32F, CUBLAS_COMPUTE_32F};
  }
}

}  // namespace

absl::Status Gemm(const KernelContext& ctx, CudaDevice* device, Elem t, bool ta, bool tb,
                  int64_t m, int64_t n, int64_t k, const void* a, int64_t lda, const void* b,
                  int64_t ldb, void* c, int64_t ldc, double alpha, double beta, int64_t batch,
                  int64_t sa, int64_t sb, int64_t sc) {
  if (m == 0 || n == 0) return absl::OkStatus();
  constexpr int64_t kMax = 0x7fffffff;
  if (m > kMax || n > kMax || k > kMax || lda > kMax || ldb > kMax || ldc > kMax ||
      batch > kMax) {
    return absl::InvalidArgumentError(
        absl::StrCat(ctx.Where(), ": a ", m, "x", k, " by ", k, "x", n,
                     " product exceeds cuBLAS's 32-bit dimensions"));
  }
  SYMX_ASSIGN_OR_RETURN(cublasHandle_t handle, device->cublas());
  const GemmTypes types = TypesOf(t);
  const float alpha32 = static_cast<float>(alpha), beta32 = static_cast<float>(beta);
  const void* alpha_p = t == Elem::kF64 ? static_cast<const void*>(&alpha) : &alpha32;
  const void* beta_p = t == Elem::kF64 ? static_cast<const void*>(&beta) : &beta32;
  const cublasOperation_t op_a = ta ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_b = tb ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasStatus_t s;
  if (k == 0) {
    // An empty contraction adds nothing: C = beta C, all zeros for beta 0
    // (those callers pass ldc n).
    if (beta == 1) return absl::OkStatus();
    if (beta != 0) {
      return absl::InternalError(
          absl::StrCat(ctx.Where(), ": an empty contraction with beta ", beta));
    }
    const size_t elem = t == Elem::kF64 ? 8 : t == Elem::kF32 ? 4 : 2;
    SYMX_CUDA_LAUNCH(ctx, cudaMemsetAsync(c, 0, static_cast<size_t>(batch * m * ldc) * elem,
                                          device->stream()));
    return absl::OkStatus();
  }
  if (batch == 1) {
    s = cublasGemmEx(handle, op_b, op_a, static_cast<int>(n), static_cast<int>(m),
                     static_cast<int>(k), alpha_p, b, types.data, static_cast<int>(ldb), a,
                     types.data, static_cast<int>(lda), beta_p, c, types.data,
                     static_cast<int>(ldc), types.compute, CUBLAS_GEMM_DEFAULT);
  } else {
    s = cublasGemmStridedBatchedEx(handle, op_b, op_a, static_cast<int>(n), static_cast<int>(m),
                                   static_cast<int>(k), alpha_p, b, types.data,
                                   static_cast<int>(ldb), sb, a, types.data,
                                   static_cast<int>(lda), sa, beta_p, c, types.data,
                                   static_cast<int>(ldc), sc, static_cast<int>(batch),
                                   types.compute, CUBLAS_GEMM_DEFAULT);
  }
  if (s != CUBLAS_STATUS_SUCCESS) {
    absl::Status e = CublasStatus(s, device->ctx(), "cublasGemmEx");
    return absl::Status(e.code(), absl::StrCat(ctx.Where(), ": ", e.message()));
  }
  return absl::OkStatus();
}

}  // namespace cuda
}  // namespace symx
