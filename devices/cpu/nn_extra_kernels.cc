// CPU kernels for the extra neural-network ops (schemas in graph/ops/nn_extra.cc
// and graph/ops/crop.cc): SoftmaxActivation, softmin, L2Normalization,
// InstanceNorm, GroupNorm, Crop, _contrib_AdaptiveAvgPooling2D and
// _contrib_BilinearResize2D, with their backward ops (LRN: lrn_kernels.cc).
//
// Plain loops (these are legacy ops, kept cheap to compile): every reduction
// runs in double and elements are loaded and stored through ToDouble /
// FromDouble, so one template serves float32, float64 and float16.
//
// Layouts: the softmax-like and L2 ops view the data as (outer, n, inner) and
// reduce over n, one "column" (o, i) at a time:
//   SoftmaxActivation instance (N, rest, 1), channel (N, C, rest);
//   softmin (prod dims before axis, dim axis, prod dims after);
//   L2Normalization instance (N, rest, 1), channel (N, C, rest), spatial (N*C, rest, 1),
//   so its norm output is indexed by o * inner + i in every mode.
// InstanceNorm and GroupNorm view the data as (N, G, M) (G = C for InstanceNorm,
// num_groups for GroupNorm, M the elements of one group) with gamma/beta per g.
//
// In place: the forward ops that declare it (SoftmaxActivation, softmin without
// dtype, L2Normalization) read each input element of a column before writing
// the same position, so the output may alias the input.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "devices/axis_layout.h"
#include "devices/cpu/kernel_util.h"
#include "devices/dtype_switch.h"
#include "devices/resize_map.h"
#include "devices/strided_view.h"
#include "graph/error.h"
#include "graph/infer_util.h"
#include "graph/ops/crop.h"
#include "graph/ops/nn_extra.h"
#include "graph/ops/softmax.h"

