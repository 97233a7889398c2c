// One matrix at a time of the linalg family's factorizations and their
// gradients (_linalg_potrf, _linalg_potri, _linalg_trmm, _linalg_trsm,
// _linalg_inverse, _linalg_det, _linalg_slogdet, _linalg_syevd,
// _linalg_gelqf), for host and device code: the CPU kernels run them per
// matrix of a batch (potrf, trmm and trsm go through Eigen's blocked routines
// there, and tests/ops/linalg_factor_test.cc holds these loops to them), the
// CUDA kernels one thread per matrix, so the CPU tests check the GPU's
// arithmetic. Plain loops in the matrices' own type, as LAPACK's unblocked
// routines (potf2, getf2, trti2, lauu2, gelq2, orgl2) order them; the
// symmetric eigensolver is cyclic Jacobi in double (LAPACK's syevd is divide
// and conquer: the same eigenpairs to rounding, signs fixed as MXNet fixes
// them).
//
// Matrices are row-major and dense. An LU factorization is LAPACK's getf2 on
// the column-major view of a row-major A, i.e. of A^T, as MXNet's CPU calls
// it: `lu` then holds L and U of A^T = P L U column-major and ipiv LAPACK's
// 1-based row interchanges. Nothing here allocates; scratch comes from the
// caller.
#ifndef SYMX_DEVICES_GEOMETRY_LINALG_MATRIX_H_
#define SYMX_DEVICES_GEOMETRY_LINALG_MATRIX_H_

#include <math.h>

#include <cstdint>

#include "devices/host_device.h"

namespace symx {
namespace linalg {

// trmm's and trsm's operand A: a triangle (`lower` or upper) of an n x n
// matrix, used as op(A) = A or A^T (`transpose`), from the left of B or, with
// `rightside`, from the right.
struct TriangSpec {
  bool transpose = false;
  bool rightside = false;
  bool lower = true;
};

// Element (i, j) of op(A), read only inside op(A)'s triangle.
template <typename T>
SYMX_HOST_DEVICE inline T OpA(const T* a, int64_t n, bool transpose, int64_t i, int64_t j) {
  return transpose ? a[j * n + i] : a[i * n + j];
}

// b = alpha op(A) b, or alpha b op(A) (`rightside`), in place; b is
// rows x cols (n x cols from the left, rows x n from the right).
template <typename T>
SYMX_HOST_DEVICE inline void TriangMultiply(const T* a, int64_t n, TriangSpec s, T alpha, T* b,
                                            int64_t rows, int64_t cols) {
  const bool op_lower = s.lower != s.transpose;
  if (!s.rightside) {
    for (int64_t c = 0; c < cols; ++c) {
      for (int64_t step = 0; step < n; ++step) {
        // A lower op(A) overwrites from the bottom row up, an upper from the top.
        const int64_t i = op_lower ? n - 1 - step : step;
        T acc(0);
        const int64_t lo = op_lower ? 0 : i, hi = op_lower ? i : n - 1;
        for (int64_t j = lo; j <= hi; ++j) acc += OpA(a, n, s.transpose, i, j) * b[j * cols + c];
        b[i * cols + c] = alpha * acc;
      }
    }
    return;
  }
  for (int64_t r = 0; r < rows; ++r) {
    T* row = b + r * cols;
    for (int64_t step = 0; step < n; ++step) {
      const int64_t j = op_lower ? step : n - 1 - step;
      T acc(0);
      const int64_t lo = op_lower ? j : 0, hi = op_lower ? n - 1 : j;
      for (int64_t i = lo; i <= hi; ++i) acc += row[i] * OpA(a, n, s.transpose, i, j);
      row[j] = alpha * acc;
    }
  }
}

// b = alpha op(A)^-1 b, or alpha b op(A)^-1 (`rightside`), in place (BLAS
// trsm: no check of the diagonal).
template <typename T>
SYMX_HOST_DEVICE inline void TriangSolve(const T* a, int64_t n, TriangSpec s, T alpha, T* b,
                                         int64_t rows, int64_t cols) {
  const bool op_lower = s.lower != s.transpose;
  if (!s.rightside) {
    for (int64_t c = 0; c < cols; ++c) {
      for (int64_t step = 0; step < n; ++step) {
        // Forward substitution for a lower op(A), backward for an upper one.
        const int64_t i = op_lower ? step : n - 1 - step;
        T acc = alpha * b[i * cols + c];
        const int64_t lo = op_lower ? 0 : i + 1, hi = op_lower ? i - 1 : n - 1;
        for (int64_t j = lo; j <= hi; ++j) acc -= OpA(a, n, s.transpose, i, j) * b[j * cols + c];
        b[i * cols + c] = acc / OpA(a, n, s.transpose, i, i);
      }
    }
    return;
  }
  for (int64_t r = 0; r < rows; ++r) {
    T* row = b + r * cols;
    for (int64_t step = 0; step < n; ++step) {
      const int64_t j = op_lower ? n - 1 - step : step;
      T acc = alpha * row[j];
      const int64_t lo = op_lower ? j + 1 : 0, hi = op_lower ? n - 1 : j - 1;
      for (int64_t i = lo; i <= hi; ++i) acc -= row[i] * OpA(a, n, s.transpose, i, j);
      row[j] = acc / OpA(a, n, s.transpose, j, j);
    }
  }
}

// out (m x n) = alpha op(X) op(Y) + beta out, op(X) m x k, op(Y) k x n;
// beta 0 ignores out.
template <typename T>
SYMX_HOST_DEVICE inline void MatMul(const T* x, bool tx, const T* y, bool ty, int64_t m, int64_t n,
                                    int64_t k, T alpha, T beta, T* out) {
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      T acc(0);
      for (int64_t q = 0; q < k; ++q) {
        acc += (tx ? x[q * m + i] : x[i * k + q]) * (ty ? y[j * k + q] : y[q * n + j]);
      }
      out[i * n + j] = beta == T(0) ? alpha * acc : alpha * acc + beta * out[i * n + j];
    }
  }
}

