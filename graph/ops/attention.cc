// The attention family: the multi-head attention products of MXNet's contrib
// (_contrib_interleaved_matmul_selfatt_qk / _selfatt_valatt /
// _encdec_qk / _encdec_valatt, with their _backward_ ops) and
// _contrib_div_sqrt_dim.
//
// Facts checked against a live MXNet 1.9.1 (src/operator/contrib/transformer.cc):
// - Layouts, with H heads of width D: queries_keys_values is (L, B, H*3*D),
//   each head's q, k and v side by side ([l, b, h*3D + s*D + d], s = 0 q, 1 k,
//   2 v); keys_values is (L, B, H*2*D) with k then v per head; queries is
//   (L, B, H*D). Attention maps are (B*H, Lq, Lk), batch entry b*H + h.
// - selfatt_qk / encdec_qk: out[b*H+h, i, j] = q_i . k_j / sqrt(D) (the scale
//   in float32); selfatt_valatt / encdec_valatt: out[i, b, h*D + d] =
//   sum_j att[b*H+h, i, j] v_j[d].
// - The parts of an interleaved input an op does not read get zero gradient.
// - MXNet checks neither that H divides the width nor the attention maps'
//   first dim (it then reads out of bounds or ignores a remainder): symx
//   requires both.
// - div_sqrt_dim: x / sqrt(x.shape[-1]), the divisor converted to x's dtype
//   first (integer data divides by its integer part), any dtype; its gradient
//   is itself applied to the head gradient.
#include "graph/ops/attention.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/infer_util.h"
#include "graph/op.h"
#include "graph/ops/op_helpers.h"

namespace symx {
namespace {

absl::StatusOr<OpParamPtr> ParseInterleaved(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<InterleavedMatMulParam>();
  p->heads = r.Int("heads");
  if (p->heads < 1) r.Fail("heads", "must be >= 1");
  return r.Finish(std::move(p));
}

int64_t Heads(const NodeAttrs& attrs) { return Param<InterleavedMatMulParam>(attrs).heads; }

// Input `i` must be 3-D; false while its shape is unknown.
absl::StatusOr<bool> Known3D(const std::vector<Shape>& in, size_t i, const std::string& what,
                             const char* layout) {
  const Shape& s = in[i];
  if (!s.ndim_known()) return false;
  if (s.ndim() != 3) return ShapeError(absl::StrCat("input ", what), s, layout);
  return s.fully_known();
}

// The last dim of an interleaved input holds `parts` projections per head.
absl::Status CheckWidth(const Shape& s, const std::string& what, int64_t parts, int64_t heads) {
  if (s[2] % (parts * heads) != 0) {
    return ShapeError(
        absl::StrCat("input ", what), s,
        absl::StrCat("a last dim divisible by ", parts, " * heads = ", parts * heads));
  }
  return absl::OkStatus();
}

absl::Status CheckAttention(const Shape& att, int64_t maps, int64_t rows, int64_t cols) {
  if (att[0] != maps || att[1] != rows || att[2] != cols) {
    return ShapeError("input attention", att,
                      absl::StrCat("(batch * heads, query length, key length) = (", maps, ", ",
                                   rows, ", ", cols, ")"));
  }
  return absl::OkStatus();
}

constexpr char kQkvLayout[] = "3 dims (length, batch, heads * 3 * head width)";
constexpr char kKvLayout[] = "3 dims (length, batch, heads * 2 * head width)";
constexpr char kQLayout[] = "3 dims (length, batch, heads * head width)";
constexpr char kAttLayout[] = "3 dims (batch * heads, query length, key length)";

absl::Status SelfAttQKShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                            std::vector<Shape>* out) {
  SYMX_ASSIGN_OR_RETURN(bool known, Known3D(*in, 0, "queries_keys_values", kQkvLayout));
  if (!known) return absl::OkStatus();
  const Shape& qkv = (*in)[0];
  const int64_t h = Heads(attrs);
  SYMX_RETURN_IF_ERROR(CheckWidth(qkv, "queries_keys_values", 3, h));
  return AssignShape(out, 0, Shape{qkv[1] * h, qkv[0], qkv[0]}, "output");
}

absl::Status SelfAttValAttShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                                std::vector<Shape>* out) {
  SYMX_ASSIGN_OR_RETURN(bool qkv_known, Known3D(*in, 0, "queries_keys_values", kQkvLayout));
  SYMX_ASSIGN_OR_RETURN(bool att_known, Known3D(*in, 1, "attention", kAttLayout));
  if (!qkv_known) return absl::OkStatus();
  const Shape& qkv = (*in)[0];
  const int64_t h = Heads(attrs);
  SYMX_RETURN_IF_ERROR(CheckWidth(qkv, "queries_keys_values", 3, h));
  if (att_known) SYMX_RETURN_IF_ERROR(CheckAttention((*in)[1], qkv[1] * h, qkv[0], qkv[0]));
  return AssignShape(out, 0, Shape{qkv[0], qkv[1], qkv[2] / 3}, "output");
}

