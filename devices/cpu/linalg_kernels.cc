// CPU kernels of _linalg_extractdiag, _linalg_makediag, _linalg_extracttrian,
// _linalg_maketrian, _linalg_sumlogdiag (and its backward), _linalg_gemm2,
// _linalg_gemm, _linalg_syrk, and of _linalg_potrf, _linalg_potri,
// _linalg_trmm, _linalg_trsm, _linalg_inverse, _linalg_det, _linalg_slogdet,
// _linalg_gelqf and _linalg_syevd with their backward ops (float32 and
// float64, as MXNet).
// The products: every matrix of the batch through the dense family's Gemm, reading the operands in
// place at their row stride (GemmLayout above).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

#include "Eigen/Cholesky"
#include "Eigen/Core"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "devices/cpu/dense_kernels.h"
#include "devices/cpu/kernel_util.h"
#include "devices/geometry/linalg_matrix.h"
#include "graph/ops/linalg.h"
#include "graph/param.h"
#include "graph/shape.h"

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

// ---------------------------------------------------------------------------
// potrf, potri, trmm, trsm, inverse, det, slogdet, gelqf, syevd and their
// gradients: each matrix of the batch through devices/geometry/linalg_matrix.h
// (the CUDA kernels' arithmetic) or, for potrf, trmm, trsm and potrf's
// gradient, Eigen's blocked routines, in parallel over the batch.

// The count and side of the square matrices of `t`.
absl::Status Squares(const KernelContext& ctx, const Tensor& t, int64_t* count, int64_t* n) {
  absl::Status s = GetSquareBatch(t.shape(), "input A", count, n);
  if (!s.ok()) return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": ", s.message()));
  return absl::OkStatus();
}

// Runs fn(b) for every matrix b < count, about `flops` each; fn returns a
// LAPACK-style info (0: fine). Returns the first failing matrix and its info.
template <typename Fn>
std::pair<int64_t, int64_t> EachMatrix(const KernelContext& ctx, int64_t count, double flops,
                                       Fn&& fn) {
  std::vector<int64_t> info(static_cast<size_t>(count), 0);
  ParallelFor(ctx, count, flops, [&](int64_t begin, int64_t end) {
    for (int64_t b = begin; b < end; ++b) info[static_cast<size_t>(b)] = fn(b);
  });
  for (int64_t b = 0; b < count; ++b) {
    if (info[static_cast<size_t>(b)] != 0) return {b, info[static_cast<size_t>(b)]};
  }
  return {-1, 0};
}

// EachMatrix for kernels that cannot fail: fn(b) for every matrix b < count.
template <typename Fn>
void ForEachMatrix(const KernelContext& ctx, int64_t count, double flops, Fn&& fn) {
  ParallelFor(ctx, count, flops, [&](int64_t begin, int64_t end) {
    for (int64_t b = begin; b < end; ++b) fn(b);
  });
}

absl::Status FailedAt(const KernelContext& ctx, FactorFailure kind, const Shape& a, int64_t index,
                      int64_t info) {
  return absl::InvalidArgumentError(
      absl::StrCat(ctx.Where(), ": ", FactorError(kind, a, index, info).message()));
}

absl::Status TriangOperands(const KernelContext& ctx, const LinalgTriangParam& p, const Tensor& a,
                            const Tensor& b, TriangLayout* l) {
  absl::Status s = GetTriangLayout(p, a.shape(), b.shape(), l);
  if (!s.ok()) return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": ", s.message()));
  return absl::OkStatus();
}

template <typename T>
void CopyMatrix(const T* src, T* dst, int64_t size) {
  if (src != dst) std::copy(src, src + size, dst);
}

// potrf, trmm and trsm (the Gaussian-process path) go through Eigen's blocked
// routines on the CPU; the GPU's one-thread loops (linalg_matrix.h) are
// checked against them in tests/ops/linalg_factor_test.cc.
template <typename T>
using RowMatrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// b = alpha op(A) b, alpha b op(A), or with op(A)^-1 (kSolve), op(A) being
// the kMode triangle of `op`.
template <int kMode, bool kSolve, typename Op, typename T>
void TriangWith(const Op& op, bool rightside, T alpha, Eigen::Map<RowMatrix<T>>* b) {
  const auto tri = op.template triangularView<kMode>();
  if (kSolve) {
    *b *= alpha;
    if (rightside) {
      tri.template solveInPlace<Eigen::OnTheRight>(*b);
    } else {
      tri.solveInPlace(*b);
    }
  } else {
    if (rightside) {
      *b = *b * tri;
    } else {
      *b = tri * *b;
    }
    *b *= alpha;
  }
}

