// The roi family's CUDA kernels (launchers in devices/cuda/roi_launch.h).
//
// Proposal / MultiProposal on the GPU over the CPU's box arithmetic
// (devices/geometry/proposal_geometry.h): every (image, cell, anchor) proposal decoded
// in parallel, each image's scores sorted by CUB's segmented radix sort
// (stable, so score ties keep cell order, as the CPU's std::stable_sort),
// then one block per image runs the greedy NMS over the best
// `pre`, each kept box suppressing the later ones in parallel.
//
// ROIPooling, _contrib_ROIAlign, the PS poolings and _contrib_box_iou on the GPU, over the
// geometry the CPU kernels use (devices/geometry/roi_geometry.h, box_geometry.h): the
// same compute type per dtype, so bins and IoUs agree with the CPU to the
// last bit.
#include <cfloat>

#include "devices/geometry/box_geometry.h"
#include "devices/cuda/elem_types.cuh"
#include "devices/cuda/roi_launch.h"
#include "devices/geometry/proposal_geometry.h"
#include "devices/geometry/psroi_geometry.h"
#include "devices/geometry/roi_geometry.h"

namespace symx {
namespace cuda {
namespace {

__global__ void ProposalDecodeKernel(const float* cls, const float* deltas, const float* info,
                                     const float* anchors, ProposalArgs a, float* props,
                                     float* keys, int64_t total) {
  SYMX_GRID_STRIDE(e, total) {
    const int64_t b = e / a.count, k = e % a.count;
    const int64_t anchor = k % a.a, cell = k / a.a;
    const int64_t y = cell / a.w, x = cell % a.w, plane = a.h * a.w;
    const float im_h = info[b * 3], im_w = info[b * 3 + 1], im_scale = info[b * 3 + 2];
    const float stride = static_cast<float>(a.stride);
    const int64_t real_h = static_cast<int64_t>(im_h / stride);
    const int64_t real_w = static_cast<int64_t>(im_w / stride);
    const float* fg = cls + (b * 2 * a.a + a.a) * plane;  // foreground scores
    const float* dl = deltas + b * 4 * a.a * plane;
    float* box = props + e * 5;
    ProposalBox(anchors + anchor * 4, x, y, a.stride, dl + anchor * 4 * plane + cell, plane,
                a.iou_loss, im_h, im_w, static_cast<float>(a.min_size) * im_scale,
                fg[anchor * plane + cell], y >= real_h || x >= real_w, box);
    keys[e] = box[4];
  }
}

__global__ void ProposalNmsKernel(const float* props, const int32_t* pos, ProposalArgs a,
                                  float* ordered_all, float* area_all, uint8_t* dead_all,
                                  int32_t* keep_all, float* out, float* score) {
  const int64_t b = blockIdx.x, tid = threadIdx.x, nt = blockDim.x, pre = a.pre;
  float* ordered = ordered_all + b * pre * 5;
  float* area = area_all + b * pre;
  uint8_t* dead = dead_all + b * pre;
  int32_t* keep = keep_all + b * pre;
  __shared__ int64_t kept;
  if (tid == 0) kept = 0;
  for (int64_t i = tid; i < pre; i += nt) {
    const float* src = props + (b * a.count + pos[b * a.count + i]) * 5;
    for (int j = 0; j < 5; ++j) ordered[i * 5 + j] = src[j];
    area[i] = ProposalArea(ordered + i * 5);
    dead[i] = 0;
  }
  for (int64_t i = 0; i < pre; ++i) {
    __syncthreads();  // dead[i] and kept are final here
    const int64_t now = kept;
    __syncthreads();  // everyone has read kept before thread 0 moves it
    if (now >= a.post_nms) break;
    if (dead[i]) continue;
    for (int64_t j = i + 1 + tid; j < pre; j += nt) {
      if (dead[j]) continue;
      if (ProposalSuppresses(ordered + i * 5, area[i], ordered + j * 5, area[j], a.threshold)) {
        dead[j] = 1;
      }
    }
    if (tid == 0) {
      keep[now] = static_cast<int32_t>(i);
      kept = now + 1;
    }
  }
  __syncthreads();
  const int64_t n_kept = kept;
  if (n_kept == 0) return;  // no rows can be asked for then (post_nms >= 1 when rows >= 1)
  // Rows past the kept boxes repeat them cyclically (MXNet's keep[i % kept]).
  for (int64_t i = tid; i < a.rows; i += nt) {
    const float* bx = ordered + static_cast<int64_t>(keep[i % n_kept]) * 5;
    float* o = out + (b * a.rows + i) * 5;
    o[0] = static_cast<float>(b);
    for (int j = 0; j < 4; ++j) o[j + 1] = bx[j];
    score[b * a.rows + i] = bx[4];
  }
}

template <typename T>
__global__ void RoiPoolKernel(const T* x, const T* rois, RoiDims d, T* y, T* argmax,
                              int64_t total) {
  using C = GeomC<T>;
  SYMX_GRID_STRIDE(e, total) {  // over (R, C_out, PH, PW)
    const int64_t j = e % d.pw, i = (e / d.pw) % d.ph, c = (e / (d.pw * d.ph)) % d.co;
    const int64_t n = e / (d.pw * d.ph * d.co);
    const T* roi = rois + n * 5;
    const int64_t b = static_cast<int64_t>(Rd(roi, 0));
    if (b < 0 || b >= d.n) {
      Wr(y, e, C(0));
      Wr(argmax, e, C(-1));
      continue;
    }
    const RoiPoolWindow win = RoiPoolBin<C>(Rd(roi, 1), Rd(roi, 2), Rd(roi, 3), Rd(roi, 4),
                                            static_cast<C>(d.scale), i, j, d.ph, d.pw, d.h, d.w);
    if (win.h1 <= win.h0 || win.w1 <= win.w0) {
      Wr(y, e, C(0));
      Wr(argmax, e, C(-1));
      continue;
    }
    const T* xp = x + (b * d.c + c) * d.h * d.w;
    C best = -FLT_MAX;
    int64_t best_at = -1;
    for (int64_t h = win.h0; h < win.h1; ++h) {
      for (int64_t w = win.w0; w < win.w1; ++w) {
        const C v = Rd(xp, h * d.w + w);
        if (v > best) {
          best = v;
          best_at = h * d.w + w;
        }
      }
    }
    Wr(y, e, best);
    Wr(argmax, e, static_cast<C>(best_at));
  }
}

template <typename T, typename A>
__global__ void RoiPoolGradKernel(const T* g, const T* rois, const T* argmax, RoiDims d, A* acc,
                                  int64_t total) {
  SYMX_GRID_STRIDE(e, total) {
    const int64_t c = (e / (d.pw * d.ph)) % d.co, n = e / (d.pw * d.ph * d.co);
    const int64_t b = static_cast<int64_t>(Rd(rois, n * 5));
    if (b < 0 || b >= d.n) continue;
    const int64_t m = static_cast<int64_t>(Rd(argmax, e));
    if (m < 0 || m >= d.h * d.w) continue;
    atomicAdd(acc + (b * d.c + c) * d.h * d.w + m, static_cast<A>(Rd(g, e)));
  }
}

// Calls fn(sample, weight scale) for every bilinear sample of output e; false
// when the roi has no valid batch index or is empty with aligned=True (then
// *bad is set).
template <typename T, typename Fn>
__device__ void ForAlignSamples(const T* rois, const RoiDims& d, int64_t e, int64_t* plane,
                                unsigned long long* first_bad, Fn&& fn) {
  using C = GeomC<T>;
  const int64_t j = e % d.pw, i = (e / d.pw) % d.ph, c = (e / (d.pw * d.ph)) % d.co;
  const int64_t n = e / (d.pw * d.ph * d.co);
  const T* roi = rois + n * 5;
  const int64_t b = static_cast<int64_t>(Rd(roi, 0));
  *plane = -1;
  if (b < 0 || b >= d.n) return;
  const RoiAlignGrid<C> grid =
      MakeRoiAlignGrid<C>(Rd(roi, 1), Rd(roi, 2), Rd(roi, 3), Rd(roi, 4), static_cast<C>(d.scale),
                          d.aligned, d.ph, d.pw, d.sample_ratio);
  if (!grid.valid) {
    atomicMin(first_bad, static_cast<unsigned long long>(n));
    return;
  }
  const int64_t cin = d.position_sensitive ? (c * d.ph + i) * d.pw + j : c;
  *plane = (b * d.c + cin) * d.h * d.w;
  for (int64_t iy = 0; iy < grid.gh; ++iy) {
    for (int64_t ix = 0; ix < grid.gw; ++ix) {
      C y, x;
      RoiAlignPoint(grid, i, j, iy, ix, &y, &x);
      fn(RoiBilinearSample<C>(y, x, d.h, d.w), grid.count);
    }
  }
}

template <typename T>
__global__ void RoiAlignKernel(const T* x, const T* rois, RoiDims d, T* y,
                               unsigned long long* first_bad, int64_t total) {
  using C = GeomC<T>;
  SYMX_GRID_STRIDE(e, total) {
    C sum = 0, count = 1;
    int64_t plane = -1;
    ForAlignSamples(rois, d, e, &plane, first_bad, [&](const RoiSample<C>& s, C n) {
      count = n;
      if (s.count == 0) return;
      const T* xp = x + (plane >= 0 ? plane : 0);
      sum += s.wt[0] * Rd(xp, s.at[0]) + s.wt[1] * Rd(xp, s.at[1]) + s.wt[2] * Rd(xp, s.at[2]) +
             s.wt[3] * Rd(xp, s.at[3]);
    });
    Wr(y, e, plane < 0 ? C(0) : sum / count);
  }
}

template <typename T, typename A>
__global__ void RoiAlignGradKernel(const T* g, const T* rois, RoiDims d, A* acc,
                                   unsigned long long* first_bad, int64_t total) {
  using C = GeomC<T>;
  SYMX_GRID_STRIDE(e, total) {
    int64_t plane = -1;
    const C go = Rd(g, e);
    ForAlignSamples(rois, d, e, &plane, first_bad, [&](const RoiSample<C>& s, C count) {
      const C v = go / count;
      for (int k = 0; k < s.count; ++k) {
        atomicAdd(acc + plane + s.at[k], static_cast<A>(v * s.wt[k]));
      }
    });
  }
}

template <typename T>
__global__ void RoundToStorage(const float* acc, T* out, int64_t n) {
  SYMX_GRID_STRIDE(i, n) { Store(out, i, acc[i]); }
}

// Zeroes the accumulator (gx itself, or float scratch for the half types),
// runs `add`, and rounds the scratch into gx.
template <typename T, typename Add>
cudaError_t Accumulate(T* gx, void* scratch, int64_t size, cudaStream_t s, Add&& add) {
  constexpr bool kHalf = !std::is_same_v<T, float> && !std::is_same_v<T, double>;
  using A = std::conditional_t<kHalf, float, T>;
  A* acc = nullptr;
  if constexpr (kHalf) {
    acc = static_cast<A*>(scratch);
  } else {
    acc = gx;
  }
  if (size > 0) {
    const cudaError_t e = cudaMemsetAsync(acc, 0, static_cast<size_t>(size) * sizeof(A), s);
    if (e != cudaSuccess) return e;
  }
  add(acc);
  if constexpr (kHalf) {
    if (size > 0) RoundToStorage<T><<<GridFor(size), kThreads, 0, s>>>(acc, gx, size);
  }
  return cudaSuccess;
}

template <typename T>
__global__ void RroiAlignKernel(const T* x, const T* rois, RoiDims d, T* y, int64_t total) {
  using C = GeomC<T>;
  SYMX_GRID_STRIDE(e, total) {  // over (R, C, PH, PW)
    const int64_t j = e % d.pw, i = (e / d.pw) % d.ph, c = (e / (d.pw * d.ph)) % d.co;
    const int64_t n = e / (d.pw * d.ph * d.co);
    const T* roi = rois + n * 6;
    const int64_t b = static_cast<int64_t>(Rd(roi, 0));
    if (b < 0 || b >= d.n) {
      Wr(y, e, C(0));
      continue;
    }
    const RroiGrid<C> g = MakeRroiGrid<C>(Rd(roi, 1), Rd(roi, 2), Rd(roi, 3), Rd(roi, 4),
                                          Rd(roi, 5), static_cast<C>(d.scale), d.ph, d.pw,
                                          d.sample_ratio);
    const T* xp = x + (b * d.c + c) * d.h * d.w;
    C sum = 0;
    for (int64_t iy = 0; iy < g.gh; ++iy) {
      for (int64_t ix = 0; ix < g.gw; ++ix) {
        C sy, sx;
        RroiPoint(g, i, j, iy, ix, &sy, &sx);
        const RoiSample<C> s = RoiBilinearSample<C>(sy, sx, d.h, d.w);
        if (s.count == 0) continue;
        sum += s.wt[0] * Rd(xp, s.at[0]) + s.wt[1] * Rd(xp, s.at[1]) +
               s.wt[2] * Rd(xp, s.at[2]) + s.wt[3] * Rd(xp, s.at[3]);
      }
    }
    Wr(y, e, sum / g.count);
  }
}

// ---------------------------------------------------------------- PSROIPooling

template <typename T>
__device__ __forceinline__ bool PsBatch(const T* rois, int64_t n, const PsRoiDims& d, int64_t* b) {
  *b = static_cast<int64_t>(Rd(rois, n * 5));
  return *b >= 0 && *b < d.n;
}

template <typename T>
__device__ __forceinline__ PsRoiRect<GeomC<T>> PsRect(const T* roi, const PsRoiDims& d,
                                                      GeomC<T> shift) {
  using C = GeomC<T>;
  return MakePsRoiRect<C>(Rd(roi, 1), Rd(roi, 2), Rd(roi, 3), Rd(roi, 4), static_cast<C>(d.scale),
                          shift);
}

template <typename T>
__global__ void PsRoiPoolKernel(const T* x, const T* rois, PsRoiDims d, T* y, int64_t total) {
  using C = GeomC<T>;
  SYMX_GRID_STRIDE(e, total) {  // over (R, D, P, P)
    const int64_t j = e % d.p, i = (e / d.p) % d.p, ct = (e / (d.p * d.p)) % d.d;
    const int64_t n = e / (d.p * d.p * d.d);
    int64_t b;
    if (!PsBatch(rois, n, d, &b)) {
      Wr(y, e, C(0));
      continue;
    }
    const PsRoiWindow win = PsRoiBin<C>(PsRect(rois + n * 5, d, C(0)), i, j, d.p, d.h, d.w);
    if (win.h1 <= win.h0 || win.w1 <= win.w0) {
      Wr(y, e, C(0));
      continue;
    }
    const T* plane = x + (b * d.c + PsRoiChannel(ct, i, j, d.p, d.group)) * d.h * d.w;
    C sum = 0;
    for (int64_t h = win.h0; h < win.h1; ++h) {
      for (int64_t w = win.w0; w < win.w1; ++w) sum += Rd(plane, h * d.w + w);
    }
    Wr(y, e, sum / static_cast<C>((win.h1 - win.h0) * (win.w1 - win.w0)));
  }
}

template <typename T, typename A>
__global__ void PsRoiPoolGradKernel(const T* g, const T* rois, PsRoiDims d, A* acc,
                                    int64_t total) {
  using C = GeomC<T>;
  SYMX_GRID_STRIDE(e, total) {
    const int64_t j = e % d.p, i = (e / d.p) % d.p, ct = (e / (d.p * d.p)) % d.d;
    const int64_t n = e / (d.p * d.p * d.d);
    int64_t b;
    if (!PsBatch(rois, n, d, &b)) continue;
    const PsRoiWindow win = PsRoiBin<C>(PsRect(rois + n * 5, d, C(0)), i, j, d.p, d.h, d.w);
    if (win.h1 <= win.h0 || win.w1 <= win.w0) continue;
    const C v = Rd(g, e) / static_cast<C>((win.h1 - win.h0) * (win.w1 - win.w0));
    A* plane = acc + (b * d.c + PsRoiChannel(ct, i, j, d.p, d.group)) * d.h * d.w;
    for (int64_t h = win.h0; h < win.h1; ++h) {
      for (int64_t w = win.w0; w < win.w1; ++w) atomicAdd(plane + h * d.w + w, static_cast<A>(v));
    }
  }
}

// Bin e of DeformablePSROIPooling: its samples, plane and trans entry (-1
// without trans).
template <typename T>
struct DpsBinOnDevice {
  PsRoiRect<GeomC<T>> rect;
  PsRoiSamples<GeomC<T>> samples;
  int64_t plane, trans_at;
};

template <typename T>
__device__ __forceinline__ bool DpsBinOf(const T* rois, const T* trans, const PsRoiDims& d,
                                         int64_t e, DpsBinOnDevice<T>* bin) {
  using C = GeomC<T>;
  const int64_t j = e % d.p, i = (e / d.p) % d.p, ct = (e / (d.p * d.p)) % d.d;
  const int64_t n = e / (d.p * d.p * d.d);
  int64_t b;
  if (!PsBatch(rois, n, d, &b)) return false;
  bin->rect = PsRect(rois + n * 5, d, C(0.5));
  bin->plane = (b * d.c + PsRoiChannel(ct, i, j, d.p, d.group)) * d.h * d.w;
  C tx = 0, ty = 0;
  bin->trans_at = -1;
  if (d.has_trans) {
    const int64_t ph = PsRoiPart<C>(i, d.p, d.part), pw = PsRoiPart<C>(j, d.p, d.part);
    bin->trans_at = (((n * d.classes + ct / (d.d / d.classes)) * 2) * d.part + ph) * d.part + pw;
    tx = Rd(trans, bin->trans_at) * static_cast<C>(d.trans_std);
    ty = Rd(trans, bin->trans_at + d.part * d.part) * static_cast<C>(d.trans_std);
  }
  bin->samples = MakePsRoiSamples<C>(bin->rect, i, j, d.p, d.per_part, tx, ty);
  return true;
}

template <typename T>
__global__ void DeformPsRoiPoolKernel(const T* x, const T* rois, const T* trans, PsRoiDims d, T* y,
                                      T* count, int64_t total) {
  using C = GeomC<T>;
  SYMX_GRID_STRIDE(e, total) {
    DpsBinOnDevice<T> bin;
    C sum = 0;
    int64_t used = 0;
    if (DpsBinOf(rois, trans, d, e, &bin)) {
      for (int64_t ih = 0; ih < d.per_part; ++ih) {
        for (int64_t iw = 0; iw < d.per_part; ++iw) {
          PsRoiPoint<C> pt;
          if (!MakePsRoiPoint<C>(bin.samples.x + static_cast<C>(iw) * bin.samples.step_w,
                                 bin.samples.y + static_cast<C>(ih) * bin.samples.step_h, d.h,
                                 d.w, &pt)) {
            continue;
          }
          const T* xp = x + bin.plane;
          sum += (1 - pt.dx) * (1 - pt.dy) * Rd(xp, pt.y0 * d.w + pt.x0) +
                 (1 - pt.dx) * pt.dy * Rd(xp, pt.y1 * d.w + pt.x0) +
                 pt.dx * (1 - pt.dy) * Rd(xp, pt.y0 * d.w + pt.x1) +
                 pt.dx * pt.dy * Rd(xp, pt.y1 * d.w + pt.x1);
          ++used;
        }
      }
    }
    Wr(y, e, used == 0 ? C(0) : sum / static_cast<C>(used));
    Wr(count, e, static_cast<C>(used));
  }
}

template <typename T, typename A>
__global__ void DeformPsRoiPoolGradKernel(const T* g, const T* x, const T* rois, const T* trans,
                                          const T* count, PsRoiDims d, A* gx, A* gt,
                                          int64_t total) {
  using C = GeomC<T>;
  SYMX_GRID_STRIDE(e, total) {
    DpsBinOnDevice<T> bin;
    if (!DpsBinOf(rois, trans, d, e, &bin)) continue;
    const C used = Rd(count, e);
    if (!(used > C(0))) continue;
    const C v = Rd(g, e) / used;
    const C trans_std = static_cast<C>(d.trans_std);
    for (int64_t ih = 0; ih < d.per_part; ++ih) {
      for (int64_t iw = 0; iw < d.per_part; ++iw) {
        PsRoiPoint<C> pt;
        if (!MakePsRoiPoint<C>(bin.samples.x + static_cast<C>(iw) * bin.samples.step_w,
                               bin.samples.y + static_cast<C>(ih) * bin.samples.step_h, d.h, d.w,
                               &pt)) {
          continue;
        }
        const int64_t a00 = bin.plane + pt.y0 * d.w + pt.x0, a01 = bin.plane + pt.y1 * d.w + pt.x0;
        const int64_t a10 = bin.plane + pt.y0 * d.w + pt.x1, a11 = bin.plane + pt.y1 * d.w + pt.x1;
        if (gx != nullptr) {
          atomicAdd(gx + a00, static_cast<A>((1 - pt.dx) * (1 - pt.dy) * v));
          atomicAdd(gx + a01, static_cast<A>((1 - pt.dx) * pt.dy * v));
          atomicAdd(gx + a10, static_cast<A>(pt.dx * (1 - pt.dy) * v));
          atomicAdd(gx + a11, static_cast<A>(pt.dx * pt.dy * v));
        }
        if (gt == nullptr || bin.trans_at < 0) continue;
        const C u00 = Rd(x, a00), u01 = Rd(x, a01), u10 = Rd(x, a10), u11 = Rd(x, a11);
        const C dx = (u11 * pt.dy + u10 * (1 - pt.dy) - u01 * pt.dy - u00 * (1 - pt.dy)) *
                     trans_std * v * bin.rect.width;
        const C dy = (u11 * pt.dx + u01 * (1 - pt.dx) - u10 * pt.dx - u00 * (1 - pt.dx)) *
                     trans_std * v * bin.rect.height;
        atomicAdd(gt + bin.trans_at, static_cast<A>(dx));
        atomicAdd(gt + bin.trans_at + d.part * d.part, static_cast<A>(dy));
      }
    }
  }
}

}  // namespace

cudaError_t LaunchProposalDecode(const float* cls, const float* deltas, const float* info,
                                 const float* anchors, const ProposalArgs& a, float* props,
                                 float* keys, cudaStream_t s) {
  const int64_t total = a.n * a.count;
  if (total == 0) return cudaSuccess;
  ProposalDecodeKernel<<<GridFor(total), kThreads, 0, s>>>(cls, deltas, info, anchors, a, props,
                                                           keys, total);
  return LastLaunchError();
}

cudaError_t LaunchProposalNms(const float* props, const int32_t* positions, const ProposalArgs& a,
                              float* ordered, float* area, uint8_t* dead, int32_t* keep, float* out,
                              float* score, cudaStream_t s) {
  if (a.n == 0) return cudaSuccess;
  if (a.n > 0x7fffffff) return cudaErrorInvalidValue;
  ProposalNmsKernel<<<static_cast<unsigned>(a.n), kThreads, 0, s>>>(props, positions, a, ordered,
                                                                    area, dead, keep, out, score);
  return LastLaunchError();
}

cudaError_t LaunchRoiPool(Elem t, const void* x, const void* rois, const RoiDims& d, void* y,
                          void* argmax, cudaStream_t s) {
  const int64_t total = d.r * d.co * d.ph * d.pw;
  if (total == 0) return cudaSuccess;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    RoiPoolKernel<T>
        <<<GridFor(total), kThreads, 0, s>>>(static_cast<const T*>(x), static_cast<const T*>(rois),
                                             d, static_cast<T*>(y), static_cast<T*>(argmax), total);
  });
  return LastLaunchError();
}

