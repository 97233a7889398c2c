// The plain-loop kernels of the norm family (registered in
// devices/cpu/norm_kernels.cc): L2Normalization, InstanceNorm and GroupNorm
// and their backwards, reducing in double through devices/cpu/column_loops.h
// (legacy ops, kept cheap to compile). L2Normalization views the data as
// (outer, n, inner) and reduces over n: instance (N, rest, 1), channel (N, C,
// rest), spatial (N*C, rest, 1), so its norm output is indexed by o * inner +
// i in every mode. InstanceNorm and GroupNorm view the data as (N, G, M) (G =
// C for InstanceNorm, num_groups for GroupNorm, M the elements of one group)
// with gamma/beta per g.
#include "devices/cpu/column_norms.h"

#include <cmath>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "devices/cpu/column_loops.h"
#include "devices/cpu/kernel_util.h"
#include "devices/geometry/axis_layout.h"
#include "graph/ops/norm.h"

namespace symx {
namespace cpu {
namespace {

using column_loops::ForColumns;
using column_loops::Layout;
using column_loops::Ld;
using column_loops::St;

// ------------------------------------------------------------------ L2Normalization

absl::StatusOr<Layout> L2Layout(const KernelContext& ctx, const Shape& s) {
  return L2NormalizationLayout(ctx, s);
}

template <typename T>
void L2Fwd(const KernelContext& ctx, const Layout& l, const T* x, T* y, T* norm, double eps) {
  const int64_t n = l.n, inner = l.inner;
  ForColumns(ctx, l, 4.0, [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) {
      const int64_t base = (c / inner) * n * inner + c % inner;
      double s = 0;
      for (int64_t k = 0; k < n; ++k) {
        const double v = Ld(x, base + k * inner);
        s += v * v;
      }
      const double nm = std::sqrt(s + eps);
      for (int64_t k = 0; k < n; ++k) {
        const int64_t at = base + k * inner;
        St(y, at, Ld(x, at) / nm);
      }
      St(norm, c, nm);
    }
  });
  // Columns of zero length still get their norm.
  if (l.n == 0) {
    for (int64_t c = 0; c < l.columns(); ++c) St(norm, c, std::sqrt(eps));
  }
}

// gx = (g - y * sum(g * y)) / norm.
template <typename T>
void L2Bwd(const KernelContext& ctx, const Layout& l, const T* g, const T* y, const T* norm,
           T* gx) {
  const int64_t n = l.n, inner = l.inner;
  ForColumns(ctx, l, 6.0, [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) {
      const int64_t base = (c / inner) * n * inner + c % inner;
      double s = 0;
      for (int64_t k = 0; k < n; ++k) {
        const int64_t at = base + k * inner;
        s += Ld(g, at) * Ld(y, at);
      }
      const double inv = 1.0 / Ld(norm, c);
      for (int64_t k = 0; k < n; ++k) {
        const int64_t at = base + k * inner;
        St(gx, at, (Ld(g, at) - Ld(y, at) * s) * inv);
      }
    }
  });
}

}  // namespace

absl::Status L2NormalizationForward(const KernelContext& ctx) {
  const Tensor& x = ctx.inputs[0];
  SYMX_ASSIGN_OR_RETURN(Layout l, L2Layout(ctx, x.shape()));
  SYMX_RETURN_IF_ERROR(CheckSize(ctx, ctx.outputs[0], x.size(), "output"));
  SYMX_RETURN_IF_ERROR(CheckSize(ctx, ctx.outputs[1], l.columns(), "norm"));
  for (const Tensor& t : ctx.outputs) {
    if (t.dtype() != x.dtype()) return UnsupportedDType(ctx, t.dtype());
  }
  const double eps = ctx.param<L2NormalizationParam>().eps;
  SYMX_FLOAT_STORAGE_SWITCH(
      ctx, x.dtype(), T,
      L2Fwd<T>(ctx, l, x.data<T>(), ctx.outputs[0].data<T>(), ctx.outputs[1].data<T>(), eps));
  return absl::OkStatus();
}

absl::Status L2NormalizationBackward(const KernelContext& ctx) {
  const Tensor& gx = ctx.outputs[0];
  SYMX_ASSIGN_OR_RETURN(Layout l, L2Layout(ctx, gx.shape()));
  SYMX_RETURN_IF_ERROR(CheckSize(ctx, ctx.inputs[0], gx.size(), "ograd"));
  SYMX_RETURN_IF_ERROR(CheckSize(ctx, ctx.inputs[1], gx.size(), "output"));
  SYMX_RETURN_IF_ERROR(CheckSize(ctx, ctx.inputs[2], l.columns(), "norm"));
  for (const Tensor& t : ctx.inputs) {
    if (t.dtype() != gx.dtype()) return UnsupportedDType(ctx, t.dtype());
  }
  SYMX_FLOAT_STORAGE_SWITCH(ctx, gx.dtype(), T,
                            L2Bwd<T>(ctx, l, ctx.inputs[0].data<T>(), ctx.inputs[1].data<T>(),
                                     ctx.inputs[2].data<T>(), gx.data<T>()));
  return absl::OkStatus();
}

