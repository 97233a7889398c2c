#include "devices/geometry/pool_geom.h"

#include "absl/strings/str_cat.h"
#include "graph/ops/pooling.h"

namespace symx {

absl::Status MakePoolGeom(const KernelContext& ctx, const Shape& data, const Shape& out,
                          PoolGeom* g) {
  const auto& p = ctx.param<PoolParam>();
  const int nd = data.ndim();
  if (nd < 3 || nd > 5 || out.ndim() != nd || out[0] != data[0] || out[1] != data[1]) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": data ", data.ToString(),
                                                   " and output ", out.ToString(),
                                                   " are not (batch, channel, 1 to 3 dims)"));
  }
  const int n = nd - 2;
  if (!p.global_pool && static_cast<int>(p.kernel.size()) != n) {
    return absl::InvalidArgumentError(absl::StrCat(
        ctx.Where(), ": a ", p.kernel.size(), "-D kernel does not fit data ", data.ToString()));
  }
  g->planes = data[0] * data[1];
  const int off = 3 - n;
  for (int i = 0; i < n; ++i) {
    g->in[off + i] = data[2 + i];
    g->out[off + i] = out[2 + i];
    if (p.global_pool) {
      g->kernel[off + i] = data[2 + i];
    } else {
      g->kernel[off + i] = p.kernel[i];
      g->stride[off + i] = p.stride[i];
      g->pad[off + i] = p.pad[i];
    }
  }
  for (int d = 0; d < 3; ++d) {
    g->in_size *= g->in[d];
    g->out_size *= g->out[d];
    g->window *= g->kernel[d];
  }
  if (p.pool_type == "max") {
    g->type = PoolType::kMax;
  } else if (p.pool_type == "avg") {
    g->type = PoolType::kAvg;
  } else if (p.pool_type == "sum") {
    g->type = PoolType::kSum;
  } else if (p.pool_type == "lp") {
    g->type = PoolType::kLp;
    g->p = p.p_value.value_or(1);
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat(ctx.Where(), ": unsupported pool_type ", p.pool_type));
  }
  g->count_include_pad = p.count_include_pad.value_or(true);
  return absl::OkStatus();
}

absl::Status MakePoolV1Geom(const KernelContext& ctx, const Shape& data, const Shape& out,
                            PoolGeom* g) {
  const auto& p = ctx.param<PoolV1Param>();
  if (data.ndim() != 4 || out.ndim() != 4 || out[0] != data[0] || out[1] != data[1]) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": data ", data.ToString(),
                                                   " and output ", out.ToString(),
                                                   " are not (batch, channel, h, w)"));
  }
  g->planes = data[0] * data[1];
  for (int d = 0; d < 2; ++d) {
    g->in[1 + d] = data[2 + d];
    g->out[1 + d] = out[2 + d];
    g->kernel[1 + d] = p.global_pool ? data[2 + d] : p.kernel[d];
    g->stride[1 + d] = p.global_pool ? 1 : p.stride[d];
    g->pad[1 + d] = p.global_pool ? 0 : p.pad[d];
  }
  g->in_size = g->in[1] * g->in[2];
  g->out_size = g->out[1] * g->out[2];
  g->window = g->kernel[1] * g->kernel[2];
  g->type = p.pool_type == "max"   ? PoolType::kMax
            : p.pool_type == "avg" ? PoolType::kAvg
                                   : PoolType::kSum;
  return absl::OkStatus();
}

}  // namespace symx
