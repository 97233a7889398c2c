// Tests of the image_random family (graph/ops/image_random.cc), on every
// device present: each color step at a fixed factor (min_factor ==
// max_factor) against plain loops (the hue through an HSL model written here
// independently), uint8 clamping and truncation, the laws of the draws (the
// factors' ranges and means, the flips' and color_jitter's orders' uniform
// frequencies, the lighting noise's spread), determinism per seed, the
// gradients (the head gradient passed through; flipped where the forward
// flipped) and the shape, dtype and parameter errors.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/device.h"
#include "devices/geometry/image_draws.h"
#include "executor/executor.h"
#include "graph/op.h"
#include "graph/ops/image.h"
#include "graph/symbol.h"
#include "gtest/gtest.h"
#include "tests/executor/executor_test_util.h"
#include "tests/expect_contains.h"
#include "tests/ops/conformance.h"

namespace symx {
namespace testing {
namespace {

constexpr double kGray[3] = {0.299, 0.587, 0.114};

// RGB in [0, 255] turned by `degrees` through HSL (the textbook hue-to-RGB
// form, in double).
void TurnHue(double degrees, double* r, double* g, double* b) {
  const double rn = *r / 255, gn = *g / 255, bn = *b / 255;
  const double hi = std::max({rn, gn, bn}), lo = std::min({rn, gn, bn});
  const double l = (hi + lo) / 2;
  if (hi - lo <= 1.2e-7) return;
  const double d = hi - lo;
  const double s = l < 0.5 ? d / (hi + lo) : d / (2 - hi - lo);
  double h = hi == rn ? (gn - bn) / d : hi == gn ? (bn - rn) / d + 2 : (rn - gn) / d + 4;
  h = std::fmod(h * 60 + degrees, 360.0);
  if (h < 0) h += 360;
  const double q = l < 0.5 ? l * (1 + s) : l + s - l * s, p = 2 * l - q;
  auto channel = [&](double t) {
    t = std::fmod(t + 360.0, 360.0);
    if (t < 60) return p + (q - p) * t / 60;
    if (t < 180) return q;
    if (t < 240) return p + (q - p) * (240 - t) / 60;
    return p;
  };
  *r = channel(h + 120) * 255;
  *g = channel(h) * 255;
  *b = channel(h - 120) * 255;
}

// The expected image after one step at `factor` (the family's formulas).
Values ColorStep(const std::string& step, double factor, const Values& x, int64_t channels) {
  Values y = x;
  const int64_t pixels = static_cast<int64_t>(x.size()) / channels;
  if (step == "brightness") {
    for (double& v : y) v *= factor;
  } else if (step == "contrast") {
    double mean = 0;
    for (int64_t p = 0; p < pixels; ++p) {
      for (int64_t c = 0; c < channels; ++c) {
        mean += x[p * channels + c] * (channels == 3 ? kGray[c] : 1.0);
      }
    }
    mean /= static_cast<double>(pixels);
    for (double& v : y) v = v * factor + (1 - factor) * mean;
  } else if (channels == 3 && step == "saturation") {
    for (int64_t p = 0; p < pixels; ++p) {
      double gray = 0;
      for (int c = 0; c < 3; ++c) gray += kGray[c] * x[3 * p + c];
      for (int c = 0; c < 3; ++c) y[3 * p + c] = gray * (1 - factor) + x[3 * p + c] * factor;
    }
  } else if (channels == 3 && step == "hue") {
    for (int64_t p = 0; p < pixels; ++p)
      TurnHue(factor * 360, &y[3 * p], &y[3 * p + 1], &y[3 * p + 2]);
  }
  return y;
}

Values Pixels(int64_t n, uint64_t seed) {
  Values v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<double>((i * 37 + seed * 11) % 256);
  return v;
}

TEST(ImageRandomConformance, EachStepAtAFixedFactor) {
  const std::map<std::string, std::vector<double>> factors = {{"brightness", {0.0, 0.6, 1.7}},
                                                              {"contrast", {0.0, 0.5, 2.5}},
                                                              {"saturation", {0.0, 0.3, 1.8}},
                                                              {"hue", {0.0, 0.1, 0.45, 0.9}}};
  for (const auto& [step, values] : factors) {
    for (double f : values) {
      for (const Shape& s : {Shape{3, 4, 3}, Shape{2, 5, 1}}) {
        OpCase c;
        c.op = "_image_random_" + step;
        c.name = absl::StrCat(c.op, " factor ", f, " ", s.ToString());
        c.attrs = {{"min_factor", absl::StrCat(f)}, {"max_factor", absl::StrCat(f)}};
        c.shapes = {s};
        c.init = [](int, const Shape& sh) { return Pixels(NumElements(sh), 3); };
        c.reference = [step = step, f](const std::vector<Values>& in,
                                       const std::vector<Shape>& sh) {
          // The factor is a float parameter, as in MXNet.
          return std::vector<Values>{ColorStep(step, static_cast<float>(f), in[0], sh[0][2])};
        };
        c.check_backward = false;  // pass-through: RandomGradients below
        c.forward_tol32 = 2e-5;
        // Gray's coefficients are MXNet's floats (0.299f, ...).
        c.forward_tol64 = 1e-6;
        CheckOp(c);
      }
    }
  }
}

// Runs `op` once on `ctx` over `x` (dtype `t`) and returns the output.
Values RunOnce(const std::string& op, const AttrMap& attrs, const Shape& s, const Values& x,
               DType t, const Context& ctx) {
  OpCall call(op);
  for (const auto& [k, v] : attrs) call.Attr(k, v);
  call.Input(Symbol::Variable("data"));
  SimpleBindOptions o;
  o.ctx = ctx;
  o.grad_req = GradReq::kNull;
  o.shapes["data"] = s;
  o.type_dict = std::map<std::string, DType>{{"data", t}};
  std::unique_ptr<Executor> exe = Executor::SimpleBind(call.Build(), o);
  ThrowIfError(CopyTensor(MakeTensor(s, x, t), exe->arg_dict().at("data")));
  exe->Forward(false);
  const Tensor& out = exe->outputs()[0];
  return ValueOrThrow(CopyToNew(out, Context::CPU(), out.dtype())).ToDoubles();
}

// uint8 results are clamped to [0, 255] and truncated, as MXNet stores them.
TEST(ImageRandomConformance, Uint8ClampsAndTruncates) {
  const Shape s{2, 3, 3};
  const Values x = Pixels(18, 5);
  for (const Context& ctx : DevicesPresent()) {
    for (const auto& [step, f] : std::vector<std::pair<std::string, double>>{
             {"brightness", 1.37}, {"contrast", 1.9}, {"saturation", 2.2}, {"hue", 0.3}}) {
      const Values got = RunOnce("_image_random_" + step,
                                 {{"min_factor", absl::StrCat(f)}, {"max_factor", absl::StrCat(f)}},
                                 s, x, DType::kUint8, ctx);
      const Values want = ColorStep(step, f, x, 3);
      for (size_t i = 0; i < want.size(); ++i) {
        const double w = std::floor(std::min(std::max(want[i], 0.0), 255.0));
        // Float rounding may land a value a hair under an integer.
        EXPECT_LE(std::abs(got[i] - w), step == "hue" ? 1.0 : 0.0)
            << step << " element " << i << " on " << ctx.ToString();
      }
    }
  }
}

// Saturation 0 is the gray 0.299 R + 0.587 G + 0.114 B in every channel
// (MXNet 1.9.1 takes 0.114 B alone: docs/numerics.md, erratum 25).
TEST(ImageRandomConformance, SaturationZeroIsTheLuma) {
  const Values x = {200, 100, 50};
  const Values y = RunOnce("_image_random_saturation", {{"min_factor", "0"}, {"max_factor", "0"}},
                           Shape{1, 1, 3}, x, DType::kFloat64, Context::CPU());
  for (double v : y) EXPECT_NEAR(v, 0.299 * 200 + 0.587 * 100 + 0.114 * 50, 1e-5);
}

// color_jitter with every amount 0 (or negative) is the identity, and lighting
// with alpha_std 0 too.
TEST(ImageRandomConformance, NoJitterIsTheIdentity) {
  const Values x = Pixels(36, 9);
  for (const Context& ctx : DevicesPresent()) {
    for (DType t : {DType::kUint8, DType::kFloat32}) {
      EXPECT_EQ(
          RunOnce("_image_random_color_jitter",
                  {{"brightness", "0"}, {"contrast", "-1"}, {"saturation", "0"}, {"hue", "0"}},
                  Shape{3, 4, 3}, x, t, ctx),
          x);
      EXPECT_EQ(RunOnce("_image_random_lighting", {{"alpha_std", "0"}}, Shape{3, 4, 3}, x, t, ctx),
                x);
    }
  }
}

// ------------------------------------------------------------------ the draws

// A float32 1x1x1 image of value 1 through brightness gives the factor.
TEST(ImageRandomDraws, EnhanceFactorsAreUniformInTheirRange) {
  for (const Context& ctx : DevicesPresent()) {
    SeedAllDevices(11);
    const int n = 4000;
    double sum = 0, lo = 1e9, hi = -1e9;
    for (int i = 0; i < n; ++i) {
      const double f =
          RunOnce("_image_random_brightness", {{"min_factor", "0.5"}, {"max_factor", "1.5"}},
                  Shape{1, 1, 1}, {1.0}, DType::kFloat32, ctx)[0];
      sum += f;
      lo = std::min(lo, f);
      hi = std::max(hi, f);
    }
    EXPECT_GE(lo, 0.5);
    EXPECT_LE(hi, 1.5);
    EXPECT_LT(lo, 0.52);
    EXPECT_GT(hi, 1.48);
    // Mean 1, sd of the mean 1 / sqrt(12 n): 5 sd.
    EXPECT_NEAR(sum / n, 1.0, 5.0 / std::sqrt(12.0 * n)) << ctx.ToString();
  }
}

TEST(ImageRandomDraws, FlipsHalfTheTime) {
  const Values x = {1, 2, 3, 4, 5, 6};  // (1, 2, 3): a flip swaps the pixels
  for (const Context& ctx : DevicesPresent()) {
    SeedAllDevices(5);
    for (const char* op : {"_image_random_flip_left_right", "_image_random_flip_top_bottom"}) {
      const bool lr = std::string(op) == "_image_random_flip_left_right";
      const Shape s = lr ? Shape{1, 2, 3} : Shape{2, 1, 3};
      int flipped = 0;
      const int n = 4000;
      for (int i = 0; i < n; ++i) {
        const Values y = RunOnce(op, {}, s, x, DType::kFloat32, ctx);
        const bool same = y == x;
        EXPECT_TRUE(same || y == Values({4, 5, 6, 1, 2, 3})) << op;
        flipped += same ? 0 : 1;
      }
      // 5 sd of a binomial(n, 1/2) count.
      EXPECT_NEAR(flipped, n / 2, 5 * std::sqrt(n / 4.0)) << op << " on " << ctx.ToString();
    }
  }
}

// Every order of color_jitter's four steps comes up equally often (chi-square
// over the 24 orders), and the factors stay in 1 + [-x, x].
TEST(ImageRandomDraws, JitterOrdersAreUniform) {
  ImageJitterParam p;
  p.brightness = 0.4f;
  p.contrast = 0.3f;
  p.saturation = 0.2f;
  p.hue = 0.1f;
  const float amount[4] = {0.4f, 0.3f, 0.2f, 0.1f};
  std::map<std::vector<int>, int> counts;
  const int n = 24000;
  for (uint64_t key = 1; key <= static_cast<uint64_t>(n); ++key) {
    const ImageColorPlan plan = DrawJitter(p, key * 0x9E3779B97F4A7C15ull);
    ASSERT_EQ(plan.steps, 4);
    std::vector<int> order;
    for (int k = 0; k < 4; ++k) {
      const int step = static_cast<int>(plan.step[k]);
      order.push_back(step);
      const double centre = step == 3 ? 0.0 : 1.0;
      EXPECT_LE(std::abs(plan.factor[k] - centre), amount[step] * (1 + 1e-6));
    }
    ++counts[order];
  }
  ASSERT_EQ(counts.size(), 24u);
  double chi2 = 0;
  for (const auto& [order, c] : counts) chi2 += std::pow(c - n / 24.0, 2) / (n / 24.0);
  EXPECT_LT(chi2, 60.0);  // 23 degrees of freedom: p < 1e-4 above 60
  // A step whose amount is <= 0 is left out.
  p.contrast = 0;
  p.hue = -1;
  EXPECT_EQ(DrawJitter(p, 7).steps, 2);
}

// Lighting on a black float image is the PCA offset: mean 0, and the red
// offset's spread alpha_std * |eig row 0|.
TEST(ImageRandomDraws, LightingNoiseSpread) {
  for (const Context& ctx : DevicesPresent()) {
    SeedAllDevices(3);
    const int n = 3000;
    double sum = 0, sum2 = 0;
    for (int i = 0; i < n; ++i) {
      const double r = RunOnce("_image_random_lighting", {{"alpha_std", "0.1"}}, Shape{1, 1, 3},
                               {0, 0, 0}, DType::kFloat32, ctx)[0];
      sum += r;
      sum2 += r * r;
    }
    const double row = std::sqrt(std::pow(55.46 * 0.5675, 2) + std::pow(4.794 * 0.7192, 2) +
                                 std::pow(1.148 * 0.4009, 2));
    const double sd = 0.1 * row;
    EXPECT_NEAR(sum / n, 0.0, 5 * sd / std::sqrt(n));
    EXPECT_NEAR(std::sqrt(sum2 / n), sd, 0.1 * sd) << ctx.ToString();
  }
}

TEST(ImageRandomDraws, SameSeedSameImage) {
  const Values x = Pixels(48, 2);
  const AttrMap jitter = {
      {"brightness", "0.3"}, {"contrast", "0.3"}, {"saturation", "0.3"}, {"hue", "0.2"}};
  for (const Context& ctx : DevicesPresent()) {
    SeedAllDevices(21);
    const Values first =
        RunOnce("_image_random_color_jitter", jitter, Shape{4, 4, 3}, x, DType::kFloat32, ctx);
    const Values next =
        RunOnce("_image_random_color_jitter", jitter, Shape{4, 4, 3}, x, DType::kFloat32, ctx);
    SeedAllDevices(21);
    EXPECT_EQ(
        RunOnce("_image_random_color_jitter", jitter, Shape{4, 4, 3}, x, DType::kFloat32, ctx),
        first);
    EXPECT_NE(next, first);
  }
}

// ------------------------------------------------------------------ gradients

// Binds `op` over a (2, 3, 3) float64 image with a gradient and returns
// (output, data gradient) for head gradient `head`.
std::pair<Values, Values> ForwardBackward(const std::string& op, const AttrMap& attrs,
                                          const Values& x, const Values& head, const Context& ctx) {
  OpCall call(op);
  for (const auto& [k, v] : attrs) call.Attr(k, v);
  call.Input(Symbol::Variable("data"));
  const Shape s{2, 3, 3};
  SimpleBindOptions o;
  o.ctx = ctx;
  o.shapes["data"] = s;
  o.type_dict = std::map<std::string, DType>{{"data", DType::kFloat64}};
  std::unique_ptr<Executor> exe = Executor::SimpleBind(call.Build(), o);
  ThrowIfError(CopyTensor(MakeTensor(s, x, DType::kFloat64), exe->arg_dict().at("data")));
  exe->Forward(true);
  Tensor h = ValueOrThrow(Tensor::Zeros(s, DType::kFloat64, ctx));
  ThrowIfError(CopyTensor(MakeTensor(s, head, DType::kFloat64), h));
  exe->Backward({h});
  auto host = [](const Tensor& t) {
    return ValueOrThrow(CopyToNew(t, Context::CPU(), t.dtype())).ToDoubles();
  };
  return {host(exe->outputs()[0]), host(exe->grad_dict().at("data"))};
}

TEST(ImageRandomGradients, ColorStepsPassTheHeadGradientThrough) {
  const Values x = Pixels(18, 4), head = Pixels(18, 8);
  const std::vector<std::pair<std::string, AttrMap>> ops = {
      {"_image_random_brightness", {{"min_factor", "0.5"}, {"max_factor", "2"}}},
      {"_image_random_contrast", {{"min_factor", "0.5"}, {"max_factor", "2"}}},
      {"_image_random_saturation", {{"min_factor", "0.5"}, {"max_factor", "2"}}},
      {"_image_random_hue", {{"min_factor", "0"}, {"max_factor", "0.5"}}},
      {"_image_random_color_jitter",
       {{"brightness", "0.2"}, {"contrast", "0.2"}, {"saturation", "0.2"}, {"hue", "0.2"}}},
      {"_image_random_lighting", {}}};
  for (const Context& ctx : DevicesPresent()) {
    for (const auto& [op, attrs] : ops) {
      EXPECT_EQ(ForwardBackward(op, attrs, x, head, ctx).second, head) << op;
    }
  }
}

// The flips' gradient is the head gradient flipped exactly when the forward
// flipped the data.
TEST(ImageRandomGradients, FlipsFlipTheGradientWithTheData) {
  const Values x = Pixels(18, 1), head = Pixels(18, 6);
  for (const Context& ctx : DevicesPresent()) {
    for (const char* op : {"_image_random_flip_left_right", "_image_random_flip_top_bottom"}) {
      const bool lr = std::string(op) == "_image_random_flip_left_right";
      auto flip = [&](const Values& v) {
        Values y(v.size());
        for (int i = 0; i < 2; ++i)
          for (int j = 0; j < 3; ++j)
            for (int c = 0; c < 3; ++c) {
              y[(i * 3 + j) * 3 + c] = v[((lr ? i : 1 - i) * 3 + (lr ? 2 - j : j)) * 3 + c];
            }
        return y;
      };
      std::set<bool> seen;
      for (int run = 0; run < 40; ++run) {
        const auto [y, grad] = ForwardBackward(op, {}, x, head, ctx);
        const bool flipped = y == flip(x);
        EXPECT_TRUE(flipped || y == x) << op;
        EXPECT_EQ(grad, flipped ? flip(head) : head) << op << " run " << run;
        seen.insert(flipped);
      }
      EXPECT_EQ(seen.size(), 2u) << op << ": 40 runs never "
                                 << (*seen.begin() ? "kept" : "flipped");
    }
  }
}

// ------------------------------------------------------------------ inference and errors

TEST(ImageRandomInference, OneVisibleOutputAndTheImagesShapeAndDtype) {
  for (const char* op : {"_image_random_flip_left_right", "_image_random_brightness"}) {
    OpCall call(op);
    if (std::string(op) == "_image_random_brightness") {
      call.Attr("min_factor", "1").Attr("max_factor", "1");
    }
    call.Input(Symbol::Variable("data"));
    Symbol s = call.Build();
    EXPECT_EQ(s.ListOutputs().size(), 1u) << op;
  }
  const OpParamPtr lighting =
      ValueOrThrow(OpRegistry::Global().Find("_image_random_lighting")->Parse({}));
  EXPECT_FLOAT_EQ(static_cast<const ImageRandomLightingParam&>(*lighting).alpha_std, 0.05f);
}

TEST(ImageRandomInference, Errors) {
  auto run = [](const std::string& op, const AttrMap& attrs, const Shape& s, DType t) {
    return ErrorOf(
        [&] { RunOp(op, attrs, {MakeTensor(s, Values(NumElements(s), 1.0), t)}, "aug"); });
  };
  const AttrMap f = {{"min_factor", "0.5"}, {"max_factor", "1.5"}};
  EXPECT_CONTAINS(run("_image_random_brightness", f, Shape{2, 2, 2, 3}, DType::kFloat32),
                  "[2,2,2,3]");
  EXPECT_CONTAINS(run("_image_random_contrast", f, Shape{2, 2, 4}, DType::kFloat32), "[2,2,4]");
  EXPECT_CONTAINS(run("_image_random_flip_top_bottom", {}, Shape{2, 2, 3}, DType::kBool), "bool");
  std::string msg = run("_image_random_hue", {{"min_factor", "0.5"}, {"max_factor", "0.2"}},
                        Shape{2, 2, 3}, DType::kFloat32);
  EXPECT_CONTAINS(msg, "max_factor");
  EXPECT_CONTAINS(msg, "0.2");
  EXPECT_CONTAINS(run("_image_random_saturation", {{"min_factor", "-1"}, {"max_factor", "1"}},
                      Shape{2, 2, 3}, DType::kFloat32),
                  "min_factor");
  EXPECT_CONTAINS(
      run("_image_random_brightness", {{"max_factor", "1"}}, Shape{2, 2, 3}, DType::kFloat32),
      "min_factor");
  EXPECT_CONTAINS(
      run("_image_random_lighting", {{"alpha_std", "-0.1"}}, Shape{2, 2, 3}, DType::kFloat32),
      "alpha_std");
  EXPECT_CONTAINS(
      run("_image_random_color_jitter", {{"brightness", "0.1"}}, Shape{2, 2, 3}, DType::kFloat32),
      "contrast");
  EXPECT_CONTAINS(
      run("_image_random_flip_left_right", {{"axis", "1"}}, Shape{2, 2, 3}, DType::kFloat32),
      "axis");
}

}  // namespace
}  // namespace testing
}  // namespace symx