// Zeroes the strict upper (`upper`) or strict lower triangle of an n x n matrix.
template <typename T>
SYMX_HOST_DEVICE inline void ZeroTriangle(T* a, int64_t n, bool upper) {
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      if (upper ? j > i : j < i) a[i * n + j] = T(0);
    }
  }
}

// Copies the lower triangle onto the upper one (`from_lower`), or the upper
// onto the lower.
template <typename T>
SYMX_HOST_DEVICE inline void MirrorTriangle(T* a, int64_t n, bool from_lower) {
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < i; ++j) {
      if (from_lower) {
        a[j * n + i] = a[i * n + j];
      } else {
        a[i * n + j] = a[j * n + i];
      }
    }
  }
}

// Element (i, j), i >= j, of the lower factor L; for an upper factor U = L^T
// it is U(j, i).
template <typename T>
SYMX_HOST_DEVICE inline T& Factor(T* a, int64_t n, bool lower, int64_t i, int64_t j) {
  return lower ? a[i * n + j] : a[j * n + i];
}

// The Cholesky factor of the symmetric matrix in `a` (its lower triangle, or
// its upper one), in place, the other triangle zeroed: A = L L^T, or U^T U.
// Returns 0, or k + 1 when the leading minor of order k + 1 is not positive
// definite (LAPACK's info; `a` is then partly overwritten).
template <typename T>
SYMX_HOST_DEVICE inline int64_t Cholesky(T* a, int64_t n, bool lower) {
  for (int64_t j = 0; j < n; ++j) {
    T d = Factor(a, n, lower, j, j);
    for (int64_t q = 0; q < j; ++q) d -= Factor(a, n, lower, j, q) * Factor(a, n, lower, j, q);
    if (!(d > T(0))) return j + 1;
    d = sqrt(d);
    Factor(a, n, lower, j, j) = d;
    const T inv = T(1) / d;
    for (int64_t i = j + 1; i < n; ++i) {
      T acc = Factor(a, n, lower, i, j);
      for (int64_t q = 0; q < j; ++q) acc -= Factor(a, n, lower, i, q) * Factor(a, n, lower, j, q);
      Factor(a, n, lower, i, j) = acc * inv;
    }
  }
  ZeroTriangle(a, n, lower);
  return 0;
}

