// Tests of the deformable family (graph/ops/deformable.cc):
// _contrib_DeformableConvolution and _contrib_ModulatedDeformableConvolution.
//
// Conformance: the forward against plain loops written from MXNet 1.9.1's
// sampling rules (float16, float32, float64), with offsets that move samples
// between pixels, into the last row and column and outside the image; every
// gradient (data, offset, mask, weight, bias) against central finite
// differences in float64, with offsets away from integers so that no sample
// sits on a kink. Errors: bad parameters and mismatched shapes, named.
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "devices/tensor.h"
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

struct DeformSpec {
  bool modulated = false;
  int64_t n = 2, c = 4, h = 5, w = 6;
  int64_t kh = 3, kw = 3, sh = 1, sw = 1, dh = 1, dw = 1, ph = 1, pw = 1;
  int64_t filters = 4, groups = 1, deformable_groups = 1;
  bool no_bias = false;
  double offset_scale = 1.5;  // offsets uniform in +-offset_scale, never near integers
};

int64_t OutSize(int64_t x, int64_t k, int64_t s, int64_t d, int64_t p) {
  return (x + 2 * p - (d * (k - 1) + 1)) / s + 1;
}

// MXNet's sample of one plane at (y, x): _contrib_DeformableConvolution reads
// inside [0, H) x [0, W) and clamps the far corner in the last row/column;
// the modulated op reads inside (-1, H) x (-1, W) with zeros beyond the edge.
double Sample(const double* plane, int64_t H, int64_t W, double y, double x, bool modulated) {
  if (!modulated) {
    if (y < 0 || x < 0 || y >= H || x >= W) return 0;
    int64_t y0 = static_cast<int64_t>(std::floor(y)), x0 = static_cast<int64_t>(std::floor(x));
    int64_t y1 = y0 + 1, x1 = x0 + 1;
    if (y0 >= H - 1) y = static_cast<double>(y1 = y0 = H - 1);
    if (x0 >= W - 1) x = static_cast<double>(x1 = x0 = W - 1);
    const double ly = y - y0, lx = x - x0;
    return (1 - ly) * (1 - lx) * plane[y0 * W + x0] + (1 - ly) * lx * plane[y0 * W + x1] +
           ly * (1 - lx) * plane[y1 * W + x0] + ly * lx * plane[y1 * W + x1];
  }
  if (y <= -1 || x <= -1 || y >= H || x >= W) return 0;
  const int64_t y0 = static_cast<int64_t>(std::floor(y)), x0 = static_cast<int64_t>(std::floor(x));
  const double ly = y - y0, lx = x - x0;
  auto at = [&](int64_t r, int64_t q) {
    return r < 0 || q < 0 || r >= H || q >= W ? 0.0 : plane[r * W + q];
  };
  return (1 - ly) * (1 - lx) * at(y0, x0) + (1 - ly) * lx * at(y0, x0 + 1) +
         ly * (1 - lx) * at(y0 + 1, x0) + ly * lx * at(y0 + 1, x0 + 1);
}

