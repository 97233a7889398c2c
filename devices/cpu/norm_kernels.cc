// CPU kernels of the norm family (graph/ops/norm.cc): BatchNorm (and BatchNorm_v1,
// _contrib_SyncBatchNorm, _contrib_BatchNormWithReLU), LayerNorm,
// L2Normalization, InstanceNorm and GroupNorm, with their backward ops.
//
// CPU kernels for BatchNorm and LayerNorm, forward and backward.
//
// Both view the data as (outer, axis, inner), the axis being BatchNorm's channel
// axis or LayerNorm's normalized axis; statistics are computed in two passes
// (mean, then the mean squared deviation) in the data's precision.
//
// BatchNorm (MXNet semantics):
// - Training (is_train and not use_global_stats): batch mean and biased variance
//   per channel; moving_mean/moving_var (aux inputs 3 and 4) become
//   moving * momentum + batch * (1 - momentum) in place. Otherwise the moving
//   statistics normalize and nothing is updated.
// - fix_gamma: gamma is taken as 1 (the input is not modified) and its gradient is 0.
// - Outputs 1 and 2 (visible with output_mean_var) hold the mean and the
//   *variance* used to normalize (the batch's in training, the moving ones
//   otherwise), as the op documents. (MXNet's own CPU kernel stores the inverse
//   standard deviation in the second one; the backward here reads the variance.)
// - Backward uses the batch-statistics gradient when is_train and not
//   use_global_stats (the executor runs backward with is_train), else the
//   statistics are constants.
//
// LayerNorm: outputs mean and std = sqrt(var + eps), with the data's shape and the
// axis reduced to 1, as in MXNet; the backward reads them.
//
// L2Normalization, InstanceNorm and GroupNorm are plain loops in
// devices/cpu/column_norms.cc, registered here; SyncBatchNorm's steps over a
// job's replicas are devices/cpu/sync_batch_norm.cc.
// In place: the forward ops that declare it (SoftmaxActivation, softmin without
// dtype, L2Normalization) read each input element of a column before writing
// the same position, so the output may alias the input.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "devices/cpu/column_norms.h"
#include "devices/cpu/kernel_util.h"
#include "devices/cpu/sync_batch_norm.h"
#include "devices/geometry/sync_batch_norm.h"
#ifdef SYMX_WITH_ONEDNN
#include "devices/cpu/onednn.h"
#include "devices/cpu/onednn_bnorm.h"
#endif
#include "devices/cpu/column_loops.h"
#include "devices/dtype_switch.h"
#include "devices/geometry/axis_layout.h"
#include "devices/geometry/resize_map.h"
#include "devices/geometry/strided_view.h"
#include "graph/error.h"
#include "graph/infer_util.h"
#include "graph/ops/norm.h"

namespace symx {
namespace cpu {
namespace {

// The data as (outer, axis, inner).
struct AxisView {
  int64_t outer = 1, axis = 1, inner = 1;
};

absl::Status MakeAxisView(const KernelContext& ctx, const Shape& s, int64_t axis_param, AxisView* v,
                          int* axis_out = nullptr) {
  const int nd = s.ndim();
  int64_t axis = axis_param < 0 ? axis_param + nd : axis_param;
  if (nd < 1 || axis < 0 || axis >= nd) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": axis ", axis_param,
                                                   " is out of range for data ", s.ToString()));
  }
  v->outer = v->inner = 1;
  for (int d = 0; d < axis; ++d) v->outer *= s[d];
  v->axis = s[static_cast<int>(axis)];
  for (int d = static_cast<int>(axis) + 1; d < nd; ++d) v->inner *= s[d];
  if (axis_out != nullptr) *axis_out = static_cast<int>(axis);
  return absl::OkStatus();
}

template <typename T>
inline T InvStd(T var, double eps) {
  const T denom = var + static_cast<T>(eps);
  return denom > 0 ? T(1) / std::sqrt(denom) : T(0);
}

// ---------------------------------------------------------------- BatchNorm

