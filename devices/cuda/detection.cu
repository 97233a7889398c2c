// The detection family's CUDA kernels (launchers in devices/cuda/detection_launch.h).
//
// MultiBoxPrior, MultiBoxDetection and box_nms (forward and gradient) on the GPU, over the box
// arithmetic the CPU kernels use (devices/geometry/box_geometry.h) in the same compute
// type, so IoU ties with the threshold fall the same way on both devices.
// box_nms: the candidates' scores become sort keys (-inf for rows that are
// not candidates), CUB's stable segmented sort orders each batch (the CPU's
// std::stable_sort order), then one block per batch runs the greedy
// suppression: each kept box suppresses the later ones in parallel.
// MultiBoxDetection decodes every anchor in parallel, sorts the detections
// the same way and suppresses them in one block per batch.
//
// ROIPooling, _contrib_ROIAlign and _contrib_box_iou on the GPU, over the
// geometry the CPU kernels use (devices/geometry/roi_geometry.h, box_geometry.h): the
// same compute type per dtype, so bins and IoUs agree with the CPU to the
// last bit.
#include <cfloat>

#include "devices/geometry/box_geometry.h"
#include "devices/cuda/detection_launch.h"
#include "devices/cuda/elem_types.cuh"
#include "devices/geometry/roi_geometry.h"

