// CPU kernels for Embedding, Dropout and UpSampling and their backward ops.
//
// Embedding: indices may have any numeric dtype; each is truncated to an
// integer and clipped to [0, input_dim - 1] as MXNet's Embedding (take with
// clip mode) does, so an out-of-range or negative index reads (and its
// gradient goes to) the first or last row instead of failing; NaN reads row 0.
// The weight gradient is dense (sparse_grad=True gives the same values in a
// dense array); the index gradient is zero.
//
// Dropout: while training (or always with mode='always') and p > 0 the mask
// holds 1 / (1 - p) where an element is kept (probability 1 - p) and 0
// elsewhere, so output = data * mask and the gradient is ograd * mask, as in
// MXNet. With `axes` the mask has size 1 along them and is broadcast. Random
// numbers come from the device's generator (ctx.device->rng()), which seeds
// one fast generator per fixed chunk of the mask. Otherwise the output is the data
// and the mask is all ones.
//
// UpSampling: nearest repeats each input up to the output size (inputs after
// the first may be smaller; each is repeated by output size / its size) and
// concatenates or sums them along channels; its gradient sums each repeated
// block. Bilinear is MXNet's depthwise transposed convolution with the learned
// (C, 1, k, k) weight, k = 2 * scale - scale % 2, stride scale and padding
// ceil((scale - 1) / 2), without bias.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/cpu/kernel_util.h"
#include "devices/upsampling_geometry.h"
#include "devices/cpu/reduce_kernels.h"
#include "graph/error.h"
#include "graph/ops/dropout.h"
#include "graph/ops/embedding.h"
#include "graph/ops/upsampling.h"

