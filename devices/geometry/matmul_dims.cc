#include "devices/geometry/matmul_dims.h"

#include "absl/strings/str_cat.h"
#include "graph/ops/dense.h"

namespace symx {

absl::Status GetFcDims(const KernelContext& ctx, const Tensor& data, const Tensor& weight,
                       FcDims* d) {
  const auto& p = ctx.param<FullyConnectedParam>();
  if (weight.shape().ndim() != 2 || weight.shape()[0] != p.num_hidden) {
    return absl::InvalidArgumentError(absl::StrCat(
        ctx.Where(), ": weight ", weight.shape().ToString(), " is not (", p.num_hidden, ", K)"));
  }
  d->hidden = p.num_hidden;
  d->in = weight.shape()[1];
  const Shape& s = data.shape();
  if (s.ndim() < 1) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": data must have a dim"));
  }
  d->rows = 1;
  const int lead = p.flatten ? 1 : s.ndim() - 1;
  for (int i = 0; i < lead; ++i) d->rows *= s[i];
  if (d->rows * d->in != data.size()) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": data ", s.ToString(),
                                                   " does not match weight ",
                                                   weight.shape().ToString()));
  }
  return absl::OkStatus();
}

absl::Status GetDotDims(const KernelContext& ctx, const Shape& lhs, const Shape& rhs,
                        MatMulDims* d) {
  const auto& p = ctx.param<DotParam>();
  if (lhs.ndim() < 1 || rhs.ndim() < 1) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": operands need a dim"));
  }
  // lhs contracts its last dim (first when transposed); rhs its first (last when transposed).
  const int lc = p.transpose_a ? 0 : lhs.ndim() - 1;
  const int rc = p.transpose_b ? rhs.ndim() - 1 : 0;
  if (lhs[lc] != rhs[rc]) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": cannot contract lhs ",
                                                   lhs.ToString(), " with rhs ", rhs.ToString()));
  }
  d->k = lhs[lc];
  d->m = 1;
  for (int i = 0; i < lhs.ndim(); ++i) {
    if (i != lc) d->m *= lhs[i];
  }
  d->n = 1;
  for (int i = 0; i < rhs.ndim(); ++i) {
    if (i != rc) d->n *= rhs[i];
  }
  return absl::OkStatus();
}

absl::Status GetBatchDotDims(const KernelContext& ctx, const Shape& lhs, const Shape& rhs,
                             int64_t* batch, MatMulDims* d) {
  const auto& p = ctx.param<DotParam>();
  if (lhs.ndim() != 3 || rhs.ndim() != 3 || lhs[0] != rhs[0]) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": expected 3-D operands with ",
                                                   "equal batch, got lhs ", lhs.ToString(),
                                                   " and rhs ", rhs.ToString()));
  }
  *batch = lhs[0];
  d->m = p.transpose_a ? lhs[2] : lhs[1];
  d->k = p.transpose_a ? lhs[1] : lhs[2];
  d->n = p.transpose_b ? rhs[1] : rhs[2];
  const int64_t rk = p.transpose_b ? rhs[2] : rhs[1];
  if (rk != d->k) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": cannot contract lhs ",
                                                   lhs.ToString(), " with rhs ", rhs.ToString()));
  }
  return absl::OkStatus();
}

}  // namespace symx