absl::Status EncDecQKShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                           std::vector<Shape>* out) {
  SYMX_ASSIGN_OR_RETURN(bool q_known, Known3D(*in, 0, "queries", kQLayout));
  SYMX_ASSIGN_OR_RETURN(bool kv_known, Known3D(*in, 1, "keys_values", kKvLayout));
  if (!q_known || !kv_known) return absl::OkStatus();
  const Shape& q = (*in)[0];
  const Shape& kv = (*in)[1];
  const int64_t h = Heads(attrs);
  SYMX_RETURN_IF_ERROR(CheckWidth(q, "queries", 1, h));
  if (kv[2] != 2 * q[2] || kv[1] != q[1]) {
    return ShapeError(
        "input keys_values", kv,
        absl::StrCat("the batch of queries ", q.ToString(), " and twice its last dim"));
  }
  return AssignShape(out, 0, Shape{q[1] * h, q[0], kv[0]}, "output");
}

absl::Status EncDecValAttShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                               std::vector<Shape>* out) {
  SYMX_ASSIGN_OR_RETURN(bool kv_known, Known3D(*in, 0, "keys_values", kKvLayout));
  SYMX_ASSIGN_OR_RETURN(bool att_known, Known3D(*in, 1, "attention", kAttLayout));
  if (!kv_known || !att_known) return absl::OkStatus();
  const Shape& kv = (*in)[0];
  const Shape& att = (*in)[1];
  const int64_t h = Heads(attrs);
  SYMX_RETURN_IF_ERROR(CheckWidth(kv, "keys_values", 2, h));
  SYMX_RETURN_IF_ERROR(CheckAttention(att, kv[1] * h, att[1], kv[0]));
  return AssignShape(out, 0, Shape{att[1], kv[1], kv[2] / 2}, "output");
}

// A `_backward_` op over (ograd, the forward inputs...) giving every input's
// gradient.
GradientFn InterleavedGradient(std::string backward_op) {
  return [backward_op](const NodePtr& node, const std::vector<NodeEntry>& og) {
    if (!og[0].node) return std::vector<NodeEntry>(node->inputs.size());
    std::vector<NodeEntry> inputs = {og[0]};
    for (const NodeEntry& e : node->inputs) inputs.push_back(e);
    return MakeBackwardNode(backward_op, node, std::move(inputs));
  };
}

absl::Status DivSqrtDimShape(const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out) {
  SYMX_RETURN_IF_ERROR(InferSameShape(in, out));
  if ((*in)[0].ndim() == 0) return ShapeError("input data", (*in)[0], "at least 1 dim");
  return absl::OkStatus();
}

}  // namespace

