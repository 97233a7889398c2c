// Tests of the resample family (graph/ops/resample.cc): UpSampling (nearest and
// bilinear), _contrib_AdaptiveAvgPooling2D and _contrib_BilinearResize2D.
//
// References are plain loops written from MXNet 1.9.1's formulas (checked
// against a live MXNet); gradients by finite differences.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "devices/device.h"
#include "devices/kernel.h"
#include "devices/tensor.h"
#include "graph/node.h"
#include "gtest/gtest.h"
#include "tests/ops/conformance.h"

namespace symx {
namespace testing {
namespace {

const std::vector<DType> kWithHalf = {DType::kFloat32, DType::kFloat64, DType::kFloat16};

// ------------------------------------------------------------------ AdaptiveAvgPooling2D

OpCase AdaptivePoolCase(const Shape& shape, const std::string& output_size, int64_t oh,
                        int64_t ow) {
  OpCase c;
  c.name = "AdaptiveAvgPooling2D " + shape.ToString() + " -> " + output_size;
  c.op = "_contrib_AdaptiveAvgPooling2D";
  if (!output_size.empty()) c.attrs = {{"output_size", output_size}};
  c.shapes = {shape};
  c.dtypes = kWithHalf;
  c.reference = [oh, ow](const std::vector<Values>& in, const std::vector<Shape>& s) {
    const int64_t P = s[0][0] * s[0][1], H = s[0][2], W = s[0][3];
    Values y;
    for (int64_t p = 0; p < P; ++p) {
      for (int64_t i = 0; i < oh; ++i) {
        // Cell i covers [floor(i*H/oh), ceil((i+1)*H/oh)).
        const int64_t y0 = static_cast<int64_t>(std::floor(double(i) * H / oh));
        const int64_t y1 = static_cast<int64_t>(std::ceil(double(i + 1) * H / oh));
        for (int64_t j = 0; j < ow; ++j) {
          const int64_t x0 = static_cast<int64_t>(std::floor(double(j) * W / ow));
          const int64_t x1 = static_cast<int64_t>(std::ceil(double(j + 1) * W / ow));
          double sum = 0;
          for (int64_t a = y0; a < y1; ++a) {
            for (int64_t b = x0; b < x1; ++b) sum += in[0][(p * H + a) * W + b];
          }
          y.push_back(sum / double((y1 - y0) * (x1 - x0)));
        }
      }
    }
    return std::vector<Values>{y};
  };
  return c;
}

TEST(ResampleConformance, AdaptiveAvgPooling2D) {
  CheckOp(AdaptivePoolCase(Shape{2, 3, 7, 5}, "(3, 2)", 3, 2));
  CheckOp(AdaptivePoolCase(Shape{1, 2, 6, 6}, "(4,)", 4, 4));
  CheckOp(AdaptivePoolCase(Shape{1, 2, 6, 6}, "3", 3, 3));
  CheckOp(AdaptivePoolCase(Shape{2, 2, 3, 4}, "", 1, 1));        // global pooling
  CheckOp(AdaptivePoolCase(Shape{1, 1, 3, 2}, "(5, 4)", 5, 4));  // larger than input
  CheckOp(AdaptivePoolCase(Shape{1, 2, 4, 5}, "(4, 5)", 4, 5));  // identity
}

// ------------------------------------------------------------------ BilinearResize2D

// Source coordinate of output index i (MXNet 1.9.1, checked with the live MXNet).
double SrcCoord(int64_t i, int64_t in, int64_t out, bool align) {
  if (out == 1) return 0;
  if (align) return double(i) * double(in - 1) / double(out - 1);
  return std::max((i + 0.5) * double(in) / double(out) - 0.5, 0.0);
}

OpCase BilinearCase(const Shape& shape, int64_t oh, int64_t ow, const AttrMap& attrs,
                    bool like = false) {
  OpCase c;
  c.name = "BilinearResize2D " + shape.ToString() + " -> " + std::to_string(oh) + "x" +
           std::to_string(ow) +
           (attrs.count("align_corners") ? " align " + attrs.at("align_corners") : "");
  c.op = "_contrib_BilinearResize2D";
  c.attrs = attrs;
  c.shapes = {shape};
  if (like) c.shapes.push_back(Shape{1, 1, oh, ow});
  c.dtypes = kWithHalf;
  const bool align = !attrs.count("align_corners") || attrs.at("align_corners") == "True";
  c.reference = [=](const std::vector<Values>& in, const std::vector<Shape>& s) {
    const int64_t P = s[0][0] * s[0][1], H = s[0][2], W = s[0][3];
    Values y;
    for (int64_t p = 0; p < P; ++p) {
      for (int64_t i = 0; i < oh; ++i) {
        const double sy = SrcCoord(i, H, oh, align);
        const int64_t y0 = std::min<int64_t>(static_cast<int64_t>(sy), H - 1);
        const int64_t y1 = std::min<int64_t>(y0 + 1, H - 1);
        const double ly = sy - y0;
        for (int64_t j = 0; j < ow; ++j) {
          const double sx = SrcCoord(j, W, ow, align);
          const int64_t x0 = std::min<int64_t>(static_cast<int64_t>(sx), W - 1);
          const int64_t x1 = std::min<int64_t>(x0 + 1, W - 1);
          const double lx = sx - x0;
          auto at = [&](int64_t a, int64_t b) { return in[0][(p * H + a) * W + b]; };
          y.push_back((1 - ly) * ((1 - lx) * at(y0, x0) + lx * at(y0, x1)) +
                      ly * ((1 - lx) * at(y1, x0) + lx * at(y1, x1)));
        }
      }
    }
    return std::vector<Values>{y};
  };
  return c;
}

TEST(ResampleConformance, BilinearResize2D) {
  const Shape d{1, 2, 4, 5};
  CheckOp(BilinearCase(d, 7, 3, {{"height", "7"}, {"width", "3"}}));
  CheckOp(BilinearCase(d, 7, 3, {{"height", "7"}, {"width", "3"}, {"align_corners", "False"}}));
  CheckOp(BilinearCase(d, 2, 9, {{"height", "2"}, {"width", "9"}, {"align_corners", "False"}}));
  CheckOp(BilinearCase(d, 1, 3, {{"height", "1"}, {"width", "3"}, {"align_corners", "False"}}));
  CheckOp(BilinearCase(d, 1, 1, {}));  // defaults: 1x1, align_corners
  CheckOp(BilinearCase(d, 8, 10, {{"height", "8"}, {"width", "10"}, {"align_corners", "False"}}));
  // Scales win over height/width: int(4 * 1.5) = 6, int(5 * 0.5) = 2.
  CheckOp(
      BilinearCase(d, 6, 2, {{"scale_height", "1.5"}, {"scale_width", "0.5"}, {"height", "3"}}));
  CheckOp(BilinearCase(d, 2, 6, {{"scale_height", "0.7"}, {"scale_width", "1.3"}}));
  // Sizes derived from the input's: 4x5 -> 4x6 and 8x9.
  CheckOp(BilinearCase(d, 4, 6, {{"mode", "to_even_up"}}));
  CheckOp(BilinearCase(d, 8, 9,
                       {{"mode", "odd_scale"},
                        {"scale_height", "2"},
                        {"scale_width", "2"},
                        {"align_corners", "False"}}));
  // mode=like: the second input's H and W; it gets a zero gradient.
  CheckOp(BilinearCase(Shape{2, 1, 3, 3}, 5, 4, {{"mode", "like"}}, /*like=*/true));
}

}  // namespace
}  // namespace testing

namespace {

using testing::CheckOp;
using testing::NumElements;
using testing::OpCase;
using testing::Values;

// ----------------------------------------------------------------------------- UpSampling

OpCase NearestCase(std::vector<Shape> inputs, int64_t scale, const std::string& mode) {
  OpCase c;
  c.op = "UpSampling";
  c.name = "UpSampling nearest x" + std::to_string(scale) + " " + mode;
  for (const Shape& s : inputs) c.name += " " + s.ToString();
  c.attrs = {{"scale", std::to_string(scale)},
             {"sample_type", "nearest"},
             {"multi_input_mode", mode},
             {"num_args", std::to_string(inputs.size())}};
  c.shapes = inputs;
  c.reference = [scale, mode](const std::vector<Values>& in, const std::vector<Shape>& shapes) {
    const bool sum = mode == "sum";
    const int64_t n = shapes[0][0], oh = shapes[0][2] * scale, ow = shapes[0][3] * scale;
    int64_t oc = sum ? shapes[0][1] : 0;
    if (!sum) {
      for (const Shape& s : shapes) oc += s[1];
    }
    Values out(n * oc * oh * ow, 0.0);
    int64_t off = 0;
    for (size_t k = 0; k < shapes.size(); ++k) {
      const Shape& s = shapes[k];
      const int64_t sh = oh / s[2], sw = ow / s[3];
      for (int64_t b = 0; b < n; ++b) {
        for (int64_t c = 0; c < s[1]; ++c) {
          for (int64_t y = 0; y < oh; ++y) {
            for (int64_t x = 0; x < ow; ++x) {
              out[((b * oc + off + c) * oh + y) * ow + x] +=
                  in[k][((b * s[1] + c) * s[2] + y / sh) * s[3] + x / sw];
            }
          }
        }
      }
      if (!sum) off += s[1];
    }
    return std::vector<Values>{out};
  };
  return c;
}

TEST(ResampleConformance, UpSamplingNearest) {
  CheckOp(NearestCase({Shape{1, 2, 2, 3}}, 2, "concat"));
  CheckOp(NearestCase({Shape{2, 1, 2, 2}}, 3, "concat"));
  CheckOp(NearestCase({Shape{1, 1, 3, 2}}, 1, "concat"));
  CheckOp(NearestCase({Shape{1, 2, 2, 2}, Shape{1, 3, 1, 2}}, 2, "concat"));
  CheckOp(NearestCase({Shape{2, 2, 2, 2}, Shape{2, 2, 1, 1}, Shape{2, 2, 4, 4}}, 2, "sum"));
  CheckOp(NearestCase({Shape{0, 2, 2, 2}}, 2, "concat"));
}

OpCase BilinearCase(const Shape& data, int64_t scale) {
  const int64_t c_in = data[1];
  const int64_t k = 2 * scale - scale % 2;
  const int64_t pad = scale / 2;  // ceil((scale - 1) / 2)
  OpCase c;
  c.op = "UpSampling";
  c.name = "UpSampling bilinear x" + std::to_string(scale) + " " + data.ToString();
  c.attrs = {{"scale", std::to_string(scale)},
             {"sample_type", "bilinear"},
             {"num_filter", std::to_string(c_in)},
             {"num_args", "2"}};
  c.shapes = {data, Shape{c_in, 1, k, k}};
  c.reference = [scale, k, pad](const std::vector<Values>& in, const std::vector<Shape>& shapes) {
    const Shape& s = shapes[0];
    const int64_t n = s[0], ch = s[1], h = s[2], w = s[3], oh = h * scale, ow = w * scale;
    Values out(n * ch * oh * ow, 0.0);
    for (int64_t b = 0; b < n; ++b) {
      for (int64_t c = 0; c < ch; ++c) {
        for (int64_t y = 0; y < h; ++y) {
          for (int64_t x = 0; x < w; ++x) {
            for (int64_t ky = 0; ky < k; ++ky) {
              for (int64_t kx = 0; kx < k; ++kx) {
                const int64_t oy = y * scale - pad + ky, ox = x * scale - pad + kx;
                if (oy < 0 || oy >= oh || ox < 0 || ox >= ow) continue;
                out[((b * ch + c) * oh + oy) * ow + ox] +=
                    in[0][((b * ch + c) * h + y) * w + x] * in[1][(c * k + ky) * k + kx];
              }
            }
          }
        }
      }
    }
    return std::vector<Values>{out};
  };
  return c;
}

TEST(ResampleConformance, UpSamplingBilinear) {
  CheckOp(BilinearCase(Shape{1, 2, 3, 3}, 2));
  CheckOp(BilinearCase(Shape{2, 1, 2, 3}, 3));
  CheckOp(BilinearCase(Shape{1, 2, 2, 2}, 4));
  CheckOp(BilinearCase(Shape{1, 3, 2, 2}, 1));
  CheckOp(BilinearCase(Shape{0, 2, 2, 2}, 2));
}

}  // namespace

}  // namespace symx
