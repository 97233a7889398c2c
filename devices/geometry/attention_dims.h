// The products of the attention family's interleaved kernels (schema in
// graph/ops/attention.cc), one definition for the CPU and GPU kernels: each
// op is `batch * heads` row-major GEMMs whose operands interleave in the
// input tensors, described here by pointers' element offsets, leading
// dimensions and per-product strides.
#ifndef SYMX_DEVICES_GEOMETRY_ATTENTION_DIMS_H_
#define SYMX_DEVICES_GEOMETRY_ATTENTION_DIMS_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "devices/kernel.h"

namespace symx {

// One strided operand of a batched product: element `offset` of its tensor,
// rows `ld` apart, product i at offset + i * stride.
struct GemmOperand {
  int64_t offset = 0, ld = 0, stride = 0;
};

// C_i = alpha op(A_i) op(B_i), C_i m x n, for i < batch.
struct BatchedProduct {
  bool trans_a = false, trans_b = false;
  int64_t m = 0, n = 0, k = 0, batch = 0;
  GemmOperand a, b, c;
  double alpha = 1;
};

// What one interleaved op's kernel runs.
struct AttentionPlan {
  // Forward: one product. Backward: the gradient of input 0, then of input 1
  // (two products; selfatt_qk's both write input 0's gradient, q then k
  // slots). Each product's a and b name the op's tensors below.
  BatchedProduct products[2];
  int num_products = 0;
  // Forward: the inputs a and b read. Backward: for each product, the tensor
  // it writes (0 or 1: gradient of forward input 0 or 1) and, for a and b,
  // which of (ograd, forward input 0, forward input 1) they read.
  int a_source[2] = {0, 0}, b_source[2] = {0, 0}, target[2] = {0, 0};
  // Backward: the slots of an interleaved input's gradient that no product
  // writes (the parts the op does not read) and that must be zero: in output
  // `zero_output` (-1: none), `zero_rows` rows of `zero_width` elements per
  // entry, laid out as `zero_at`.
  int zero_output = -1;
  GemmOperand zero_at;
  int64_t zero_rows = 0, zero_width = 0;
};

// The 1 / sqrt(head width) of the qk products, computed as MXNet computes it
// (in float32).
double AttentionScale(int64_t head_dim);

// The plan of op `ctx` (one of the four interleaved ops or their backward
// ops) for its inputs' shapes; errors name the shapes.
absl::StatusOr<AttentionPlan> PlanAttention(const KernelContext& ctx);

}  // namespace symx

#endif  // SYMX_DEVICES_GEOMETRY_ATTENTION_DIMS_H_
