// CPU kernels of _linalg_extractdiag, _linalg_makediag, _linalg_extracttrian,
// _linalg_maketrian, _linalg_sumlogdiag (and its backward), _linalg_gemm2,
// _linalg_gemm and _linalg_syrk (float32 and float64, as MXNet).
// The products: every matrix of the batch through the dense family's Gemm, reading the operands in
// place at their row stride (GemmLayout above).
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "devices/cpu/dense_kernels.h"
#include "devices/cpu/kernel_util.h"
#include "graph/param.h"
#include "graph/shape.h"
#include "graph/ops/linalg.h"

namespace symx {


namespace cpu {
namespace {

// out = alpha op(A) op(B) (+ beta C when `c` is given) under `p`.
template <typename T>
absl::Status GemmRunT(const KernelContext& ctx, const LinalgGemmParam& p, const Tensor& ta,
                      const Tensor& tb, const Tensor* tc) {
  GemmLayout l;
  const Tensor& out = ctx.outputs[0];
  const bool with_c = tc != nullptr;
  absl::Status s =
      GetGemmOperands(p, ta.shape(), tb.shape(), with_c ? &tc->shape() : nullptr, out.shape(), &l);
  if (!s.ok()) return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": ", s.message()));
  if (out.size() == 0) return absl::OkStatus();
  const T* a = ta.data<T>();
  const T* b = tb.data<T>();
  T* c = out.data<T>();
  // Stored rows x columns of A and B, and the row strides.
  const int64_t a_rows = p.transpose_a ? l.k : l.m, a_cols = p.transpose_a ? l.m : l.k;
  const int64_t b_rows = p.transpose_b ? l.n : l.k, b_cols = p.transpose_b ? l.k : l.n;
  const int64_t lda = l.mid * a_cols, ldb = l.mid * b_cols, ldc = l.mid * l.n;
  if (with_c) {
    // out = beta C first; beta 0 ignores C (NaN included), as BLAS does.
    const T* src = tc->data<T>();
    const T beta = static_cast<T>(p.beta);
    const int64_t size = out.size();
    ParallelFor(ctx, size, 1.0, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) c[i] = p.beta == 0 ? T(0) : beta * src[i];
    });
  }
  if (l.k == 0) {
    // An empty contraction adds nothing: beta C, or zeros.
    if (!with_c) std::fill(c, c + out.size(), T(0));
    return absl::OkStatus();
  }
  const int64_t batch = l.outer * l.mid;
  ForEachBatch(ctx, batch, 2.0 * l.m * l.n * l.k, [&](int64_t i, bool parallel) {
    const int64_t o = i / l.mid, j = i % l.mid;
    Gemm<T>(ctx, parallel, p.transpose_a, p.transpose_b, l.m, l.n, l.k,
            a + o * a_rows * lda + j * a_cols, lda, b + o * b_rows * ldb + j * b_cols, ldb,
            c + o * l.m * ldc + j * l.n, ldc, with_c, nullptr, static_cast<T>(p.alpha));
  });
  return absl::OkStatus();
}

absl::Status GemmForward(const KernelContext& ctx) {
  const Tensor* c = ctx.inputs.size() > 2 ? &ctx.inputs[2] : nullptr;
  SYMX_FLOAT_SWITCH(
      ctx, ctx.inputs[0].dtype(), T,
      return GemmRunT<T>(ctx, ctx.param<LinalgGemmParam>(), ctx.inputs[0], ctx.inputs[1], c));
}

// syrk: alpha A A^T, or alpha A^T A with `transpose`.
absl::Status SyrkForward(const KernelContext& ctx) {
  const LinalgGemmParam q = SyrkAsGemm(ctx.param<LinalgSyrkParam>());
  SYMX_FLOAT_SWITCH(ctx, ctx.inputs[0].dtype(), T,
                    return GemmRunT<T>(ctx, q, ctx.inputs[0], ctx.inputs[0], nullptr));
}

// extractdiag (`extract`) copies the diagonal out of each matrix; makediag
// zeroes each matrix and copies the diagonal in.
template <typename T, bool kExtract>
absl::Status DiagT(const KernelContext& ctx) {
  const Tensor& in = ctx.inputs[0];
  const Tensor& out = ctx.outputs[0];
  const Shape& matrices = kExtract ? in.shape() : out.shape();
  const DiagLayout l = GetDiagLayout(matrices, ctx.param<LinalgDiagParam>().offset);
  if (matrices.ndim() < 2 || matrices[matrices.ndim() - 2] != l.n || l.length <= 0 ||
      (kExtract ? out : in).size() != l.count * l.length) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": input ", in.shape().ToString(),
                                                   " and output ", out.shape().ToString(),
                                                   " are not a diagonal and its matrices"));
  }
  const T* src = in.data<T>();
  T* dst = out.data<T>();
  const int64_t nn = l.n * l.n;
  if (!kExtract) std::fill(dst, dst + out.size(), T(0));
  for (int64_t b = 0; b < l.count; ++b) {
    for (int64_t j = 0; j < l.length; ++j) {
      const int64_t at = b * nn + l.start + j * (l.n + 1);
      if (kExtract) {
        dst[b * l.length + j] = src[at];
      } else {
        dst[at] = src[b * l.length + j];
      }
    }
  }
  return absl::OkStatus();
}

template <bool kExtract>
absl::Status Diag(const KernelContext& ctx) {
  SYMX_FLOAT_SWITCH(ctx, ctx.inputs[0].dtype(), T, return DiagT<T, kExtract>(ctx));
}