// linalg::TriangMultiply and linalg::TriangSolve through Eigen.
template <bool kSolve, typename T>
void EigenTriang(const T* a, int64_t n, linalg::TriangSpec s, T alpha, T* b, int64_t rows,
                 int64_t cols) {
  Eigen::Map<const RowMatrix<T>> am(a, n, n);
  Eigen::Map<RowMatrix<T>> bm(b, rows, cols);
  const bool op_lower = s.lower != s.transpose;
  if (!s.transpose) {
    if (op_lower) {
      TriangWith<Eigen::Lower, kSolve>(am, s.rightside, alpha, &bm);
    } else {
      TriangWith<Eigen::Upper, kSolve>(am, s.rightside, alpha, &bm);
    }
  } else if (op_lower) {
    TriangWith<Eigen::Lower, kSolve>(am.transpose(), s.rightside, alpha, &bm);
  } else {
    TriangWith<Eigen::Upper, kSolve>(am.transpose(), s.rightside, alpha, &bm);
  }
}

// The Cholesky factor of `a`'s `lower` (else upper) triangle into `out`, the
// other triangle zero; LAPACK's info (0, or the order of the first leading
// minor that is not positive definite).
template <typename T>
int64_t EigenCholesky(const T* a, int64_t n, bool lower, T* out) {
  Eigen::Map<const RowMatrix<T>> am(a, n, n);
  Eigen::Map<RowMatrix<T>> om(out, n, n);
  bool ok = false;
  if (lower) {
    Eigen::LLT<RowMatrix<T>, Eigen::Lower> llt(am);
    ok = llt.info() == Eigen::Success;
    if (ok) om = llt.matrixL();
  } else {
    Eigen::LLT<RowMatrix<T>, Eigen::Upper> llt(am);
    ok = llt.info() == Eigen::Success;
    if (ok) om = llt.matrixU();
  }
  if (ok) return 0;
  // Where it fails, for the error: LAPACK's unblocked order.
  CopyMatrix(a, out, n * n);
  const int64_t info = linalg::Cholesky(out, n, lower);
  return info == 0 ? n : info;
}

// potrf and potri: fn(src, dst, n, lower) takes each n x n matrix of input A
// to the output's (about flops_n3 n^3 flops) and returns its info; the first
// failure is named as `kind`.
template <typename T, typename Fn>
absl::Status CholeskyStep(const KernelContext& ctx, double flops_n3, FactorFailure kind, Fn&& fn) {
  const Tensor& a = ctx.inputs[0];
  int64_t count = 0, n = 0;
  SYMX_RETURN_IF_ERROR(Squares(ctx, a, &count, &n));
  const bool lower = ctx.param<LinalgCholeskyParam>().lower;
  const T* src = a.data<T>();
  T* dst = ctx.outputs[0].data<T>();
  const auto [bad, info] = EachMatrix(ctx, count, flops_n3 * n * n * n, [&](int64_t b) {
    return fn(src + b * n * n, dst + b * n * n, n, lower);
  });
  if (bad >= 0) return FailedAt(ctx, kind, a.shape(), bad, info);
  return absl::OkStatus();
}

template <typename T>
absl::Status PotrfT(const KernelContext& ctx) {
  return CholeskyStep<T>(ctx, 1.0 / 3.0, FactorFailure::kNotPositiveDefinite,
                         [](const T* src, T* dst, int64_t n, bool lower) {
                           return EigenCholesky(src, n, lower, dst);
                         });
}

template <typename T>
absl::Status PotriT(const KernelContext& ctx) {
  return CholeskyStep<T>(ctx, 2.0 / 3.0, FactorFailure::kSingularFactor,
                         [](const T* src, T* dst, int64_t n, bool lower) {
                           CopyMatrix(src, dst, n * n);
                           return linalg::CholeskyInverse(dst, n, lower);
                         });
}

