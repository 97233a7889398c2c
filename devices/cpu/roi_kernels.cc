// CPU kernels for the region ops (schemas and MXNet facts in graph/ops/roi.cc):
// ROIPooling, _contrib_ROIAlign, _contrib_PSROIPooling,
// _contrib_DeformablePSROIPooling (with their backward ops), _contrib_RROIAlign,
// _contrib_Proposal and _contrib_MultiProposal.
//
// Arithmetic follows MXNet's CPU kernels so that bin bounds and sample points
// agree to the last bit: coordinates are computed in float for float32 and
// float16 data (float16 loaded and stored through float) and in double for
// float64, with spatial_scale a float as in MXNet. The proposal ops compute in
// float and sort with std::sort on the same comparator as MXNet, so ties in the
// scores come out in the same order.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "devices/cpu/kernel_util.h"
#include "devices/dtype_switch.h"
#include "devices/geometry/proposal_geometry.h"
#include "devices/geometry/proposal_plan.h"
#include "devices/geometry/psroi_geometry.h"
#include "devices/geometry/roi_geometry.h"
#include "graph/error.h"
#include "graph/ops/roi.h"

namespace symx {
namespace cpu {
namespace {

// (storage type, compute type) by dtype: float32 -> float, float64 -> double,
// float16 -> float.
#define ROI_FLOAT_SWITCH(ctx, dtype, T, C, ...)    \
  switch (dtype) {                                 \
    case DType::kFloat32: {                        \
      using T = float;                             \
      using C = float;                             \
      __VA_ARGS__                                  \
    }                                              \
    case DType::kFloat64: {                        \
      using T = double;                            \
      using C = double;                            \
      __VA_ARGS__                                  \
    }                                              \
    case DType::kFloat16: {                        \
      using T = ::symx::float16_t;                 \
      using C = float;                             \
      __VA_ARGS__                                  \
    }                                              \
    default:                                       \
      return ::symx::UnsupportedDType(ctx, dtype); \
  }

template <typename C, typename T>
inline C Ld(const T* p, int64_t i) {
  return static_cast<C>(ToDouble(p[i]));
}
template <typename T, typename C>
inline void St(T* p, int64_t i, C v) {
  p[i] = FromDouble<T>(static_cast<double>(v));
}

struct RoiDims {
  int64_t n, c, h, w;     // data
  int64_t r, co, ph, pw;  // output
};

absl::Status GetDims(const KernelContext& ctx, const Tensor& data, const Tensor& rois,
                     const Tensor& out, RoiDims* d) {
  const Shape& ds = data.shape();
  const Shape& os = out.shape();
  if (ds.ndim() != 4 || os.ndim() != 4 || rois.shape().ndim() != 2 || rois.shape()[1] != 5 ||
      rois.shape()[0] != os[0]) {
    return Fail(ctx, absl::StrCat("unexpected shapes: data ", ds.ToString(), ", rois ",
                                  rois.shape().ToString(), ", output ", os.ToString()));
  }
  *d = RoiDims{ds[0], ds[1], ds[2], ds[3], os[0], os[1], os[2], os[3]};
  return absl::OkStatus();
}

// ------------------------------------------------------------------ ROIPooling

template <typename T, typename C>
void ROIPoolForward(const RoiDims& d, C scale, const T* x, const T* rois, T* y, T* idx) {
  for (int64_t n = 0; n < d.r; ++n) {
    const T* roi = rois + n * 5;
    const int64_t b = static_cast<int64_t>(Ld<C>(roi, 0));
    const int64_t plane_out = d.ph * d.pw;
    T* yn = y + n * d.co * plane_out;
    T* in_ = idx + n * d.co * plane_out;
    if (b < 0 || b >= d.n) {
      for (int64_t i = 0; i < d.co * plane_out; ++i) {
        St(yn, i, C(0));
        St(in_, i, C(-1));
      }
      continue;
    }
    for (int64_t c = 0; c < d.co; ++c) {
      const T* xp = x + (b * d.c + c) * d.h * d.w;
      for (int64_t i = 0; i < d.ph; ++i) {
        for (int64_t j = 0; j < d.pw; ++j) {
          const RoiPoolWindow win = RoiPoolBin<C>(Ld<C>(roi, 1), Ld<C>(roi, 2), Ld<C>(roi, 3),
                                                  Ld<C>(roi, 4), scale, i, j, d.ph, d.pw, d.h,
                                                  d.w);
          const int64_t h0 = win.h0, h1 = win.h1, w0 = win.w0, w1 = win.w1;
          const int64_t at = (c * d.ph + i) * d.pw + j;
          if (h1 <= h0 || w1 <= w0) {
            St(yn, at, C(0));
            St(in_, at, C(-1));
            continue;
          }
          C best = -FLT_MAX;
          int64_t best_at = -1;
          for (int64_t h = h0; h < h1; ++h) {
            for (int64_t w = w0; w < w1; ++w) {
              const C v = Ld<C>(xp, h * d.w + w);
              if (v > best) {
                best = v;
                best_at = h * d.w + w;
              }
            }
          }
          St(yn, at, best);
          St(in_, at, static_cast<C>(best_at));
        }
      }
    }
  }
}

absl::Status ROIPoolingForward(const KernelContext& ctx) {
  const auto& p = ctx.param<ROIPoolingParam>();
  RoiDims d;
  SYMX_RETURN_IF_ERROR(GetDims(ctx, ctx.inputs[0], ctx.inputs[1], ctx.outputs[0], &d));
  ROI_FLOAT_SWITCH(ctx, ctx.inputs[0].dtype(), T, C, {
    ROIPoolForward<T, C>(d, static_cast<C>(p.spatial_scale), ctx.inputs[0].data<T>(),
                         ctx.inputs[1].data<T>(), ctx.outputs[0].data<T>(),
                         ctx.outputs[1].data<T>());
    return absl::OkStatus();
  })
}

// Inputs (ograd, rois, maxidx); output 0 the data gradient.
absl::Status ROIPoolingBackward(const KernelContext& ctx) {
  if (!OutputWanted(ctx.req, 0)) return absl::OkStatus();
  RoiDims d;
  SYMX_RETURN_IF_ERROR(GetDims(ctx, ctx.outputs[0], ctx.inputs[1], ctx.inputs[0], &d));
  ROI_FLOAT_SWITCH(ctx, ctx.outputs[0].dtype(), T, C, {
    const T* og = ctx.inputs[0].data<T>();
    const T* rois = ctx.inputs[1].data<T>();
    const T* idx = ctx.inputs[2].data<T>();
    T* g = ctx.outputs[0].data<T>();
    const int64_t size = ctx.outputs[0].size();
    // Accumulate in the compute type, then store.
    std::vector<C> acc(static_cast<size_t>(size), C(0));
    const int64_t plane_out = d.ph * d.pw;
    for (int64_t n = 0; n < d.r; ++n) {
      const int64_t b = static_cast<int64_t>(Ld<C>(rois, n * 5));
      if (b < 0 || b >= d.n) continue;
      for (int64_t c = 0; c < d.co; ++c) {
        for (int64_t k = 0; k < plane_out; ++k) {
          const int64_t at = (n * d.co + c) * plane_out + k;
          const int64_t m = static_cast<int64_t>(Ld<C>(idx, at));
          if (m < 0 || m >= d.h * d.w) continue;
          acc[(b * d.c + c) * d.h * d.w + m] += Ld<C>(og, at);
        }
      }
    }
    for (int64_t i = 0; i < size; ++i) St(g, i, acc[i]);
    return absl::OkStatus();
  })
}

// ------------------------------------------------------------------ ROIAlign

// Calls fn(n, c_out, i, j, b, c_in, samples, inv_count) for each output element
// of an ROI with a valid batch index; returns an error for an empty aligned ROI.
template <typename T, typename C, typename Fn>
absl::Status ForAlignBins(const KernelContext& ctx, const RoiDims& d, const ROIAlignParam& p,
                          const T* rois, Fn&& fn) {
  const C scale = static_cast<C>(p.spatial_scale);
  std::vector<RoiSample<C>> samples;
  for (int64_t n = 0; n < d.r; ++n) {
    const T* roi = rois + n * 5;
    const int64_t b = static_cast<int64_t>(Ld<C>(roi, 0));
    if (b < 0 || b >= d.n) continue;
    const RoiAlignGrid<C> g =
        MakeRoiAlignGrid<C>(Ld<C>(roi, 1), Ld<C>(roi, 2), Ld<C>(roi, 3), Ld<C>(roi, 4), scale,
                            p.aligned, d.ph, d.pw, p.sample_ratio);
    if (!g.valid) {
      return Fail(ctx, absl::StrCat("roi ", n, " has width ", static_cast<double>(g.rw),
                                    " and height ", static_cast<double>(g.rh),
                                    "; aligned=True needs both > 0 (MXNet aborts here)"));
    }
    const C count = g.count;
    for (int64_t i = 0; i < d.ph; ++i) {
      for (int64_t j = 0; j < d.pw; ++j) {
        samples.clear();
        for (int64_t iy = 0; iy < g.gh; ++iy) {
          for (int64_t ix = 0; ix < g.gw; ++ix) {
            C y, x;
            RoiAlignPoint(g, i, j, iy, ix, &y, &x);
            samples.push_back(RoiBilinearSample<C>(y, x, d.h, d.w));
          }
        }
        for (int64_t c = 0; c < d.co; ++c) {
          const int64_t cin = p.position_sensitive ? (c * d.ph + i) * d.pw + j : c;
          fn(n, c, i, j, b, cin, samples, count);
        }
      }
    }
  }
  return absl::OkStatus();
}

absl::Status ROIAlignForward(const KernelContext& ctx) {
  const auto& p = ctx.param<ROIAlignParam>();
  RoiDims d;
  SYMX_RETURN_IF_ERROR(GetDims(ctx, ctx.inputs[0], ctx.inputs[1], ctx.outputs[0], &d));
  ROI_FLOAT_SWITCH(ctx, ctx.inputs[0].dtype(), T, C, {
    const T* x = ctx.inputs[0].data<T>();
    T* y = ctx.outputs[0].data<T>();
    for (int64_t i = 0; i < ctx.outputs[0].size(); ++i) St(y, i, C(0));
    return ForAlignBins<T, C>(ctx, d, p, ctx.inputs[1].data<T>(),
                              [&](int64_t n, int64_t c, int64_t i, int64_t j, int64_t b,
                                  int64_t cin, const std::vector<RoiSample<C>>& samples, C count) {
                                const T* xp = x + (b * d.c + cin) * d.h * d.w;
                                C sum = 0;
                                for (const RoiSample<C>& s : samples) {
                                  if (s.count == 0) continue;
                                  sum +=
                                      s.wt[0] * Ld<C>(xp, s.at[0]) + s.wt[1] * Ld<C>(xp, s.at[1]) +
                                      s.wt[2] * Ld<C>(xp, s.at[2]) + s.wt[3] * Ld<C>(xp, s.at[3]);
                                }
                                St(y, ((n * d.co + c) * d.ph + i) * d.pw + j, sum / count);
                              });
  })
}

// Inputs (ograd, rois); output 0 the data gradient.
absl::Status ROIAlignBackward(const KernelContext& ctx) {
  if (!OutputWanted(ctx.req, 0)) return absl::OkStatus();
  const auto& p = ctx.param<ROIAlignParam>();
  RoiDims d;
  SYMX_RETURN_IF_ERROR(GetDims(ctx, ctx.outputs[0], ctx.inputs[1], ctx.inputs[0], &d));
  ROI_FLOAT_SWITCH(ctx, ctx.outputs[0].dtype(), T, C, {
    const T* og = ctx.inputs[0].data<T>();
    T* g = ctx.outputs[0].data<T>();
    const int64_t size = ctx.outputs[0].size();
    std::vector<C> acc(static_cast<size_t>(size), C(0));
    SYMX_RETURN_IF_ERROR(
        (ForAlignBins<T, C>(ctx, d, p, ctx.inputs[1].data<T>(),
                            [&](int64_t n, int64_t c, int64_t i, int64_t j, int64_t b, int64_t cin,
                                const std::vector<RoiSample<C>>& samples, C count) {
                              C* gp = acc.data() + (b * d.c + cin) * d.h * d.w;
                              const C v = Ld<C>(og, ((n * d.co + c) * d.ph + i) * d.pw + j) / count;
                              for (const RoiSample<C>& s : samples) {
                                for (int k = 0; k < s.count; ++k) gp[s.at[k]] += v * s.wt[k];
                              }
                            })));
    for (int64_t i = 0; i < size; ++i) St(g, i, acc[i]);
    return absl::OkStatus();
  })
}

// ------------------------------------------------------------------ PSROIPooling

struct PsDims {
  int64_t n, c, h, w;   // data
  int64_t r, d, p;      // rois, output_dim, pooled_size
  int64_t classes = 1;  // trans channels / 2
};

absl::Status GetPsDims(const KernelContext& ctx, const Shape& data, const Shape& rois,
                       const Shape& out, const Shape* trans, PsDims* d) {
  if (data.ndim() != 4 || out.ndim() != 4 || rois.ndim() != 2 || rois[1] != 5 ||
      rois[0] != out[0] || (trans != nullptr && (trans->ndim() != 4 || (*trans)[1] < 2))) {
    return Fail(ctx, absl::StrCat("unexpected shapes: data ", data.ToString(), ", rois ",
                                  rois.ToString(), ", output ", out.ToString()));
  }
  *d = PsDims{data[0], data[1], data[2], data[3], out[0], out[1], out[2]};
  if (trans != nullptr) d->classes = (*trans)[1] / 2;
  return absl::OkStatus();
}

// Calls fn(out_index, plane_offset, window) for each output element of an
// roi whose batch index is in range; plane_offset is where its input channel
// starts in the data.
template <typename T, typename C, typename Fn>
void ForPsBins(const PsDims& d, const PSROIPoolingParam& p, const T* rois, Fn&& fn) {
  const C scale = static_cast<C>(p.spatial_scale);
  for (int64_t n = 0; n < d.r; ++n) {
    const T* roi = rois + n * 5;
    const int64_t b = static_cast<int64_t>(Ld<C>(roi, 0));
    if (b < 0 || b >= d.n) continue;
    const PsRoiRect<C> rect =
        MakePsRoiRect<C>(Ld<C>(roi, 1), Ld<C>(roi, 2), Ld<C>(roi, 3), Ld<C>(roi, 4), scale, C(0));
    for (int64_t ct = 0; ct < d.d; ++ct) {
      for (int64_t i = 0; i < d.p; ++i) {
        for (int64_t j = 0; j < d.p; ++j) {
          const int64_t cin = PsRoiChannel(ct, i, j, d.p, p.group_size);
          fn(((n * d.d + ct) * d.p + i) * d.p + j, (b * d.c + cin) * d.h * d.w,
             PsRoiBin<C>(rect, i, j, d.p, d.h, d.w));
        }
      }
    }
  }
}

absl::Status PSROIPoolingForward(const KernelContext& ctx) {
  const auto& p = ctx.param<PSROIPoolingParam>();
  PsDims d;
  SYMX_RETURN_IF_ERROR(GetPsDims(ctx, ctx.inputs[0].shape(), ctx.inputs[1].shape(),
                                 ctx.outputs[0].shape(), nullptr, &d));
  ROI_FLOAT_SWITCH(ctx, ctx.inputs[0].dtype(), T, C, {
    const T* x = ctx.inputs[0].data<T>();
    T* y = ctx.outputs[0].data<T>();
    for (int64_t i = 0; i < ctx.outputs[0].size(); ++i) St(y, i, C(0));
    ForPsBins<T, C>(d, p, ctx.inputs[1].data<T>(),
                    [&](int64_t at, int64_t plane, const PsRoiWindow& win) {
                      if (win.h1 <= win.h0 || win.w1 <= win.w0) return;
                      C sum = 0;
                      for (int64_t h = win.h0; h < win.h1; ++h) {
                        for (int64_t w = win.w0; w < win.w1; ++w)
                          sum += Ld<C>(x, plane + h * d.w + w);
                      }
                      St(y, at, sum / static_cast<C>((win.h1 - win.h0) * (win.w1 - win.w0)));
                    });
    return absl::OkStatus();
  })
}

// Inputs (ograd, rois); output 0 the data gradient.
absl::Status PSROIPoolingBackward(const KernelContext& ctx) {
  if (!OutputWanted(ctx.req, 0)) return absl::OkStatus();
  const auto& p = ctx.param<PSROIPoolingParam>();
  PsDims d;
  SYMX_RETURN_IF_ERROR(GetPsDims(ctx, ctx.outputs[0].shape(), ctx.inputs[1].shape(),
                                 ctx.inputs[0].shape(), nullptr, &d));
  ROI_FLOAT_SWITCH(ctx, ctx.outputs[0].dtype(), T, C, {
    const T* og = ctx.inputs[0].data<T>();
    const int64_t size = ctx.outputs[0].size();
    std::vector<C> acc(static_cast<size_t>(size), C(0));
    ForPsBins<T, C>(
        d, p, ctx.inputs[1].data<T>(), [&](int64_t at, int64_t plane, const PsRoiWindow& win) {
          if (win.h1 <= win.h0 || win.w1 <= win.w0) return;
          const C g = Ld<C>(og, at) / static_cast<C>((win.h1 - win.h0) * (win.w1 - win.w0));
          for (int64_t h = win.h0; h < win.h1; ++h) {
            for (int64_t w = win.w0; w < win.w1; ++w) acc[plane + h * d.w + w] += g;
          }
        });
    T* gx = ctx.outputs[0].data<T>();
    for (int64_t i = 0; i < size; ++i) St(gx, i, acc[i]);
    return absl::OkStatus();
  })
}

// ------------------------------------------------------------------ DeformablePSROIPooling

// One bin of an roi: where its samples start and step, its input plane, and
// the trans entries that moved it (-1 without trans).
template <typename C>
struct DpsBin {
  int64_t out_at, plane, trans_at;
  PsRoiRect<C> rect;
  PsRoiSamples<C> samples;
};

template <typename T, typename C, typename Fn>
void ForDpsBins(const PsDims& d, const PSROIPoolingParam& p, const T* rois, const T* trans,
                Fn&& fn) {
  const C scale = static_cast<C>(p.spatial_scale);
  const C trans_std = static_cast<C>(p.trans_std);
  const int64_t per_class = d.d / d.classes;
  const int64_t part = p.part_size;
  for (int64_t n = 0; n < d.r; ++n) {
    const T* roi = rois + n * 5;
    const int64_t b = static_cast<int64_t>(Ld<C>(roi, 0));
    if (b < 0 || b >= d.n) continue;
    const PsRoiRect<C> rect =
        MakePsRoiRect<C>(Ld<C>(roi, 1), Ld<C>(roi, 2), Ld<C>(roi, 3), Ld<C>(roi, 4), scale, C(0.5));
    for (int64_t ct = 0; ct < d.d; ++ct) {
      for (int64_t i = 0; i < d.p; ++i) {
        for (int64_t j = 0; j < d.p; ++j) {
          DpsBin<C> bin;
          bin.out_at = ((n * d.d + ct) * d.p + i) * d.p + j;
          bin.plane = (b * d.c + PsRoiChannel(ct, i, j, d.p, p.group_size)) * d.h * d.w;
          bin.rect = rect;
          C tx = 0, ty = 0;
          bin.trans_at = -1;
          if (trans != nullptr) {
            const int64_t ph = PsRoiPart<C>(i, d.p, part), pw = PsRoiPart<C>(j, d.p, part);
            bin.trans_at = (((n * d.classes + ct / per_class) * 2) * part + ph) * part + pw;
            tx = Ld<C>(trans, bin.trans_at) * trans_std;
            ty = Ld<C>(trans, bin.trans_at + part * part) * trans_std;
          }
          bin.samples = MakePsRoiSamples<C>(rect, i, j, d.p, p.sample_per_part, tx, ty);
          fn(bin);
        }
      }
    }
  }
}

// Inputs data, rois, [trans]; outputs output, top_count.
absl::Status DeformablePSROIPoolingForward(const KernelContext& ctx) {
  const auto& p = ctx.param<PSROIPoolingParam>();
  PsDims d;
  const Shape* trans_shape = p.has_trans() ? &ctx.inputs[2].shape() : nullptr;
  SYMX_RETURN_IF_ERROR(GetPsDims(ctx, ctx.inputs[0].shape(), ctx.inputs[1].shape(),
                                 ctx.outputs[0].shape(), trans_shape, &d));
  ROI_FLOAT_SWITCH(ctx, ctx.inputs[0].dtype(), T, C, {
    const T* x = ctx.inputs[0].data<T>();
    const T* trans = p.has_trans() ? ctx.inputs[2].data<T>() : nullptr;
    T* y = ctx.outputs[0].data<T>();
    T* count = ctx.outputs[1].data<T>();
    for (int64_t i = 0; i < ctx.outputs[0].size(); ++i) {
      St(y, i, C(0));
      St(count, i, C(0));
    }
    const int64_t k = p.sample_per_part;
    ForDpsBins<T, C>(d, p, ctx.inputs[1].data<T>(), trans, [&](const DpsBin<C>& bin) {
      C sum = 0;
      int64_t used = 0;
      for (int64_t ih = 0; ih < k; ++ih) {
        for (int64_t iw = 0; iw < k; ++iw) {
          PsRoiPoint<C> pt;
          if (!MakePsRoiPoint<C>(bin.samples.x + static_cast<C>(iw) * bin.samples.step_w,
                                 bin.samples.y + static_cast<C>(ih) * bin.samples.step_h, d.h, d.w,
                                 &pt)) {
            continue;
          }
          const int64_t o = bin.plane;
          sum += (1 - pt.dx) * (1 - pt.dy) * Ld<C>(x, o + pt.y0 * d.w + pt.x0) +
                 (1 - pt.dx) * pt.dy * Ld<C>(x, o + pt.y1 * d.w + pt.x0) +
                 pt.dx * (1 - pt.dy) * Ld<C>(x, o + pt.y0 * d.w + pt.x1) +
                 pt.dx * pt.dy * Ld<C>(x, o + pt.y1 * d.w + pt.x1);
          ++used;
        }
      }
      St(y, bin.out_at, used == 0 ? C(0) : sum / static_cast<C>(used));
      St(count, bin.out_at, static_cast<C>(used));
    });
    return absl::OkStatus();
  })
}

// Inputs ograd, data, rois, [trans], top_count; outputs the gradients of
// data, [rois (zero), trans].
absl::Status DeformablePSROIPoolingBackward(const KernelContext& ctx) {
  const auto& p = ctx.param<PSROIPoolingParam>();
  const bool has_trans = p.has_trans();
  PsDims d;
  SYMX_RETURN_IF_ERROR(GetPsDims(ctx, ctx.inputs[1].shape(), ctx.inputs[2].shape(),
                                 ctx.inputs[0].shape(),
                                 has_trans ? &ctx.inputs[3].shape() : nullptr, &d));
  ROI_FLOAT_SWITCH(ctx, ctx.inputs[1].dtype(), T, C, {
    const T* og = ctx.inputs[0].data<T>();
    const T* x = ctx.inputs[1].data<T>();
    const T* trans = has_trans ? ctx.inputs[3].data<T>() : nullptr;
    const T* count = ctx.inputs[has_trans ? 4 : 3].data<T>();
    const bool want_dx = OutputWanted(ctx.req, 0);
    const bool want_dt = has_trans && OutputWanted(ctx.req, 2);
    std::vector<C> dx(want_dx ? static_cast<size_t>(ctx.outputs[0].size()) : 0, C(0));
    std::vector<C> dt(want_dt ? static_cast<size_t>(ctx.outputs[2].size()) : 0, C(0));
    const C trans_std = static_cast<C>(p.trans_std);
    const int64_t k = p.sample_per_part;
    const int64_t part_plane = p.part_size * p.part_size;
    ForDpsBins<T, C>(d, p, ctx.inputs[2].data<T>(), trans, [&](const DpsBin<C>& bin) {
      const C used = Ld<C>(count, bin.out_at);
      if (!(used > 0)) return;
      const C g = Ld<C>(og, bin.out_at) / used;
      for (int64_t ih = 0; ih < k; ++ih) {
        for (int64_t iw = 0; iw < k; ++iw) {
          PsRoiPoint<C> pt;
          if (!MakePsRoiPoint<C>(bin.samples.x + static_cast<C>(iw) * bin.samples.step_w,
                                 bin.samples.y + static_cast<C>(ih) * bin.samples.step_h, d.h, d.w,
                                 &pt)) {
            continue;
          }
          const int64_t a00 = bin.plane + pt.y0 * d.w + pt.x0,
                        a01 = bin.plane + pt.y1 * d.w + pt.x0;
          const int64_t a10 = bin.plane + pt.y0 * d.w + pt.x1,
                        a11 = bin.plane + pt.y1 * d.w + pt.x1;
          if (want_dx) {
            dx[a00] += (1 - pt.dx) * (1 - pt.dy) * g;
            dx[a01] += (1 - pt.dx) * pt.dy * g;
            dx[a10] += pt.dx * (1 - pt.dy) * g;
            dx[a11] += pt.dx * pt.dy * g;
          }
          if (!want_dt) continue;
          const C u00 = Ld<C>(x, a00), u01 = Ld<C>(x, a01), u10 = Ld<C>(x, a10),
                  u11 = Ld<C>(x, a11);
          const C gx = (u11 * pt.dy + u10 * (1 - pt.dy) - u01 * pt.dy - u00 * (1 - pt.dy)) *
                       trans_std * g * bin.rect.width;
          const C gy = (u11 * pt.dx + u01 * (1 - pt.dx) - u10 * pt.dx - u00 * (1 - pt.dx)) *
                       trans_std * g * bin.rect.height;
          dt[bin.trans_at] += gx;
          dt[bin.trans_at + part_plane] += gy;
        }
      }
    });
    if (want_dx) {
      T* out = ctx.outputs[0].data<T>();
      for (size_t i = 0; i < dx.size(); ++i) St(out, static_cast<int64_t>(i), dx[i]);
    }
    if (want_dt) {
      T* out = ctx.outputs[2].data<T>();
      for (size_t i = 0; i < dt.size(); ++i) St(out, static_cast<int64_t>(i), dt[i]);
    }
    if (has_trans && OutputWanted(ctx.req, 1)) {
      T* out = ctx.outputs[1].data<T>();
      for (int64_t i = 0; i < ctx.outputs[1].size(); ++i) St(out, i, C(0));
    }
    return absl::OkStatus();
  })
}

// ------------------------------------------------------------------ RROIAlign

absl::Status RROIAlignForward(const KernelContext& ctx) {
  const auto& p = ctx.param<RROIAlignParam>();
  const Shape& ds = ctx.inputs[0].shape();
  const Shape& rs = ctx.inputs[1].shape();
  const Shape& os = ctx.outputs[0].shape();
  if (ds.ndim() != 4 || os.ndim() != 4 || rs.ndim() != 2 || rs[1] != 6 || rs[0] != os[0] ||
      os[1] != ds[1]) {
    return Fail(ctx, absl::StrCat("unexpected shapes: data ", ds.ToString(), ", rois ",
                                  rs.ToString(), ", output ", os.ToString()));
  }
  const int64_t N = ds[0], C = ds[1], H = ds[2], W = ds[3], ph = os[2], pw = os[3];
  ROI_FLOAT_SWITCH(ctx, ctx.inputs[0].dtype(), T, CT, {
    const T* x = ctx.inputs[0].data<T>();
    const T* rois = ctx.inputs[1].data<T>();
    T* y = ctx.outputs[0].data<T>();
    for (int64_t i = 0; i < ctx.outputs[0].size(); ++i) St(y, i, CT(0));
    std::vector<RoiSample<CT>> samples;
    for (int64_t n = 0; n < os[0]; ++n) {
      const T* roi = rois + n * 6;
      const int64_t b = static_cast<int64_t>(Ld<CT>(roi, 0));
      if (b < 0 || b >= N) continue;
      const RroiGrid<CT> g = MakeRroiGrid<CT>(
          Ld<CT>(roi, 1), Ld<CT>(roi, 2), Ld<CT>(roi, 3), Ld<CT>(roi, 4), Ld<CT>(roi, 5),
          static_cast<CT>(p.spatial_scale), ph, pw, p.sampling_ratio);
      for (int64_t i = 0; i < ph; ++i) {
        for (int64_t j = 0; j < pw; ++j) {
          samples.clear();
          for (int64_t iy = 0; iy < g.gh; ++iy) {
            for (int64_t ix = 0; ix < g.gw; ++ix) {
              CT sy, sx;
              RroiPoint(g, i, j, iy, ix, &sy, &sx);
              samples.push_back(RoiBilinearSample<CT>(sy, sx, H, W));
            }
          }
          for (int64_t c = 0; c < C; ++c) {
            const T* xp = x + (b * C + c) * H * W;
            CT sum = 0;
            for (const RoiSample<CT>& s : samples) {
              if (s.count == 0) continue;
              sum += s.wt[0] * Ld<CT>(xp, s.at[0]) + s.wt[1] * Ld<CT>(xp, s.at[1]) +
                     s.wt[2] * Ld<CT>(xp, s.at[2]) + s.wt[3] * Ld<CT>(xp, s.at[3]);
            }
            St(y, ((n * C + c) * ph + i) * pw + j, sum / g.count);
          }
        }
      }
    }
    return absl::OkStatus();
  })
}

// ------------------------------------------------------------------ Proposal

// Floats of scratch per image: proposals (count x 5), scores, order, ordered
// proposals (pre x 5), area, suppressed; keep as int32 (pre).
size_t ProposalScratchFloats(const ProposalDims& d) {
  return static_cast<size_t>(d.count * 5 + 2 * d.count + d.pre * 5 + 3 * d.pre);
}

size_t ProposalWorkspace(const NodeAttrs& attrs, const std::vector<Shape>& in,
                         const std::vector<Shape>&, DType) {
  if (in.empty() || in[0].ndim() != 4) return 0;
  const ProposalDims d = GetProposalDims(Param<ProposalParam>(attrs), in[0]);
  return ProposalScratchFloats(d) * sizeof(float);
}

// One image b: writes rows [b * rows, (b + 1) * rows) of out and score.
absl::Status ProposalImage(const KernelContext& ctx, const ProposalParam& p, const ProposalDims& d,
                           const std::vector<float>& anchors, int64_t b, const float* cls,
                           const float* deltas, const float* info, float* scratch, float* out,
                           float* score) {
  float* props = scratch;                                          // count x 5
  float* sc = props + d.count * 5;                                 // count
  int32_t* order = reinterpret_cast<int32_t*>(sc + d.count);       // count
  float* ordered = reinterpret_cast<float*>(order + d.count);      // pre x 5
  float* area = ordered + d.pre * 5;                               // pre
  float* suppressed = area + d.pre;                                // pre
  int32_t* keep = reinterpret_cast<int32_t*>(suppressed + d.pre);  // pre

  const float* fg = cls + (b * 2 * d.a + d.a) * d.h * d.w;  // foreground scores
  const float* dl = deltas + b * 4 * d.a * d.h * d.w;
  const float im_h = info[b * 3 + 0], im_w = info[b * 3 + 1], im_scale = info[b * 3 + 2];
  int64_t real_h = 0, real_w = 0;
  SYMX_RETURN_IF_ERROR(CheckProposalImage(ctx, d, b, im_h, im_w, &real_h, &real_w));
  const float min_size = static_cast<float>(p.rpn_min_size) * im_scale;
  const int64_t plane = d.h * d.w;
  for (int64_t y = 0; y < d.h; ++y) {
    for (int64_t x = 0; x < d.w; ++x) {
      for (int64_t a = 0; a < d.a; ++a) {
        const int64_t k = (y * d.w + x) * d.a + a;
        const int64_t at = y * d.w + x;
        ProposalBox(anchors.data() + a * 4, x, y, p.feature_stride, dl + a * 4 * plane + at,
                    plane, p.iou_loss, im_h, im_w, min_size, fg[a * plane + at],
                    y >= real_h || x >= real_w, props + k * 5);
      }
    }
  }
  for (int64_t k = 0; k < d.count; ++k) {
    sc[k] = props[k * 5 + 4];
    order[k] = static_cast<int32_t>(k);
  }
  // Stable, as the GPU's sort: equal scores (every -1) keep cell order on both devices.
  std::stable_sort(order, order + d.count,
                   [sc](int32_t i, int32_t j) { return sc[i] > sc[j]; });
  for (int64_t i = 0; i < d.pre; ++i) {
    std::memcpy(ordered + i * 5, props + static_cast<int64_t>(order[i]) * 5, 5 * sizeof(float));
  }
  // Greedy NMS over the pre_nms_top_n best, keeping at most post_nms boxes.
  for (int64_t i = 0; i < d.pre; ++i) {
    area[i] = ProposalArea(ordered + i * 5);
    suppressed[i] = 0;
  }
  int64_t kept = 0;
  for (int64_t i = 0; i < d.pre && kept < d.post_nms; ++i) {
    if (suppressed[i] > 0) continue;
    keep[kept++] = static_cast<int32_t>(i);
    for (int64_t j = i + 1; j < d.pre; ++j) {
      if (suppressed[j] > 0) continue;
      if (ProposalSuppresses(ordered + i * 5, area[i], ordered + j * 5, area[j], p.threshold)) {
        suppressed[j] = 1;
      }
    }
  }
  // Rows past the kept boxes repeat them cyclically (MXNet's keep[i % kept]).
  for (int64_t i = 0; i < d.rows; ++i) {
    const float* bx = ordered + static_cast<int64_t>(keep[i % kept]) * 5;
    float* o = out + (b * d.rows + i) * 5;
    o[0] = static_cast<float>(b);
    for (int j = 0; j < 4; ++j) o[j + 1] = bx[j];
    score[b * d.rows + i] = bx[4];
  }
  return absl::OkStatus();
}

template <bool kMulti>
absl::Status ProposalForward(const KernelContext& ctx) {
  const auto& p = ctx.param<ProposalParam>();
  SYMX_ASSIGN_OR_RETURN(const ProposalDims d, CheckProposal(ctx, kMulti));
  if (d.count == 0 || d.n == 0) return absl::OkStatus();
  if (ctx.workspace.nbytes() < ProposalScratchFloats(d) * sizeof(float)) {
    return Fail(ctx, "workspace too small");
  }
  const std::vector<float> anchors = MakeProposalAnchors(p);
  float* scratch = reinterpret_cast<float*>(ctx.workspace.data<uint8_t>());
  for (int64_t b = 0; b < d.n; ++b) {
    SYMX_RETURN_IF_ERROR(ProposalImage(ctx, p, d, anchors, b, ctx.inputs[0].data<float>(),
                                       ctx.inputs[1].data<float>(), ctx.inputs[2].data<float>(),
                                       scratch, ctx.outputs[0].data<float>(),
                                       ctx.outputs[1].data<float>()));
  }
  return absl::OkStatus();
}

}  // namespace

SYMX_REGISTER_KERNEL("ROIPooling", kCPU, ROIPoolingForward);
SYMX_REGISTER_KERNEL("_backward_ROIPooling", kCPU, ROIPoolingBackward);
SYMX_REGISTER_KERNEL("_contrib_ROIAlign", kCPU, ROIAlignForward);
SYMX_REGISTER_KERNEL("_backward_ROIAlign", kCPU, ROIAlignBackward);
SYMX_REGISTER_KERNEL("_contrib_PSROIPooling", kCPU, PSROIPoolingForward);
SYMX_REGISTER_KERNEL("_backward_PSROIPooling", kCPU, PSROIPoolingBackward);
SYMX_REGISTER_KERNEL("_contrib_DeformablePSROIPooling", kCPU, DeformablePSROIPoolingForward);
SYMX_REGISTER_KERNEL("_backward_DeformablePSROIPooling", kCPU, DeformablePSROIPoolingBackward);
SYMX_REGISTER_KERNEL("_contrib_RROIAlign", kCPU, RROIAlignForward);
SYMX_REGISTER_KERNEL("_contrib_Proposal", kCPU, .fn = ProposalForward<false>,
                     .workspace = ProposalWorkspace);
SYMX_REGISTER_KERNEL("_contrib_MultiProposal", kCPU, .fn = ProposalForward<true>,
                     .workspace = ProposalWorkspace);

}  // namespace cpu
}  // namespace symx
