#include "devices/geometry/attention_dims.h"

#include <cmath>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "graph/op.h"
#include "graph/ops/attention.h"

namespace symx {
namespace {

absl::Status Need3D(const KernelContext& ctx, const Tensor& t, const char* what) {
  if (t.shape().ndim() != 3) {
    return Fail(ctx, absl::StrCat(what, " ", t.shape().ToString(), " must have 3 dims"));
  }
  return absl::OkStatus();
}

// Head width of an interleaved (L, B, heads * parts * D) input.
absl::StatusOr<int64_t> HeadWidth(const KernelContext& ctx, const Tensor& t, const char* what,
                                  int64_t parts, int64_t heads) {
  SYMX_RETURN_IF_ERROR(Need3D(ctx, t, what));
  if (t.shape()[2] % (parts * heads) != 0) {
    return Fail(ctx,
                absl::StrCat(what, " ", t.shape().ToString(), "'s last dim is not divisible by ",
                             parts, " * heads = ", parts * heads));
  }
  return t.shape()[2] / (parts * heads);
}

absl::Status NeedShape(const KernelContext& ctx, const Tensor& t, const char* what,
                       const Shape& want) {
  if (t.shape() != want) {
    return Fail(ctx, absl::StrCat(what, " ", t.shape().ToString(), " should be ", want.ToString()));
  }
  return absl::OkStatus();
}

BatchedProduct Product(bool ta, bool tb, int64_t m, int64_t n, int64_t k, int64_t batch,
                       GemmOperand a, GemmOperand b, GemmOperand c, double alpha) {
  BatchedProduct p;
  p.trans_a = ta;
  p.trans_b = tb;
  p.m = m;
  p.n = n;
  p.k = k;
  p.batch = batch;
  p.a = a;
  p.b = b;
  p.c = c;
  p.alpha = alpha;
  return p;
}

void ZeroSlots(AttentionPlan* plan, int output, GemmOperand at, int64_t rows, int64_t width) {
  plan->zero_output = output;
  plan->zero_at = at;
  plan->zero_rows = rows;
  plan->zero_width = width;
}

void Add(AttentionPlan* plan, const BatchedProduct& p, int a_source, int b_source, int target) {
  const int i = plan->num_products++;
  plan->products[i] = p;
  plan->a_source[i] = a_source;
  plan->b_source[i] = b_source;
  plan->target[i] = target;
}

}  // namespace

double AttentionScale(int64_t head_dim) {
  return static_cast<float>(1.0 / std::sqrt(static_cast<float>(head_dim)));
}

absl::StatusOr<AttentionPlan> PlanAttention(const KernelContext& ctx) {
  const std::string& name = ctx.attrs->op->name();
  const bool backward = absl::StartsWith(name, "_backward_");
  // Forward inputs at ctx.inputs[base + j]; ograd (backward) at 0.
  const size_t base = backward ? 1 : 0;
  const int64_t h = ctx.param<InterleavedMatMulParam>().heads;
  const Tensor& x0 = ctx.inputs[base];
  AttentionPlan plan;
  if (absl::EndsWith(name, "selfatt_qk")) {
    SYMX_ASSIGN_OR_RETURN(int64_t d, HeadWidth(ctx, x0, "queries_keys_values", 3, h));
    const int64_t len = x0.shape()[0], maps = x0.shape()[1] * h, lead = maps * 3 * d;
    const GemmOperand q{0, lead, 3 * d}, k{d, lead, 3 * d}, att{0, len, len * len};
    const double s = AttentionScale(d);
    if (!backward) {
      Add(&plan, Product(false, true, len, len, d, maps, q, k, att, s), 0, 0, 0);
    } else {
      SYMX_RETURN_IF_ERROR(NeedShape(ctx, ctx.inputs[0], "ograd", Shape{maps, len, len}));
      Add(&plan, Product(false, false, len, d, len, maps, att, k, q, s), 0, 1, 0);
      Add(&plan, Product(true, false, len, d, len, maps, att, q, k, s), 0, 1, 0);
      ZeroSlots(&plan, 0, GemmOperand{2 * d, lead, 3 * d}, len, d);
    }
  } else if (absl::EndsWith(name, "selfatt_valatt")) {
    SYMX_ASSIGN_OR_RETURN(int64_t d, HeadWidth(ctx, x0, "queries_keys_values", 3, h));
    const int64_t len = x0.shape()[0], maps = x0.shape()[1] * h, lead = maps * 3 * d;
    SYMX_RETURN_IF_ERROR(NeedShape(ctx, ctx.inputs[base + 1], "attention", Shape{maps, len, len}));
    const GemmOperand v{2 * d, lead, 3 * d}, att{0, len, len * len}, out{0, maps * d, d};
    if (!backward) {
      Add(&plan, Product(false, false, len, d, len, maps, att, v, out, 1), 1, 0, 0);
    } else {
      SYMX_RETURN_IF_ERROR(
          NeedShape(ctx, ctx.inputs[0], "ograd", Shape{len, x0.shape()[1], h * d}));
      Add(&plan, Product(true, false, len, d, len, maps, att, out, v, 1), 2, 0, 0);
      Add(&plan, Product(false, true, len, len, d, maps, out, v, att, 1), 0, 1, 1);
      ZeroSlots(&plan, 0, GemmOperand{0, lead, 3 * d}, len, 2 * d);
    }
  } else if (absl::EndsWith(name, "encdec_qk")) {
    SYMX_ASSIGN_OR_RETURN(int64_t d, HeadWidth(ctx, x0, "queries", 1, h));
    const Tensor& kv = ctx.inputs[base + 1];
    SYMX_RETURN_IF_ERROR(Need3D(ctx, kv, "keys_values"));
    const int64_t lq = x0.shape()[0], lk = kv.shape()[0], batch = x0.shape()[1], maps = batch * h;
    SYMX_RETURN_IF_ERROR(NeedShape(ctx, kv, "keys_values", Shape{lk, batch, 2 * h * d}));
    const GemmOperand q{0, maps * d, d}, k{0, maps * 2 * d, 2 * d}, att{0, lk, lq * lk};
    const double s = AttentionScale(d);
    if (!backward) {
      Add(&plan, Product(false, true, lq, lk, d, maps, q, k, att, s), 0, 1, 0);
    } else {
      SYMX_RETURN_IF_ERROR(NeedShape(ctx, ctx.inputs[0], "ograd", Shape{maps, lq, lk}));
      Add(&plan, Product(false, false, lq, d, lk, maps, att, k, q, s), 0, 2, 0);
      Add(&plan, Product(true, false, lk, d, lq, maps, att, q, k, s), 0, 1, 1);
      ZeroSlots(&plan, 1, GemmOperand{d, maps * 2 * d, 2 * d}, lk, d);
    }
  } else if (absl::EndsWith(name, "encdec_valatt")) {
    SYMX_ASSIGN_OR_RETURN(int64_t d, HeadWidth(ctx, x0, "keys_values", 2, h));
    const Tensor& att_t = ctx.inputs[base + 1];
    SYMX_RETURN_IF_ERROR(Need3D(ctx, att_t, "attention"));
    const int64_t lk = x0.shape()[0], batch = x0.shape()[1], maps = batch * h;
    const int64_t lq = att_t.shape()[1];
    SYMX_RETURN_IF_ERROR(NeedShape(ctx, att_t, "attention", Shape{maps, lq, lk}));
    const GemmOperand v{d, maps * 2 * d, 2 * d}, att{0, lk, lq * lk}, out{0, maps * d, d};
    if (!backward) {
      Add(&plan, Product(false, false, lq, d, lk, maps, att, v, out, 1), 1, 0, 0);
    } else {
      SYMX_RETURN_IF_ERROR(NeedShape(ctx, ctx.inputs[0], "ograd", Shape{lq, batch, h * d}));
      Add(&plan, Product(true, false, lk, d, lq, maps, att, out, v, 1), 2, 0, 0);
      Add(&plan, Product(false, true, lq, lk, d, maps, out, v, att, 1), 0, 1, 1);
      ZeroSlots(&plan, 0, GemmOperand{0, maps * 2 * d, 2 * d}, lk, d);
    }
  } else {
    return Fail(ctx, "not an interleaved attention product");
  }
  return plan;
}

}  // namespace symx