namespace symx {
namespace cuda {
namespace {

__global__ void PriorKernel(int64_t in_w, int64_t anchors, float step_y, float step_x, float off_y,
                            float off_x, const float* half, bool clip, float* out, int64_t count) {
  SYMX_GRID_STRIDE(k, count) {
    const int64_t j = k % anchors, cell = k / anchors;
    const int64_t r = cell / in_w, c = cell % in_w;
    const float cy = (static_cast<float>(r) + off_y) * step_y;
    const float cx = (static_cast<float>(c) + off_x) * step_x;
    PriorCorners(cx, cy, half[2 * j], half[2 * j + 1], clip, out + k * 4);
  }
}

template <typename T>
__device__ __forceinline__ bool NmsCandidate(const T* row, const BoxNmsArgs& a) {
  using C = GeomC<T>;
  if (!(Rd(row, a.score_index) > static_cast<C>(a.valid_thresh))) return false;
  return !(a.id_index >= 0 && Rd(row, a.id_index) == static_cast<C>(a.background_id));
}

// keys[b, i]: row i's score when it is a candidate (-0 as +0, which the CPU's
// comparison cannot tell apart), else -inf, which sorts after every candidate.
template <typename T>
__global__ void NmsKeysKernel(const T* x, BoxNmsArgs a, GeomC<T>* keys, int64_t rows) {
  using C = GeomC<T>;
  SYMX_GRID_STRIDE(i, rows) {
    const T* row = x + i * a.width;
    C key = -static_cast<C>(INFINITY);
    if (NmsCandidate(row, a)) {
      key = Rd(row, a.score_index);
      if (key == C(0)) key = C(0);
    }
    keys[i] = key;
  }
}

// Block-wide: the first i < n with keys[i] == value (n when there is none),
// the same in every thread. Every thread of the block must call it.
template <typename C>
__device__ int64_t BlockFirstIndexOf(const C* keys, int64_t n, C value) {
  __shared__ unsigned long long first;
  if (threadIdx.x == 0) first = static_cast<unsigned long long>(n);
  __syncthreads();
  for (int64_t i = threadIdx.x; i < n; i += blockDim.x) {
    if (keys[i] == value) atomicMin(&first, static_cast<unsigned long long>(i));
  }
  __syncthreads();
  return static_cast<int64_t>(first);
}

template <typename T>
__device__ __forceinline__ Box<GeomC<T>> NmsBox(const T* row, const BoxNmsArgs& a) {
  const int64_t cs = a.coord_start;
  return ToCorner(Rd(row, cs), Rd(row, cs + 1), Rd(row, cs + 2), Rd(row, cs + 3), a.in_center);
}

template <typename T>
__global__ void NmsKernel(const T* x, const GeomC<T>* sorted_keys, const int32_t* pos, BoxNmsArgs a,
                          uint8_t* dead_all, T* out, T* rec) {
  using C = GeomC<T>;
  const int64_t b = blockIdx.x, n = a.n, width = a.width, cs = a.coord_start;
  const T* xb = x + b * n * width;
  const C* kb = sorted_keys + b * n;
  const int32_t* order = pos + b * n;
  uint8_t* dead = dead_all + b * n;
  T* ob = out + b * n * width;
  T* rb = rec + b * n;
  const int64_t tid = threadIdx.x, nt = blockDim.x;
  __shared__ int64_t kept;
  if (tid == 0) kept = 0;
  // Candidates come first in the sorted order: m is the first -inf key.
  int64_t m = BlockFirstIndexOf(kb, n, -static_cast<C>(INFINITY));
  if (a.topk > 0 && a.topk < m) m = a.topk;
  for (int64_t i = tid; i < m; i += nt) dead[i] = 0;
  for (int64_t s = 0; s < m; ++s) {
    __syncthreads();  // dead[s] and kept are final here
    if (dead[s]) continue;
    const T* ra = xb + static_cast<int64_t>(order[s]) * width;
    const Box<C> ba = NmsBox(ra, a);
    for (int64_t c = s + 1 + tid; c < m; c += nt) {
      if (dead[c]) continue;
      const T* rc = xb + static_cast<int64_t>(order[c]) * width;
      if (a.id_index >= 0 && !a.force_suppress && Rd(ra, a.id_index) != Rd(rc, a.id_index)) {
        continue;
      }
      if (Iou(ba, NmsBox(rc, a)) > static_cast<C>(a.overlap_thresh)) dead[c] = 1;
    }
    // Row s is final: copy it to the next output row.
    T* o = ob + kept * width;
    for (int64_t j = tid; j < width; j += nt) o[j] = ra[j];
    __syncthreads();
    if (tid == 0) {
      C coords[4];
      if (NmsOutputCoords(Rd(ra, cs), Rd(ra, cs + 1), Rd(ra, cs + 2), Rd(ra, cs + 3), a.in_center,
                          a.out_center, coords)) {
        for (int j = 0; j < 4; ++j) Wr(o, cs + j, coords[j]);
      }
      Wr(rb, kept, static_cast<C>(order[s]));
      ++kept;
    }
  }
  __syncthreads();
  for (int64_t e = kept * width + tid; e < n * width; e += nt) Wr(ob, e, C(-1));
  for (int64_t i = kept + tid; i < n; i += nt) Wr(rb, i, C(-1));
}

// grad[b * n + rec[i], :] (+)= ograd[i, :] for every kept output row i.
template <typename T>
__global__ void NmsGradKernel(const T* og, const T* rec, int64_t n, int64_t width, bool add,
                              T* grad, int64_t count) {
  SYMX_GRID_STRIDE(e, count) {
    const int64_t i = e / width, j = e % width;
    const double src = ToDouble(rec[i]);
    if (!(src >= 0 && src < static_cast<double>(n))) continue;
    const int64_t dst = ((i / n) * n + static_cast<int64_t>(src)) * width + j;
    const double v = ToDouble(og[e]) + (add ? ToDouble(grad[dst]) : 0.0);
    grad[dst] = FromDouble<T>(v);
  }
}

// Per anchor: its class, score and decoded box as an output row (stored as T,
// as the CPU writes it before sorting), and its sort key (-inf when it has
// no class, so it sorts after every detection).
template <typename T>
__global__ void MultiBoxDecodeKernel(const T* cls, const T* loc, const T* anchors, MultiBoxArgs a,
                                     T* rows, GeomC<T>* keys, int64_t count) {
  using C = GeomC<T>;
  SYMX_GRID_STRIDE(e, count) {  // e = b * anchors + i
    const int64_t b = e / a.anchors, i = e % a.anchors;
    C score;
    const int64_t id = MultiBoxBestClass<C>(cls + b * a.classes * a.anchors + i, a.classes,
                                            a.anchors, static_cast<C>(a.threshold), &score);
    if (id == 0) {
      keys[e] = -static_cast<C>(INFINITY);
      continue;
    }
    const C var[4] = {static_cast<C>(a.var[0]), static_cast<C>(a.var[1]), static_cast<C>(a.var[2]),
                      static_cast<C>(a.var[3])};
    C an[4], lp[4], box[4];
    for (int j = 0; j < 4; ++j) {
      an[j] = Rd(anchors, i * 4 + j);
      lp[j] = Rd(loc, e * 4 + j);
    }
    DecodeMultiBox(an, lp, var, a.clip, box);
    T* row = rows + e * 6;
    Wr(row, 0, static_cast<C>(id - 1));
    Wr(row, 1, score);
    for (int j = 0; j < 4; ++j) Wr(row, 2 + j, box[j]);
    const C key = Rd(row, 1);
    keys[e] = key == C(0) ? C(0) : key;  // -0 as +0: the CPU's comparison ties them
  }
}

// One block per batch: the detections in anchor order (compact), or sorted
// by score and greedily suppressed (MultiBoxDetection's CPU rules).
template <typename T>
__global__ void MultiBoxNmsKernel(const T* rows_all, const GeomC<T>* keys_all,
                                  const GeomC<T>* sorted_keys_all, const int32_t* pos_all,
                                  MultiBoxArgs a, int32_t* compact_all, T* out_all) {
  using C = GeomC<T>;
  const int64_t b = blockIdx.x, na = a.anchors, tid = threadIdx.x, nt = blockDim.x;
  const T* rows = rows_all + b * na * 6;
  const C* keys = keys_all + b * na;
  const C* sorted_keys = sorted_keys_all + b * na;
  const int32_t* pos = pos_all + b * na;
  int32_t* compact = compact_all + b * na;
  T* o = out_all + b * na * 6;
  // Detections come first in the sorted order: valid is the first -inf key.
  const int64_t valid = BlockFirstIndexOf(sorted_keys, na, -static_cast<C>(INFINITY));
  if (tid == 0) {  // the detections' anchors in anchor order
    int32_t c = 0;
    for (int64_t i = 0; i < na; ++i) {
      if (keys[i] != -static_cast<C>(INFINITY)) compact[c++] = static_cast<int32_t>(i);
    }
  }
  __syncthreads();
  const bool nms = valid >= 1 && a.nms_threshold > 0 && a.nms_threshold <= 1;
  const int64_t keep = nms && a.nms_topk > 0 && a.nms_topk < valid ? a.nms_topk : valid;
  for (int64_t e = tid; e < na * 6; e += nt) {
    const int64_t r = e / 6, j = e % 6;
    C v = -1;
    if (r < valid) {
      const int64_t src = nms && r < keep ? pos[r] : compact[r];
      v = Rd(rows, src * 6 + j);
      if (nms && r >= keep && j == 0) v = -1;  // past nms_topk: anchor order, no class
    }
    Wr(o, e, v);
  }
  if (!nms) return;
  const C thresh = static_cast<C>(a.nms_threshold);
  for (int64_t i = 0; i < keep; ++i) {
    __syncthreads();  // row i's class is final here
    if (Rd(o, i * 6) < 0) continue;
    const Box<C> bi{Rd(o, i * 6 + 2), Rd(o, i * 6 + 3), Rd(o, i * 6 + 4), Rd(o, i * 6 + 5)};
    for (int64_t j = i + 1 + tid; j < keep; j += nt) {
      if (Rd(o, j * 6) < 0) continue;
      if (!a.force_suppress && Rd(o, i * 6) != Rd(o, j * 6)) continue;
      const Box<C> bj{Rd(o, j * 6 + 2), Rd(o, j * 6 + 3), Rd(o, j * 6 + 4), Rd(o, j * 6 + 5)};
      if (Iou(bi, bj) >= thresh) Wr(o, j * 6, C(-1));
    }
  }
}

// MultiBoxTarget, one block per batch. Step 1: outputs reset; bipartite
// matching (each round the block's best remaining (anchor, box) pair, the
// first in anchor-major order among equal IoUs, as the CPU's scan); anchors
// above overlap_threshold; then the hard-negative sort keys: the background
// probability of each eligible anchor, +inf for the others (they sort last,
// ascending). IoUs are recomputed rather than stored: each is one Iou call
// with the same inputs, so it is the same value every time.
template <typename T>
__device__ __forceinline__ Box<GeomC<T>> CornerBox(const T* q) {
  return Box<GeomC<T>>{Rd(q, 0), Rd(q, 1), Rd(q, 2), Rd(q, 3)};
}

template <typename T>
__device__ __forceinline__ double TargetIou(const T* anchors, const T* lb, int64_t lw, int64_t j,
                                            int64_t k) {
  return static_cast<double>(Iou(CornerBox(anchors + j * 4), CornerBox(lb + k * lw + 1)));
}

template <typename T>
__global__ void MultiBoxMatchKernel(const T* anchors, const T* labels, const T* cls,
                                    MultiBoxTargetArgs a, MultiBoxTargetScratch w, T* loc_target,
                                    T* loc_mask, T* cls_target) {
  using C = GeomC<T>;
  constexpr int kMaxThreads = 256;
  __shared__ double best_v[kMaxThreads];
  __shared__ int64_t best_i[kMaxThreads];
  __shared__ int64_t g_shared, positives;
  __shared__ bool done;
  const int64_t b = blockIdx.x, na = a.anchors, tid = threadIdx.x, nt = blockDim.x;
  const T* lb = labels + b * a.labels * a.label_width;
  const int64_t lw = a.label_width;
  int32_t* aflag = w.aflag + b * na;  // 1 positive, 0 negative, -1 ignored
  int32_t* match = w.match + b * na;
  int32_t* gflag = w.gflag + b * a.labels;
  double* best_iou = w.best_iou + b * na;
  double* keys = w.keys + b * na;
  for (int64_t i = tid; i < na * 4; i += nt) {
    Wr(loc_target + b * na * 4, i, C(0));
    Wr(loc_mask + b * na * 4, i, C(0));
  }
  for (int64_t i = tid; i < na; i += nt) {
    Wr(cls_target + b * na, i, static_cast<C>(a.ignore_label));
    keys[i] = HUGE_VAL;
  }
  if (tid == 0) {
    int64_t g = 0;
    while (g < a.labels && Rd(lb, g * lw) != C(-1)) ++g;
    g_shared = g;
    positives = 0;
    done = false;
    w.info[b * 2] = g;
    w.info[b * 2 + 1] = 0;
  }
  __syncthreads();
  const int64_t g = g_shared;
  if (g == 0) return;
  for (int64_t j = tid; j < na; j += nt) {
    double best = -1;
    for (int64_t k = 0; k < g; ++k) {
      const double v = TargetIou(anchors, lb, lw, j, k);
      best = best < v ? v : best;  // std::max(best, v)
    }
    best_iou[j] = best;
    aflag[j] = -1;
    match[j] = -1;
  }
  for (int64_t k = tid; k < g; k += nt) gflag[k] = -1;
  for (int64_t left = g; left > 0; --left) {
    __syncthreads();
    double bv = 1e-6;
    int64_t bi = -1;
    for (int64_t e = tid; e < na * g; e += nt) {
      const int64_t j = e / g, k = e % g;
      if (aflag[j] == 1 || gflag[k] == 1) continue;
      const double v = TargetIou(anchors, lb, lw, j, k);
      if (v > bv) bv = v, bi = e;
    }
    best_v[tid] = bv;
    best_i[tid] = bi;
    __syncthreads();
    for (int64_t half = nt / 2; half > 0; half /= 2) {
      if (tid < half) {
        const double ov = best_v[tid + half];
        const int64_t oi = best_i[tid + half];
        if (oi >= 0 &&
            (best_i[tid] < 0 || ov > best_v[tid] || (ov == best_v[tid] && oi < best_i[tid]))) {
          best_v[tid] = ov;
          best_i[tid] = oi;
        }
      }
      __syncthreads();
    }
    if (tid == 0) {
      if (best_i[0] < 0) {
        done = true;
      } else {
        const int64_t j = best_i[0] / g, k = best_i[0] % g;
        aflag[j] = 1;
        gflag[k] = 1;
        match[j] = static_cast<int32_t>(k);
      }
    }
    __syncthreads();
    if (done) break;
  }
  __syncthreads();
  if (a.overlap_threshold > 0) {
    for (int64_t j = tid; j < na; j += nt) {
      if (aflag[j] == 1) continue;
      int64_t k_best = 0;
      double v_best = TargetIou(anchors, lb, lw, j, 0);
      for (int64_t k = 1; k < g; ++k) {
        const double v = TargetIou(anchors, lb, lw, j, k);
        if (v > v_best) v_best = v, k_best = k;
      }
      if (v_best > a.overlap_threshold) aflag[j] = 1, match[j] = static_cast<int32_t>(k_best);
    }
  }
  __syncthreads();
  int64_t mine = 0;
  for (int64_t j = tid; j < na; j += nt) mine += aflag[j] == 1;
  atomicAdd(reinterpret_cast<unsigned long long*>(&positives),
            static_cast<unsigned long long>(mine));
  __syncthreads();
  if (!(a.negative_mining_ratio > 0)) {
    for (int64_t j = tid; j < na; j += nt) {
      if (aflag[j] != 1) aflag[j] = 0;
    }
    return;
  }
  int64_t negatives =
      static_cast<int64_t>(static_cast<double>(positives) * a.negative_mining_ratio);
  if (na - positives < negatives) negatives = na - positives;
  if (tid == 0) w.info[b * 2 + 1] = negatives;
  if (negatives <= 0) return;
  for (int64_t j = tid; j < na; j += nt) {
    if (aflag[j] == 1 || !(best_iou[j] < a.negative_mining_thresh)) continue;
    keys[j] = MultiBoxBackgroundProb(cls + b * a.classes * na + j, a.classes, na);
  }
}

// Step 2, after the keys' ascending sort: the `negatives` least background-
// like eligible anchors become negatives; then every anchor's outputs.
template <typename T>
__global__ void MultiBoxTargetOutKernel(const T* anchors, const T* labels,
                                        const double* sorted_keys, const int32_t* pos,
                                        MultiBoxTargetArgs a, MultiBoxTargetScratch w,
                                        T* loc_target, T* loc_mask, T* cls_target) {
  using C = GeomC<T>;
  const int64_t b = blockIdx.x, na = a.anchors, tid = threadIdx.x, nt = blockDim.x;
  const int64_t g = w.info[b * 2], negatives = w.info[b * 2 + 1];
  if (g == 0) return;
  int32_t* aflag = w.aflag + b * na;
  const int32_t* match = w.match + b * na;
  const T* lb = labels + b * a.labels * a.label_width;
  for (int64_t i = tid; i < negatives && i < na; i += nt) {
    if (sorted_keys[b * na + i] == HUGE_VAL) continue;  // fewer eligible than wanted
    aflag[pos[b * na + i]] = 0;
  }
  __syncthreads();
  const C var[4] = {static_cast<C>(a.var[0]), static_cast<C>(a.var[1]), static_cast<C>(a.var[2]),
                    static_cast<C>(a.var[3])};
  for (int64_t j = tid; j < na; j += nt) {
    if (aflag[j] == 0) {
      Wr(cls_target + b * na, j, C(0));
    } else if (aflag[j] == 1) {
      const T* gt = lb + static_cast<int64_t>(match[j]) * a.label_width;
      C target[4];
      EncodeMultiBox(CornerBox(anchors + j * 4), CornerBox(gt + 1), var, target);
      for (int k = 0; k < 4; ++k) {
        Wr(loc_target + b * na * 4, j * 4 + k, target[k]);
        Wr(loc_mask + b * na * 4, j * 4 + k, C(1));
      }
      Wr(cls_target + b * na, j, Rd(gt, 0) + C(1));
    }
  }
}

template <typename T>
__global__ void BoxIouKernel(const T* a, const T* b, int64_t nr, bool center, T* out,
                             int64_t total) {
  using C = GeomC<T>;
  SYMX_GRID_STRIDE(e, total) {
    const int64_t i = e / nr, j = e % nr;
    const T* pa = a + i * 4;
    const T* pb = b + j * 4;
    const Box<C> ba = ToCorner<C>(Rd(pa, 0), Rd(pa, 1), Rd(pa, 2), Rd(pa, 3), center);
    const Box<C> bb = ToCorner<C>(Rd(pb, 0), Rd(pb, 1), Rd(pb, 2), Rd(pb, 3), center);
    Wr(out, e, Iou(ba, bb));
  }
}

// bipartite_matching's sort keys: the scores in the compute type, -0 as +0
// (which std::stable_sort's comparison cannot tell apart, and the radix sort can).
template <typename T>
__global__ void MatchKeysKernel(const T* x, GeomC<T>* keys, int64_t count) {
  using C = GeomC<T>;
  SYMX_GRID_STRIDE(i, count) {
    C v = Rd(x, i);
    if (v == C(0)) v = C(0);
    keys[i] = v;
  }
}

// One thread per batch walks its stably sorted pairs, as the CPU kernel.
template <typename T>
__global__ void MatchGreedyKernel(const GeomC<T>* sorted_keys, const int32_t* pos, int64_t batches,
                                  int64_t nr, int64_t nc, bool ascend, float threshold,
                                  int64_t topk, T* rows, T* cols) {
  using C = GeomC<T>;
  SYMX_GRID_STRIDE(b, batches) {
    const int64_t stride = nr * nc;
    T* rm = rows + b * nr;
    T* cm = cols + b * nc;
    for (int64_t r = 0; r < nr; ++r) Wr(rm, r, C(-1));
    for (int64_t c = 0; c < nc; ++c) Wr(cm, c, C(-1));
    const C thr = static_cast<C>(threshold);
    int64_t count = 0;
    for (int64_t j = 0; j < stride; ++j) {
      const int64_t idx = pos[b * stride + j];
      const int64_t r = idx / nc, c = idx % nc;
      if (Rd(rm, r) != C(-1) || Rd(cm, c) != C(-1)) continue;
      const C v = sorted_keys[b * stride + j];
      if (!(ascend ? v < thr : v > thr)) break;
      Wr(rm, r, static_cast<C>(c));
      Wr(cm, c, static_cast<C>(r));
      if (topk > 0 && ++count > topk) break;
    }
  }
}

// box_encode: one thread per (batch, anchor) row; the rules of the CPU kernel
// (devices/cpu/detection_kernels.cc), over the same BoxEncodeTargets.
template <typename T>
__global__ void BoxEncodeKernel(const T* samples, const T* matches, const T* anchors,
                                const T* refs, const T* means_in, const T* stds_in, int64_t n,
                                int64_t m, T* targets, T* masks, int64_t rows) {
  using C = GeomC<T>;
  SYMX_GRID_STRIDE(i, rows) {
    C out[4] = {C(0), C(0), C(0), C(0)};
    const bool valid = Rd(samples, i) > C(0.5);
    if (valid) {
      const C mv = Rd(matches, i);
      if (mv > C(-1) && mv < static_cast<C>(m)) {
        const int64_t ref = (i / n) * m + static_cast<int64_t>(mv);
        C r[4], a[4], means[4], stds[4];
        for (int k = 0; k < 4; ++k) {
          r[k] = Rd(refs, ref * 4 + k);
          a[k] = Rd(anchors, i * 4 + k);
          means[k] = Rd(means_in, k);
          stds[k] = Rd(stds_in, k);
        }
        BoxEncodeTargets(r, a, means, stds, out);
      } else {
        for (int k = 0; k < 4; ++k) out[k] = static_cast<C>(NAN);
      }
    }
    for (int k = 0; k < 4; ++k) {
      Wr(targets, i * 4 + k, out[k]);
      Wr(masks, i * 4 + k, valid ? C(1) : C(0));
    }
  }
}

template <typename T>
__global__ void BoxDecodeKernel(const T* x, const T* anchors, int64_t n, bool center, double s0,
                                double s1, double s2, double s3, bool has_clip, double clip,
                                T* out, int64_t rows) {
  using C = GeomC<T>;
  const C stds[4] = {static_cast<C>(s0), static_cast<C>(s1), static_cast<C>(s2),
                     static_cast<C>(s3)};
  SYMX_GRID_STRIDE(i, rows) {
    C xv[4], a[4], o[4];
    for (int k = 0; k < 4; ++k) {
      xv[k] = Rd(x, i * 4 + k);
      a[k] = Rd(anchors, (i % n) * 4 + k);
    }
    BoxDecodeCorners(xv, a, center, stds, has_clip, static_cast<C>(clip), o);
    for (int k = 0; k < 4; ++k) Wr(out, i * 4 + k, o[k]);
  }
}

}  // namespace

cudaError_t LaunchMatchKeys(Elem t, const void* x, int64_t count, void* keys, cudaStream_t s) {
  if (count == 0) return cudaSuccess;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    MatchKeysKernel<T><<<GridFor(count), kThreads, 0, s>>>(static_cast<const T*>(x),
                                                           static_cast<GeomC<T>*>(keys), count);
  });
  return LastLaunchError();
}

