// MXNet 1.9.1's linear algebra on batches of matrices (the last two axes):
// _linalg_extractdiag and _linalg_makediag (diagonal `offset`),
// _linalg_extracttrian and _linalg_maketrian (the triangle from diagonal
// `offset` on, packed as MXNet: the lower one by rows, the upper one by
// columns; `lower` picks for offset 0), each the other's gradient, and the products _linalg_gemm2,
// alpha op(A) op(B), and _linalg_gemm, alpha op(A) op(B) + beta C; every op also under its linalg_
// alias.
//
// The products:
// Every operand has the same ndim (at least 2). The row axis is `axis` (default
// -2, at most the second last), the column axis the last one; the other axes
// are batch axes, equal across the operands. MXNet computes in float32 or
// float64 only. The gradients are products again (no backward op):
//   dA = alpha G op(B)^T (transposed back when transpose_a),
//   dB = alpha op(A)^T G (transposed back when transpose_b), dC = beta G,
// exactly MXNet's _backward_linalg_gemm(2).
//
// The factorizations and triangular products, each through one backward op
// computing MXNet's gradient per matrix (devices/geometry/linalg_matrix.h):
// _linalg_potrf (Cholesky, `lower` or upper factor; MXNet parses `lower`
// though its registry lists none), _linalg_potri (the inverse from that
// factor), _linalg_trmm and _linalg_trsm (alpha op(A) B or its solve,
// `rightside`, `transpose`, `lower`), _linalg_inverse, _linalg_det and
// _linalg_slogdet (with MXNet's hidden LU and pivot outputs, which their
// gradients read), _linalg_gelqf (Q, L) and _linalg_syevd (U, L: eigenvector
// rows signed as MXNet, eigenvalues ascending).
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "graph/infer_util.h"
#include "graph/op.h"
#include "graph/ops/op_helpers.h"
#include "graph/param.h"
#include "graph/shape.h"
#include "graph/ops/linalg.h"

namespace symx {

absl::Status GetGemmOperands(const LinalgGemmParam& p, const Shape& a, const Shape& b,
                             const Shape* c, const Shape& out, GemmLayout* l) {
  SYMX_RETURN_IF_ERROR(GetGemmLayout(p, a, b, l));
  if (c != nullptr && c->Size() != out.Size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("input C ", c->ToString(), " is not the output's shape ", out.ToString()));
  }
  if (out.Size() != l->outer * l->mid * l->m * l->n) {
    return absl::InvalidArgumentError(absl::StrCat("output ", out.ToString(), " is not the ", l->m,
                                                   " x ", l->n, " products' shape"));
  }
  return absl::OkStatus();
}

absl::Status GetGemmLayout(const LinalgGemmParam& p, const Shape& a, const Shape& b,
                           GemmLayout* out) {
  const int ndim = a.ndim();
  if (ndim < 2) return ShapeError("input A", a, "at least 2 dims (rows, columns)");
  if (b.ndim() != ndim) {
    return ShapeError("input B", b, absl::StrCat(ndim, " dims, as input A ", a.ToString()));
  }
  const int64_t axis = p.axis < 0 ? p.axis + ndim : p.axis;
  if (axis < 0 || axis >= ndim - 1) {
    return absl::InvalidArgumentError(absl::StrCat("axis ", p.axis, " is not a row axis of ", ndim,
                                                   "-dim inputs: expected ", -ndim, " to ",
                                                   ndim - 2, " (the last axis holds the columns)"));
  }
  GemmLayout l;
  for (int i = 0; i < ndim - 1; ++i) {
    if (i == axis) continue;
    if (a[i] != b[i]) {
      return absl::InvalidArgumentError(
          absl::StrCat("inputs A ", a.ToString(), " and B ", b.ToString(), " differ in batch axis ",
                       i, " (only the row axis ", axis, " and the last axis may differ)"));
    }
    (i < axis ? l.outer : l.mid) *= a[i];
  }
  const int64_t a_rows = a[axis], a_cols = a[ndim - 1];
  const int64_t b_rows = b[axis], b_cols = b[ndim - 1];
  l.m = p.transpose_a ? a_cols : a_rows;
  l.k = p.transpose_a ? a_rows : a_cols;
  const int64_t bk = p.transpose_b ? b_cols : b_rows;
  l.n = p.transpose_b ? b_rows : b_cols;
  if (l.k != bk) {
    return absl::InvalidArgumentError(absl::StrCat(
        "inputs A ", a.ToString(), " and B ", b.ToString(), " cannot be multiplied: op(A) has ",
        l.k, " columns, op(B) ", bk, " rows (transpose_a=", p.transpose_a ? "True" : "False",
        ", transpose_b=", p.transpose_b ? "True" : "False", ", row axis ", axis, ")"));
  }
  *out = l;
  return absl::OkStatus();
}