std::vector<Values> DeformRef(const std::vector<Values>& in, const DeformSpec& s) {
  const int64_t Ho = OutSize(s.h, s.kh, s.sh, s.dh, s.ph);
  const int64_t Wo = OutSize(s.w, s.kw, s.sw, s.dw, s.pw);
  const int64_t K = s.kh * s.kw, cg = s.c / s.groups, fg = s.filters / s.groups;
  const int64_t per_dg = s.c / s.deformable_groups;
  const Values& x = in[0];
  const Values& off = in[1];
  const Values* mask = s.modulated ? &in[2] : nullptr;
  const Values& wt = in[s.modulated ? 3 : 2];
  const Values* bias = s.no_bias ? nullptr : &in[s.modulated ? 4 : 3];
  Values out(s.n * s.filters * Ho * Wo, 0.0);
  for (int64_t n = 0; n < s.n; ++n) {
    for (int64_t f = 0; f < s.filters; ++f) {
      const int64_t grp = f / fg;
      for (int64_t oy = 0; oy < Ho; ++oy) {
        for (int64_t ox = 0; ox < Wo; ++ox) {
          double sum = bias ? (*bias)[f] : 0.0;
          for (int64_t ci = 0; ci < cg; ++ci) {
            const int64_t c = grp * cg + ci, d = c / per_dg;
            for (int64_t i = 0; i < s.kh; ++i) {
              for (int64_t j = 0; j < s.kw; ++j) {
                const int64_t k = i * s.kw + j;
                auto off_at = [&](int64_t ch) {
                  return off[(((n * s.deformable_groups + d) * 2 * K + ch) * Ho + oy) * Wo + ox];
                };
                const double y = oy * s.sh - s.ph + i * s.dh + off_at(2 * k);
                const double xx = ox * s.sw - s.pw + j * s.dw + off_at(2 * k + 1);
                double v = Sample(&x[(n * s.c + c) * s.h * s.w], s.h, s.w, y, xx, s.modulated);
                if (mask)
                  v *= (*mask)[(((n * s.deformable_groups + d) * K + k) * Ho + oy) * Wo + ox];
                sum += wt[((f * cg + ci) * s.kh + i) * s.kw + j] * v;
              }
            }
          }
          out[((n * s.filters + f) * Ho + oy) * Wo + ox] = sum;
        }
      }
    }
  }
  return {out};
}

std::string Pair(int64_t a, int64_t b) {
  return "(" + std::to_string(a) + ", " + std::to_string(b) + ")";
}

OpCase DeformCase(const DeformSpec& s) {
  OpCase c;
  c.op = s.modulated ? "_contrib_ModulatedDeformableConvolution" : "_contrib_DeformableConvolution";
  c.name = c.op + " data " + Shape{s.n, s.c, s.h, s.w}.ToString() + " kernel " + Pair(s.kh, s.kw) +
           " stride " + Pair(s.sh, s.sw) + " dilate " + Pair(s.dh, s.dw) + " pad " +
           Pair(s.ph, s.pw) + " groups " + std::to_string(s.groups) + "/" +
           std::to_string(s.deformable_groups);
  c.attrs = {{"kernel", Pair(s.kh, s.kw)},
             {"stride", Pair(s.sh, s.sw)},
             {"dilate", Pair(s.dh, s.dw)},
             {"pad", Pair(s.ph, s.pw)},
             {"num_filter", std::to_string(s.filters)},
             {"num_group", std::to_string(s.groups)},
             {"num_deformable_group", std::to_string(s.deformable_groups)},
             {"no_bias", s.no_bias ? "True" : "False"}};
  const int64_t Ho = OutSize(s.h, s.kh, s.sh, s.dh, s.ph);
  const int64_t Wo = OutSize(s.w, s.kw, s.sw, s.dw, s.pw);
  const int64_t K = s.kh * s.kw;
  c.shapes = {Shape{s.n, s.c, s.h, s.w}, Shape{s.n, 2 * K * s.deformable_groups, Ho, Wo}};
  if (s.modulated) c.shapes.push_back(Shape{s.n, K * s.deformable_groups, Ho, Wo});
  c.shapes.push_back(Shape{s.filters, s.c / s.groups, s.kh, s.kw});
  if (!s.no_bias) c.shapes.push_back(Shape{s.filters});
  c.dtypes = {DType::kFloat32, DType::kFloat64, DType::kFloat16};
  c.forward_tol32 = 1e-4;
  c.grad_tol = 1e-5;
  c.init = [s](int input, const Shape& shape) {
    std::mt19937_64 rng(17 + input);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    Values v(testing::NumElements(shape));
    for (double& e : v) {
      e = u(rng);
      if (input == 1) {
        // Fractions in [0.15, 0.85]: no sample within 0.15 of a grid line.
        const double whole = std::floor(e * s.offset_scale);
        e = whole + 0.15 + 0.7 * (0.5 + 0.5 * u(rng));
      } else if (input == 2 && s.modulated) {
        e = 0.5 + 0.5 * e;
      }
    }
    return v;
  };
  c.reference = [s](const std::vector<Values>& in, const std::vector<Shape>&) {
    return DeformRef(in, s);
  };
  return c;
}