// (L L^T)^-1 from the triangular factor L in `a` (or U^-1 U^-T from an upper
// U), in place, symmetric. Returns 0, or k + 1 when diagonal element k is
// zero (LAPACK potri's info).
template <typename T>
SYMX_HOST_DEVICE inline int64_t CholeskyInverse(T* a, int64_t n, bool lower) {
  for (int64_t j = 0; j < n; ++j) {
    if (Factor(a, n, lower, j, j) == T(0)) return j + 1;
  }
  // L^-1 in place, column by column: column j reads only L's columns > j.
  for (int64_t j = 0; j < n; ++j) {
    const T djj = T(1) / Factor(a, n, lower, j, j);
    Factor(a, n, lower, j, j) = djj;
    for (int64_t i = j + 1; i < n; ++i) {
      T acc = Factor(a, n, lower, i, j) * djj;
      for (int64_t q = j + 1; q < i; ++q)
        acc += Factor(a, n, lower, i, q) * Factor(a, n, lower, q, j);
      Factor(a, n, lower, i, j) = -acc / Factor(a, n, lower, i, i);
    }
  }
  // L^-T L^-1, row by row: (i, j) reads L^-1's rows >= i and (i, j' >= j).
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j <= i; ++j) {
      T acc(0);
      for (int64_t q = i; q < n; ++q) acc += Factor(a, n, lower, q, i) * Factor(a, n, lower, q, j);
      Factor(a, n, lower, i, j) = acc;
    }
  }
  MirrorTriangle(a, n, lower);
  return 0;
}

// LAPACK getf2 on the column-major n x n matrix `lu`, in place: partial
// pivoting (the first largest magnitude), 1-based ipiv. Returns 0, or k + 1
// for the first exactly zero pivot (the factorization is then completed).
template <typename T>
SYMX_HOST_DEVICE inline int64_t LuFactor(T* lu, int64_t n, int32_t* ipiv) {
  int64_t info = 0;
  for (int64_t j = 0; j < n; ++j) {
    int64_t p = j;
    T best = fabs(lu[j + j * n]);
    for (int64_t i = j + 1; i < n; ++i) {
      const T v = fabs(lu[i + j * n]);
      if (v > best) {
        best = v;
        p = i;
      }
    }
    ipiv[j] = static_cast<int32_t>(p + 1);
    if (lu[p + j * n] != T(0)) {
      if (p != j) {
        for (int64_t c = 0; c < n; ++c) {
          const T t = lu[j + c * n];
          lu[j + c * n] = lu[p + c * n];
          lu[p + c * n] = t;
        }
      }
      const T inv = T(1) / lu[j + j * n];
      for (int64_t i = j + 1; i < n; ++i) lu[i + j * n] *= inv;
    } else if (info == 0) {
      info = j + 1;
    }
    for (int64_t c = j + 1; c < n; ++c) {
      const T u = lu[j + c * n];
      for (int64_t i = j + 1; i < n; ++i) lu[i + c * n] -= lu[i + j * n] * u;
    }
  }
  return info;
}

// The sign of det(M) and log |det(M)| from getf2's factors of M (MXNet's
// SignedLogDet: a zero pivot gives a signed zero and -inf).
template <typename T>
SYMX_HOST_DEVICE inline void LuSignLogDet(const T* lu, const int32_t* ipiv, int64_t n, T* sign,
                                          T* logabs) {
  int64_t changes = 0;
  T diag_sign(1), sum(0);
  for (int64_t j = 0; j < n; ++j) {
    changes += ipiv[j] != j + 1;
    const T d = lu[j * (n + 1)];
    diag_sign *= static_cast<T>((T(0) < d) - (d < T(0)));
    sum += log(fabs(d));
  }
  *sign = (changes % 2 == 1 ? T(-1) : T(1)) * diag_sign;
  *logabs = sum;
}

// M^-1 from getf2's factors of the column-major M, element (i, c) written
// to inv[i * row_stride + c * col_stride], times `scale`. For the factors of
// a row-major A's view A^T, strides (1, n) write A^-1 row-major, (n, 1) A^-T.
template <typename T>
SYMX_HOST_DEVICE inline void LuInverse(const T* lu, const int32_t* ipiv, int64_t n, T scale,
                                       int64_t row_stride, int64_t col_stride, T* inv) {
  for (int64_t c = 0; c < n; ++c) {
    T* x = inv + c * col_stride;
    const int64_t st = row_stride;
    for (int64_t i = 0; i < n; ++i) x[i * st] = T(i == c ? 1 : 0);
    for (int64_t j = 0; j < n; ++j) {
      const int64_t p = ipiv[j] - 1;
      const T t = x[j * st];
      x[j * st] = x[p * st];
      x[p * st] = t;
    }
    for (int64_t i = 0; i < n; ++i) {  // unit lower L
      for (int64_t q = 0; q < i; ++q) x[i * st] -= lu[i + q * n] * x[q * st];
    }
    for (int64_t i = n - 1; i >= 0; --i) {  // upper U
      for (int64_t q = i + 1; q < n; ++q) x[i * st] -= lu[i + q * n] * x[q * st];
      x[i * st] /= lu[i + i * n];
    }
    for (int64_t i = 0; i < n; ++i) x[i * st] *= scale;
  }
}

