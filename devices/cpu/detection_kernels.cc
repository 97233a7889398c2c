// CPU kernels for MXNet 1.9.1's SSD-style detection ops (schemas and the facts
// they follow in graph/ops/detection.cc): _contrib_MultiBoxPrior,
// _contrib_MultiBoxDetection, _contrib_MultiBoxTarget, _contrib_box_nms with
// _backward_contrib_box_nms, _contrib_box_iou, _contrib_box_encode and
// _contrib_box_decode and _contrib_bipartite_matching.
//
// Plain loops. Box arithmetic runs in the compute type C: float for float32 and
// float16 (as MXNet's float32 kernels, so IoU ties with the thresholds fall the
// same way), double for float64. MultiBoxPrior computes in float, as MXNet.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "devices/cpu/kernel_util.h"
#include "devices/geometry/box_geometry.h"
#include "devices/geometry/detection_plan.h"
#include "devices/dtype_switch.h"
#include "graph/error.h"
#include "graph/ops/detection.h"

namespace symx {
namespace cpu {
namespace {

template <typename T>
struct Compute {
  using type = float;
};
template <>
struct Compute<double> {
  using type = double;
};

template <typename C, typename T>
inline C Ld(const T* p, int64_t i) {
  return static_cast<C>(ToDouble(p[i]));
}
template <typename T, typename C>
inline void St(T* p, int64_t i, C v) {
  p[i] = FromDouble<T>(static_cast<double>(v));
}

// ------------------------------------------------------------------ MultiBoxPrior

absl::Status MultiBoxPriorForward(const KernelContext& ctx) {
  const auto& p = ctx.param<MultiBoxPriorParam>();
  SYMX_ASSIGN_OR_RETURN(const PriorGrid g, MakePriorGrid(ctx));
  float* o = ctx.outputs[0].data<float>();
  int64_t k = 0;
  for (int64_t r = 0; r < g.in_h; ++r) {
    const float cy = (static_cast<float>(r) + g.off_y) * g.step_y;
    for (int64_t c = 0; c < g.in_w; ++c) {
      const float cx = (static_cast<float>(c) + g.off_x) * g.step_x;
      for (int64_t j = 0; j < g.anchors; ++j, ++k) {
        PriorCorners(cx, cy, g.half[2 * j], g.half[2 * j + 1], p.clip, o + k * 4);
      }
    }
  }
  return absl::OkStatus();
}

// ------------------------------------------------------------------ MultiBoxDetection

size_t MultiBoxDetectionWorkspace(const NodeAttrs&, const std::vector<Shape>& in,
                                  const std::vector<Shape>&, DType) {
  const int64_t a = in[0].ndim() == 3 ? std::max<int64_t>(in[0][2], 0) : 0;
  // One batch at a time: a copy of its rows (6 doubles each) and the score order.
  return static_cast<size_t>(a) * (6 * 8 + 8) + 64;
}

template <typename T>
absl::Status MultiBoxDetectionForwardT(const KernelContext& ctx) {
  using C = typename Compute<T>::type;
  const auto& p = ctx.param<MultiBoxDetectionParam>();
  SYMX_ASSIGN_OR_RETURN(const MultiBoxDims d, CheckMultiBoxDetection(ctx));
  const int64_t n = d.batch, nc = d.classes, na = d.anchors;
  const T* pc = ctx.inputs[0].data<T>();
  const T* pl = ctx.inputs[1].data<T>();
  const T* pa = ctx.inputs[2].data<T>();
  T* out = ctx.outputs[0].data<T>();
  double* tmp = reinterpret_cast<double*>(ctx.workspace.raw_data());
  int64_t* order = reinterpret_cast<int64_t*>(tmp + na * 6);
  const C var[4] = {static_cast<C>(p.variances[0]), static_cast<C>(p.variances[1]),
                    static_cast<C>(p.variances[2]), static_cast<C>(p.variances[3])};
  for (int64_t b = 0; b < n; ++b) {
    T* o = out + b * na * 6;
    for (int64_t i = 0; i < na * 6; ++i) St(o, i, C(-1));
    int64_t valid = 0;
    for (int64_t i = 0; i < na; ++i) {
      C score;
      const int64_t id = MultiBoxBestClass<C>(pc + b * nc * na + i, nc, na,
                                              static_cast<C>(p.threshold), &score);
      if (id == 0) continue;
      C anchor[4], loc[4], box[4];
      for (int j = 0; j < 4; ++j) {
        anchor[j] = Ld<C>(pa, i * 4 + j);
        loc[j] = Ld<C>(pl, (b * na + i) * 4 + j);
      }
      DecodeMultiBox(anchor, loc, var, p.clip, box);
      T* row = o + valid * 6;
      St(row, 0, static_cast<C>(id - 1));
      St(row, 1, score);
      for (int j = 0; j < 4; ++j) St(row, 2 + j, box[j]);
      ++valid;
    }
    if (valid < 1 || p.nms_threshold <= 0 || p.nms_threshold > 1) continue;
    for (int64_t i = 0; i < valid * 6; ++i) tmp[i] = ToDouble(o[i]);
    for (int64_t i = 0; i < valid; ++i) order[i] = i;
    std::stable_sort(order, order + valid,
                     [&](int64_t x, int64_t y) { return tmp[x * 6 + 1] > tmp[y * 6 + 1]; });
    int64_t keep = valid;
    if (p.nms_topk > 0 && p.nms_topk < keep) keep = p.nms_topk;
    for (int64_t i = 0; i < keep; ++i) {
      for (int j = 0; j < 6; ++j) o[i * 6 + j] = FromDouble<T>(tmp[order[i] * 6 + j]);
    }
    // Rows keep..valid-1 keep their anchor-order contents, marked invalid.
    for (int64_t i = keep; i < valid; ++i) St(o, i * 6, C(-1));
    const C thresh = static_cast<C>(p.nms_threshold);
    for (int64_t i = 0; i < keep; ++i) {
      if (Ld<C>(o, i * 6) < 0) continue;
      const Box<C> bi{Ld<C>(o, i * 6 + 2), Ld<C>(o, i * 6 + 3), Ld<C>(o, i * 6 + 4),
                      Ld<C>(o, i * 6 + 5)};
      for (int64_t j = i + 1; j < keep; ++j) {
        if (Ld<C>(o, j * 6) < 0) continue;
        if (!p.force_suppress && Ld<C>(o, i * 6) != Ld<C>(o, j * 6)) continue;
        const Box<C> bj{Ld<C>(o, j * 6 + 2), Ld<C>(o, j * 6 + 3), Ld<C>(o, j * 6 + 4),
                        Ld<C>(o, j * 6 + 5)};
        if (Iou(bi, bj) >= thresh) St(o, j * 6, C(-1));
      }
    }
  }
  return absl::OkStatus();
}

absl::Status MultiBoxDetectionForward(const KernelContext& ctx) {
  SYMX_FLOAT_SWITCH(ctx, ctx.inputs[0].dtype(), T, return MultiBoxDetectionForwardT<T>(ctx));
}

// ------------------------------------------------------------------ MultiBoxTarget

size_t MultiBoxTargetWorkspace(const NodeAttrs&, const std::vector<Shape>& in,
                               const std::vector<Shape>&, DType) {
  const int64_t a = in[0].ndim() == 3 ? std::max<int64_t>(in[0][1], 0) : 0;
  const int64_t m = in[1].ndim() == 3 ? std::max<int64_t>(in[1][1], 0) : 0;
  // One batch at a time: IoUs (A x M doubles), per-anchor flag, match and
  // best IoU, per-box flag, mining candidates (prob, index).
  return static_cast<size_t>(a * m * 8 + a * (8 * 3) + m * 8 + a * 16) + 64;
}

template <typename T>
absl::Status MultiBoxTargetForwardT(const KernelContext& ctx) {
  using C = typename Compute<T>::type;
  const auto& p = ctx.param<MultiBoxTargetParam>();
  const Tensor& anc = ctx.inputs[0];
  const Tensor& lab = ctx.inputs[1];
  const Tensor& cls = ctx.inputs[2];
  SYMX_ASSIGN_OR_RETURN(const MultiBoxTargetDims d, CheckMultiBoxTarget(ctx));
  const int64_t na = d.anchors, n = d.batch, m = d.labels, lw = d.label_width, nc = d.classes;
  const T* pa = anc.data<T>();
  const T* pl = lab.data<T>();
  const T* pc = cls.data<T>();
  T* lt = ctx.outputs[0].data<T>();
  T* lm = ctx.outputs[1].data<T>();
  T* ct = ctx.outputs[2].data<T>();
  char* ws = static_cast<char*>(ctx.workspace.raw_data());
  double* ov = reinterpret_cast<double*>(ws);
  int64_t* aflag = reinterpret_cast<int64_t*>(ov + na * m);  // 1 positive, 0 negative, -1 ignored
  int64_t* match = aflag + na;
  double* best_iou = reinterpret_cast<double*>(match + na);
  int64_t* gflag = reinterpret_cast<int64_t*>(best_iou + na);
  std::pair<double, int64_t>* cand = reinterpret_cast<std::pair<double, int64_t>*>(gflag + m);
  const C var[4] = {static_cast<C>(p.variances[0]), static_cast<C>(p.variances[1]),
                    static_cast<C>(p.variances[2]), static_cast<C>(p.variances[3])};
  auto anchor = [&](int64_t j) {
    const T* q = pa + j * 4;
    return Box<C>{Ld<C>(q, 0), Ld<C>(q, 1), Ld<C>(q, 2), Ld<C>(q, 3)};
  };
  for (int64_t b = 0; b < n; ++b) {
    T* lt_b = lt + b * na * 4;
    T* lm_b = lm + b * na * 4;
    T* ct_b = ct + b * na;
    for (int64_t i = 0; i < na * 4; ++i) St(lt_b, i, C(0)), St(lm_b, i, C(0));
    for (int64_t i = 0; i < na; ++i) St(ct_b, i, static_cast<C>(p.ignore_label));
    const T* lb = pl + b * m * lw;
    int64_t g = 0;
    while (g < m && Ld<C>(lb, g * lw) != C(-1)) ++g;
    if (g == 0) continue;
    auto gt = [&](int64_t k) {
      const T* q = lb + k * lw;
      return Box<C>{Ld<C>(q, 1), Ld<C>(q, 2), Ld<C>(q, 3), Ld<C>(q, 4)};
    };
    for (int64_t j = 0; j < na; ++j) {
      const Box<C> a = anchor(j);
      best_iou[j] = -1;
      for (int64_t k = 0; k < g; ++k) {
        ov[j * g + k] = static_cast<double>(Iou(a, gt(k)));
        best_iou[j] = std::max(best_iou[j], ov[j * g + k]);
      }
      aflag[j] = -1;
      match[j] = -1;
    }
    for (int64_t k = 0; k < g; ++k) gflag[k] = -1;
    // Bipartite matching: the best remaining (anchor, box) pair, until none is left.
    for (int64_t left = g; left > 0; --left) {
      double best = 1e-6;
      int64_t ba = -1, bg = -1;
      for (int64_t j = 0; j < na; ++j) {
        if (aflag[j] == 1) continue;
        for (int64_t k = 0; k < g; ++k) {
          if (gflag[k] == 1) continue;
          if (ov[j * g + k] > best) best = ov[j * g + k], ba = j, bg = k;
        }
      }
      if (ba < 0) break;
      aflag[ba] = 1, gflag[bg] = 1, match[ba] = bg;
    }
    if (p.overlap_threshold > 0) {
      for (int64_t j = 0; j < na; ++j) {
        if (aflag[j] == 1) continue;
        int64_t k_best = 0;
        for (int64_t k = 1; k < g; ++k) {
          if (ov[j * g + k] > ov[j * g + k_best]) k_best = k;
        }
        if (ov[j * g + k_best] > p.overlap_threshold) aflag[j] = 1, match[j] = k_best;
      }
    }
    int64_t positives = 0;
    for (int64_t j = 0; j < na; ++j) positives += aflag[j] == 1;
    if (p.negative_mining_ratio > 0) {
      int64_t negatives =
          static_cast<int64_t>(static_cast<double>(positives) * p.negative_mining_ratio);
      negatives = std::min(negatives, na - positives);
      int64_t nc_cand = 0;
      for (int64_t j = 0; j < na && negatives > 0; ++j) {
        if (aflag[j] == 1 || !(best_iou[j] < p.negative_mining_thresh)) continue;
        cand[nc_cand++] = {MultiBoxBackgroundProb(pc + b * nc * na + j, nc, na), j};
      }
      std::stable_sort(cand, cand + nc_cand,
                       [](const std::pair<double, int64_t>& x,
                          const std::pair<double, int64_t>& y) { return x.first < y.first; });
      for (int64_t i = 0; i < std::min(negatives, nc_cand); ++i) aflag[cand[i].second] = 0;
    } else {
      for (int64_t j = 0; j < na; ++j) {
        if (aflag[j] != 1) aflag[j] = 0;
      }
    }
    for (int64_t j = 0; j < na; ++j) {
      if (aflag[j] == 0) {
        St(ct_b, j, C(0));
      } else if (aflag[j] == 1) {
        C target[4];
        EncodeMultiBox(anchor(j), gt(match[j]), var, target);
        for (int k = 0; k < 4; ++k) St(lt_b, j * 4 + k, target[k]);
        for (int k = 0; k < 4; ++k) St(lm_b, j * 4 + k, C(1));
        St(ct_b, j, Ld<C>(lb, match[j] * lw) + C(1));
      }
    }
  }
  return absl::OkStatus();
}

absl::Status MultiBoxTargetForward(const KernelContext& ctx) {
  SYMX_FLOAT_SWITCH(ctx, ctx.inputs[0].dtype(), T, return MultiBoxTargetForwardT<T>(ctx));
}

// ------------------------------------------------------------------ box_nms

size_t BoxNmsWorkspace(const NodeAttrs&, const std::vector<Shape>& in, const std::vector<Shape>&,
                       DType) {
  const Shape& d = in[0];
  const int64_t n = d.ndim() >= 2 ? d[d.ndim() - 2] : 0;
  // One batch at a time: candidate order (int64) and a suppressed flag per row.
  return static_cast<size_t>(std::max<int64_t>(n, 0)) * 9 + 64;
}

template <typename T>
absl::Status BoxNmsForwardT(const KernelContext& ctx) {
  using C = typename Compute<T>::type;
  const auto& p = ctx.param<BoxNmsParam>();
  const Tensor& data = ctx.inputs[0];
  SYMX_ASSIGN_OR_RETURN(const BoxNmsDims d, CheckBoxNms(ctx));
  const int64_t width = d.width, n = d.n, batches = d.batches;
  const T* x = data.data<T>();
  T* out = ctx.outputs[0].data<T>();
  T* rec = ctx.outputs[1].data<T>();
  int64_t* order = reinterpret_cast<int64_t*>(ctx.workspace.raw_data());
  uint8_t* dead = reinterpret_cast<uint8_t*>(order + n);
  const int64_t cs = p.coord_start;
  const bool use_id = p.id_index >= 0;
  auto box = [&](const T* row) {
    return ToCorner<C>(Ld<C>(row, cs), Ld<C>(row, cs + 1), Ld<C>(row, cs + 2), Ld<C>(row, cs + 3),
                       p.in_center);
  };
  for (int64_t b = 0; b < batches; ++b) {
    const T* xb = x + b * n * width;
    T* ob = out + b * n * width;
    T* rb = rec + b * n;
    int64_t m = 0;
    for (int64_t i = 0; i < n; ++i) {
      const T* row = xb + i * width;
      if (!(Ld<C>(row, p.score_index) > static_cast<C>(p.valid_thresh))) continue;
      if (use_id && Ld<C>(row, p.id_index) == static_cast<C>(p.background_id)) {
        continue;
      }
      order[m++] = i;
    }
    std::stable_sort(order, order + m, [&](int64_t i, int64_t j) {
      return Ld<C>(xb + i * width, p.score_index) > Ld<C>(xb + j * width, p.score_index);
    });
    if (p.topk > 0 && p.topk < m) m = p.topk;
    std::memset(dead, 0, static_cast<size_t>(m));
    int64_t kept = 0;
    for (int64_t a = 0; a < m; ++a) {
      if (dead[a]) continue;
      const T* ra = xb + order[a] * width;
      const Box<C> ba = box(ra);
      for (int64_t c = a + 1; c < m; ++c) {
        if (dead[c]) continue;
        const T* rc = xb + order[c] * width;
        if (use_id && !p.force_suppress && Ld<C>(ra, p.id_index) != Ld<C>(rc, p.id_index)) {
          continue;
        }
        if (Iou(ba, box(rc)) > static_cast<C>(p.overlap_thresh)) dead[c] = 1;
      }
      // Row a is final: write it.
      T* o = ob + kept * width;
      std::copy(ra, ra + width, o);
      C coords[4];
      if (NmsOutputCoords(Ld<C>(ra, cs), Ld<C>(ra, cs + 1), Ld<C>(ra, cs + 2), Ld<C>(ra, cs + 3),
                          p.in_center, p.out_center, coords)) {
        for (int j = 0; j < 4; ++j) St(o, cs + j, coords[j]);
      }
      St(rb, kept, static_cast<C>(order[a]));
      ++kept;
    }
    for (int64_t i = kept; i < n; ++i) {
      for (int64_t j = 0; j < width; ++j) St(ob, i * width + j, C(-1));
      St(rb, i, C(-1));
    }
  }
  return absl::OkStatus();
}

absl::Status BoxNmsForward(const KernelContext& ctx) {
  SYMX_FLOAT_STORAGE_SWITCH(ctx, ctx.inputs[0].dtype(), T, return BoxNmsForwardT<T>(ctx));
}

// grad0[src row] = ograd[output row] for each kept output row; zero elsewhere.
template <typename T>
absl::Status BoxNmsBackwardT(const KernelContext& ctx) {
  const Tensor& og = ctx.inputs[0];
  const Tensor& rec = ctx.inputs[1];
  const Tensor& g = ctx.outputs[0];
  SYMX_ASSIGN_OR_RETURN(const BoxNmsDims d, CheckBoxNmsBackward(ctx));
  const int64_t rows = d.batches * d.n, width = d.width, n = d.n;
  const T* o = og.data<T>();
  const T* r = rec.data<T>();
  T* gd = g.data<T>();
  const bool add = !ctx.req.empty() && ctx.req[0] == OpReq::kAdd;
  if (!add) std::fill(gd, gd + g.size(), FromDouble<T>(0.0));
  for (int64_t i = 0; i < rows; ++i) {
    const double src = ToDouble(r[i]);
    if (!(src >= 0 && src < static_cast<double>(n))) continue;  // not a kept row
    const int64_t b = i / n;
    const int64_t dst = b * n + static_cast<int64_t>(src);
    for (int64_t j = 0; j < width; ++j) {
      const double v = ToDouble(o[i * width + j]) + (add ? ToDouble(gd[dst * width + j]) : 0.0);
      gd[dst * width + j] = FromDouble<T>(v);
    }
  }
  return absl::OkStatus();
}

absl::Status BoxNmsBackward(const KernelContext& ctx) {
  SYMX_FLOAT_STORAGE_SWITCH(ctx, ctx.inputs[0].dtype(), T, return BoxNmsBackwardT<T>(ctx));
}

// ------------------------------------------------------------------ box_iou

template <typename T>
absl::Status BoxIouForwardT(const KernelContext& ctx) {
  using C = typename Compute<T>::type;
  const bool center = ctx.param<BoxIouParam>().center;
  const Tensor& l = ctx.inputs[0];
  const Tensor& r = ctx.inputs[1];
  const int64_t nl = l.size() / 4, nr = r.size() / 4;
  if (ctx.outputs[0].size() != nl * nr)
    return Fail(ctx, "output size is not lhs boxes x rhs boxes");
  const T* a = l.data<T>();
  const T* b = r.data<T>();
  T* o = ctx.outputs[0].data<T>();
  ParallelFor(ctx, nl, 20.0 * static_cast<double>(nr), [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const T* pa = a + i * 4;
      const Box<C> ba = ToCorner<C>(Ld<C>(pa, 0), Ld<C>(pa, 1), Ld<C>(pa, 2), Ld<C>(pa, 3), center);
      for (int64_t j = 0; j < nr; ++j) {
        const T* pb = b + j * 4;
        const Box<C> bb =
            ToCorner<C>(Ld<C>(pb, 0), Ld<C>(pb, 1), Ld<C>(pb, 2), Ld<C>(pb, 3), center);
        St(o, i * nr + j, Iou(ba, bb));
      }
    }
  });
  return absl::OkStatus();
}

absl::Status BoxIouForward(const KernelContext& ctx) {
  SYMX_FLOAT_STORAGE_SWITCH(ctx, ctx.inputs[0].dtype(), T, return BoxIouForwardT<T>(ctx));
}

// ------------------------------------------------------------------ bipartite_matching

template <typename T>
absl::Status BipartiteMatchingForwardT(const KernelContext& ctx) {
  using C = typename Compute<T>::type;
  const auto& p = ctx.param<BipartiteMatchingParam>();
  const Shape& s = ctx.inputs[0].shape();
  const int64_t nr = s[s.ndim() - 2], nc = s[s.ndim() - 1], stride = nr * nc;
  T* rows = ctx.outputs[0].data<T>();
  T* cols = ctx.outputs[1].data<T>();
  std::fill(rows, rows + ctx.outputs[0].size(), FromDouble<T>(-1.0));
  std::fill(cols, cols + ctx.outputs[1].size(), FromDouble<T>(-1.0));
  if (stride == 0) return absl::OkStatus();
  const int64_t batches = ctx.inputs[0].size() / stride;
  const T* x = ctx.inputs[0].data<T>();
  const C thr = static_cast<C>(static_cast<float>(p.threshold));
  ParallelFor(ctx, batches, 30.0 * static_cast<double>(stride), [&](int64_t begin, int64_t end) {
    std::vector<C> key(stride);
    std::vector<int64_t> order(stride), rm(nr), cm(nc);
    for (int64_t b = begin; b < end; ++b) {
      for (int64_t j = 0; j < stride; ++j) {
        key[j] = Ld<C>(x, b * stride + j);
        order[j] = j;
      }
      if (p.is_ascend) {
        std::stable_sort(order.begin(), order.end(),
                         [&](int64_t i, int64_t j) { return key[i] < key[j]; });
      } else {
        std::stable_sort(order.begin(), order.end(),
                         [&](int64_t i, int64_t j) { return key[i] > key[j]; });
      }
      std::fill(rm.begin(), rm.end(), -1);
      std::fill(cm.begin(), cm.end(), -1);
      int64_t count = 0;
      for (int64_t j = 0; j < stride; ++j) {
        const int64_t r = order[j] / nc, c = order[j] % nc;
        if (rm[r] != -1 || cm[c] != -1) continue;
        const C v = key[order[j]];
        if (!(p.is_ascend ? v < thr : v > thr)) break;  // the rest score worse
        rm[r] = c;
        cm[c] = r;
        if (p.topk > 0 && ++count > p.topk) break;
      }
      for (int64_t r = 0; r < nr; ++r) rows[b * nr + r] = FromDouble<T>(static_cast<double>(rm[r]));
      for (int64_t c = 0; c < nc; ++c) cols[b * nc + c] = FromDouble<T>(static_cast<double>(cm[c]));
    }
  });
  return absl::OkStatus();
}

absl::Status BipartiteMatchingForward(const KernelContext& ctx) {
  SYMX_FLOAT_STORAGE_SWITCH(ctx, ctx.inputs[0].dtype(), T,
                            return BipartiteMatchingForwardT<T>(ctx));
}

// ------------------------------------------------------------------ box_encode

// Inputs samples (B, N), matches (B, N), anchors (B, N, 4), refs (B, M, 4),
// means (4), stds (4); outputs targets and masks (B, N, 4).
template <typename T>
absl::Status BoxEncodeForwardT(const KernelContext& ctx) {
  using C = typename Compute<T>::type;
  for (const Tensor& t : ctx.inputs) {
    if (t.dtype() != ctx.inputs[0].dtype()) return UnsupportedDType(ctx, t.dtype());
  }
  const Shape& as = ctx.inputs[2].shape();
  const int64_t n = as[1], rows = as[0] * n, m = ctx.inputs[3].shape()[1];
  const T* samples = ctx.inputs[0].data<T>();
  const T* matches = ctx.inputs[1].data<T>();
  const T* anchors = ctx.inputs[2].data<T>();
  const T* refs = ctx.inputs[3].data<T>();
  C means[4], stds[4];
  for (int k = 0; k < 4; ++k) {
    means[k] = Ld<C>(ctx.inputs[4].data<T>(), k);
    stds[k] = Ld<C>(ctx.inputs[5].data<T>(), k);
  }
  T* targets = ctx.outputs[0].data<T>();
  T* masks = ctx.outputs[1].data<T>();
  ParallelFor(ctx, rows, 40.0, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      C out[4] = {C(0), C(0), C(0), C(0)};
      const bool valid = Ld<C>(samples, i) > C(0.5);
      if (valid) {
        const C mv = Ld<C>(matches, i);
        if (mv > C(-1) && mv < static_cast<C>(m)) {
          const int64_t ref = (i / n) * m + static_cast<int64_t>(mv);
          C r[4], a[4];
          for (int k = 0; k < 4; ++k) {
            r[k] = Ld<C>(refs, ref * 4 + k);
            a[k] = Ld<C>(anchors, i * 4 + k);
          }
          BoxEncodeTargets(r, a, means, stds, out);
        } else {
          for (C& v : out) v = static_cast<C>(NAN);  // no such ref
        }
      }
      for (int k = 0; k < 4; ++k) {
        St(targets, i * 4 + k, out[k]);
        St(masks, i * 4 + k, valid ? C(1) : C(0));
      }
    }
  });
  return absl::OkStatus();
}

