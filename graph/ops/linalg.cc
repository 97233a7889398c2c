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

}  // namespace
}  // namespace symx