// Inputs [first, last) (gamma, beta, statistics) hold `channels` values each,
// of input `same_dtype_as`'s dtype unless it is -1.
absl::Status CheckChannelInputs(const KernelContext& ctx, int first, int last, int64_t channels,
                                int same_dtype_as = -1) {
  for (int i = first; i < last; ++i) {
    const bool dtype_ok =
        same_dtype_as < 0 || ctx.inputs[i].dtype() == ctx.inputs[same_dtype_as].dtype();
    if (ctx.inputs[i].size() != channels || !dtype_ok) {
      return absl::InvalidArgumentError(absl::StrCat(
          ctx.Where(), ": input ", i, " is ", ctx.inputs[i].DebugString(), ", expected ", channels,
          same_dtype_as < 0 ? " values" : " values of the data's dtype"));
    }
  }
  return absl::OkStatus();
}

// Channel c's elements: `outer` contiguous runs of `inner` values, one per outer index.
template <typename T, typename Fn>
inline void ForChannelRuns(const AxisView& v, int64_t c, Fn&& fn) {
  for (int64_t o = 0; o < v.outer; ++o) fn((o * v.axis + c) * v.inner);
}

// Inputs: data, gamma, beta, moving_mean, moving_var. Outputs: out, mean, var.
template <typename T>
absl::Status BatchNormForwardT(const KernelContext& ctx) {
  const auto& p = ctx.param<BatchNormParam>();
  AxisView v;
  SYMX_RETURN_IF_ERROR(MakeAxisView(ctx, ctx.inputs[0].shape(), p.axis, &v));
  SYMX_RETURN_IF_ERROR(CheckChannelInputs(ctx, 1, 5, v.axis, /*same_dtype_as=*/0));
  const T* x = ctx.inputs[0].data<T>();
  const T* gamma = ctx.inputs[1].data<T>();
  const T* beta = ctx.inputs[2].data<T>();
  T* moving_mean = ctx.inputs[3].data<T>();
  T* moving_var = ctx.inputs[4].data<T>();
  T* y = ctx.outputs[0].data<T>();
  T* mean = ctx.outputs[1].data<T>();
  T* var = ctx.outputs[2].data<T>();
  const bool batch_stats = ctx.is_train && !p.use_global_stats;
  const int64_t count = v.outer * v.inner;
  const T momentum = static_cast<T>(p.momentum);

  auto channels = [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) {
      T m, s2;
      if (batch_stats) {
        T sum = 0;
        ForChannelRuns<T>(v, c,
                          [&](int64_t at) { sum += ConstArrayMap<T>(x + at, v.inner).sum(); });
        m = count > 0 ? sum / static_cast<T>(count) : T(0);
        T sq = 0;
        ForChannelRuns<T>(v, c, [&](int64_t at) {
          sq += (ConstArrayMap<T>(x + at, v.inner) - m).square().sum();
        });
        s2 = count > 0 ? sq / static_cast<T>(count) : T(0);
      } else {
        m = moving_mean[c];
        s2 = moving_var[c];
      }
      const T scale = (p.fix_gamma ? T(1) : gamma[c]) * InvStd(s2, p.eps);
      const T shift = beta[c] - m * scale;
      ForChannelRuns<T>(v, c, [&](int64_t at) {
        ArrayMap<T>(y + at, v.inner) = ConstArrayMap<T>(x + at, v.inner) * scale + shift;
      });
      // Written after the moving statistics were read: they may share memory in odd graphs.
      mean[c] = m;
      var[c] = s2;
      if (batch_stats && count > 0) {
        moving_mean[c] = moving_mean[c] * momentum + m * (T(1) - momentum);
        moving_var[c] = moving_var[c] * momentum + s2 * (T(1) - momentum);
      }
    }
  };
  ParallelFor(ctx, v.axis, 4.0 * static_cast<double>(count) + 1, channels);
  return absl::OkStatus();
}

// Channels-last data (devices/kernel.h, axis 1 only) is `rows` rows of the
// channels. Per-channel sums over the rows go by fixed blocks of rows (the
// same partition whatever the thread count, so the same bits), each block's
// partial sums a row of a scratch table, then the blocks summed in order.
constexpr int64_t kRowBlock = 64;

template <typename T>
using ClRows = Eigen::Array<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <typename T>
using ClRow = Eigen::Array<T, 1, Eigen::Dynamic>;

