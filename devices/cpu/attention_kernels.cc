// CPU kernels of the attention family (graph/ops/attention.cc): the
// interleaved multi-head attention products run as the batched GEMMs
// devices/geometry/attention_dims.h plans, on dense_kernels.h's Gemm with
// batch_dot's batching (oneDNN's sgemm per product in float32 binds with
// oneDNN, Eigen's GEMM otherwise). Each product's interleaved operands are
// first copied compact into per-thread buffers: read in place through their
// leading dimensions (rows 9 KB apart at BERT sizes) the GEMMs ran 1.4-1.8x
// batch_dot's time on the same sizes, packed they run 0.9-1.1x
// (tools/bench/attention_bench); the buffers (one product's operands) stay
// with their threads. The output is written in place. float16 and bfloat16
// widen to float32, as batch_dot.
// _contrib_div_sqrt_dim divides in the data's own dtype, as MXNet.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "devices/cpu/dense_kernels.h"
#include "devices/cpu/kernel_util.h"
#include "devices/dtype_switch.h"
#include "devices/geometry/attention_dims.h"

namespace symx {
namespace cpu {
namespace {

// rows x cols at `src` (leading dimension ld) copied compact into *buf,
// or src itself when it already is (see the file's comment for why).
template <typename T>
const T* Packed(const T* src, int64_t ld, int64_t rows, int64_t cols, std::vector<T>* buf) {
  if (ld == cols) return src;
  buf->resize(static_cast<size_t>(rows * cols));
  for (int64_t r = 0; r < rows; ++r) {
    std::memcpy(buf->data() + r * cols, src + r * ld, sizeof(T) * cols);
  }
  return buf->data();
}

template <typename T>
absl::Status RunPlanT(const KernelContext& ctx, const AttentionPlan& plan) {
  for (size_t j = 0; j < ctx.outputs.size(); ++j) {
    if (ctx.outputs[j].dtype() != ctx.inputs[0].dtype()) {
      return UnsupportedDType(ctx, ctx.outputs[j].dtype());
    }
  }
  for (const Tensor& t : ctx.inputs) {
    if (t.dtype() != ctx.inputs[0].dtype()) return UnsupportedDType(ctx, t.dtype());
  }
  // Every product of one (batch, head) entry runs in one task: a backward's
  // two products then share its head gradient while it is in cache. Whether
  // one product is large enough for a parallel GEMM of its own decides the
  // batching, as for batch_dot's forward.
  double flops = 0;
  for (int i = 0; i < plan.num_products; ++i) {
    const BatchedProduct& p = plan.products[i];
    flops = std::max(flops, 2.0 * static_cast<double>(p.m) * static_cast<double>(p.n) *
                                static_cast<double>(p.k));
  }
  const int64_t batch = plan.num_products > 0 ? plan.products[0].batch : 0;
  const bool zero = plan.zero_output >= 0 && OutputWanted(ctx.req, plan.zero_output);
  ForEachBatch(ctx, batch, flops, [&](int64_t e, bool parallel) {
    if (zero) {
      const GemmOperand& z = plan.zero_at;
      T* slot = ctx.outputs[plan.zero_output].data<T>() + z.offset + e * z.stride;
      for (int64_t r = 0; r < plan.zero_rows; ++r) {
        std::memset(slot + r * z.ld, 0, sizeof(T) * plan.zero_width);
      }
    }
    for (int i = 0; i < plan.num_products; ++i) {
      if (!OutputWanted(ctx.req, plan.target[i])) continue;
      const BatchedProduct& p = plan.products[i];
      const T* a = ctx.inputs[plan.a_source[i]].data<T>() + p.a.offset + e * p.a.stride;
      const T* b = ctx.inputs[plan.b_source[i]].data<T>() + p.b.offset + e * p.b.stride;
      T* c = ctx.outputs[plan.target[i]].data<T>() + p.c.offset + e * p.c.stride;
      const int64_t a_rows = p.trans_a ? p.k : p.m, a_cols = p.trans_a ? p.m : p.k;
      const int64_t b_rows = p.trans_b ? p.n : p.k, b_cols = p.trans_b ? p.k : p.n;
      thread_local std::vector<T> pa, pb;
      const T* ga = Packed(a, p.a.ld, a_rows, a_cols, &pa);
      const T* gb = Packed(b, p.b.ld, b_rows, b_cols, &pb);
      Gemm<T>(ctx, parallel, p.trans_a, p.trans_b, p.m, p.n, p.k, ga, ga == a ? p.a.ld : a_cols, gb,
              gb == b ? p.b.ld : b_cols, c, p.c.ld, false, nullptr, static_cast<T>(p.alpha));
    }
  });
  return absl::OkStatus();
}

absl::Status InterleavedMatMul(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(AttentionPlan plan, PlanAttention(ctx));
  SYMX_FLOAT_SWITCH(ctx, ctx.inputs[0].dtype(), T, return RunPlanT<T>(ctx, plan));
}

// x / sqrt(x.shape[-1]) with the divisor converted to x's dtype first; the
// half types divide in float and round once (mshadow's half arithmetic).
template <typename T>
void DivSqrtDimT(const KernelContext& ctx, const T* x, T* y, int64_t n, int64_t last) {
  const T divisor = CastValue<T>(std::sqrt(static_cast<double>(last)));
  constexpr bool kHalf = std::is_same_v<T, float16_t> || std::is_same_v<T, bfloat16_t>;
  ParallelFor(ctx, n, 2, [&](int64_t i0, int64_t i1) {
    if constexpr (kHalf) {
      const float dv = static_cast<float>(ToDouble(divisor));
      for (int64_t i = i0; i < i1; ++i) {
        y[i] = FromDouble<T>(static_cast<float>(ToDouble(x[i])) / dv);
      }
    } else {
      for (int64_t i = i0; i < i1; ++i) y[i] = static_cast<T>(x[i] / divisor);
    }
  });
}

absl::Status DivSqrtDim(const KernelContext& ctx) {
  const Tensor& x = ctx.inputs[0];
  const Tensor& y = ctx.outputs[0];
  SYMX_RETURN_IF_ERROR(CheckSameSize(ctx, x, y));
  if (x.shape().ndim() < 1) return Fail(ctx, "data needs at least 1 dim");
  if (y.dtype() != x.dtype()) return UnsupportedDType(ctx, y.dtype());
  const int64_t last = x.shape()[x.shape().ndim() - 1];
  switch (x.dtype()) {
    case DType::kFloat32:
    case DType::kFloat64:
    case DType::kFloat16:
    case DType::kUint8:
    case DType::kInt8:
    case DType::kInt32:
    case DType::kInt64:
      break;
    default:
      return UnsupportedDType(ctx, x.dtype());
  }
  SYMX_DTYPE_SWITCH_ALL(x.dtype(), T,
                        DivSqrtDimT<T>(ctx, x.data<T>(), y.data<T>(), x.size(), last));
  return absl::OkStatus();
}

}  // namespace

#define SYMX_ATTENTION_KERNEL(op)                                                  \
  SYMX_REGISTER_KERNEL(op, kCPU, .fn = InterleavedMatMul, .prepare = PrepareDense, \
                       .widening = HalfWidening::kFloat16AndBFloat16)
SYMX_ATTENTION_KERNEL("_contrib_interleaved_matmul_selfatt_qk");
SYMX_ATTENTION_KERNEL("_backward_interleaved_matmul_selfatt_qk");
SYMX_ATTENTION_KERNEL("_contrib_interleaved_matmul_selfatt_valatt");
SYMX_ATTENTION_KERNEL("_backward_interleaved_matmul_selfatt_valatt");
SYMX_ATTENTION_KERNEL("_contrib_interleaved_matmul_encdec_qk");
SYMX_ATTENTION_KERNEL("_backward_interleaved_matmul_encdec_qk");
SYMX_ATTENTION_KERNEL("_contrib_interleaved_matmul_encdec_valatt");
SYMX_ATTENTION_KERNEL("_backward_interleaved_matmul_encdec_valatt");
#undef SYMX_ATTENTION_KERNEL

SYMX_REGISTER_KERNEL("_contrib_div_sqrt_dim", kCPU, DivSqrtDim);

}  // namespace cpu
}  // namespace symx