namespace symx {
namespace cpu {
namespace {

template <typename T>
using ArrayMap = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;
template <typename T>
using ConstArrayMap = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;

// ----------------------------------------------------------------------------- Embedding

// The table row for an index value: truncated, then clipped to [0, rows - 1].
inline int64_t EmbeddingRow(double v, int64_t rows) {
  if (!(v > 0)) return 0;  // negative, zero or NaN
  if (v >= static_cast<double>(rows - 1)) return rows - 1;
  return static_cast<int64_t>(v);
}

// Runs fn(index_ptr) with the indices' storage type as I.
template <typename Fn>
absl::Status WithIndexType(const KernelContext& ctx, const Tensor& idx, Fn&& fn) {
  if (idx.dtype() == DType::kUnknown) return UnsupportedDType(ctx, idx.dtype());
  SYMX_DTYPE_SWITCH_ALL(idx.dtype(), I, fn(idx.data<I>()));
  return absl::OkStatus();
}

absl::Status CheckEmbeddingTable(const KernelContext& ctx, const Tensor& table, int64_t rows,
                                 int64_t cols) {
  if (table.shape().ndim() != 2 || table.shape()[0] != rows || table.shape()[1] != cols) {
    return Fail(
        ctx, absl::StrCat("weight ", table.DebugString(), " should be (", rows, ", ", cols, ")"));
  }
  return absl::OkStatus();
}

template <typename T>
absl::Status EmbeddingForwardT(const KernelContext& ctx) {
  const auto& p = ctx.param<EmbeddingParam>();
  const Tensor& idx = ctx.inputs[0];
  const Tensor& weight = ctx.inputs[1];
  const Tensor& out = ctx.outputs[0];
  const int64_t rows = p.input_dim, dim = p.output_dim;
  SYMX_RETURN_IF_ERROR(CheckEmbeddingTable(ctx, weight, rows, dim));
  if (out.size() != idx.size() * dim || out.dtype() != weight.dtype()) {
    return Fail(ctx, absl::StrCat("output ", out.DebugString(), " does not match ",
                                          idx.size(), " indices of ", dim, " values"));
  }
  const T* w = weight.data<T>();
  T* y = out.data<T>();
  return WithIndexType(ctx, idx, [&](const auto* ix) {
    ParallelFor(ctx, idx.size(), static_cast<double>(dim), [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        const int64_t r = EmbeddingRow(ToDouble(ix[i]), rows);
        std::memcpy(y + i * dim, w + r * dim, static_cast<size_t>(dim) * sizeof(T));
      }
    });
  });
}

template <typename T>
absl::Status EmbeddingBackwardT(const KernelContext& ctx) {
  const auto& p = ctx.param<EmbeddingParam>();
  const Tensor& ograd = ctx.inputs[0];
  const Tensor& idx = ctx.inputs[1];
  const Tensor& gidx = ctx.outputs[0];
  const Tensor& gw = ctx.outputs[1];
  const int64_t rows = p.input_dim, dim = p.output_dim;
  SYMX_RETURN_IF_ERROR(CheckEmbeddingTable(ctx, gw, rows, dim));
  if (ograd.size() != idx.size() * dim || ograd.dtype() != gw.dtype()) {
    return Fail(
        ctx, absl::StrCat("output gradient ", ograd.DebugString(), " does not match ", idx.size(),
                          " indices of ", dim, " values"));
  }
  std::memset(gidx.raw_data(), 0, gidx.nbytes());
  T* g = gw.data<T>();
  const T* og = ograd.data<T>();
  std::fill(g, g + gw.size(), T(0));
  const int64_t n = idx.size();
  // Scatter-add without races: each task owns a range of table rows and scans
  // every index for rows in its range.
  const int64_t tasks = std::max<int64_t>(
      1, std::min<int64_t>(rows,
                           2 * static_cast<int64_t>(StepThreads(ctx))));
  return WithIndexType(ctx, idx, [&](const auto* ix) {
    const double cost = static_cast<double>(n) * (1.0 + static_cast<double>(dim) / tasks);
    ParallelFor(ctx, tasks, cost, [&](int64_t b, int64_t e) {
      const int64_t lo = rows * b / tasks, hi = rows * e / tasks;
      for (int64_t i = 0; i < n; ++i) {
        const int64_t r = EmbeddingRow(ToDouble(ix[i]), rows);
        if (r < lo || r >= hi) continue;
        T* dst = g + r * dim;
        const T* src = og + i * dim;
        for (int64_t c = 0; c < dim; ++c) dst[c] += src[c];
      }
    });
  });
}

absl::Status EmbeddingForward(const KernelContext& ctx) {
  SYMX_FLOAT_SWITCH(ctx, ctx.inputs[1].dtype(), T, return EmbeddingForwardT<T>(ctx));
  return absl::OkStatus();
}

absl::Status EmbeddingBackward(const KernelContext& ctx) {
  SYMX_FLOAT_SWITCH(ctx, ctx.outputs[1].dtype(), T, return EmbeddingBackwardT<T>(ctx));
  return absl::OkStatus();
}

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

// ----------------------------------------------------------------------------- UpSampling

template <typename T>
absl::Status NearestForward(const KernelContext& ctx, const UpSamplingParam& p) {
  const Tensor& out = ctx.outputs[0];
  SYMX_ASSIGN_OR_RETURN(Nchw o, AsNchw(ctx, out, "output"));
  const bool sum = p.multi_input_mode == "sum";
  SYMX_RETURN_IF_ERROR(CheckNearest(ctx, ctx.inputs, o, sum));
  if (out.size() == 0) return absl::OkStatus();
  T* y = out.data<T>();
  int64_t c_off = 0;
  for (size_t k = 0; k < ctx.inputs.size(); ++k) {
    const Tensor& in = ctx.inputs[k];
    const Nchw s{in.shape()[0], in.shape()[1], in.shape()[2], in.shape()[3]};
    const int64_t sh = o.h / s.h, sw = o.w / s.w;
    const bool add = sum && k > 0;
    const T* x = in.data<T>();
    const int64_t planes = s.n * s.c;
    const int64_t off = c_off;
    ParallelFor(ctx, planes, static_cast<double>(o.plane()), [&](int64_t b, int64_t e) {
      for (int64_t pl = b; pl < e; ++pl) {
        const int64_t n = pl / s.c, c = pl % s.c;
        const T* src = x + pl * s.plane();
        T* dst = y + (n * o.c + off + c) * o.plane();
        for (int64_t iy = 0; iy < s.h; ++iy) {
          const T* srow = src + iy * s.w;
          T* first = dst + iy * sh * o.w;
          for (int64_t r = 0; r < sh; ++r) {
            T* drow = first + r * o.w;
            if (add) {
              for (int64_t ix = 0; ix < s.w; ++ix) {
                for (int64_t d = 0; d < sw; ++d) drow[ix * sw + d] += srow[ix];
              }
            } else if (r == 0) {
              for (int64_t ix = 0; ix < s.w; ++ix) {
                for (int64_t d = 0; d < sw; ++d) drow[ix * sw + d] = srow[ix];
              }
            } else {
              std::memcpy(drow, first, static_cast<size_t>(o.w) * sizeof(T));
            }
          }
        }
      }
    });
    if (!sum) c_off += s.c;
  }
  return absl::OkStatus();
}

template <typename T>
absl::Status NearestBackward(const KernelContext& ctx, const UpSamplingParam& p) {
  const Tensor& og = ctx.inputs[0];
  SYMX_ASSIGN_OR_RETURN(Nchw o, AsNchw(ctx, og, "output gradient"));
  const bool sum = p.multi_input_mode == "sum";
  SYMX_RETURN_IF_ERROR(CheckNearest(ctx, ctx.outputs, o, sum));
  const T* g = og.data<T>();
  int64_t c_off = 0;
  for (const Tensor& grad : ctx.outputs) {
    const Nchw s{grad.shape()[0], grad.shape()[1], grad.shape()[2], grad.shape()[3]};
    const int64_t sh = o.h / s.h, sw = o.w / s.w;
    T* gx = grad.data<T>();
    const int64_t off = c_off;
    ParallelFor(ctx, s.n * s.c, static_cast<double>(o.plane()), [&](int64_t b, int64_t e) {
      for (int64_t pl = b; pl < e; ++pl) {
        const int64_t n = pl / s.c, c = pl % s.c;
        const T* src = g + (n * o.c + off + c) * o.plane();
        T* dst = gx + pl * s.plane();
        std::fill(dst, dst + s.plane(), T(0));
        for (int64_t oy = 0; oy < o.h; ++oy) {
          T* drow = dst + (oy / sh) * s.w;
          const T* srow = src + oy * o.w;
          for (int64_t ix = 0; ix < s.w; ++ix) {
            T acc = drow[ix];
            for (int64_t d = 0; d < sw; ++d) acc += srow[ix * sw + d];
            drow[ix] = acc;
          }
        }
      }
    });
    if (!sum) c_off += s.c;
  }
  return absl::OkStatus();
}

template <typename T>
absl::Status BilinearForward(const KernelContext& ctx, const UpSamplingParam& p) {
  const Tensor& data = ctx.inputs[0];
  const Tensor& weight = ctx.inputs[1];
  const Tensor& out = ctx.outputs[0];
  SYMX_ASSIGN_OR_RETURN(BilinearGeometry g, Bilinear(ctx, p, data, weight, out));
  const T* x = data.data<T>();
  const T* w = weight.data<T>();
  T* y = out.data<T>();
  const int64_t k = g.k;
  ParallelFor(ctx, g.in.n * g.in.c, static_cast<double>(g.in.plane() * k * k),
              [&](int64_t b, int64_t e) {
                for (int64_t pl = b; pl < e; ++pl) {
                  const int64_t c = pl % g.in.c;
                  const T* src = x + pl * g.in.plane();
                  const T* wc = w + c * k * k;
                  T* dst = y + pl * g.out.plane();
                  std::fill(dst, dst + g.out.plane(), T(0));
                  for (int64_t iy = 0; iy < g.in.h; ++iy) {
                    for (int64_t ix = 0; ix < g.in.w; ++ix) {
                      const T v = src[iy * g.in.w + ix];
                      for (int64_t ky = 0; ky < k; ++ky) {
                        const int64_t oy = iy * g.stride - g.pad + ky;
                        if (oy < 0 || oy >= g.out.h) continue;
                        T* drow = dst + oy * g.out.w;
                        for (int64_t kx = 0; kx < k; ++kx) {
                          const int64_t ox = ix * g.stride - g.pad + kx;
                          if (ox >= 0 && ox < g.out.w) drow[ox] += v * wc[ky * k + kx];
                        }
                      }
                    }
                  }
                }
              });
  return absl::OkStatus();
}

template <typename T>
absl::Status BilinearBackward(const KernelContext& ctx, const UpSamplingParam& p) {
  const Tensor& og = ctx.inputs[0];
  const Tensor& data = ctx.inputs[1];
  const Tensor& weight = ctx.inputs[2];
  const Tensor& gdata = ctx.outputs[0];
  const Tensor& gweight = ctx.outputs[1];
  SYMX_ASSIGN_OR_RETURN(BilinearGeometry g, Bilinear(ctx, p, data, weight, og));
  if (gdata.size() != data.size() || gweight.size() != weight.size()) {
    return Fail(ctx, "gradient outputs do not match data and weight");
  }
  const T* go = og.data<T>();
  const T* x = data.data<T>();
  const T* w = weight.data<T>();
  T* gx = gdata.data<T>();
  T* gw = gweight.data<T>();
  const int64_t k = g.k;
  // For input pixel (iy, ix): sum over the kernel taps of og * (w or x).
  auto taps = [&](const T* gplane, int64_t iy, int64_t ix, auto&& fn) {
    for (int64_t ky = 0; ky < k; ++ky) {
      const int64_t oy = iy * g.stride - g.pad + ky;
      if (oy < 0 || oy >= g.out.h) continue;
      const T* grow = gplane + oy * g.out.w;
      for (int64_t kx = 0; kx < k; ++kx) {
        const int64_t ox = ix * g.stride - g.pad + kx;
        if (ox >= 0 && ox < g.out.w) fn(ky * k + kx, grow[ox]);
      }
    }
  };
  const double cost = static_cast<double>(g.in.plane() * k * k);
  ParallelFor(ctx, g.in.n * g.in.c, cost, [&](int64_t b, int64_t e) {
    for (int64_t pl = b; pl < e; ++pl) {
      const int64_t c = pl % g.in.c;
      const T* gplane = go + pl * g.out.plane();
      const T* wc = w + c * k * k;
      T* dst = gx + pl * g.in.plane();
      for (int64_t iy = 0; iy < g.in.h; ++iy) {
        for (int64_t ix = 0; ix < g.in.w; ++ix) {
          T acc = 0;
          taps(gplane, iy, ix, [&](int64_t t, T gv) { acc += gv * wc[t]; });
          dst[iy * g.in.w + ix] = acc;
        }
      }
    }
  });
  // Weight gradient: one task per channel, summing over the batch.
  ParallelFor(ctx, g.in.c, cost * static_cast<double>(g.in.n), [&](int64_t b, int64_t e) {
    for (int64_t c = b; c < e; ++c) {
      T* gwc = gw + c * k * k;
      std::fill(gwc, gwc + k * k, T(0));
      for (int64_t n = 0; n < g.in.n; ++n) {
        const int64_t pl = n * g.in.c + c;
        const T* gplane = go + pl * g.out.plane();
        const T* src = x + pl * g.in.plane();
        for (int64_t iy = 0; iy < g.in.h; ++iy) {
          for (int64_t ix = 0; ix < g.in.w; ++ix) {
            const T v = src[iy * g.in.w + ix];
            taps(gplane, iy, ix, [&](int64_t t, T gv) { gwc[t] += gv * v; });
          }
        }
      }
    }
  });
  return absl::OkStatus();
}

absl::Status UpSamplingForward(const KernelContext& ctx) {
  const auto& p = ctx.param<UpSamplingParam>();
  for (const Tensor& t : ctx.inputs) {
    if (t.dtype() != ctx.outputs[0].dtype()) return UnsupportedDType(ctx, t.dtype());
  }
  SYMX_FLOAT_SWITCH(ctx, ctx.outputs[0].dtype(), T,
                    return p.bilinear() ? BilinearForward<T>(ctx, p) : NearestForward<T>(ctx, p));
  return absl::OkStatus();
}

absl::Status UpSamplingBackward(const KernelContext& ctx) {
  const auto& p = ctx.param<UpSamplingParam>();
  for (const Tensor& t : ctx.outputs) {
    if (t.dtype() != ctx.inputs[0].dtype()) return UnsupportedDType(ctx, t.dtype());
  }
  SYMX_FLOAT_SWITCH(ctx, ctx.inputs[0].dtype(), T,
                    return p.bilinear() ? BilinearBackward<T>(ctx, p) : NearestBackward<T>(ctx, p));
  return absl::OkStatus();
}

SYMX_REGISTER_KERNEL("Embedding", kCPU, .fn = EmbeddingForward,
                     .widening = HalfWidening::kFloat16AndBFloat16);
SYMX_REGISTER_KERNEL("_backward_Embedding", kCPU, .fn = EmbeddingBackward,
                     .widening = HalfWidening::kFloat16AndBFloat16);
SYMX_REGISTER_KERNEL("Dropout", kCPU, .fn = DropoutForward,
                     .widening = HalfWidening::kFloat16AndBFloat16);
SYMX_REGISTER_KERNEL("_backward_Dropout", kCPU, .fn = DropoutBackward,
                     .widening = HalfWidening::kFloat16AndBFloat16);
SYMX_REGISTER_KERNEL("UpSampling", kCPU, UpSamplingForward);
SYMX_REGISTER_KERNEL("_backward_UpSampling", kCPU, UpSamplingBackward);

}  // namespace
}  // namespace cpu
}  // namespace symx