// trmm (kSolve false) and trsm: C = B, then the product or solve in place.
template <typename T, bool kSolve>
absl::Status TriangT(const KernelContext& ctx) {
  const LinalgTriangParam& p = ctx.param<LinalgTriangParam>();
  TriangLayout l;
  SYMX_RETURN_IF_ERROR(TriangOperands(ctx, p, ctx.inputs[0], ctx.inputs[1], &l));
  const T* a = ctx.inputs[0].data<T>();
  const T* b = ctx.inputs[1].data<T>();
  T* c = ctx.outputs[0].data<T>();
  const linalg::TriangSpec s{p.transpose, p.rightside, p.lower};
  const int64_t nn = l.n * l.n, bsize = l.rows * l.cols;
  ForEachMatrix(ctx, l.count, 1.0 * l.n * bsize, [&](int64_t i) {
    CopyMatrix(b + i * bsize, c + i * bsize, bsize);
    EigenTriang<kSolve>(a + i * nn, l.n, s, static_cast<T>(p.alpha), c + i * bsize, l.rows, l.cols);
  });
  return absl::OkStatus();
}

template <typename T>
absl::Status InverseT(const KernelContext& ctx) {
  const Tensor& a = ctx.inputs[0];
  int64_t count = 0, n = 0;
  SYMX_RETURN_IF_ERROR(Squares(ctx, a, &count, &n));
  const T* src = a.data<T>();
  T* dst = ctx.outputs[0].data<T>();
  const auto [bad, info] = EachMatrix(ctx, count, 2.0 * n * n * n, [&](int64_t b) {
    std::vector<T> lu(src + b * n * n, src + (b + 1) * n * n);
    std::vector<int32_t> ipiv(static_cast<size_t>(n));
    const int64_t r = linalg::LuFactor(lu.data(), n, ipiv.data());
    if (r == 0) linalg::LuInverse(lu.data(), ipiv.data(), n, T(1), 1, n, dst + b * n * n);
    return r;
  });
  if (bad >= 0) return FailedAt(ctx, FactorFailure::kSingular, a.shape(), bad, info);
  return absl::OkStatus();
}

// det (kLog false): det, LU, pivot; slogdet: sign, logabsdet, LU, pivot.
template <typename T, bool kLog>
absl::Status DetT(const KernelContext& ctx) {
  const Tensor& a = ctx.inputs[0];
  int64_t count = 0, n = 0;
  SYMX_RETURN_IF_ERROR(Squares(ctx, a, &count, &n));
  const int values = kLog ? 2 : 1;
  if (ctx.outputs[0].size() != count) {
    return absl::InvalidArgumentError(
        absl::StrCat(ctx.Where(), ": output ", ctx.outputs[0].shape().ToString(),
                     " does not hold one value per matrix of ", a.shape().ToString()));
  }
  const T* src = a.data<T>();
  T* v0 = ctx.outputs[0].data<T>();
  T* v1 = kLog ? ctx.outputs[1].data<T>() : nullptr;
  T* lu = ctx.outputs[values].data<T>();
  int32_t* ipiv = ctx.outputs[values + 1].data<int32_t>();
  ForEachMatrix(ctx, count, 2.0 * n * n * n / 3.0, [&](int64_t b) {
    CopyMatrix(src + b * n * n, lu + b * n * n, n * n);
    linalg::LuFactor(lu + b * n * n, n, ipiv + b * n);
    T sign, logabs;
    linalg::LuSignLogDet(lu + b * n * n, ipiv + b * n, n, &sign, &logabs);
    if (kLog) {
      v0[b] = sign;
      v1[b] = logabs;
    } else {
      v0[b] = sign * std::exp(logabs);
    }
  });
  return absl::OkStatus();
}

// Inputs: ograd, B (the factor). dA.
template <typename T>
absl::Status PotrfBackwardT(const KernelContext& ctx) {
  int64_t count = 0, n = 0;
  SYMX_RETURN_IF_ERROR(Squares(ctx, ctx.inputs[1], &count, &n));
  const bool lower = ctx.param<LinalgCholeskyParam>().lower;
  const T* g = ctx.inputs[0].data<T>();
  const T* b = ctx.inputs[1].data<T>();
  T* da = ctx.outputs[0].data<T>();
  // linalg::PotrfBackward's steps, the triangular ones through Eigen.
  ForEachMatrix(ctx, count, 2.0 * n * n * n, [&](int64_t i) {
    const T* bi = b + i * n * n;
    T* d = da + i * n * n;
    CopyMatrix(g + i * n * n, d, n * n);
    EigenTriang<false>(bi, n, linalg::TriangSpec{true, !lower, lower}, T(1), d, n, n);
    linalg::MirrorTriangle(d, n, lower);
    EigenTriang<true>(bi, n, linalg::TriangSpec{lower, false, lower}, T(1), d, n, n);
    EigenTriang<true>(bi, n, linalg::TriangSpec{!lower, true, lower}, T(0.5), d, n, n);
  });
  return absl::OkStatus();
}