absl::Status GetSquareBatch(const Shape& a, const char* what, int64_t* count, int64_t* n) {
  const int ndim = a.ndim();
  if (ndim < 2) return ShapeError(what, a, "a tensor of square matrices (at least 2 dims)");
  if (a[ndim - 1] != a[ndim - 2]) {
    return ShapeError(what, a, "a tensor of square matrices (the last two dims equal)");
  }
  *n = a[ndim - 1];
  *count = 1;
  for (int i = 0; i < ndim - 2; ++i) *count *= a[i];
  return absl::OkStatus();
}

absl::Status GetTriangLayout(const LinalgTriangParam& p, const Shape& a, const Shape& b,
                             TriangLayout* out) {
  TriangLayout l;
  SYMX_RETURN_IF_ERROR(GetSquareBatch(a, "input A", &l.count, &l.n));
  const int ndim = a.ndim();
  if (b.ndim() != ndim) {
    return ShapeError("input B", b, absl::StrCat(ndim, " dims, as input A ", a.ToString()));
  }
  for (int i = 0; i < ndim - 2; ++i) {
    if (a[i] != b[i]) {
      return absl::InvalidArgumentError(absl::StrCat("inputs A ", a.ToString(), " and B ",
                                                     b.ToString(), " differ in batch axis ", i));
    }
  }
  l.rows = b[ndim - 2];
  l.cols = b[ndim - 1];
  const int64_t shared = p.rightside ? l.cols : l.rows;
  if (shared != l.n) {
    return absl::InvalidArgumentError(absl::StrCat(
        "inputs A ", a.ToString(), " and B ", b.ToString(), " cannot be multiplied: A is ", l.n,
        " x ", l.n, ", B has ", shared, p.rightside ? " columns" : " rows",
        " (rightside=", p.rightside ? "True" : "False", ")"));
  }
  *out = l;
  return absl::OkStatus();
}

absl::Status FactorError(FactorFailure kind, const Shape& a, int64_t index, int64_t info) {
  const std::string which = absl::StrCat("matrix ", index, " of input A ", a.ToString());
  switch (kind) {
    case FactorFailure::kNotPositiveDefinite:
      return absl::InvalidArgumentError(
          absl::StrCat(which, " is not symmetric positive definite: its leading minor of order ",
                       info, " is not positive, so it has no Cholesky factor"));
    case FactorFailure::kSingularFactor:
      return absl::InvalidArgumentError(absl::StrCat(
          which, " is a singular triangular factor: its diagonal element ", info - 1, " is zero"));
    case FactorFailure::kSingular:
      break;
  }
  return absl::InvalidArgumentError(absl::StrCat(which, " is singular (not invertible): pivot ",
                                                 info - 1, " of its LU factorization is zero"));
}

DiagLayout GetDiagLayout(const Shape& matrices, int64_t offset) {
  DiagLayout l;
  const int ndim = matrices.ndim();
  l.n = matrices[ndim - 1];
  l.count = l.n == 0 ? 0 : matrices.Size() / (l.n * l.n);
  const int64_t o = offset < 0 ? -offset : offset;
  l.length = l.n - o;
  l.start = offset >= 0 ? offset : o * l.n;
  return l;
}

TrianLayout GetTrianLayout(const Shape& matrices, const LinalgTrianParam& p) {
  TrianLayout l;
  const int ndim = matrices.ndim();
  l.n = matrices[ndim - 1];
  l.count = l.n == 0 ? 0 : matrices.Size() / (l.n * l.n);
  l.shift = p.offset < 0 ? -p.offset : p.offset;
  l.side = l.n - l.shift;
  l.lower = p.offset < 0 || (p.offset == 0 && p.lower);
  l.step = l.lower ? 1 : l.n;
  return l;
}

namespace {

absl::StatusOr<OpParamPtr> ParseTrian(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<LinalgTrianParam>();
  p->offset = r.Int("offset", 0);
  p->lower = r.Bool("lower", true);
  return r.Finish(std::move(p));
}

// The square matrices' check shared by extractdiag and extracttrian: their
// side less |offset|, which must be positive.
absl::StatusOr<int64_t> ExtractSide(const Shape& a, int64_t offset) {
  const int ndim = a.ndim();
  if (ndim < 2) return ShapeError("input A", a, "a tensor of square matrices (at least 2 dims)");
  if (a[ndim - 1] != a[ndim - 2]) {
    return ShapeError("input A", a, "a tensor of square matrices (the last two dims equal)");
  }
  const int64_t o = offset < 0 ? -offset : offset;
  if (a[ndim - 1] - o <= 0) {
    return absl::InvalidArgumentError(absl::StrCat("offset ", offset, " leaves no diagonal in the ",
                                                   a[ndim - 1], " x ", a[ndim - 1],
                                                   " matrices of input A ", a.ToString()));
  }
  return a[ndim - 1] - o;
}

// (..., n, n) -> (..., m (m + 1) / 2), m = n - |offset|; forward only as MXNet.
absl::Status ExtractTrianShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                               std::vector<Shape>* out) {
  const Shape& a = (*in)[0];
  if (!a.ndim_known()) return absl::OkStatus();
  if (a.ndim() >= 2 && (!a.dim_known(a.ndim() - 1) || !a.dim_known(a.ndim() - 2))) {
    return absl::OkStatus();
  }
  SYMX_ASSIGN_OR_RETURN(int64_t m, ExtractSide(a, Param<LinalgTrianParam>(attrs).offset));
  std::vector<int64_t> dims;
  for (int i = 0; i < a.ndim() - 2; ++i) dims.push_back(a[i]);
  dims.push_back(m * (m + 1) / 2);
  return AssignShape(out, 0, Shape(dims), "output");
}

