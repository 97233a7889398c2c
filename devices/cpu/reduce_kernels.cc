// CPU kernels for the axis reductions sum, mean, max, min, prod, nansum,
// nanprod, norm (ord 1 and 2, any out_dtype) and moments, and their backward
// ops.
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
// - mean over an empty axis is NaN (0/0), sum, nansum and norm over one are 0,
//   prod and nanprod 1; max and min over an empty array are rejected by shape
//   inference and again here.
// - max and min are NaN where any reduced input is NaN.
// - _backward_max and _backward_min send the output gradient to every input
//   position equal to the result (all tied positions get the full gradient, as
//   MXNet's broadcast-equal mask does).
// - The other gradients are ograd * f(x, out) as MXNet computes them, with no
//   special case: prod's out / x is NaN at a zero input whose product is 0,
//   norm's x / out is NaN where the norm is 0; nansum and nanprod give 0 at NaN
//   inputs.
#include "devices/cpu/reduce_kernels.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/cpu/kernel_util.h"
#include "devices/dtype_switch.h"
#include "graph/error.h"
#include "graph/ops/reduce.h"

namespace symx {
namespace cpu {
namespace {

enum class ReduceKind { kSum, kMean, kMax, kMin, kProd, kNanSum, kNanProd, kNorm1, kNorm2 };

constexpr bool IsProduct(ReduceKind k) {
  return k == ReduceKind::kProd || k == ReduceKind::kNanProd;
}
// Whether an input element is mapped before it is accumulated.
constexpr bool HasTerm(ReduceKind k) {
  return k == ReduceKind::kNanSum || k == ReduceKind::kNanProd || k == ReduceKind::kNorm1 ||
         k == ReduceKind::kNorm2;
}

// What an input element contributes: NaN skipped by nansum and nanprod, |x|
// and x^2 for the norms.
template <typename T, ReduceKind K>
T Term(T x) {
  if constexpr (K == ReduceKind::kNanSum) {
    return x != x ? T(0) : x;
  } else if constexpr (K == ReduceKind::kNanProd) {
    return x != x ? T(1) : x;
  } else if constexpr (K == ReduceKind::kNorm1) {
    return std::abs(x);
  } else if constexpr (K == ReduceKind::kNorm2) {
    return x * x;
  } else {
    return x;
  }
}

template <typename T, ReduceKind K>
T Identity() {
  if constexpr (K == ReduceKind::kMax) {
    return std::numeric_limits<T>::lowest();
  } else if constexpr (K == ReduceKind::kMin) {
    return std::numeric_limits<T>::max();
  } else if constexpr (IsProduct(K)) {
    return T(1);
  } else {
    return T(0);
  }
}

// Accumulates term b into a (NaN wins for max and min).
template <typename T, ReduceKind K>
T Combine(T a, T b) {
  if constexpr (K == ReduceKind::kMax) {
    return b > a || b != b ? b : a;
  } else if constexpr (K == ReduceKind::kMin) {
    return b < a || b != b ? b : a;
  } else if constexpr (IsProduct(K)) {
    return a * b;
  } else {
    return a + b;
  }
}

template <typename T, ReduceKind K>
T Finish(T acc, T inv_count) {
  if constexpr (K == ReduceKind::kMean) {
    return acc * inv_count;
  } else if constexpr (K == ReduceKind::kNorm2) {
    return std::sqrt(acc);
  } else {
    return acc;
  }
}

template <typename T, ReduceKind K>
struct TermFn {
  T operator()(T x) const { return Term<T, K>(x); }
};

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
    Assign(ctx, dst, src.template maximum<decltype(axes), Eigen::PropagateNaN>(axes), full_size);
  } else if constexpr (K == ReduceKind::kMin) {
    Assign(ctx, dst, src.template minimum<decltype(axes), Eigen::PropagateNaN>(axes), full_size);
  } else if constexpr (K == ReduceKind::kSum) {
    Assign(ctx, dst, src.sum(axes), full_size);
  } else if constexpr (K == ReduceKind::kMean) {
    Assign(ctx, dst, src.sum(axes) * inv_count, full_size);
  } else if constexpr (K == ReduceKind::kProd) {
    Assign(ctx, dst, src.prod(axes), full_size);
  } else if constexpr (K == ReduceKind::kNanProd) {
    Assign(ctx, dst, src.unaryExpr(TermFn<T, K>()).prod(axes), full_size);
  } else if constexpr (K == ReduceKind::kNorm1) {
    Assign(ctx, dst, src.abs().sum(axes), full_size);
  } else if constexpr (K == ReduceKind::kNorm2) {
    Assign(ctx, dst, src.square().sum(axes).sqrt(), full_size);
  } else {
    Assign(ctx, dst, src.unaryExpr(TermFn<T, K>()).sum(axes), full_size);
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
                  if constexpr (HasTerm(K)) {
                    acc = ConstArrayMap<T>(base, w).unaryExpr(TermFn<T, K>());
                  } else {
                    acc = ConstArrayMap<T>(base, w);
                  }
                  for (int64_t r = 1; r < red; ++r) {
                    ConstArrayMap<T> row(base + r * inner, w);
                    if constexpr (K == ReduceKind::kMax) {
                      acc = acc.binaryExpr(
                          row, Eigen::internal::scalar_max_op<T, T, Eigen::PropagateNaN>());
                    } else if constexpr (K == ReduceKind::kMin) {
                      acc = acc.binaryExpr(
                          row, Eigen::internal::scalar_min_op<T, T, Eigen::PropagateNaN>());
                    } else if constexpr (K == ReduceKind::kProd) {
                      acc *= row;
                    } else if constexpr (K == ReduceKind::kNanProd) {
                      acc *= row.unaryExpr(TermFn<T, K>());
                    } else if constexpr (HasTerm(K)) {
                      acc += row.unaryExpr(TermFn<T, K>());
                    } else {
                      acc += row;
                    }
                  }
                  if constexpr (K == ReduceKind::kMean) acc *= inv_count;
                  if constexpr (K == ReduceKind::kNorm2) acc = acc.sqrt();
                }
              });
}