cudaError_t LaunchRoiPoolGrad(Elem t, const void* g, const void* rois, const void* argmax,
                              const RoiDims& d, void* gx, void* scratch, cudaStream_t s) {
  const int64_t total = d.r * d.co * d.ph * d.pw, size = d.n * d.c * d.h * d.w;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    const cudaError_t e = Accumulate<T>(static_cast<T*>(gx), scratch, size, s, [&](auto* acc) {
      using A = std::remove_pointer_t<decltype(acc)>;
      if (total > 0) {
        RoiPoolGradKernel<T, A><<<GridFor(total), kThreads, 0, s>>>(
            static_cast<const T*>(g), static_cast<const T*>(rois), static_cast<const T*>(argmax), d,
            acc, total);
      }
    });
    if (e != cudaSuccess) return e;
  });
  return LastLaunchError();
}

cudaError_t LaunchRoiAlign(Elem t, const void* x, const void* rois, const RoiDims& d, void* y,
                           unsigned long long* first_bad, cudaStream_t s) {
  const int64_t total = d.r * d.co * d.ph * d.pw;
  if (total == 0) return cudaSuccess;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    RoiAlignKernel<T><<<GridFor(total), kThreads, 0, s>>>(static_cast<const T*>(x),
                                                          static_cast<const T*>(rois), d,
                                                          static_cast<T*>(y), first_bad, total);
  });
  return LastLaunchError();
}