// (..., m (m + 1) / 2) -> (..., m + |offset|, m + |offset|); forward only.
absl::Status MakeTrianShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                            std::vector<Shape>* out) {
  const int64_t offset = Param<LinalgTrianParam>(attrs).offset;
  const Shape& a = (*in)[0];
  if (!a.ndim_known()) return absl::OkStatus();
  const int ndim = a.ndim();
  if (ndim < 1) return ShapeError("input A", a, "at least 1 dim (the packed triangles)");
  if (!a.dim_known(ndim - 1)) return absl::OkStatus();
  const int64_t packed = a[ndim - 1];
  int64_t m = 0;
  while ((m + 1) * (m + 2) / 2 <= packed) ++m;
  if (m * (m + 1) / 2 != packed) {
    return ShapeError("input A", a,
                      "a last axis of m (m + 1) / 2 values (a packed triangle of side m)");
  }
  const int64_t n = m + (offset < 0 ? -offset : offset);
  std::vector<int64_t> dims;
  for (int i = 0; i < ndim - 1; ++i) dims.push_back(a[i]);
  dims.push_back(n);
  dims.push_back(n);
  return AssignShape(out, 0, Shape(dims), "output");
}

absl::StatusOr<OpParamPtr> ParseNone(const AttrMap& attrs) {
  ParamReader r(attrs);
  return r.Finish(std::make_shared<OpParam>());
}

// (..., n, n) -> (...), (1,) for one matrix; forward only as MXNet.
absl::Status SumLogDiagShape(const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape& a = (*in)[0];
  if (!a.ndim_known()) return absl::OkStatus();
  const int ndim = a.ndim();
  if (ndim < 2) return ShapeError("input A", a, "a tensor of square matrices (at least 2 dims)");
  if (a.dim_known(ndim - 1) && a.dim_known(ndim - 2) && a[ndim - 1] != a[ndim - 2]) {
    return ShapeError("input A", a, "a tensor of square matrices (the last two dims equal)");
  }
  std::vector<int64_t> dims(a.dims().begin(), a.dims().end() - 2);
  if (dims.empty()) dims.push_back(1);
  return AssignShape(out, 0, Shape(dims), "output");
}

// MXNet's _backward_linalg_sumlogdiag(ograd, A): ograd / A_ii on the
// diagonal, zero elsewhere.
std::vector<NodeEntry> SumLogDiagGradient(const NodePtr& n, const std::vector<NodeEntry>& og) {
  if (!og[0].node) return ZeroGradient(n, og);
  return MakeBackwardNode("_backward_linalg_sumlogdiag", n, {og[0], n->inputs[0]});
}

SYMX_REGISTER_OP("_linalg_sumlogdiag")
    .SetPrecisionClass(PrecisionClass::kFloat32)
    .Describe("The sum of the logarithms of each square matrix's diagonal.")
    .AddAlias("linalg_sumlogdiag")
    .SetParse(ParseNone)
    .SetInputNames({"A"})
    .SetInferShape(SumLogDiagShape)
    .SetGradient(SumLogDiagGradient);

[[maybe_unused]] const bool kBackwardOpsRegistered = [] {
  RegisterBackwardOp("_backward_linalg_sumlogdiag", ParseNone, {"ograd", "A"},
                     [](const NodeAttrs&) { return 1; });
  return true;
}();

absl::StatusOr<OpParamPtr> ParseDiag(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<LinalgDiagParam>();
  p->offset = r.Int("offset", 0);
  return r.Finish(std::move(p));
}

// (..., n, n) -> (..., n - |offset|), forward only as MXNet.
absl::Status ExtractDiagShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                              std::vector<Shape>* out) {
  const int64_t offset = Param<LinalgDiagParam>(attrs).offset;
  const Shape& a = (*in)[0];
  if (!a.ndim_known()) return absl::OkStatus();
  if (a.ndim() >= 2 && (!a.dim_known(a.ndim() - 1) || !a.dim_known(a.ndim() - 2))) {
    return absl::OkStatus();
  }
  SYMX_ASSIGN_OR_RETURN(int64_t m, ExtractSide(a, offset));
  std::vector<int64_t> dims;
  for (int i = 0; i < a.ndim() - 2; ++i) dims.push_back(a[i]);
  dims.push_back(m);
  return AssignShape(out, 0, Shape(dims), "output");
}