cudaError_t LaunchMatchGreedy(Elem t, const void* sorted_keys, const int32_t* positions,
                              int64_t batches, int64_t nr, int64_t nc, bool ascend,
                              float threshold, int64_t topk, void* rows, void* cols,
                              cudaStream_t s) {
  if (batches == 0) return cudaSuccess;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    MatchGreedyKernel<T><<<GridFor(batches), kThreads, 0, s>>>(
        static_cast<const GeomC<T>*>(sorted_keys), positions, batches, nr, nc, ascend, threshold,
        topk, static_cast<T*>(rows), static_cast<T*>(cols));
  });
  return LastLaunchError();
}

cudaError_t LaunchBoxEncode(Elem t, const void* samples, const void* matches, const void* anchors,
                            const void* refs, const void* means, const void* stds, int64_t rows,
                            int64_t n, int64_t m, void* targets, void* masks, cudaStream_t s) {
  if (rows == 0) return cudaSuccess;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    BoxEncodeKernel<T><<<GridFor(rows), kThreads, 0, s>>>(
        static_cast<const T*>(samples), static_cast<const T*>(matches),
        static_cast<const T*>(anchors), static_cast<const T*>(refs), static_cast<const T*>(means),
        static_cast<const T*>(stds), n, m, static_cast<T*>(targets), static_cast<T*>(masks), rows);
  });
  return LastLaunchError();
}