// An L2 norm whose sum of squares overflowed (|x| above 1.8e19 in float32)
// while the inputs are finite is recomputed as m * sqrt(sum((x / m)^2)), m the
// largest |x| of the output's inputs, in double (MXNet's nrm2 reducer scales
// the same way). The usual case pays one scan of the outputs.
template <typename T>
void RescaleOverflowedNorm2(const BroadcastPlan& plan, const T* src, T* dst, int64_t out_size) {
  auto is_inf = [](T v) { return std::isinf(static_cast<double>(v)); };
  if (std::none_of(dst, dst + out_size, is_inf)) return;
  std::vector<double> scale(out_size, 0.0), sum(out_size, 0.0);
  KernelContext serial;
  ForEachBroadcast(serial, plan, [&](int64_t i, int64_t j) {
    scale[j] = std::max(scale[j], std::abs(static_cast<double>(src[i])));
  });
  ForEachBroadcast(serial, plan, [&](int64_t i, int64_t j) {
    if (std::isfinite(scale[j]) && scale[j] > 0) {
      const double r = static_cast<double>(src[i]) / scale[j];
      sum[j] += r * r;
    }
  });
  for (int64_t j = 0; j < out_size; ++j) {
    if (is_inf(dst[j]) && std::isfinite(scale[j])) {
      dst[j] = static_cast<T>(scale[j] * std::sqrt(sum[j]));
    }
  }
}