namespace symx {
namespace cpu {
namespace {

template <typename T>
inline double Ld(const T* p, int64_t i) {
  return ToDouble(p[i]);
}
template <typename T>
inline void St(T* p, int64_t i, double v) {
  p[i] = FromDouble<T>(v);
}

using Layout = AxisLayout;

// Runs fn(c0, c1) over the columns [0, columns) in parallel.
template <typename Fn>
void ForColumns(const KernelContext& ctx, const Layout& l, double cost_per_elem, Fn&& fn) {
  if (l.size() == 0) return;
  ParallelFor(ctx, l.columns(), cost_per_elem * static_cast<double>(l.n), fn);
}

// ------------------------------------------------------------------ softmax family

// y = softmax(scale * x) over n.
template <typename TI, typename TO>
void SoftmaxFwd(const KernelContext& ctx, const Layout& l, const TI* x, TO* y, double scale) {
  const int64_t n = l.n, inner = l.inner;
  ForColumns(ctx, l, 30.0, [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) {
      const int64_t base = (c / inner) * n * inner + c % inner;
      double m = -std::numeric_limits<double>::infinity();
      for (int64_t k = 0; k < n; ++k) m = std::max(m, scale * Ld(x, base + k * inner));
      double sum = 0;
      for (int64_t k = 0; k < n; ++k) sum += std::exp(scale * Ld(x, base + k * inner) - m);
      const double inv = 1.0 / sum;
      for (int64_t k = 0; k < n; ++k) {
        const int64_t at = base + k * inner;
        St(y, at, std::exp(scale * Ld(x, at) - m) * inv);
      }
    }
  });
}

// gx = scale * y * (g - sum(g * y)) over n.
template <typename TI, typename TO>
void SoftmaxBwd(const KernelContext& ctx, const Layout& l, const TO* g, const TO* y, TI* gx,
                double scale) {
  const int64_t n = l.n, inner = l.inner;
  ForColumns(ctx, l, 6.0, [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) {
      const int64_t base = (c / inner) * n * inner + c % inner;
      double s = 0;
      for (int64_t k = 0; k < n; ++k) {
        const int64_t at = base + k * inner;
        s += Ld(g, at) * Ld(y, at);
      }
      for (int64_t k = 0; k < n; ++k) {
        const int64_t at = base + k * inner;
        St(gx, at, scale * Ld(y, at) * (Ld(g, at) - s));
      }
    }
  });
}

absl::Status SoftmaxActivationForward(const KernelContext& ctx) {
  const Tensor& x = ctx.inputs[0];
  const Tensor& y = ctx.outputs[0];
  SYMX_ASSIGN_OR_RETURN(Layout l, SoftmaxActivationLayout(ctx, x.shape()));
  SYMX_RETURN_IF_ERROR(CheckSize(ctx, y, x.size(), "output"));
  if (y.dtype() != x.dtype()) return UnsupportedDType(ctx, y.dtype());
  SYMX_FLOAT_STORAGE_SWITCH(ctx, x.dtype(), T, SoftmaxFwd<T, T>(ctx, l, x.data<T>(), y.data<T>(), 1.0));
  return absl::OkStatus();
}

absl::Status SoftmaxActivationBackward(const KernelContext& ctx) {
  const Tensor& g = ctx.inputs[0];
  const Tensor& y = ctx.inputs[1];
  const Tensor& gx = ctx.outputs[0];
  SYMX_ASSIGN_OR_RETURN(Layout l, SoftmaxActivationLayout(ctx, gx.shape()));
  SYMX_RETURN_IF_ERROR(CheckSize(ctx, g, gx.size(), "ograd"));
  SYMX_RETURN_IF_ERROR(CheckSize(ctx, y, gx.size(), "output"));
  if (g.dtype() != gx.dtype() || y.dtype() != gx.dtype()) return UnsupportedDType(ctx, g.dtype());
  SYMX_FLOAT_STORAGE_SWITCH(ctx, gx.dtype(), T,
                   SoftmaxBwd<T, T>(ctx, l, g.data<T>(), y.data<T>(), gx.data<T>(), 1.0));
  return absl::OkStatus();
}

// Runs fn(TI{}, TO{}) for the float dtype pairs (softmin's dtype may change the type).
template <typename Fn>
absl::Status FloatPair(const KernelContext& ctx, DType a, DType b, Fn&& fn) {
  auto second = [&](auto ta) -> absl::Status {
    SYMX_FLOAT_STORAGE_SWITCH(ctx, b, TO, fn(ta, TO{}));
    return absl::OkStatus();
  };
  SYMX_FLOAT_STORAGE_SWITCH(ctx, a, TI, return second(TI{}));
  return absl::OkStatus();
}

absl::Status SoftminForward(const KernelContext& ctx) {
  const auto& p = ctx.param<SoftmaxParam>();
  const Tensor& x = ctx.inputs[0];
  const Tensor& y = ctx.outputs[0];
  SYMX_RETURN_IF_ERROR(CheckSize(ctx, y, x.size(), "output"));
  SYMX_ASSIGN_OR_RETURN(Layout l, LayoutAlong(ctx, x.shape(), p.axis));
  const double scale = -1.0 / p.temperature.value_or(1.0);
  return FloatPair(ctx, x.dtype(), y.dtype(), [&](auto ti, auto to) {
    using TI = decltype(ti);
    using TO = decltype(to);
    SoftmaxFwd<TI, TO>(ctx, l, x.data<TI>(), y.data<TO>(), scale);
  });
}

absl::Status SoftminBackward(const KernelContext& ctx) {
  const auto& p = ctx.param<SoftmaxParam>();
  const Tensor& g = ctx.inputs[0];
  const Tensor& y = ctx.inputs[1];
  const Tensor& gx = ctx.outputs[0];
  SYMX_RETURN_IF_ERROR(CheckSize(ctx, g, gx.size(), "ograd"));
  SYMX_RETURN_IF_ERROR(CheckSize(ctx, y, gx.size(), "output"));
  if (g.dtype() != y.dtype()) return UnsupportedDType(ctx, g.dtype());
  SYMX_ASSIGN_OR_RETURN(Layout l, LayoutAlong(ctx, gx.shape(), p.axis));
  const double scale = -1.0 / p.temperature.value_or(1.0);
  return FloatPair(ctx, gx.dtype(), y.dtype(), [&](auto ti, auto to) {
    using TI = decltype(ti);
    using TO = decltype(to);
    SoftmaxBwd<TI, TO>(ctx, l, g.data<TO>(), y.data<TO>(), gx.data<TI>(), scale);
  });
}

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
  SYMX_FLOAT_STORAGE_SWITCH(ctx, x.dtype(), T,
                   GroupNormFwd<T>(ctx, v, eps, !kInstance, x.data<T>(), ctx.inputs[1].data<T>(),
                                   ctx.inputs[2].data<T>(), ctx.outputs[0].data<T>(),
                                   ctx.outputs[1].data<T>(), ctx.outputs[2].data<T>()));
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

// ------------------------------------------------------------------ Crop

// Copies the (h, w) window at (oy, ox) of `big` (N, C, H, W) to or from `small`
// (N, C, h, w), byte-wise, so every dtype works.
absl::Status CropCopy(const KernelContext& ctx, const Tensor& big, const Tensor& small,
                      bool to_small) {
  const Shape& B = big.shape();
  const Shape& S = small.shape();
  StridedView v;
  SYMX_RETURN_IF_ERROR(CropView(ctx, B, S, &v));
  if (big.dtype() != small.dtype()) return UnsupportedDType(ctx, small.dtype());
  const int64_t oy = v.offset / B[3], ox = v.offset % B[3];
  const size_t es = DTypeSize(big.dtype());
  char* bp = static_cast<char*>(big.raw_data());
  char* sp = static_cast<char*>(small.raw_data());
  const int64_t planes = S[0] * S[1], h = S[2], w = S[3], H = B[2], W = B[3];
  const size_t row = static_cast<size_t>(w) * es;
  if (row == 0) return absl::OkStatus();
  ParallelFor(ctx, planes * h, static_cast<double>(w), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t plane = r / h, y = r % h;
      char* b = bp + static_cast<size_t>((plane * H + oy + y) * W + ox) * es;
      char* s = sp + static_cast<size_t>(r * w) * es;
      if (to_small) {
        std::memcpy(s, b, row);
      } else {
        std::memcpy(b, s, row);
      }
    }
  });
  return absl::OkStatus();
}