// sums (k rows of c): for every row r, add_row(r, block_sums) adds row r's
// terms to the k accumulators of its block.
template <typename T, typename AddRow>
void ChannelSums(const KernelContext& ctx, int64_t rows, int64_t c, int k, AddRow&& add_row,
                 Eigen::Map<ClRows<T>> sums) {
  const int64_t blocks = (rows + kRowBlock - 1) / kRowBlock;
  thread_local std::vector<T> scratch;
  scratch.assign(static_cast<size_t>(blocks * k * c), T(0));
  T* partial = scratch.data();
  ParallelFor(ctx, blocks, static_cast<double>(kRowBlock * c * k) * 2 + 1,
              [&](int64_t b0, int64_t b1) {
                for (int64_t b = b0; b < b1; ++b) {
                  Eigen::Map<ClRows<T>> acc(partial + b * k * c, k, c);
                  const int64_t end = std::min(rows, (b + 1) * kRowBlock);
                  for (int64_t r = b * kRowBlock; r < end; ++r) add_row(r, acc);
                }
              });
  sums.setZero();
  for (int64_t b = 0; b < blocks; ++b) sums += Eigen::Map<ClRows<T>>(partial + b * k * c, k, c);
}

// Same statistics and update as BatchNormForwardT.
template <typename T>
absl::Status BatchNormChannelsLastT(const KernelContext& ctx) {
  const auto& p = ctx.param<BatchNormParam>();
  const Shape& shape = ctx.inputs[0].shape();
  const int64_t c = shape[1], rows = shape.Size() / std::max<int64_t>(c, 1);
  SYMX_RETURN_IF_ERROR(CheckChannelInputs(ctx, 1, 5, c, /*same_dtype_as=*/0));
  Eigen::Map<const ClRows<T>> x(ctx.inputs[0].data<T>(), rows, c);
  Eigen::Map<const ClRow<T>> gamma(ctx.inputs[1].data<T>(), c), beta(ctx.inputs[2].data<T>(), c);
  Eigen::Map<ClRow<T>> moving_mean(ctx.inputs[3].data<T>(), c),
      moving_var(ctx.inputs[4].data<T>(), c);
  Eigen::Map<ClRow<T>> mean(ctx.outputs[1].data<T>(), c), var(ctx.outputs[2].data<T>(), c);
  const bool batch_stats = ctx.is_train && !p.use_global_stats;
  ClRow<T> m(c), s2(c);
  if (batch_stats && rows > 0) {
    ChannelSums<T>(
        ctx, rows, c, 1, [&](int64_t r, Eigen::Map<ClRows<T>>& acc) { acc.row(0) += x.row(r); },
        Eigen::Map<ClRows<T>>(m.data(), 1, c));
    m /= static_cast<T>(rows);
    ChannelSums<T>(
        ctx, rows, c, 1,
        [&](int64_t r, Eigen::Map<ClRows<T>>& acc) { acc.row(0) += (x.row(r) - m).square(); },
        Eigen::Map<ClRows<T>>(s2.data(), 1, c));
    s2 /= static_cast<T>(rows);
  } else if (batch_stats) {
    m.setZero();
    s2.setZero();
  } else {
    m = moving_mean;
    s2 = moving_var;
  }
  ClRow<T> scale(c), shift(c);
  for (int64_t ch = 0; ch < c; ++ch) {
    scale[ch] = (p.fix_gamma ? T(1) : gamma[ch]) * InvStd(s2[ch], p.eps);
    shift[ch] = beta[ch] - m[ch] * scale[ch];
  }
  T* y = ctx.outputs[0].data<T>();
  ParallelFor(ctx, rows, 2.0 * static_cast<double>(c) + 1, [&](int64_t r0, int64_t r1) {
    Eigen::Map<ClRows<T>> out(y + r0 * c, r1 - r0, c);
    out = (x.middleRows(r0, r1 - r0).rowwise() * scale).rowwise() + shift;
  });
  mean = m;
  var = s2;
  if (batch_stats && rows > 0) {
    const T momentum = static_cast<T>(p.momentum);
    moving_mean = moving_mean * momentum + m * (T(1) - momentum);
    moving_var = moving_var * momentum + s2 * (T(1) - momentum);
  }
  return absl::OkStatus();
}

absl::Status BatchNormForward(const KernelContext& ctx) {
#ifdef SYMX_WITH_ONEDNN
  if (ctx.state != nullptr) return RunOnednnStep(ctx);
#endif
  if (ctx.InputChannelsLast(0)) {
    SYMX_FLOAT_SWITCH(ctx, ctx.inputs[0].dtype(), T, return BatchNormChannelsLastT<T>(ctx));
  }
  SYMX_FLOAT_SWITCH(ctx, ctx.inputs[0].dtype(), T, return BatchNormForwardT<T>(ctx));
}

