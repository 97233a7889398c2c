// CPU kernels for GridGenerator, BilinearSampler, SpatialTransformer and
// Correlation (schemas in graph/ops/spatial.cc) and their backward ops.
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
#include "devices/geometry/correlation_geom.h"
#include "devices/geometry/correlation_map.h"
#include "devices/geometry/spatial_sample.h"
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

struct Geom {
  int64_t n = 0, c = 0, ih = 0, iw = 0, h = 0, w = 0;
};

// out[n, :, h, w] from data at grid point (gx, gy).
template <typename T>
void SampleForward(const T* data, int64_t n, int64_t hw, double gx, double gy, const Geom& g,
                   T* out) {
  const SamplePoint p = Locate(gx, gy, g.ih, g.iw);
  for (int64_t c = 0; c < g.c; ++c) {
    const T* src = data + (n * g.c + c) * g.ih * g.iw;
    double v = 0;
    for (int a = 0; a < 2; ++a) {
      for (int b = 0; b < 2; ++b) {
        if (p.at[a][b] >= 0) v += p.wy[a] * p.wx[b] * ToDouble(src[p.at[a][b]]);
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
  const SamplePoint p = Locate(gx, gy, g.ih, g.iw);
  double sx = 0, sy = 0;
  for (int64_t c = 0; c < g.c; ++c) {
    const T* src = data + (n * g.c + c) * g.ih * g.iw;
    const double go = ToDouble(og[(n * g.c + c) * g.h * g.w + hw]);
    double v[2][2] = {{0, 0}, {0, 0}};
    for (int a = 0; a < 2; ++a) {
      for (int b = 0; b < 2; ++b) {
        const int64_t at = p.at[a][b];
        if (at < 0) continue;
        v[a][b] = ToDouble(src[at]);
        if (gdata_acc != nullptr) gdata_acc[c * g.ih * g.iw + at] += go * p.wy[a] * p.wx[b];
      }
    }
    AddGridGrad(p, v, go, &sx, &sy);
  }
  GridGradScale(sx, sy, g.ih, g.iw, dgx, dgy);
}

// Affine grid point (h, w) of sample n from loc (N, 6).
template <typename T>
inline void AffinePoint(const T* loc, int64_t n, int64_t h, int64_t w, const Geom& g, double* gx,
                        double* gy) {
  double a[6];
  for (int k = 0; k < 6; ++k) a[k] = ToDouble(loc[n * 6 + k]);
  AffineGridPoint(a, h, w, g.h, g.w, gx, gy);
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
            double terms[6];
            AffineLocGrad(ToDouble(go[n * 2 * hw + at]), ToDouble(go[(n * 2 + 1) * hw + at]), h, w,
                          g.h, g.w, terms);
            for (int k = 0; k < 6; ++k) acc[k] += terms[k];
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
            double terms[6];
            AffineLocGrad(dgx, dgy, h, w, g.h, g.w, terms);
            for (int k = 0; k < 6; ++k) loc_acc[k] += terms[k];
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
  SYMX_FLOAT_STORAGE_SWITCH(ctx, data.dtype(), T,
                            SamplerForwardT<T>(ctx, data, grid, out, kAffine));
  return absl::OkStatus();
}

template <bool kAffine>
absl::Status SamplerBackward(const KernelContext& ctx) {
  SYMX_RETURN_IF_ERROR(
      CheckSamplerShapes(ctx, ctx.inputs[1], ctx.inputs[2], ctx.inputs[0], kAffine));
  SYMX_FLOAT_STORAGE_SWITCH(ctx, ctx.inputs[0].dtype(), T, SamplerBackwardT<T>(ctx, kAffine));
  return absl::OkStatus();
}

// ---------------------------------------------------------------- Correlation

absl::Status CorrelationGeomOf(const KernelContext& ctx, const Shape& data, const Shape& out,
                               CorrelationGeom* g) {
  if (data.ndim() != 4 || out.ndim() != 4 || out[0] != data[0]) {
    return Fail(ctx, absl::StrCat("unexpected shapes: data ", data.ToString(), ", output ",
                                  out.ToString()));
  }
  *g = CorrelationGeomFrom(ctx.param<CorrelationParam>(), data, out);
  return absl::OkStatus();
}

// Inputs data1, data2; output (N, K, OH, OW).
template <typename T>
absl::Status CorrelationForwardT(const KernelContext& ctx) {
  CorrelationGeom g;
  SYMX_RETURN_IF_ERROR(CorrelationGeomOf(ctx, ctx.inputs[0].shape(), ctx.outputs[0].shape(), &g));
  const T* a = ctx.inputs[0].data<T>();
  const T* b = ctx.inputs[1].data<T>();
  T* y = ctx.outputs[0].data<T>();
  const int64_t total = g.n * g.oc * g.oh * g.ow;
  ParallelFor(ctx, total, static_cast<double>(g.k * g.k * g.c) * 4, [&](int64_t e0, int64_t e1) {
    for (int64_t e = e0; e < e1; ++e) {
      const CorrelationTap t = CorrelationTapOf(g, e);
      double sum = 0;
      for (int64_t h = 0; h < g.k; ++h) {
        for (int64_t w = 0; w < g.k; ++w) {
          const int64_t y1 = t.y1 + h, x1 = t.x1 + w, y2 = t.y2 + h, x2 = t.x2 + w;
          const bool in1 = g.Inside(y1, x1), in2 = g.Inside(y2, x2);
          if (!in1 && !in2) continue;
          for (int64_t c = 0; c < g.c; ++c) {
            const double v1 = in1 ? ToDouble(a[((t.n * g.c + c) * g.h + y1) * g.w + x1]) : 0.0;
            const double v2 = in2 ? ToDouble(b[((t.n * g.c + c) * g.h + y2) * g.w + x2]) : 0.0;
            sum += g.multiply ? v1 * v2 : std::abs(v1 - v2);
          }
        }
      }
      y[e] = FromDouble<T>(sum / static_cast<double>(g.k * g.k * g.c));
    }
  });
  return absl::OkStatus();
}

absl::Status CorrelationForward(const KernelContext& ctx) {
  SYMX_RETURN_IF_ERROR(CheckDtypes(ctx));
  SYMX_FLOAT_STORAGE_SWITCH(ctx, ctx.inputs[0].dtype(), T, return CorrelationForwardT<T>(ctx));
}

// Inputs ograd, data1, data2; outputs the gradients of data1 and data2,
// accumulated per sample in double (one thread per sample).
template <typename T>
absl::Status CorrelationBackwardT(const KernelContext& ctx) {
  CorrelationGeom g;
  SYMX_RETURN_IF_ERROR(CorrelationGeomOf(ctx, ctx.inputs[1].shape(), ctx.inputs[0].shape(), &g));
  const T* og = ctx.inputs[0].data<T>();
  const T* a = ctx.inputs[1].data<T>();
  const T* b = ctx.inputs[2].data<T>();
  const bool want1 = OutputWanted(ctx.req, 0), want2 = OutputWanted(ctx.req, 1);
  const int64_t plane = g.c * g.h * g.w, per_sample = g.oc * g.oh * g.ow;
  const double scale = 1.0 / static_cast<double>(g.k * g.k * g.c);
  ParallelFor(ctx, g.n, static_cast<double>(per_sample * g.k * g.k * g.c) * 6,
              [&](int64_t n0, int64_t n1) {
                std::vector<double> g1(static_cast<size_t>(plane)), g2(static_cast<size_t>(plane));
                for (int64_t n = n0; n < n1; ++n) {
                  std::fill(g1.begin(), g1.end(), 0.0);
                  std::fill(g2.begin(), g2.end(), 0.0);
                  for (int64_t e = n * per_sample; e < (n + 1) * per_sample; ++e) {
                    const CorrelationTap t = CorrelationTapOf(g, e);
                    const double go = ToDouble(og[e]) * scale;
                    for (int64_t h = 0; h < g.k; ++h) {
                      for (int64_t w = 0; w < g.k; ++w) {
                        const int64_t y1 = t.y1 + h, x1 = t.x1 + w, y2 = t.y2 + h, x2 = t.x2 + w;
                        const bool in1 = g.Inside(y1, x1), in2 = g.Inside(y2, x2);
                        for (int64_t c = 0; c < g.c && (in1 || in2); ++c) {
                          const int64_t at1 = (c * g.h + y1) * g.w + x1;
                          const int64_t at2 = (c * g.h + y2) * g.w + x2;
                          const double v1 = in1 ? ToDouble(a[n * plane + at1]) : 0.0;
                          const double v2 = in2 ? ToDouble(b[n * plane + at2]) : 0.0;
                          if (g.multiply) {
                            if (in1) g1[at1] += go * v2;
                            if (in2) g2[at2] += go * v1;
                          } else {
                            const double sign = v1 >= v2 ? 1.0 : -1.0;
                            if (in1) g1[at1] += go * sign;
                            if (in2) g2[at2] -= go * sign;
                          }
                        }
                      }
                    }
                  }
                  if (want1) {
                    T* d1 = ctx.outputs[0].data<T>() + n * plane;
                    for (int64_t i = 0; i < plane; ++i) d1[i] = FromDouble<T>(g1[i]);
                  }
                  if (want2) {
                    T* d2 = ctx.outputs[1].data<T>() + n * plane;
                    for (int64_t i = 0; i < plane; ++i) d2[i] = FromDouble<T>(g2[i]);
                  }
                }
              });
  return absl::OkStatus();
}

absl::Status CorrelationBackward(const KernelContext& ctx) {
  SYMX_RETURN_IF_ERROR(CheckDtypes(ctx));
  SYMX_FLOAT_STORAGE_SWITCH(ctx, ctx.inputs[1].dtype(), T, return CorrelationBackwardT<T>(ctx));
}

}  // namespace

SYMX_REGISTER_KERNEL("Correlation", kCPU, CorrelationForward);
SYMX_REGISTER_KERNEL("_backward_Correlation", kCPU, CorrelationBackward);
SYMX_REGISTER_KERNEL("GridGenerator", kCPU, GridGeneratorForward);
SYMX_REGISTER_KERNEL("_backward_GridGenerator", kCPU, GridGeneratorBackward);
SYMX_REGISTER_KERNEL("BilinearSampler", kCPU, SamplerForward<false>);
SYMX_REGISTER_KERNEL("_backward_BilinearSampler", kCPU, SamplerBackward<false>);
SYMX_REGISTER_KERNEL("SpatialTransformer", kCPU, SamplerForward<true>);
SYMX_REGISTER_KERNEL("_backward_SpatialTransformer", kCPU, SamplerBackward<true>);

}  // namespace cpu
}  // namespace symx