cudaError_t LaunchBoxDecode(Elem t, const void* x, const void* anchors, int64_t rows, int64_t n,
                            bool center, const double* stds, bool has_clip, double clip, void* out,
                            cudaStream_t s) {
  if (rows == 0) return cudaSuccess;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    BoxDecodeKernel<T><<<GridFor(rows), kThreads, 0, s>>>(
        static_cast<const T*>(x), static_cast<const T*>(anchors), n, center, stds[0], stds[1],
        stds[2], stds[3], has_clip, clip, static_cast<T*>(out), rows);
  });
  return LastLaunchError();
}

cudaError_t LaunchMultiBoxMatch(Elem t, const void* anchors, const void* labels, const void* cls,
                                const MultiBoxTargetArgs& a, const MultiBoxTargetScratch& w,
                                void* loc_target, void* loc_mask, void* cls_target,
                                cudaStream_t s) {
  if (a.batch == 0) return cudaSuccess;
  if (a.batch > 0x7fffffff) return cudaErrorInvalidValue;
  SYMX_CUDA_F32_F64_SWITCH(t, T, {
    MultiBoxMatchKernel<T><<<static_cast<unsigned>(a.batch), kThreads, 0, s>>>(
        static_cast<const T*>(anchors), static_cast<const T*>(labels), static_cast<const T*>(cls),
        a, w, static_cast<T*>(loc_target), static_cast<T*>(loc_mask), static_cast<T*>(cls_target));
  });
  return LastLaunchError();
}

