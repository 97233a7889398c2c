// Conformance tests for the SSD-style detection ops: _contrib_MultiBoxPrior,
// _contrib_box_nms (forward, and its row-routing gradient against finite
// differences), _contrib_box_iou, _contrib_box_encode and _contrib_box_decode. References are plain
// loops written from the behaviour of a live MXNet 1.9.1 (see graph/ops/detection.cc). Inputs have
// distinct scores and no IoU within 1e-3 of a threshold, so the order and the
// suppression are unambiguous and finite differences do not cross a decision.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "devices/device.h"
#include "devices/kernel.h"
#include "graph/node.h"
#include "gtest/gtest.h"
#include "tests/executor/executor_test_util.h"
#include "tests/expect_contains.h"
#include "tests/ops/conformance.h"

namespace symx {
namespace testing {
namespace {

struct B {
  double x1, y1, x2, y2;
};

B Corner(const double* c, bool center) {
  if (!center) return {c[0], c[1], c[2], c[3]};
  return {c[0] - c[2] / 2, c[1] - c[3] / 2, c[0] + c[2] / 2, c[1] + c[3] / 2};
}

double AreaOf(const B& b) {
  const double w = b.x2 - b.x1, h = b.y2 - b.y1;
  return (w < 0 || h < 0) ? 0 : w * h;
}

double IouOf(const B& a, const B& b) {
  const double w = std::max(0.0, std::min(a.x2, b.x2) - std::max(a.x1, b.x1));
  const double h = std::max(0.0, std::min(a.y2, b.y2) - std::max(a.y1, b.y1));
  const double u = AreaOf(a) + AreaOf(b) - w * h;
  return u <= 0 ? 0 : w * h / u;
}

// ------------------------------------------------------------------ MultiBoxPrior

struct PriorSpec {
  std::vector<double> sizes, ratios;
  double step_y = -1, step_x = -1, off_y = 0.5, off_x = 0.5;
  bool clip = false;
};

std::string TupleText(const std::vector<double>& v) {
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + ")";
}

OpCase PriorCase(const std::string& name, const PriorSpec& p, const Shape& shape) {
  OpCase c;
  c.name = "MultiBoxPrior " + name;
  c.op = "_contrib_MultiBoxPrior";
  c.attrs = {{"sizes", TupleText(p.sizes)},
             {"ratios", TupleText(p.ratios)},
             {"steps", TupleText({p.step_y, p.step_x})},
             {"offsets", TupleText({p.off_y, p.off_x})},
             {"clip", p.clip ? "True" : "False"}};
  c.shapes = {shape};
  c.dtypes = {DType::kFloat32};  // the output is always float32
  c.check_backward = false;      // zero gradient, and no float64 output for finite differences
  c.reference = [p](const std::vector<Values>&, const std::vector<Shape>& s) {
    const int64_t h = s[0][2], w = s[0][3];
    const double sy = p.step_y > 0 ? p.step_y : 1.0 / h, sx = p.step_x > 0 ? p.step_x : 1.0 / w;
    Values out;
    auto add = [&](double cx, double cy, double size, double ratio) {
      const double hw = size * h / w * std::sqrt(ratio) / 2, hh = size / std::sqrt(ratio) / 2;
      for (double v : {cx - hw, cy - hh, cx + hw, cy + hh}) {
        out.push_back(p.clip ? std::min(1.0, std::max(0.0, v)) : v);
      }
    };
    for (int64_t r = 0; r < h; ++r) {
      for (int64_t col = 0; col < w; ++col) {
        const double cy = (r + p.off_y) * sy, cx = (col + p.off_x) * sx;
        for (double size : p.sizes) add(cx, cy, size, p.ratios[0]);
        for (size_t k = 1; k < p.ratios.size(); ++k) add(cx, cy, p.sizes[0], p.ratios[k]);
      }
    }
    return std::vector<Values>{out};
  };
  return c;
}

TEST(DetectionConformance, MultiBoxPrior) {
  CheckOp(PriorCase("default", {{1.0}, {1.0}}, Shape{1, 3, 2, 3}));
  CheckOp(PriorCase("sizes ratios", {{0.5, 0.25}, {1, 2, 0.5}}, Shape{2, 3, 3, 4}));
  CheckOp(PriorCase("ratio0 != 1", {{0.5, 0.3}, {4, 1}}, Shape{1, 2, 1, 2}));
  CheckOp(PriorCase("steps offsets clip", {{0.5, 0.25}, {1, 2}, 0.3, 0.2, 0.2, 0.7, true},
                    Shape{1, 1, 2, 3}));
  CheckOp(PriorCase("non-positive steps are defaults", {{0.4}, {1, 3}, 0, -2}, Shape{1, 1, 3, 2}));
  CheckOp(PriorCase("5-D data", {{0.4}, {1, 3}}, Shape{1, 2, 4, 2, 3}));
  CheckOp(PriorCase("empty map", {{0.4}, {1, 3}}, Shape{1, 2, 0, 3}));
}

// ------------------------------------------------------------------ box_nms

struct NmsSpec {
  double overlap = 0.5, valid = 0;
  int64_t topk = -1, coord_start = 2, score_index = 1, id_index = -1, background_id = -1;
  bool force = false, in_center = false, out_center = false;
};

// Rows with distinct scores in (0.05, 1.05), ids in {-1, 0, 1}, boxes around three
// centres; regenerated until no pair's IoU is within 1e-3 of `overlap`.
Values NmsData(const NmsSpec& p, const Shape& shape, uint64_t seed) {
  const int64_t width = shape[shape.ndim() - 1], n = shape[shape.ndim() - 2];
  const int64_t batches = n * width == 0 ? 0 : NumElements(shape) / (n * width);
  for (;; ++seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0, 1);
    Values v(NumElements(shape));
    for (double& x : v) x = u(rng) * 2 - 1;
    bool ok = true;
    for (int64_t b = 0; b < batches && ok; ++b) {
      std::vector<int64_t> perm(n);
      for (int64_t i = 0; i < n; ++i) perm[i] = i;
      std::shuffle(perm.begin(), perm.end(), rng);
      double* xb = v.data() + b * n * width;
      const double centres[3][2] = {{0.2, 0.2}, {0.7, 0.3}, {0.4, 0.8}};
      for (int64_t i = 0; i < n; ++i) {
        double* row = xb + i * width;
        row[p.score_index] = static_cast<double>(perm[i]) / n + 0.05;
        // -1 is the default background_id: those rows are dropped too.
        if (p.id_index >= 0) row[p.id_index] = static_cast<double>(rng() % 3) - 1;
        const double* ce = centres[rng() % 3];
        const double cx = ce[0] + (u(rng) - 0.5) * 0.1, cy = ce[1] + (u(rng) - 0.5) * 0.1;
        const double w = 0.2 + 0.2 * u(rng), h = 0.2 + 0.2 * u(rng);
        double* c = row + p.coord_start;
        if (p.in_center) {
          c[0] = cx, c[1] = cy, c[2] = w, c[3] = h;
        } else {
          c[0] = cx - w / 2, c[1] = cy - h / 2, c[2] = cx + w / 2, c[3] = cy + h / 2;
        }
      }
      for (int64_t i = 0; i < n && ok; ++i) {
        for (int64_t j = i + 1; j < n && ok; ++j) {
          const double iou = IouOf(Corner(xb + i * width + p.coord_start, p.in_center),
                                   Corner(xb + j * width + p.coord_start, p.in_center));
          ok = std::abs(iou - p.overlap) > 1e-3;
        }
      }
    }
    if (ok) return v;
  }
}

Values NmsRef(const NmsSpec& p, const Values& x, const Shape& shape) {
  const int64_t width = shape[shape.ndim() - 1], n = shape[shape.ndim() - 2];
  const int64_t batches = n * width == 0 ? 0 : NumElements(shape) / (n * width);
  Values out(x.size(), -1.0);
  for (int64_t b = 0; b < batches; ++b) {
    const double* xb = x.data() + b * n * width;
    auto row = [&](int64_t i) { return xb + i * width; };
    std::vector<int64_t> cand;
    for (int64_t i = 0; i < n; ++i) {
      if (row(i)[p.score_index] <= p.valid) continue;
      if (p.id_index >= 0 && row(i)[p.id_index] == p.background_id) {
        continue;
      }
      cand.push_back(i);
    }
    std::sort(cand.begin(), cand.end(),
              [&](int64_t i, int64_t j) { return row(i)[p.score_index] > row(j)[p.score_index]; });
    if (p.topk > 0 && static_cast<int64_t>(cand.size()) > p.topk) cand.resize(p.topk);
    std::vector<int64_t> kept;
    for (int64_t i : cand) {
      bool keep = true;
      for (int64_t k : kept) {
        const bool same = p.id_index < 0 || p.force || row(i)[p.id_index] == row(k)[p.id_index];
        if (same && IouOf(Corner(row(i) + p.coord_start, p.in_center),
                          Corner(row(k) + p.coord_start, p.in_center)) > p.overlap) {
          keep = false;
        }
      }
      if (keep) kept.push_back(i);
    }
    for (size_t k = 0; k < kept.size(); ++k) {
      double* o = out.data() + (b * n + static_cast<int64_t>(k)) * width;
      std::copy(row(kept[k]), row(kept[k]) + width, o);
      if (p.in_center != p.out_center && row(kept[k])[p.coord_start] >= 0) {
        const B bb = Corner(row(kept[k]) + p.coord_start, p.in_center);
        double* c = o + p.coord_start;
        if (p.out_center) {
          c[0] = (bb.x1 + bb.x2) / 2, c[1] = (bb.y1 + bb.y2) / 2;
          c[2] = bb.x2 - bb.x1, c[3] = bb.y2 - bb.y1;
        } else {
          c[0] = bb.x1, c[1] = bb.y1, c[2] = bb.x2, c[3] = bb.y2;
        }
      }
    }
  }
  return out;
}

OpCase NmsCase(const std::string& name, const NmsSpec& p, const Shape& shape,
               const std::string& op = "_contrib_box_nms") {
  OpCase c;
  c.name = "box_nms " + name;
  c.op = op;
  c.attrs = {{"overlap_thresh", std::to_string(p.overlap)},
             {"valid_thresh", std::to_string(p.valid)},
             {"topk", std::to_string(p.topk)},
             {"coord_start", std::to_string(p.coord_start)},
             {"score_index", std::to_string(p.score_index)},
             {"id_index", std::to_string(p.id_index)},
             {"background_id", std::to_string(p.background_id)},
             {"force_suppress", p.force ? "1" : "0"},
             {"in_format", p.in_center ? "center" : "corner"},
             {"out_format", p.out_center ? "center" : "corner"}};
  c.shapes = {shape};
  c.init = [p](int, const Shape& s) { return NmsData(p, s, 17); };
  // A format conversion makes the output coordinates linear functions of the
  // input's, but MXNet's gradient (and symx's) routes rows unchanged; finite
  // differences would disagree, so those cases check the forward only.
  // Ids are exact integers: a finite-difference step on an id column changes
  // which rows compare equal, so cases with ids check the forward only too
  // (the golden cases check those gradients against MXNet's).
  c.check_backward = p.in_center == p.out_center && p.id_index < 0;
  c.reference = [p](const std::vector<Values>& in, const std::vector<Shape>& s) {
    return std::vector<Values>{NmsRef(p, in[0], s[0])};
  };
  return c;
}

TEST(DetectionConformance, BoxNms) {
  CheckOp(NmsCase("default", {}, Shape{2, 8, 6}));
  NmsSpec ids;
  ids.overlap = 0.3, ids.id_index = 0;
  CheckOp(NmsCase("per id", ids, Shape{2, 8, 6}));
  NmsSpec force = ids;
  force.force = true;
  CheckOp(NmsCase("force_suppress", force, Shape{2, 8, 6}));
  NmsSpec topk;
  topk.overlap = 0.4, topk.topk = 4, topk.valid = 0.3;
  CheckOp(NmsCase("topk valid_thresh", topk, Shape{1, 10, 6}));
  NmsSpec bg = ids;
  bg.background_id = 1;
  CheckOp(NmsCase("background_id", bg, Shape{2, 8, 6}));
  NmsSpec co;
  co.overlap = 0.3, co.out_center = true;
  CheckOp(NmsCase("out center", co, Shape{2, 7, 6}));
  NmsSpec ci;
  ci.overlap = 0.3, ci.in_center = true;
  CheckOp(NmsCase("in center", ci, Shape{2, 7, 6}));
  NmsSpec cc = ci;
  cc.out_center = true;
  CheckOp(NmsCase("center to center", cc, Shape{1, 7, 6}));
  NmsSpec lay;
  lay.overlap = 0.3, lay.coord_start = 0, lay.score_index = 5, lay.id_index = 4;
  CheckOp(NmsCase("layout", lay, Shape{1, 9, 7}));
  CheckOp(NmsCase("2-D", co, Shape{8, 6}));
  CheckOp(NmsCase("4-D alias", ids, Shape{2, 2, 6, 6}, "_contrib_box_non_maximum_suppression"));
  CheckOp(NmsCase("no boxes", {}, Shape{2, 0, 6}));
}

// ------------------------------------------------------------------ MultiBoxDetection

struct DetSpec {
  bool clip = true;
  double threshold = 0.01, nms = 0.5;
  bool force = false;
  std::vector<double> var = {0.1, 0.1, 0.2, 0.2};
  int64_t topk = -1;
  std::string background = "0";
};

OpCase DetectionCase(const std::string& name, const DetSpec& p, int64_t n, int64_t nc, int64_t na) {
  OpCase c;
  c.name = "MultiBoxDetection " + name;
  c.op = "_contrib_MultiBoxDetection";
  c.attrs = {{"clip", p.clip ? "1" : "0"},
             {"threshold", std::to_string(p.threshold)},
             {"nms_threshold", std::to_string(p.nms)},
             {"force_suppress", p.force ? "1" : "0"},
             {"variances", TupleText(p.var)},
             {"nms_topk", std::to_string(p.topk)},
             {"background_id", p.background}};
  c.shapes = {Shape{n, nc, na}, Shape{n, na * 4}, Shape{1, na, 4}};
  c.check_backward = false;  // not differentiable
  c.init = [](int input, const Shape& s) {
    std::mt19937_64 rng(5 + input);
    std::uniform_real_distribution<double> u(0, 1);
    Values v(NumElements(s));
    if (input == 0) {  // distinct probabilities, normalized over classes
      for (size_t i = 0; i < v.size(); ++i) v[i] = std::exp(4.0 * i / v.size());
      std::shuffle(v.begin(), v.end(), rng);
      const int64_t nc = s[1], na = s[2];
      for (int64_t b = 0; b < s[0]; ++b) {
        for (int64_t i = 0; i < na; ++i) {
          double sum = 0;
          for (int64_t j = 0; j < nc; ++j) sum += v[(b * nc + j) * na + i];
          for (int64_t j = 0; j < nc; ++j) v[(b * nc + j) * na + i] /= sum;
        }
      }
    } else if (input == 1) {
      for (double& x : v) x = u(rng) * 2 - 1;
    } else {
      for (size_t i = 0; i + 3 < v.size(); i += 4) {
        const double cx = 0.2 + 0.6 * u(rng), cy = 0.2 + 0.6 * u(rng);
        const double w = 0.2 + 0.3 * u(rng), h = 0.2 + 0.3 * u(rng);
        v[i] = cx - w / 2, v[i + 1] = cy - h / 2, v[i + 2] = cx + w / 2, v[i + 3] = cy + h / 2;
      }
    }
    return v;
  };
  c.reference = [p](const std::vector<Values>& in, const std::vector<Shape>& s) {
    const int64_t n = s[0][0], nc = s[0][1], na = s[0][2];
    Values out(n * na * 6, -1.0);
    for (int64_t b = 0; b < n; ++b) {
      double* o = out.data() + b * na * 6;
      std::vector<std::vector<double>> rows;
      for (int64_t i = 0; i < na; ++i) {
        double best = -1;
        int64_t id = 0;
        for (int64_t j = 1; j < nc; ++j) {
          const double v = in[0][(b * nc + j) * na + i];
          if (v > best) best = v, id = j;
        }
        if (id == 0 || best < p.threshold) continue;
        const double* a = &in[2][i * 4];
        const double* l = &in[1][(b * na + i) * 4];
        const double aw = a[2] - a[0], ah = a[3] - a[1];
        const double ox = l[0] * p.var[0] * aw + (a[0] + a[2]) / 2;
        const double oy = l[1] * p.var[1] * ah + (a[1] + a[3]) / 2;
        const double ow = std::exp(l[2] * p.var[2]) * aw / 2;
        const double oh = std::exp(l[3] * p.var[3]) * ah / 2;
        std::vector<double> r = {
            static_cast<double>(id - 1), best, ox - ow, oy - oh, ox + ow, oy + oh};
        if (p.clip) {
          for (int k = 2; k < 6; ++k) r[k] = std::min(1.0, std::max(0.0, r[k]));
        }
        rows.push_back(r);
      }
      const int64_t valid = static_cast<int64_t>(rows.size());
      for (int64_t i = 0; i < valid; ++i) std::copy(rows[i].begin(), rows[i].end(), o + i * 6);
      if (valid == 0 || p.nms <= 0 || p.nms > 1) continue;
      std::vector<std::vector<double>> sorted = rows;
      std::stable_sort(
          sorted.begin(), sorted.end(),
          [](const std::vector<double>& x, const std::vector<double>& y) { return x[1] > y[1]; });
      const int64_t keep = p.topk > 0 && p.topk < valid ? p.topk : valid;
      for (int64_t i = 0; i < keep; ++i) std::copy(sorted[i].begin(), sorted[i].end(), o + i * 6);
      for (int64_t i = keep; i < valid; ++i) o[i * 6] = -1;
      for (int64_t i = 0; i < keep; ++i) {
        if (o[i * 6] < 0) continue;
        for (int64_t j = i + 1; j < keep; ++j) {
          if (o[j * 6] < 0 || (!p.force && o[i * 6] != o[j * 6])) continue;
          if (IouOf(Corner(o + i * 6 + 2, false), Corner(o + j * 6 + 2, false)) >= p.nms) {
            o[j * 6] = -1;
          }
        }
      }
    }
    return std::vector<Values>{out};
  };
  return c;
}

TEST(DetectionConformance, MultiBoxDetection) {
  CheckOp(DetectionCase("default", {}, 2, 4, 8));
  DetSpec t;
  t.threshold = 0.3;
  CheckOp(DetectionCase("threshold", t, 2, 4, 8));
  DetSpec f;
  f.force = true, f.nms = 0.1;
  CheckOp(DetectionCase("force_suppress", f, 2, 3, 8));
  DetSpec v;
  v.clip = false, v.var = {0.2, 0.1, 0.3, 0.1};
  CheckOp(DetectionCase("no clip, variances", v, 1, 3, 6));
  DetSpec k;
  k.topk = 3, k.threshold = 0.1, k.nms = 0.2;
  CheckOp(DetectionCase("nms_topk", k, 2, 4, 8));
  DetSpec bg;
  bg.background = "2";  // ignored, as by MXNet
  CheckOp(DetectionCase("background_id ignored", bg, 2, 4, 6));
  DetSpec none;
  none.nms = 0;
  CheckOp(DetectionCase("no nms", none, 1, 3, 6));
  CheckOp(DetectionCase("background only", {}, 2, 1, 4));
  CheckOp(DetectionCase("empty batch", {}, 0, 3, 4));
}

// ------------------------------------------------------------------ MultiBoxTarget

struct TargetSpec {
  double overlap = 0.5, ignore = -1, ratio = -1, mining_thresh = 0.5;
  int64_t min_negatives = 0;
  std::vector<double> var = {0.1, 0.1, 0.2, 0.2};
};

OpCase TargetCase(const std::string& name, const TargetSpec& p, int64_t n, int64_t nc, int64_t na,
                  int64_t m, int64_t w) {
  OpCase c;
  c.name = "MultiBoxTarget " + name;
  c.op = "_contrib_MultiBoxTarget";
  c.attrs = {{"overlap_threshold", std::to_string(p.overlap)},
             {"ignore_label", std::to_string(p.ignore)},
             {"negative_mining_ratio", std::to_string(p.ratio)},
             {"negative_mining_thresh", std::to_string(p.mining_thresh)},
             {"minimum_negative_samples", std::to_string(p.min_negatives)},
             {"variances", TupleText(p.var)}};
  c.shapes = {Shape{1, na, 4}, Shape{n, m, w}, Shape{n, nc, na}};
  c.check_backward = false;  // not differentiable
  c.init = [nc](int input, const Shape& s) {
    std::mt19937_64 rng(11 + input);
    std::uniform_real_distribution<double> u(0, 1);
    Values v(NumElements(s), -1.0);
    auto box = [&](double* q) {
      const double cx = 0.2 + 0.6 * u(rng), cy = 0.2 + 0.6 * u(rng);
      const double bw = 0.1 + 0.3 * u(rng), bh = 0.1 + 0.3 * u(rng);
      q[0] = cx - bw / 2, q[1] = cy - bh / 2, q[2] = cx + bw / 2, q[3] = cy + bh / 2;
    };
    if (input == 0) {
      for (size_t i = 0; i + 3 < v.size(); i += 4) box(&v[i]);
    } else if (input == 1) {  // batches with all, no and two boxes, -1 padded
      const int64_t m = s[1], w = s[2];
      for (int64_t b = 0; b < s[0]; ++b) {
        const int64_t g = std::min<int64_t>(m, b % 3 == 0 ? m : (b % 3 == 1 ? 0 : 2));
        for (int64_t k = 0; k < g; ++k) {
          double* row = &v[(b * m + k) * w];
          row[0] = static_cast<double>(rng() % (nc - 1));
          box(row + 1);
          for (int64_t e = 5; e < w; ++e) row[e] = u(rng);
        }
      }
    } else {
      for (double& x : v) x = u(rng) * 4 - 2;
    }
    return v;
  };
  c.reference = [p](const std::vector<Values>& in, const std::vector<Shape>& s) {
    const int64_t na = s[0][1], n = s[1][0], m = s[1][1], w = s[1][2], nc = s[2][1];
    Values lt(n * na * 4, 0.0), lm(n * na * 4, 0.0), ct(n * na, p.ignore);
    for (int64_t b = 0; b < n; ++b) {
      const double* lb = in[1].data() + b * m * w;  // m may be 0 (no boxes)
      int64_t g = 0;
      while (g < m && lb[g * w] != -1) ++g;
      if (g == 0) continue;
      std::vector<std::vector<double>> ov(na, std::vector<double>(g));
      for (int64_t j = 0; j < na; ++j) {
        for (int64_t k = 0; k < g; ++k) {
          ov[j][k] = IouOf(Corner(&in[0][j * 4], false), Corner(lb + k * w + 1, false));
        }
      }
      std::vector<int> flag(na, -1), gt_used(g, 0);
      std::vector<int64_t> match(na, -1);
      while (true) {
        double best = 1e-6;
        int64_t ba = -1, bg = -1;
        for (int64_t j = 0; j < na; ++j) {
          for (int64_t k = 0; k < g; ++k) {
            if (flag[j] != 1 && !gt_used[k] && ov[j][k] > best) best = ov[j][k], ba = j, bg = k;
          }
        }
        if (ba < 0) break;
        flag[ba] = 1, gt_used[bg] = 1, match[ba] = bg;
      }
      if (p.overlap > 0) {
        for (int64_t j = 0; j < na; ++j) {
          if (flag[j] == 1) continue;
          const int64_t k = std::max_element(ov[j].begin(), ov[j].end()) - ov[j].begin();
          if (ov[j][k] > p.overlap) flag[j] = 1, match[j] = k;
        }
      }
      if (p.ratio > 0) {
        const int64_t pos = std::count(flag.begin(), flag.end(), 1);
        const int64_t neg = std::min<int64_t>(static_cast<int64_t>(pos * p.ratio), na - pos);
        std::vector<std::pair<double, int64_t>> cand;
        for (int64_t j = 0; j < na; ++j) {
          if (flag[j] == 1) continue;
          if (*std::max_element(ov[j].begin(), ov[j].end()) >= p.mining_thresh) continue;
          double sum = 0;
          for (int64_t k = 0; k < nc; ++k) sum += std::exp(in[2][(b * nc + k) * na + j]);
          cand.push_back({std::exp(in[2][(b * nc) * na + j]) / sum, j});
        }
        std::sort(cand.begin(), cand.end());
        for (int64_t i = 0; i < neg && i < static_cast<int64_t>(cand.size()); ++i) {
          flag[cand[i].second] = 0;
        }
      } else {
        for (int& f : flag) f = f == 1 ? 1 : 0;
      }
      for (int64_t j = 0; j < na; ++j) {
        if (flag[j] == 0) ct[b * na + j] = 0;
        if (flag[j] != 1) continue;
        const B a = Corner(&in[0][j * 4], false);
        const B t = Corner(lb + match[j] * w + 1, false);
        const double aw = a.x2 - a.x1, ah = a.y2 - a.y1, gw = t.x2 - t.x1, gh = t.y2 - t.y1;
        double* o = &lt[(b * na + j) * 4];
        o[0] = ((t.x1 + t.x2) / 2 - (a.x1 + a.x2) / 2) / aw / p.var[0];
        o[1] = ((t.y1 + t.y2) / 2 - (a.y1 + a.y2) / 2) / ah / p.var[1];
        o[2] = std::log(gw / aw) / p.var[2];
        o[3] = std::log(gh / ah) / p.var[3];
        for (int k = 0; k < 4; ++k) lm[(b * na + j) * 4 + k] = 1;
        ct[b * na + j] = lb[match[j] * w] + 1;
      }
    }
    return std::vector<Values>{lt, lm, ct};
  };
  c.forward_tol32 = 1e-4;
  return c;
}

TEST(DetectionConformance, MultiBoxTarget) {
  CheckOp(TargetCase("default", {}, 3, 3, 12, 4, 5));
  TargetSpec low;
  low.overlap = 0.2;
  CheckOp(TargetCase("overlap 0.2", low, 2, 3, 12, 4, 5));
  TargetSpec bip;
  bip.overlap = 0;
  CheckOp(TargetCase("bipartite only, wide labels", bip, 2, 4, 10, 3, 6));
  TargetSpec mine;
  mine.ratio = 2;
  CheckOp(TargetCase("negative mining", mine, 3, 3, 16, 4, 5));
  TargetSpec opts;
  opts.ratio = 1, opts.mining_thresh = 0.3, opts.min_negatives = 3, opts.ignore = -2;
  opts.overlap = 0.3;
  CheckOp(TargetCase("mining options (minimum ignored)", opts, 3, 3, 16, 4, 5));
  TargetSpec var;
  var.var = {0.2, 0.1, 0.3, 0.1};
  CheckOp(TargetCase("variances", var, 2, 3, 10, 3, 5));
  CheckOp(TargetCase("no labels", {}, 2, 3, 6, 0, 5));
}

// ------------------------------------------------------------------ box_iou

OpCase IouCase(const std::string& name, bool center, const Shape& l, const Shape& r) {
  OpCase c;
  c.name = "box_iou " + name;
  c.op = "_contrib_box_iou";
  c.attrs = {{"format", center ? "center" : "corner"}};
  c.shapes = {l, r};
  c.dtypes = {DType::kFloat32, DType::kFloat64, DType::kFloat16};
  c.forward_tol32 = 1e-5;
  c.check_backward = false;  // MXNet's gradient is zero, not the derivative
  c.init = [center](int input, const Shape& s) {
    std::mt19937_64 rng(31 + input);
    std::uniform_real_distribution<double> u(0, 1);
    Values v(NumElements(s));
    for (size_t i = 0; i + 3 < v.size(); i += 4) {
      const double cx = 0.2 + 0.6 * u(rng), cy = 0.2 + 0.6 * u(rng);
      const double w = 0.1 + 0.5 * u(rng), h = 0.1 + 0.5 * u(rng);
      if (center) {
        v[i] = cx, v[i + 1] = cy, v[i + 2] = w, v[i + 3] = h;
      } else {
        v[i] = cx - w / 2, v[i + 1] = cy - h / 2, v[i + 2] = cx + w / 2, v[i + 3] = cy + h / 2;
      }
    }
    // A degenerate box (negative width): IoU 0 with everything.
    if (v.size() >= 8) {
      if (center) {
        v[6] = -0.1;
      } else {
        std::swap(v[4], v[6]);
      }
    }
    return v;
  };
  c.reference = [center](const std::vector<Values>& in, const std::vector<Shape>&) {
    const int64_t nl = in[0].size() / 4, nr = in[1].size() / 4;
    Values out;
    for (int64_t i = 0; i < nl; ++i) {
      for (int64_t j = 0; j < nr; ++j) {
        out.push_back(IouOf(Corner(&in[0][i * 4], center), Corner(&in[1][j * 4], center)));
      }
    }
    return std::vector<Values>{out};
  };
  return c;
}

TEST(DetectionConformance, BoxIou) {
  CheckOp(IouCase("corner", false, Shape{3, 4}, Shape{2, 4, 4}));
  CheckOp(IouCase("center", true, Shape{3, 4}, Shape{5, 4}));
  CheckOp(IouCase("3-D lhs", false, Shape{2, 2, 4}, Shape{3, 4}));
  CheckOp(IouCase("empty", false, Shape{0, 4}, Shape{3, 4}));
}

// ------------------------------------------------------------------ bipartite_matching

// Scores from a few values (exact in float16), so that many tie: ties keep
// row-major order (MXNet's std::stable_sort).
OpCase MatchCase(const std::string& name, const Shape& shape, double threshold, bool ascend,
                 int64_t topk) {
  OpCase c;
  c.name = "bipartite_matching " + name;
  c.op = "_contrib_bipartite_matching";
  c.attrs = {{"threshold", std::to_string(threshold)},
             {"is_ascend", ascend ? "True" : "False"},
             {"topk", std::to_string(topk)}};
  c.shapes = {shape};
  c.dtypes = {DType::kFloat32, DType::kFloat64, DType::kFloat16};
  c.check_backward = false;  // MXNet's gradient is zero
  c.init = [](int, const Shape& s) {
    std::mt19937_64 rng(53);
    Values v(NumElements(s));
    for (double& x : v) x = static_cast<double>(rng() % 6) * 0.125 - 0.125;
    return v;
  };
  c.reference = [=](const std::vector<Values>& in, const std::vector<Shape>& shapes) {
    const Shape& s = shapes[0];
    const int64_t nr = s[s.ndim() - 2], nc = s[s.ndim() - 1], stride = nr * nc;
    const int64_t batches = stride == 0 ? 0 : NumElements(s) / stride;
    const double thr = static_cast<float>(threshold);
    Values rows, cols;
    for (int64_t b = 0; b < batches; ++b) {
      const double* x = &in[0][b * stride];
      std::vector<int64_t> order(stride);
      for (int64_t j = 0; j < stride; ++j) order[j] = j;
      std::stable_sort(order.begin(), order.end(),
                       [&](int64_t i, int64_t j) { return ascend ? x[i] < x[j] : x[i] > x[j]; });
      Values rm(nr, -1), cm(nc, -1);
      int64_t count = 0;
      for (int64_t k : order) {
        if (rm[k / nc] != -1 || cm[k % nc] != -1) continue;
        if (!(ascend ? x[k] < thr : x[k] > thr)) break;
        rm[k / nc] = static_cast<double>(k % nc);
        cm[k % nc] = static_cast<double>(k / nc);
        ++count;
        if (topk > 0 && count == topk + 1) break;  // MXNet keeps topk + 1
      }
      rows.insert(rows.end(), rm.begin(), rm.end());
      cols.insert(cols.end(), cm.begin(), cm.end());
    }
    if (batches == 0) {  // no pairs: every row and column is unmatched
      std::vector<int64_t> r(s.dims().begin(), s.dims().end() - 1);
      std::vector<int64_t> cl(s.dims().begin(), s.dims().end() - 2);
      cl.push_back(nc);
      rows.assign(NumElements(Shape(r)), -1);
      cols.assign(NumElements(Shape(cl)), -1);
    }
    return std::vector<Values>{rows, cols};
  };
  return c;
}

TEST(DetectionConformance, BipartiteMatching) {
  CheckOp(MatchCase("descending", Shape{2, 5, 4}, 0.0, false, -1));
  CheckOp(MatchCase("ascending", Shape{2, 4, 5}, 0.5, true, -1));
  CheckOp(MatchCase("topk 2 (3 matches)", Shape{3, 5, 5}, -1.0, false, 2));
  CheckOp(MatchCase("2-D, high threshold", Shape{6, 3}, 0.4, false, -1));
  CheckOp(MatchCase("4-D", Shape{2, 2, 3, 3}, 0.1, false, 1));
  CheckOp(MatchCase("no columns", Shape{2, 3, 0}, 0.0, false, -1));
}

// MXNet's documented example, and a tie resolved in row-major order.
TEST(DetectionConformance, BipartiteMatchingExampleAndTies) {
  const DType f = DType::kFloat32;
  std::vector<Tensor> out = RunOp("_contrib_bipartite_matching", {{"threshold", "1e-12"}},
                                  {MakeTensor(Shape{3, 2}, {0.5, 0.6, 0.1, 0.2, 0.3, 0.4}, f)});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(std::vector<float>(out[0].data<float>(), out[0].data<float>() + 3),
            (std::vector<float>{1, -1, 0}));
  EXPECT_EQ(std::vector<float>(out[1].data<float>(), out[1].data<float>() + 2),
            (std::vector<float>{2, 0}));
  out = RunOp("_contrib_bipartite_matching", {{"threshold", "0.1"}},
              {MakeTensor(Shape{1, 2, 2}, {0.5, 0.5, 0.5, 0.5}, f)});
  EXPECT_EQ(std::vector<float>(out[0].data<float>(), out[0].data<float>() + 2),
            (std::vector<float>{0, 1}));
}

TEST(DetectionConformance, BipartiteMatchingErrorsNameShapesAndParams) {
  const DType f = DType::kFloat32;
  auto run = [&](const Shape& d, const AttrMap& attrs) {
    return ErrorOf([&] {
      RunOp("_contrib_bipartite_matching", attrs, {MakeTensor(d, Values(NumElements(d), 0.5), f)});
    });
  };
  std::string msg = run(Shape{3, 2}, {});
  EXPECT_CONTAINS(msg, "threshold");
  msg = run(Shape{3, 2}, {{"threshold", "0.1"}, {"topk", "two"}});
  EXPECT_CONTAINS(msg, "topk");
  EXPECT_CONTAINS(msg, "two");
  msg = run(Shape{3, 2}, {{"threshold", "0.1"}, {"is_ascend", "maybe"}});
  EXPECT_CONTAINS(msg, "is_ascend");
  EXPECT_CONTAINS(msg, "maybe");
  msg = run(Shape{3}, {{"threshold", "0.1"}});
  EXPECT_CONTAINS(msg, "data");
  EXPECT_CONTAINS(msg, "[3]");
}

// ------------------------------------------------------------------ box_encode

// Random corner boxes of positive size in [0, 1].
void FillBoxes(Values* v, std::mt19937_64* rng) {
  std::uniform_real_distribution<double> u(0, 1);
  for (size_t i = 0; i + 3 < v->size(); i += 4) {
    const double cx = 0.2 + 0.6 * u(*rng), cy = 0.2 + 0.6 * u(*rng);
    const double w = 0.1 + 0.5 * u(*rng), h = 0.1 + 0.5 * u(*rng);
    (*v)[i] = cx - w / 2, (*v)[i + 1] = cy - h / 2, (*v)[i + 2] = cx + w / 2,
    (*v)[i + 3] = cy + h / 2;
  }
}

OpCase EncodeCase(const std::string& name, int64_t b, int64_t n, int64_t m) {
  OpCase c;
  c.name = "box_encode " + name;
  c.op = "_contrib_box_encode";
  c.shapes = {Shape{b, n}, Shape{b, n}, Shape{b, n, 4}, Shape{b, m, 4}, Shape{4}, Shape{4}};
  c.dtypes = {DType::kFloat32, DType::kFloat64, DType::kFloat16};
  c.forward_tol32 = 1e-5;
  c.check_backward = false;  // MXNet's gradient is zero
  c.init = [m](int input, const Shape& s) {
    std::mt19937_64 rng(71 + input);
    std::uniform_real_distribution<double> u(0, 1);
    Values v(NumElements(s));
    // samples: positive (1, 0.75), ignored (0, 0.5 is not > 0.5) or negative.
    const double kSamples[] = {1, 0, -1, 0.75, 0.5, 1};
    for (size_t i = 0; i < v.size(); ++i) {
      switch (input) {
        case 0:
          v[i] = kSamples[i % 6];
          break;
        case 1:  // matches, some fractional (truncated toward zero)
          v[i] = static_cast<double>(i % m) + (i % 3 == 1 ? 0.5 : 0.0);
          if (i % 7 == 3) v[i] = -0.5;  // truncates to ref 0
          break;
        case 4:
          v[i] = 0.25 * (u(rng) - 0.5);
          break;
        case 5:
          v[i] = 0.5 + u(rng);
          break;
        default:
          break;
      }
    }
    if (input == 2 || input == 3) FillBoxes(&v, &rng);
    return v;
  };
  c.reference = [n, m](const std::vector<Values>& in, const std::vector<Shape>&) {
    const Values &smp = in[0], &mat = in[1], &anc = in[2], &ref = in[3], &mu = in[4], &sd = in[5];
    Values t(anc.size(), 0.0), k(anc.size(), 0.0);
    for (size_t i = 0; i < smp.size(); ++i) {
      if (!(smp[i] > 0.5)) continue;
      const double* r = &ref[(static_cast<int64_t>(i) / n * m + static_cast<int64_t>(mat[i])) * 4];
      const double* a = &anc[i * 4];
      const double rw = r[2] - r[0], rh = r[3] - r[1], aw = a[2] - a[0], ah = a[3] - a[1];
      t[i * 4] = (((r[0] + r[2]) / 2 - (a[0] + a[2]) / 2) / aw - mu[0]) / sd[0];
      t[i * 4 + 1] = (((r[1] + r[3]) / 2 - (a[1] + a[3]) / 2) / ah - mu[1]) / sd[1];
      t[i * 4 + 2] = (std::log(rw / aw) - mu[2]) / sd[2];
      t[i * 4 + 3] = (std::log(rh / ah) - mu[3]) / sd[3];
      for (int j = 0; j < 4; ++j) k[i * 4 + j] = 1;
    }
    return std::vector<Values>{t, k};
  };
  return c;
}

TEST(DetectionConformance, BoxEncode) {
  CheckOp(EncodeCase("one batch", 1, 6, 3));
  CheckOp(EncodeCase("batches", 3, 7, 4));
  CheckOp(EncodeCase("empty", 0, 5, 2));
}

// A valid sample whose match is not a ref (MXNet reads out of range) gets NaN
// targets; the others are unaffected.
TEST(DetectionConformance, BoxEncodeMatchOutOfRangeIsNan) {
  const DType f = DType::kFloat32;
  std::vector<Tensor> out =
      RunOp("_contrib_box_encode", {},
            {MakeTensor(Shape{1, 3}, {1, 1, 0}, f), MakeTensor(Shape{1, 3}, {2, 0, 7}, f),
             MakeTensor(Shape{1, 3, 4}, Values(12, 0.0), f),
             MakeTensor(Shape{1, 2, 4}, Values(8, 0.0), f), MakeTensor(Shape{4}, Values(4, 0.0), f),
             MakeTensor(Shape{4}, Values(4, 1.0), f)});
  ASSERT_EQ(out.size(), 2u);
  const float* t = out[0].data<float>();
  const float* k = out[1].data<float>();
  for (int j = 0; j < 4; ++j) {
    EXPECT_TRUE(std::isnan(t[j])) << j;
    EXPECT_EQ(k[j], 1.f);
    EXPECT_EQ(t[8 + j], 0.f);  // invalid: 0 whatever its match
    EXPECT_EQ(k[8 + j], 0.f);
  }
}

TEST(DetectionConformance, BoxEncodeErrorsNameShapesAndKeys) {
  const DType f = DType::kFloat32;
  auto run = [&](const Shape& s, const Shape& m, const Shape& a, const Shape& r,
                 const AttrMap& attrs = {}) {
    return ErrorOf([&] {
      RunOp("_contrib_box_encode", attrs,
            {MakeTensor(s, Values(NumElements(s), 1.0), f),
             MakeTensor(m, Values(NumElements(m), 0.0), f),
             MakeTensor(a, Values(NumElements(a), 0.5), f),
             MakeTensor(r, Values(NumElements(r), 0.5), f), MakeTensor(Shape{4}, Values(4, 0.0), f),
             MakeTensor(Shape{4}, Values(4, 1.0), f)});
    });
  };
  std::string msg = run(Shape{1, 3}, Shape{1, 3}, Shape{1, 3, 4}, Shape{1, 2, 4}, {{"clip", "1"}});
  EXPECT_CONTAINS(msg, "clip");
  msg = run(Shape{1, 3, 1}, Shape{1, 3}, Shape{1, 3, 4}, Shape{1, 2, 4});
  EXPECT_CONTAINS(msg, "samples");
  EXPECT_CONTAINS(msg, "[1,3,1]");
  msg = run(Shape{1, 3}, Shape{1, 3}, Shape{1, 3, 5}, Shape{1, 2, 4});
  EXPECT_CONTAINS(msg, "anchors");
  EXPECT_CONTAINS(msg, "[1,3,5]");
  msg = run(Shape{1, 3}, Shape{1, 3}, Shape{1, 3, 4}, Shape{1, 2, 3});
  EXPECT_CONTAINS(msg, "refs");
  EXPECT_CONTAINS(msg, "[1,2,3]");
  msg = run(Shape{1, 2}, Shape{1, 3}, Shape{1, 3, 4}, Shape{1, 2, 4});
  EXPECT_CONTAINS(msg, "samples");
  EXPECT_CONTAINS(msg, "[1,2]");
  msg = run(Shape{1, 3}, Shape{2, 3}, Shape{1, 3, 4}, Shape{1, 2, 4});
  EXPECT_CONTAINS(msg, "matches");
  msg = run(Shape{1, 3}, Shape{1, 3}, Shape{1, 3, 4}, Shape{2, 2, 4});
  EXPECT_CONTAINS(msg, "refs");
  EXPECT_CONTAINS(msg, "[2,2,4]");
}

// ------------------------------------------------------------------ box_decode

OpCase DecodeCase(const std::string& name, const AttrMap& attrs, int64_t b, int64_t n) {
  OpCase c;
  c.name = "box_decode " + name;
  c.op = "_contrib_box_decode";
  c.attrs = attrs;
  c.shapes = {Shape{b, n, 4}, Shape{1, n, 4}};
  c.dtypes = {DType::kFloat32, DType::kFloat64, DType::kFloat16};
  c.forward_tol32 = 1e-5;
  c.check_backward = false;  // MXNet's gradient is zero
  auto get = [&attrs](const std::string& key, double def) {
    auto it = attrs.find(key);
    return it == attrs.end() ? def : std::stod(it->second);
  };
  const double sd[4] = {get("std0", 1), get("std1", 1), get("std2", 1), get("std3", 1)};
  const double clip = get("clip", -1);
  const bool center = !attrs.count("format") || attrs.at("format") == "center";
  c.init = [center](int input, const Shape& s) {
    std::mt19937_64 rng(91 + input);
    std::uniform_real_distribution<double> u(-1, 1);
    Values v(NumElements(s));
    if (input == 0) {
      for (double& x : v) x = u(rng);
      return v;
    }
    FillBoxes(&v, &rng);
    if (center) {  // the same boxes as (x, y, w, h)
      for (size_t i = 0; i + 3 < v.size(); i += 4) {
        const double w = v[i + 2] - v[i], h = v[i + 3] - v[i + 1];
        v[i] += w / 2, v[i + 1] += h / 2, v[i + 2] = w, v[i + 3] = h;
      }
    }
    return v;
  };
  c.reference = [=](const std::vector<Values>& in, const std::vector<Shape>&) {
    const Values &x = in[0], &anc = in[1];
    Values out(x.size());
    for (size_t i = 0; i * 4 < x.size(); ++i) {
      const double* a = &anc[(i % n) * 4];
      double aw = a[2], ah = a[3], ax = a[0], ay = a[1];
      if (!center) aw -= ax, ah -= ay, ax += aw / 2, ay += ah / 2;
      const double ox = x[i * 4] * sd[0] * aw + ax, oy = x[i * 4 + 1] * sd[1] * ah + ay;
      double dw = x[i * 4 + 2] * sd[2], dh = x[i * 4 + 3] * sd[3];
      if (clip > 0) dw = std::min(dw, clip), dh = std::min(dh, clip);
      const double ow = std::exp(dw) * aw / 2, oh = std::exp(dh) * ah / 2;
      out[i * 4] = ox - ow, out[i * 4 + 1] = oy - oh, out[i * 4 + 2] = ox + ow,
              out[i * 4 + 3] = oy + oh;
    }
    return std::vector<Values>{out};
  };
  return c;
}

TEST(DetectionConformance, BoxDecode) {
  CheckOp(DecodeCase("defaults (center)", {}, 2, 5));
  CheckOp(DecodeCase("corner", {{"format", "corner"}}, 3, 4));
  CheckOp(DecodeCase("stds and clip",
                     {{"std0", "0.5"},
                      {"std1", "0.25"},
                      {"std2", "2"},
                      {"std3", "1.5"},
                      {"clip", "0.3"},
                      {"format", "corner"}},
                     2, 6));
  CheckOp(DecodeCase("clip 0 is off", {{"clip", "0"}, {"std2", "1.25"}}, 1, 3));
  CheckOp(DecodeCase("empty", {}, 0, 3));
}

TEST(DetectionConformance, BoxDecodeErrorsNameShapesAndParams) {
  const DType f = DType::kFloat32;
  auto run = [&](const Shape& d, const Shape& a, const AttrMap& attrs = {}) {
    return ErrorOf([&] {
      RunOp("_contrib_box_decode", attrs,
            {MakeTensor(d, Values(NumElements(d), 0.1), f),
             MakeTensor(a, Values(NumElements(a), 0.5), f)});
    });
  };
  std::string msg = run(Shape{1, 3, 4}, Shape{1, 3, 4}, {{"format", "middle"}});
  EXPECT_CONTAINS(msg, "format");
  EXPECT_CONTAINS(msg, "middle");
  msg = run(Shape{1, 3, 4}, Shape{1, 3, 4}, {{"std4", "1"}});
  EXPECT_CONTAINS(msg, "std4");
  msg = run(Shape{1, 3, 4}, Shape{1, 3, 4}, {{"clip", "wide"}});
  EXPECT_CONTAINS(msg, "clip");
  EXPECT_CONTAINS(msg, "wide");
  msg = run(Shape{1, 3, 5}, Shape{1, 3, 4});
  EXPECT_CONTAINS(msg, "data");
  EXPECT_CONTAINS(msg, "[1,3,5]");
  msg = run(Shape{2, 3, 4}, Shape{2, 3, 4});
  EXPECT_CONTAINS(msg, "anchors");
  EXPECT_CONTAINS(msg, "[2,3,4]");
  msg = run(Shape{2, 3, 4}, Shape{1, 2, 4});
  EXPECT_CONTAINS(msg, "anchors");
  EXPECT_CONTAINS(msg, "[1,2,4]");
}

// box_nms's gradient reads one out_index entry per ograd row; an out_index
// that does not cover ograd's batches of n rows is an error naming it.
TEST(DetectionConformance, BoxNmsGradientRejectsAMismatchedOutIndex) {
  std::vector<NodeEntry> in;
  for (const char* name : {"ograd", "out_index"}) {
    in.push_back(NodeEntry{MakeVariableNode(name), 0, 0});
  }
  auto node = MakeOpNode("_backward_contrib_box_nms", "nms_grad", {}, in);
  ASSERT_TRUE(node.ok()) << node.status();
  const KernelInfo* k = KernelRegistry::Find("_backward_contrib_box_nms", DeviceType::kCPU);
  ASSERT_NE(k, nullptr);
  KernelContext ctx;
  ctx.attrs = &(*node)->attrs;
  ctx.device = GetDevice(Context::CPU(0)).value();
  const Tensor og = MakeTensor(Shape{2, 3, 6}, Values(36, 1.0), DType::kFloat32);
  ctx.outputs = {MakeTensor(Shape{2, 3, 6}, Values(36, 0.0), DType::kFloat32)};
  ctx.req = {OpReq::kWrite};
  ctx.inputs = {og, MakeTensor(Shape{2, 3}, {0, 1, 2, 2, 1, 0}, DType::kFloat32)};
  EXPECT_TRUE(k->fn(ctx).ok());
  ctx.inputs = {og, MakeTensor(Shape{5}, {0, 1, 2, 2, 1}, DType::kFloat32)};
  const absl::Status s = k->fn(ctx);
  ASSERT_FALSE(s.ok());
  EXPECT_CONTAINS(std::string(s.message()), "nms_grad");
  EXPECT_CONTAINS(std::string(s.message()), "does not hold 3 rows per batch");
}

}  // namespace
}  // namespace testing

}  // namespace symx