cudaError_t LaunchRoiAlignGrad(Elem t, const void* g, const void* rois, const RoiDims& d, void* gx,
                               void* scratch, unsigned long long* first_bad, cudaStream_t s) {
  const int64_t total = d.r * d.co * d.ph * d.pw, size = d.n * d.c * d.h * d.w;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    const cudaError_t e = Accumulate<T>(static_cast<T*>(gx), scratch, size, s, [&](auto* acc) {
      using A = std::remove_pointer_t<decltype(acc)>;
      if (total > 0) {
        RoiAlignGradKernel<T, A><<<GridFor(total), kThreads, 0, s>>>(
            static_cast<const T*>(g), static_cast<const T*>(rois), d, acc, first_bad, total);
      }
    });
    if (e != cudaSuccess) return e;
  });
  return LastLaunchError();
}

cudaError_t LaunchPsRoiPool(Elem t, const void* x, const void* rois, const PsRoiDims& d, void* y,
                            cudaStream_t s) {
  const int64_t total = d.r * d.d * d.p * d.p;
  if (total == 0) return cudaSuccess;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    PsRoiPoolKernel<T><<<GridFor(total), kThreads, 0, s>>>(
        static_cast<const T*>(x), static_cast<const T*>(rois), d, static_cast<T*>(y), total);
  });
  return LastLaunchError();
}