// Axis 1 of data with at least one spatial dim: data and output may be
// channels-last, together.
void BatchNormChannelsLast(const NodeAttrs& attrs, const std::vector<Shape>& in,
                           const std::vector<Shape>& out, DType dtype,
                           const EngineOptions& /*options*/, std::vector<bool>* in_cl,
                           std::vector<bool>* out_cl) {
  if (in.empty() || in[0].ndim() < 3) return;
  const int64_t axis = Param<BatchNormParam>(attrs).axis;
  if (axis != 1 && axis != 1 - in[0].ndim()) return;
  if (dtype != DType::kFloat32 && dtype != DType::kFloat64) return;
  (*in_cl)[0] = (*out_cl)[0] = true;
}

// Inputs: ograd, data, gamma, beta, mean, var, moving_mean, moving_var.
// Outputs: grad data, grad gamma, grad beta.
template <typename T>
absl::Status BatchNormBackwardT(const KernelContext& ctx) {
  const auto& p = ctx.param<BatchNormParam>();
  AxisView v;
  SYMX_RETURN_IF_ERROR(MakeAxisView(ctx, ctx.inputs[1].shape(), p.axis, &v));
  SYMX_RETURN_IF_ERROR(CheckChannelInputs(ctx, 2, 6, v.axis));
  const T* dy = ctx.inputs[0].data<T>();
  const T* x = ctx.inputs[1].data<T>();
  const T* gamma = ctx.inputs[2].data<T>();
  const T* mean = ctx.inputs[4].data<T>();
  const T* var = ctx.inputs[5].data<T>();
  const bool want_dx = OutputWanted(ctx.req, 0), want_dgamma = OutputWanted(ctx.req, 1),
             want_dbeta = OutputWanted(ctx.req, 2);
  T* dx = ctx.outputs[0].data<T>();
  T* dgamma = ctx.outputs[1].data<T>();
  T* dbeta = ctx.outputs[2].data<T>();
  const bool batch_stats = ctx.is_train && !p.use_global_stats;
  const int64_t count = v.outer * v.inner;

  auto channels = [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) {
      const T m = mean[c];
      const T inv = InvStd(var[c], p.eps);
      const T g = p.fix_gamma ? T(1) : gamma[c];
      T sum_dy = 0, sum_dy_xc = 0;  // sum(dy), sum(dy * (x - mean))
      ForChannelRuns<T>(v, c, [&](int64_t at) {
        ConstArrayMap<T> d(dy + at, v.inner);
        sum_dy += d.sum();
        sum_dy_xc += (d * (ConstArrayMap<T>(x + at, v.inner) - m)).sum();
      });
      if (want_dgamma) dgamma[c] = p.fix_gamma ? T(0) : sum_dy_xc * inv;
      if (want_dbeta) dbeta[c] = sum_dy;
      if (!want_dx) continue;
      if (batch_stats && count > 0) {
        // dx = g * inv * (dy - mean(dy) - (x - mean) * inv^2 * mean(dy * (x - mean))).
        const T mean_dy = sum_dy / static_cast<T>(count);
        const T k = inv * inv * sum_dy_xc / static_cast<T>(count);
        const T gi = g * inv;
        ForChannelRuns<T>(v, c, [&](int64_t at) {
          ArrayMap<T>(dx + at, v.inner) = (ConstArrayMap<T>(dy + at, v.inner) - mean_dy -
                                           (ConstArrayMap<T>(x + at, v.inner) - m) * k) *
                                          gi;
        });
      } else {
        const T gi = g * inv;
        ForChannelRuns<T>(v, c, [&](int64_t at) {
          ArrayMap<T>(dx + at, v.inner) = ConstArrayMap<T>(dy + at, v.inner) * gi;
        });
      }
    }
  };
  ParallelFor(ctx, v.axis, 6.0 * static_cast<double>(count) + 1, channels);
  return absl::OkStatus();
}