// Gradients, as MXNet 1.9.1's (src/operator/tensor/la_op-inl.h).

// B = potrf(A): dA = 0.5 B^-T sym(B^T dB) B^-1 (lower; sym copies the lower
// triangle up), 0.5 B^-1 sym(dB B^T) B^-T (upper; sym copies the upper down).
template <typename T>
SYMX_HOST_DEVICE inline void PotrfBackward(const T* db, const T* b, int64_t n, bool lower, T* da) {
  for (int64_t i = 0; i < n * n; ++i) da[i] = db[i];
  TriangMultiply(b, n, TriangSpec{true, !lower, lower}, T(1), da, n, n);
  MirrorTriangle(da, n, lower);
  TriangSolve(b, n, TriangSpec{lower, false, lower}, T(1), da, n, n);
  TriangSolve(b, n, TriangSpec{!lower, true, lower}, T(0.5), da, n, n);
}

// A = potri(B): dB = -tril(A (dA + dA^T) B^-T) (lower),
// -triu(B^-T (dA + dA^T) A) (upper).
template <typename T>
SYMX_HOST_DEVICE inline void PotriBackward(const T* da, const T* b, const T* a, int64_t n,
                                           bool lower, T* db) {
  if (lower) {
    MatMul(a, false, da, false, n, n, n, T(1), T(0), db);
    MatMul(a, false, da, true, n, n, n, T(1), T(1), db);
  } else {
    MatMul(da, false, a, false, n, n, n, T(1), T(0), db);
    MatMul(da, true, a, false, n, n, n, T(1), T(1), db);
  }
  TriangSolve(b, n, TriangSpec{true, lower, lower}, T(-1), db, n, n);
  ZeroTriangle(db, n, lower);
}

// The shapes of trmm's and trsm's B (and C, dB): rows x cols; A is n x n.
struct TriangDims {
  int64_t n = 0, rows = 0, cols = 0;
};

// dA = alpha op(dC, B) in A's triangle (the product MXNet's gemm forms),
// scaled by `alpha`; shared by trmm's and trsm's gradients.
template <typename T>
SYMX_HOST_DEVICE inline void TriangGradA(const T* g, const T* b, TriangDims d, TriangSpec s,
                                         T alpha, T* da) {
  // Left: op(A) is n x n times B n x cols; right: B rows x n times op(A).
  const int64_t k = s.rightside ? d.rows : d.cols;
  if (s.rightside == s.transpose) {
    MatMul(g, s.transpose, b, !s.transpose, d.n, d.n, k, alpha, T(0), da);
  } else {
    MatMul(b, !s.transpose, g, s.transpose, d.n, d.n, k, alpha, T(0), da);
  }
  ZeroTriangle(da, d.n, s.lower);
}

// C = trmm(A, B): dA = alpha op-product of dC and B in A's triangle,
// dB = trmm(A, dC) with op(A) transposed.
template <typename T>
SYMX_HOST_DEVICE inline void TrmmBackward(const T* dc, const T* a, const T* b, TriangDims d,
                                          TriangSpec s, T alpha, T* da, T* db) {
  TriangGradA(dc, b, d, s, alpha, da);
  for (int64_t i = 0; i < d.rows * d.cols; ++i) db[i] = dc[i];
  TriangMultiply(a, d.n, TriangSpec{!s.transpose, s.rightside, s.lower}, alpha, db, d.rows, d.cols);
}

// C = trsm(A, B): dB = trsm(A, dC) with op(A) transposed, dA = -1/alpha times
// the op-product of dB and C in A's triangle.
template <typename T>
SYMX_HOST_DEVICE inline void TrsmBackward(const T* dc, const T* a, const T* c, TriangDims d,
                                          TriangSpec s, T alpha, T* da, T* db) {
  for (int64_t i = 0; i < d.rows * d.cols; ++i) db[i] = dc[i];
  TriangSolve(a, d.n, TriangSpec{!s.transpose, s.rightside, s.lower}, alpha, db, d.rows, d.cols);
  // MXNet forms dB op C (or C op dB) from the solved dB.
  TriangGradA(db, c, d, s, T(-1) / alpha, da);
}

