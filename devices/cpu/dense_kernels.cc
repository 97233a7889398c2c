// CPU kernels for FullyConnected, dot and batch_dot (forward and backward),
// khatri_rao, and the shared GEMM (dense_kernels.h).
//
// Every product is an Eigen GEMM on row-major maps, or, in the float32 steps of
// these kernels when the bind has oneDNN on, oneDNN's sgemm (2-3x Eigen's
// speed per thread on FullyConnected shapes; docs/architecture.md). Either
// way the blocks and their order are the ones below, and each block runs on
// one thread, so the bits depend on the device's thread count only. Eigen's own matrix products
// parallelize only through OpenMP, so large products are split into row (or
// column) blocks, each one Eigen GEMM, run on the device's thread pool (two
// blocks per thread, so a thread slowed by other load is balanced by the rest).
// On the 2-core development machine this was about as fast as Eigen's Tensor
// contraction on the same pool for 1024^3 float32, and twice as fast as one
// Eigen GEMM when both cores were free (tools/bench/gemm_probe.cc measures it).
#include "devices/cpu/dense_kernels.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "devices/cpu/kernel_util.h"
#include "devices/geometry/matmul_dims.h"
#include "graph/error.h"
#include "graph/ops/dense.h"

#ifdef SYMX_WITH_ONEDNN
#include "devices/cpu/onednn.h"
#include "oneapi/dnnl/dnnl.h"
#endif

