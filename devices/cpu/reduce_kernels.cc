// CPU kernels for the axis reductions sum, mean and max and their backward ops.
//
// The input is seen through a BroadcastPlan (size-1 dims dropped, runs of
// reduced or kept dims merged), so a reduction over any axes becomes one over
// a few alternating dims: (outer, reduced, inner) accumulates whole rows with
// vector operations, other patterns of up to five groups use an Eigen
// reduction, and rarer ones a plain loop. The backward ops walk the input's
// shape row by row (its innermost group) against the broadcast output
// gradient.
//
// MXNet semantics kept here:
// - mean over an empty axis is NaN (0/0), sum over one is 0; max over an empty
//   array is rejected by shape inference and again here.
// - _backward_max sends the output gradient to every input position equal to
//   the maximum (all tied positions get the full gradient, as MXNet's
//   broadcast-equal mask does).
#include "devices/cpu/reduce_kernels.h"

#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/cpu/kernel_util.h"
#include "graph/error.h"
#include "graph/ops/reduce.h"

namespace symx {
namespace cpu {
namespace {

enum class ReduceKind { kSum, kMean, kMax };

absl::StatusOr<BroadcastPlan> PlanFor(const KernelContext& ctx, const Shape& full) {
  absl::StatusOr<std::vector<bool>> reduced = ReducedAxes(ctx.param<ReduceParam>(), full.ndim());
  if (!reduced.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": ", reduced.status().message()));
  }
  return MakeBroadcastPlan(full.dims(), *reduced);
}

absl::Status SizeMismatch(const KernelContext& ctx, const Tensor& small, int64_t expected) {
  return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": reduced tensor ",
                                                 small.shape().ToString(), " should have ",
                                                 expected, " elements"));
}

// dims alternate kept/reduced starting with a kept group; N = dims.size().
template <typename T, ReduceKind K, int N>
void EigenReduce(const KernelContext& ctx, const std::vector<int64_t>& dims, const T* in, T* out,
                 int64_t full_size, T inv_count) {
  constexpr int R = N / 2;
  Eigen::array<int64_t, N> in_dims;
  Eigen::array<int64_t, N - R> out_dims;
  Eigen::array<int, R> axes;
  for (int i = 0; i < N; ++i) in_dims[i] = dims[i];
  for (int i = 0; i < N - R; ++i) out_dims[i] = dims[2 * i];
  for (int i = 0; i < R; ++i) axes[i] = 2 * i + 1;
  TensorN<const T, N> src(in, in_dims);
  TensorN<T, N - R> dst(out, out_dims);
  if constexpr (K == ReduceKind::kMax) {
    Assign(ctx, dst, src.maximum(axes), full_size);
  } else if constexpr (K == ReduceKind::kSum) {
    Assign(ctx, dst, src.sum(axes), full_size);
  } else {
    Assign(ctx, dst, src.sum(axes) * inv_count, full_size);
  }
}

// dims = (outer, reduced, inner), all kept but the middle: each output row
// accumulates the input rows with vector operations, in parallel over (outer,
// column chunk). Eigen's reduction over a non-innermost axis is much slower.
template <typename T, ReduceKind K>
void ReduceMiddle(const KernelContext& ctx, const std::vector<int64_t>& dims, const T* in, T* out,
                  T inv_count) {
  constexpr int64_t kChunk = 128;
  const int64_t outer = dims[0], red = dims[1], inner = dims[2];
  const int64_t chunks = (inner + kChunk - 1) / kChunk;
  ParallelFor(ctx, outer * chunks, static_cast<double>(red * std::min(inner, kChunk)),
              [&](int64_t b, int64_t e) {
                for (int64_t u = b; u < e; ++u) {
                  const int64_t o = u / chunks, c0 = (u % chunks) * kChunk;
                  const int64_t w = std::min(kChunk, inner - c0);
                  ArrayMap<T> acc(out + o * inner + c0, w);
                  const T* base = in + o * red * inner + c0;
                  acc = ConstArrayMap<T>(base, w);
                  for (int64_t r = 1; r < red; ++r) {
                    if constexpr (K == ReduceKind::kMax) {
                      acc = acc.max(ConstArrayMap<T>(base + r * inner, w));
                    } else {
                      acc += ConstArrayMap<T>(base + r * inner, w);
                    }
                  }
                  if constexpr (K == ReduceKind::kMean) acc *= inv_count;
                }
              });
}

