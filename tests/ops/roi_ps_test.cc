// Conformance tests for the position-sensitive region ops of the roi family:
// _contrib_PSROIPooling and _contrib_DeformablePSROIPooling. References are
// plain loops written from MXNet 1.9.1's behaviour (see graph/ops/roi.cc);
// gradients against central finite differences in float64 (the outputs are
// linear in the data; trans moves samples, so cases checking its gradient
// keep every sample inside the map, off MXNet's clamped margins, where its
// trans gradient is not the forward's derivative). Errors name the key,
// value and shapes.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "devices/tensor.h"
#include "graph/shape.h"
#include "gtest/gtest.h"
#include "tests/executor/executor_test_util.h"
#include "tests/expect_contains.h"
#include "tests/ops/conformance.h"

namespace symx {
namespace {

using testing::CheckOp;
using testing::ErrorOf;
using testing::MakeTensor;
using testing::OpCase;
using testing::RunOp;
using testing::Values;

const std::vector<DType> kWithHalf = {DType::kFloat32, DType::kFloat64, DType::kFloat16};

Values Uniform(const Shape& s, uint64_t seed, double lo, double hi) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  Values v(testing::NumElements(s));
  for (double& x : v) x = u(rng);
  return v;
}

struct PsAttrs {
  int64_t output_dim = 2, pooled = 2, group = 0;  // group 0: pooled
  double scale = 1;
  std::string scale_text = "1";
  // Deformable only.
  int64_t part = 0, per_part = 1;
  double trans_std = 0;
  bool no_trans = false;
  int64_t group_or_pooled() const { return group > 0 ? group : pooled; }
  int64_t part_or_pooled() const { return part > 0 ? part : pooled; }
};

struct Rect {
  double x0, y0, w, h;
};
Rect RoiRect(const double* roi, double scale, double shift) {
  Rect r;
  r.x0 = std::round(roi[1]) * scale - shift;
  r.y0 = std::round(roi[2]) * scale - shift;
  r.w = std::max((std::round(roi[3]) + 1) * scale - shift - r.x0, 0.1);
  r.h = std::max((std::round(roi[4]) + 1) * scale - shift - r.y0, 0.1);
  return r;
}

int64_t Channel(const PsAttrs& a, int64_t ct, int64_t i, int64_t j) {
  const int64_t g = a.group_or_pooled();
  const int64_t gh = std::min(i * g / a.pooled, g - 1), gw = std::min(j * g / a.pooled, g - 1);
  return (ct * g + gh) * g + gw;
}

std::vector<Values> PSROIRef(const std::vector<Values>& in, const std::vector<Shape>& s,
                             const PsAttrs& a) {
  const int64_t N = s[0][0], C = s[0][1], H = s[0][2], W = s[0][3], R = s[1][0];
  const int64_t P = a.pooled, D = a.output_dim;
  Values out(R * D * P * P, 0.0);
  for (int64_t r = 0; r < R; ++r) {
    const double* roi = &in[1][r * 5];
    const int64_t b = static_cast<int64_t>(roi[0]);
    if (b < 0 || b >= N) continue;
    const Rect rect = RoiRect(roi, a.scale, 0);
    for (int64_t ct = 0; ct < D; ++ct) {
      for (int64_t i = 0; i < P; ++i) {
        for (int64_t j = 0; j < P; ++j) {
          auto clip = [](double v, int64_t hi) {
            return std::clamp<int64_t>(static_cast<int64_t>(v), 0, hi);
          };
          const int64_t h0 = clip(std::floor(i * rect.h / P + rect.y0), H);
          const int64_t h1 = clip(std::ceil((i + 1) * rect.h / P + rect.y0), H);
          const int64_t w0 = clip(std::floor(j * rect.w / P + rect.x0), W);
          const int64_t w1 = clip(std::ceil((j + 1) * rect.w / P + rect.x0), W);
          if (h1 <= h0 || w1 <= w0) continue;
          const double* plane = &in[0][(b * C + Channel(a, ct, i, j)) * H * W];
          double sum = 0;
          for (int64_t h = h0; h < h1; ++h) {
            for (int64_t w = w0; w < w1; ++w) sum += plane[h * W + w];
          }
          out[((r * D + ct) * P + i) * P + j] = sum / ((h1 - h0) * (w1 - w0));
        }
      }
    }
  }
  return {out};
}

std::string PsName(const std::string& op, const Shape& data, const PsAttrs& a) {
  return op + " " + data.ToString() + " output_dim " + std::to_string(a.output_dim) + " pooled " +
         std::to_string(a.pooled) + " group " + std::to_string(a.group) + " scale " + a.scale_text;
}

OpCase PSROICase(const Shape& data, const Values& rois, const PsAttrs& a) {
  OpCase c;
  c.op = "_contrib_PSROIPooling";
  c.name = PsName(c.op, data, a);
  c.attrs = {{"spatial_scale", a.scale_text},
             {"output_dim", std::to_string(a.output_dim)},
             {"pooled_size", std::to_string(a.pooled)},
             {"group_size", std::to_string(a.group)}};
  c.shapes = {data, Shape{static_cast<int64_t>(rois.size() / 5), 5}};
  c.dtypes = kWithHalf;
  c.no_grad = {1};
  c.init = [rois](int input, const Shape& s) { return input == 0 ? Uniform(s, 3, -1, 1) : rois; };
  c.reference = [a](const std::vector<Values>& in, const std::vector<Shape>& s) {
    return PSROIRef(in, s, a);
  };
  return c;
}

// Inside, overlapping the edges, outside, degenerate and inverted rois, and
// batch indices out of range.
const Values kRois = {0,   0, 0,   3,   3,   1,   1.2, 0.7, 5.3, 4.2, 0, -2.2, -1.8, 1.2,
                      2.4, 1, 4.2, 3.8, 9.3, 8.4, 0,   2,   2,   2,   2, 1,    4,    4,
                      1,   1, 2,   0,   0,   2,   2,   -1,  0,   0,   2, 2};

TEST(RoiPsConformance, PSROIPooling) {
  PsAttrs a;
  CheckOp(PSROICase(Shape{2, 8, 6, 7}, kRois, a));
  a.pooled = 3;
  a.output_dim = 1;
  CheckOp(PSROICase(Shape{2, 9, 6, 7}, kRois, a));
  a.pooled = 3;
  a.group = 2;
  a.output_dim = 2;
  CheckOp(PSROICase(Shape{2, 10, 6, 7}, kRois, a));  // more channels than read
  a.group = 0;
  a.pooled = 2;
  a.scale = 0.5;
  a.scale_text = "0.5";
  const Values big = {0, 2.2, 3.4, 10.2, 8.6, 1, 0.6, 0.2, 12.6, 11.4, 0, 6.2, 2.2, 7.0, 12.2};
  CheckOp(PSROICase(Shape{2, 8, 6, 7}, big, a));
  CheckOp(PSROICase(Shape{1, 8, 4, 4}, {}, a));
}

// ------------------------------------------------------------------ Deformable

std::vector<Values> DeformablePSROIRef(const std::vector<Values>& in, const std::vector<Shape>& s,
                                       const PsAttrs& a) {
  const int64_t N = s[0][0], C = s[0][1], H = s[0][2], W = s[0][3], R = s[1][0];
  const int64_t P = a.pooled, D = a.output_dim, part = a.part_or_pooled();
  const bool has_trans = !a.no_trans;
  const int64_t classes = has_trans ? s[2][1] / 2 : 1;
  Values out(R * D * P * P, 0.0), count(R * D * P * P, 0.0);
  for (int64_t r = 0; r < R; ++r) {
    const double* roi = &in[1][r * 5];
    const int64_t b = static_cast<int64_t>(roi[0]);
    if (b < 0 || b >= N) continue;
    const Rect rect = RoiRect(roi, a.scale, 0.5);
    for (int64_t ct = 0; ct < D; ++ct) {
      for (int64_t i = 0; i < P; ++i) {
        for (int64_t j = 0; j < P; ++j) {
          double tx = 0, ty = 0;
          if (has_trans) {
            const int64_t ph = static_cast<int64_t>(std::floor(static_cast<double>(i) / P * part));
            const int64_t pw = static_cast<int64_t>(std::floor(static_cast<double>(j) / P * part));
            const int64_t cls = ct / (D / classes);
            tx = in[2][(((r * classes + cls) * 2) * part + ph) * part + pw] *
                 static_cast<double>(static_cast<float>(a.trans_std));
            ty = in[2][(((r * classes + cls) * 2 + 1) * part + ph) * part + pw] *
                 static_cast<double>(static_cast<float>(a.trans_std));
          }
          const double* plane = &in[0][(b * C + Channel(a, ct, i, j)) * H * W];
          double sum = 0;
          int64_t used = 0;
          for (int64_t ih = 0; ih < a.per_part; ++ih) {
            for (int64_t iw = 0; iw < a.per_part; ++iw) {
              double x = j * rect.w / P + rect.x0 + tx * rect.w + iw * rect.w / P / a.per_part;
              double y = i * rect.h / P + rect.y0 + ty * rect.h + ih * rect.h / P / a.per_part;
              if (x < -0.5 || x > W - 0.5 || y < -0.5 || y > H - 0.5) continue;
              x = std::clamp(x, 0.0, W - 1.0);
              y = std::clamp(y, 0.0, H - 1.0);
              const int64_t x0 = static_cast<int64_t>(std::floor(x)), x1 = std::ceil(x);
              const int64_t y0 = static_cast<int64_t>(std::floor(y)), y1 = std::ceil(y);
              const double lx = x - x0, ly = y - y0;
              sum += (1 - lx) * (1 - ly) * plane[y0 * W + x0] + (1 - lx) * ly * plane[y1 * W + x0] +
                     lx * (1 - ly) * plane[y0 * W + x1] + lx * ly * plane[y1 * W + x1];
              ++used;
            }
          }
          const int64_t at = ((r * D + ct) * P + i) * P + j;
          out[at] = used ? sum / used : 0.0;
          count[at] = static_cast<double>(used);
        }
      }
    }
  }
  return {out};
}

OpCase DeformablePSROICase(const Shape& data, const Values& rois, const PsAttrs& a, int64_t classes,
                           bool trans_grad) {
  OpCase c;
  c.op = "_contrib_DeformablePSROIPooling";
  c.name = PsName(c.op, data, a) + " part " + std::to_string(a.part) + " per_part " +
           std::to_string(a.per_part) + " trans_std " + std::to_string(a.trans_std) +
           (a.no_trans ? " no_trans" : "");
  c.attrs = {{"spatial_scale", a.scale_text},
             {"output_dim", std::to_string(a.output_dim)},
             {"pooled_size", std::to_string(a.pooled)},
             {"group_size", std::to_string(a.group_or_pooled())},
             {"part_size", std::to_string(a.part)},
             {"sample_per_part", std::to_string(a.per_part)},
             {"trans_std", std::to_string(a.trans_std)},
             {"no_trans", a.no_trans ? "True" : "False"}};
  const int64_t R = static_cast<int64_t>(rois.size() / 5);
  c.shapes = {data, Shape{R, 5}};
  if (!a.no_trans)
    c.shapes.push_back(Shape{R, 2 * classes, a.part_or_pooled(), a.part_or_pooled()});
  c.dtypes = kWithHalf;
  c.forward_tol32 = 1e-4;
  c.no_grad = {1};
  if (!trans_grad && !a.no_trans) c.no_grad.push_back(2);
  c.init = [rois](int input, const Shape& s) {
    if (input == 1) return rois;
    return Uniform(s, 5 + input, -1, 1);
  };
  c.reference = [a](const std::vector<Values>& in, const std::vector<Shape>& s) {
    return DeformablePSROIRef(in, s, a);
  };
  return c;
}

TEST(RoiPsConformance, DeformablePSROIPooling) {
  // Rois well inside a 9x10 map: with trans_std 0.1 every sample stays in
  // [0, W - 1] x [0, H - 1], so trans's gradient is the forward's derivative.
  const Values inside = {0, 2, 2, 5, 5, 1, 3, 2, 6, 6, 0, 2.6, 3.2, 6.4, 5.7, 1, 3, 3, 3.2, 3.1};
  PsAttrs a;
  a.trans_std = 0.1;
  a.per_part = 2;
  CheckOp(DeformablePSROICase(Shape{2, 8, 9, 10}, inside, a, 1, true));
  a.pooled = 3;
  a.group = 3;
  a.part = 2;
  a.per_part = 3;
  a.output_dim = 2;
  CheckOp(DeformablePSROICase(Shape{2, 18, 9, 10}, inside, a, 2, true));  // a class per channel
  // Anywhere (the edges, outside, bad batch indices): trans large, its
  // gradient left to the golden cases (MXNet's formula in the margins).
  PsAttrs far = a;
  far.trans_std = 0.9;
  far.group = 2;
  far.scale = 0.5;
  far.scale_text = "0.5";
  CheckOp(DeformablePSROICase(Shape{2, 9, 6, 7}, kRois, far, 1, false));
  PsAttrs none;
  none.no_trans = true;
  none.per_part = 4;
  CheckOp(DeformablePSROICase(Shape{2, 8, 6, 7}, kRois, none, 1, false));
}

Tensor Zeros(const Shape& s) {
  return MakeTensor(s, Values(testing::NumElements(s), 0.0), DType::kFloat32);
}

TEST(RoiPsErrors, Parameters) {
  const Tensor x = Zeros(Shape{1, 8, 5, 5}), rois = Zeros(Shape{1, 5});
  const AttrMap base = {{"spatial_scale", "1"}, {"output_dim", "2"}, {"pooled_size", "2"}};
  EXPECT_NO_THROW(RunOp("_contrib_PSROIPooling", base, {x, rois}));
  auto with = [&](const std::string& op, AttrMap a, const std::string& key,
                  const std::string& value, const std::vector<Tensor>& in) {
    a[key] = value;
    return ErrorOf([&] { RunOp(op, a, in); });
  };
  const std::string ps = "_contrib_PSROIPooling";
  std::string msg = with(ps, base, "spatial_scale", "1.5", {x, rois});
  EXPECT_CONTAINS(msg, "spatial_scale");
  EXPECT_CONTAINS(msg, "1.5");
  msg = with(ps, base, "output_dim", "0", {x, rois});
  EXPECT_CONTAINS(msg, "output_dim");
  msg = with(ps, base, "pooled_size", "-2", {x, rois});
  EXPECT_CONTAINS(msg, "pooled_size");
  EXPECT_CONTAINS(msg, "-2");
  msg = with(ps, base, "group_size", "-1", {x, rois});
  EXPECT_CONTAINS(msg, "group_size");
  msg = ErrorOf([&] { RunOp(ps, {{"spatial_scale", "1"}, {"pooled_size", "2"}}, {x, rois}); });
  EXPECT_CONTAINS(msg, "output_dim");
  const std::string dps = "_contrib_DeformablePSROIPooling";
  AttrMap dbase = base;
  dbase["group_size"] = "2";
  dbase["no_trans"] = "1";
  EXPECT_NO_THROW(RunOp(dps, dbase, {x, rois}));
  msg = with(dps, dbase, "trans_std", "2", {x, rois});
  EXPECT_CONTAINS(msg, "trans_std");
  msg = with(dps, dbase, "sample_per_part", "0", {x, rois});
  EXPECT_CONTAINS(msg, "sample_per_part");
  msg = with(dps, dbase, "part_size", "-3", {x, rois});
  EXPECT_CONTAINS(msg, "part_size");
  dbase.erase("group_size");
  msg = ErrorOf([&] { RunOp(dps, dbase, {x, rois}); });
  EXPECT_CONTAINS(msg, "group_size");
}

TEST(RoiPsErrors, Shapes) {
  const AttrMap attrs = {{"spatial_scale", "1"}, {"output_dim", "2"}, {"pooled_size", "2"}};
  const std::string ps = "_contrib_PSROIPooling";
  std::string msg = ErrorOf([&] {
    RunOp(ps, attrs, {Zeros(Shape{1, 7, 5, 5}), Zeros(Shape{1, 5})});
  });
  EXPECT_CONTAINS(msg, "[1,7,5,5]");
  EXPECT_CONTAINS(msg, "output_dim * group_size^2 = 8");
  msg = ErrorOf([&] { RunOp(ps, attrs, {Zeros(Shape{1, 8, 5, 5}), Zeros(Shape{1, 4})}); });
  EXPECT_CONTAINS(msg, "rois");
  EXPECT_CONTAINS(msg, "[1,4]");
  msg = ErrorOf([&] { RunOp(ps, attrs, {Zeros(Shape{8, 5, 5}), Zeros(Shape{1, 5})}); });
  EXPECT_CONTAINS(msg, "[8,5,5]");
  const std::string dps = "_contrib_DeformablePSROIPooling";
  AttrMap d = attrs;
  d["group_size"] = "2";
  d["trans_std"] = "0.1";
  const Tensor x = Zeros(Shape{1, 8, 5, 5}), rois = Zeros(Shape{2, 5});
  msg = ErrorOf([&] { RunOp(dps, d, {x, rois, Zeros(Shape{2, 3, 2, 2})}); });
  EXPECT_CONTAINS(msg, "trans");
  EXPECT_CONTAINS(msg, "[2,3,2,2]");
  msg = ErrorOf([&] { RunOp(dps, d, {x, rois, Zeros(Shape{2, 2, 3, 3})}); });
  EXPECT_CONTAINS(msg, "part_size = 2");
  msg = ErrorOf([&] { RunOp(dps, d, {x, rois, Zeros(Shape{1, 2, 2, 2})}); });
  EXPECT_CONTAINS(msg, "[1,2,2,2]");
  EXPECT_CONTAINS(msg, "2 rois");
  msg = ErrorOf([&] { RunOp(dps, d, {x, rois, Zeros(Shape{2, 6, 2, 2})}); });
  EXPECT_CONTAINS(msg, "classes dividing output_dim = 2");
}

TEST(RoiPsErrors, DTypes) {
  const Tensor x = MakeTensor(Shape{1, 4, 3, 3}, Values(36, 0.0), DType::kInt32);
  const Tensor rois = MakeTensor(Shape{1, 5}, Values(5, 0.0), DType::kInt32);
  const std::string msg = ErrorOf([&] {
    RunOp("_contrib_PSROIPooling",
          {{"spatial_scale", "1"}, {"output_dim", "1"}, {"pooled_size", "2"}}, {x, rois});
  });
  EXPECT_CONTAINS(msg, "_contrib_PSROIPooling");
  EXPECT_CONTAINS(msg, "int32");
}

}  // namespace
}  // namespace symx
