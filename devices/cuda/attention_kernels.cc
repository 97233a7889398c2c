// CUDA kernels of the attention family (graph/ops/attention.cc): each
// interleaved product is one cuBLAS strided-batched GEMM per product of
// devices/geometry/attention_dims.h's plan (the CPU kernels' plan), reading
// the interleaved operands in place through their leading dimensions and
// strides; _contrib_div_sqrt_dim divides in the data's dtype
// (devices/cuda/attention.cu).
#include <cmath>
#include <cstdint>

#include "devices/cuda/attention_launch.h"
#include "devices/cuda/cublas_gemm.h"
#include "devices/cuda/kernel_util.h"
#include "devices/geometry/attention_dims.h"

namespace symx {
namespace cuda {
namespace {

absl::Status InterleavedMatMul(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const DType dtype = ctx.inputs[0].dtype();
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, dtype));
  for (const Tensor& x : ctx.inputs) {
    if (x.dtype() != dtype) return UnsupportedDType(ctx, x.dtype());
  }
  SYMX_ASSIGN_OR_RETURN(AttentionPlan plan, PlanAttention(ctx));
  const size_t width = DTypeSize(dtype);
  for (size_t j = 0; j < ctx.outputs.size(); ++j) {
    if (ctx.outputs[j].dtype() != dtype) return UnsupportedDType(ctx, ctx.outputs[j].dtype());
  }
  // The slots no product writes: the whole tensor is zeroed first (one
  // memset), the products then overwrite theirs.
  if (plan.zero_output >= 0 && OutputWanted(ctx.req, plan.zero_output)) {
    const Tensor& z = ctx.outputs[plan.zero_output];
    SYMX_RETURN_IF_ERROR(device->Memset(z.raw_data(), 0, z.nbytes()));
  }
  for (int i = 0; i < plan.num_products; ++i) {
    if (!OutputWanted(ctx.req, plan.target[i])) continue;
    const BatchedProduct& p = plan.products[i];
    if (p.batch == 0) continue;
    const char* a = static_cast<const char*>(ctx.inputs[plan.a_source[i]].read_raw_data());
    const char* b = static_cast<const char*>(ctx.inputs[plan.b_source[i]].read_raw_data());
    char* c = static_cast<char*>(ctx.outputs[plan.target[i]].raw_data());
    SYMX_RETURN_IF_ERROR(Gemm(ctx, device, t, p.trans_a, p.trans_b, p.m, p.n, p.k,
                              a + p.a.offset * width, p.a.ld, b + p.b.offset * width, p.b.ld,
                              c + p.c.offset * width, p.c.ld, p.alpha, 0, p.batch, p.a.stride,
                              p.b.stride, p.c.stride));
  }
  return absl::OkStatus();
}

absl::Status DivSqrtDim(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& x = ctx.inputs[0];
  const Tensor& y = ctx.outputs[0];
  if (x.shape().ndim() < 1) return Fail(ctx, "data needs at least 1 dim");
  if (y.dtype() != x.dtype() || y.size() != x.size()) return UnsupportedDType(ctx, y.dtype());
  if (x.dtype() == DType::kBool) return UnsupportedDType(ctx, x.dtype());
  SYMX_ASSIGN_OR_RETURN(Elem t, AnyElem(ctx, x.dtype()));
  const double root = std::sqrt(static_cast<double>(x.shape()[x.shape().ndim() - 1]));
  SYMX_CUDA_LAUNCH(
      ctx, LaunchDivInType(t, x.read_raw_data(), root, y.raw_data(), x.size(), device->stream()));
  return absl::OkStatus();
}

}  // namespace

SYMX_REGISTER_KERNEL("_contrib_interleaved_matmul_selfatt_qk", kGPU, InterleavedMatMul);
SYMX_REGISTER_KERNEL("_backward_interleaved_matmul_selfatt_qk", kGPU, InterleavedMatMul);
SYMX_REGISTER_KERNEL("_contrib_interleaved_matmul_selfatt_valatt", kGPU, InterleavedMatMul);
SYMX_REGISTER_KERNEL("_backward_interleaved_matmul_selfatt_valatt", kGPU, InterleavedMatMul);
SYMX_REGISTER_KERNEL("_contrib_interleaved_matmul_encdec_qk", kGPU, InterleavedMatMul);
SYMX_REGISTER_KERNEL("_backward_interleaved_matmul_encdec_qk", kGPU, InterleavedMatMul);
SYMX_REGISTER_KERNEL("_contrib_interleaved_matmul_encdec_valatt", kGPU, InterleavedMatMul);
SYMX_REGISTER_KERNEL("_backward_interleaved_matmul_encdec_valatt", kGPU, InterleavedMatMul);
SYMX_REGISTER_KERNEL("_contrib_div_sqrt_dim", kGPU, DivSqrtDim);

}  // namespace cuda
}  // namespace symx
