// CPU kernels of the dropout family (graph/ops/dropout.cc): Dropout and
// _backward_Dropout.
//
// Dropout: while training (or always with mode='always') and p > 0 the mask
// holds 1 / (1 - p) where an element is kept (probability 1 - p) and 0
// elsewhere, so output = data * mask and the gradient is ograd * mask, as in
// MXNet. With `axes` the mask has size 1 along them and is broadcast. Random
// numbers come from the device's generator (ctx.device->rng()), which seeds
// one fast generator per fixed chunk of the mask. Otherwise the output is the data
// and the mask is all ones.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/cpu/kernel_util.h"
#include "devices/cpu/reduce_kernels.h"
#include "devices/geometry/upsampling_geometry.h"
#include "graph/error.h"
#include "graph/ops/dropout.h"

namespace symx {
namespace cpu {
namespace {

// ----------------------------------------------------------------------------- Dropout

// dst = src * broadcast(mask) where the mask's dims are 1 along shared axes.
template <typename T>
absl::Status MultiplyByMask(const KernelContext& ctx, const Tensor& src, const Tensor& mask,
                            const Tensor& dst) {
  const Shape& s = src.shape();
  if (mask.shape().ndim() != s.ndim() || dst.size() != src.size()) {
    return Fail(
        ctx, absl::StrCat("mask ", mask.DebugString(), " does not fit data ", src.DebugString()));
  }
  std::vector<bool> shared(s.ndim());
  for (int d = 0; d < s.ndim(); ++d) {
    if (mask.shape()[d] != s[d] && mask.shape()[d] != 1) {
      return Fail(
          ctx, absl::StrCat("mask ", mask.DebugString(), " does not fit data ", src.DebugString()));
    }
    shared[d] = mask.shape()[d] != s[d];
  }
  if (src.size() == 0) return absl::OkStatus();
  BroadcastPlan plan = MakeBroadcastPlan(s.dims(), shared);
  const T* x = src.data<T>();
  const T* m = mask.data<T>();
  T* y = dst.data<T>();
  ForEachBroadcastRow(ctx, plan, 1.0, [&](int64_t i, int64_t j, int64_t len, bool one) {
    ArrayMap<T> yr(y + i, len);
    ConstArrayMap<T> xr(x + i, len);
    if (one) {
      yr = xr * m[j];
    } else {
      yr = xr * ConstArrayMap<T>(m + j, len);
    }
  });
  return absl::OkStatus();
}

// SplitMix64 (Steele, Lea and Flood): a tiny, fast generator of good quality,
// used per mask chunk (std::mt19937_64 costs several times more per draw).
struct SplitMix64 {
  uint64_t state;
  uint64_t Next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
};

template <typename T>
absl::Status DropoutForwardT(const KernelContext& ctx) {
  const auto& p = ctx.param<DropoutParam>();
  const Tensor& x = ctx.inputs[0];
  const Tensor& y = ctx.outputs[0];
  const Tensor& mask = ctx.outputs[1];
  const bool active = (ctx.is_train || p.mode == "always") && p.p > 0;
  if (!active) {
    if (x.size() != y.size()) return Fail(ctx, "output size differs from the data's");
    if (x.raw_data() != y.raw_data()) {
      Assign(ctx, Flat<T>(y), Flat<T>(x), x.size());
    }
    Assign(ctx, Flat<T>(mask), Flat<T>(mask).constant(T(1)), mask.size());
    return absl::OkStatus();
  }
  if (ctx.device == nullptr) return Fail(ctx, "no device to draw random numbers from");
  // The mask is drawn in fixed chunks, each from its own SplitMix64 whose seed
  // derives from one draw of the device's generator and the chunk's index, so
  // the mask depends on the device's seed alone (not on the thread count) and
  // the chunks are filled in parallel. Each 64-bit draw gives two 32-bit
  // uniforms; an element is kept when its uniform is below (1 - p) * 2^32.
  constexpr int64_t kChunk = int64_t{1} << 16;
  const int64_t n = mask.size();
  const int64_t chunks = (n + kChunk - 1) / kChunk;
  const uint64_t base = ctx.device->rng()();
  const double keep = 1.0 - p.p;
  const uint64_t threshold = static_cast<uint64_t>(std::ldexp(keep, 32));
  const T scale = static_cast<T>(1.0 / keep);
  T* m = mask.data<T>();
  ParallelFor(ctx, chunks, static_cast<double>(kChunk) * 4, [&](int64_t b, int64_t e) {
    for (int64_t c = b; c < e; ++c) {
      SplitMix64 gen{SplitMix64{base + static_cast<uint64_t>(c) * 0xd1b54a32d192ed03ull}.Next()};
      const int64_t lo = c * kChunk, hi = std::min(n, lo + kChunk);
      for (int64_t i = lo; i < hi; i += 2) {
        const uint64_t r = gen.Next();
        m[i] = scale * static_cast<T>((r >> 32) < threshold);
        if (i + 1 < hi) m[i + 1] = scale * static_cast<T>((r & 0xffffffffu) < threshold);
      }
    }
  });
  return MultiplyByMask<T>(ctx, x, mask, y);
}

template <typename T>
absl::Status DropoutBackwardT(const KernelContext& ctx) {
  return MultiplyByMask<T>(ctx, ctx.inputs[0], ctx.inputs[1], ctx.outputs[0]);
}

absl::Status DropoutForward(const KernelContext& ctx) {
  SYMX_FLOAT_SWITCH(ctx, ctx.inputs[0].dtype(), T, return DropoutForwardT<T>(ctx));
  return absl::OkStatus();
}

absl::Status DropoutBackward(const KernelContext& ctx) {
  SYMX_FLOAT_SWITCH(ctx, ctx.outputs[0].dtype(), T, return DropoutBackwardT<T>(ctx));
  return absl::OkStatus();
}

SYMX_REGISTER_KERNEL("Dropout", kCPU, .fn = DropoutForward,
                     .widening = HalfWidening::kFloat16AndBFloat16);
SYMX_REGISTER_KERNEL("_backward_Dropout", kCPU, .fn = DropoutBackward,
                     .widening = HalfWidening::kFloat16AndBFloat16);

}  // namespace
}  // namespace cpu

}  // namespace symx