namespace symx {
namespace cpu {

namespace {

// Products below this many flops run on the calling thread.
constexpr double kGemmParallelFlops = 1 << 21;
// Smallest row/column block worth a task of its own.
constexpr int64_t kMinGemmBlock = 32;

template <typename T>
using ConstStridedMat = Eigen::Map<const MatrixRM<T>, Eigen::Unaligned, Eigen::OuterStride<>>;
template <typename T>
using StridedMat = Eigen::Map<MatrixRM<T>, Eigen::Unaligned, Eigen::OuterStride<>>;

#ifdef SYMX_WITH_ONEDNN
// The state of a step whose float32 GEMMs run on oneDNN's sgemm.
class OnednnGemm : public KernelState {};
#endif

// Whether ctx's step runs its float32 GEMMs on oneDNN (see PrepareDense).
bool UsesOnednnGemm(const KernelContext& ctx) {
#ifdef SYMX_WITH_ONEDNN
  return dynamic_cast<const OnednnGemm*>(ctx.state.get()) != nullptr;
#else
  (void)ctx;
  return false;
#endif
}

// One GEMM on the calling thread (see Gemm for the arguments): Eigen's, or
// oneDNN's sgemm with `onednn` (float only). Gemm makes sure oneDNN runs it
// on one thread (its ScopedOmpThreads guard).
template <typename T>
void GemmBlock(bool onednn, bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a,
               int64_t lda, const T* b, int64_t ldb, T* c, int64_t ldc, bool accumulate,
               const T* row_bias, T alpha) {
  if (m <= 0 || n <= 0) return;
  StridedMat<T> out(c, m, n, Eigen::OuterStride<>(ldc));
  bool add = accumulate;
  if (!accumulate && row_bias != nullptr) {
    // Row copies (Eigen's replicate() indexes with a modulo per element: slower).
    for (int64_t i = 0; i < m; ++i) std::copy(row_bias, row_bias + n, c + i * ldc);
    add = true;
  }
  if (k <= 0) {
    if (!add) out.setZero();
    return;
  }
#ifdef SYMX_WITH_ONEDNN
  if constexpr (std::is_same_v<T, float>) {
    if (onednn) {
      // Row-major, as ours; beta 0 does not read C.
      const dnnl_status_t st = dnnl_sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', m, n, k, alpha, a, lda, b,
                                          ldb, add ? 1.f : 0.f, c, ldc);
      if (st == dnnl_success) return;
      // Only bad arguments fail, which Gemm's callers never pass: Eigen then.
    }
  }
#else
  (void)onednn;
#endif
  ConstStridedMat<T> lhs(a, ta ? k : m, ta ? m : k, Eigen::OuterStride<>(lda));
  ConstStridedMat<T> rhs(b, tb ? n : k, tb ? k : n, Eigen::OuterStride<>(ldb));
  // Eigen folds alpha * (lhs * rhs) into its GEMM's alpha (no temporary).
  auto product = [&](const auto& l, const auto& r) {
    if (add) {
      out.noalias() += alpha * (l * r);
    } else {
      out.noalias() = alpha * (l * r);
    }
  };
  if (!ta && !tb) {
    product(lhs, rhs);
  } else if (!ta && tb) {
    product(lhs, rhs.transpose());
  } else if (ta && !tb) {
    product(lhs.transpose(), rhs);
  } else {
    product(lhs.transpose(), rhs.transpose());
  }
}

}  // namespace

template <typename T>
void Gemm(const KernelContext& ctx, bool parallel, bool trans_a, bool trans_b, int64_t m, int64_t n,
          int64_t k, const T* a, int64_t lda, const T* b, int64_t ldb, T* c, int64_t ldc,
          bool accumulate, const T* row_bias, T alpha) {
  if (m <= 0 || n <= 0) return;
  // The blocks (which change the rounding of C) follow the device's thread
  // count, not this step's share of it: a graph split over several devices
  // or ranks computes the bits one device computes.
  const int threads = ctx.device != nullptr ? ctx.device->num_threads() : 1;
  const double flops =
      2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  // Split the longer side of C; each block reads all of the other operand.
  const bool split_rows = m >= n;
  const int64_t dim = split_rows ? m : n;
  const int64_t blocks = std::min<int64_t>(2 * static_cast<int64_t>(threads),
                                           (dim + kMinGemmBlock - 1) / kMinGemmBlock);
  // A matrix-vector product (one row or column) is memory-bound, and Eigen's
  // was the faster one (VGG-16's (1, 25088) x 4096: 13.1 ms against 14.8).
  const bool onednn = std::is_same_v<T, float> && m > 1 && n > 1 && UsesOnednnGemm(ctx);
#ifdef SYMX_WITH_ONEDNN
  // oneDNN's sgemm would split one product over the calling thread's whole
  // team (into partial sums over k when m and n are small). Every block must
  // run on one thread so that the bits do not follow the team: blocks run
  // serially on this thread (a step's share of one thread, or a single
  // block) see this limit; blocks on a parallel loop's team members run
  // inside a parallel region, where oneDNN uses one thread anyway (the loop's
  // own team size is set by its num_threads clause, not by this limit).
  std::optional<ScopedOmpThreads> one;
  if (onednn) one.emplace(1);
#endif
  if (!parallel || threads <= 1 || flops < kGemmParallelFlops || blocks <= 1) {
    GemmBlock(onednn, trans_a, trans_b, m, n, k, a, lda, b, ldb, c, ldc, accumulate, row_bias,
              alpha);
    return;
  }
  auto run = [&](int64_t first, int64_t last) {
    for (int64_t blk = first; blk < last; ++blk) {
      const int64_t lo = dim * blk / blocks, hi = dim * (blk + 1) / blocks;
      if (split_rows) {
        const T* a_blk = trans_a ? a + lo : a + lo * lda;
        GemmBlock(onednn, trans_a, trans_b, hi - lo, n, k, a_blk, lda, b, ldb, c + lo * ldc, ldc,
                  accumulate, row_bias, alpha);
      } else {
        const T* b_blk = trans_b ? b + lo * ldb : b + lo;
        GemmBlock(onednn, trans_a, trans_b, m, hi - lo, k, a, lda, b_blk, ldb, c + lo, ldc,
                  accumulate, row_bias != nullptr ? row_bias + lo : nullptr, alpha);
      }
    }
  };
  ParallelFor(ctx, blocks, flops / blocks, run);
}

template void Gemm<float>(const KernelContext&, bool, bool, bool, int64_t, int64_t, int64_t,
                          const float*, int64_t, const float*, int64_t, float*, int64_t, bool,
                          const float*, float);
template void Gemm<double>(const KernelContext&, bool, bool, bool, int64_t, int64_t, int64_t,
                           const double*, int64_t, const double*, int64_t, double*, int64_t, bool,
                           const double*, double);

namespace {

// Column sums of a rows x cols row-major matrix into `out` (cols values).
template <typename T>
void ColumnSums(const KernelContext& ctx, const T* data, int64_t rows, int64_t cols, T* out) {
  Eigen::TensorMap<Eigen::Tensor<const T, 2, Eigen::RowMajor, int64_t>> mat(data, rows, cols);
  Eigen::TensorMap<Eigen::Tensor<T, 1, Eigen::RowMajor, int64_t>> dst(out, cols);
  Assign(ctx, dst, mat.sum(Eigen::array<int64_t, 1>{0}), rows * cols);
}

// Gradients of C = op(A) op(B) (m x n, contracting k): dA and dB stored like A
// and B. Either output may be null (not wanted).
template <typename T>
void MatMulBackward(const KernelContext& ctx, bool parallel, bool ta, bool tb, int64_t m, int64_t n,
                    int64_t k, const T* a, const T* b, const T* dc, T* da, T* db) {
  const int64_t lda = ta ? m : k, ldb = tb ? k : n;
  if (da != nullptr) {
    if (!ta) {
      // dA (m x k) = dC op(B)^T.
      Gemm<T>(ctx, parallel, false, !tb, m, k, n, dc, n, b, ldb, da, k, false);
    } else {
      // dA (k x m) = op(B) dC^T.
      Gemm<T>(ctx, parallel, tb, true, k, m, n, b, ldb, dc, n, da, m, false);
    }
  }
  if (db != nullptr) {
    if (!tb) {
      // dB (k x n) = op(A)^T dC.
      Gemm<T>(ctx, parallel, !ta, false, k, n, m, a, lda, dc, n, db, n, false);
    } else {
      // dB (n x k) = dC^T op(A).
      Gemm<T>(ctx, parallel, true, ta, n, k, m, dc, n, a, lda, db, k, false);
    }
  }
}

// ---------------------------------------------------------------- FullyConnected

template <typename T>
absl::Status FullyConnectedForwardT(const KernelContext& ctx) {
  const auto& p = ctx.param<FullyConnectedParam>();
  FcDims d;
  SYMX_RETURN_IF_ERROR(GetFcDims(ctx, ctx.inputs[0], ctx.inputs[1], &d));
  const T* bias = p.no_bias ? nullptr : ctx.inputs[2].data<T>();
  Gemm<T>(ctx, true, false, true, d.rows, d.hidden, d.in, ctx.inputs[0].data<T>(), d.in,
          ctx.inputs[1].data<T>(), d.in, ctx.outputs[0].data<T>(), d.hidden, false, bias);
  return absl::OkStatus();
}

absl::Status FullyConnectedForward(const KernelContext& ctx) {
  SYMX_FLOAT_SWITCH(ctx, ctx.inputs[0].dtype(), T, return FullyConnectedForwardT<T>(ctx));
}

// Inputs: ograd, data, weight. Outputs: grad data, grad weight, grad bias.
template <typename T>
absl::Status FullyConnectedBackwardT(const KernelContext& ctx) {
  const auto& p = ctx.param<FullyConnectedParam>();
  FcDims d;
  SYMX_RETURN_IF_ERROR(GetFcDims(ctx, ctx.inputs[1], ctx.inputs[2], &d));
  const T* dy = ctx.inputs[0].data<T>();
  const T* x = ctx.inputs[1].data<T>();
  const T* w = ctx.inputs[2].data<T>();
  if (OutputWanted(ctx.req, 0)) {
    // dX (M x K) = dY (M x N) W (N x K).
    Gemm<T>(ctx, true, false, false, d.rows, d.in, d.hidden, dy, d.hidden, w, d.in,
            ctx.outputs[0].data<T>(), d.in, false);
  }
  if (OutputWanted(ctx.req, 1)) {
    // dW (N x K) = dY^T X.
    Gemm<T>(ctx, true, true, false, d.hidden, d.in, d.rows, dy, d.hidden, x, d.in,
            ctx.outputs[1].data<T>(), d.in, false);
  }
  if (!p.no_bias && ctx.outputs.size() > 2 && OutputWanted(ctx.req, 2)) {
    ColumnSums<T>(ctx, dy, d.rows, d.hidden, ctx.outputs[2].data<T>());
  }
  return absl::OkStatus();
}

absl::Status FullyConnectedBackward(const KernelContext& ctx) {
  SYMX_FLOAT_SWITCH(ctx, ctx.inputs[1].dtype(), T, return FullyConnectedBackwardT<T>(ctx));
}

// ---------------------------------------------------------------- dot

template <typename T>
absl::Status DotForwardT(const KernelContext& ctx) {
  const auto& p = ctx.param<DotParam>();
  MatMulDims d;
  SYMX_RETURN_IF_ERROR(GetDotDims(ctx, ctx.inputs[0].shape(), ctx.inputs[1].shape(), &d));
  Gemm<T>(ctx, true, p.transpose_a, p.transpose_b, d.m, d.n, d.k, ctx.inputs[0].data<T>(),
          p.transpose_a ? d.m : d.k, ctx.inputs[1].data<T>(), p.transpose_b ? d.k : d.n,
          ctx.outputs[0].data<T>(), d.n, false);
  return absl::OkStatus();
}

absl::Status DotForward(const KernelContext& ctx) {
  SYMX_FLOAT_SWITCH(ctx, ctx.inputs[0].dtype(), T, return DotForwardT<T>(ctx));
}

// Inputs: ograd, lhs, rhs. Outputs: grad lhs, grad rhs.
template <typename T>
absl::Status DotBackwardT(const KernelContext& ctx) {
  const auto& p = ctx.param<DotParam>();
  MatMulDims d;
  SYMX_RETURN_IF_ERROR(GetDotDims(ctx, ctx.inputs[1].shape(), ctx.inputs[2].shape(), &d));
  MatMulBackward<T>(ctx, true, p.transpose_a, p.transpose_b, d.m, d.n, d.k, ctx.inputs[1].data<T>(),
                    ctx.inputs[2].data<T>(), ctx.inputs[0].data<T>(),
                    OutputWanted(ctx.req, 0) ? ctx.outputs[0].data<T>() : nullptr,
                    OutputWanted(ctx.req, 1) ? ctx.outputs[1].data<T>() : nullptr);
  return absl::OkStatus();
}

absl::Status DotBackward(const KernelContext& ctx) {
  SYMX_FLOAT_SWITCH(ctx, ctx.inputs[1].dtype(), T, return DotBackwardT<T>(ctx));
}

// ---------------------------------------------------------------- batch_dot

template <typename T>
absl::Status BatchDotForwardT(const KernelContext& ctx) {
  const auto& p = ctx.param<DotParam>();
  int64_t batch = 0;
  MatMulDims d;
  SYMX_RETURN_IF_ERROR(
      GetBatchDotDims(ctx, ctx.inputs[0].shape(), ctx.inputs[1].shape(), &batch, &d));
  const T* a = ctx.inputs[0].data<T>();
  const T* b = ctx.inputs[1].data<T>();
  T* c = ctx.outputs[0].data<T>();
  const int64_t sa = d.m * d.k, sb = d.k * d.n, sc = d.m * d.n;
  ForEachBatch(ctx, batch, 2.0 * sa * d.n, [&](int64_t i, bool parallel) {
    Gemm<T>(ctx, parallel, p.transpose_a, p.transpose_b, d.m, d.n, d.k, a + i * sa,
            p.transpose_a ? d.m : d.k, b + i * sb, p.transpose_b ? d.k : d.n, c + i * sc, d.n,
            false);
  });
  return absl::OkStatus();
}

absl::Status BatchDotForward(const KernelContext& ctx) {
  SYMX_FLOAT_SWITCH(ctx, ctx.inputs[0].dtype(), T, return BatchDotForwardT<T>(ctx));
}

template <typename T>
absl::Status BatchDotBackwardT(const KernelContext& ctx) {
  const auto& p = ctx.param<DotParam>();
  int64_t batch = 0;
  MatMulDims d;
  SYMX_RETURN_IF_ERROR(
      GetBatchDotDims(ctx, ctx.inputs[1].shape(), ctx.inputs[2].shape(), &batch, &d));
  const T* dc = ctx.inputs[0].data<T>();
  const T* a = ctx.inputs[1].data<T>();
  const T* b = ctx.inputs[2].data<T>();
  T* da = OutputWanted(ctx.req, 0) ? ctx.outputs[0].data<T>() : nullptr;
  T* db = OutputWanted(ctx.req, 1) ? ctx.outputs[1].data<T>() : nullptr;
  const int64_t sa = d.m * d.k, sb = d.k * d.n, sc = d.m * d.n;
  ForEachBatch(ctx, batch, 4.0 * sa * d.n, [&](int64_t i, bool parallel) {
    MatMulBackward<T>(ctx, parallel, p.transpose_a, p.transpose_b, d.m, d.n, d.k, a + i * sa,
                      b + i * sb, dc + i * sc, da != nullptr ? da + i * sa : nullptr,
                      db != nullptr ? db + i * sb : nullptr);
  });
  return absl::OkStatus();
}

absl::Status BatchDotBackward(const KernelContext& ctx) {
  SYMX_FLOAT_SWITCH(ctx, ctx.inputs[1].dtype(), T, return BatchDotBackwardT<T>(ctx));
}

}  // namespace

#ifdef SYMX_WITH_ONEDNN
absl::Status PrepareDense(KernelContext* ctx, size_t* workspace_bytes) {
  *workspace_bytes = 0;
  if (!ctx->options.onednn) return absl::OkStatus();
  for (const Tensor& t : ctx->inputs) {
    if (t.dtype() != DType::kFloat32) return absl::OkStatus();
  }
  AdoptOnednnState(ctx, std::make_shared<OnednnGemm>());
  return absl::OkStatus();
}
#endif

// khatri_rao: out[r, k] = prod_j A_j[i_j, k], r = (i_1, ..., i_n) row-major
// over the inputs' rows, the factors multiplied left to right as MXNet's
// successive Kronecker products multiply them. float32 and float64, the
// types MXNet's CPU kernel computes (its BLAS step has no other); float16
// widens to float32.
absl::Status KhatriRaoForward(const KernelContext& ctx) {
  const Tensor& out = ctx.outputs[0];
  const int64_t rows = out.shape()[0], cols = out.shape()[1];
  const size_t n = ctx.inputs.size();
  std::vector<int64_t> m(n);
  for (size_t j = 0; j < n; ++j) {
    const Shape& s = ctx.inputs[j].shape();
    if (s.ndim() != 2 || s[1] != cols) {
      return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": input ", j, " of shape ",
                                                     s.ToString(), " is not a matrix of ", cols,
                                                     " columns"));
    }
    m[j] = s[0];
  }
  if (out.size() == 0) return absl::OkStatus();
  SYMX_FLOAT_SWITCH(ctx, out.dtype(), T, {
    std::vector<const T*> in(n);
    for (size_t j = 0; j < n; ++j) in[j] = ctx.inputs[j].data<T>();
    T* o = out.data<T>();
    ParallelFor(ctx, rows, static_cast<double>(cols * n), [&](int64_t begin, int64_t end) {
      std::vector<int64_t> idx(n);
      for (int64_t r = begin; r < end; ++r) {
        int64_t rest = r;
        for (size_t j = n; j-- > 0;) {
          idx[j] = rest % m[j];
          rest /= m[j];
        }
        T* row = o + r * cols;
        for (int64_t k = 0; k < cols; ++k) row[k] = in[0][idx[0] * cols + k];
        for (size_t j = 1; j < n; ++j) {
          const T* a = in[j] + idx[j] * cols;
          for (int64_t k = 0; k < cols; ++k) row[k] *= a[k];
        }
      }
    });
  });
  return absl::OkStatus();
}