// The cases both ops run: the defaults; no bias with offsets far outside the
// image; groups and deformable groups with stride, dilation and padding that
// differ by axis.
void CheckCommonCases(bool modulated) {
  DeformSpec s;
  s.modulated = modulated;
  CheckOp(DeformCase(s));
  s.no_bias = true;
  s.offset_scale = 3.5;  // far outside the image
  CheckOp(DeformCase(s));
  s.no_bias = false;
  s.groups = 2;
  s.deformable_groups = 2;
  s.sh = 2;
  s.dw = 2;
  s.pw = 2;
  s.filters = 6;
  CheckOp(DeformCase(s));
}

// A 2x3 kernel, no vertical pad, horizontal stride 2, three channels.
DeformSpec RectSpec(bool modulated) {
  DeformSpec rect;
  rect.modulated = modulated;
  rect.kh = 2;
  rect.kw = 3;
  rect.ph = 0;
  rect.sw = 2;
  rect.c = 3;
  rect.filters = 2;
  return rect;
}

TEST(DeformableConformance, DeformableConvolution) {
  CheckCommonCases(false);
  DeformSpec one;  // 1x1 kernel, no pad, 4 deformable groups of one channel
  one.kh = one.kw = 1;
  one.ph = one.pw = 0;
  one.deformable_groups = 4;
  one.n = 1;
  CheckOp(DeformCase(one));
  CheckOp(DeformCase(RectSpec(false)));
}

TEST(DeformableConformance, ModulatedDeformableConvolution) {
  CheckCommonCases(true);
  DeformSpec rect = RectSpec(true);
  rect.filters = 3;
  rect.deformable_groups = 3;
  CheckOp(DeformCase(rect));
}

Tensor Zeros(const Shape& s) {
  return MakeTensor(s, Values(testing::NumElements(s), 0.0), DType::kFloat32);
}

TEST(DeformableErrors, Parameters) {
  const Tensor x = Zeros(Shape{1, 4, 5, 5}), off = Zeros(Shape{1, 18, 5, 5});
  const Tensor w = Zeros(Shape{4, 4, 3, 3}), b = Zeros(Shape{4});
  const std::string op = "_contrib_DeformableConvolution";
  AttrMap base = {{"kernel", "(3, 3)"}, {"pad", "(1, 1)"}, {"num_filter", "4"}};
  EXPECT_NO_THROW(RunOp(op, base, {x, off, w, b}));
  auto with = [&](const std::string& key, const std::string& value) {
    AttrMap a = base;
    a[key] = value;
    return ErrorOf([&] { RunOp(op, a, {x, off, w, b}); });
  };
  std::string msg = with("kernel", "(3, 3, 3)");
  EXPECT_CONTAINS(msg, "kernel");
  EXPECT_CONTAINS(msg, "(3, 3, 3)");
  msg = with("stride", "(0, 1)");
  EXPECT_CONTAINS(msg, "stride");
  msg = with("num_filter", "0");
  EXPECT_CONTAINS(msg, "num_filter");
  msg = with("num_group", "3");
  EXPECT_CONTAINS(msg, "num_group");
  EXPECT_CONTAINS(msg, "3");
  msg = with("num_deformable_group", "0");
  EXPECT_CONTAINS(msg, "num_deformable_group");
  msg = with("layout", "NHWC");
  EXPECT_CONTAINS(msg, "layout");
  msg = with("workspace", "-1");
  EXPECT_CONTAINS(msg, "workspace");
  msg = ErrorOf([&] { RunOp(op, {{"pad", "(1, 1)"}, {"num_filter", "4"}}, {x, off, w, b}); });
  EXPECT_CONTAINS(msg, "kernel");
  msg = ErrorOf([&] {
    RunOp("_contrib_ModulatedDeformableConvolution",
          {{"kernel", "(3, 3)"}, {"num_filter", "4"}, {"im2col_step", "0"}}, {x, off, w, b});
  });
  EXPECT_CONTAINS(msg, "im2col_step");
  msg = ErrorOf([&] {
    RunOp("_contrib_ModulatedDeformableConvolution",
          {{"kernel", "(3, 3)"}, {"num_filter", "3"}, {"num_deformable_group", "2"}},
          {x, off, w, b});
  });
  EXPECT_CONTAINS(msg, "num_deformable_group");
}

