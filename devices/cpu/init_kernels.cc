// CPU kernels for the creation ops: _zeros, _ones, _full, _arange, _eye, _linspace,
// _contrib_arange_like and _zeros_without_dtype, for every dtype their schemas allow. Values are
// converted the way MXNet's kernels cast them: a value for an integer dtype is truncated toward
// zero and wraps to the type's width (300 -> 44 as uint8); _arange with an integer dtype casts
// start and step to the dtype first (step 0.6 -> 0), and so does _contrib_arange_like; _linspace
// computes each value in double and casts it.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "devices/cpu/kernel_util.h"
#include "graph/ops/init.h"

namespace symx {
namespace cpu {
namespace {

absl::Status Fill(const KernelContext& ctx, double value) {
  const Tensor& out = ctx.outputs[0];
  if (value == 0.0) {
    // Zero bits are zero in every dtype.
    std::memset(out.raw_data(), 0, out.nbytes());
    return absl::OkStatus();
  }
  bool known = true;
  SYMX_DTYPE_SWITCH_ALL(out.dtype(), T, {
    const T v = CastFillValue<T>(value);
    T* d = out.data<T>();
    ParallelFor(ctx, out.size(), 1.0, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) d[i] = v;
    });
  });
  if (out.dtype() == DType::kUnknown) known = false;
  return known ? absl::OkStatus() : UnsupportedDType(ctx, out.dtype());
}

absl::Status Zeros(const KernelContext& ctx) { return Fill(ctx, 0.0); }
absl::Status Ones(const KernelContext& ctx) { return Fill(ctx, 1.0); }
absl::Status Full(const KernelContext& ctx) { return Fill(ctx, ctx.param<InitParam>().value); }

template <typename T>
void ArangeFill(const KernelContext& ctx, double start, double step, int64_t repeat, T* d,
                int64_t n) {
  if constexpr (std::is_integral_v<T>) {
    const int64_t s0 = static_cast<int64_t>(CastFillValue<T>(start));
    const int64_t st = static_cast<int64_t>(CastFillValue<T>(step));
    ParallelFor(ctx, n, 1.0, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) d[i] = static_cast<T>(s0 + (i / repeat) * st);
    });
  } else {
    ParallelFor(ctx, n, 1.0, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        d[i] = FromDouble<T>(start + static_cast<double>(i / repeat) * step);
      }
    });
  }
}

absl::Status Arange(const KernelContext& ctx) {
  const auto& p = ctx.param<ArangeParam>();
  const Tensor& out = ctx.outputs[0];
  // With infer_range, or a stop, the range starts at start; else it is [0, start).
  const double start = p.stop || p.infer_range ? p.start : 0.0;
  if (p.repeat <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": repeat must be positive"));
  }
  if (out.dtype() == DType::kUnknown) return UnsupportedDType(ctx, out.dtype());
  SYMX_DTYPE_SWITCH_ALL(out.dtype(), T,
                        ArangeFill<T>(ctx, start, p.step, p.repeat, out.data<T>(), out.size()));
  return absl::OkStatus();
}

absl::Status ArangeLike(const KernelContext& ctx) {
  const auto& p = ctx.param<ArangeLikeParam>();
  const Tensor& out = ctx.outputs[0];
  if (p.repeat <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": repeat must be positive"));
  }
  if (out.dtype() == DType::kUnknown) return UnsupportedDType(ctx, out.dtype());
  SYMX_DTYPE_SWITCH_ALL(out.dtype(), T,
                        ArangeFill<T>(ctx, p.start, p.step, p.repeat, out.data<T>(), out.size()));
  return absl::OkStatus();
}

// Zeros, then ones at (r, r + k) for the rows whose column is inside.
absl::Status Eye(const KernelContext& ctx) {
  const auto& p = ctx.param<EyeParam>();
  const Tensor& out = ctx.outputs[0];
  std::memset(out.raw_data(), 0, out.nbytes());
  const int64_t rows = p.N, cols = p.M > 0 ? p.M : p.N;
  if (out.size() != rows * cols) {
    return absl::InvalidArgumentError(
        absl::StrCat(ctx.Where(), ": output ", out.DebugString(), " is not ", rows, " x ", cols));
  }
  bool known = true;
  SYMX_DTYPE_SWITCH_ALL(out.dtype(), T, {
    T* d = out.data<T>();
    const T one = CastFillValue<T>(1.0);
    for (int64_t r = std::max<int64_t>(0, -p.k); r < rows && r + p.k < cols; ++r) {
      d[r * cols + r + p.k] = one;
    }
  });
  if (out.dtype() == DType::kUnknown) known = false;
  return known ? absl::OkStatus() : UnsupportedDType(ctx, out.dtype());
}

// start + i * (stop - start) / (num - 1, or num without endpoint), in double, cast.
absl::Status Linspace(const KernelContext& ctx) {
  const auto& p = ctx.param<LinspaceParam>();
  const Tensor& out = ctx.outputs[0];
  const int64_t steps = p.endpoint ? p.num - 1 : p.num;
  const double step = steps > 0 ? (p.stop - p.start) / static_cast<double>(steps) : 0.0;
  if (out.dtype() == DType::kUnknown) return UnsupportedDType(ctx, out.dtype());
  SYMX_DTYPE_SWITCH_ALL(out.dtype(), T, {
    T* d = out.data<T>();
    ParallelFor(ctx, out.size(), 1.0, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        d[i] = CastValue<T>(p.start + step * static_cast<double>(i));
      }
    });
  });
  return absl::OkStatus();
}

SYMX_REGISTER_KERNEL("_zeros", kCPU, Zeros);
SYMX_REGISTER_KERNEL("_ones", kCPU, Ones);
SYMX_REGISTER_KERNEL("_full", kCPU, Full);
SYMX_REGISTER_KERNEL("_arange", kCPU, Arange);
SYMX_REGISTER_KERNEL("_contrib_arange_like", kCPU, ArangeLike);
SYMX_REGISTER_KERNEL("_eye", kCPU, Eye);
SYMX_REGISTER_KERNEL("_linspace", kCPU, Linspace);
SYMX_REGISTER_KERNEL("_zeros_without_dtype", kCPU, Zeros);

}  // namespace
}  // namespace cpu
}  // namespace symx
