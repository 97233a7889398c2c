// CUDA kernels of FullyConnected, dot and batch_dot, forward and backward,
// through cuBLAS (devices/cuda/cublas_gemm.h states the types), and
// khatri_rao, a chain of broadcast products.
#include "absl/strings/str_cat.h"
#include "devices/cuda/cublas_gemm.h"
#include "devices/cuda/kernel_util.h"
#include "devices/geometry/matmul_dims.h"
#include "graph/ops/dense.h"
#include "devices/cuda/elemwise_launch.h"
#include "devices/cuda/reduce_launch.h"

namespace symx {
namespace cuda {
namespace {

// Gradients of C = op(A) op(B) (m x n, contracting k), stored like A and B;
// a null output is not wanted. As devices/cpu/dense_kernels.cc's MatMulBackward.
absl::Status MatMulBackward(const KernelContext& ctx, CudaDevice* device, Elem t, bool ta, bool tb,
                            int64_t m, int64_t n, int64_t k, const void* a, const void* b,
                            const void* dc, void* da, void* db, int64_t batch = 1) {
  const int64_t lda = ta ? m : k, ldb = tb ? k : n;
  const int64_t sa = m * k, sb = k * n, sc = m * n;
  if (da != nullptr) {
    if (!ta) {
      SYMX_RETURN_IF_ERROR(
          Gemm(ctx, device, t, false, !tb, m, k, n, dc, n, b, ldb, da, k, 1, 0, batch, sc, sb, sa));
    } else {
      SYMX_RETURN_IF_ERROR(
          Gemm(ctx, device, t, tb, true, k, m, n, b, ldb, dc, n, da, m, 1, 0, batch, sb, sc, sa));
    }
  }
  if (db != nullptr) {
    if (!tb) {
      SYMX_RETURN_IF_ERROR(
          Gemm(ctx, device, t, !ta, false, k, n, m, a, lda, dc, n, db, n, 1, 0, batch, sa, sc, sb));
    } else {
      SYMX_RETURN_IF_ERROR(
          Gemm(ctx, device, t, true, ta, n, k, m, dc, n, a, lda, db, k, 1, 0, batch, sc, sa, sb));
    }
  }
  return absl::OkStatus();
}

void* Wanted(const KernelContext& ctx, size_t j) {
  return OutputWanted(ctx.req, j) ? ctx.outputs[j].raw_data() : nullptr;
}

absl::Status FullyConnectedForward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const auto& p = ctx.param<FullyConnectedParam>();
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, ctx.inputs[0].dtype()));
  FcDims d;
  SYMX_RETURN_IF_ERROR(GetFcDims(ctx, ctx.inputs[0], ctx.inputs[1], &d));
  const Tensor& out = ctx.outputs[0];
  // Y (M x N) = X (M x K) W^T.
  SYMX_RETURN_IF_ERROR(Gemm(ctx, device, t, false, true, d.rows, d.hidden, d.in,
                            ctx.inputs[0].read_raw_data(), d.in, ctx.inputs[1].read_raw_data(),
                            d.in, out.raw_data(), d.hidden, 1, 0));
  if (!p.no_bias) {
    BroadcastDims bd;
    bd.ndim = 2;
    bd.out_dims[0] = d.rows;
    bd.out_dims[1] = d.hidden;
    bd.a_strides[0] = d.hidden;
    bd.a_strides[1] = 1;
    bd.b_strides[0] = 0;
    bd.b_strides[1] = 1;
    SYMX_CUDA_LAUNCH(
        ctx, LaunchBroadcast(BinaryFn::kAdd, t, out.read_raw_data(), ctx.inputs[2].read_raw_data(),
                             out.raw_data(), bd, d.rows * d.hidden, device->stream()));
  }
  return absl::OkStatus();
}

// Inputs: ograd, data, weight. Outputs: grad data, grad weight, grad bias.
absl::Status FullyConnectedBackward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const auto& p = ctx.param<FullyConnectedParam>();
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, ctx.inputs[1].dtype()));
  FcDims d;
  SYMX_RETURN_IF_ERROR(GetFcDims(ctx, ctx.inputs[1], ctx.inputs[2], &d));
  const void* dy = ctx.inputs[0].read_raw_data();
  const void* x = ctx.inputs[1].read_raw_data();
  const void* w = ctx.inputs[2].read_raw_data();
  if (void* dx = Wanted(ctx, 0)) {
    // dX (M x K) = dY (M x N) W (N x K).
    SYMX_RETURN_IF_ERROR(Gemm(ctx, device, t, false, false, d.rows, d.in, d.hidden, dy, d.hidden, w,
                              d.in, dx, d.in, 1, 0));
  }
  if (void* dw = Wanted(ctx, 1)) {
    // dW (N x K) = dY^T X.
    SYMX_RETURN_IF_ERROR(Gemm(ctx, device, t, true, false, d.hidden, d.in, d.rows, dy, d.hidden, x,
                              d.in, dw, d.in, 1, 0));
  }
  if (!p.no_bias && ctx.outputs.size() > 2) {
    if (void* db = Wanted(ctx, 2)) {
      SYMX_CUDA_LAUNCH(ctx,
                       LaunchColumnSums(t, dy, d.rows, d.hidden, 1.0, false, db, device->stream()));
    }
  }
  return absl::OkStatus();
}

absl::Status DotForward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const auto& p = ctx.param<DotParam>();
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, ctx.inputs[0].dtype()));
  MatMulDims d;
  SYMX_RETURN_IF_ERROR(GetDotDims(ctx, ctx.inputs[0].shape(), ctx.inputs[1].shape(), &d));
  return Gemm(ctx, device, t, p.transpose_a, p.transpose_b, d.m, d.n, d.k,
              ctx.inputs[0].read_raw_data(), p.transpose_a ? d.m : d.k,
              ctx.inputs[1].read_raw_data(), p.transpose_b ? d.k : d.n, ctx.outputs[0].raw_data(),
              d.n, 1, 0);
}