// Writes the reduction of input 0 to `dst`: output 0's data, or a buffer of
// its size when output 0 has another dtype (norm's out_dtype). `src` holds
// input 0's values, or others of its shape (moments' squared deviations).
template <typename T, ReduceKind K>
absl::Status ReduceForward(const KernelContext& ctx, const T* src, T* dst) {
  const Tensor& in = ctx.inputs[0];
  const Tensor& out = ctx.outputs[0];
  SYMX_ASSIGN_OR_RETURN(BroadcastPlan plan, PlanFor(ctx, in.shape()));
  if (out.size() != plan.small_size) return SizeMismatch(ctx, out, plan.small_size);
  if (out.size() == 0) return absl::OkStatus();
  if (in.size() == 0) {
    // A reduced axis of size 0 with a non-empty output.
    if constexpr (K == ReduceKind::kMax || K == ReduceKind::kMin) {
      return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": cannot take the ",
                                                     K == ReduceKind::kMax ? "max" : "min",
                                                     " of empty input ", in.DebugString()));
    } else {
      const T fill =
          K == ReduceKind::kMean ? std::numeric_limits<T>::quiet_NaN() : Identity<T, K>();
      std::fill(dst, dst + out.size(), fill);
      return absl::OkStatus();
    }
  }
  if (!plan.any_reduced()) {
    // Nothing to reduce (only size-1 axes): the output is the input, mapped.
    if constexpr (K == ReduceKind::kNorm2) {
      // |x|, not sqrt(x^2), which overflows
      for (int64_t i = 0; i < in.size(); ++i) dst[i] = Term<T, ReduceKind::kNorm1>(src[i]);
    } else if constexpr (HasTerm(K)) {
      for (int64_t i = 0; i < in.size(); ++i) dst[i] = Finish<T, K>(Term<T, K>(src[i]), T(1));
    } else if (dst != src) {
      std::memcpy(dst, src, in.nbytes());
    }
    return absl::OkStatus();
  }
  // Only a mean divides (an int8 count of 256 would be a zero divisor).
  T inv_count = T(1);
  if constexpr (K == ReduceKind::kMean) inv_count = T(1) / static_cast<T>(in.size() / out.size());
  // Eigen paths start with a kept group; a leading reduced group gets a kept 1.
  std::vector<int64_t> dims = plan.dims;
  if (plan.reduced[0]) dims.insert(dims.begin(), 1);
  const int n = static_cast<int>(dims.size());
  if (n == 3) {
    ReduceMiddle<T, K>(ctx, dims, src, dst, inv_count);
    if constexpr (K == ReduceKind::kNorm2) RescaleOverflowedNorm2(plan, src, dst, out.size());
    return absl::OkStatus();
  }
  bool done = n >= 2 && DispatchRank(n, [&](auto rank) {
                constexpr int N = decltype(rank)::value;
                if constexpr (N >= 2)
                  EigenReduce<T, K, N>(ctx, dims, src, dst, in.size(), inv_count);
              });
  if (done) {
    if constexpr (K == ReduceKind::kNorm2) RescaleOverflowedNorm2(plan, src, dst, out.size());
    return absl::OkStatus();
  }

  // Many alternating groups: accumulate serially (outputs would race in parallel).
  std::fill(dst, dst + out.size(), Identity<T, K>());
  KernelContext serial;
  ForEachBroadcast(serial, plan, [&](int64_t i, int64_t j) {
    dst[j] = Combine<T, K>(dst[j], Term<T, K>(src[i]));
  });
  if constexpr (K == ReduceKind::kMean || K == ReduceKind::kNorm2) {
    for (int64_t j = 0; j < out.size(); ++j) dst[j] = Finish<T, K>(dst[j], inv_count);
  }
  if constexpr (K == ReduceKind::kNorm2) RescaleOverflowedNorm2(plan, src, dst, out.size());
  return absl::OkStatus();
}

// ----------------------------------------------------------------------------- backward

// kEqual: max and min.
enum class GradKind { kSum, kMean, kEqual, kProd, kNanSum, kNanProd, kNorm1, kNorm2 };

// The factor of ograd at input x whose reduction gave y (kinds beyond kEqual).
template <typename T, GradKind K>
T GradFactor(T x, T y) {
  if constexpr (K == GradKind::kProd) {
    return y / x;
  } else if constexpr (K == GradKind::kNanSum) {
    return x != x ? T(0) : T(1);
  } else if constexpr (K == GradKind::kNanProd) {
    return x != x ? T(0) : y / x;
  } else if constexpr (K == GradKind::kNorm1) {
    return T((x > T(0)) - (x < T(0)));
  } else {
    return x / y;
  }
}

