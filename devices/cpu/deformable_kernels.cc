// CPU kernels of the deformable convolutions (schemas and MXNet facts in
// graph/ops/deformable.cc): _contrib_DeformableConvolution,
// _contrib_ModulatedDeformableConvolution and their backward ops, as
// deformable im2col + GEMM, one sample at a time:
//   forward      col = im2col(data, offset, mask); out_g = W_g * col_g (+ bias)
//   data grads   col_g = W_g^T * dY_g; col2im scatters col into the data
//                gradient and gathers the offset and mask gradients
//   weight grad  dW_g += dY_g * im2col(...)_g^T
// with the samples of devices/geometry/deformable_sample.h. The column buffer
// (channels * taps rows, one column per output pixel) is the workspace.
// float16 arrives widened to float32 (HalfWidening).
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "devices/cpu/dense_kernels.h"
#include "devices/cpu/kernel_util.h"
#include "devices/geometry/deformable_geom.h"
#include "devices/geometry/deformable_sample.h"
#include "graph/error.h"
#include "graph/ops/deformable.h"

namespace symx {
namespace cpu {
namespace {

absl::Status CheckShapes(const KernelContext& ctx, const Shape& data, const Shape& out) {
  if (data.ndim() != 4 || out.ndim() != 4 || data[0] != out[0]) {
    return Fail(ctx, absl::StrCat("unexpected shapes: data ", data.ToString(), ", output ",
                                  out.ToString()));
  }
  return absl::OkStatus();
}

size_t ForwardWorkspace(const NodeAttrs& attrs, const std::vector<Shape>& in,
                        const std::vector<Shape>& out, DType dtype) {
  if (in.empty() || out.empty() || in[0].ndim() != 4 || out[0].ndim() != 4) return 0;
  const DeformGeom g = DeformGeomOf(Param<DeformableConvParam>(attrs), in[0], out[0]);
  return static_cast<size_t>(g.col_elems()) * DTypeSize(dtype);
}

// Backward inputs: ograd (the output's shape), data, ...
size_t BackwardWorkspace(const NodeAttrs& attrs, const std::vector<Shape>& in,
                         const std::vector<Shape>&, DType dtype) {
  if (in.size() < 2 || in[0].ndim() != 4 || in[1].ndim() != 4) return 0;
  const DeformGeom g = DeformGeomOf(Param<DeformableConvParam>(attrs), in[1], in[0]);
  return static_cast<size_t>(g.col_elems()) * DTypeSize(dtype);
}

// The input position (before its offset) of tap (i, j) at output pixel l.
struct TapOrigin {
  int64_t h, w;
};
inline TapOrigin OriginOf(const DeformGeom& g, int64_t i, int64_t j, int64_t l) {
  const int64_t y = l / g.out_w, x = l % g.out_w;
  return {y * g.stride_h - g.pad_h + i * g.dilate_h, x * g.stride_w - g.pad_w + j * g.dilate_w};
}

// col[(c * taps + k) * L + l] = mask * sample of channel c at tap k, pixel l.
template <typename T>
void Im2col(const KernelContext& ctx, const DeformGeom& g, const T* x, const T* offset,
            const T* mask, T* col) {
  const int64_t taps = g.taps(), L = g.out_size();
  const int64_t per_group = g.channels / g.deformable_groups;
  const DeformEdge edge = static_cast<DeformEdge>(g.edge);
  ParallelFor(ctx, g.channels, static_cast<double>(taps * L) * 12, [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) {
      const int64_t d = c / per_group;
      const T* plane = x + c * g.height * g.width;
      const T* off = offset + d * 2 * taps * L;
      const T* m = mask ? mask + d * taps * L : nullptr;
      for (int64_t k = 0; k < taps; ++k) {
        T* row = col + (c * taps + k) * L;
        for (int64_t l = 0; l < L; ++l) {
          const TapOrigin o = OriginOf(g, k / g.kernel_w, k % g.kernel_w, l);
          const T h = static_cast<T>(o.h) + off[(2 * k) * L + l];
          const T w = static_cast<T>(o.w) + off[(2 * k + 1) * L + l];
          DeformSample<T> s;
          T v = 0;
          if (MakeDeformSample<T>(edge, h, w, g.height, g.width, &s)) {
            for (int q = 0; q < 4; ++q) {
              if (s.at[q] >= 0) v += s.wt[q] * plane[s.at[q]];
            }
          }
          row[l] = m ? v * m[k * L + l] : v;
        }
      }
    }
  });
}

// From the column gradient: dx += scattered samples; doffset, dmask gathered
// over each deformable group's channels (dx, doffset, dmask may be null).
template <typename T>
void Col2im(const KernelContext& ctx, const DeformGeom& g, const T* col, const T* x,
            const T* offset, const T* mask, T* dx, T* doffset, T* dmask) {
  const int64_t taps = g.taps(), L = g.out_size();
  const int64_t per_group = g.channels / g.deformable_groups;
  const DeformEdge edge = static_cast<DeformEdge>(g.edge);
  // Deformable groups touch disjoint channels, offsets and masks.
  ParallelFor(ctx, g.deformable_groups, static_cast<double>(per_group * taps * L) * 40,
              [&](int64_t d0, int64_t d1) {
                for (int64_t d = d0; d < d1; ++d) {
                  const T* off = offset + d * 2 * taps * L;
                  for (int64_t k = 0; k < taps; ++k) {
                    for (int64_t l = 0; l < L; ++l) {
                      const TapOrigin o = OriginOf(g, k / g.kernel_w, k % g.kernel_w, l);
                      const T h = static_cast<T>(o.h) + off[(2 * k) * L + l];
                      const T w = static_cast<T>(o.w) + off[(2 * k + 1) * L + l];
                      const T m = mask ? mask[(d * taps + k) * L + l] : T(1);
                      DeformSample<T> s;
                      const bool inside = MakeDeformSample<T>(edge, h, w, g.height, g.width, &s);
                      T gh = 0, gw = 0, gm = 0;
                      for (int64_t c = d * per_group; inside && c < (d + 1) * per_group; ++c) {
                        const T top = col[(c * taps + k) * L + l];
                        const T* plane = x + c * g.height * g.width;
                        T* dplane = dx ? dx + c * g.height * g.width : nullptr;
                        for (int q = 0; q < 4; ++q) {
                          if (s.at[q] < 0) continue;
                          const T v = plane[s.at[q]];
                          gh += s.dh[q] * v * top;
                          gw += s.dw[q] * v * top;
                          gm += s.wt[q] * v * top;
                          if (dplane) dplane[s.at[q]] += s.wt[q] * m * top;
                        }
                      }
                      if (doffset) {
                        doffset[(d * 2 * taps + 2 * k) * L + l] = gh * m;
                        doffset[(d * 2 * taps + 2 * k + 1) * L + l] = gw * m;
                      }
                      if (dmask) dmask[(d * taps + k) * L + l] = gm;
                    }
                  }
                }
              });
}

// Forward inputs: data, offset, [mask], weight, [bias].
template <typename T>
absl::Status ForwardT(const KernelContext& ctx) {
  const auto& p = ctx.param<DeformableConvParam>();
  const Shape& ds = ctx.inputs[0].shape();
  const Shape& os = ctx.outputs[0].shape();
  SYMX_RETURN_IF_ERROR(CheckShapes(ctx, ds, os));
  const DeformGeom g = DeformGeomOf(p, ds, os);
  const int64_t N = ds[0], L = g.out_size(), F = p.num_filter, G = p.num_group;
  const int64_t Fg = F / G, Kdim = g.channels / G * g.taps();
  const T* x = ctx.inputs[0].data<T>();
  const T* offset = ctx.inputs[1].data<T>();
  const T* mask = p.modulated ? ctx.inputs[2].data<T>() : nullptr;
  const T* weight = ctx.inputs[p.weight_input()].data<T>();
  const T* bias = p.no_bias ? nullptr : ctx.inputs[p.weight_input() + 1].data<T>();
  T* y = ctx.outputs[0].data<T>();
  if (N * F * L == 0) return absl::OkStatus();
  if (Kdim == 0) {
    std::fill(y, y + N * F * L, T(0));
  }
  T* col = ctx.workspace.data<T>();
  const int64_t x_per = g.channels * g.height * g.width;
  const int64_t off_per = 2 * g.deformable_groups * g.taps() * L;
  const int64_t mask_per = g.deformable_groups * g.taps() * L;
  for (int64_t n = 0; n < N && Kdim > 0; ++n) {
    Im2col<T>(ctx, g, x + n * x_per, offset + n * off_per, mask ? mask + n * mask_per : nullptr,
              col);
    for (int64_t grp = 0; grp < G; ++grp) {
      Gemm<T>(ctx, true, false, false, Fg, L, Kdim, weight + grp * Fg * Kdim, Kdim,
              col + grp * Kdim * L, L, y + (n * F + grp * Fg) * L, L, false);
    }
  }
  if (bias) {
    for (int64_t n = 0; n < N; ++n) {
      for (int64_t f = 0; f < F; ++f) {
        T* row = y + (n * F + f) * L;
        for (int64_t l = 0; l < L; ++l) row[l] += bias[f];
      }
    }
  }
  return absl::OkStatus();
}

absl::Status DeformableForward(const KernelContext& ctx) {
  SYMX_FLOAT_SWITCH(ctx, ctx.inputs[0].dtype(), T, return ForwardT<T>(ctx));
}

// Backward inputs: ograd, data, offset, [mask], weight. Outputs: grads of
// data, offset, [mask], weight, [bias].
template <typename T>
absl::Status BackwardT(const KernelContext& ctx) {
  const auto& p = ctx.param<DeformableConvParam>();
  const Shape& ds = ctx.inputs[1].shape();
  const Shape& os = ctx.inputs[0].shape();
  SYMX_RETURN_IF_ERROR(CheckShapes(ctx, ds, os));
  const DeformGeom g = DeformGeomOf(p, ds, os);
  const int64_t N = ds[0], L = g.out_size(), F = p.num_filter, G = p.num_group;
  const int64_t Fg = F / G, Kdim = g.channels / G * g.taps();
  const int mask_at = p.modulated ? 2 : -1;
  const int weight_at = p.weight_input();  // in the outputs, one less than in the inputs
  const T* dy = ctx.inputs[0].data<T>();
  const T* x = ctx.inputs[1].data<T>();
  const T* offset = ctx.inputs[2].data<T>();
  const T* mask = p.modulated ? ctx.inputs[3].data<T>() : nullptr;
  const T* weight = ctx.inputs[weight_at + 1].data<T>();
  T* dx = OutputWanted(ctx.req, 0) ? ctx.outputs[0].data<T>() : nullptr;
  T* doffset = OutputWanted(ctx.req, 1) ? ctx.outputs[1].data<T>() : nullptr;
  T* dmask =
      mask_at >= 0 && OutputWanted(ctx.req, mask_at) ? ctx.outputs[mask_at].data<T>() : nullptr;
  T* dw = OutputWanted(ctx.req, weight_at) ? ctx.outputs[weight_at].data<T>() : nullptr;
  const int bias_at = weight_at + 1;
  T* db =
      !p.no_bias && static_cast<int>(ctx.outputs.size()) > bias_at && OutputWanted(ctx.req, bias_at)
          ? ctx.outputs[bias_at].data<T>()
          : nullptr;
  const int64_t x_per = g.channels * g.height * g.width;
  const int64_t off_per = 2 * g.deformable_groups * g.taps() * L;
  const int64_t mask_per = g.deformable_groups * g.taps() * L;
  if (dx) std::fill(dx, dx + N * x_per, T(0));
  if (doffset) std::fill(doffset, doffset + N * off_per, T(0));
  if (dmask) std::fill(dmask, dmask + N * mask_per, T(0));
  if (dw) std::fill(dw, dw + F * Kdim, T(0));
  T* col = ctx.workspace.defined() ? ctx.workspace.data<T>() : nullptr;
  for (int64_t n = 0; n < N && Kdim > 0 && L > 0; ++n) {
    const T* dy_n = dy + n * F * L;
    const T* off_n = offset + n * off_per;
    const T* mask_n = mask ? mask + n * mask_per : nullptr;
    if (dx || doffset || dmask) {
      for (int64_t grp = 0; grp < G; ++grp) {
        Gemm<T>(ctx, true, true, false, Kdim, L, Fg, weight + grp * Fg * Kdim, Kdim,
                dy_n + grp * Fg * L, L, col + grp * Kdim * L, L, false);
      }
      Col2im<T>(ctx, g, col, x + n * x_per, off_n, mask_n, dx ? dx + n * x_per : nullptr,
                doffset ? doffset + n * off_per : nullptr, dmask ? dmask + n * mask_per : nullptr);
    }
    if (dw) {
      Im2col<T>(ctx, g, x + n * x_per, off_n, mask_n, col);
      for (int64_t grp = 0; grp < G; ++grp) {
        Gemm<T>(ctx, true, false, true, Fg, Kdim, L, dy_n + grp * Fg * L, L, col + grp * Kdim * L,
                L, dw + grp * Fg * Kdim, Kdim, /*accumulate=*/true);
      }
    }
  }
  if (db) {
    for (int64_t f = 0; f < F; ++f) {
      T sum = 0;
      for (int64_t n = 0; n < N; ++n) {
        const T* row = dy + (n * F + f) * L;
        for (int64_t l = 0; l < L; ++l) sum += row[l];
      }
      db[f] = sum;
    }
  }
  return absl::OkStatus();
}

absl::Status DeformableBackward(const KernelContext& ctx) {
  SYMX_FLOAT_SWITCH(ctx, ctx.inputs[1].dtype(), T, return BackwardT<T>(ctx));
}

}  // namespace

SYMX_REGISTER_KERNEL("_contrib_DeformableConvolution", kCPU, .fn = DeformableForward,
                     .workspace = ForwardWorkspace, .widening = HalfWidening::kFloat16AndBFloat16);
SYMX_REGISTER_KERNEL("_backward_DeformableConvolution", kCPU, .fn = DeformableBackward,
                     .workspace = BackwardWorkspace, .widening = HalfWidening::kFloat16AndBFloat16);
SYMX_REGISTER_KERNEL("_contrib_ModulatedDeformableConvolution", kCPU, .fn = DeformableForward,
                     .workspace = ForwardWorkspace, .widening = HalfWidening::kFloat16AndBFloat16);
SYMX_REGISTER_KERNEL("_backward_ModulatedDeformableConvolution", kCPU, .fn = DeformableBackward,
                     .workspace = BackwardWorkspace, .widening = HalfWidening::kFloat16AndBFloat16);

}  // namespace cpu
}  // namespace symx
