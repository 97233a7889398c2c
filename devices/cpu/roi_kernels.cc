// CPU kernels for the region ops (schemas and MXNet facts in graph/ops/roi.cc):
// ROIPooling, _contrib_ROIAlign (with their backward ops), _contrib_Proposal and
// _contrib_MultiProposal.
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
SYMX_REGISTER_KERNEL("_contrib_Proposal", kCPU, .fn = ProposalForward<false>,
                     .workspace = ProposalWorkspace);
SYMX_REGISTER_KERNEL("_contrib_MultiProposal", kCPU, .fn = ProposalForward<true>,
                     .workspace = ProposalWorkspace);

}  // namespace cpu
}  // namespace symx