absl::Status BoxEncodeForward(const KernelContext& ctx) {
  SYMX_FLOAT_STORAGE_SWITCH(ctx, ctx.inputs[0].dtype(), T, return BoxEncodeForwardT<T>(ctx));
}

// ------------------------------------------------------------------ box_decode

template <typename T>
absl::Status BoxDecodeForwardT(const KernelContext& ctx) {
  using C = typename Compute<T>::type;
  if (ctx.inputs[1].dtype() != ctx.inputs[0].dtype()) {
    return UnsupportedDType(ctx, ctx.inputs[1].dtype());
  }
  const auto& p = ctx.param<BoxDecodeParam>();
  const Shape& ds = ctx.inputs[0].shape();
  const int64_t n = ds[1], rows = ds[0] * n;
  const C stds[4] = {static_cast<C>(p.std0), static_cast<C>(p.std1), static_cast<C>(p.std2),
                     static_cast<C>(p.std3)};
  const bool has_clip = p.clip > 0;
  const C clip = static_cast<C>(p.clip);
  const T* x = ctx.inputs[0].data<T>();
  const T* anchors = ctx.inputs[1].data<T>();
  T* o = ctx.outputs[0].data<T>();
  ParallelFor(ctx, rows, 40.0, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      C xv[4], a[4], out[4];
      for (int k = 0; k < 4; ++k) {
        xv[k] = Ld<C>(x, i * 4 + k);
        a[k] = Ld<C>(anchors, (i % n) * 4 + k);
      }
      BoxDecodeCorners(xv, a, p.center, stds, has_clip, clip, out);
      for (int k = 0; k < 4; ++k) St(o, i * 4 + k, out[k]);
    }
  });
  return absl::OkStatus();
}