// (..., n) -> (..., n + |offset|, n + |offset|), forward only as MXNet.
absl::Status MakeDiagShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                           std::vector<Shape>* out) {
  const int64_t offset = Param<LinalgDiagParam>(attrs).offset;
  const Shape& a = (*in)[0];
  if (!a.ndim_known()) return absl::OkStatus();
  const int ndim = a.ndim();
  if (ndim < 1) return ShapeError("input A", a, "at least 1 dim (the diagonals)");
  if (!a.dim_known(ndim - 1)) return absl::OkStatus();
  const int64_t n = a[ndim - 1] + (offset < 0 ? -offset : offset);
  std::vector<int64_t> dims;
  for (int i = 0; i < ndim - 1; ++i) dims.push_back(a[i]);
  dims.push_back(n);
  dims.push_back(n);
  return AssignShape(out, 0, Shape(dims), "output");
}

// Each is the other's gradient (same offset).
template <const char* kOther>
std::vector<NodeEntry> DiagGradient(const NodePtr& n, const std::vector<NodeEntry>& og) {
  if (!og[0].node) return ZeroGradient(n, og);
  return {MakeInternalEntry(kOther, absl::StrCat(n->name(), "_backward"), {og[0]}, n->attrs.dict)};
}

constexpr char kExtractDiag[] = "_linalg_extractdiag";
constexpr char kMakeDiag[] = "_linalg_makediag";
constexpr char kExtractTrian[] = "_linalg_extracttrian";
constexpr char kMakeTrian[] = "_linalg_maketrian";

SYMX_REGISTER_OP("_linalg_extractdiag")
    .SetPrecisionClass(PrecisionClass::kFloat32)
    .Describe("The diagonal `offset` of each square matrix.")
    .AddAlias("linalg_extractdiag")
    .SetParse(ParseDiag)
    .SetInputNames({"A"})
    .SetInferShape(ExtractDiagShape)
    .SetGradient(DiagGradient<kMakeDiag>);

SYMX_REGISTER_OP("_linalg_makediag")
    .SetPrecisionClass(PrecisionClass::kFloat32)
    .Describe("Square matrices, zero but for the diagonal `offset` holding the input.")
    .AddAlias("linalg_makediag")
    .SetParse(ParseDiag)
    .SetInputNames({"A"})
    .SetInferShape(MakeDiagShape)
    .SetGradient(DiagGradient<kExtractDiag>);

SYMX_REGISTER_OP("_linalg_extracttrian")
    .SetPrecisionClass(PrecisionClass::kFloat32)
    .Describe("The triangle from diagonal `offset` on of each square matrix, packed by rows.")
    .AddAlias("linalg_extracttrian")
    .SetParse(ParseTrian)
    .SetInputNames({"A"})
    .SetInferShape(ExtractTrianShape)
    .SetGradient(DiagGradient<kMakeTrian>);

SYMX_REGISTER_OP("_linalg_maketrian")
    .SetPrecisionClass(PrecisionClass::kFloat32)
    .Describe("Square matrices, zero but for the packed triangle from diagonal `offset` on.")
    .AddAlias("linalg_maketrian")
    .SetParse(ParseTrian)
    .SetInputNames({"A"})
    .SetInferShape(MakeTrianShape)
    .SetGradient(DiagGradient<kExtractTrian>);

absl::StatusOr<OpParamPtr> ParseGemm(const AttrMap& attrs, bool with_beta) {
  ParamReader r(attrs);
  auto p = std::make_shared<LinalgGemmParam>();
  p->transpose_a = r.Bool("transpose_a", false);
  p->transpose_b = r.Bool("transpose_b", false);
  p->alpha = r.Float("alpha", 1.0);
  if (with_beta) p->beta = r.Float("beta", 1.0);
  p->axis = r.Int("axis", -2);
  return r.Finish(std::move(p));
}

absl::StatusOr<OpParamPtr> ParseGemm2(const AttrMap& attrs) { return ParseGemm(attrs, false); }
absl::StatusOr<OpParamPtr> ParseGemm3(const AttrMap& attrs) { return ParseGemm(attrs, true); }

// The output shape from A and B (and C's, which is the output's, both ways).
absl::Status GemmShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const LinalgGemmParam& p = Param<LinalgGemmParam>(attrs);
  const Shape& a = (*in)[0];
  const Shape& b = (*in)[1];
  if (a.ndim_known() && b.ndim_known() && a.fully_known() && b.fully_known()) {
    GemmLayout l;
    SYMX_RETURN_IF_ERROR(GetGemmLayout(p, a, b, &l));
    const int ndim = a.ndim();
    const int axis = static_cast<int>(p.axis < 0 ? p.axis + ndim : p.axis);
    Shape o = a;
    o[axis] = l.m;
    o[ndim - 1] = l.n;
    SYMX_RETURN_IF_ERROR(AssignShape(out, 0, o, "output"));
  } else if (a.ndim_known() && a.ndim() < 2) {
    return ShapeError("input A", a, "at least 2 dims (rows, columns)");
  }
  if (in->size() > 2) {
    SYMX_RETURN_IF_ERROR(AssignShape(in, 2, (*out)[0], "input C"));
    return AssignShape(out, 0, (*in)[2], "output");
  }
  return absl::OkStatus();
}

