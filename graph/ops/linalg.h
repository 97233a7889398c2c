// The linalg family's parameters and the batch layouts its schema and both
// devices' kernels share (graph/ops/linalg.cc, devices/*/linalg_kernels.cc).
#ifndef SYMX_GRAPH_OPS_LINALG_H_
#define SYMX_GRAPH_OPS_LINALG_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "graph/param.h"
#include "graph/shape.h"

namespace symx {

// gemm2's (beta unused) and gemm's. `axis` names the row axis of every operand
// (MXNet's default -2); the columns are the last axis, and every other axis is a
// batch axis that the operands share.
struct LinalgGemmParam : OpParam {
  bool transpose_a = false;
  bool transpose_b = false;
  double alpha = 1.0;
  double beta = 1.0;
  int64_t axis = -2;
};

// syrk's: alpha A A^T, or alpha A^T A with `transpose`.
struct LinalgSyrkParam : OpParam {
  bool transpose = false;
  double alpha = 1.0;
};

// syrk as the product it is (A both operands, on the last two axes).
inline LinalgGemmParam SyrkAsGemm(const LinalgSyrkParam& p) {
  LinalgGemmParam q;
  q.transpose_a = p.transpose;
  q.transpose_b = !p.transpose;
  q.alpha = p.alpha;
  q.beta = 0.0;
  q.axis = -2;
  return q;
}

// extractdiag's and makediag's: the diagonal `offset` above (> 0) or below
// (< 0) the main one.
struct LinalgDiagParam : OpParam {
  int64_t offset = 0;
};

// Where a diagonal lies in a batch of n x n matrices: `count` matrices, the
// diagonal's `length` elements at `start` + j (n + 1) within each.
struct DiagLayout {
  int64_t count = 0, n = 0, length = 0, start = 0;
};
// From the matrices' shape (extractdiag's input, makediag's output).
DiagLayout GetDiagLayout(const Shape& matrices, int64_t offset);

// extracttrian's and maketrian's: the triangle from diagonal `offset` on,
// the lower one for offset < 0, the upper one for offset > 0, `lower` deciding
// for offset 0.
struct LinalgTrianParam : OpParam {
  int64_t offset = 0;
  bool lower = true;
};

// Where a packed triangle lies in a batch of n x n matrices: `count`
// matrices, a triangle of side `side` (side (side + 1) / 2 packed values per
// matrix). Packed row r (r + 1 values, from r (r + 1) / 2 on) is, in the
// matrix, r + 1 elements from `RowStart(r)` on, `step` apart: along matrix
// row r + |offset| for a lower triangle (step 1), down matrix column
// r + |offset| for an upper one (step n), as MXNet packs them.
struct TrianLayout {
  int64_t count = 0, n = 0, side = 0, step = 1;
  bool lower = true;
  int64_t shift = 0;  // |offset|
  int64_t RowStart(int64_t r) const { return lower ? (r + shift) * n : r + shift; }
  int64_t Packed() const { return side * (side + 1) / 2; }
};
TrianLayout GetTrianLayout(const Shape& matrices, const LinalgTrianParam& p);

// How a batched product walks its operands: `outer` blocks before the row
// axis, `mid` positions between the row axis and the last one. Matrix (o, j)
// of an operand whose stored rows and columns are R x C starts at
// o * R * mid * C + j * C, its rows mid * C elements apart.
struct GemmLayout {
  int64_t outer = 1;
  int64_t mid = 1;
  int64_t m = 0, n = 0, k = 0;  // op(A) is m x k, op(B) k x n, the output m x n
};

// The layout of A (shape `a`) times B (shape `b`) under `p`; shape errors name
// the shapes (also checked by shape inference, so a kernel error means a bug
// upstream).
absl::Status GetGemmLayout(const LinalgGemmParam& p, const Shape& a, const Shape& b,
                           GemmLayout* out);

// The kernels' operand check of both devices: GetGemmLayout, then C (if
// given, gemm's) and the output against the products' size.
absl::Status GetGemmOperands(const LinalgGemmParam& p, const Shape& a, const Shape& b,
                             const Shape* c, const Shape& out, GemmLayout* layout);

// potrf's and potri's: the factor is lower triangular (A = L L^T), or upper
// (A = U^T U). MXNet 1.9.1 parses `lower` though its registry lists no
// parameter for either op.
struct LinalgCholeskyParam : OpParam {
  bool lower = true;
};

// trmm's and trsm's: alpha op(A) B, or alpha B op(A) with `rightside` (trsm:
// op(A)^-1 in place of op(A)); A triangular, `lower` or upper, op(A) = A^T
// with `transpose`.
struct LinalgTriangParam : OpParam {
  bool transpose = false;
  bool rightside = false;
  bool lower = true;
  double alpha = 1.0;
};

// A batch of `count` square n x n matrices: the last two axes of `a`, which
// must be equal (errors name `what` and the shape).
absl::Status GetSquareBatch(const Shape& a, const char* what, int64_t* count, int64_t* n);

// trmm's and trsm's operands: `count` pairs of A (n x n) and B (rows x cols),
// the output B's shape; errors name the shapes.
struct TriangLayout {
  int64_t count = 0, n = 0, rows = 0, cols = 0;
};
absl::Status GetTriangLayout(const LinalgTriangParam& p, const Shape& a, const Shape& b,
                             TriangLayout* out);

// Why a factorization failed, for both devices' errors.
enum class FactorFailure {
  kNotPositiveDefinite,  // potrf: a leading minor is not positive
  kSingularFactor,       // potri: a zero on the factor's diagonal
  kSingular,             // inverse: a zero pivot in the LU factorization
};
// The error for matrix `index` (counted over the batch axes) of input A of
// shape `a`, `info` being LAPACK's (1-based) position.
absl::Status FactorError(FactorFailure kind, const Shape& a, int64_t index, int64_t info);

}  // namespace symx

#endif  // SYMX_GRAPH_OPS_LINALG_H_
