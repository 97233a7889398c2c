// Conformance tests for the image family: _image_to_tensor, _image_normalize,
// the flips, _image_adjust_lighting and _image_crop against plain loops, with
// gradients by finite differences (normalize, flips, lighting, crop), uint8
// images, odd sizes, and bad parameters and shapes.
#include "graph/ops/image.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/ops/conformance.h"

namespace symx {
namespace testing {
namespace {

// (N, H, W, C) dims of a 3-D or 4-D image shape.
struct Nhwc {
  int64_t n, h, w, c;
};
Nhwc DimsOf(const Shape& s) {
  const int d = s.ndim();
  return {d == 4 ? s[0] : 1, s[d - 3], s[d - 2], s[d - 1]};
}

OpCase FlipCase(const std::string& op, const Shape& data) {
  OpCase c;
  c.op = op;
  c.name = op + " " + data.ToString();
  c.shapes = {data};
  const bool lr = op == "_image_flip_left_right";
  c.reference = [=](const std::vector<Values>& in, const std::vector<Shape>&) {
    const Nhwc d = DimsOf(data);
    Values y(in[0].size());
    for (int64_t b = 0; b < d.n; ++b)
      for (int64_t i = 0; i < d.h; ++i)
        for (int64_t j = 0; j < d.w; ++j)
          for (int64_t k = 0; k < d.c; ++k) {
            const int64_t si = lr ? i : d.h - 1 - i, sj = lr ? d.w - 1 - j : j;
            y[((b * d.h + i) * d.w + j) * d.c + k] = in[0][((b * d.h + si) * d.w + sj) * d.c + k];
          }
    return std::vector<Values>{y};
  };
  return c;
}

TEST(ImageConformance, Flips) {
  for (const char* op : {"_image_flip_left_right", "_image_flip_top_bottom"}) {
    // Odd sizes: the middle row/column is copied (MXNet leaves it unwritten).
    for (const Shape& s : {Shape{4, 5, 3}, Shape{3, 4, 1}, Shape{2, 3, 5, 3}, Shape{1, 1, 3}}) {
      CheckOp(FlipCase(op, s));
    }
  }
}

TEST(ImageConformance, ToTensor) {
  for (const Shape& s : {Shape{3, 4, 3}, Shape{2, 3, 2, 1}, Shape{0, 2, 3}}) {
    OpCase c;
    c.op = "_image_to_tensor";
    c.name = "to_tensor " + s.ToString();
    c.shapes = {s};
    c.check_backward = false;
    c.forward_tol64 = 1e-7;  // float32 output, as MXNet's
    c.reference = [=](const std::vector<Values>& in, const std::vector<Shape>&) {
      const Nhwc d = DimsOf(s);
      Values y(in[0].size());
      for (int64_t b = 0; b < d.n; ++b)
        for (int64_t i = 0; i < d.h * d.w; ++i)
          for (int64_t k = 0; k < d.c; ++k) {
            y[(b * d.c + k) * d.h * d.w + i] = in[0][(b * d.h * d.w + i) * d.c + k] / 255.0;
          }
      return std::vector<Values>{y};
    };
    CheckOp(c);
  }
  // uint8 images, the usual input: float32 in [0, 1].
  Tensor img = MakeTensor(Shape{1, 2, 3}, {0, 1, 2, 3, 4, 255}, DType::kUint8);
  std::vector<Tensor> out = RunOp("_image_to_tensor", {}, {img});
  EXPECT_EQ(out[0].dtype(), DType::kFloat32);
  EXPECT_EQ(out[0].shape(), (Shape{3, 1, 2}));
  EXPECT_FLOAT_EQ(static_cast<float>(out[0].ToDoubles()[5]), 1.0f);
  EXPECT_FLOAT_EQ(static_cast<float>(out[0].ToDoubles()[1]), 3.0f / 255.0f);
}

OpCase NormalizeCase(const Shape& s, std::vector<double> mean, std::vector<double> sd) {
  OpCase c;
  c.op = "_image_normalize";
  c.name = "normalize " + s.ToString();
  auto tuple = [](const std::vector<double>& v) {
    std::string t = "(";
    for (double x : v) t += std::to_string(x) + ",";
    return t + ")";
  };
  c.attrs = {{"mean", tuple(mean)}, {"std", tuple(sd)}};
  c.shapes = {s};
  c.reference = [=](const std::vector<Values>& in, const std::vector<Shape>&) {
    const int d = s.ndim();
    const int64_t ch = s[d - 3], hw = s[d - 2] * s[d - 1];
    Values y(in[0].size());
    for (size_t i = 0; i < y.size(); ++i) {
      const int64_t k = (static_cast<int64_t>(i) / hw) % ch;
      const double m = static_cast<float>(mean.size() == 1 ? mean[0] : mean[k]);
      const double v = static_cast<float>(sd.size() == 1 ? sd[0] : sd[k]);
      y[i] = (in[0][i] - m) / v;
    }
    return std::vector<Values>{y};
  };
  return c;
}

TEST(ImageConformance, Normalize) {
  CheckOp(NormalizeCase(Shape{3, 2, 4}, {0.485, 0.456, 0.406}, {0.229, 0.224, 0.225}));
  CheckOp(NormalizeCase(Shape{2, 3, 3, 2}, {0.5}, {0.25}));
  CheckOp(NormalizeCase(Shape{1, 4, 4}, {0.1}, {2.0}));
}

TEST(ImageConformance, AdjustLightingAndCrop) {
  OpCase l;
  l.op = "_image_adjust_lighting";
  l.name = "adjust_lighting";
  l.attrs = {{"alpha", "(0.1, 0.2, 0.3)"}};
  l.shapes = {Shape{2, 3, 3}};
  l.reference = [](const std::vector<Values>& in, const std::vector<Shape>&) {
    const float a[3] = {0.1f, 0.2f, 0.3f};
    float pca[3];
    LightingOffsets(a, pca);
    Values y(in[0].size());
    for (size_t i = 0; i < y.size(); ++i) y[i] = in[0][i] + pca[i % 3];
    return std::vector<Values>{y};
  };
  l.forward_tol64 = 1e-6;  // the offsets are float, as MXNet's
  CheckOp(l);
  // uint8 saturates to [0, 255].
  Tensor img = MakeTensor(Shape{1, 2, 3}, {0, 128, 255, 10, 200, 250}, DType::kUint8);
  std::vector<Tensor> out = RunOp("_image_adjust_lighting", {{"alpha", "(-1, 0, 0)"}}, {img});
  const Values got = out[0].ToDoubles();
  EXPECT_EQ(got[0], 31);  // 0 + 55.46 * 0.5675 = 31.47, truncated
  EXPECT_EQ(got[2], 255);

  for (const Shape& s : {Shape{5, 6, 3}, Shape{2, 4, 5, 1}}) {
    OpCase c;
    c.op = "_image_crop";
    c.name = "crop " + s.ToString();
    c.attrs = {{"x", "1"}, {"y", "2"}, {"width", "3"}, {"height", "2"}};
    c.shapes = {s};
    c.reference = [=](const std::vector<Values>& in, const std::vector<Shape>&) {
      const Nhwc d = DimsOf(s);
      Values y;
      for (int64_t b = 0; b < d.n; ++b)
        for (int64_t i = 2; i < 4; ++i)
          for (int64_t j = 1; j < 4; ++j)
            for (int64_t k = 0; k < d.c; ++k)
              y.push_back(in[0][((b * d.h + i) * d.w + j) * d.c + k]);
      return std::vector<Values>{y};
    };
    CheckOp(c);
  }
}

TEST(ImageConformance, Errors) {
  Tensor chw4 = MakeTensor(Shape{4, 2, 2}, Values(16, 1.0), DType::kFloat32);
  std::string msg = ErrorOf([&] {
    RunOp("_image_normalize", {{"mean", "(0,)"}, {"std", "(1,)"}}, {chw4}, "n");
  });
  EXPECT_CONTAINS(msg, "[4,2,2]");
  Tensor chw = MakeTensor(Shape{3, 2, 2}, Values(12, 1.0), DType::kFloat32);
  // MXNet's 4-value defaults fit no image: a call gives mean and std.
  msg = ErrorOf([&] { RunOp("_image_normalize", {}, {chw}, "n"); });
  EXPECT_CONTAINS(msg, "mean has 4 values");
  msg = ErrorOf([&] {
    RunOp("_image_normalize", {{"mean", "(0,)"}, {"std", "(0,)"}}, {chw}, "n");
  });
  EXPECT_CONTAINS(msg, "std");
  Tensor hwc = MakeTensor(Shape{4, 4, 3}, Values(48, 1.0), DType::kFloat32);
  msg = ErrorOf([&] {
    RunOp("_image_crop", {{"x", "2"}, {"y", "0"}, {"width", "3"}, {"height", "2"}}, {hwc}, "c");
  });
  EXPECT_CONTAINS(msg, "x + width = 5");
  EXPECT_CONTAINS(msg, "[4,4,3]");
  msg = ErrorOf([&] {
    RunOp("_image_crop", {{"x", "0"}, {"y", "0"}, {"width", "0"}, {"height", "2"}}, {hwc}, "c");
  });
  EXPECT_CONTAINS(msg, "width");
  msg = ErrorOf([&] { RunOp("_image_adjust_lighting", {{"alpha", "(1, 2)"}}, {hwc}, "l"); });
  EXPECT_CONTAINS(msg, "alpha");
  Tensor hw2 = MakeTensor(Shape{4, 4, 2}, Values(32, 1.0), DType::kFloat32);
  msg = ErrorOf([&] { RunOp("_image_flip_left_right", {}, {hw2}, "f"); });
  EXPECT_CONTAINS(msg, "[4,4,2]");
  Tensor flat = MakeTensor(Shape{4, 3}, Values(12, 1.0), DType::kFloat32);
  msg = ErrorOf([&] { RunOp("_image_to_tensor", {}, {flat}, "t"); });
  EXPECT_CONTAINS(msg, "[4,3]");
  Tensor b = MakeTensor(Shape{2, 2, 3}, Values(12, 1.0), DType::kBool);
  msg = ErrorOf([&] { RunOp("_image_flip_top_bottom", {}, {b}, "f"); });
  EXPECT_CONTAINS(msg, "bool");
}

}  // namespace
}  // namespace testing
}  // namespace symx