cudaError_t LaunchPsRoiPoolGrad(Elem t, const void* g, const void* rois, const PsRoiDims& d,
                                void* gx, void* scratch, cudaStream_t s) {
  const int64_t total = d.r * d.d * d.p * d.p, size = d.n * d.c * d.h * d.w;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    const cudaError_t e = Accumulate<T>(static_cast<T*>(gx), scratch, size, s, [&](auto* acc) {
      using A = std::remove_pointer_t<decltype(acc)>;
      if (total > 0) {
        PsRoiPoolGradKernel<T, A><<<GridFor(total), kThreads, 0, s>>>(
            static_cast<const T*>(g), static_cast<const T*>(rois), d, acc, total);
      }
    });
    if (e != cudaSuccess) return e;
  });
  return LastLaunchError();
}

cudaError_t LaunchDeformPsRoiPool(Elem t, const void* x, const void* rois, const void* trans,
                                  const PsRoiDims& d, void* y, void* count, cudaStream_t s) {
  const int64_t total = d.r * d.d * d.p * d.p;
  if (total == 0) return cudaSuccess;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    DeformPsRoiPoolKernel<T><<<GridFor(total), kThreads, 0, s>>>(
        static_cast<const T*>(x), static_cast<const T*>(rois), static_cast<const T*>(trans), d,
        static_cast<T*>(y), static_cast<T*>(count), total);
  });
  return LastLaunchError();
}