absl::Status CropForward(const KernelContext& ctx) {
  return CropCopy(ctx, ctx.inputs[0], ctx.outputs[0], /*to_small=*/true);
}

// grad data: zeros with ograd in the window.
absl::Status CropBackward(const KernelContext& ctx) {
  const Tensor& gx = ctx.outputs[0];
  std::memset(gx.raw_data(), 0, gx.nbytes());
  return CropCopy(ctx, gx, ctx.inputs[0], /*to_small=*/false);
}

// ------------------------------------------------------------------ AdaptiveAvgPooling2D

absl::Status CheckPlanes(const KernelContext& ctx, const Tensor& in, const Tensor& out) {
  const Shape& a = in.shape();
  const Shape& b = out.shape();
  if (a.ndim() != 4 || b.ndim() != 4 || a[0] != b[0] || a[1] != b[1]) {
    return Fail(ctx, absl::StrCat("input ", in.DebugString(), " and output ", out.DebugString(),
                                  " must be 4-D with the same batch and channels"));
  }
  if (in.dtype() != out.dtype()) return UnsupportedDType(ctx, out.dtype());
  return absl::OkStatus();
}

// `forward`: big = data (input), small = output; else big = grad data, small = ograd.
template <typename T>
void AdaptivePool(const KernelContext& ctx, const Shape& big, const Shape& small, T* bp, T* sp,
                  bool forward) {
  const int64_t planes = big[0] * big[1], H = big[2], W = big[3], h = small[2], w = small[3];
  ParallelFor(ctx, planes, static_cast<double>(H * W + h * w) * 2.0, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      T* b = bp + p * H * W;
      T* s = sp + p * h * w;
      if (!forward) {
        for (int64_t k = 0; k < H * W; ++k) St(b, k, 0.0);
      }
      for (int64_t i = 0; i < h; ++i) {
        const int64_t y0 = BinBegin(i, H, h), y1 = BinEnd(i, H, h);
        for (int64_t j = 0; j < w; ++j) {
          const int64_t x0 = BinBegin(j, W, w), x1 = BinEnd(j, W, w);
          const double count = static_cast<double>((y1 - y0) * (x1 - x0));
          if (forward) {
            double sum = 0;
            for (int64_t y = y0; y < y1; ++y) {
              for (int64_t x = x0; x < x1; ++x) sum += Ld(b, y * W + x);
            }
            St(s, i * w + j, count > 0 ? sum / count : 0.0);
          } else {
            const double g = count > 0 ? Ld(s, i * w + j) / count : 0.0;
            for (int64_t y = y0; y < y1; ++y) {
              for (int64_t x = x0; x < x1; ++x) St(b, y * W + x, Ld(b, y * W + x) + g);
            }
          }
        }
      }
    }
  });
}