std::string Flag(bool b) { return b ? "True" : "False"; }
std::string Num(double v) { return absl::StrFormat("%.17g", v); }

// op_name(x, y) with gemm2's parameters.
NodeEntry Product(const NodePtr& n, const std::string& suffix, const NodeEntry& x,
                  const NodeEntry& y, bool ta, bool tb) {
  const LinalgGemmParam& p = Param<LinalgGemmParam>(n->attrs);
  AttrMap attrs = {{"transpose_a", Flag(ta)},
                   {"transpose_b", Flag(tb)},
                   {"alpha", Num(p.alpha)},
                   {"axis", absl::StrCat(p.axis)}};
  return MakeInternalEntry("_linalg_gemm2", absl::StrCat(n->name(), "_backward_", suffix), {x, y},
                           std::move(attrs));
}

std::vector<NodeEntry> GemmGradient(const NodePtr& n, const std::vector<NodeEntry>& og) {
  if (!og[0].node) return ZeroGradient(n, og);
  const LinalgGemmParam& p = Param<LinalgGemmParam>(n->attrs);
  const NodeEntry& g = og[0];
  const NodeEntry& a = n->inputs[0];
  const NodeEntry& b = n->inputs[1];
  const bool ta = p.transpose_a, tb = p.transpose_b;
  std::vector<NodeEntry> grads;
  grads.push_back(ta ? Product(n, "A", b, g, tb, true) : Product(n, "A", g, b, false, !tb));
  grads.push_back(tb ? Product(n, "B", g, a, true, ta) : Product(n, "B", a, g, !ta, false));
  if (n->inputs.size() > 2) {
    grads.push_back(MakeInternalEntry("_mul_scalar", absl::StrCat(n->name(), "_backward_C"), {g},
                                      {{"scalar", Num(p.beta)}}));
  }
  return grads;
}

absl::StatusOr<OpParamPtr> ParseSyrk(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<LinalgSyrkParam>();
  p->transpose = r.Bool("transpose", false);
  p->alpha = r.Float("alpha", 1.0);
  return r.Finish(std::move(p));
}

// (..., r, c) -> (..., r, r), or (..., c, c) with transpose; forward only.
absl::Status SyrkShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape& a = (*in)[0];
  if (!a.ndim_known()) return absl::OkStatus();
  const int ndim = a.ndim();
  if (ndim < 2) return ShapeError("input A", a, "at least 2 dims (rows, columns)");
  Shape o = a;
  const int64_t m = a[Param<LinalgSyrkParam>(attrs).transpose ? ndim - 1 : ndim - 2];
  o[ndim - 2] = m;
  o[ndim - 1] = m;
  return AssignShape(out, 0, o, "output");
}

// dA = alpha (G + G^T) A, or alpha A (G + G^T) with transpose: the product
// with G plus the product with G^T, as one gemm on a gemm2.
std::vector<NodeEntry> SyrkGradient(const NodePtr& n, const std::vector<NodeEntry>& og) {
  if (!og[0].node) return ZeroGradient(n, og);
  const LinalgSyrkParam& p = Param<LinalgSyrkParam>(n->attrs);
  const NodeEntry& g = og[0];
  const NodeEntry& a = n->inputs[0];
  const NodeEntry& x = p.transpose ? a : g;
  const NodeEntry& y = p.transpose ? g : a;
  NodeEntry part =
      MakeInternalEntry("_linalg_gemm2", absl::StrCat(n->name(), "_backward_part"), {x, y},
                        {{"transpose_a", Flag(!p.transpose)},
                         {"transpose_b", Flag(p.transpose)},
                         {"alpha", Num(p.alpha)}});
  return {MakeInternalEntry("_linalg_gemm", absl::StrCat(n->name(), "_backward"), {x, y, part},
                            {{"alpha", Num(p.alpha)}, {"beta", "1"}})};
}

SYMX_REGISTER_OP("_linalg_syrk")
    .SetPrecisionClass(PrecisionClass::kFloat32)
    .Describe("Batched alpha A A^T, or alpha A^T A with transpose.")
    .AddAlias("linalg_syrk")
    .SetParse(ParseSyrk)
    .SetInputNames({"A"})
    .SetInferShape(SyrkShape)
    .SetGradient(SyrkGradient);

SYMX_REGISTER_OP("_linalg_gemm2")
    .SetPrecisionClass(PrecisionClass::kFloat32)
    .Describe("Batched matrix product alpha op(A) op(B).")
    .AddAlias("linalg_gemm2")
    .SetParse(ParseGemm2)
    .SetInputNames({"A", "B"})
    .SetInferShape(GemmShape)
    .SetGradient(GemmGradient);