// Channels-last ograd, data and data gradient: the same gradients as
// BatchNormBackwardT.
template <typename T>
absl::Status BatchNormBackwardChannelsLastT(const KernelContext& ctx) {
  const auto& p = ctx.param<BatchNormParam>();
  const Shape& shape = ctx.inputs[1].shape();
  const int64_t c = shape[1], rows = shape.Size() / std::max<int64_t>(c, 1);
  SYMX_RETURN_IF_ERROR(CheckChannelInputs(ctx, 2, 6, c));
  Eigen::Map<const ClRows<T>> dy(ctx.inputs[0].data<T>(), rows, c),
      x(ctx.inputs[1].data<T>(), rows, c);
  Eigen::Map<const ClRow<T>> gamma(ctx.inputs[2].data<T>(), c), m(ctx.inputs[4].data<T>(), c),
      var(ctx.inputs[5].data<T>(), c);
  const bool want_dx = OutputWanted(ctx.req, 0), want_dgamma = OutputWanted(ctx.req, 1),
             want_dbeta = OutputWanted(ctx.req, 2);
  const bool batch_stats = ctx.is_train && !p.use_global_stats;
  ClRow<T> inv(c), g(c);
  for (int64_t ch = 0; ch < c; ++ch) {
    inv[ch] = InvStd(var[ch], p.eps);
    g[ch] = p.fix_gamma ? T(1) : gamma[ch];
  }
  // Row 0: sum(dy); row 1: sum(dy * (x - mean)).
  ClRows<T> sums(2, c);
  if (rows > 0) {
    ChannelSums<T>(
        ctx, rows, c, 2,
        [&](int64_t r, Eigen::Map<ClRows<T>>& acc) {
          acc.row(0) += dy.row(r);
          acc.row(1) += dy.row(r) * (x.row(r) - m);
        },
        Eigen::Map<ClRows<T>>(sums.data(), 2, c));
  } else {
    sums.setZero();
  }
  if (want_dgamma) {
    Eigen::Map<ClRow<T>> dgamma(ctx.outputs[1].data<T>(), c);
    if (p.fix_gamma) {
      dgamma.setZero();
    } else {
      dgamma = sums.row(1) * inv;
    }
  }
  if (want_dbeta) Eigen::Map<ClRow<T>>(ctx.outputs[2].data<T>(), c) = sums.row(0);
  if (!want_dx) return absl::OkStatus();
  T* dx = ctx.outputs[0].data<T>();
  const ClRow<T> gi = g * inv;
  if (batch_stats && rows > 0) {
    // dx = g * inv * (dy - mean(dy) - (x - mean) * inv^2 * mean(dy * (x - mean))).
    const ClRow<T> mean_dy = sums.row(0) / static_cast<T>(rows);
    const ClRow<T> k = inv * inv * sums.row(1) / static_cast<T>(rows);
    ParallelFor(ctx, rows, 5.0 * static_cast<double>(c) + 1, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        Eigen::Map<ClRow<T>>(dx + r * c, c) = (dy.row(r) - mean_dy - (x.row(r) - m) * k) * gi;
      }
    });
  } else {
    ParallelFor(ctx, rows, static_cast<double>(c) + 1, [&](int64_t r0, int64_t r1) {
      Eigen::Map<ClRows<T>>(dx + r0 * c, r1 - r0, c) = dy.middleRows(r0, r1 - r0).rowwise() * gi;
    });
  }
  return absl::OkStatus();
}

absl::Status BatchNormBackward(const KernelContext& ctx) {
#ifdef SYMX_WITH_ONEDNN
  if (ctx.state != nullptr) return RunOnednnStep(ctx);
#endif
  if (ctx.InputChannelsLast(1)) {
    SYMX_FLOAT_SWITCH(ctx, ctx.inputs[1].dtype(), T, return BatchNormBackwardChannelsLastT<T>(ctx));
  }
  SYMX_FLOAT_SWITCH(ctx, ctx.inputs[1].dtype(), T, return BatchNormBackwardT<T>(ctx));
}

// _backward_BatchNorm's ograd, data and data gradient, when BatchNorm's data
// may be channels-last; all or none (tied).
void BatchNormBackwardChannelsLast(const NodeAttrs& attrs, const std::vector<Shape>& in,
                                   const std::vector<Shape>& out, DType dtype,
                                   const EngineOptions& options, std::vector<bool>* in_cl,
                                   std::vector<bool>* out_cl) {
  if (in.size() < 2 || out.empty()) return;
  std::vector<bool> fwd_in(1, false), fwd_out(1, false);
  BatchNormChannelsLast(attrs, {in[1]}, {out[0]}, dtype, options, &fwd_in, &fwd_out);
  if (!fwd_in[0]) return;
  (*in_cl)[0] = (*in_cl)[1] = (*out_cl)[0] = true;
}

// ---------------------------------------------------------------- LayerNorm

