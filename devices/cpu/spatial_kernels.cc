// CPU kernels for GridGenerator, BilinearSampler and SpatialTransformer (schemas in
// graph/ops/spatial.cc) and their backward ops.
//
// Plain loops computed in double (loads and stores through ToDouble/FromDouble),
// so one template serves float32, float64 and float16. Work is split over the
// batch: each sample's data gradient is accumulated by one thread only.
//
// Sampling: grid point (gx, gy) in [-1, 1] maps to source pixel
// x = (gx + 1) (IW - 1) / 2, y = (gy + 1) (IH - 1) / 2; the four neighbours
// (floor(y) + {0,1}, floor(x) + {0,1}) are weighted bilinearly and a neighbour
// outside the image reads zero. The grid gradient is the derivative of that
// piecewise-bilinear function (exact away from integer pixel positions).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "devices/cpu/kernel_util.h"
#include "devices/dtype_switch.h"
#include "graph/ops/spatial.h"

namespace symx {
namespace cpu {
namespace {

absl::Status CheckShape(const KernelContext& ctx, const Tensor& t, int ndim, const char* what) {
  if (t.shape().ndim() == ndim) return absl::OkStatus();
  return Fail(ctx, absl::StrCat(what, " ", t.DebugString(), " should have ", ndim, " dims"));
}

absl::Status CheckDtypes(const KernelContext& ctx) {
  const DType t = ctx.inputs[0].dtype();
  for (const Tensor& x : ctx.inputs) {
    if (x.dtype() != t) return UnsupportedDType(ctx, x.dtype());
  }
  for (const Tensor& x : ctx.outputs) {
    if (x.dtype() != t) return UnsupportedDType(ctx, x.dtype());
  }
  return absl::OkStatus();
}

// Normalized target coordinate i of n points: linspace(-1, 1, n)[i].
inline double Lin(int64_t i, int64_t n) { return n > 1 ? -1.0 + 2.0 * i / (n - 1) : -1.0; }

struct Geom {
  int64_t n = 0, c = 0, ih = 0, iw = 0, h = 0, w = 0;
};

// One sampled point: source pixel of the top-left neighbour and the fractions.
struct Point {
  int64_t x0, y0;
  double fx, fy;
};

inline Point Locate(double gx, double gy, const Geom& g) {
  const double x = (gx + 1) * (g.iw - 1) / 2.0, y = (gy + 1) * (g.ih - 1) / 2.0;
  const double fx0 = std::floor(x), fy0 = std::floor(y);
  return {static_cast<int64_t>(fx0), static_cast<int64_t>(fy0), x - fx0, y - fy0};
}

inline bool Inside(int64_t y, int64_t x, const Geom& g) {
  return y >= 0 && y < g.ih && x >= 0 && x < g.iw;
}

// out[n, :, h, w] from data at grid point (gx, gy).
template <typename T>
void SampleForward(const T* data, int64_t n, int64_t hw, double gx, double gy, const Geom& g,
                   T* out) {
  const Point p = Locate(gx, gy, g);
  const int64_t ys[2] = {p.y0, p.y0 + 1}, xs[2] = {p.x0, p.x0 + 1};
  const double wy[2] = {1 - p.fy, p.fy}, wx[2] = {1 - p.fx, p.fx};
  for (int64_t c = 0; c < g.c; ++c) {
    const T* src = data + (n * g.c + c) * g.ih * g.iw;
    double v = 0;
    for (int a = 0; a < 2; ++a) {
      for (int b = 0; b < 2; ++b) {
        if (Inside(ys[a], xs[b], g)) v += wy[a] * wx[b] * ToDouble(src[ys[a] * g.iw + xs[b]]);
      }
    }
    out[(n * g.c + c) * g.h * g.w + hw] = FromDouble<T>(v);
  }
}

// Adds the data gradient (into gdata_acc, doubles of one sample, may be null) and
// returns d/dgx, d/dgy of sum_c ograd * out at one grid point.
template <typename T>
void SampleBackward(const T* data, const T* og, int64_t n, int64_t hw, double gx, double gy,
                    const Geom& g, double* gdata_acc, double* dgx, double* dgy) {
  const Point p = Locate(gx, gy, g);
  const int64_t ys[2] = {p.y0, p.y0 + 1}, xs[2] = {p.x0, p.x0 + 1};
  const double wy[2] = {1 - p.fy, p.fy}, wx[2] = {1 - p.fx, p.fx};
  double sx = 0, sy = 0;
  for (int64_t c = 0; c < g.c; ++c) {
    const T* src = data + (n * g.c + c) * g.ih * g.iw;
    const double go = ToDouble(og[(n * g.c + c) * g.h * g.w + hw]);
    double v[2][2] = {{0, 0}, {0, 0}};
    for (int a = 0; a < 2; ++a) {
      for (int b = 0; b < 2; ++b) {
        if (!Inside(ys[a], xs[b], g)) continue;
        const int64_t at = ys[a] * g.iw + xs[b];
        v[a][b] = ToDouble(src[at]);
        if (gdata_acc != nullptr) gdata_acc[c * g.ih * g.iw + at] += go * wy[a] * wx[b];
      }
    }
    sx += go * ((1 - p.fy) * (v[0][1] - v[0][0]) + p.fy * (v[1][1] - v[1][0]));
    sy += go * ((1 - p.fx) * (v[1][0] - v[0][0]) + p.fx * (v[1][1] - v[0][1]));
  }
  *dgx = sx * (g.iw - 1) / 2.0;
  *dgy = sy * (g.ih - 1) / 2.0;
}

// Affine grid point (h, w) of sample n from loc (N, 6).
template <typename T>
inline void AffinePoint(const T* loc, int64_t n, int64_t h, int64_t w, const Geom& g, double* gx,
                        double* gy) {
  const T* a = loc + n * 6;
  const double x = Lin(w, g.w), y = Lin(h, g.h);
  *gx = ToDouble(a[0]) * x + ToDouble(a[1]) * y + ToDouble(a[2]);
  *gy = ToDouble(a[3]) * x + ToDouble(a[4]) * y + ToDouble(a[5]);
}

Geom SamplerGeom(const Shape& data, const Shape& out) {
  return {data[0], data[1], data[2], data[3], out[2], out[3]};
}

// ------------------------------------------------------------------ GridGenerator

template <typename T>
void GridForwardT(const KernelContext& ctx, const Tensor& in, const Tensor& out, bool affine) {
  const Shape& os = out.shape();
  Geom g{os[0], 2, 0, 0, os[2], os[3]};
  const T* x = in.data<T>();
  T* y = out.data<T>();
  const int64_t hw = g.h * g.w;
  ParallelFor(ctx, g.n, 10.0 * hw, [&](int64_t n0, int64_t n1) {
    for (int64_t n = n0; n < n1; ++n) {
      for (int64_t h = 0; h < g.h; ++h) {
        for (int64_t w = 0; w < g.w; ++w) {
          const int64_t at = h * g.w + w;
          double gx, gy;
          if (affine) {
            AffinePoint(x, n, h, w, g, &gx, &gy);
          } else {
            gx = (ToDouble(x[n * 2 * hw + at]) + w) / ((g.w - 1) / 2.0) - 1;
            gy = (ToDouble(x[(n * 2 + 1) * hw + at]) + h) / ((g.h - 1) / 2.0) - 1;
          }
          y[n * 2 * hw + at] = FromDouble<T>(gx);
          y[(n * 2 + 1) * hw + at] = FromDouble<T>(gy);
        }
      }
    }
  });
}

template <typename T>
void GridBackwardT(const KernelContext& ctx, const Tensor& og, const Tensor& gin, bool affine) {
  const Shape& os = og.shape();
  Geom g{os[0], 2, 0, 0, os[2], os[3]};
  const T* go = og.data<T>();
  T* gi = gin.data<T>();
  const int64_t hw = g.h * g.w;
  ParallelFor(ctx, g.n, 10.0 * hw, [&](int64_t n0, int64_t n1) {
    for (int64_t n = n0; n < n1; ++n) {
      if (affine) {
        double acc[6] = {0, 0, 0, 0, 0, 0};
        for (int64_t h = 0; h < g.h; ++h) {
          for (int64_t w = 0; w < g.w; ++w) {
            const int64_t at = h * g.w + w;
            const double x = Lin(w, g.w), y = Lin(h, g.h);
            const double a = ToDouble(go[n * 2 * hw + at]), b = ToDouble(go[(n * 2 + 1) * hw + at]);
            acc[0] += a * x, acc[1] += a * y, acc[2] += a;
            acc[3] += b * x, acc[4] += b * y, acc[5] += b;
          }
        }
        for (int k = 0; k < 6; ++k) gi[n * 6 + k] = FromDouble<T>(acc[k]);
      } else {
        for (int64_t at = 0; at < hw; ++at) {
          gi[n * 2 * hw + at] = FromDouble<T>(ToDouble(go[n * 2 * hw + at]) / ((g.w - 1) / 2.0));
          gi[(n * 2 + 1) * hw + at] =
              FromDouble<T>(ToDouble(go[(n * 2 + 1) * hw + at]) / ((g.h - 1) / 2.0));
        }
      }
    }
  });
}

absl::Status GridGeneratorForward(const KernelContext& ctx) {
  const bool affine = ctx.param<GridGeneratorParam>().transform_type == "affine";
  const Tensor& in = ctx.inputs[0];
  const Tensor& out = ctx.outputs[0];
  SYMX_RETURN_IF_ERROR(CheckDtypes(ctx));
  SYMX_RETURN_IF_ERROR(CheckShape(ctx, in, affine ? 2 : 4, "data"));
  SYMX_RETURN_IF_ERROR(CheckShape(ctx, out, 4, "output"));
  SYMX_FLOAT_STORAGE_SWITCH(ctx, in.dtype(), T, GridForwardT<T>(ctx, in, out, affine));
  return absl::OkStatus();
}

absl::Status GridGeneratorBackward(const KernelContext& ctx) {
  if (!OutputWanted(ctx.req, 0)) return absl::OkStatus();
  const bool affine = ctx.param<GridGeneratorParam>().transform_type == "affine";
  const Tensor& og = ctx.inputs[0];
  const Tensor& gin = ctx.outputs[0];
  SYMX_RETURN_IF_ERROR(CheckDtypes(ctx));
  SYMX_RETURN_IF_ERROR(CheckShape(ctx, og, 4, "ograd"));
  SYMX_RETURN_IF_ERROR(CheckShape(ctx, gin, affine ? 2 : 4, "data gradient"));
  SYMX_FLOAT_STORAGE_SWITCH(ctx, og.dtype(), T, GridBackwardT<T>(ctx, og, gin, affine));
  return absl::OkStatus();
}

// ------------------------------------------------------------------ samplers

// affine: `grid` is loc (N, 6) applied to the output grid; else grid (N, 2, H, W).
template <typename T>
void SamplerForwardT(const KernelContext& ctx, const Tensor& data, const Tensor& grid,
                     const Tensor& out, bool affine) {
  const Geom g = SamplerGeom(data.shape(), out.shape());
  const T* d = data.data<T>();
  const T* gr = grid.data<T>();
  T* y = out.data<T>();
  const int64_t hw = g.h * g.w;
  ParallelFor(ctx, g.n, 12.0 * hw * g.c, [&](int64_t n0, int64_t n1) {
    for (int64_t n = n0; n < n1; ++n) {
      for (int64_t h = 0; h < g.h; ++h) {
        for (int64_t w = 0; w < g.w; ++w) {
          const int64_t at = h * g.w + w;
          double gx, gy;
          if (affine) {
            AffinePoint(gr, n, h, w, g, &gx, &gy);
          } else {
            gx = ToDouble(gr[n * 2 * hw + at]);
            gy = ToDouble(gr[(n * 2 + 1) * hw + at]);
          }
          SampleForward(d, n, at, gx, gy, g, y);
        }
      }
    }
  });
}

// Gradients to data (outputs[0]) and to the grid or loc (outputs[1]).
template <typename T>
void SamplerBackwardT(const KernelContext& ctx, bool affine) {
  const Tensor& og = ctx.inputs[0];
  const Tensor& data = ctx.inputs[1];
  const Tensor& grid = ctx.inputs[2];
  const bool want_data = OutputWanted(ctx.req, 0), want_grid = OutputWanted(ctx.req, 1);
  const Geom g = SamplerGeom(data.shape(), og.shape());
  const T* go = og.data<T>();
  const T* d = data.data<T>();
  const T* gr = grid.data<T>();
  T* gd = want_data ? ctx.outputs[0].data<T>() : nullptr;
  T* gg = want_grid ? ctx.outputs[1].data<T>() : nullptr;
  const int64_t hw = g.h * g.w, img = g.c * g.ih * g.iw;
  ParallelFor(ctx, g.n, 20.0 * hw * g.c, [&](int64_t n0, int64_t n1) {
    std::vector<double> acc(want_data ? img : 0);
    for (int64_t n = n0; n < n1; ++n) {
      std::fill(acc.begin(), acc.end(), 0.0);
      double loc_acc[6] = {0, 0, 0, 0, 0, 0};
      for (int64_t h = 0; h < g.h; ++h) {
        for (int64_t w = 0; w < g.w; ++w) {
          const int64_t at = h * g.w + w;
          double gx, gy, dgx, dgy;
          if (affine) {
            AffinePoint(gr, n, h, w, g, &gx, &gy);
          } else {
            gx = ToDouble(gr[n * 2 * hw + at]);
            gy = ToDouble(gr[(n * 2 + 1) * hw + at]);
          }
          SampleBackward(d, go, n, at, gx, gy, g, want_data ? acc.data() : nullptr, &dgx, &dgy);
          if (!want_grid) continue;
          if (affine) {
            const double x = Lin(w, g.w), y = Lin(h, g.h);
            loc_acc[0] += dgx * x, loc_acc[1] += dgx * y, loc_acc[2] += dgx;
            loc_acc[3] += dgy * x, loc_acc[4] += dgy * y, loc_acc[5] += dgy;
          } else {
            gg[n * 2 * hw + at] = FromDouble<T>(dgx);
            gg[(n * 2 + 1) * hw + at] = FromDouble<T>(dgy);
          }
        }
      }
      if (want_grid && affine) {
        for (int k = 0; k < 6; ++k) gg[n * 6 + k] = FromDouble<T>(loc_acc[k]);
      }
      if (want_data) {
        for (int64_t i = 0; i < img; ++i) gd[n * img + i] = FromDouble<T>(acc[i]);
      }
    }
  });
}

absl::Status CheckSamplerShapes(const KernelContext& ctx, const Tensor& data, const Tensor& grid,
                                const Tensor& out, bool affine) {
  SYMX_RETURN_IF_ERROR(CheckDtypes(ctx));
  SYMX_RETURN_IF_ERROR(CheckShape(ctx, data, 4, "data"));
  SYMX_RETURN_IF_ERROR(CheckShape(ctx, grid, affine ? 2 : 4, affine ? "loc" : "grid"));
  SYMX_RETURN_IF_ERROR(CheckShape(ctx, out, 4, "output"));
  return absl::OkStatus();
}

template <bool kAffine>
absl::Status SamplerForward(const KernelContext& ctx) {
  const Tensor& data = ctx.inputs[0];
  const Tensor& grid = ctx.inputs[1];
  const Tensor& out = ctx.outputs[0];
  SYMX_RETURN_IF_ERROR(CheckSamplerShapes(ctx, data, grid, out, kAffine));
  SYMX_FLOAT_STORAGE_SWITCH(ctx, data.dtype(), T, SamplerForwardT<T>(ctx, data, grid, out, kAffine));
  return absl::OkStatus();
}

template <bool kAffine>
absl::Status SamplerBackward(const KernelContext& ctx) {
  SYMX_RETURN_IF_ERROR(
      CheckSamplerShapes(ctx, ctx.inputs[1], ctx.inputs[2], ctx.inputs[0], kAffine));
  SYMX_FLOAT_STORAGE_SWITCH(ctx, ctx.inputs[0].dtype(), T, SamplerBackwardT<T>(ctx, kAffine));
  return absl::OkStatus();
}

}  // namespace

SYMX_REGISTER_KERNEL("GridGenerator", kCPU, GridGeneratorForward);
SYMX_REGISTER_KERNEL("_backward_GridGenerator", kCPU, GridGeneratorBackward);
SYMX_REGISTER_KERNEL("BilinearSampler", kCPU, SamplerForward<false>);
SYMX_REGISTER_KERNEL("_backward_BilinearSampler", kCPU, SamplerBackward<false>);
SYMX_REGISTER_KERNEL("SpatialTransformer", kCPU, SamplerForward<true>);
SYMX_REGISTER_KERNEL("_backward_SpatialTransformer", kCPU, SamplerBackward<true>);

}  // namespace cpu
}  // namespace symx