// extracttrian packs each matrix's triangle row by row; maketrian zeroes each
// matrix and unpacks into it.
template <typename T, bool kExtract>
absl::Status TrianT(const KernelContext& ctx) {
  const Tensor& in = ctx.inputs[0];
  const Tensor& out = ctx.outputs[0];
  const Shape& matrices = kExtract ? in.shape() : out.shape();
  const TrianLayout l = GetTrianLayout(matrices, ctx.param<LinalgTrianParam>());
  if (matrices.ndim() < 2 || matrices[matrices.ndim() - 2] != l.n || l.side < 0 ||
      (kExtract ? out : in).size() != l.count * l.Packed()) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": input ", in.shape().ToString(),
                                                   " and output ", out.shape().ToString(),
                                                   " are not a packed triangle and its matrices"));
  }
  const T* src = in.data<T>();
  T* dst = out.data<T>();
  const int64_t nn = l.n * l.n, packed = l.Packed();
  if (!kExtract) std::fill(dst, dst + out.size(), T(0));
  for (int64_t b = 0; b < l.count; ++b) {
    for (int64_t r = 0; r < l.side; ++r) {
      const int64_t row_start = b * nn + l.RowStart(r), packed_start = b * packed + r * (r + 1) / 2;
      for (int64_t c = 0; c <= r; ++c) {
        if (kExtract) {
          dst[packed_start + c] = src[row_start + c * l.step];
        } else {
          dst[row_start + c * l.step] = src[packed_start + c];
        }
      }
    }
  }
  return absl::OkStatus();
}

template <bool kExtract>
absl::Status Trian(const KernelContext& ctx) {
  SYMX_FLOAT_SWITCH(ctx, ctx.inputs[0].dtype(), T, return TrianT<T, kExtract>(ctx));
}

// The number of n x n matrices of `a`, checked against `per_matrix` values
// (the output or the head gradient) in `b`.
absl::StatusOr<int64_t> SquareCount(const KernelContext& ctx, const Tensor& a, const Tensor& b) {
  const Shape& s = a.shape();
  const int ndim = s.ndim();
  if (ndim < 2 || s[ndim - 1] != s[ndim - 2]) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": input A ", s.ToString(),
                                                   " is not a tensor of square matrices"));
  }
  const int64_t n = s[ndim - 1];
  const int64_t count = n == 0 ? b.size() : a.size() / (n * n);
  if (count != b.size()) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": ", b.shape().ToString(),
                                                   " does not hold one value per matrix of ",
                                                   s.ToString()));
  }
  return count;
}

template <typename T>
absl::Status SumLogDiagT(const KernelContext& ctx) {
  const Tensor& a = ctx.inputs[0];
  SYMX_ASSIGN_OR_RETURN(int64_t count, SquareCount(ctx, a, ctx.outputs[0]));
  const int64_t n = a.shape()[a.shape().ndim() - 1];
  const T* src = a.data<T>();
  T* dst = ctx.outputs[0].data<T>();
  for (int64_t b = 0; b < count; ++b) {
    T acc(0);
    for (int64_t i = 0; i < n; ++i) acc += std::log(src[b * n * n + i * (n + 1)]);
    dst[b] = acc;
  }
  return absl::OkStatus();
}

// Inputs: ograd, A. dA: ograd / A_ii on the diagonals, zero elsewhere.
template <typename T>
absl::Status SumLogDiagBackwardT(const KernelContext& ctx) {
  const Tensor& a = ctx.inputs[1];
  SYMX_ASSIGN_OR_RETURN(int64_t count, SquareCount(ctx, a, ctx.inputs[0]));
  const int64_t n = a.shape()[a.shape().ndim() - 1];
  const T* g = ctx.inputs[0].data<T>();
  const T* src = a.data<T>();
  T* dst = ctx.outputs[0].data<T>();
  std::fill(dst, dst + ctx.outputs[0].size(), T(0));
  for (int64_t b = 0; b < count; ++b) {
    for (int64_t i = 0; i < n; ++i) {
      const int64_t at = b * n * n + i * (n + 1);
      dst[at] = g[b] / src[at];
    }
  }
  return absl::OkStatus();
}

absl::Status SumLogDiag(const KernelContext& ctx) {
  SYMX_FLOAT_SWITCH(ctx, ctx.inputs[0].dtype(), T, return SumLogDiagT<T>(ctx));
}

absl::Status SumLogDiagBackward(const KernelContext& ctx) {
  SYMX_FLOAT_SWITCH(ctx, ctx.inputs[1].dtype(), T, return SumLogDiagBackwardT<T>(ctx));
}

SYMX_REGISTER_KERNEL("_linalg_sumlogdiag", kCPU, SumLogDiag);
SYMX_REGISTER_KERNEL("_backward_linalg_sumlogdiag", kCPU, SumLogDiagBackward);
SYMX_REGISTER_KERNEL("_linalg_extracttrian", kCPU, Trian<true>);
SYMX_REGISTER_KERNEL("_linalg_maketrian", kCPU, Trian<false>);
SYMX_REGISTER_KERNEL("_linalg_extractdiag", kCPU, Diag<true>);
SYMX_REGISTER_KERNEL("_linalg_makediag", kCPU, Diag<false>);
SYMX_REGISTER_KERNEL("_linalg_gemm2", kCPU, GemmForward);
SYMX_REGISTER_KERNEL("_linalg_gemm", kCPU, GemmForward);
SYMX_REGISTER_KERNEL("_linalg_syrk", kCPU, SyrkForward);

}  // namespace
}  // namespace cpu
}  // namespace symx
