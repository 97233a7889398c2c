// Conformance tests for the region ops: ROIPooling, _contrib_ROIAlign,
// _contrib_Proposal and _contrib_MultiProposal. References are plain loops
// written from MXNet 1.9.1's behaviour (see graph/ops/roi.cc); the data
// gradients of the pooling ops are checked against finite differences, with
// distinct data values and ROI corners away from rounding boundaries so that
// the maxima and bins are not ties.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "graph/shape.h"
#include "gtest/gtest.h"
#include "tests/ops/conformance.h"

namespace symx {
namespace testing {
namespace {

const std::vector<DType> kWithHalf = {DType::kFloat32, DType::kFloat64, DType::kFloat16};

// Distinct values in [-1, 1), at least 2 / n apart, in a random order.
Values DistinctValues(const Shape& s, uint64_t seed) {
  const int64_t n = NumElements(s);
  std::vector<int64_t> perm(n);
  std::iota(perm.begin(), perm.end(), 0);
  std::mt19937_64 rng(seed);
  std::shuffle(perm.begin(), perm.end(), rng);
  Values v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = -1.0 + 2.0 * static_cast<double>(perm[i]) / n;
  return v;
}

std::string Pair(int64_t a, int64_t b) {
  return "(" + std::to_string(a) + ", " + std::to_string(b) + ")";
}

// ------------------------------------------------------------------ ROIPooling

std::vector<Values> ROIPoolRef(const std::vector<Values>& in, const std::vector<Shape>& s,
                               int64_t ph, int64_t pw, double scale) {
  const Shape& d = s[0];
  const int64_t N = d[0], C = d[1], H = d[2], W = d[3], R = s[1][0];
  Values out(R * C * ph * pw, 0.0);
  for (int64_t r = 0; r < R; ++r) {
    const double* roi = &in[1][r * 5];
    const int64_t b = static_cast<int64_t>(roi[0]);
    if (b < 0 || b >= N) continue;
    const int64_t x1 = std::lround(roi[1] * scale), y1 = std::lround(roi[2] * scale);
    const int64_t x2 = std::lround(roi[3] * scale), y2 = std::lround(roi[4] * scale);
    const double bh = std::max<int64_t>(y2 - y1 + 1, 1) / static_cast<double>(ph);
    const double bw = std::max<int64_t>(x2 - x1 + 1, 1) / static_cast<double>(pw);
    for (int64_t c = 0; c < C; ++c) {
      for (int64_t i = 0; i < ph; ++i) {
        for (int64_t j = 0; j < pw; ++j) {
          const int64_t h0 = std::clamp<int64_t>(y1 + std::floor(i * bh), 0, H);
          const int64_t h1 = std::clamp<int64_t>(y1 + std::ceil((i + 1) * bh), 0, H);
          const int64_t w0 = std::clamp<int64_t>(x1 + std::floor(j * bw), 0, W);
          const int64_t w1 = std::clamp<int64_t>(x1 + std::ceil((j + 1) * bw), 0, W);
          double m = 0;
          bool any = false;
          for (int64_t h = h0; h < h1; ++h) {
            for (int64_t w = w0; w < w1; ++w) {
              const double v = in[0][((b * C + c) * H + h) * W + w];
              if (!any || v > m) m = v;
              any = true;
            }
          }
          out[((r * C + c) * ph + i) * pw + j] = any ? m : 0.0;
        }
      }
    }
  }
  return {out};
}

OpCase ROIPoolingCase(const Shape& data, const Values& rois, int64_t ph, int64_t pw, double scale,
                      const std::string& scale_text) {
  OpCase c;
  c.name = "ROIPooling " + data.ToString() + " pooled " + Pair(ph, pw) + " scale " + scale_text;
  c.op = "ROIPooling";
  c.attrs = {{"pooled_size", Pair(ph, pw)}, {"spatial_scale", scale_text}};
  const int64_t r = static_cast<int64_t>(rois.size() / 5);
  c.shapes = {data, Shape{r, 5}};
  c.dtypes = kWithHalf;
  c.no_grad = {1};
  c.init = [rois](int input, const Shape& s) { return input == 0 ? DistinctValues(s, 7) : rois; };
  c.reference = [ph, pw, scale](const std::vector<Values>& in, const std::vector<Shape>& s) {
    return ROIPoolRef(in, s, ph, pw, scale);
  };
  return c;
}

TEST(RoiConformance, ROIPooling) {
  // ROIs inside, overlapping, partly outside (negative corners, past the edge),
  // degenerate (one cell, inverted), and batch indices out of range.
  const Values rois = {0,   0, 0,   3,   3,   1,   1.2, 0.7, 5.3, 4.2, 0, -2.2, -1.8, 1.2,
                       2.4, 1, 4.2, 3.8, 9.3, 8.4, 0,   2,   2,   2,   2, 1,    4,    4,
                       1,   1, 3,   0,   0,   2,   2,   -1,  0,   0,   2, 2};
  CheckOp(ROIPoolingCase(Shape{2, 3, 6, 7}, rois, 2, 2, 1.0, "1.0"));
  CheckOp(ROIPoolingCase(Shape{2, 2, 6, 7}, rois, 3, 2, 1.0, "1"));
  CheckOp(ROIPoolingCase(Shape{2, 2, 6, 7}, rois, 1, 1, 1.0, "1"));
  // scale 0.5: corners 2.2 * 0.5 = 1.1 etc., away from .5 ties.
  const Values big = {0, 2.2, 3.4, 10.2, 8.6, 1, 0.6, 0.2, 12.6, 11.4, 0, 6.2, 2.2, 7.0, 12.2};
  CheckOp(ROIPoolingCase(Shape{2, 2, 6, 7}, big, 2, 3, 0.5, "0.5"));
  CheckOp(ROIPoolingCase(Shape{2, 2, 5, 5}, big, 4, 4, 0.5, "0.5"));
  // No ROIs.
  CheckOp(ROIPoolingCase(Shape{1, 2, 4, 4}, {}, 2, 2, 1.0, "1"));
}

// ------------------------------------------------------------------ ROIAlign

// One bilinear sample at (y, x), or 0 outside [-1, H] x [-1, W].
double Bilinear(const double* plane, int64_t H, int64_t W, double y, double x) {
  if (y < -1 || y > H || x < -1 || x > W) return 0;
  y = std::min(std::max(y, 0.0), static_cast<double>(H - 1));
  x = std::min(std::max(x, 0.0), static_cast<double>(W - 1));
  const int64_t y0 = static_cast<int64_t>(y), x0 = static_cast<int64_t>(x);
  const int64_t y1 = std::min(y0 + 1, H - 1), x1 = std::min(x0 + 1, W - 1);
  const double ly = y - y0, lx = x - x0;
  return (1 - ly) * (1 - lx) * plane[y0 * W + x0] + (1 - ly) * lx * plane[y0 * W + x1] +
         ly * (1 - lx) * plane[y1 * W + x0] + ly * lx * plane[y1 * W + x1];
}

struct AlignAttrs {
  int64_t ph = 2, pw = 2;
  double scale = 1;
  std::string scale_text = "1";
  int64_t sample_ratio = -1;
  bool position_sensitive = false;
  bool aligned = false;
};

std::vector<Values> ROIAlignRef(const std::vector<Values>& in, const std::vector<Shape>& s,
                                const AlignAttrs& a) {
  const Shape& d = s[0];
  const int64_t N = d[0], C = d[1], H = d[2], W = d[3], R = s[1][0];
  const int64_t CO = a.position_sensitive ? C / (a.ph * a.pw) : C;
  Values out(R * CO * a.ph * a.pw, 0.0);
  const double off = a.aligned ? 0.5 : 0.0;
  for (int64_t r = 0; r < R; ++r) {
    const double* roi = &in[1][r * 5];
    const int64_t b = static_cast<int64_t>(roi[0]);
    if (b < 0 || b >= N) continue;
    const double x1 = roi[1] * a.scale - off, y1 = roi[2] * a.scale - off;
    double rw = roi[3] * a.scale - off - x1, rh = roi[4] * a.scale - off - y1;
    if (!a.aligned) {
      rw = std::max(rw, 1.0);
      rh = std::max(rh, 1.0);
    }
    const double bh = rh / a.ph, bw = rw / a.pw;
    const int64_t gh = a.sample_ratio > 0 ? a.sample_ratio : std::ceil(rh / a.ph);
    const int64_t gw = a.sample_ratio > 0 ? a.sample_ratio : std::ceil(rw / a.pw);
    for (int64_t c = 0; c < CO; ++c) {
      for (int64_t i = 0; i < a.ph; ++i) {
        for (int64_t j = 0; j < a.pw; ++j) {
          const int64_t cin = a.position_sensitive ? (c * a.ph + i) * a.pw + j : c;
          const double* plane = &in[0][(b * C + cin) * H * W];
          double sum = 0;
          for (int64_t iy = 0; iy < gh; ++iy) {
            for (int64_t ix = 0; ix < gw; ++ix) {
              const double y = y1 + i * bh + (iy + 0.5) * bh / gh;
              const double x = x1 + j * bw + (ix + 0.5) * bw / gw;
              sum += Bilinear(plane, H, W, y, x);
            }
          }
          out[((r * CO + c) * a.ph + i) * a.pw + j] = sum / (gh * gw);
        }
      }
    }
  }
  return {out};
}

OpCase ROIAlignCase(const Shape& data, const Values& rois, const AlignAttrs& a) {
  OpCase c;
  c.name = "ROIAlign " + data.ToString() + " pooled " + Pair(a.ph, a.pw) + " scale " +
           a.scale_text + " sample_ratio " + std::to_string(a.sample_ratio) +
           (a.position_sensitive ? " position_sensitive" : "") + (a.aligned ? " aligned" : "");
  c.op = "_contrib_ROIAlign";
  c.attrs = {{"pooled_size", Pair(a.ph, a.pw)},
             {"spatial_scale", a.scale_text},
             {"sample_ratio", std::to_string(a.sample_ratio)},
             {"position_sensitive", a.position_sensitive ? "True" : "False"},
             {"aligned", a.aligned ? "1" : "0"}};
  c.shapes = {data, Shape{static_cast<int64_t>(rois.size() / 5), 5}};
  c.dtypes = kWithHalf;
  c.forward_tol32 = 1e-5;
  c.no_grad = {1};
  c.init = [rois](int input, const Shape& s) { return input == 0 ? DistinctValues(s, 11) : rois; };
  c.reference = [a](const std::vector<Values>& in, const std::vector<Shape>& s) {
    return ROIAlignRef(in, s, a);
  };
  return c;
}

TEST(RoiConformance, ROIAlign) {
  const Values rois = {0,   0.3, 0.6, 3.7, 4.1, 1,   1.25, 0.4, 5.8, 5.2, 0,   -1.6, -0.7, 2.3,
                       1.9, 1,   3.1, 2.2, 8.9, 7.6, 0,    2.2, 2.4, 2.3, 2.6, 1,    0.5,  0.5,
                       6.5, 5.5, 4,   0,   0,   2,   2,    -1,  0,   0,   2,   2};
  AlignAttrs a;
  CheckOp(ROIAlignCase(Shape{2, 3, 6, 7}, rois, a));
  a.sample_ratio = 2;
  CheckOp(ROIAlignCase(Shape{2, 3, 6, 7}, rois, a));
  a.ph = 3;
  a.pw = 2;
  a.sample_ratio = 1;
  CheckOp(ROIAlignCase(Shape{2, 2, 6, 7}, rois, a));
  a.aligned = true;
  a.sample_ratio = -1;
  // aligned needs non-empty ROIs: drop the degenerate one.
  Values ok = rois;
  ok.erase(ok.begin() + 20, ok.begin() + 25);
  CheckOp(ROIAlignCase(Shape{2, 2, 6, 7}, ok, a));
  a.scale = 0.5;
  a.scale_text = "0.5";
  a.sample_ratio = 3;
  CheckOp(ROIAlignCase(Shape{2, 2, 6, 7}, ok, a));
  AlignAttrs ps;
  ps.position_sensitive = true;
  ps.ph = 2;
  ps.pw = 3;
  CheckOp(ROIAlignCase(Shape{2, 12, 5, 6}, rois, ps));
  ps.aligned = true;
  ps.sample_ratio = 2;
  CheckOp(ROIAlignCase(Shape{2, 6, 5, 6}, ok, ps));
  CheckOp(ROIAlignCase(Shape{1, 2, 4, 4}, {}, a));
}

// ------------------------------------------------------------------ Proposal

struct PropAttrs {
  int64_t pre = 6000, post = 300;
  double threshold = 0.7;
  int64_t min_size = 16;
  std::vector<double> scales = {4, 8, 16, 32};
  std::vector<double> ratios = {0.5, 1, 2};
  int64_t stride = 16;
  bool output_score = false, iou_loss = false;
};

std::string FloatTuple(const std::vector<double>& v) {
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) s += ", ";
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%g", v[i]);
    s += buf;
  }
  return s + ")";
}

// A float reference written from the algorithm's description: anchors, box
// decoding, clipping, min-size filter, stable sort by score, greedy NMS with
// "+1" areas, rows padded cyclically. Cases keep every score distinct and
// above the filter, so the sort order is unambiguous.
std::vector<Values> ProposalRef(const std::vector<Values>& in, const std::vector<Shape>& s,
                                const PropAttrs& p, bool multi) {
  const int64_t N = s[0][0], A = s[0][1] / 2, H = s[0][2], W = s[0][3];
  Values out, score;
  for (int64_t b = 0; b < N; ++b) {
    struct Box {
      float x1, y1, x2, y2, s;
    };
    std::vector<Box> boxes;
    const float im_h = in[2][b * 3], im_w = in[2][b * 3 + 1], im_s = in[2][b * 3 + 2];
    const int64_t real_h = static_cast<int64_t>(im_h / p.stride);
    const int64_t real_w = static_cast<int64_t>(im_w / p.stride);
    for (int64_t y = 0; y < H; ++y) {
      for (int64_t x = 0; x < W; ++x) {
        int64_t a = 0;
        for (double ratio : p.ratios) {
          for (double scale : p.scales) {
            const float base = static_cast<float>(p.stride);
            const float ctr = 0.5f * (base - 1.0f);
            const float ws =
                std::floor(std::sqrt(std::floor(base * base / static_cast<float>(ratio))) + 0.5f);
            const float aw = ws * static_cast<float>(scale);
            const float ah =
                std::floor(ws * static_cast<float>(ratio) + 0.5f) * static_cast<float>(scale);
            const float ax1 = ctr - 0.5f * (aw - 1) + x * p.stride;
            const float ay1 = ctr - 0.5f * (ah - 1) + y * p.stride;
            const float ax2 = ctr + 0.5f * (aw - 1) + x * p.stride;
            const float ay2 = ctr + 0.5f * (ah - 1) + y * p.stride;
            auto delta = [&](int k) {
              return static_cast<float>(in[1][((b * 4 * A + a * 4 + k) * H + y) * W + x]);
            };
            Box bx;
            if (p.iou_loss) {
              bx = {ax1 + delta(0), ay1 + delta(1), ax2 + delta(2), ay2 + delta(3), 0};
            } else {
              const float bw = ax2 - ax1 + 1, bh = ay2 - ay1 + 1;
              const float cx = ax1 + 0.5f * (bw - 1) + delta(0) * bw;
              const float cy = ay1 + 0.5f * (bh - 1) + delta(1) * bh;
              const float pw = std::exp(delta(2)) * bw, ph = std::exp(delta(3)) * bh;
              bx = {cx - 0.5f * (pw - 1), cy - 0.5f * (ph - 1), cx + 0.5f * (pw - 1),
                    cy + 0.5f * (ph - 1), 0};
            }
            bx.x1 = std::clamp(bx.x1, 0.0f, im_w - 1);
            bx.y1 = std::clamp(bx.y1, 0.0f, im_h - 1);
            bx.x2 = std::clamp(bx.x2, 0.0f, im_w - 1);
            bx.y2 = std::clamp(bx.y2, 0.0f, im_h - 1);
            bx.s = static_cast<float>(in[0][((b * 2 * A + A + a) * H + y) * W + x]);
            if (y >= real_h || x >= real_w) bx.s = -1;
            const float ms = static_cast<float>(p.min_size) * im_s;
            if (bx.x2 - bx.x1 + 1 < ms || bx.y2 - bx.y1 + 1 < ms) {
              bx = {bx.x1 - ms / 2, bx.y1 - ms / 2, bx.x2 + ms / 2, bx.y2 + ms / 2, -1};
            }
            boxes.push_back(bx);
            ++a;
          }
        }
      }
    }
    std::stable_sort(boxes.begin(), boxes.end(),
                     [](const Box& l, const Box& r) { return l.s > r.s; });
    const int64_t count = static_cast<int64_t>(boxes.size());
    const int64_t pre = std::min(p.pre > 0 ? p.pre : count, count);
    const int64_t post = std::min(p.post, pre);
    boxes.resize(pre);
    std::vector<int64_t> keep;
    std::vector<bool> dead(pre, false);
    auto area = [](const Box& q) { return (q.x2 - q.x1 + 1) * (q.y2 - q.y1 + 1); };
    for (int64_t i = 0; i < pre && static_cast<int64_t>(keep.size()) < post; ++i) {
      if (dead[i]) continue;
      keep.push_back(i);
      for (int64_t j = i + 1; j < pre; ++j) {
        const Box &u = boxes[i], &v = boxes[j];
        const float iw = std::max(0.0f, std::min(u.x2, v.x2) - std::max(u.x1, v.x1) + 1);
        const float ih = std::max(0.0f, std::min(u.y2, v.y2) - std::max(u.y1, v.y1) + 1);
        const float inter = iw * ih;
        if (inter / (area(u) + area(v) - inter) > static_cast<float>(p.threshold)) dead[j] = true;
      }
    }
    for (int64_t i = 0; i < p.post; ++i) {
      const Box& q = boxes[keep[i % keep.size()]];
      out.insert(out.end(), {static_cast<double>(multi ? b : 0), q.x1, q.y1, q.x2, q.y2});
      score.push_back(q.s);
    }
  }
  if (p.output_score) return {out, score};
  return {out};
}

OpCase ProposalCase(const std::string& name, bool multi, int64_t n, int64_t h, int64_t w,
                    const PropAttrs& p, const Values& im_info) {
  OpCase c;
  c.op = multi ? "_contrib_MultiProposal" : "_contrib_Proposal";
  c.name = c.op + " " + name;
  c.attrs = {{"rpn_pre_nms_top_n", std::to_string(p.pre)},
             {"rpn_post_nms_top_n", std::to_string(p.post)},
             {"threshold", std::to_string(p.threshold)},
             {"rpn_min_size", std::to_string(p.min_size)},
             {"scales", FloatTuple(p.scales)},
             {"ratios", FloatTuple(p.ratios)},
             {"feature_stride", std::to_string(p.stride)},
             {"output_score", p.output_score ? "True" : "False"},
             {"iou_loss", p.iou_loss ? "True" : "False"}};
  const int64_t a = static_cast<int64_t>(p.scales.size() * p.ratios.size());
  c.shapes = {Shape{n, 2 * a, h, w}, Shape{n, 4 * a, h, w}, Shape{n, 3}};
  c.dtypes = {DType::kFloat32};
  c.check_backward = false;
  c.forward_tol32 = 1e-5;
  c.init = [im_info, iou = p.iou_loss](int input, const Shape& s) {
    if (input == 2) return im_info;
    if (input == 0) {
      Values v = DistinctValues(s, 3);
      for (double& x : v) x = 0.5 + 0.5 * x;  // in [0, 1)
      return v;
    }
    Values v = DistinctValues(s, 5);
    for (double& x : v) x *= iou ? 6.0 : 0.3;
    return v;
  };
  c.reference = [p, multi](const std::vector<Values>& in, const std::vector<Shape>& s) {
    return ProposalRef(in, s, p, multi);
  };
  return c;
}

TEST(RoiConformance, Proposal) {
  PropAttrs p;
  p.scales = {2, 4};
  p.ratios = {0.5, 1, 2};
  p.min_size = 1;
  p.post = 12;
  p.output_score = true;
  CheckOp(ProposalCase("basic", false, 1, 4, 5, p, {64, 80, 1}));
  // Few boxes survive NMS: rows repeat the kept ones.
  p.threshold = 0.05;
  p.pre = 20;
  p.post = 30;
  CheckOp(ProposalCase("padded", false, 1, 4, 5, p, {64, 80, 1}));
  p.threshold = 0.7;
  p.pre = -1;
  p.post = 8;
  p.output_score = false;
  p.iou_loss = true;
  p.ratios = {1};
  p.scales = {1.5, 3};
  CheckOp(ProposalCase("iou_loss", false, 1, 3, 3, p, {48, 48, 1.5}));
  PropAttrs m;
  m.scales = {2, 4};
  m.ratios = {0.5, 2};
  m.min_size = 2;
  m.post = 10;
  m.pre = 25;
  m.output_score = true;
  m.stride = 8;
  CheckOp(ProposalCase("batch", true, 2, 4, 4, m, {32, 32, 1, 32, 32, 0.5}));
}

}  // namespace
}  // namespace testing

}  // namespace symx
