// CPU kernels for Pooling and _backward_Pooling (and the legacy Pooling_v1): max, avg, sum and lp
// pooling over 1-D, 2-D and 3-D windows of channel-first data, global pooling, and the
// valid/full/same output conventions. Every (sample, channel) plane is
// independent, so planes are spread over the device's pool. Within a plane the
// forward reduces each output row's window rows elementwise first (vectorized),
// then each output's span of that row.
//
// MXNet's window rules, followed here:
// - A window starts at o * stride - pad and is cut at input size + pad; that
//   length is the divisor of avg pooling with count_include_pad (the default).
//   Elements outside the input are then skipped (max ignores the padding, sum
//   and lp add zeros); without count_include_pad avg divides by the elements
//   actually inside the input.
// - global_pool: the window is the whole plane (stride 1, no padding).
// - 'same' (1-D, no padding): ceil(size / stride) windows, cut at the end.
// - max backward sends each output's gradient to the first element of its
//   window (in row-major order) equal to the output; lp backward uses
//   grad * (x / out)^(p - 1).
// - lp: p = 1 is the sum, p = 2 the square root of the sum of squares, p = 3
//   the (sign-preserving) cube root of the sum of cubes, as in MXNet; larger p
//   (which MXNet does not implement) extend the rule: odd p keeps the sign of
//   the sum.
// - A window with no element inside the input gives the lowest finite value
//   for max and 0 for the others.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "devices/cpu/kernel_util.h"
#include "devices/geometry/pool_geom.h"
#include "graph/error.h"
#include "graph/ops/pooling.h"
#ifdef SYMX_WITH_ONEDNN
#include "devices/cpu/onednn.h"
#include "devices/cpu/onednn_pool.h"
#endif