SYMX_REGISTER_OP("_linalg_gemm")
    .SetPrecisionClass(PrecisionClass::kFloat32)
    .Describe("Batched matrix product and add, alpha op(A) op(B) + beta C.")
    .AddAlias("linalg_gemm")
    .SetParse(ParseGemm3)
    .SetInputNames({"A", "B", "C"})
    .SetInferShape(GemmShape)
    .SetGradient(GemmGradient);

// ---------------------------------------------------------------------------
// The factorizations and triangular products: potrf, potri, trmm, trsm,
// inverse, det, slogdet. Each op's gradient is one backward op computing
// MXNet's formula per matrix (devices/geometry/linalg_matrix.h).

absl::StatusOr<OpParamPtr> ParseCholesky(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<LinalgCholeskyParam>();
  p->lower = r.Bool("lower", true);
  return r.Finish(std::move(p));
}

absl::StatusOr<OpParamPtr> ParseTriang(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<LinalgTriangParam>();
  p->transpose = r.Bool("transpose", false);
  p->rightside = r.Bool("rightside", false);
  p->lower = r.Bool("lower", true);
  p->alpha = r.Float("alpha", 1.0);
  return r.Finish(std::move(p));
}

// Whether the last two dims of `s` are known.
bool MatrixDimsKnown(const Shape& s) {
  return s.ndim_known() && s.ndim() >= 2 && s.dim_known(s.ndim() - 1) && s.dim_known(s.ndim() - 2);
}

// potrf, potri, inverse: square matrices in, the same shape out (both ways).
absl::Status SquareShape(const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out) {
  SYMX_RETURN_IF_ERROR(AssignShape(out, 0, (*in)[0], "output"));
  SYMX_RETURN_IF_ERROR(AssignShape(in, 0, (*out)[0], "input A"));
  const Shape& a = (*in)[0];
  if (a.ndim_known() && a.ndim() < 2) {
    return ShapeError("input A", a, "a tensor of square matrices (at least 2 dims)");
  }
  if (MatrixDimsKnown(a) && a[a.ndim() - 1] != a[a.ndim() - 2]) {
    return ShapeError("input A", a, "a tensor of square matrices (the last two dims equal)");
  }
  return absl::OkStatus();
}

// trmm, trsm: the output is B's shape (both ways), A square with B's batch.
absl::Status TriangShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  SYMX_RETURN_IF_ERROR(AssignShape(out, 0, (*in)[1], "output"));
  SYMX_RETURN_IF_ERROR(AssignShape(in, 1, (*out)[0], "input B"));
  const Shape& a = (*in)[0];
  const Shape& b = (*in)[1];
  if (a.ndim_known() && a.ndim() < 2) {
    return ShapeError("input A", a, "a tensor of triangular matrices (at least 2 dims)");
  }
  if (a.fully_known() && b.fully_known()) {
    TriangLayout l;
    return GetTriangLayout(Param<LinalgTriangParam>(attrs), a, b, &l);
  }
  return absl::OkStatus();
}

// det's and slogdet's outputs: `values` outputs of A's batch shape ((1,) for
// one matrix, as MXNet), then the hidden LU factors (A's shape) and pivots
// (A's shape less the last axis).
absl::Status DetShape(int values, const std::vector<Shape>& in, std::vector<Shape>* out) {
  const Shape& a = in[0];
  if (!a.ndim_known()) return absl::OkStatus();
  const int ndim = a.ndim();
  if (ndim < 2) return ShapeError("input A", a, "a tensor of square matrices (at least 2 dims)");
  if (MatrixDimsKnown(a) && a[ndim - 1] != a[ndim - 2]) {
    return ShapeError("input A", a, "a tensor of square matrices (the last two dims equal)");
  }
  std::vector<int64_t> dims(a.dims().begin(), a.dims().end() - 2);
  if (dims.empty()) dims.push_back(1);
  for (int i = 0; i < values; ++i) {
    SYMX_RETURN_IF_ERROR(AssignShape(out, i, Shape(dims), absl::StrCat("output ", i)));
  }
  SYMX_RETURN_IF_ERROR(AssignShape(out, values, a, "output LU"));
  std::vector<int64_t> pivots(a.dims().begin(), a.dims().end() - 1);
  return AssignShape(out, values + 1, Shape(pivots), "output pivot");
}

// float32 or float64 for every output but the int32 pivots, as MXNet's DetType.
absl::Status DetType(const char* op, int values, const std::vector<DType>& in,
                     std::vector<DType>* out) {
  const DType t = in[0];
  if (t == DType::kUnknown) return absl::OkStatus();
  if (t != DType::kFloat32 && t != DType::kFloat64) {
    return absl::InvalidArgumentError(
        absl::StrCat(op, " computes in float32 or float64 only (as MXNet), not ", DTypeName(t)));
  }
  for (int i = 0; i <= values; ++i) {
    SYMX_RETURN_IF_ERROR(AssignType(out, i, t, absl::StrCat("output ", i)));
  }
  return AssignType(out, values + 1, DType::kInt32, "output pivot");
}