// Rows of the (outer, axis, inner) view: `axis` values with stride `inner`
// (contiguous maps when inner == 1, so that Eigen vectorizes them).
template <typename T, bool kContiguous>
struct Rows {
  using In = std::conditional_t<kContiguous, ConstArrayMap<T>,
                                Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>,
                                           Eigen::Unaligned, Eigen::InnerStride<Eigen::Dynamic>>>;
  using Out = std::conditional_t<kContiguous, ArrayMap<T>,
                                 Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>, Eigen::Unaligned,
                                            Eigen::InnerStride<Eigen::Dynamic>>>;
  static In Read(const T* p, int64_t n, int64_t stride) {
    if constexpr (kContiguous) {
      return In(p, n);
    } else {
      return In(p, n, Eigen::InnerStride<Eigen::Dynamic>(stride));
    }
  }
  static Out Write(T* p, int64_t n, int64_t stride) {
    if constexpr (kContiguous) {
      return Out(p, n);
    } else {
      return Out(p, n, Eigen::InnerStride<Eigen::Dynamic>(stride));
    }
  }
};

// Start of row r = (o, i).
inline int64_t RowStart(const AxisView& v, int64_t r) {
  return (r / v.inner) * v.axis * v.inner + r % v.inner;
}

template <typename T, bool kContiguous>
void LayerNormRows(const KernelContext& ctx, const AxisView& v, double eps, const T* x,
                   const T* gamma_ptr, const T* beta_ptr, T* y, T* mean, T* stdev) {
  using R = Rows<T, kContiguous>;
  ConstArrayMap<T> gamma(gamma_ptr, v.axis), beta(beta_ptr, v.axis);
  const T n = static_cast<T>(v.axis);
  ParallelFor(ctx, v.outer * v.inner, 5.0 * static_cast<double>(v.axis) + 1,
              [&](int64_t r0, int64_t r1) {
                for (int64_t r = r0; r < r1; ++r) {
                  const int64_t at = RowStart(v, r);
                  auto xr = R::Read(x + at, v.axis, v.inner);
                  const T m = v.axis > 0 ? xr.sum() / n : T(0);
                  const T var = v.axis > 0 ? (xr - m).square().sum() / n : T(0);
                  const T s = std::sqrt(var + static_cast<T>(eps));
                  R::Write(y + at, v.axis, v.inner) = (xr - m) / s * gamma + beta;
                  mean[r] = m;
                  stdev[r] = s;
                }
              });
}

// Inputs: data, gamma, beta. Outputs: out, mean, std.
template <typename T>
absl::Status LayerNormForwardT(const KernelContext& ctx) {
  const auto& p = ctx.param<LayerNormParam>();
  AxisView v;
  SYMX_RETURN_IF_ERROR(MakeAxisView(ctx, ctx.inputs[0].shape(), p.axis, &v));
  const int64_t rows = v.outer * v.inner;
  if (ctx.inputs[1].size() != v.axis || ctx.inputs[2].size() != v.axis ||
      ctx.outputs[1].size() != rows || ctx.outputs[2].size() != rows) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": gamma/beta/mean/std sizes do ",
                                                   "not match data ",
                                                   ctx.inputs[0].shape().ToString()));
  }
  auto run = [&](auto contiguous) {
    LayerNormRows<T, decltype(contiguous)::value>(
        ctx, v, p.eps, ctx.inputs[0].data<T>(), ctx.inputs[1].data<T>(), ctx.inputs[2].data<T>(),
        ctx.outputs[0].data<T>(), ctx.outputs[1].data<T>(), ctx.outputs[2].data<T>());
  };
  if (v.inner == 1) {
    run(std::true_type());
  } else {
    run(std::false_type());
  }
  return absl::OkStatus();
}

absl::Status LayerNormForward(const KernelContext& ctx) {
  SYMX_FLOAT_SWITCH(ctx, ctx.inputs[0].dtype(), T, return LayerNormForwardT<T>(ctx));
}