// Inputs: ograd, B (potri's input), A (its output). dB.
template <typename T>
absl::Status PotriBackwardT(const KernelContext& ctx) {
  int64_t count = 0, n = 0;
  SYMX_RETURN_IF_ERROR(Squares(ctx, ctx.inputs[1], &count, &n));
  const bool lower = ctx.param<LinalgCholeskyParam>().lower;
  const T* g = ctx.inputs[0].data<T>();
  const T* b = ctx.inputs[1].data<T>();
  const T* a = ctx.inputs[2].data<T>();
  T* db = ctx.outputs[0].data<T>();
  ForEachMatrix(ctx, count, 5.0 * n * n * n, [&](int64_t i) {
    linalg::PotriBackward(g + i * n * n, b + i * n * n, a + i * n * n, n, lower, db + i * n * n);
  });
  return absl::OkStatus();
}

// trmm's (inputs ograd, A, B) and trsm's (ograd, A, C) gradients: dA, dB.
template <typename T, bool kSolve>
absl::Status TriangBackwardT(const KernelContext& ctx) {
  const LinalgTriangParam& p = ctx.param<LinalgTriangParam>();
  TriangLayout l;
  SYMX_RETURN_IF_ERROR(TriangOperands(ctx, p, ctx.inputs[1], ctx.inputs[2], &l));
  const T* g = ctx.inputs[0].data<T>();
  const T* a = ctx.inputs[1].data<T>();
  const T* x = ctx.inputs[2].data<T>();
  T* da = ctx.outputs[0].data<T>();
  T* db = ctx.outputs[1].data<T>();
  const linalg::TriangSpec s{p.transpose, p.rightside, p.lower};
  const linalg::TriangDims d{l.n, l.rows, l.cols};
  const int64_t nn = l.n * l.n, bsize = l.rows * l.cols;
  const T alpha = static_cast<T>(p.alpha);
  ForEachMatrix(ctx, l.count, 3.0 * l.n * bsize, [&](int64_t i) {
    if (kSolve) {
      linalg::TrsmBackward(g + i * bsize, a + i * nn, x + i * bsize, d, s, alpha, da + i * nn,
                           db + i * bsize);
    } else {
      linalg::TrmmBackward(g + i * bsize, a + i * nn, x + i * bsize, d, s, alpha, da + i * nn,
                           db + i * bsize);
    }
  });
  return absl::OkStatus();
}

// Inputs: ograd, A (inverse's output). dB = -A^T ograd A^T.
template <typename T>
absl::Status InverseBackwardT(const KernelContext& ctx) {
  int64_t count = 0, n = 0;
  SYMX_RETURN_IF_ERROR(Squares(ctx, ctx.inputs[1], &count, &n));
  const T* g = ctx.inputs[0].data<T>();
  const T* a = ctx.inputs[1].data<T>();
  T* db = ctx.outputs[0].data<T>();
  ForEachMatrix(ctx, count, 4.0 * n * n * n, [&](int64_t i) {
    std::vector<T> tmp(static_cast<size_t>(n * n));
    linalg::InverseBackward(g + i * n * n, a + i * n * n, n, tmp.data(), db + i * n * n);
  });
  return absl::OkStatus();
}

// det's (inputs ograd, det, LU, pivot; dA = ograd det A^-T) and slogdet's
// (ograd of logabsdet, logabsdet, LU, pivot; dA = ograd A^-T) gradients,
// zero for a singular matrix as MXNet.
template <typename T, bool kLog>
absl::Status DetBackwardT(const KernelContext& ctx) {
  int64_t count = 0, n = 0;
  SYMX_RETURN_IF_ERROR(Squares(ctx, ctx.inputs[2], &count, &n));
  const T* g = ctx.inputs[0].data<T>();
  const T* v = ctx.inputs[1].data<T>();
  const T* lu = ctx.inputs[2].data<T>();
  const int32_t* ipiv = ctx.inputs[3].data<int32_t>();
  T* da = ctx.outputs[0].data<T>();
  ForEachMatrix(ctx, count, 2.0 * n * n * n, [&](int64_t i) {
    const bool singular = kLog ? v[i] == -std::numeric_limits<T>::infinity() : v[i] == T(0);
    if (singular) {
      std::fill(da + i * n * n, da + (i + 1) * n * n, T(0));
    } else {
      // The inverse of the factored A^T, column-major, is A^-T row-major.
      linalg::LuInverse(lu + i * n * n, ipiv + i * n, n, kLog ? g[i] : g[i] * v[i], n, 1,
                        da + i * n * n);
    }
  });
  return absl::OkStatus();
}