// grad (the full shape) from ograd (the reduced shape); for the kinds past
// kMean also the forward input and output.
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
  if constexpr (K != GradKind::kSum && K != GradKind::kMean) {
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
    } else if constexpr (K == GradKind::kEqual) {
      const T* x = data + i;
      if (one) {
        const T y = out[j], v = og[j];
        for (int64_t t = 0; t < len; ++t) dst[i + t] = x[t] == y ? v : T(0);
      } else {
        const T* y = out + j;
        const T* v = og + j;
        for (int64_t t = 0; t < len; ++t) dst[i + t] = x[t] == y[t] ? v[t] : T(0);
      }
    } else {
      const T* x = data + i;
      if (one) {
        const T y = out[j], v = og[j];
        for (int64_t t = 0; t < len; ++t) dst[i + t] = v * GradFactor<T, K>(x[t], y);
      } else {
        const T* y = out + j;
        const T* v = og + j;
        for (int64_t t = 0; t < len; ++t) dst[i + t] = v[t] * GradFactor<T, K>(x[t], y[t]);
      }
    }
  });
  return absl::OkStatus();
}

// The kinds MXNet also computes on integers (int8, uint8, int32, int64),
// accumulating in the input's type as it does; mean, norm and moments, whose
// integer results MXNet rounds in ways of its own, stay floating-point only.
constexpr bool TakesIntegers(ReduceKind k) {
  return k != ReduceKind::kMean && k != ReduceKind::kNorm1 && k != ReduceKind::kNorm2;
}

template <typename T, ReduceKind K>
absl::Status ForwardT(const KernelContext& ctx) {
  if constexpr (std::is_integral_v<T> && std::is_signed_v<T> && K != ReduceKind::kMax &&
                K != ReduceKind::kMin) {
    // Sums and products of signed integers wrap around as MXNet's do (two's
    // complement) through their unsigned twins: a signed overflow is
    // undefined in C++ (UBSan stops on it).
    using U = std::make_unsigned_t<T>;
    return ReduceForward<U, K>(ctx, reinterpret_cast<const U*>(ctx.inputs[0].data<T>()),
                               reinterpret_cast<U*>(ctx.outputs[0].data<T>()));
  } else {
    return ReduceForward<T, K>(ctx, ctx.inputs[0].data<T>(), ctx.outputs[0].data<T>());
  }
}

template <ReduceKind K>
absl::Status Forward(const KernelContext& ctx) {
  const DType t = ctx.inputs[0].dtype();
  if constexpr (TakesIntegers(K)) {
    switch (t) {
      case DType::kInt8:
        return ForwardT<int8_t, K>(ctx);
      case DType::kUint8:
        return ForwardT<uint8_t, K>(ctx);
      case DType::kInt32:
        return ForwardT<int32_t, K>(ctx);
      case DType::kInt64:
        return ForwardT<int64_t, K>(ctx);
      default:
        break;
    }
  }
  SYMX_FLOAT_SWITCH(ctx, t, T, return (ForwardT<T, K>(ctx)));
  return absl::OkStatus();
}

// norm computes in the input's dtype; an out_dtype other than it is a
// conversion of the result (integers truncated, as MXNet's cast).
template <typename T>
absl::Status NormInto(const KernelContext& ctx, T* dst) {
  const T* src = ctx.inputs[0].data<T>();
  return ctx.param<NormParam>().ord == 1 ? ReduceForward<T, ReduceKind::kNorm1>(ctx, src, dst)
                                         : ReduceForward<T, ReduceKind::kNorm2>(ctx, src, dst);
}

absl::Status NormForward(const KernelContext& ctx) {
  const Tensor& out = ctx.outputs[0];
  SYMX_FLOAT_SWITCH(ctx, ctx.inputs[0].dtype(), T, {
    if (out.dtype() == ctx.inputs[0].dtype()) return NormInto<T>(ctx, out.data<T>());
    std::vector<T> result(out.size());
    SYMX_RETURN_IF_ERROR(NormInto<T>(ctx, result.data()));
    SYMX_DTYPE_SWITCH_ALL(out.dtype(), O, {
      O* o = out.data<O>();
      for (size_t j = 0; j < result.size(); ++j) {
        o[j] = CastValue<O>(static_cast<double>(result[j]));
      }
    });
    return absl::OkStatus();
  });
  return absl::OkStatus();
}

