// The dense family: FullyConnected, dot and batch_dot, with their backward ops.
//
// Registers FullyConnected (y = x W^T + b, optionally flattening x to 2-D first) and
// _backward_FullyConnected.
//
// Registers dot (N-D tensor contraction of lhs's last axis with rhs's first, each optionally
// transposed) and batch_dot (batched 3-D matrix products) with their backward ops.
//
// khatri_rao: the column-wise Kronecker product of num_args matrices (M_i, N) -> (prod M_i, N).
// MXNet 1.9.1 registers no gradient for it (binding one is an error there); here it is
// non-differentiable.
#include "graph/ops/dense.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "graph/infer_util.h"
#include "graph/op.h"
#include "graph/ops/op_helpers.h"
#include "graph/param.h"
#include "graph/shape.h"

namespace symx {
namespace {

absl::StatusOr<OpParamPtr> ParseFullyConnected(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<FullyConnectedParam>();
  p->num_hidden = r.Int("num_hidden");
  if (p->num_hidden < 1) r.Fail("num_hidden", "must be > 0");
  p->no_bias = r.Bool("no_bias", false);
  p->flatten = r.Bool("flatten", true);
  return r.Finish(std::move(p));
}

std::vector<std::string> FullyConnectedInputNames(const NodeAttrs& attrs) {
  if (Param<FullyConnectedParam>(attrs).no_bias) return {"data", "weight"};
  return {"data", "weight", "bias"};
}

int FullyConnectedNumGrads(const NodeAttrs& attrs) {
  return Param<FullyConnectedParam>(attrs).no_bias ? 2 : 3;
}

// Product of dims [begin, ndim), unknown if any is unknown.
absl::StatusOr<int64_t> TrailingSize(const Shape& s, int begin) {
  int64_t size = 1;
  for (int d = begin; d < s.ndim(); ++d) {
    if (s[d] == kUnknownDim) return kUnknownDim;
    if (s[d] < 0) return ShapeError("input data", s, "non-negative dims");
    if (__builtin_mul_overflow(size, s[d], &size)) {
      return ShapeError("input data", s, "a flattened size that fits in 64 bits");
    }
  }
  return size;
}

absl::Status FullyConnectedInferShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                                      std::vector<Shape>* out) {
  const FullyConnectedParam& p = Param<FullyConnectedParam>(attrs);
  // As in MXNet nothing is inferred before the data's rank is known, so an unknown input
  // leaves the weight unknown rather than half-filled.
  if (!(*in)[0].ndim_known()) return absl::OkStatus();
  Shape data = (*in)[0];
  const int nd = data.ndim();
  if (nd == 0) return ShapeError("input data", data, "at least 1 dim");
  const Shape& o = (*out)[0];
  if (o.ndim_known() && o.ndim() != (p.flatten ? 2 : nd)) {
    return ShapeError("output", o,
                      p.flatten ? "2 dims (batch, num_hidden)"
                                : absl::StrCat(nd, " dims like the data, last = num_hidden"));
  }

  // Backward: the output holds the data's leading dims; the weight its input width where
  // that is a single data dim.
  if (o.ndim_known()) {
    int lead = p.flatten ? 1 : nd - 1;
    for (int d = 0; d < lead; ++d) {
      if (data[d] == kUnknownDim) data[d] = o[d];
    }
  }
  const Shape& w = (*in)[1];
  const int k_dim = p.flatten ? (nd == 2 ? 1 : -1) : nd - 1;
  if (w.ndim() == 2 && k_dim >= 0 && data[k_dim] == kUnknownDim) data[k_dim] = w[1];
  SYMX_RETURN_IF_ERROR(AssignShape(in, 0, data, "input data"));

  absl::StatusOr<int64_t> k = p.flatten ? TrailingSize(data, 1) : data[nd - 1];
  if (!k.ok()) return k.status();
  SYMX_RETURN_IF_ERROR(AssignShape(in, 1, Shape{p.num_hidden, *k}, "input weight"));
  if (!p.no_bias) {
    // MXNet also accepts a column-shaped bias.
    const Shape& b = (*in)[2];
    if (!(b.ndim() == 2 && b[0] == p.num_hidden && b[1] == 1)) {
      SYMX_RETURN_IF_ERROR(AssignShape(in, 2, Shape{p.num_hidden}, "input bias"));
    }
  }
  Shape result;
  if (p.flatten) {
    result = Shape{data[0], p.num_hidden};
  } else {
    result = data;
    result[nd - 1] = p.num_hidden;
  }
  return AssignShape(out, 0, result, "output");
}

std::vector<NodeEntry> FullyConnectedGradient(const NodePtr& node,
                                              const std::vector<NodeEntry>& ograds) {
  if (!ograds[0].node) return std::vector<NodeEntry>(node->inputs.size());
  return MakeBackwardNode("_backward_FullyConnected", node,
                          {ograds[0], node->inputs[0], node->inputs[1]});
}

SYMX_REGISTER_OP("FullyConnected")
    .Describe(
        "Fully connected layer: out = data W^T + bias with weight (num_hidden, K); "
        "flatten folds all but the first data dim into K, else K is the last dim.")
    .SetParse(ParseFullyConnected)
    .SetInputNames(FullyConnectedInputNames)
    .SetInferShape(FullyConnectedInferShape)
    .SetGradient(FullyConnectedGradient);

Op& backward_fully_connected_registration =
    RegisterBackwardOp("_backward_FullyConnected", ParseFullyConnected, {"ograd", "data", "weight"},
                       FullyConnectedNumGrads);

}  // namespace