// Inputs: ograd, lhs, rhs. Outputs: grad lhs, grad rhs.
absl::Status DotBackward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const auto& p = ctx.param<DotParam>();
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, ctx.inputs[1].dtype()));
  MatMulDims d;
  SYMX_RETURN_IF_ERROR(GetDotDims(ctx, ctx.inputs[1].shape(), ctx.inputs[2].shape(), &d));
  return MatMulBackward(ctx, device, t, p.transpose_a, p.transpose_b, d.m, d.n, d.k,
                        ctx.inputs[1].read_raw_data(), ctx.inputs[2].read_raw_data(),
                        ctx.inputs[0].read_raw_data(), Wanted(ctx, 0), Wanted(ctx, 1));
}

absl::Status BatchDotForward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const auto& p = ctx.param<DotParam>();
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, ctx.inputs[0].dtype()));
  int64_t batch = 0;
  MatMulDims d;
  SYMX_RETURN_IF_ERROR(
      GetBatchDotDims(ctx, ctx.inputs[0].shape(), ctx.inputs[1].shape(), &batch, &d));
  if (batch == 0) return absl::OkStatus();
  return Gemm(ctx, device, t, p.transpose_a, p.transpose_b, d.m, d.n, d.k,
              ctx.inputs[0].read_raw_data(), p.transpose_a ? d.m : d.k,
              ctx.inputs[1].read_raw_data(), p.transpose_b ? d.k : d.n, ctx.outputs[0].raw_data(),
              d.n, 1, 0, batch, d.m * d.k, d.k * d.n, d.m * d.n);
}

absl::Status BatchDotBackward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const auto& p = ctx.param<DotParam>();
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, ctx.inputs[1].dtype()));
  int64_t batch = 0;
  MatMulDims d;
  SYMX_RETURN_IF_ERROR(
      GetBatchDotDims(ctx, ctx.inputs[1].shape(), ctx.inputs[2].shape(), &batch, &d));
  if (batch == 0) return absl::OkStatus();
  return MatMulBackward(ctx, device, t, p.transpose_a, p.transpose_b, d.m, d.n, d.k,
                        ctx.inputs[1].read_raw_data(), ctx.inputs[2].read_raw_data(),
                        ctx.inputs[0].read_raw_data(), Wanted(ctx, 0), Wanted(ctx, 1), batch);
}

}  // namespace

namespace {

// khatri_rao: the product so far, (R, N), times input j, (m_j, N), is the
// broadcast product (R, 1, N) * (1, m_j, N) = (R m_j, N); the factors
// multiply left to right as on the CPU. Intermediates alternate between the
// workspace's two halves; the last product goes to the output.
size_t KhatriRaoWorkspace(const NodeAttrs&, const std::vector<Shape>&,
                          const std::vector<Shape>& out, DType dtype) {
  return out.empty() ? 0 : 2 * static_cast<size_t>(out[0].Size()) * DTypeSize(dtype);
}

absl::Status KhatriRaoForward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& out = ctx.outputs[0];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, out.dtype()));
  const int64_t cols = out.shape()[1];
  const size_t n = ctx.inputs.size();
  for (size_t j = 0; j < n; ++j) {
    const Shape& s = ctx.inputs[j].shape();
    if (s.ndim() != 2 || s[1] != cols) {
      return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": input ", j, " of shape ",
                                                     s.ToString(), " is not a matrix of ", cols,
                                                     " columns"));
    }
  }
  if (out.size() == 0) return absl::OkStatus();
  if (n == 1) return CopyOnStream(ctx, ctx.inputs[0], out);
  SYMX_ASSIGN_OR_RETURN(char* ws, WorkspaceOf(ctx, 2 * out.nbytes()));
  const void* cur = ctx.inputs[0].read_raw_data();
  int64_t rows = ctx.inputs[0].shape()[0];
  for (size_t j = 1; j < n; ++j) {
    const int64_t m = ctx.inputs[j].shape()[0];
    void* dst = j + 1 == n ? out.raw_data() : ws + (j % 2) * out.nbytes();
    BroadcastDims d;
    d.ndim = 3;
    d.out_dims[0] = rows;
    d.out_dims[1] = m;
    d.out_dims[2] = cols;
    d.a_strides[0] = cols;
    d.a_strides[2] = 1;
    d.b_strides[1] = cols;
    d.b_strides[2] = 1;
    SYMX_CUDA_LAUNCH(ctx, LaunchBroadcast(BinaryFn::kMul, t, cur, ctx.inputs[j].read_raw_data(),
                                          dst, d, rows * m * cols, device->stream()));
    cur = dst;
    rows *= m;
  }
  return absl::OkStatus();
}

}  // namespace

SYMX_REGISTER_KERNEL("khatri_rao", kGPU, .fn = KhatriRaoForward, .workspace = KhatriRaoWorkspace);
SYMX_REGISTER_KERNEL("FullyConnected", kGPU, FullyConnectedForward);
SYMX_REGISTER_KERNEL("_backward_FullyConnected", kGPU, FullyConnectedBackward);
SYMX_REGISTER_KERNEL("dot", kGPU, DotForward);
SYMX_REGISTER_KERNEL("_backward_dot", kGPU, DotBackward);
SYMX_REGISTER_KERNEL("batch_dot", kGPU, BatchDotForward);
SYMX_REGISTER_KERNEL("_backward_batch_dot", kGPU, BatchDotBackward);

}  // namespace cuda
}  // namespace symx