template <typename T, bool kContiguous>
void LayerNormBackwardRows(const KernelContext& ctx, const AxisView& v, const T* dy, const T* x,
                           const T* gamma_ptr, const T* mean, const T* stdev, T* dx, T* dgamma,
                           T* dbeta) {
  using R = Rows<T, kContiguous>;
  ConstArrayMap<T> gamma(gamma_ptr, v.axis);
  const T n = static_cast<T>(v.axis);
  if (dx != nullptr) {
    // dx = (g - mean(g) - xhat * mean(g * xhat)) / std with g = dy * gamma.
    ParallelFor(ctx, v.outer * v.inner, 8.0 * static_cast<double>(v.axis) + 1,
                [&](int64_t r0, int64_t r1) {
                  for (int64_t r = r0; r < r1; ++r) {
                    const int64_t at = RowStart(v, r);
                    const T inv = T(1) / stdev[r];
                    auto xr = R::Read(x + at, v.axis, v.inner);
                    auto dyr = R::Read(dy + at, v.axis, v.inner);
                    const T mean_g = (dyr * gamma).sum() / n;
                    const T mean_gx = (dyr * gamma * (xr - mean[r])).sum() * inv / n;
                    R::Write(dx + at, v.axis, v.inner) =
                        (dyr * gamma - mean_g - (xr - mean[r]) * inv * mean_gx) * inv;
                  }
                });
  }
  if (dgamma == nullptr && dbeta == nullptr) return;
  // Per axis position a: sums over (outer, inner) of dy * xhat and of dy, a block of
  // axis positions per task.
  ParallelFor(
      ctx, v.axis, 4.0 * static_cast<double>(v.outer * v.inner) + 1, [&](int64_t a0, int64_t a1) {
        const int64_t len = a1 - a0;
        Eigen::Array<T, Eigen::Dynamic, 1> sg = Eigen::Array<T, Eigen::Dynamic, 1>::Zero(len);
        Eigen::Array<T, Eigen::Dynamic, 1> sb = Eigen::Array<T, Eigen::Dynamic, 1>::Zero(len);
        for (int64_t o = 0; o < v.outer; ++o) {
          for (int64_t i = 0; i < v.inner; ++i) {
            const int64_t r = o * v.inner + i;
            const int64_t at = (o * v.axis + a0) * v.inner + i;
            auto xr = R::Read(x + at, len, v.inner);
            auto dyr = R::Read(dy + at, len, v.inner);
            sg += dyr * (xr - mean[r]) * (T(1) / stdev[r]);
            sb += dyr;
          }
        }
        if (dgamma != nullptr) ArrayMap<T>(dgamma + a0, len) = sg;
        if (dbeta != nullptr) ArrayMap<T>(dbeta + a0, len) = sb;
      });
}

// Inputs: ograd, data, gamma, mean, std. Outputs: grad data, grad gamma, grad beta.
template <typename T>
absl::Status LayerNormBackwardT(const KernelContext& ctx) {
  const auto& p = ctx.param<LayerNormParam>();
  AxisView v;
  SYMX_RETURN_IF_ERROR(MakeAxisView(ctx, ctx.inputs[1].shape(), p.axis, &v));
  const int64_t rows = v.outer * v.inner;
  if (ctx.inputs[2].size() != v.axis || ctx.inputs[3].size() != rows ||
      ctx.inputs[4].size() != rows) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": gamma/mean/std sizes do ",
                                                   "not match data ",
                                                   ctx.inputs[1].shape().ToString()));
  }
  T* dx = OutputWanted(ctx.req, 0) ? ctx.outputs[0].data<T>() : nullptr;
  T* dgamma = OutputWanted(ctx.req, 1) ? ctx.outputs[1].data<T>() : nullptr;
  T* dbeta = OutputWanted(ctx.req, 2) ? ctx.outputs[2].data<T>() : nullptr;
  auto run = [&](auto contiguous) {
    LayerNormBackwardRows<T, decltype(contiguous)::value>(
        ctx, v, ctx.inputs[0].data<T>(), ctx.inputs[1].data<T>(), ctx.inputs[2].data<T>(),
        ctx.inputs[3].data<T>(), ctx.inputs[4].data<T>(), dx, dgamma, dbeta);
  };
  if (v.inner == 1) {
    run(std::true_type());
  } else {
    run(std::false_type());
  }
  return absl::OkStatus();
}

absl::Status LayerNormBackward(const KernelContext& ctx) {
  SYMX_FLOAT_SWITCH(ctx, ctx.inputs[1].dtype(), T, return LayerNormBackwardT<T>(ctx));
}

// _contrib_SyncBatchNorm: statistics over the job's replicas when it syncs
// (devices/cpu/sync_batch_norm.h), else BatchNorm.
absl::Status SyncBatchNormForward(const KernelContext& ctx) {
  if (SyncsOverReplicas(ctx)) return SyncBatchNormForwardOverReplicas(ctx);
  return BatchNormForward(ctx);
}