SYMX_REGISTER_KERNEL("khatri_rao", kCPU, .fn = KhatriRaoForward,
                     .widening = HalfWidening::kFloat16AndBFloat16);

SYMX_REGISTER_KERNEL("FullyConnected", kCPU, .fn = FullyConnectedForward, .prepare = PrepareDense,
                     .widening = HalfWidening::kFloat16AndBFloat16);
SYMX_REGISTER_KERNEL("_backward_FullyConnected", kCPU, .fn = FullyConnectedBackward,
                     .prepare = PrepareDense, .widening = HalfWidening::kFloat16AndBFloat16);
SYMX_REGISTER_KERNEL("dot", kCPU, .fn = DotForward, .prepare = PrepareDense,
                     .widening = HalfWidening::kFloat16AndBFloat16);
SYMX_REGISTER_KERNEL("_backward_dot", kCPU, .fn = DotBackward, .prepare = PrepareDense,
                     .widening = HalfWidening::kFloat16AndBFloat16);
SYMX_REGISTER_KERNEL("batch_dot", kCPU, .fn = BatchDotForward, .prepare = PrepareDense,
                     .widening = HalfWidening::kFloat16AndBFloat16);
SYMX_REGISTER_KERNEL("_backward_batch_dot", kCPU, .fn = BatchDotBackward, .prepare = PrepareDense,
                     .widening = HalfWidening::kFloat16AndBFloat16);

}  // namespace cpu
}  // namespace symx