// Gradient through backward op `op` from the head gradient of output `head`
// (zero without one) and the forward inputs and outputs listed.
struct FactorGradient {
  const char* op;
  int head;
  std::vector<int> inputs;   // forward inputs passed on
  std::vector<int> outputs;  // forward outputs passed on
  std::vector<NodeEntry> operator()(const NodePtr& n, const std::vector<NodeEntry>& og) const {
    if (!og[head].node) return ZeroGradient(n, og);
    std::vector<NodeEntry> args = {og[head]};
    for (int i : inputs) args.push_back(n->inputs[i]);
    for (int o : outputs) args.push_back(Out(n, static_cast<uint32_t>(o)));
    return MakeBackwardNode(op, n, std::move(args));
  }
};

SYMX_REGISTER_OP("_linalg_potrf")
    .SetPrecisionClass(PrecisionClass::kFloat32)
    .Describe("The Cholesky factor of each symmetric positive-definite matrix (lower: A = L L^T).")
    .AddAlias("linalg_potrf")
    .SetParse(ParseCholesky)
    .SetInputNames({"A"})
    .SetInferShape(SquareShape)
    .SetGradient(FactorGradient{"_backward_linalg_potrf", 0, {}, {0}});

SYMX_REGISTER_OP("_linalg_potri")
    .SetPrecisionClass(PrecisionClass::kFloat32)
    .Describe("(L L^T)^-1 from each Cholesky factor L (lower), or U^-1 U^-T (upper).")
    .AddAlias("linalg_potri")
    .SetParse(ParseCholesky)
    .SetInputNames({"A"})
    .SetInferShape(SquareShape)
    .SetGradient(FactorGradient{"_backward_linalg_potri", 0, {0}, {0}});

SYMX_REGISTER_OP("_linalg_trmm")
    .SetPrecisionClass(PrecisionClass::kFloat32)
    .Describe("Batched alpha op(A) B, or alpha B op(A) with rightside, A triangular.")
    .AddAlias("linalg_trmm")
    .SetParse(ParseTriang)
    .SetInputNames({"A", "B"})
    .SetInferShape(TriangShape)
    .SetGradient(FactorGradient{"_backward_linalg_trmm", 0, {0, 1}, {}});

SYMX_REGISTER_OP("_linalg_trsm")
    .SetPrecisionClass(PrecisionClass::kFloat32)
    .Describe("Batched alpha op(A)^-1 B, or alpha B op(A)^-1 with rightside, A triangular.")
    .AddAlias("linalg_trsm")
    .SetParse(ParseTriang)
    .SetInputNames({"A", "B"})
    .SetInferShape(TriangShape)
    .SetGradient(FactorGradient{"_backward_linalg_trsm", 0, {0}, {0}});

SYMX_REGISTER_OP("_linalg_inverse")
    .SetPrecisionClass(PrecisionClass::kFloat32)
    .Describe("The inverse of each square matrix (an error for a singular one, as MXNet).")
    .AddAlias("linalg_inverse")
    .AddAlias("_npi_inv")
    .SetParse(ParseNone)
    .SetInputNames({"A"})
    .SetInferShape(SquareShape)
    .SetGradient(FactorGradient{"_backward_linalg_inverse", 0, {}, {0}});

SYMX_REGISTER_OP("_linalg_det")
    .SetPrecisionClass(PrecisionClass::kFloat32)
    .Describe(
        "The determinant of each square matrix; the LU factors and pivots are hidden outputs.")
    .AddAlias("linalg_det")
    .AddAlias("_npi_det")
    .SetParse(ParseNone)
    .SetInputNames({"A"})
    .SetOutputNames({"output0", "output1", "output2"})
    .SetNumVisibleOutputs([](const NodeAttrs&) { return 1; })
    .SetInferShape([](const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out) {
      return DetShape(1, *in, out);
    })
    .SetInferType([](const NodeAttrs&, std::vector<DType>* in, std::vector<DType>* out) {
      return DetType("_linalg_det", 1, *in, out);
    })
    .SetGradient(FactorGradient{"_backward_linalg_det", 0, {}, {0, 1, 2}});

SYMX_REGISTER_OP("_linalg_slogdet")
    .SetPrecisionClass(PrecisionClass::kFloat32)
    .Describe(
        "The sign and the log of the absolute determinant of each square matrix; the LU factors "
        "and pivots are hidden outputs.")
    .AddAlias("linalg_slogdet")
    .AddAlias("_npi_slogdet")
    .SetParse(ParseNone)
    .SetInputNames({"A"})
    .SetOutputNames({"output0", "output1", "output2", "output3"})
    .SetNumVisibleOutputs([](const NodeAttrs&) { return 2; })
    .SetInferShape([](const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out) {
      return DetShape(2, *in, out);
    })
    .SetInferType([](const NodeAttrs&, std::vector<DType>* in, std::vector<DType>* out) {
      return DetType("_linalg_slogdet", 2, *in, out);
    })
    // The sign has no gradient (MXNet's): only logabsdet's head counts.
    .SetGradient(FactorGradient{"_backward_linalg_slogdet", 1, {}, {1, 2, 3}});