absl::Status SyncBatchNormBackward(const KernelContext& ctx) {
  if (SyncsOverReplicas(ctx)) return SyncBatchNormBackwardOverReplicas(ctx);
  return BatchNormBackward(ctx);
}

// _contrib_BatchNormWithReLU: BatchNorm, then relu in place (NaN passing, as relu).
absl::Status BatchNormReluForward(const KernelContext& ctx) {
  SYMX_RETURN_IF_ERROR(BatchNormForward(ctx));
  SYMX_FLOAT_SWITCH(ctx, ctx.outputs[0].dtype(), T, {
    T* y = ctx.outputs[0].data<T>();
    const int64_t n = ctx.outputs[0].size();
    for (int64_t i = 0; i < n; ++i) {
      if (y[i] < T(0)) y[i] = T(0);
    }
    return absl::OkStatus();
  });
}

}  // namespace

#ifdef SYMX_WITH_ONEDNN
constexpr PrepareFn kBatchNormPrepare = PrepareOnednnBatchNorm;
constexpr PrepareFn kBatchNormBackwardPrepare = PrepareOnednnBatchNormBackward;
#else
constexpr PrepareFn kBatchNormPrepare = nullptr;
constexpr PrepareFn kBatchNormBackwardPrepare = nullptr;
#endif

SYMX_REGISTER_KERNEL("BatchNorm", kCPU, .fn = BatchNormForward, .prepare = kBatchNormPrepare,
                     .channels_last = BatchNormChannelsLast, .channels_last_tied = true,
                     .widening = HalfWidening::kFloat16AndBFloat16);
SYMX_REGISTER_KERNEL("_backward_BatchNorm", kCPU, .fn = BatchNormBackward,
                     .prepare = kBatchNormBackwardPrepare,
                     .channels_last = BatchNormBackwardChannelsLast, .channels_last_tied = true,
                     .widening = HalfWidening::kFloat16AndBFloat16);
// BatchNorm's variants (graph/ops/norm.cc) run its kernels.
SYMX_REGISTER_KERNEL("BatchNorm_v1", kCPU, .fn = BatchNormForward, .prepare = kBatchNormPrepare,
                     .channels_last = BatchNormChannelsLast, .channels_last_tied = true,
                     .widening = HalfWidening::kFloat16AndBFloat16);
SYMX_REGISTER_KERNEL("_contrib_SyncBatchNorm", kCPU, .fn = SyncBatchNormForward,
                     .prepare = kBatchNormPrepare, .channels_last = BatchNormChannelsLast,
                     .channels_last_tied = true, .widening = HalfWidening::kFloat16AndBFloat16);
SYMX_REGISTER_KERNEL("_backward_SyncBatchNorm", kCPU, .fn = SyncBatchNormBackward,
                     .prepare = kBatchNormBackwardPrepare,
                     .channels_last = BatchNormBackwardChannelsLast, .channels_last_tied = true,
                     .widening = HalfWidening::kFloat16AndBFloat16);
SYMX_REGISTER_KERNEL("_contrib_BatchNormWithReLU", kCPU, .fn = BatchNormReluForward,
                     .prepare = kBatchNormPrepare, .channels_last = BatchNormChannelsLast,
                     .channels_last_tied = true, .widening = HalfWidening::kFloat16AndBFloat16);
SYMX_REGISTER_KERNEL("LayerNorm", kCPU, .fn = LayerNormForward,
                     .widening = HalfWidening::kFloat16AndBFloat16);
SYMX_REGISTER_KERNEL("_backward_LayerNorm", kCPU, .fn = LayerNormBackward,
                     .widening = HalfWidening::kFloat16AndBFloat16);

SYMX_REGISTER_KERNEL("L2Normalization", kCPU, L2NormalizationForward);
SYMX_REGISTER_KERNEL("_backward_L2Normalization", kCPU, L2NormalizationBackward);
SYMX_REGISTER_KERNEL("InstanceNorm", kCPU, InstanceNormForward);
SYMX_REGISTER_KERNEL("_backward_InstanceNorm", kCPU, InstanceNormBackward);
SYMX_REGISTER_KERNEL("GroupNorm", kCPU, GroupNormForward);
SYMX_REGISTER_KERNEL("_backward_GroupNorm", kCPU, GroupNormBackward);

}  // namespace cpu
}  // namespace symx