namespace {

absl::StatusOr<OpParamPtr> ParseDot(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<DotParam>();
  p->transpose_a = r.Bool("transpose_a", false);
  p->transpose_b = r.Bool("transpose_b", false);
  std::string stype = r.Enum("forward_stype", {"None", "default", "row_sparse", "csr"}, "None");
  if (stype == "row_sparse" || stype == "csr") {
    r.Fail("forward_stype", "sparse outputs are not supported; use None or default");
  }
  return r.Finish(std::move(p));
}

absl::Status DotMismatch(absl::string_view op, const Shape& lhs, const Shape& rhs,
                         const DotParam& p) {
  return absl::InvalidArgumentError(absl::StrCat(
      op, " shape error: lhs ", lhs.ToString(), " x rhs ", rhs.ToString(), " (transpose_a=",
      p.transpose_a ? "True" : "False", ", transpose_b=", p.transpose_b ? "True" : "False", ")"));
}

// Merges two dims that must agree; false on a conflict.
bool MergeDim(int64_t* a, int64_t* b) {
  if (*a == kUnknownDim) *a = *b;
  if (*b == kUnknownDim) *b = *a;
  return *a == *b;
}

// Positions of the free (kept) dims of one operand and of its contracted dim.
struct DotSide {
  std::vector<int> free;
  int contracted = 0;
};

// lhs contracts its last dim (its first when transposed); rhs its first (its last when
// transposed). A 1-D operand contributes no free dims.
DotSide SideOf(int ndim, bool contract_first) {
  DotSide side;
  side.contracted = contract_first ? 0 : ndim - 1;
  if (ndim > 1) {
    for (int d = 0; d < ndim; ++d) {
      if (d != side.contracted) side.free.push_back(d);
    }
  }
  return side;
}

absl::Status DotInferShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                           std::vector<Shape>* out) {
  const DotParam& p = Param<DotParam>(attrs);
  Shape lhs = (*in)[0], rhs = (*in)[1];
  // The output's rank depends on both ranks, so nothing follows from one alone.
  if (!lhs.ndim_known() || !rhs.ndim_known()) return absl::OkStatus();
  if (lhs.ndim() == 0) return ShapeError("input lhs", lhs, "at least 1 dim");
  if (rhs.ndim() == 0) return ShapeError("input rhs", rhs, "at least 1 dim");
  if (lhs.ndim() == 1 && rhs.ndim() == 1 && (p.transpose_a || p.transpose_b)) {
    return absl::InvalidArgumentError(absl::StrCat("dot: cannot transpose vectors (lhs ",
                                                   lhs.ToString(), ", rhs ", rhs.ToString(), ")"));
  }
  DotSide l = SideOf(lhs.ndim(), p.transpose_a);
  DotSide r = SideOf(rhs.ndim(), !p.transpose_b);
  if (!MergeDim(&lhs[l.contracted], &rhs[r.contracted])) {
    return DotMismatch("dot", (*in)[0], (*in)[1], p);
  }
  // Two vectors give a one-element result.
  Shape result = Shape::UnknownDims(static_cast<int>(l.free.size() + r.free.size()));
  if (l.free.empty() && r.free.empty()) result = Shape{1};
  const Shape& o = (*out)[0];
  bool out_matches = o.ndim() == result.ndim() && !(l.free.empty() && r.free.empty());
  int k = 0;
  for (int d : l.free) {
    if (out_matches && lhs[d] == kUnknownDim) lhs[d] = o[k];
    result[k++] = lhs[d];
  }
  for (int d : r.free) {
    if (out_matches && rhs[d] == kUnknownDim) rhs[d] = o[k];
    result[k++] = rhs[d];
  }
  SYMX_RETURN_IF_ERROR(AssignShape(out, 0, result, "output"));
  SYMX_RETURN_IF_ERROR(AssignShape(in, 0, lhs, "input lhs"));
  return AssignShape(in, 1, rhs, "input rhs");
}