absl::Status Potrf(const KernelContext& ctx) {
  SYMX_FLOAT_SWITCH(ctx, ctx.inputs[0].dtype(), T, return PotrfT<T>(ctx));
}
absl::Status Potri(const KernelContext& ctx) {
  SYMX_FLOAT_SWITCH(ctx, ctx.inputs[0].dtype(), T, return PotriT<T>(ctx));
}
template <bool kSolve>
absl::Status Triang(const KernelContext& ctx) {
  SYMX_FLOAT_SWITCH(ctx, ctx.inputs[0].dtype(), T, return TriangT<T, kSolve>(ctx));
}
absl::Status Inverse(const KernelContext& ctx) {
  SYMX_FLOAT_SWITCH(ctx, ctx.inputs[0].dtype(), T, return InverseT<T>(ctx));
}
template <bool kLog>
absl::Status Det(const KernelContext& ctx) {
  SYMX_FLOAT_SWITCH(ctx, ctx.inputs[0].dtype(), T, return DetT<T, kLog>(ctx));
}
absl::Status PotrfBackward(const KernelContext& ctx) {
  SYMX_FLOAT_SWITCH(ctx, ctx.inputs[1].dtype(), T, return PotrfBackwardT<T>(ctx));
}
absl::Status PotriBackward(const KernelContext& ctx) {
  SYMX_FLOAT_SWITCH(ctx, ctx.inputs[1].dtype(), T, return PotriBackwardT<T>(ctx));
}
template <bool kSolve>
absl::Status TriangBackward(const KernelContext& ctx) {
  SYMX_FLOAT_SWITCH(ctx, ctx.inputs[1].dtype(), T, return TriangBackwardT<T, kSolve>(ctx));
}
absl::Status InverseBackward(const KernelContext& ctx) {
  SYMX_FLOAT_SWITCH(ctx, ctx.inputs[1].dtype(), T, return InverseBackwardT<T>(ctx));
}
template <bool kLog>
absl::Status DetBackward(const KernelContext& ctx) {
  SYMX_FLOAT_SWITCH(ctx, ctx.inputs[2].dtype(), T, return DetBackwardT<T, kLog>(ctx));
}

SYMX_REGISTER_KERNEL("_linalg_potrf", kCPU, Potrf);
SYMX_REGISTER_KERNEL("_linalg_potri", kCPU, Potri);
SYMX_REGISTER_KERNEL("_linalg_trmm", kCPU, Triang<false>);
SYMX_REGISTER_KERNEL("_linalg_trsm", kCPU, Triang<true>);
SYMX_REGISTER_KERNEL("_linalg_inverse", kCPU, Inverse);
SYMX_REGISTER_KERNEL("_linalg_det", kCPU, Det<false>);
SYMX_REGISTER_KERNEL("_linalg_slogdet", kCPU, Det<true>);
SYMX_REGISTER_KERNEL("_backward_linalg_potrf", kCPU, PotrfBackward);
SYMX_REGISTER_KERNEL("_backward_linalg_potri", kCPU, PotriBackward);
SYMX_REGISTER_KERNEL("_backward_linalg_trmm", kCPU, TriangBackward<false>);
SYMX_REGISTER_KERNEL("_backward_linalg_trsm", kCPU, TriangBackward<true>);
SYMX_REGISTER_KERNEL("_backward_linalg_inverse", kCPU, InverseBackward);
SYMX_REGISTER_KERNEL("_backward_linalg_det", kCPU, DetBackward<false>);
SYMX_REGISTER_KERNEL("_backward_linalg_slogdet", kCPU, DetBackward<true>);

// The count, rows m and columns n of the m x n matrices of `s` (ndim >= 2).
void MatrixDims(const Shape& s, int64_t* count, int64_t* m, int64_t* n) {
  const int ndim = s.ndim();
  *m = s[ndim - 2];
  *n = s[ndim - 1];
  *count = *m == 0 ? 0 : s.Size() / (*m * *n);
}