// A = inverse(B): dB = -A^T dA A^T; `tmp` is n x n scratch.
template <typename T>
SYMX_HOST_DEVICE inline void InverseBackward(const T* da, const T* a, int64_t n, T* tmp, T* db) {
  MatMul(da, false, a, true, n, n, n, T(1), T(0), tmp);
  MatMul(a, true, tmp, false, n, n, n, T(-1), T(0), db);
}

// The eigendecomposition of the symmetric n x n matrix whose lower triangle
// `u` holds (LAPACK syevd's 'L' of MXNet's row-major call): on return the
// rows of `u` are orthonormal eigenvectors, w their eigenvalues ascending
// (A = U^T diag(w) U), each row's sign such that its largest magnitude (the
// first of equals) is positive, as MXNet fixes them. Cyclic Jacobi rotations
// in double; `work` holds 2 n n doubles.
template <typename T>
SYMX_HOST_DEVICE inline void SymmetricEigen(T* u, int64_t n, T* w, double* work) {
  double* m = work;
  double* v = work + n * n;
  double norm = 0;
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      const double x = static_cast<double>(i >= j ? u[i * n + j] : u[j * n + i]);
      m[i * n + j] = x;
      v[i * n + j] = i == j ? 1.0 : 0.0;
      norm += x * x;
    }
  }
  for (int sweep = 0; sweep < 100; ++sweep) {
    double off = 0;
    for (int64_t p = 0; p < n; ++p) {
      for (int64_t q = p + 1; q < n; ++q) off += m[p * n + q] * m[p * n + q];
    }
    if (off <= 1e-32 * norm || off == 0) break;
    for (int64_t p = 0; p < n; ++p) {
      for (int64_t q = p + 1; q < n; ++q) {
        const double mpq = m[p * n + q];
        if (mpq == 0) continue;
        // The rotation J (c at (p, p), (q, q); s at (p, q), -s at (q, p))
        // with (J^T M J)_pq = 0, the smaller angle.
        const double theta = (m[q * n + q] - m[p * n + p]) / (2 * mpq);
        const double t = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1));
        const double c = 1 / sqrt(t * t + 1), s = t * c;
        for (int64_t k = 0; k < n; ++k) {
          const double kp = m[k * n + p], kq = m[k * n + q];
          m[k * n + p] = c * kp - s * kq;
          m[k * n + q] = s * kp + c * kq;
        }
        for (int64_t k = 0; k < n; ++k) {
          const double pk = m[p * n + k], qk = m[q * n + k];
          m[p * n + k] = c * pk - s * qk;
          m[q * n + k] = s * pk + c * qk;
        }
        m[p * n + q] = m[q * n + p] = 0;
        for (int64_t k = 0; k < n; ++k) {
          const double kp = v[k * n + p], kq = v[k * n + q];
          v[k * n + p] = c * kp - s * kq;
          v[k * n + q] = s * kp + c * kq;
        }
      }
    }
  }
  // Eigenvalues ascending (selection, stable for ties), eigenvectors as rows.
  for (int64_t i = 0; i < n; ++i) {
    int64_t best = i;
    for (int64_t j = i + 1; j < n; ++j) {
      if (m[j * n + j] < m[best * n + best]) best = j;
    }
    if (best != i) {
      const double d = m[i * n + i];
      m[i * n + i] = m[best * n + best];
      m[best * n + best] = d;
      for (int64_t k = 0; k < n; ++k) {
        const double x = v[k * n + i];
        v[k * n + i] = v[k * n + best];
        v[k * n + best] = x;
      }
    }
    w[i] = static_cast<T>(m[i * n + i]);
    int64_t big = 0;
    for (int64_t k = 1; k < n; ++k) {
      if (fabs(v[k * n + i]) > fabs(v[big * n + i])) big = k;
    }
    const double sign = v[big * n + i] < 0 ? -1.0 : 1.0;
    for (int64_t k = 0; k < n; ++k) u[i * n + k] = static_cast<T>(sign * v[k * n + i]);
  }
}