absl::Status AdaptiveAvgPoolForward(const KernelContext& ctx) {
  const Tensor& x = ctx.inputs[0];
  const Tensor& y = ctx.outputs[0];
  SYMX_RETURN_IF_ERROR(CheckPlanes(ctx, x, y));
  SYMX_FLOAT_STORAGE_SWITCH(ctx, x.dtype(), T,
                   AdaptivePool<T>(ctx, x.shape(), y.shape(), x.data<T>(), y.data<T>(), true));
  return absl::OkStatus();
}

absl::Status AdaptiveAvgPoolBackward(const KernelContext& ctx) {
  const Tensor& g = ctx.inputs[0];
  const Tensor& gx = ctx.outputs[0];
  SYMX_RETURN_IF_ERROR(CheckPlanes(ctx, gx, g));
  SYMX_FLOAT_STORAGE_SWITCH(ctx, gx.dtype(), T,
                   AdaptivePool<T>(ctx, gx.shape(), g.shape(), gx.data<T>(), g.data<T>(), false));
  return absl::OkStatus();
}

// ------------------------------------------------------------------ BilinearResize2D

template <typename T>
void Bilinear(const KernelContext& ctx, const Shape& big, const Shape& small, T* bp, T* sp,
              bool forward, bool align_corners) {
  const int64_t planes = big[0] * big[1], H = big[2], W = big[3], h = small[2], w = small[3];
  if (H == 0 || W == 0) return;
  ParallelFor(ctx, planes, static_cast<double>(h * w) * 12.0 + 1, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) {
      T* b = bp + p * H * W;
      T* s = sp + p * h * w;
      if (!forward) {
        for (int64_t k = 0; k < H * W; ++k) St(b, k, 0.0);
      }
      for (int64_t i = 0; i < h; ++i) {
        const ResizeTap a = TapAt(i, H, h, align_corners);
        for (int64_t j = 0; j < w; ++j) {
          const ResizeTap c = TapAt(j, W, w, align_corners);
          const int64_t k00 = a.i0 * W + c.i0, k01 = a.i0 * W + c.i1, k10 = a.i1 * W + c.i0,
                        k11 = a.i1 * W + c.i1;
          const double w00 = (1 - a.l) * (1 - c.l), w01 = (1 - a.l) * c.l, w10 = a.l * (1 - c.l),
                       w11 = a.l * c.l;
          if (forward) {
            St(s, i * w + j,
               w00 * Ld(b, k00) + w01 * Ld(b, k01) + w10 * Ld(b, k10) + w11 * Ld(b, k11));
          } else {
            const double g = Ld(s, i * w + j);
            St(b, k00, Ld(b, k00) + w00 * g);
            St(b, k01, Ld(b, k01) + w01 * g);
            St(b, k10, Ld(b, k10) + w10 * g);
            St(b, k11, Ld(b, k11) + w11 * g);
          }
        }
      }
    }
  });
}