cudaError_t LaunchMultiBoxTargetOut(Elem t, const void* anchors, const void* labels,
                                    const double* sorted_keys, const int32_t* positions,
                                    const MultiBoxTargetArgs& a, const MultiBoxTargetScratch& w,
                                    void* loc_target, void* loc_mask, void* cls_target,
                                    cudaStream_t s) {
  if (a.batch == 0) return cudaSuccess;
  if (a.batch > 0x7fffffff) return cudaErrorInvalidValue;
  SYMX_CUDA_F32_F64_SWITCH(t, T, {
    MultiBoxTargetOutKernel<T><<<static_cast<unsigned>(a.batch), kThreads, 0, s>>>(
        static_cast<const T*>(anchors), static_cast<const T*>(labels), sorted_keys, positions, a, w,
        static_cast<T*>(loc_target), static_cast<T*>(loc_mask), static_cast<T*>(cls_target));
  });
  return LastLaunchError();
}

cudaError_t LaunchMultiBoxDecode(Elem t, const void* cls, const void* loc, const void* anchors,
                                 const MultiBoxArgs& a, void* rows, void* keys, cudaStream_t s) {
  const int64_t count = a.batch * a.anchors;
  if (count == 0) return cudaSuccess;
  SYMX_CUDA_F32_F64_SWITCH(t, T, {
    MultiBoxDecodeKernel<T><<<GridFor(count), kThreads, 0, s>>>(
        static_cast<const T*>(cls), static_cast<const T*>(loc), static_cast<const T*>(anchors), a,
        static_cast<T*>(rows), static_cast<T*>(keys), count);
  });
  return LastLaunchError();
}

