// The CPU GEMM shared by the dense kernels (FullyConnected, dot, batch_dot) and
// the convolution kernels. Defined (and instantiated for float and double) in
// dense_kernels.cc so Eigen's product templates compile in one translation unit.
#ifndef SYMX_DEVICES_CPU_DENSE_KERNELS_H_
#define SYMX_DEVICES_CPU_DENSE_KERNELS_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "absl/status/status.h"
#include "devices/cpu/kernel_util.h"
#include "devices/kernel.h"

namespace symx {
namespace cpu {

// C = op(A) * op(B), every matrix row-major with the given leading dimension
// (elements between consecutive rows as stored):
// - op(A) is m x k; A is stored k x m when trans_a, else m x k.
// - op(B) is k x n; B is stored n x k when trans_b, else k x n.
// - C is m x n. With `accumulate` the product is added to C. Otherwise, when
//   `row_bias` is given (n values), every row of C starts as row_bias before the
//   product is added; else C is overwritten.
// - The product is scaled by `alpha` (inside the GEMM, as BLAS's alpha).
// With `parallel` (and a device with several threads) a large product is split
// into row or column blocks run on the device's pool; otherwise it runs on the
// calling thread (kernels that already parallelize over samples pass false).
template <typename T>
void Gemm(const KernelContext& ctx, bool parallel, bool trans_a, bool trans_b, int64_t m, int64_t n,
          int64_t k, const T* a, int64_t lda, const T* b, int64_t ldb, T* c, int64_t ldc,
          bool accumulate, const T* row_bias = nullptr, T alpha = T(1));

extern template void Gemm<float>(const KernelContext&, bool, bool, bool, int64_t, int64_t, int64_t,
                                 const float*, int64_t, const float*, int64_t, float*, int64_t,
                                 bool, const float*, float);
extern template void Gemm<double>(const KernelContext&, bool, bool, bool, int64_t, int64_t, int64_t,
                                  const double*, int64_t, const double*, int64_t, double*, int64_t,
                                  bool, const double*, double);

// Per-batch products at least this large use the parallel GEMM one batch at a
// time; smaller ones run whole batches per thread.
inline constexpr double kBatchGemmParallelFlops = 1 << 22;

// Runs fn(i, parallel_gemm) for every batch entry i of `batch` products
// costing `flops_per_batch` each: on the device's threads over batches when
// each is small, else one batch at a time with a parallel Gemm (batch_dot's
// policy; the attention kernels run every product of an entry in one call).
template <typename Fn>
void ForEachBatch(const KernelContext& ctx, int64_t batch, double flops_per_batch, Fn&& fn) {
  if (flops_per_batch >= kBatchGemmParallelFlops) {
    for (int64_t i = 0; i < batch; ++i) fn(i, true);
    return;
  }
  ParallelFor(ctx, batch, std::max(flops_per_batch, 1.0), [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) fn(i, false);
  });
}

// PrepareFn of kernels whose GEMMs go through Gemm: with oneDNN on
// in the bind and every input float32, Gemm runs them on oneDNN's sgemm.
#ifdef SYMX_WITH_ONEDNN
absl::Status PrepareDense(KernelContext* ctx, size_t* workspace_bytes);
#else
constexpr PrepareFn PrepareDense = nullptr;
#endif

}  // namespace cpu
}  // namespace symx

#endif  // SYMX_DEVICES_CPU_DENSE_KERNELS_H_