[[maybe_unused]] const bool kFactorBackwardOpsRegistered = [] {
  auto one = [](const NodeAttrs&) { return 1; };
  auto two = [](const NodeAttrs&) { return 2; };
  RegisterBackwardOp("_backward_linalg_potrf", ParseCholesky, {"ograd", "B"}, one);
  RegisterBackwardOp("_backward_linalg_potri", ParseCholesky, {"ograd", "B", "A"}, one);
  RegisterBackwardOp("_backward_linalg_trmm", ParseTriang, {"ograd", "A", "B"}, two);
  RegisterBackwardOp("_backward_linalg_trsm", ParseTriang, {"ograd", "A", "C"}, two);
  RegisterBackwardOp("_backward_linalg_inverse", ParseNone, {"ograd", "A"}, one);
  RegisterBackwardOp("_backward_linalg_det", ParseNone, {"ograd", "det", "LU", "pivot"}, one);
  RegisterBackwardOp("_backward_linalg_slogdet", ParseNone, {"ograd", "logabsdet", "LU", "pivot"},
                     one);
  return true;
}();

// (..., m, n), m <= n -> Q (..., m, n), L (..., m, m); forward only.
absl::Status GelqfShape(const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape& a = (*in)[0];
  if (!a.ndim_known()) return absl::OkStatus();
  const int ndim = a.ndim();
  if (ndim < 2) return ShapeError("input A", a, "a tensor of matrices (at least 2 dims)");
  if (!MatrixDimsKnown(a)) return absl::OkStatus();
  if (a[ndim - 2] > a[ndim - 1]) {
    return ShapeError("input A", a, "matrices with no more rows than columns (m <= n)");
  }
  SYMX_RETURN_IF_ERROR(AssignShape(out, 0, a, "output Q"));
  Shape l = a;
  l[ndim - 1] = a[ndim - 2];
  return AssignShape(out, 1, l, "output L");
}

// (..., n, n) -> U (..., n, n), L (..., n); forward only.
absl::Status SyevdShape(const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape& a = (*in)[0];
  if (!a.ndim_known()) return absl::OkStatus();
  const int ndim = a.ndim();
  if (ndim < 2) return ShapeError("input A", a, "a tensor of square matrices (at least 2 dims)");
  if (!MatrixDimsKnown(a)) return absl::OkStatus();
  if (a[ndim - 1] != a[ndim - 2]) {
    return ShapeError("input A", a, "a tensor of square matrices (the last two dims equal)");
  }
  SYMX_RETURN_IF_ERROR(AssignShape(out, 0, a, "output U"));
  std::vector<int64_t> w(a.dims().begin(), a.dims().end() - 1);
  return AssignShape(out, 1, Shape(w), "output L");
}

// Both outputs' head gradients (zeros for a missing one) and both outputs.
GradientFn TwoOutputGradient(const char* op) {
  return [op](const NodePtr& n, const std::vector<NodeEntry>& og) {
    if (!og[0].node && !og[1].node) return ZeroGradient(n, og);
    std::vector<NodeEntry> heads = FillZeroGrads(n, og);
    return MakeBackwardNode(op, n, {heads[0], heads[1], Out(n, 0), Out(n, 1)});
  };
}

SYMX_REGISTER_OP("_linalg_gelqf")
    .SetPrecisionClass(PrecisionClass::kFloat32)
    .Describe("The LQ factorization A = L Q of each matrix with m <= n (LAPACK's signs).")
    .AddAlias("linalg_gelqf")
    .SetParse(ParseNone)
    .SetInputNames({"A"})
    .SetOutputNames({"output0", "output1"})
    .SetInferShape(GelqfShape)
    .SetGradient(TwoOutputGradient("_backward_linalg_gelqf"));

SYMX_REGISTER_OP("_linalg_syevd")
    .SetPrecisionClass(PrecisionClass::kFloat32)
    .Describe(
        "The eigenvectors (rows of U, signed as MXNet) and ascending eigenvalues L of each "
        "symmetric matrix (its lower triangle).")
    .SetParse(ParseNone)
    .SetInputNames({"A"})
    .SetOutputNames({"output0", "output1"})
    .SetInferShape(SyevdShape)
    .SetGradient(TwoOutputGradient("_backward_linalg_syevd"));

[[maybe_unused]] const bool kDecompositionBackwardOpsRegistered = [] {
  auto one = [](const NodeAttrs&) { return 1; };
  RegisterBackwardOp("_backward_linalg_gelqf", ParseNone, {"dQ", "dL", "Q", "L"}, one);
  RegisterBackwardOp("_backward_linalg_syevd", ParseNone, {"dU", "dL", "U", "L"}, one);
  return true;
}();

}  // namespace
}  // namespace symx