TEST(DeformableErrors, Shapes) {
  const std::string op = "_contrib_DeformableConvolution";
  const AttrMap attrs = {
      {"kernel", "(3, 3)"}, {"pad", "(1, 1)"}, {"num_filter", "4"}, {"no_bias", "1"}};
  const Tensor x = Zeros(Shape{1, 4, 5, 5}), w = Zeros(Shape{4, 4, 3, 3});
  // Offset channels must be 2 * taps * num_deformable_group.
  std::string msg = ErrorOf([&] { RunOp(op, attrs, {x, Zeros(Shape{1, 9, 5, 5}), w}); });
  EXPECT_CONTAINS(msg, "offset");
  EXPECT_CONTAINS(msg, "[1,9,5,5]");
  // Offset maps the output's size.
  msg = ErrorOf([&] { RunOp(op, attrs, {x, Zeros(Shape{1, 18, 4, 5}), w}); });
  EXPECT_CONTAINS(msg, "[1,18,4,5]");
  msg = ErrorOf([&] { RunOp(op, attrs, {Zeros(Shape{4, 5, 5}), Zeros(Shape{1, 18, 5, 5}), w}); });
  EXPECT_CONTAINS(msg, "data");
  EXPECT_CONTAINS(msg, "[4,5,5]");
  msg = ErrorOf([&] {
    RunOp(op, attrs, {x, Zeros(Shape{1, 18, 5, 5}), Zeros(Shape{4, 2, 3, 3})});
  });
  EXPECT_CONTAINS(msg, "weight");
  // Channels not divisible by the deformable groups.
  AttrMap dg = attrs;
  dg["num_deformable_group"] = "3";
  msg = ErrorOf([&] { RunOp(op, dg, {x, Zeros(Shape{1, 54, 5, 5}), w}); });
  EXPECT_CONTAINS(msg, "num_deformable_group = 3");
  EXPECT_CONTAINS(msg, "[1,4,5,5]");
  // A kernel larger than the padded input.
  AttrMap big = attrs;
  big["kernel"] = "(7, 7)";
  big["pad"] = "(0, 0)";
  msg = ErrorOf([&] { RunOp(op, big, {x, Zeros(Shape{1, 98, 1, 1}), Zeros(Shape{4, 4, 7, 7})}); });
  EXPECT_CONTAINS(msg, "exceeds input size 5");
  // The modulated op's mask and its im2col_step rule.
  const std::string mop = "_contrib_ModulatedDeformableConvolution";
  msg = ErrorOf([&] {
    RunOp(mop, attrs, {x, Zeros(Shape{1, 18, 5, 5}), Zeros(Shape{1, 18, 5, 5}), w});
  });
  EXPECT_CONTAINS(msg, "mask");
  EXPECT_CONTAINS(msg, "[1,18,5,5]");
  AttrMap step = attrs;
  step["im2col_step"] = "2";
  const Tensor x3 = Zeros(Shape{3, 4, 5, 5});
  msg = ErrorOf([&] {
    RunOp(mop, step, {x3, Zeros(Shape{3, 18, 5, 5}), Zeros(Shape{3, 9, 5, 5}), w});
  });
  EXPECT_CONTAINS(msg, "im2col_step = 2");
}

TEST(DeformableErrors, DTypes) {
  const Tensor x = MakeTensor(Shape{1, 1, 3, 3}, Values(9, 0.0), DType::kInt32);
  const Tensor off = MakeTensor(Shape{1, 2, 3, 3}, Values(18, 0.0), DType::kInt32);
  const Tensor w = MakeTensor(Shape{1, 1, 1, 1}, Values(1, 0.0), DType::kInt32);
  const std::string msg = ErrorOf([&] {
    RunOp("_contrib_DeformableConvolution",
          {{"kernel", "(1, 1)"}, {"num_filter", "1"}, {"no_bias", "1"}}, {x, off, w});
  });
  EXPECT_CONTAINS(msg, "_contrib_DeformableConvolution");
  EXPECT_CONTAINS(msg, "int32");
}

}  // namespace
}  // namespace symx