template <typename T, ReduceKind K>
absl::Status ReduceForward(const KernelContext& ctx) {
  const Tensor& in = ctx.inputs[0];
  const Tensor& out = ctx.outputs[0];
  SYMX_ASSIGN_OR_RETURN(BroadcastPlan plan, PlanFor(ctx, in.shape()));
  if (out.size() != plan.small_size) return SizeMismatch(ctx, out, plan.small_size);
  if (out.size() == 0) return absl::OkStatus();
  T* dst = out.data<T>();
  if (in.size() == 0) {
    // A reduced axis of size 0 with a non-empty output.
    if constexpr (K == ReduceKind::kMax) {
      return absl::InvalidArgumentError(
          absl::StrCat(ctx.Where(), ": cannot take the max of empty input ", in.DebugString()));
    } else {
      const T fill = K == ReduceKind::kSum ? T(0) : std::numeric_limits<T>::quiet_NaN();
      std::fill(dst, dst + out.size(), fill);
      return absl::OkStatus();
    }
  }
  const T* src = in.data<T>();
  if (!plan.any_reduced()) {
    // Nothing to reduce (only size-1 axes): the output is the input.
    if (dst != src) std::memcpy(dst, src, in.nbytes());
    return absl::OkStatus();
  }
  const T inv_count = T(1) / static_cast<T>(in.size() / out.size());
  // Eigen paths start with a kept group; a leading reduced group gets a kept 1.
  std::vector<int64_t> dims = plan.dims;
  if (plan.reduced[0]) dims.insert(dims.begin(), 1);
  const int n = static_cast<int>(dims.size());
  if (n == 3) {
    ReduceMiddle<T, K>(ctx, dims, src, dst, inv_count);
    return absl::OkStatus();
  }
  bool done = n >= 2 && DispatchRank(n, [&](auto rank) {
                constexpr int N = decltype(rank)::value;
                if constexpr (N >= 2)
                  EigenReduce<T, K, N>(ctx, dims, src, dst, in.size(), inv_count);
              });
  if (done) return absl::OkStatus();

  // Many alternating groups: accumulate serially (outputs would race in parallel).
  const T init = K == ReduceKind::kMax ? std::numeric_limits<T>::lowest() : T(0);
  std::fill(dst, dst + out.size(), init);
  KernelContext serial;
  ForEachBroadcast(serial, plan, [&](int64_t i, int64_t j) {
    if constexpr (K == ReduceKind::kMax) {
      if (src[i] > dst[j] || src[i] != src[i]) dst[j] = src[i];
    } else {
      dst[j] += src[i];
    }
  });
  if constexpr (K == ReduceKind::kMean) {
    for (int64_t j = 0; j < out.size(); ++j) dst[j] *= inv_count;
  }
  return absl::OkStatus();
}

// ----------------------------------------------------------------------------- backward

enum class GradKind { kSum, kMean, kMax };

// grad (the full shape) from ograd (the reduced shape); for max also the
// forward input and output.
template <typename T, GradKind K>
absl::Status ReduceBackward(const KernelContext& ctx) {
  const Tensor& ograd = ctx.inputs[0];
  const Tensor& grad = ctx.outputs[0];
  SYMX_ASSIGN_OR_RETURN(BroadcastPlan plan, PlanFor(ctx, grad.shape()));
  if (ograd.size() != plan.small_size) return SizeMismatch(ctx, ograd, plan.small_size);
  if (grad.size() == 0) return absl::OkStatus();
  const T* og = ograd.data<T>();
  T* dst = grad.data<T>();
  const T* data = nullptr;
  const T* out = nullptr;
  if constexpr (K == GradKind::kMax) {
    data = ctx.inputs[1].data<T>();
    out = ctx.inputs[2].data<T>();
    if (ctx.inputs[2].size() != plan.small_size) {
      return SizeMismatch(ctx, ctx.inputs[2], plan.small_size);
    }
  }
  const T scale = T(1) / static_cast<T>(grad.size() / ograd.size());
  // Row by row over the innermost group: against a run of ograd (kept) or a
  // single ograd value (reduced).
  ForEachBroadcastRow(ctx, plan, 1.0, [&](int64_t i, int64_t j, int64_t len, bool one) {
    ArrayMap<T> g(dst + i, len);
    if constexpr (K == GradKind::kSum) {
      if (one) {
        g.setConstant(og[j]);
      } else {
        g = ConstArrayMap<T>(og + j, len);
      }
    } else if constexpr (K == GradKind::kMean) {
      if (one) {
        g.setConstant(og[j] * scale);
      } else {
        g = ConstArrayMap<T>(og + j, len) * scale;
      }
    } else {
      const T* x = data + i;
      if (one) {
        const T y = out[j], v = og[j];
        for (int64_t t = 0; t < len; ++t) dst[i + t] = x[t] == y ? v : T(0);
      } else {
        const T* y = out + j;
        const T* v = og + j;
        for (int64_t t = 0; t < len; ++t) dst[i + t] = x[t] == y[t] ? v[t] : T(0);
      }
    }
  });
  return absl::OkStatus();
}

template <ReduceKind K>
absl::Status Forward(const KernelContext& ctx) {
  SYMX_FLOAT_SWITCH(ctx, ctx.inputs[0].dtype(), T, return (ReduceForward<T, K>(ctx)));
  return absl::OkStatus();
}

template <GradKind K>
absl::Status Backward(const KernelContext& ctx) {
  SYMX_FLOAT_SWITCH(ctx, ctx.outputs[0].dtype(), T, return (ReduceBackward<T, K>(ctx)));
  return absl::OkStatus();
}

SYMX_REGISTER_KERNEL("sum", kCPU, .fn = Forward<ReduceKind::kSum>,
                     .widening = HalfWidening::kFloat16AndBFloat16);
SYMX_REGISTER_KERNEL("mean", kCPU, .fn = Forward<ReduceKind::kMean>,
                     .widening = HalfWidening::kFloat16AndBFloat16);
SYMX_REGISTER_KERNEL("max", kCPU, .fn = Forward<ReduceKind::kMax>,
                     .widening = HalfWidening::kFloat16AndBFloat16);
SYMX_REGISTER_KERNEL("_backward_sum", kCPU, .fn = Backward<GradKind::kSum>,
                     .widening = HalfWidening::kFloat16AndBFloat16);
SYMX_REGISTER_KERNEL("_backward_mean", kCPU, .fn = Backward<GradKind::kMean>,
                     .widening = HalfWidening::kFloat16AndBFloat16);
SYMX_REGISTER_KERNEL("_backward_max", kCPU, .fn = Backward<GradKind::kMax>,
                     .widening = HalfWidening::kFloat16AndBFloat16);

}  // namespace
}  // namespace cpu
}  // namespace symx
