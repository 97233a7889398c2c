// CPU kernels of the resample family (graph/ops/resample.cc): UpSampling,
// _contrib_AdaptiveAvgPooling2D and _contrib_BilinearResize2D, with their
// backward ops.
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
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "devices/geometry/axis_layout.h"
#include "devices/cpu/column_loops.h"
#include "devices/cpu/kernel_util.h"
#include "devices/cpu/reduce_kernels.h"
#include "devices/dtype_switch.h"
#include "devices/geometry/resize_map.h"
#include "devices/geometry/strided_view.h"
#include "devices/geometry/upsampling_geometry.h"
#include "graph/error.h"
#include "graph/infer_util.h"
#include "graph/ops/resample.h"

namespace symx {
namespace cpu {
namespace {

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

SYMX_REGISTER_KERNEL("UpSampling", kCPU, UpSamplingForward);
SYMX_REGISTER_KERNEL("_backward_UpSampling", kCPU, UpSamplingBackward);

}  // namespace
}  // namespace cpu

namespace cpu {
namespace {

using column_loops::Ld;
using column_loops::St;

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
  SYMX_FLOAT_STORAGE_SWITCH(
      ctx, x.dtype(), T,
      AdaptivePool<T>(ctx, x.shape(), y.shape(), x.data<T>(), y.data<T>(), true));
  return absl::OkStatus();
}

absl::Status AdaptiveAvgPoolBackward(const KernelContext& ctx) {
  const Tensor& g = ctx.inputs[0];
  const Tensor& gx = ctx.outputs[0];
  SYMX_RETURN_IF_ERROR(CheckPlanes(ctx, gx, g));
  SYMX_FLOAT_STORAGE_SWITCH(
      ctx, gx.dtype(), T,
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
  SYMX_FLOAT_STORAGE_SWITCH(
      ctx, x.dtype(), T,
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

SYMX_REGISTER_KERNEL("_contrib_AdaptiveAvgPooling2D", kCPU, AdaptiveAvgPoolForward);
SYMX_REGISTER_KERNEL("_backward_contrib_AdaptiveAvgPooling2D", kCPU, AdaptiveAvgPoolBackward);
SYMX_REGISTER_KERNEL("_contrib_BilinearResize2D", kCPU, BilinearForward);
SYMX_REGISTER_KERNEL("_backward_contrib_BilinearResize2D", kCPU, BilinearBackward);

}  // namespace
}  // namespace cpu

}  // namespace symx