absl::Status BoxDecodeForward(const KernelContext& ctx) {
  SYMX_FLOAT_STORAGE_SWITCH(ctx, ctx.inputs[0].dtype(), T, return BoxDecodeForwardT<T>(ctx));
}

}  // namespace

SYMX_REGISTER_KERNEL("_contrib_MultiBoxPrior", kCPU, MultiBoxPriorForward);
SYMX_REGISTER_KERNEL("_contrib_MultiBoxDetection", kCPU, .fn = MultiBoxDetectionForward,
                     .workspace = MultiBoxDetectionWorkspace);
SYMX_REGISTER_KERNEL("_contrib_MultiBoxTarget", kCPU, .fn = MultiBoxTargetForward,
                     .workspace = MultiBoxTargetWorkspace);
SYMX_REGISTER_KERNEL("_contrib_box_nms", kCPU, .fn = BoxNmsForward, .workspace = BoxNmsWorkspace);
SYMX_REGISTER_KERNEL("_backward_contrib_box_nms", kCPU, .fn = BoxNmsBackward, .supports_add = true);
SYMX_REGISTER_KERNEL("_contrib_box_iou", kCPU, BoxIouForward);
SYMX_REGISTER_KERNEL("_contrib_box_encode", kCPU, BoxEncodeForward);
SYMX_REGISTER_KERNEL("_contrib_bipartite_matching", kCPU, BipartiteMatchingForward);
SYMX_REGISTER_KERNEL("_contrib_box_decode", kCPU, BoxDecodeForward);

}  // namespace cpu
}  // namespace symx