// The LQ factorization of the m x n matrix a (m <= n): a = L Q, L m x m
// lower triangular, Q m x n with orthonormal rows, as LAPACK's gelqf and
// orglq (Householder reflectors H(i) = I - tau v v^T, beta = -sign(alpha)
// |x|, so L's diagonal takes the signs LAPACK gives it). `work` holds
// m n + m values.
template <typename T>
SYMX_HOST_DEVICE inline void LqFactor(const T* a, int64_t m, int64_t n, T* q, T* l, T* work) {
  T* r = work;  // the reflectors' vectors (strictly right of the diagonal) and L
  T* tau = work + m * n;
  for (int64_t i = 0; i < m * n; ++i) r[i] = a[i];
  for (int64_t i = 0; i < m; ++i) {
    T* row = r + i * n;
    const T alpha = row[i];
    T xnorm(0);
    for (int64_t j = i + 1; j < n; ++j) xnorm += row[j] * row[j];
    xnorm = sqrt(xnorm);
    if (xnorm == T(0)) {
      tau[i] = T(0);
    } else {
      const T len = sqrt(alpha * alpha + xnorm * xnorm);
      const T beta = alpha >= T(0) ? -len : len;
      tau[i] = (beta - alpha) / beta;
      const T scale = T(1) / (alpha - beta);
      for (int64_t j = i + 1; j < n; ++j) row[j] *= scale;
      row[i] = beta;
    }
    for (int64_t k = i + 1; k < m; ++k) {  // the rows below, times H(i)
      T* other = r + k * n;
      T dot = other[i];
      for (int64_t j = i + 1; j < n; ++j) dot += other[j] * row[j];
      dot *= tau[i];
      other[i] -= dot;
      for (int64_t j = i + 1; j < n; ++j) other[j] -= dot * row[j];
    }
  }
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < m; ++j) l[i * m + j] = j <= i ? r[i * n + j] : T(0);
  }
  // Q = [I 0] H(m-1) ... H(0).
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) q[i * n + j] = T(i == j ? 1 : 0);
  }
  for (int64_t i = m - 1; i >= 0; --i) {
    const T* v = r + i * n;
    for (int64_t k = 0; k < m; ++k) {
      T* row = q + k * n;
      T dot = row[i];
      for (int64_t j = i + 1; j < n; ++j) dot += row[j] * v[j];
      dot *= tau[i];
      row[i] -= dot;
      for (int64_t j = i + 1; j < n; ++j) row[j] -= dot * v[j];
    }
  }
}

// (Q, L) = gelqf(A): dA = L^-T (dQ + sym(M) Q), M = L^T dL - dQ Q^T, sym
// copying the lower triangle up; `tmp` is m x m scratch.
template <typename T>
SYMX_HOST_DEVICE inline void LqBackward(const T* dq, const T* dl, const T* q, const T* l, int64_t m,
                                        int64_t n, T* tmp, T* da) {
  for (int64_t i = 0; i < m * n; ++i) da[i] = dq[i];
  for (int64_t i = 0; i < m * m; ++i) tmp[i] = dl[i];
  TriangMultiply(l, m, TriangSpec{true, false, true}, T(1), tmp, m, m);
  MatMul(dq, false, q, true, m, m, n, T(-1), T(1), tmp);
  MirrorTriangle(tmp, m, true);
  MatMul(tmp, false, q, false, m, n, m, T(1), T(1), da);
  TriangSolve(l, m, TriangSpec{true, false, true}, T(1), da, m, n);
}

// (U, L) = syevd(A): dA = U^T Y U, Y_ii = dL_i and, off the diagonal,
// Y_ij = Y_ji = (X_ij - X_ji) / (2 max(L_i - L_j, eps)) for i > j, X = dU U^T
// (MXNet's; eps 1e-30 in float32, 1e-100 in float64). `tmp` is n x n scratch.
template <typename T>
SYMX_HOST_DEVICE inline void EigenBackward(const T* du, const T* dw, const T* u, const T* w,
                                           int64_t n, T* tmp, T* da) {
  const T eps = sizeof(T) == 4 ? T(1e-30) : T(1e-100);
  MatMul(du, false, u, true, n, n, n, T(1), T(0), tmp);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < i; ++j) {
      T denom = w[i] - w[j];
      if (denom < eps) denom = eps;
      denom *= T(2);
      const T e = (tmp[i * n + j] - tmp[j * n + i]) / denom;
      da[i * n + j] = e;
      da[j * n + i] = e;
    }
    da[i * n + i] = dw[i];
  }
  MatMul(u, true, da, false, n, n, n, T(1), T(0), tmp);
  MatMul(tmp, false, u, false, n, n, n, T(1), T(0), da);
}

}  // namespace linalg
}  // namespace symx

#endif  // SYMX_DEVICES_GEOMETRY_LINALG_MATRIX_H_
