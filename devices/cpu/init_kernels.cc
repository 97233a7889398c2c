// CPU kernels for the creation ops: _zeros, _ones, _full and _arange, for every dtype their
// schemas allow. Values are converted the way MXNet's kernels cast them: a value for an
// integer dtype is truncated toward zero and wraps to the type's width (300 -> 44 as uint8);
// _arange with an integer dtype casts start and step to the dtype first (step 0.6 -> 0).
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
void ArangeFill(const KernelContext& ctx, const ArangeParam& p, double start, T* d, int64_t n) {
  const int64_t repeat = p.repeat;
  if constexpr (std::is_integral_v<T>) {
    const int64_t s0 = static_cast<int64_t>(CastFillValue<T>(start));
    const int64_t st = static_cast<int64_t>(CastFillValue<T>(p.step));
    ParallelFor(ctx, n, 1.0, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) d[i] = static_cast<T>(s0 + (i / repeat) * st);
    });
  } else {
    ParallelFor(ctx, n, 1.0, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        d[i] = FromDouble<T>(start + static_cast<double>(i / repeat) * p.step);
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
  SYMX_DTYPE_SWITCH_ALL(out.dtype(), T, ArangeFill<T>(ctx, p, start, out.data<T>(), out.size()));
  return absl::OkStatus();
}

SYMX_REGISTER_KERNEL("_zeros", kCPU, Zeros);
SYMX_REGISTER_KERNEL("_ones", kCPU, Ones);
SYMX_REGISTER_KERNEL("_full", kCPU, Full);
SYMX_REGISTER_KERNEL("_arange", kCPU, Arange);

}  // namespace
}  // namespace cpu
}  // namespace symx