namespace {

// ------------------------------------------------------------------ InstanceNorm / GroupNorm

// Data (N, G, M); statistics and gamma/beta as described at the top.
struct GroupView {
  int64_t batch = 0, groups = 0, per_group = 0;
};

absl::StatusOr<GroupView> GroupViewOf(const KernelContext& ctx, const Shape& s, int64_t groups) {
  GroupView v;
  SYMX_ASSIGN_OR_RETURN(AxisLayout l, GroupNormLayout(ctx, s, groups, &v.groups));
  v.batch = s[0];
  v.per_group = l.n;
  return v;
}

// `store_std`: the second statistic is sqrt(var + eps) (GroupNorm), else var (InstanceNorm).
template <typename T>
void GroupNormFwd(const KernelContext& ctx, const GroupView& v, double eps, bool store_std,
                  const T* x, const T* gamma, const T* beta, T* y, T* mean, T* stat) {
  const int64_t G = v.groups, M = v.per_group;
  ParallelFor(ctx, v.batch * G, 6.0 * static_cast<double>(M), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t g = r % G, base = r * M;
      double m = 0;
      for (int64_t k = 0; k < M; ++k) m += Ld(x, base + k);
      m = M > 0 ? m / static_cast<double>(M) : 0;
      double var = 0;
      for (int64_t k = 0; k < M; ++k) {
        const double d = Ld(x, base + k) - m;
        var += d * d;
      }
      var = M > 0 ? var / static_cast<double>(M) : 0;
      const double sd = std::sqrt(var + eps);
      const double scale = Ld(gamma, g) / sd, shift = Ld(beta, g);
      for (int64_t k = 0; k < M; ++k) St(y, base + k, (Ld(x, base + k) - m) * scale + shift);
      St(mean, r, m);
      St(stat, r, store_std ? sd : var);
    }
  });
}

// Row r = (n, g): sums of dy and dy * xhat over its M elements.
template <typename T>
void RowSums(const T* dy, const T* x, int64_t base, int64_t M, double m, double inv, double* a,
             double* b) {
  *a = 0;
  *b = 0;
  for (int64_t k = 0; k < M; ++k) {
    const double d = Ld(dy, base + k);
    *a += d;
    *b += d * (Ld(x, base + k) - m) * inv;
  }
}

template <typename T>
void GroupNormBwd(const KernelContext& ctx, const GroupView& v, double eps, bool store_std,
                  const T* dy, const T* x, const T* gamma, const T* mean, const T* stat, T* dx,
                  T* dgamma, T* dbeta, bool want_dx, bool want_dgamma, bool want_dbeta) {
  const int64_t N = v.batch, G = v.groups, M = v.per_group;
  auto inv_std = [&](int64_t r) {
    const double sd = store_std ? Ld(stat, r) : std::sqrt(Ld(stat, r) + eps);
    return sd > 0 ? 1.0 / sd : 0.0;
  };
  // dx per row: gamma * inv * (dy - mean(dy) - xhat * mean(dy * xhat)).
  if (want_dx) {
    ParallelFor(ctx, N * G, 8.0 * static_cast<double>(M), [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const int64_t base = r * M;
        const double m = Ld(mean, r), inv = inv_std(r);
        double a, b;
        RowSums(dy, x, base, M, m, inv, &a, &b);
        const double gm = Ld(gamma, r % G);
        const double mdy = M > 0 ? a / static_cast<double>(M) : 0;
        const double mdyx = M > 0 ? b / static_cast<double>(M) : 0;
        for (int64_t k = 0; k < M; ++k) {
          const double xh = (Ld(x, base + k) - m) * inv;
          St(dx, base + k, gm * inv * (Ld(dy, base + k) - mdy - xh * mdyx));
        }
      }
    });
  }
  // gamma and beta per group, summed over the batch (a second pass keeps the kernel
  // free of scratch memory).
  if (!want_dgamma && !want_dbeta) return;
  ParallelFor(ctx, G, 4.0 * static_cast<double>(N * M) + 1, [&](int64_t g0, int64_t g1) {
    for (int64_t g = g0; g < g1; ++g) {
      double sa = 0, sb = 0;
      for (int64_t n = 0; n < N; ++n) {
        const int64_t r = n * G + g;
        double a, b;
        RowSums(dy, x, r * M, M, Ld(mean, r), inv_std(r), &a, &b);
        sa += a;
        sb += b;
      }
      if (want_dgamma) St(dgamma, g, sb);
      if (want_dbeta) St(dbeta, g, sa);
    }
  });
}

