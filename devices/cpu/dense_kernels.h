// The CPU GEMM shared by the dense kernels (FullyConnected, dot, batch_dot) and
// the convolution kernels. Defined (and instantiated for float and double) in
// dense_kernels.cc so Eigen's product templates compile in one translation unit.
#ifndef SYMX_DEVICES_CPU_DENSE_KERNELS_H_
#define SYMX_DEVICES_CPU_DENSE_KERNELS_H_

#include <cstdint>

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
// With `parallel` (and a device with several threads) a large product is split
// into row or column blocks run on the device's pool; otherwise it runs on the
// calling thread (kernels that already parallelize over samples pass false).
template <typename T>
void Gemm(const KernelContext& ctx, bool parallel, bool trans_a, bool trans_b, int64_t m, int64_t n,
          int64_t k, const T* a, int64_t lda, const T* b, int64_t ldb, T* c, int64_t ldc,
          bool accumulate, const T* row_bias = nullptr);

extern template void Gemm<float>(const KernelContext&, bool, bool, bool, int64_t, int64_t, int64_t,
                                 const float*, int64_t, const float*, int64_t, float*, int64_t,
                                 bool, const float*);
extern template void Gemm<double>(const KernelContext&, bool, bool, bool, int64_t, int64_t, int64_t,
                                  const double*, int64_t, const double*, int64_t, double*, int64_t,
                                  bool, const double*);

}  // namespace cpu
}  // namespace symx

#endif  // SYMX_DEVICES_CPU_DENSE_KERNELS_H_
