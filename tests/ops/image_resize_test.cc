// Conformance tests for _image_resize: every interp against a plain
// double-precision resampler (the textbook weights of each kernel; OpenCV's
// float weights are what the tolerances allow), 3-D and 4-D images, 1 to 4
// channels, growing and shrinking; uint8's rounding (OpenCV's fixed point and
// SIMD forms, values taken from MXNet 1.9.1); keep_ratio's integer sizes; the
// dtypes; the gradient (a copy, defined only for an unchanged size); and the
// parameter and shape errors. The golden cases (tools/golden/cases_image.py)
// compare with MXNet value for value.
#include "graph/ops/image_resize.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "executor/executor.h"
#include "graph/symbol.h"
#include "gtest/gtest.h"
#include "tests/ops/conformance.h"

namespace symx {
namespace testing {
namespace {

constexpr double kPi = 3.14159265358979323846;

// One output index's source indices and weights along an axis.
using Taps = std::vector<std::pair<int64_t, double>>;

int64_t ClampIndex(int64_t i, int64_t n) { return i < 0 ? 0 : (i >= n ? n - 1 : i); }

// Keys' cubic kernel with a = -0.75 (OpenCV's), and lanczos with 4 lobes.
double CubicKernel(double t) {
  const double a = -0.75, x = std::fabs(t);
  if (x <= 1) return ((a + 2) * x - (a + 3)) * x * x + 1;
  if (x < 2) return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
  return 0;
}
double LanczosKernel(double t) {
  if (std::fabs(t) < 1e-12) return 1;
  return 4 * std::sin(kPi * t) * std::sin(kPi * t / 4) / (kPi * kPi * t * t);
}

// The weights output index d of `out` puts on an axis of `in`, for `interp`
// (nearest is handled apart), from the definitions: pixel centres map back
// to (d + 0.5) * in / out - 0.5 and taps past the border repeat the edge;
// area averages [d * in / out, (d + 1) * in / out) when both axes shrink
// (`average`) and otherwise weights the two pixels cell d's right edge
// falls between by where it falls.
Taps AxisWeights(int interp, int64_t d, int64_t in, int64_t out, bool average) {
  const double scale = static_cast<double>(in) / static_cast<double>(out);
  Taps t;
  if (interp == 3 && average) {
    const double lo = d * scale, hi = lo + scale;
    for (int64_t s = static_cast<int64_t>(std::floor(lo)); s < hi && s < in; ++s) {
      const double w = std::min<double>(hi, s + 1) - std::max<double>(lo, s);
      if (w > 1e-3) t.push_back({s, w});
    }
    double sum = 0;
    for (auto& [s, w] : t) sum += w;
    for (auto& [s, w] : t) w /= sum;
    return t;
  }
  if (interp == 3) {
    const int64_t s = static_cast<int64_t>(std::floor(d * scale));
    double f = (d + 1) - (s + 1) / scale;
    f = f <= 0 ? 0 : f - std::floor(f);
    return {{ClampIndex(s, in), 1 - f}, {ClampIndex(s + 1, in), f}};
  }
  const double pos = (d + 0.5) * scale - 0.5;
  const int64_t s = static_cast<int64_t>(std::floor(pos));
  const double f = pos - s;
  if (interp == 1) return {{ClampIndex(s, in), 1 - f}, {ClampIndex(s + 1, in), f}};
  const int half = interp == 2 ? 2 : 4;
  double sum = 0;
  for (int k = 1 - half; k <= half; ++k) {
    const double w = interp == 2 ? CubicKernel(f - k) : LanczosKernel(f - k);
    t.push_back({ClampIndex(s + k, in), w});
    sum += w;
  }
  if (interp == 4) {
    for (auto& [i, w] : t) w /= sum;
  }
  return t;
}

// (N, H, W, C) of a 3-D or 4-D image shape.
struct Nhwc {
  int64_t n, h, w, c;
};
Nhwc DimsOf(const Shape& s) {
  const int d = s.ndim();
  return {d == 4 ? s[0] : 1, s[d - 3], s[d - 2], s[d - 1]};
}

Values ReferenceResize(const Values& x, const Shape& s, int64_t oh, int64_t ow, int interp) {
  const Nhwc d = DimsOf(s);
  Values y;
  for (int64_t b = 0; b < d.n; ++b) {
    for (int64_t i = 0; i < oh; ++i) {
      for (int64_t j = 0; j < ow; ++j) {
        for (int64_t k = 0; k < d.c; ++k) {
          auto at = [&](int64_t si, int64_t sj) {
            return x[((b * d.h + si) * d.w + sj) * d.c + k];
          };
          if (interp == 0 || (oh == d.h && ow == d.w)) {
            const int64_t si =
                std::min(d.h - 1, static_cast<int64_t>(std::floor(i * 1.0 * d.h / oh)));
            const int64_t sj =
                std::min(d.w - 1, static_cast<int64_t>(std::floor(j * 1.0 * d.w / ow)));
            y.push_back(at(si, sj));
            continue;
          }
          const bool average = d.h >= oh && d.w >= ow;
          double v = 0;
          for (const auto& [si, wi] : AxisWeights(interp, i, d.h, oh, average)) {
            for (const auto& [sj, wj] : AxisWeights(interp, j, d.w, ow, average)) {
              v += wi * wj * at(si, sj);
            }
          }
          y.push_back(v);
        }
      }
    }
  }
  return y;
}

OpCase ResizeCase(const Shape& data, int64_t oh, int64_t ow, int interp) {
  OpCase c;
  c.op = "_image_resize";
  c.name = "resize " + data.ToString() + " to " + std::to_string(oh) + "x" + std::to_string(ow) +
           " interp " + std::to_string(interp);
  c.attrs = {{"size", "(" + std::to_string(ow) + ", " + std::to_string(oh) + ")"},
             {"interp", std::to_string(interp)}};
  c.shapes = {data};
  // OpenCV's weights are float even for float64 data: MXNet's float64
  // results differ from exact weights by up to 8e-7 (cubic) on these cases.
  c.forward_tol64 = 2e-6;
  const Nhwc d = DimsOf(data);
  c.check_backward = d.h == oh && d.w == ow;
  c.reference = [=](const std::vector<Values>& in, const std::vector<Shape>&) {
    return std::vector<Values>{ReferenceResize(in[0], data, oh, ow, interp)};
  };
  return c;
}

TEST(ImageResizeConformance, EveryInterpGrowingAndShrinking) {
  for (int interp = 0; interp <= 4; ++interp) {
    CheckOp(ResizeCase(Shape{5, 7, 3}, 3, 4, interp));     // shrink
    CheckOp(ResizeCase(Shape{3, 4, 1}, 8, 7, interp));     // grow
    CheckOp(ResizeCase(Shape{2, 6, 9, 4}, 2, 3, interp));  // integer factor 3, batched
    CheckOp(ResizeCase(Shape{4, 4, 2}, 2, 2, interp));     // 2x (linear takes area's mean)
    CheckOp(ResizeCase(Shape{1, 1, 3}, 3, 2, interp));     // one pixel
    CheckOp(ResizeCase(Shape{6, 5, 3}, 2, 9, interp));     // shrink one axis, grow the other
    CheckOp(ResizeCase(Shape{3, 4, 3}, 3, 4, interp));     // same size: a copy, with gradient
    CheckOp(ResizeCase(Shape{2, 2, 3, 1}, 2, 3, interp));  // batched copy, with gradient
  }
}

std::vector<Tensor> Resize(const Tensor& x, const AttrMap& attrs) {
  return RunOp("_image_resize", attrs, {x}, "resize");
}

Values ToValues(const Tensor& t) { return t.ToDoubles(); }

// uint8 results as MXNet 1.9.1 gives them (OpenCV 3.4.2's fixed point and its
// SIMD rounding).
TEST(ImageResize, Uint8RoundsAsOpenCV) {
  // A 2x2 block mean: OpenCV's SIMD form (sum + 2) >> 2 rounds 2.5 up; with
  // two channels (no SIMD form) it rounds to even.
  Tensor one = MakeTensor(Shape{2, 2, 1}, {1, 2, 3, 4}, DType::kUint8);
  EXPECT_EQ(ToValues(Resize(one, {{"size", "(1, 1)"}, {"interp", "3"}})[0]), (Values{3}));
  Tensor two = MakeTensor(Shape{2, 2, 2}, {1, 1, 2, 2, 3, 3, 4, 4}, DType::kUint8);
  EXPECT_EQ(ToValues(Resize(two, {{"size", "(1, 1)"}, {"interp", "3"}})[0]), (Values{2, 2}));
  Tensor row = MakeTensor(Shape{1, 3, 1}, {0, 100, 200}, DType::kUint8);
  EXPECT_EQ(ToValues(Resize(row, {{"size", "(5, 1)"}})[0]), (Values{0, 40, 100, 160, 200}));
  Tensor four = MakeTensor(Shape{1, 4, 1}, {0, 100, 200, 50}, DType::kUint8);
  EXPECT_EQ(ToValues(Resize(four, {{"size", "(7, 1)"}, {"interp", "2"}})[0]),
            (Values{0, 28, 90, 173, 196, 107, 35}));
}

TEST(ImageResize, DtypesAndInt32Nearest) {
  Values v;
  for (int i = 0; i < 12; ++i) v.push_back(i * 10);
  Tensor i32 = MakeTensor(Shape{3, 4, 1}, v, DType::kInt32);
  std::vector<Tensor> out = Resize(i32, {{"size", "(3, 2)"}, {"interp", "0"}});
  EXPECT_EQ(out[0].dtype(), DType::kInt32);
  EXPECT_EQ(ToValues(out[0]), (Values{0, 10, 20, 40, 50, 60}));
  std::string msg = ErrorOf([&] { Resize(i32, {{"size", "(3, 2)"}}); });
  EXPECT_CONTAINS(msg, "int32 takes only interp 0");
  EXPECT_CONTAINS(msg, "interp 1");
  for (DType t : {DType::kFloat16, DType::kInt8, DType::kInt64, DType::kBool}) {
    Tensor x = MakeTensor(Shape{2, 2, 1}, {1, 2, 3, 4}, t);
    msg = ErrorOf([&] { Resize(x, {{"size", "(1, 1)"}}); });
    EXPECT_CONTAINS(msg, "_image_resize");
    EXPECT_CONTAINS(msg, DTypeName(t));
  }
}

Shape OutShape(const Shape& in, const AttrMap& attrs) {
  Tensor x = MakeTensor(in, Values(NumElements(in), 1.0), DType::kFloat32);
  return Resize(x, attrs)[0].shape();
}

TEST(ImageResize, SizeAndKeepRatio) {
  // keep_ratio: the short edge takes the size, the long one long * size /
  // short in integers (MXNet's arithmetic): 7 * 4 / 5 = 5.
  EXPECT_EQ(OutShape(Shape{5, 7, 3}, {{"size", "4"}, {"keep_ratio", "True"}}), (Shape{4, 5, 3}));
  EXPECT_EQ(OutShape(Shape{7, 5, 3}, {{"size", "(4,)"}, {"keep_ratio", "1"}}), (Shape{5, 4, 3}));
  EXPECT_EQ(OutShape(Shape{5, 5, 1}, {{"size", "4"}, {"keep_ratio", "true"}}), (Shape{4, 4, 1}));
  EXPECT_EQ(OutShape(Shape{5, 7, 3}, {{"size", "4"}}), (Shape{4, 4, 3}));
  // Two values are (width, height); keep_ratio is ignored then.
  EXPECT_EQ(OutShape(Shape{2, 5, 7, 3}, {{"size", "(4, 6)"}, {"keep_ratio", "True"}}),
            (Shape{2, 6, 4, 3}));
}

TEST(ImageResize, Errors) {
  Tensor x = MakeTensor(Shape{4, 5, 3}, Values(60, 1.0), DType::kFloat32);
  std::string msg = ErrorOf([&] { Resize(x, {}); });
  EXPECT_CONTAINS(msg, "size");
  EXPECT_CONTAINS(msg, "got 0");
  msg = ErrorOf([&] { Resize(x, {{"size", "(1, 2, 3)"}}); });
  EXPECT_CONTAINS(msg, "size");
  EXPECT_CONTAINS(msg, "(1, 2, 3)");
  msg = ErrorOf([&] { Resize(x, {{"size", "(0,)"}}); });
  EXPECT_CONTAINS(msg, "size must be > 0, got 0");
  msg = ErrorOf([&] { Resize(x, {{"size", "(3, -1)"}}); });
  EXPECT_CONTAINS(msg, "height must be > 0, got -1");
  msg = ErrorOf([&] { Resize(x, {{"size", "(0, 2)"}}); });
  EXPECT_CONTAINS(msg, "width must be > 0, got 0");
  for (const char* interp : {"5", "-1"}) {
    msg = ErrorOf([&] { Resize(x, {{"size", "(2, 2)"}, {"interp", interp}}); });
    EXPECT_CONTAINS(msg, "interp");
    EXPECT_CONTAINS(msg, std::string("got ") + interp);
  }
  for (const Shape& s : {Shape{4, 5}, Shape{1, 2, 4, 5, 3}}) {
    Tensor bad = MakeTensor(s, Values(NumElements(s), 1.0), DType::kFloat32);
    msg = ErrorOf([&] { Resize(bad, {{"size", "(2, 2)"}}); });
    EXPECT_CONTAINS(msg, s.ToString());
    EXPECT_CONTAINS(msg, "(H, W, C) or (N, H, W, C)");
  }
  for (const Shape& s : {Shape{0, 5, 3}, Shape{2, 4, 0, 3}}) {
    Tensor empty = MakeTensor(s, {}, DType::kFloat32);
    msg = ErrorOf([&] { Resize(empty, {{"size", "(2, 2)"}}); });
    EXPECT_CONTAINS(msg, s.ToString());
    EXPECT_CONTAINS(msg, "height and width > 0");
  }
  // An empty batch is an empty batch.
  EXPECT_EQ(OutShape(Shape{0, 4, 5, 3}, {{"size", "(2, 3)"}}), (Shape{0, 3, 2, 3}));
}

// The gradient is MXNet's copy when the size is unchanged (checked by finite
// differences above); a size change has none, and binding its backward says so.
TEST(ImageResize, NoGradientWhenTheSizeChanges) {
  Symbol y = OpCall("_image_resize")
                 .Name("resize")
                 .Attr("size", "(2, 3)")
                 .Input(Symbol::Variable("data"))
                 .Build();
  SimpleBindOptions opt;
  opt.ctx = Context::CPU();
  opt.shapes = {{"data", Shape{4, 5, 3}}};
  const std::string msg = ErrorOf([&] { Executor::SimpleBind(y, opt); });
  EXPECT_CONTAINS(msg, "no gradient when the size changes");
  EXPECT_CONTAINS(msg, "[3,2,3]");
  EXPECT_CONTAINS(msg, "[4,5,3]");
}

}  // namespace
}  // namespace testing
}  // namespace symx