SYMX_REGISTER_OP("_contrib_interleaved_matmul_selfatt_qk")
    .Describe(
        "Per head, the queries times the keys of interleaved (length, batch, heads * 3 * width) "
        "projections, over sqrt(width): (batch * heads, length, length).")
    .SetParse(ParseInterleaved)
    .SetInputNames({"queries_keys_values"})
    .SetInferShape(SelfAttQKShape)
    .SetGradient(InterleavedGradient("_backward_interleaved_matmul_selfatt_qk"));

SYMX_REGISTER_OP("_contrib_interleaved_matmul_selfatt_valatt")
    .Describe(
        "Per head, the attention maps times the values of interleaved (length, batch, heads * 3 "
        "* width) projections: (length, batch, heads * width).")
    .SetParse(ParseInterleaved)
    .SetInputNames({"queries_keys_values", "attention"})
    .SetInferShape(SelfAttValAttShape)
    .SetGradient(InterleavedGradient("_backward_interleaved_matmul_selfatt_valatt"));

SYMX_REGISTER_OP("_contrib_interleaved_matmul_encdec_qk")
    .Describe(
        "Per head, queries (length, batch, heads * width) times the keys of interleaved "
        "(length, batch, heads * 2 * width) keys and values, over sqrt(width).")
    .SetParse(ParseInterleaved)
    .SetInputNames({"queries", "keys_values"})
    .SetInferShape(EncDecQKShape)
    .SetGradient(InterleavedGradient("_backward_interleaved_matmul_encdec_qk"));

SYMX_REGISTER_OP("_contrib_interleaved_matmul_encdec_valatt")
    .Describe(
        "Per head, the attention maps times the values of interleaved (length, batch, heads * 2 "
        "* width) keys and values: (query length, batch, heads * width).")
    .SetParse(ParseInterleaved)
    .SetInputNames({"keys_values", "attention"})
    .SetInferShape(EncDecValAttShape)
    .SetGradient(InterleavedGradient("_backward_interleaved_matmul_encdec_valatt"));

static Op& symx_backward_selfatt_qk_registration =
    RegisterBackwardOp("_backward_interleaved_matmul_selfatt_qk", ParseInterleaved,
                       {"ograd", "queries_keys_values"}, [](const NodeAttrs&) { return 1; })
        .Describe("Gradient of _contrib_interleaved_matmul_selfatt_qk (its v slots zero).");
static Op& symx_backward_selfatt_valatt_registration =
    RegisterBackwardOp("_backward_interleaved_matmul_selfatt_valatt", ParseInterleaved,
                       {"ograd", "queries_keys_values", "attention"},
                       [](const NodeAttrs&) { return 2; })
        .Describe("Gradient of _contrib_interleaved_matmul_selfatt_valatt (q and k slots zero).");
static Op& symx_backward_encdec_qk_registration =
    RegisterBackwardOp("_backward_interleaved_matmul_encdec_qk", ParseInterleaved,
                       {"ograd", "queries", "keys_values"}, [](const NodeAttrs&) { return 2; })
        .Describe("Gradient of _contrib_interleaved_matmul_encdec_qk (the v slots zero).");
static Op& symx_backward_encdec_valatt_registration =
    RegisterBackwardOp("_backward_interleaved_matmul_encdec_valatt", ParseInterleaved,
                       {"ograd", "keys_values", "attention"}, [](const NodeAttrs&) { return 2; })
        .Describe("Gradient of _contrib_interleaved_matmul_encdec_valatt (the k slots zero).");

SYMX_REGISTER_OP("_contrib_div_sqrt_dim")
    .Describe("x / sqrt(x.shape[-1]), the divisor in x's dtype.")
    .SetParse(ParseNoParams)
    .SetInferShape(DivSqrtDimShape)
    .SetInplace({{0, 0}})
    .SetGradient([](const NodePtr& node, const std::vector<NodeEntry>& og) {
      if (!og[0].node) return std::vector<NodeEntry>(1);
      return std::vector<NodeEntry>{
          MakeInternalEntry("_contrib_div_sqrt_dim", node->attrs.name + "_backward", {og[0]})};
    });

}  // namespace symx