cudaError_t LaunchMultiBoxNms(Elem t, const void* rows, const void* keys, const void* sorted_keys,
                              const int32_t* positions, const MultiBoxArgs& a, int32_t* compact,
                              void* out, cudaStream_t s) {
  if (a.batch == 0) return cudaSuccess;
  if (a.batch > 0x7fffffff) return cudaErrorInvalidValue;
  SYMX_CUDA_F32_F64_SWITCH(t, T, {
    MultiBoxNmsKernel<T><<<static_cast<unsigned>(a.batch), kThreads, 0, s>>>(
        static_cast<const T*>(rows), static_cast<const T*>(keys),
        static_cast<const T*>(sorted_keys), positions, a, compact, static_cast<T*>(out));
  });
  return LastLaunchError();
}

cudaError_t LaunchMultiBoxPrior(int64_t in_h, int64_t in_w, int64_t anchors, float step_y,
                                float step_x, float off_y, float off_x, const float* half,
                                bool clip, float* out, cudaStream_t s) {
  const int64_t count = in_h * in_w * anchors;
  if (count == 0) return cudaSuccess;
  PriorKernel<<<GridFor(count), kThreads, 0, s>>>(in_w, anchors, step_y, step_x, off_y, off_x, half,
                                                  clip, out, count);
  return LastLaunchError();
}