absl::Status BilinearForward(const KernelContext& ctx) {
  const Tensor& x = ctx.inputs[0];
  const Tensor& y = ctx.outputs[0];
  SYMX_RETURN_IF_ERROR(CheckPlanes(ctx, x, y));
  const bool align = ctx.param<BilinearResize2DParam>().align_corners;
  if (x.shape()[2] == 0 || x.shape()[3] == 0) {  // nothing to sample: zeros
    std::memset(y.raw_data(), 0, y.nbytes());
    return absl::OkStatus();
  }
  SYMX_FLOAT_STORAGE_SWITCH(ctx, x.dtype(), T,
                   Bilinear<T>(ctx, x.shape(), y.shape(), x.data<T>(), y.data<T>(), true, align));
  return absl::OkStatus();
}

absl::Status BilinearBackward(const KernelContext& ctx) {
  const Tensor& g = ctx.inputs[0];
  const Tensor& gx = ctx.outputs[0];
  SYMX_RETURN_IF_ERROR(CheckPlanes(ctx, gx, g));
  const bool align = ctx.param<BilinearResize2DParam>().align_corners;
  if (gx.shape()[2] == 0 || gx.shape()[3] == 0) return absl::OkStatus();
  SYMX_FLOAT_STORAGE_SWITCH(
      ctx, gx.dtype(), T,
      Bilinear<T>(ctx, gx.shape(), g.shape(), gx.data<T>(), g.data<T>(), false, align));
  return absl::OkStatus();
}

SYMX_REGISTER_KERNEL("SoftmaxActivation", kCPU, SoftmaxActivationForward);
SYMX_REGISTER_KERNEL("_backward_SoftmaxActivation", kCPU, SoftmaxActivationBackward);
SYMX_REGISTER_KERNEL("softmin", kCPU, SoftminForward);
SYMX_REGISTER_KERNEL("_backward_softmin", kCPU, SoftminBackward);
SYMX_REGISTER_KERNEL("L2Normalization", kCPU, L2NormalizationForward);
SYMX_REGISTER_KERNEL("_backward_L2Normalization", kCPU, L2NormalizationBackward);
SYMX_REGISTER_KERNEL("InstanceNorm", kCPU, GroupedNormForward<true>);
SYMX_REGISTER_KERNEL("_backward_InstanceNorm", kCPU, GroupedNormBackward<true>);
SYMX_REGISTER_KERNEL("GroupNorm", kCPU, GroupedNormForward<false>);
SYMX_REGISTER_KERNEL("_backward_GroupNorm", kCPU, GroupedNormBackward<false>);
SYMX_REGISTER_KERNEL("Crop", kCPU, CropForward);
SYMX_REGISTER_KERNEL("_backward_Crop", kCPU, CropBackward);
SYMX_REGISTER_KERNEL("_contrib_AdaptiveAvgPooling2D", kCPU, AdaptiveAvgPoolForward);
SYMX_REGISTER_KERNEL("_backward_contrib_AdaptiveAvgPooling2D", kCPU, AdaptiveAvgPoolBackward);
SYMX_REGISTER_KERNEL("_contrib_BilinearResize2D", kCPU, BilinearForward);
SYMX_REGISTER_KERNEL("_backward_contrib_BilinearResize2D", kCPU, BilinearBackward);

}  // namespace
}  // namespace cpu
}  // namespace symx