cudaError_t LaunchDeformPsRoiPoolGrad(Elem t, const void* g, const void* x, const void* rois,
                                      const void* trans, const void* count, const PsRoiDims& d,
                                      void* gx, void* scratch, void* gtrans, void* trans_scratch,
                                      cudaStream_t s) {
  const int64_t total = d.r * d.d * d.p * d.p, size = d.n * d.c * d.h * d.w;
  const int64_t trans_size = d.has_trans ? d.r * 2 * d.classes * d.part * d.part : 0;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    using A = std::conditional_t<std::is_same_v<T, float> || std::is_same_v<T, double>, T, float>;
    A* acc_x = nullptr;
    A* acc_t = nullptr;
    auto run = [&]() {
      if (total > 0) {
        DeformPsRoiPoolGradKernel<T, A><<<GridFor(total), kThreads, 0, s>>>(
            static_cast<const T*>(g), static_cast<const T*>(x), static_cast<const T*>(rois),
            static_cast<const T*>(trans), static_cast<const T*>(count), d, acc_x, acc_t, total);
      }
    };
    auto with_trans = [&]() -> cudaError_t {
      if (gtrans == nullptr) {
        run();
        return cudaSuccess;
      }
      return Accumulate<T>(static_cast<T*>(gtrans), trans_scratch, trans_size, s,
                           [&](A* acc) {
                             acc_t = acc;
                             run();
                           });
    };
    cudaError_t e = cudaSuccess;
    if (gx == nullptr) {
      e = with_trans();
    } else {
      cudaError_t inner = cudaSuccess;
      e = Accumulate<T>(static_cast<T*>(gx), scratch, size, s, [&](A* acc) {
        acc_x = acc;
        inner = with_trans();
      });
      if (e == cudaSuccess) e = inner;
    }
    if (e != cudaSuccess) return e;
  });
  return LastLaunchError();
}

cudaError_t LaunchRroiAlign(Elem t, const void* x, const void* rois, const RoiDims& d, void* y,
                            cudaStream_t s) {
  const int64_t total = d.r * d.co * d.ph * d.pw;
  if (total == 0) return cudaSuccess;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    RroiAlignKernel<T><<<GridFor(total), kThreads, 0, s>>>(
        static_cast<const T*>(x), static_cast<const T*>(rois), d, static_cast<T*>(y), total);
  });
  return LastLaunchError();
}

}  // namespace cuda
}  // namespace symx
