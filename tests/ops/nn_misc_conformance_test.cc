// Conformance of Embedding, Dropout and UpSampling (nearest and bilinear) and
// their backward ops. Dropout's randomness is checked directly in
// shape_kernels_test.cc; here only its deterministic settings (inference, p=0).
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/ops/conformance.h"

namespace symx {
namespace {

using testing::CheckOp;
using testing::NumElements;
using testing::OpCase;
using testing::Values;

// ----------------------------------------------------------------------------- Embedding

OpCase EmbeddingCase(const Shape& data, int64_t input_dim, int64_t output_dim, Values indices) {
  OpCase c;
  c.op = "Embedding";
  c.name = "Embedding " + data.ToString() + " table (" + std::to_string(input_dim) + ", " +
           std::to_string(output_dim) + ")";
  c.attrs = {{"input_dim", std::to_string(input_dim)}, {"output_dim", std::to_string(output_dim)}};
  c.shapes = {data, Shape{input_dim, output_dim}};
  c.no_grad = {0};
  c.init = [indices](int i, const Shape& s) {
    if (i == 0) return indices;
    Values v(NumElements(s));
    for (size_t k = 0; k < v.size(); ++k) v[k] = std::sin(0.9 * k + 0.2);
    return v;
  };
  c.reference = [input_dim, output_dim](const std::vector<Values>& in, const std::vector<Shape>&) {
    Values out;
    for (double v : in[0]) {
      // Truncate, then clip to the table (MXNet's clip mode).
      int64_t r = static_cast<int64_t>(v);
      if (v <= 0) r = 0;
      if (r > input_dim - 1) r = input_dim - 1;
      for (int64_t c = 0; c < output_dim; ++c) out.push_back(in[1][r * output_dim + c]);
    }
    return std::vector<Values>{out};
  };
  return c;
}

TEST(NnMiscConformance, Embedding) {
  CheckOp(EmbeddingCase(Shape{2, 3}, 10, 4, {0, 3, 9, 3, 1, 0}));
  // Out of range and fractional indices: clipped and truncated; repeated rows
  // accumulate their gradients.
  CheckOp(EmbeddingCase(Shape{6}, 5, 3, {-1, 7, 2.7, 4, 4, -0.5}));
  CheckOp(EmbeddingCase(Shape{2, 2, 2}, 3, 1, {0, 1, 2, 1, 0, 0, 2, 2}));
  CheckOp(EmbeddingCase(Shape{0}, 4, 2, {}));
  CheckOp(EmbeddingCase(Shape{1}, 1, 5, {0}));
}

// ----------------------------------------------------------------------------- Dropout

OpCase DropoutIdentity(std::string name, const Shape& s, AttrMap attrs, bool is_train) {
  OpCase c;
  c.op = "Dropout";
  c.name = "Dropout " + name;
  c.attrs = std::move(attrs);
  c.shapes = {s};
  c.is_train = is_train;
  c.reference = [](const std::vector<Values>& in, const std::vector<Shape>&) {
    return std::vector<Values>{in[0]};
  };
  // The harness's backward runs the forward in training mode; only p=0 is
  // deterministic there.
  c.check_backward = is_train;
  return c;
}

TEST(NnMiscConformance, DropoutDeterministic) {
  CheckOp(DropoutIdentity("inference", Shape{3, 4}, {{"p", "0.5"}}, false));
  CheckOp(
      DropoutIdentity("inference axes", Shape{2, 3, 4}, {{"p", "0.7"}, {"axes", "(1,)"}}, false));
  CheckOp(DropoutIdentity("p=0 training", Shape{3, 4}, {{"p", "0"}}, true));
  CheckOp(DropoutIdentity("p=0 always", Shape{2, 5}, {{"p", "0"}, {"mode", "always"}}, true));
  CheckOp(DropoutIdentity("p=0 axes", Shape{2, 3, 4}, {{"p", "0"}, {"axes", "(0, 2)"}}, true));
  CheckOp(DropoutIdentity("empty", Shape{0, 4}, {{"p", "0.5"}}, false));
}

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

TEST(NnMiscConformance, UpSamplingNearest) {
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

TEST(NnMiscConformance, UpSamplingBilinear) {
  CheckOp(BilinearCase(Shape{1, 2, 3, 3}, 2));
  CheckOp(BilinearCase(Shape{2, 1, 2, 3}, 3));
  CheckOp(BilinearCase(Shape{1, 2, 2, 2}, 4));
  CheckOp(BilinearCase(Shape{1, 3, 2, 2}, 1));
  CheckOp(BilinearCase(Shape{0, 2, 2, 2}, 2));
}

}  // namespace
}  // namespace symx
