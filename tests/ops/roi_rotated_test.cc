// Tests of _contrib_RROIAlign (roi family, graph/ops/roi.cc): the forward
// against a plain loop written from MXNet 1.9.1's CPU kernel (float16,
// float32, float64) over rotated rois inside, across and outside the map,
// with a bad batch index; not differentiable (MXNet registers no gradient);
// errors for bad parameters and shapes.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "devices/tensor.h"
#include "graph/op.h"
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

struct RroiAttrs {
  int64_t ph = 2, pw = 2;
  double scale = 1;
  std::string scale_text = "1";
  int64_t ratio = -1;
};

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

std::vector<Values> RroiRef(const std::vector<Values>& in, const std::vector<Shape>& s,
                            const RroiAttrs& a) {
  const int64_t N = s[0][0], C = s[0][1], H = s[0][2], W = s[0][3], R = s[1][0];
  Values out(R * C * a.ph * a.pw, 0.0);
  for (int64_t r = 0; r < R; ++r) {
    const double* roi = &in[1][r * 6];
    const int64_t b = static_cast<int64_t>(roi[0]);
    if (b < 0 || b >= N) continue;
    const double cx = roi[1] * a.scale, cy = roi[2] * a.scale;
    const double w = std::max(roi[3] * a.scale, 1.0), h = std::max(roi[4] * a.scale, 1.0);
    const double t = roi[5] * M_PI / 180.0;
    const int64_t gh = a.ratio > 0 ? a.ratio : static_cast<int64_t>(std::ceil(h / a.ph));
    const int64_t gw = a.ratio > 0 ? a.ratio : static_cast<int64_t>(std::ceil(w / a.pw));
    for (int64_t c = 0; c < C; ++c) {
      const double* plane = &in[0][(b * C + c) * H * W];
      for (int64_t i = 0; i < a.ph; ++i) {
        for (int64_t j = 0; j < a.pw; ++j) {
          double sum = 0;
          for (int64_t iy = 0; iy < gh; ++iy) {
            for (int64_t ix = 0; ix < gw; ++ix) {
              const double yy = -h / 2 + i * h / a.ph + (iy + 0.5) * h / a.ph / gh;
              const double xx = -w / 2 + j * w / a.pw + (ix + 0.5) * w / a.pw / gw;
              sum += Bilinear(plane, H, W, yy * std::cos(t) - xx * std::sin(t) + cy,
                              xx * std::cos(t) + yy * std::sin(t) + cx);
            }
          }
          out[((r * C + c) * a.ph + i) * a.pw + j] = sum / static_cast<double>(gh * gw);
        }
      }
    }
  }
  return {out};
}

OpCase RroiCase(const Shape& data, const Values& rois, const RroiAttrs& a) {
  OpCase c;
  c.op = "_contrib_RROIAlign";
  c.name = "RROIAlign " + data.ToString() + " pooled (" + std::to_string(a.ph) + ", " +
           std::to_string(a.pw) + ") scale " + a.scale_text + " ratio " + std::to_string(a.ratio);
  c.attrs = {{"pooled_size", "(" + std::to_string(a.ph) + ", " + std::to_string(a.pw) + ")"},
             {"spatial_scale", a.scale_text},
             {"sampling_ratio", std::to_string(a.ratio)}};
  c.shapes = {data, Shape{static_cast<int64_t>(rois.size() / 6), 6}};
  c.dtypes = {DType::kFloat32, DType::kFloat64, DType::kFloat16};
  c.forward_tol32 = 1e-4;
  c.check_backward = false;
  c.init = [rois](int input, const Shape& s) {
    if (input == 1) return rois;
    std::mt19937_64 rng(41);
    std::uniform_real_distribution<double> u(-1, 1);
    Values v(testing::NumElements(s));
    for (double& x : v) x = u(rng);
    return v;
  };
  c.reference = [a](const std::vector<Values>& in, const std::vector<Shape>& s) {
    return RroiRef(in, s, a);
  };
  return c;
}

// [batch, cx, cy, w, h, degrees]: inside, rotated across the edge, tiny
// (forced to 1x1), far outside, and a bad batch index.
const Values kRois = {0, 3.3, 2.6, 4.2, 2.7, 30,  1, 1.2, 4.1, 5.5, 3.3, -65,
                      0, 5.6, 0.4, 3.1, 6.2, 135, 1, 2.2, 2.9, 0.4, 0.3, 10,
                      0, 30,  30,  4,   4,   45,  3, 2,   2,   2,   2,   0};

TEST(RoiRotatedConformance, RROIAlign) {
  RroiAttrs a;
  CheckOp(RroiCase(Shape{2, 3, 6, 7}, kRois, a));
  a.ratio = 2;
  a.ph = 3;
  CheckOp(RroiCase(Shape{2, 2, 6, 7}, kRois, a));
  a.scale = 0.5;
  a.scale_text = "0.5";
  a.ratio = -1;
  CheckOp(RroiCase(Shape{2, 2, 5, 6}, kRois, a));
  CheckOp(RroiCase(Shape{1, 2, 4, 4}, {}, a));
}

Tensor Zeros(const Shape& s) {
  return MakeTensor(s, Values(testing::NumElements(s), 0.0), DType::kFloat32);
}

// MXNet registers no gradient for it; here it is not differentiable, as the
// scatter family's ops without one.
TEST(RoiRotatedConformance, NotDifferentiable) {
  const Op* op = OpRegistry::Global().Find("_contrib_RROIAlign");
  ASSERT_NE(op, nullptr);
  EXPECT_TRUE(op->non_differentiable());
}

TEST(RoiRotatedErrors, ParametersAndShapes) {
  const Tensor x = Zeros(Shape{1, 2, 5, 5}), rois = Zeros(Shape{1, 6});
  const std::string op = "_contrib_RROIAlign";
  const AttrMap base = {{"pooled_size", "(2, 2)"}, {"spatial_scale", "1"}};
  EXPECT_NO_THROW(RunOp(op, base, {x, rois}));
  auto with = [&](const std::string& key, const std::string& value) {
    AttrMap a = base;
    a[key] = value;
    return ErrorOf([&] { RunOp(op, a, {x, rois}); });
  };
  std::string msg = with("pooled_size", "(2, 2, 2)");
  EXPECT_CONTAINS(msg, "pooled_size");
  msg = with("pooled_size", "(0, 2)");
  EXPECT_CONTAINS(msg, "pooled_size");
  msg = with("spatial_scale", "2");
  EXPECT_CONTAINS(msg, "spatial_scale");
  msg = ErrorOf([&] { RunOp(op, {{"spatial_scale", "1"}}, {x, rois}); });
  EXPECT_CONTAINS(msg, "pooled_size");
  msg = ErrorOf([&] { RunOp(op, base, {x, Zeros(Shape{1, 5})}); });
  EXPECT_CONTAINS(msg, "rois");
  EXPECT_CONTAINS(msg, "[1,5]");
  msg = ErrorOf([&] { RunOp(op, base, {Zeros(Shape{2, 5, 5}), rois}); });
  EXPECT_CONTAINS(msg, "[2,5,5]");
  const Tensor i = MakeTensor(Shape{1, 1, 3, 3}, Values(9, 0.0), DType::kInt32);
  const Tensor ir = MakeTensor(Shape{1, 6}, Values(6, 0.0), DType::kInt32);
  msg = ErrorOf([&] { RunOp(op, base, {i, ir}); });
  EXPECT_CONTAINS(msg, "_contrib_RROIAlign");
  EXPECT_CONTAINS(msg, "int32");
}

}  // namespace
}  // namespace symx
