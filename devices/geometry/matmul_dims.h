// The matrix shapes of FullyConnected, dot and batch_dot, checked against
// the node's parameters: one definition for every device's kernels.
#ifndef SYMX_DEVICES_GEOMETRY_MATMUL_DIMS_H_
#define SYMX_DEVICES_GEOMETRY_MATMUL_DIMS_H_

#include <cstdint>

#include "absl/status/status.h"
#include "devices/kernel.h"

namespace symx {

// FullyConnected: data folded to (rows, in) times weight (hidden, in)^T.
struct FcDims {
  int64_t rows = 0;    // M: data rows after folding
  int64_t in = 0;      // K
  int64_t hidden = 0;  // N
};
absl::Status GetFcDims(const KernelContext& ctx, const Tensor& data, const Tensor& weight,
                       FcDims* d);

// dot as one matrix product: op(A) (m x k) times op(B) (k x n).
struct MatMulDims {
  int64_t m = 1, n = 1, k = 1;
};
absl::Status GetDotDims(const KernelContext& ctx, const Shape& lhs, const Shape& rhs,
                        MatMulDims* d);
// batch_dot: `batch` products of 3-D operands.
absl::Status GetBatchDotDims(const KernelContext& ctx, const Shape& lhs, const Shape& rhs,
                             int64_t* batch, MatMulDims* d);

}  // namespace symx

#endif  // SYMX_DEVICES_GEOMETRY_MATMUL_DIMS_H_