absl::Status BatchDotInferShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                                std::vector<Shape>* out) {
  const DotParam& p = Param<DotParam>(attrs);
  Shape lhs = (*in)[0], rhs = (*in)[1];
  if (!lhs.ndim_known() || !rhs.ndim_known()) return absl::OkStatus();
  if (lhs.ndim() != 3) return ShapeError("input lhs", lhs, "3 dims (batch, n, k)");
  if (rhs.ndim() != 3) return ShapeError("input rhs", rhs, "3 dims (batch, k, m)");
  if ((*out)[0].ndim_known() && (*out)[0].ndim() != 3) {
    return ShapeError("output", (*out)[0], "3 dims (batch, n, m)");
  }
  Shape o = (*out)[0].ndim_known() ? (*out)[0] : Shape::UnknownDims(3);
  const int lm = p.transpose_a ? 2 : 1, lk = p.transpose_a ? 1 : 2;
  const int rn = p.transpose_b ? 1 : 2, rk = p.transpose_b ? 2 : 1;
  if (!MergeDim(&lhs[0], &rhs[0]) || !MergeDim(&lhs[lk], &rhs[rk])) {
    return DotMismatch("batch_dot", (*in)[0], (*in)[1], p);
  }
  // The output's dims flow back into the operands.
  if (!MergeDim(&lhs[0], &o[0]) || !MergeDim(&rhs[0], &o[0]) || !MergeDim(&lhs[lm], &o[1]) ||
      !MergeDim(&rhs[rn], &o[2])) {
    return AssignShape(out, 0, Shape{lhs[0], lhs[lm], rhs[rn]}, "output");
  }
  SYMX_RETURN_IF_ERROR(AssignShape(out, 0, o, "output"));
  SYMX_RETURN_IF_ERROR(AssignShape(in, 0, lhs, "input lhs"));
  return AssignShape(in, 1, rhs, "input rhs");
}

std::vector<NodeEntry> DotGradientWith(const char* backward, const NodePtr& node,
                                       const std::vector<NodeEntry>& ograds) {
  if (!ograds[0].node) return std::vector<NodeEntry>(2);
  return MakeBackwardNode(backward, node, {ograds[0], node->inputs[0], node->inputs[1]});
}