// gelqf: A (count, m, n) -> Q, L.
template <typename T>
absl::Status GelqfT(const KernelContext& ctx) {
  const Shape& s = ctx.inputs[0].shape();
  const int ndim = s.ndim();
  if (ndim < 2 || s[ndim - 2] > s[ndim - 1]) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": input A ", s.ToString(),
                                                   " is not a tensor of m x n matrices, m <= n"));
  }
  int64_t count = 0, m = 0, n = 0;
  MatrixDims(s, &count, &m, &n);
  const T* a = ctx.inputs[0].data<T>();
  T* q = ctx.outputs[0].data<T>();
  T* l = ctx.outputs[1].data<T>();
  ForEachMatrix(ctx, count, 4.0 * m * m * n, [&](int64_t b) {
    std::vector<T> work(static_cast<size_t>(m * n + m));
    linalg::LqFactor(a + b * m * n, m, n, q + b * m * n, l + b * m * m, work.data());
  });
  return absl::OkStatus();
}

// syevd: A (count, n, n) -> U, L.
template <typename T>
absl::Status SyevdT(const KernelContext& ctx) {
  int64_t count = 0, n = 0;
  SYMX_RETURN_IF_ERROR(Squares(ctx, ctx.inputs[0], &count, &n));
  const T* a = ctx.inputs[0].data<T>();
  T* u = ctx.outputs[0].data<T>();
  T* w = ctx.outputs[1].data<T>();
  ForEachMatrix(ctx, count, 20.0 * n * n * n, [&](int64_t b) {
    std::vector<double> work(static_cast<size_t>(2 * n * n));
    CopyMatrix(a + b * n * n, u + b * n * n, n * n);
    linalg::SymmetricEigen(u + b * n * n, n, w + b * n, work.data());
  });
  return absl::OkStatus();
}

// Inputs: dQ, dL, Q, L. dA.
template <typename T>
absl::Status GelqfBackwardT(const KernelContext& ctx) {
  int64_t count = 0, m = 0, n = 0;
  MatrixDims(ctx.inputs[2].shape(), &count, &m, &n);
  const T* dq = ctx.inputs[0].data<T>();
  const T* dl = ctx.inputs[1].data<T>();
  const T* q = ctx.inputs[2].data<T>();
  const T* l = ctx.inputs[3].data<T>();
  T* da = ctx.outputs[0].data<T>();
  ForEachMatrix(ctx, count, 4.0 * m * m * n, [&](int64_t b) {
    std::vector<T> tmp(static_cast<size_t>(m * m));
    linalg::LqBackward(dq + b * m * n, dl + b * m * m, q + b * m * n, l + b * m * m, m, n,
                       tmp.data(), da + b * m * n);
  });
  return absl::OkStatus();
}

// Inputs: dU, dL, U, L. dA.
template <typename T>
absl::Status SyevdBackwardT(const KernelContext& ctx) {
  int64_t count = 0, n = 0;
  SYMX_RETURN_IF_ERROR(Squares(ctx, ctx.inputs[2], &count, &n));
  const T* du = ctx.inputs[0].data<T>();
  const T* dw = ctx.inputs[1].data<T>();
  const T* u = ctx.inputs[2].data<T>();
  const T* w = ctx.inputs[3].data<T>();
  T* da = ctx.outputs[0].data<T>();
  ForEachMatrix(ctx, count, 6.0 * n * n * n, [&](int64_t b) {
    std::vector<T> tmp(static_cast<size_t>(n * n));
    linalg::EigenBackward(du + b * n * n, dw + b * n, u + b * n * n, w + b * n, n, tmp.data(),
                          da + b * n * n);
  });
  return absl::OkStatus();
}

absl::Status Gelqf(const KernelContext& ctx) {
  SYMX_FLOAT_SWITCH(ctx, ctx.inputs[0].dtype(), T, return GelqfT<T>(ctx));
}
absl::Status Syevd(const KernelContext& ctx) {
  SYMX_FLOAT_SWITCH(ctx, ctx.inputs[0].dtype(), T, return SyevdT<T>(ctx));
}
absl::Status GelqfBackward(const KernelContext& ctx) {
  SYMX_FLOAT_SWITCH(ctx, ctx.inputs[2].dtype(), T, return GelqfBackwardT<T>(ctx));
}
absl::Status SyevdBackward(const KernelContext& ctx) {
  SYMX_FLOAT_SWITCH(ctx, ctx.inputs[2].dtype(), T, return SyevdBackwardT<T>(ctx));
}

SYMX_REGISTER_KERNEL("_linalg_gelqf", kCPU, Gelqf);
SYMX_REGISTER_KERNEL("_linalg_syevd", kCPU, Syevd);
SYMX_REGISTER_KERNEL("_backward_linalg_gelqf", kCPU, GelqfBackward);
SYMX_REGISTER_KERNEL("_backward_linalg_syevd", kCPU, SyevdBackward);

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