int64_t GroupsOf(const KernelContext& ctx, bool instance) {
  return instance ? -1 : ctx.param<GroupNormParam>().num_groups;
}
double EpsOf(const KernelContext& ctx, bool instance) {
  return instance ? ctx.param<InstanceNormParam>().eps : ctx.param<GroupNormParam>().eps;
}

// Inputs: data, gamma, beta. Outputs: out, mean, var (InstanceNorm) / std (GroupNorm).
template <bool kInstance>
absl::Status GroupedNormForward(const KernelContext& ctx) {
  const Tensor& x = ctx.inputs[0];
  SYMX_ASSIGN_OR_RETURN(GroupView v, GroupViewOf(ctx, x.shape(), GroupsOf(ctx, kInstance)));
  for (int i : {1, 2}) SYMX_RETURN_IF_ERROR(CheckSize(ctx, ctx.inputs[i], v.groups, "gamma/beta"));
  SYMX_RETURN_IF_ERROR(CheckSize(ctx, ctx.outputs[0], x.size(), "output"));
  for (int i : {1, 2}) {
    SYMX_RETURN_IF_ERROR(CheckSize(ctx, ctx.outputs[i], v.batch * v.groups, "statistics"));
  }
  for (const Tensor& t : ctx.inputs) {
    if (t.dtype() != x.dtype()) return UnsupportedDType(ctx, t.dtype());
  }
  for (const Tensor& t : ctx.outputs) {
    if (t.dtype() != x.dtype()) return UnsupportedDType(ctx, t.dtype());
  }
  const double eps = EpsOf(ctx, kInstance);
  SYMX_FLOAT_STORAGE_SWITCH(
      ctx, x.dtype(), T,
      GroupNormFwd<T>(ctx, v, eps, !kInstance, x.data<T>(), ctx.inputs[1].data<T>(),
                      ctx.inputs[2].data<T>(), ctx.outputs[0].data<T>(), ctx.outputs[1].data<T>(),
                      ctx.outputs[2].data<T>()));
  return absl::OkStatus();
}

// Inputs: ograd, data, gamma, mean, var/std. Outputs: grad data, gamma, beta.
template <bool kInstance>
absl::Status GroupedNormBackward(const KernelContext& ctx) {
  const Tensor& x = ctx.inputs[1];
  SYMX_ASSIGN_OR_RETURN(GroupView v, GroupViewOf(ctx, x.shape(), GroupsOf(ctx, kInstance)));
  SYMX_RETURN_IF_ERROR(CheckSize(ctx, ctx.inputs[0], x.size(), "ograd"));
  SYMX_RETURN_IF_ERROR(CheckSize(ctx, ctx.inputs[2], v.groups, "gamma"));
  for (int i : {3, 4}) {
    SYMX_RETURN_IF_ERROR(CheckSize(ctx, ctx.inputs[i], v.batch * v.groups, "statistics"));
  }
  SYMX_RETURN_IF_ERROR(CheckSize(ctx, ctx.outputs[0], x.size(), "data gradient"));
  for (int i : {1, 2}) SYMX_RETURN_IF_ERROR(CheckSize(ctx, ctx.outputs[i], v.groups, "gradient"));
  for (const Tensor& t : ctx.inputs) {
    if (t.dtype() != x.dtype()) return UnsupportedDType(ctx, t.dtype());
  }
  for (const Tensor& t : ctx.outputs) {
    if (t.dtype() != x.dtype()) return UnsupportedDType(ctx, t.dtype());
  }
  const double eps = EpsOf(ctx, kInstance);
  SYMX_FLOAT_STORAGE_SWITCH(
      ctx, x.dtype(), T,
      GroupNormBwd<T>(ctx, v, eps, !kInstance, ctx.inputs[0].data<T>(), x.data<T>(),
                      ctx.inputs[2].data<T>(), ctx.inputs[3].data<T>(), ctx.inputs[4].data<T>(),
                      ctx.outputs[0].data<T>(), ctx.outputs[1].data<T>(), ctx.outputs[2].data<T>(),
                      OutputWanted(ctx.req, 0), OutputWanted(ctx.req, 1),
                      OutputWanted(ctx.req, 2)));
  return absl::OkStatus();
}

}  // namespace

absl::Status InstanceNormForward(const KernelContext& ctx) { return GroupedNormForward<true>(ctx); }
absl::Status InstanceNormBackward(const KernelContext& ctx) {
  return GroupedNormBackward<true>(ctx);
}
absl::Status GroupNormForward(const KernelContext& ctx) { return GroupedNormForward<false>(ctx); }
absl::Status GroupNormBackward(const KernelContext& ctx) { return GroupedNormBackward<false>(ctx); }

}  // namespace cpu
}  // namespace symx