SYMX_REGISTER_OP("dot")
    .Describe(
        "Tensor dot: contracts lhs's last axis (first if transpose_a) with rhs's first "
        "axis (last if transpose_b); output = lhs's other dims + rhs's other dims.")
    .SetParse(ParseDot)
    .SetInputNames({"lhs", "rhs"})
    .SetInferShape(DotInferShape)
    .SetGradient([](const NodePtr& node, const std::vector<NodeEntry>& ograds) {
      return DotGradientWith("_backward_dot", node, ograds);
    });

SYMX_REGISTER_OP("batch_dot")
    .Describe(
        "Batched matrix product of 3-D arrays: (B, N, K) x (B, K, M) -> (B, N, M), "
        "each operand optionally transposed in its last two dims.")
    .SetParse(ParseDot)
    .SetInputNames({"lhs", "rhs"})
    .SetInferShape(BatchDotInferShape)
    .SetGradient([](const NodePtr& node, const std::vector<NodeEntry>& ograds) {
      return DotGradientWith("_backward_batch_dot", node, ograds);
    });

// ----------------------------------------------------------------------------- khatri_rao

struct KhatriRaoParam : OpParam {
  int64_t num_args = 0;
};

// MXNet sets no upper bound; this one keeps a malformed count from listing
// millions of inputs.
constexpr int64_t kMaxKhatriRaoArgs = 256;

absl::StatusOr<OpParamPtr> ParseKhatriRao(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<KhatriRaoParam>();
  p->num_args = r.Int("num_args");
  if (p->num_args < 1 || p->num_args > kMaxKhatriRaoArgs) {
    r.Fail("num_args", absl::StrCat("must be in [1, ", kMaxKhatriRaoArgs, "]"));
  }
  return r.Finish(std::move(p));
}

std::vector<std::string> KhatriRaoInputNames(const NodeAttrs& attrs) {
  auto p = ParamsOf<KhatriRaoParam>(attrs, ParseKhatriRao);
  std::vector<std::string> names;
  for (int64_t i = 0; p && i < p->num_args; ++i) names.push_back(absl::StrCat("arg", i));
  return names;
}

absl::Status KhatriRaoInferShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                                 std::vector<Shape>* out) {
  int64_t rows = 1, cols = kUnknownDim;
  bool rows_known = true;
  for (size_t i = 0; i < in->size(); ++i) {
    const Shape& s = (*in)[i];
    if (!s.ndim_known()) {
      rows_known = false;
      continue;
    }
    if (s.ndim() != 2) return ShapeError(absl::StrCat("input arg", i), s, "a matrix (2 dims)");
    if (s.dim_known(1)) {
      if (cols != kUnknownDim && s[1] != cols) {
        return absl::InvalidArgumentError(
            absl::StrCat("khatri_rao: every input needs the same number of columns: arg", i, " is ",
                         s.ToString(), ", an earlier one has ", cols));
      }
      cols = s[1];
    }
    if (s.dim_known(0)) {
      rows *= s[0];
    } else {
      rows_known = false;
    }
  }
  return AssignShape(out, 0, Shape{rows_known ? rows : kUnknownDim, cols}, "output");
}

SYMX_REGISTER_OP("khatri_rao")
    .Describe(
        "Column-wise Khatri-Rao product of num_args matrices (M_i, N): column k of the "
        "(M_1 ... M_n, N) output is the outer product of the inputs' columns k.")
    .SetParse(ParseKhatriRao)
    .SetVariadic("num_args")
    .SetInputNames(KhatriRaoInputNames)
    .SetInferShape(KhatriRaoInferShape)
    .SetPrecisionClass(PrecisionClass::kFloat32)
    .SetNonDifferentiable();

Op& backward_dot_registration = RegisterBackwardOp(
    "_backward_dot", ParseDot, {"ograd", "lhs", "rhs"}, [](const NodeAttrs&) { return 2; });
Op& backward_batch_dot_registration = RegisterBackwardOp(
    "_backward_batch_dot", ParseDot, {"ograd", "lhs", "rhs"}, [](const NodeAttrs&) { return 2; });

}  // namespace

}  // namespace symx