absl::Status NormBackward(const KernelContext& ctx) {
  const DType t = ctx.outputs[0].dtype();
  for (const Tensor& x : ctx.inputs) {
    if (x.dtype() != t) {
      return absl::UnimplementedError(
          absl::StrCat(ctx.Where(), ": the gradient of a norm with out_dtype ",
                       DTypeName(ctx.inputs[0].dtype()), " and input ", DTypeName(t),
                       " is not implemented (only an out_dtype equal to the input's)"));
    }
  }
  if (ctx.param<NormParam>().ord == 1) {
    SYMX_FLOAT_SWITCH(ctx, t, T, return (ReduceBackward<T, GradKind::kNorm1>(ctx)));
  } else {
    SYMX_FLOAT_SWITCH(ctx, t, T, return (ReduceBackward<T, GradKind::kNorm2>(ctx)));
  }
  return absl::OkStatus();
}

template <GradKind K>
absl::Status Backward(const KernelContext& ctx) {
  SYMX_FLOAT_SWITCH(ctx, ctx.outputs[0].dtype(), T, return (ReduceBackward<T, K>(ctx)));
  return absl::OkStatus();
}

// ----------------------------------------------------------------------------- moments

// mean, then var as the mean of (x - mean)^2, staged in the workspace.
size_t MomentsWorkspace(const NodeAttrs&, const std::vector<Shape>& in, const std::vector<Shape>&,
                        DType dtype) {
  return static_cast<size_t>(in[0].Size()) * DTypeSize(dtype);
}

template <typename T>
absl::Status MomentsForwardT(const KernelContext& ctx) {
  const Tensor& in = ctx.inputs[0];
  const Tensor& mean = ctx.outputs[0];
  const Tensor& var = ctx.outputs[1];
  if (var.dtype() != in.dtype() || mean.dtype() != in.dtype()) {
    return UnsupportedDType(ctx, var.dtype());
  }
  if (var.size() != mean.size()) return SizeMismatch(ctx, var, mean.size());
  if (ctx.workspace.nbytes() < static_cast<size_t>(in.nbytes())) {
    return absl::InternalError(absl::StrCat(ctx.Where(), ": workspace of ", ctx.workspace.nbytes(),
                                            " bytes, ", in.nbytes(), " needed"));
  }
  const T* x = in.data<T>();
  SYMX_RETURN_IF_ERROR((ReduceForward<T, ReduceKind::kMean>(ctx, x, mean.data<T>())));
  if (in.size() == 0 || mean.size() == 0) {
    return ReduceForward<T, ReduceKind::kMean>(ctx, x, var.data<T>());
  }
  SYMX_ASSIGN_OR_RETURN(BroadcastPlan plan, PlanFor(ctx, in.shape()));
  T* dev = static_cast<T*>(ctx.workspace.raw_data());
  const T* m = mean.data<T>();
  ForEachBroadcastRow(ctx, plan, 2.0, [&](int64_t i, int64_t j, int64_t len, bool one) {
    for (int64_t t = 0; t < len; ++t) {
      const T d = x[i + t] - m[one ? j : j + t];
      dev[i + t] = d * d;
    }
  });
  return ReduceForward<T, ReduceKind::kMean>(ctx, dev, var.data<T>());
}