namespace symx {
namespace cpu {
namespace {

// One dim of an output position's window: [lo, hi) inside the input, and the
// length counted by avg pooling with padding included.
struct Span {
  int64_t lo, hi, padded;
};

inline Span SpanAt(const PoolGeom& g, int d, int64_t o) {
  const int64_t start = o * g.stride[d] - g.pad[d];
  const int64_t end = std::min(start + g.kernel[d], g.in[d] + g.pad[d]);
  return Span{std::max<int64_t>(start, 0), std::min(end, g.in[d]),
              std::max<int64_t>(end - start, 0)};
}

inline int64_t Len(const Span& s) { return std::max<int64_t>(s.hi - s.lo, 0); }

// Visits every output position of a plane in order:
// fn(flat output index, z span, y span, x span, avg divisor).
template <typename Fn>
inline void ForEachWindow(const PoolGeom& g, Fn&& fn) {
  int64_t idx = 0;
  for (int64_t oz = 0; oz < g.out[0]; ++oz) {
    const Span z = SpanAt(g, 0, oz);
    for (int64_t oy = 0; oy < g.out[1]; ++oy) {
      const Span y = SpanAt(g, 1, oy);
      for (int64_t ox = 0; ox < g.out[2]; ++ox, ++idx) {
        const Span x = SpanAt(g, 2, ox);
        const int64_t count =
            g.count_include_pad ? z.padded * y.padded * x.padded : Len(z) * Len(y) * Len(x);
        fn(idx, z, y, x, count);
      }
    }
  }
}

// x^p for an integer p >= 1.
template <typename T>
inline T IntPow(T x, int64_t p) {
  T r = x;
  for (int64_t i = 1; i < p; ++i) r *= x;
  return r;
}

template <typename T>
inline T LpRoot(T sum, int64_t p) {
  if (p == 1) return sum;
  if (p == 2) return std::sqrt(sum);
  if (p == 3) return std::cbrt(sum);
  if (p % 2 == 1) {
    return sum < 0 ? -std::pow(-sum, T(1) / p) : std::pow(sum, T(1) / p);
  }
  return std::pow(sum, T(1) / p);
}

// Pools one plane. For each output row (z, y) the window's input rows are first
// reduced elementwise into `rowbuf` (in[2] values, vectorized), then each output
// reduces its x span of that buffer.
template <PoolType kType, typename T>
void PoolPlane(const PoolGeom& g, const T* in, T* out, T* rowbuf) {
  const int64_t width = g.in[2];
  const T identity = kType == PoolType::kMax ? std::numeric_limits<T>::lowest() : T(0);
  int64_t idx = 0;
  for (int64_t oz = 0; oz < g.out[0]; ++oz) {
    const Span z = SpanAt(g, 0, oz);
    for (int64_t oy = 0; oy < g.out[1]; ++oy) {
      const Span y = SpanAt(g, 1, oy);
      std::fill(rowbuf, rowbuf + width, identity);
      for (int64_t iz = z.lo; iz < z.hi; ++iz) {
        for (int64_t iy = y.lo; iy < y.hi; ++iy) {
          const T* row = in + (iz * g.in[1] + iy) * width;
          if constexpr (kType == PoolType::kMax) {
            for (int64_t ix = 0; ix < width; ++ix) rowbuf[ix] = std::max(rowbuf[ix], row[ix]);
          } else if constexpr (kType == PoolType::kLp) {
            for (int64_t ix = 0; ix < width; ++ix) rowbuf[ix] += IntPow(row[ix], g.p);
          } else {
            for (int64_t ix = 0; ix < width; ++ix) rowbuf[ix] += row[ix];
          }
        }
      }
      const int64_t yz_padded = z.padded * y.padded, yz_inside = Len(z) * Len(y);
      for (int64_t ox = 0; ox < g.out[2]; ++ox, ++idx) {
        const Span x = SpanAt(g, 2, ox);
        T acc = identity;
        for (int64_t ix = x.lo; ix < x.hi; ++ix) {
          if constexpr (kType == PoolType::kMax) {
            acc = std::max(acc, rowbuf[ix]);
          } else {
            acc += rowbuf[ix];
          }
        }
        if constexpr (kType == PoolType::kAvg) {
          const int64_t count = g.count_include_pad ? yz_padded * x.padded : yz_inside * Len(x);
          acc = count > 0 ? acc / static_cast<T>(count) : T(0);
        }
        if constexpr (kType == PoolType::kLp) acc = LpRoot(acc, g.p);
        out[idx] = acc;
      }
    }
  }
}

// One plane of an operand: its first element and the distance between
// neighbours (1 stored plain; the channel count stored channels-last).
template <typename T>
struct PlaneView {
  T* at;
  int64_t step;
  T& operator[](int64_t i) const { return at[i * step]; }
};

template <PoolType kType, typename T>
void PoolPlaneBackward(const PoolGeom& g, PlaneView<const T> dy, PlaneView<const T> in,
                       PlaneView<const T> out, PlaneView<T> dx) {
  for (int64_t i = 0; i < g.in_size; ++i) dx[i] = T(0);
  ForEachWindow(g, [&](int64_t idx, const Span& z, const Span& y, const Span& x, int64_t count) {
    const T grad = dy[idx];
    if constexpr (kType == PoolType::kMax) {
      // The first element (row-major) equal to the output takes the gradient.
      const T target = out[idx];
      for (int64_t iz = z.lo; iz < z.hi; ++iz) {
        for (int64_t iy = y.lo; iy < y.hi; ++iy) {
          const int64_t base = (iz * g.in[1] + iy) * g.in[2];
          for (int64_t ix = x.lo; ix < x.hi; ++ix) {
            if (in[base + ix] == target) {
              dx[base + ix] += grad;
              return;
            }
          }
        }
      }
    } else {
      T share = grad;
      if constexpr (kType == PoolType::kAvg) {
        share = count > 0 ? grad / static_cast<T>(count) : T(0);
      }
      const T o = out[idx];
      for (int64_t iz = z.lo; iz < z.hi; ++iz) {
        for (int64_t iy = y.lo; iy < y.hi; ++iy) {
          const int64_t base = (iz * g.in[1] + iy) * g.in[2];
          for (int64_t ix = x.lo; ix < x.hi; ++ix) {
            if constexpr (kType == PoolType::kLp) {
              dx[base + ix] += g.p == 1 ? grad : grad * IntPow(in[base + ix] / o, g.p - 1);
            } else {
              dx[base + ix] += share;
            }
          }
        }
      }
    }
  });
}

// Runs fn(std::integral_constant<PoolType, type>) for the geometry's pool type.
template <typename Fn>
void DispatchPoolType(PoolType type, Fn&& fn) {
  switch (type) {
    case PoolType::kMax:
      fn(std::integral_constant<PoolType, PoolType::kMax>());
      break;
    case PoolType::kAvg:
      fn(std::integral_constant<PoolType, PoolType::kAvg>());
      break;
    case PoolType::kSum:
      fn(std::integral_constant<PoolType, PoolType::kSum>());
      break;
    case PoolType::kLp:
      fn(std::integral_constant<PoolType, PoolType::kLp>());
      break;
  }
}

template <typename T>
absl::Status PoolingForwardT(const KernelContext& ctx) {
  PoolGeom g;
  SYMX_RETURN_IF_ERROR(MakePoolGeom(ctx, ctx.inputs[0].shape(), ctx.outputs[0].shape(), &g));
  const T* in = ctx.inputs[0].data<T>();
  T* out = ctx.outputs[0].data<T>();
  const double cost = static_cast<double>(g.out_size) * static_cast<double>(g.window) + 1;
  DispatchPoolType(g.type, [&](auto type) {
    ParallelFor(ctx, g.planes, cost, [&](int64_t begin, int64_t end) {
      std::vector<T> rowbuf(g.in[2]);
      for (int64_t pl = begin; pl < end; ++pl) {
        PoolPlane<decltype(type)::value, T>(g, in + pl * g.in_size, out + pl * g.out_size,
                                            rowbuf.data());
      }
    });
  });
  return absl::OkStatus();
}

absl::Status PoolingForward(const KernelContext& ctx) {
#ifdef SYMX_WITH_ONEDNN
  if (ctx.state != nullptr) return RunOnednnStep(ctx);
#endif
  SYMX_RETURN_IF_ERROR(RequirePlainLayouts(ctx));
  SYMX_FLOAT_SWITCH(ctx, ctx.inputs[0].dtype(), T, return PoolingForwardT<T>(ctx));
}

// The backward ops' inputs are (ograd, data, output): the output and its
// gradient must agree.
absl::Status CheckOutputAndGradient(const KernelContext& ctx) {
  if (ctx.inputs[2].shape() == ctx.inputs[0].shape()) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(ctx.Where(), ": output ", ctx.inputs[2].shape().ToString(),
                   " does not match its gradient ", ctx.inputs[0].shape().ToString()));
}

// Inputs: ograd, data, output. Output: grad data.
template <typename T>
absl::Status PoolingBackwardT(const KernelContext& ctx) {
  PoolGeom g;
  SYMX_RETURN_IF_ERROR(MakePoolGeom(ctx, ctx.inputs[1].shape(), ctx.inputs[0].shape(), &g));
  SYMX_RETURN_IF_ERROR(CheckOutputAndGradient(ctx));
  if (!ctx.req.empty() && ctx.req[0] == OpReq::kNull) return absl::OkStatus();
  const T* dy = ctx.inputs[0].data<T>();
  const T* in = ctx.inputs[1].data<T>();
  const T* out = ctx.inputs[2].data<T>();
  T* dx = ctx.outputs[0].data<T>();
  // Each operand plain or channels-last on its own (the layout plan decides
  // them apart): plane (n, c) of one with `size` elements per plane.
  const int64_t channels = ctx.inputs[1].shape()[1];
  auto plane = [&](auto* base, bool channels_last, int64_t size, int64_t pl) {
    using V = PlaneView<std::remove_pointer_t<decltype(base)>>;
    if (!channels_last) return V{base + pl * size, 1};
    const int64_t n = pl / channels, c = pl % channels;
    return V{base + n * channels * size + c, channels};
  };
  const bool dy_cl = ctx.InputChannelsLast(0), in_cl = ctx.InputChannelsLast(1),
             out_cl = ctx.InputChannelsLast(2), dx_cl = ctx.OutputChannelsLast(0);
  const double cost =
      static_cast<double>(g.out_size) * static_cast<double>(g.window) + g.in_size + 1;
  DispatchPoolType(g.type, [&](auto type) {
    ParallelFor(ctx, g.planes, cost, [&](int64_t begin, int64_t end) {
      for (int64_t pl = begin; pl < end; ++pl) {
        PoolPlaneBackward<decltype(type)::value, T>(
            g, plane(dy, dy_cl, g.out_size, pl), plane(in, in_cl, g.in_size, pl),
            plane(out, out_cl, g.out_size, pl), plane(dx, dx_cl, g.in_size, pl));
      }
    });
  });
  return absl::OkStatus();
}

absl::Status PoolingBackward(const KernelContext& ctx) {
#ifdef SYMX_WITH_ONEDNN
  if (ctx.state != nullptr) return RunOnednnStep(ctx);
#endif
  SYMX_FLOAT_SWITCH(ctx, ctx.inputs[1].dtype(), T, return PoolingBackwardT<T>(ctx));
}

// Every operand of the backward may be channels-last, each on its own (data
// with one to three spatial dims).
void PoolingBackwardChannelsLast(const NodeAttrs& attrs, const std::vector<Shape>& in,
                                 const std::vector<Shape>& out, DType dtype,
                                 const EngineOptions& /*options*/, std::vector<bool>* in_cl,
                                 std::vector<bool>* out_cl) {
  if (in.size() < 3 || out.empty() || in[1].ndim() < 3 || in[1].ndim() > 5) return;
  if (dtype != DType::kFloat32 && dtype != DType::kFloat64) return;
  for (size_t i = 0; i < 3; ++i) (*in_cl)[i] = true;
  (*out_cl)[0] = true;
}

// Pooling_v1 (devices/geometry/pool_geom.h gives its window rules). avg
// multiplies by the reciprocal of the kernel size computed in float, as MXNet
// does (also for float64 data), so results match it to the bit.
template <typename T>
inline T PoolV1Scale(const PoolGeom& g) {
  return g.type == PoolType::kAvg ? static_cast<T>(1.0f / static_cast<float>(g.window)) : T(1);
}

template <typename T>
void PoolV1Plane(const PoolGeom& g, const T* in, T* out) {
  const int64_t h = g.in[1], w = g.in[2];
  const int64_t hp = h + 2 * g.pad[1], wp = w + 2 * g.pad[2];
  const T scale = PoolV1Scale<T>(g);
  for (int64_t oy = 0; oy < g.out[1]; ++oy) {
    const int64_t y0 = oy * g.stride[1], y1 = std::min(y0 + g.kernel[1], hp);
    for (int64_t ox = 0; ox < g.out[2]; ++ox) {
      const int64_t x0 = ox * g.stride[2], x1 = std::min(x0 + g.kernel[2], wp);
      T acc = g.type == PoolType::kMax ? std::numeric_limits<T>::lowest() : T(0);
      for (int64_t py = y0; py < y1; ++py) {
        const int64_t iy = py - g.pad[1];
        for (int64_t px = x0; px < x1; ++px) {
          const int64_t ix = px - g.pad[2];
          const T v = iy >= 0 && iy < h && ix >= 0 && ix < w ? in[iy * w + ix] : T(0);
          acc = g.type == PoolType::kMax ? std::max(acc, v) : acc + v;
        }
      }
      out[oy * g.out[2] + ox] = g.type == PoolType::kAvg ? scale * acc : acc;
    }
  }
}

// Each input element gathers the gradient of every window holding it; under
// max pooling, of every window whose maximum it equals (ties all receive it).
template <typename T>
void PoolV1PlaneBackward(const PoolGeom& g, const T* dy, const T* in, const T* out, T* dx) {
  const int64_t w = g.in[2];
  const T scale = PoolV1Scale<T>(g);
  for (int64_t iy = 0; iy < g.in[1]; ++iy) {
    const int64_t py = iy + g.pad[1];
    const int64_t oy0 = py < g.kernel[1] ? 0 : (py - g.kernel[1] + g.stride[1]) / g.stride[1];
    const int64_t oy1 = std::min(py / g.stride[1] + 1, g.out[1]);
    for (int64_t ix = 0; ix < w; ++ix) {
      const int64_t px = ix + g.pad[2];
      const int64_t ox0 = px < g.kernel[2] ? 0 : (px - g.kernel[2] + g.stride[2]) / g.stride[2];
      const int64_t ox1 = std::min(px / g.stride[2] + 1, g.out[2]);
      const T v = in[iy * w + ix];
      T acc = 0;
      for (int64_t oy = oy0; oy < oy1; ++oy) {
        for (int64_t ox = ox0; ox < ox1; ++ox) {
          const int64_t o = oy * g.out[2] + ox;
          if (g.type != PoolType::kMax || out[o] == v) acc += dy[o];
        }
      }
      dx[iy * w + ix] = g.type == PoolType::kAvg ? scale * acc : acc;
    }
  }
}

template <typename T>
absl::Status PoolingV1ForwardT(const KernelContext& ctx) {
  PoolGeom g;
  SYMX_RETURN_IF_ERROR(MakePoolV1Geom(ctx, ctx.inputs[0].shape(), ctx.outputs[0].shape(), &g));
  const T* in = ctx.inputs[0].data<T>();
  T* out = ctx.outputs[0].data<T>();
  const double cost = static_cast<double>(g.out_size) * static_cast<double>(g.window) + 1;
  ParallelFor(ctx, g.planes, cost, [&](int64_t begin, int64_t end) {
    for (int64_t pl = begin; pl < end; ++pl) {
      PoolV1Plane<T>(g, in + pl * g.in_size, out + pl * g.out_size);
    }
  });
  return absl::OkStatus();
}

absl::Status PoolingV1Forward(const KernelContext& ctx) {
  SYMX_RETURN_IF_ERROR(RequirePlainLayouts(ctx));
  SYMX_FLOAT_SWITCH(ctx, ctx.inputs[0].dtype(), T, return PoolingV1ForwardT<T>(ctx));
}

// Inputs: ograd, data, output. Output: grad data.
template <typename T>
absl::Status PoolingV1BackwardT(const KernelContext& ctx) {
  PoolGeom g;
  SYMX_RETURN_IF_ERROR(MakePoolV1Geom(ctx, ctx.inputs[1].shape(), ctx.inputs[0].shape(), &g));
  SYMX_RETURN_IF_ERROR(CheckOutputAndGradient(ctx));
  if (!ctx.req.empty() && ctx.req[0] == OpReq::kNull) return absl::OkStatus();
  const T* dy = ctx.inputs[0].data<T>();
  const T* in = ctx.inputs[1].data<T>();
  const T* out = ctx.inputs[2].data<T>();
  T* dx = ctx.outputs[0].data<T>();
  const double cost =
      static_cast<double>(g.out_size) * static_cast<double>(g.window) + g.in_size + 1;
  ParallelFor(ctx, g.planes, cost, [&](int64_t begin, int64_t end) {
    for (int64_t pl = begin; pl < end; ++pl) {
      PoolV1PlaneBackward<T>(g, dy + pl * g.out_size, in + pl * g.in_size, out + pl * g.out_size,
                             dx + pl * g.in_size);
    }
  });
  return absl::OkStatus();
}

absl::Status PoolingV1Backward(const KernelContext& ctx) {
  SYMX_RETURN_IF_ERROR(RequirePlainLayouts(ctx));
  SYMX_FLOAT_SWITCH(ctx, ctx.inputs[1].dtype(), T, return PoolingV1BackwardT<T>(ctx));
}

}  // namespace

#ifdef SYMX_WITH_ONEDNN
constexpr PrepareFn kPoolingPrepare = PrepareOnednnPooling;
constexpr PrepareFn kPoolingBackwardPrepare = PrepareOnednnPoolingBackward;
constexpr ChannelsLastFn kPoolingChannelsLast = PoolingChannelsLast;
#else
constexpr PrepareFn kPoolingPrepare = nullptr;
constexpr PrepareFn kPoolingBackwardPrepare = nullptr;
constexpr ChannelsLastFn kPoolingChannelsLast = nullptr;
#endif

SYMX_REGISTER_KERNEL("Pooling", kCPU, .fn = PoolingForward, .prepare = kPoolingPrepare,
                     .channels_last = kPoolingChannelsLast,
                     .widening = HalfWidening::kFloat16AndBFloat16);
SYMX_REGISTER_KERNEL("_backward_Pooling", kCPU, .fn = PoolingBackward,
                     .prepare = kPoolingBackwardPrepare,
                     .channels_last = PoolingBackwardChannelsLast,
                     .widening = HalfWidening::kFloat16AndBFloat16);
SYMX_REGISTER_KERNEL("Pooling_v1", kCPU, .fn = PoolingV1Forward,
                     .widening = HalfWidening::kFloat16AndBFloat16);
SYMX_REGISTER_KERNEL("_backward_Pooling_v1", kCPU, .fn = PoolingV1Backward,
                     .widening = HalfWidening::kFloat16AndBFloat16);

}  // namespace cpu
}  // namespace symx
