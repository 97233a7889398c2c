#include "devices/cpu/sync_batch_norm.h"

#include <cstdint>
#include <vector>

#include "devices/cpu/kernel_util.h"
#include "devices/geometry/sync_batch_norm.h"
#include "graph/ops/norm.h"

namespace symx {
namespace cpu {
namespace {

// Channel c's elements of the view: fn(index) for each, in row order.
template <typename Fn>
inline void ForChannel(const SyncBatchNormView& v, int64_t c, Fn&& fn) {
  for (int64_t o = 0; o < v.outer; ++o) {
    const int64_t base = (o * v.channels + c) * v.inner;
    for (int64_t i = 0; i < v.inner; ++i) fn(base + i);
  }
}

// Per channel, in double: the sum of f(index).
template <typename Fn>
std::vector<double> ChannelSums(const KernelContext& ctx, const SyncBatchNormView& v, Fn&& f) {
  std::vector<double> sums(v.channels, 0.0);
  ParallelFor(ctx, v.channels, 2.0 * static_cast<double>(v.count()) + 1,
              [&](int64_t c0, int64_t c1) {
                for (int64_t c = c0; c < c1; ++c) {
                  double s = 0;
                  ForChannel(v, c, [&](int64_t at) { s += f(c, at); });
                  sums[c] = s;
                }
              });
  return sums;
}

template <typename T>
absl::Status ForwardT(const KernelContext& ctx) {
  const auto& p = ctx.param<SyncBatchNormParam>();
  SYMX_ASSIGN_OR_RETURN(SyncBatchNormView v, SyncBatchNormViewOf(ctx, 0, 1, 5));
  const T* x = ctx.inputs[0].data<T>();
  const T* gamma = ctx.inputs[1].data<T>();
  const T* beta = ctx.inputs[2].data<T>();
  T* moving_mean = ctx.inputs[3].data<T>();
  T* moving_var = ctx.inputs[4].data<T>();
  T* y = ctx.outputs[0].data<T>();
  T* mean_out = ctx.outputs[1].data<T>();
  T* var_out = ctx.outputs[2].data<T>();
  double count = static_cast<double>(v.count());
  const std::vector<double> sums =
      ChannelSums(ctx, v, [&](int64_t, int64_t at) { return static_cast<double>(x[at]); });
  SYMX_ASSIGN_OR_RETURN(std::vector<double> mean, JobMean(ctx, sums, &count));
  const std::vector<double> squares = ChannelSums(ctx, v, [&](int64_t c, int64_t at) {
    const double d = static_cast<double>(x[at]) - mean[c];
    return d * d;
  });
  SYMX_ASSIGN_OR_RETURN(std::vector<double> var, JobVariance(ctx, squares, count));
  const T momentum = static_cast<T>(p.momentum);
  ParallelFor(ctx, v.channels, 2.0 * static_cast<double>(v.count()) + 1,
              [&](int64_t c0, int64_t c1) {
                for (int64_t c = c0; c < c1; ++c) {
                  const T m = static_cast<T>(mean[c]), s2 = static_cast<T>(var[c]);
                  const T scale = static_cast<T>((p.fix_gamma ? 1.0 : double(gamma[c])) *
                                                 SyncInvStd(double(s2), p.eps));
                  const T shift = beta[c] - m * scale;
                  ForChannel(v, c, [&](int64_t at) { y[at] = x[at] * scale + shift; });
                  mean_out[c] = m;
                  var_out[c] = s2;
                  if (count > 0) {
                    moving_mean[c] = moving_mean[c] * momentum + m * (T(1) - momentum);
                    moving_var[c] = moving_var[c] * momentum + s2 * (T(1) - momentum);
                  }
                }
              });
  return absl::OkStatus();
}

template <typename T>
absl::Status BackwardT(const KernelContext& ctx) {
  const auto& p = ctx.param<SyncBatchNormParam>();
  SYMX_ASSIGN_OR_RETURN(SyncBatchNormView v, SyncBatchNormViewOf(ctx, 1, 2, 6));
  const T* dy = ctx.inputs[0].data<T>();
  const T* x = ctx.inputs[1].data<T>();
  const T* gamma = ctx.inputs[2].data<T>();
  const T* mean = ctx.inputs[4].data<T>();
  const T* var = ctx.inputs[5].data<T>();
  // This replica's sum dy and sum dy (x - mean) per channel, one vector.
  const std::vector<double> sum_dy =
      ChannelSums(ctx, v, [&](int64_t, int64_t at) { return static_cast<double>(dy[at]); });
  const std::vector<double> sum_dy_xc = ChannelSums(ctx, v, [&](int64_t c, int64_t at) {
    return static_cast<double>(dy[at]) * (static_cast<double>(x[at]) - double(mean[c]));
  });
  std::vector<double> local = sum_dy;
  local.insert(local.end(), sum_dy_xc.begin(), sum_dy_xc.end());
  double count = static_cast<double>(v.count());
  SYMX_ASSIGN_OR_RETURN(std::vector<double> job, JobGradientSums(ctx, local, &count));
  if (OutputWanted(ctx.req, 1)) {
    T* dgamma = ctx.outputs[1].data<T>();
    for (int64_t c = 0; c < v.channels; ++c) {
      dgamma[c] = p.fix_gamma ? T(0) : static_cast<T>(sum_dy_xc[c] * SyncInvStd(var[c], p.eps));
    }
  }
  if (OutputWanted(ctx.req, 2)) {
    T* dbeta = ctx.outputs[2].data<T>();
    for (int64_t c = 0; c < v.channels; ++c) dbeta[c] = static_cast<T>(sum_dy[c]);
  }
  if (!OutputWanted(ctx.req, 0)) return absl::OkStatus();
  T* dx = ctx.outputs[0].data<T>();
  ParallelFor(
      ctx, v.channels, 4.0 * static_cast<double>(v.count()) + 1, [&](int64_t c0, int64_t c1) {
        for (int64_t c = c0; c < c1; ++c) {
          const SyncDataGradient g = SyncDataGradientOf(double(gamma[c]), p.fix_gamma, var[c],
                                                        p.eps, job[c], job[v.channels + c], count);
          const double m = mean[c];
          ForChannel(v, c, [&](int64_t at) {
            dx[at] = static_cast<T>((double(dy[at]) - g.mean_dy - (double(x[at]) - m) * g.slope) *
                                    g.scale);
          });
        }
      });
  return absl::OkStatus();
}

}  // namespace

absl::Status SyncBatchNormForwardOverReplicas(const KernelContext& ctx) {
  SYMX_FLOAT_SWITCH(ctx, ctx.inputs[0].dtype(), T, return ForwardT<T>(ctx));
}

absl::Status SyncBatchNormBackwardOverReplicas(const KernelContext& ctx) {
  SYMX_FLOAT_SWITCH(ctx, ctx.inputs[1].dtype(), T, return BackwardT<T>(ctx));
}

}  // namespace cpu
}  // namespace symx