// dx = ograd_mean / N + ograd_var * 2 (x - mean) / N, N the reduced count.
template <typename T>
absl::Status MomentsBackwardT(const KernelContext& ctx) {
  const Tensor& grad = ctx.outputs[0];
  for (const Tensor& t : ctx.inputs) {
    if (t.dtype() != grad.dtype()) return UnsupportedDType(ctx, t.dtype());
  }
  SYMX_ASSIGN_OR_RETURN(BroadcastPlan plan, PlanFor(ctx, grad.shape()));
  for (int k : {0, 1, 3}) {
    if (ctx.inputs[k].size() != plan.small_size) {
      return SizeMismatch(ctx, ctx.inputs[k], plan.small_size);
    }
  }
  if (grad.size() == 0) return absl::OkStatus();
  const T* gm = ctx.inputs[0].data<T>();
  const T* gv = ctx.inputs[1].data<T>();
  const T* x = ctx.inputs[2].data<T>();
  const T* m = ctx.inputs[3].data<T>();
  T* dx = grad.data<T>();
  const T inv_n = T(1) / static_cast<T>(grad.size() / plan.small_size);
  ForEachBroadcastRow(ctx, plan, 4.0, [&](int64_t i, int64_t j, int64_t len, bool one) {
    for (int64_t t = 0; t < len; ++t) {
      const int64_t r = one ? j : j + t;
      dx[i + t] = gm[r] * inv_n + gv[r] * (x[i + t] - m[r]) * T(2) * inv_n;
    }
  });
  return absl::OkStatus();
}

absl::Status MomentsForward(const KernelContext& ctx) {
  SYMX_FLOAT_SWITCH(ctx, ctx.inputs[0].dtype(), T, return MomentsForwardT<T>(ctx));
  return absl::OkStatus();
}

absl::Status MomentsBackward(const KernelContext& ctx) {
  SYMX_FLOAT_SWITCH(ctx, ctx.outputs[0].dtype(), T, return MomentsBackwardT<T>(ctx));
  return absl::OkStatus();
}

SYMX_REGISTER_KERNEL("moments", kCPU, .fn = MomentsForward, .workspace = MomentsWorkspace,
                     .widening = HalfWidening::kFloat16AndBFloat16);
SYMX_REGISTER_KERNEL("_backward_moments", kCPU, .fn = MomentsBackward,
                     .widening = HalfWidening::kFloat16AndBFloat16);
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
SYMX_REGISTER_KERNEL("min", kCPU, .fn = Forward<ReduceKind::kMin>,
                     .widening = HalfWidening::kFloat16AndBFloat16);
SYMX_REGISTER_KERNEL("prod", kCPU, .fn = Forward<ReduceKind::kProd>,
                     .widening = HalfWidening::kFloat16AndBFloat16);
SYMX_REGISTER_KERNEL("nansum", kCPU, .fn = Forward<ReduceKind::kNanSum>,
                     .widening = HalfWidening::kFloat16AndBFloat16);
SYMX_REGISTER_KERNEL("nanprod", kCPU, .fn = Forward<ReduceKind::kNanProd>,
                     .widening = HalfWidening::kFloat16AndBFloat16);
SYMX_REGISTER_KERNEL("norm", kCPU, .fn = NormForward,
                     .widening = HalfWidening::kFloat16AndBFloat16);
SYMX_REGISTER_KERNEL("_backward_norm", kCPU, .fn = NormBackward,
                     .widening = HalfWidening::kFloat16AndBFloat16);
SYMX_REGISTER_KERNEL("_backward_max", kCPU, .fn = Backward<GradKind::kEqual>,
                     .widening = HalfWidening::kFloat16AndBFloat16);
SYMX_REGISTER_KERNEL("_backward_min", kCPU, .fn = Backward<GradKind::kEqual>,
                     .widening = HalfWidening::kFloat16AndBFloat16);
SYMX_REGISTER_KERNEL("_backward_prod", kCPU, .fn = Backward<GradKind::kProd>,
                     .widening = HalfWidening::kFloat16AndBFloat16);
SYMX_REGISTER_KERNEL("_backward_nansum", kCPU, .fn = Backward<GradKind::kNanSum>,
                     .widening = HalfWidening::kFloat16AndBFloat16);
SYMX_REGISTER_KERNEL("_backward_nanprod", kCPU, .fn = Backward<GradKind::kNanProd>,
                     .widening = HalfWidening::kFloat16AndBFloat16);

}  // namespace
}  // namespace cpu
}  // namespace symx