Elem BoxNmsKeyElem(Elem t) { return t == Elem::kF64 ? Elem::kF64 : Elem::kF32; }

cudaError_t LaunchBoxNmsKeys(Elem t, const void* x, const BoxNmsArgs& a, void* keys,
                             cudaStream_t s) {
  const int64_t rows = a.batches * a.n;
  if (rows == 0) return cudaSuccess;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    NmsKeysKernel<T><<<GridFor(rows), kThreads, 0, s>>>(static_cast<const T*>(x), a,
                                                        static_cast<GeomC<T>*>(keys), rows);
  });
  return LastLaunchError();
}

cudaError_t LaunchBoxNms(Elem t, const void* x, const void* sorted_keys, const int32_t* positions,
                         const BoxNmsArgs& a, uint8_t* dead, void* out, void* rec, cudaStream_t s) {
  if (a.batches == 0) return cudaSuccess;
  if (a.batches > 0x7fffffff) return cudaErrorInvalidValue;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    NmsKernel<T><<<static_cast<unsigned>(a.batches), kThreads, 0, s>>>(
        static_cast<const T*>(x), static_cast<const GeomC<T>*>(sorted_keys), positions, a, dead,
        static_cast<T*>(out), static_cast<T*>(rec));
  });
  return LastLaunchError();
}

cudaError_t LaunchBoxNmsGrad(Elem t, const void* og, const void* rec, int64_t rows, int64_t n,
                             int64_t width, bool add, void* grad, cudaStream_t s) {
  const int64_t count = rows * width;
  if (count == 0 || n == 0) return cudaSuccess;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    NmsGradKernel<T><<<GridFor(count), kThreads, 0, s>>>(static_cast<const T*>(og),
                                                         static_cast<const T*>(rec), n, width, add,
                                                         static_cast<T*>(grad), count);
  });
  return LastLaunchError();
}

cudaError_t LaunchBoxIou(Elem t, const void* lhs, int64_t nl, const void* rhs, int64_t nr,
                         bool center, void* out, cudaStream_t s) {
  const int64_t total = nl * nr;
  if (total == 0) return cudaSuccess;
  SYMX_CUDA_FLOAT_SWITCH(t, T, {
    BoxIouKernel<T><<<GridFor(total), kThreads, 0, s>>>(static_cast<const T*>(lhs),
                                                        static_cast<const T*>(rhs), nr, center,
                                                        static_cast<T*>(out), total);
  });
  return LastLaunchError();
}

}  // namespace cuda
}  // namespace symx
