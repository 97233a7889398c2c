// Tests of the spatial family (graph/ops/spatial.cc): GridGenerator,
// BilinearSampler and SpatialTransformer, against plain loops written from
// MXNet 1.9.1's formulas (checked against a live MXNet); gradients by finite
// differences.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "graph/node.h"
#include "gtest/gtest.h"
#include "tests/ops/conformance.h"

namespace symx {
namespace testing {
namespace {

const std::vector<DType> kWithHalf = {DType::kFloat32, DType::kFloat64, DType::kFloat16};

std::string Tuple2(int64_t a, int64_t b) {
  return "(" + std::to_string(a) + ", " + std::to_string(b) + ")";
}

double LinRef(int64_t i, int64_t n) { return -1.0 + 2.0 * static_cast<double>(i) / (n - 1); }

// Affine grid (N, 2, h, w) from loc (N, 6).
Values AffineGrid(const Values& loc, int64_t n, int64_t h, int64_t w) {
  Values g(n * 2 * h * w);
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t i = 0; i < h; ++i) {
      for (int64_t j = 0; j < w; ++j) {
        const double x = LinRef(j, w), y = LinRef(i, h);
        const double* a = &loc[b * 6];
        g[((b * 2) * h + i) * w + j] = a[0] * x + a[1] * y + a[2];
        g[((b * 2 + 1) * h + i) * w + j] = a[3] * x + a[4] * y + a[5];
      }
    }
  }
  return g;
}

// Bilinear sampling with zero padding: data (N, C, IH, IW), grid (N, 2, H, W).
Values SampleRef(const Values& d, const Shape& ds, const Values& g, int64_t h, int64_t w) {
  const int64_t n = ds[0], c = ds[1], ih = ds[2], iw = ds[3];
  Values out(n * c * h * w, 0.0);
  for (int64_t b = 0; b < n; ++b) {
    for (int64_t i = 0; i < h; ++i) {
      for (int64_t j = 0; j < w; ++j) {
        const double x = (g[((b * 2) * h + i) * w + j] + 1) * (iw - 1) / 2;
        const double y = (g[((b * 2 + 1) * h + i) * w + j] + 1) * (ih - 1) / 2;
        const int64_t x0 = static_cast<int64_t>(std::floor(x)),
                      y0 = static_cast<int64_t>(std::floor(y));
        for (int64_t yy = y0; yy <= y0 + 1; ++yy) {
          for (int64_t xx = x0; xx <= x0 + 1; ++xx) {
            if (yy < 0 || yy >= ih || xx < 0 || xx >= iw) continue;
            const double wt = (1 - std::fabs(y - yy)) * (1 - std::fabs(x - xx));
            for (int64_t k = 0; k < c; ++k) {
              out[((b * c + k) * h + i) * w + j] += wt * d[((b * c + k) * ih + yy) * iw + xx];
            }
          }
        }
      }
    }
  }
  return out;
}

// ------------------------------------------------------------------ GridGenerator

OpCase GridAffineCase(int64_t n, int64_t h, int64_t w) {
  OpCase c;
  c.name = "GridGenerator affine " + Tuple2(h, w);
  c.op = "GridGenerator";
  c.attrs = {{"transform_type", "affine"}, {"target_shape", Tuple2(h, w)}};
  c.shapes = {Shape{n, 6}};
  c.reference = [n, h, w](const std::vector<Values>& in, const std::vector<Shape>&) {
    return std::vector<Values>{AffineGrid(in[0], n, h, w)};
  };
  return c;
}

OpCase GridWarpCase(const Shape& s) {
  OpCase c;
  c.name = "GridGenerator warp " + s.ToString();
  c.op = "GridGenerator";
  c.attrs = {{"transform_type", "warp"}};
  c.shapes = {s};
  c.reference = [](const std::vector<Values>& in, const std::vector<Shape>& sh) {
    const Shape& s = sh[0];
    Values g(in[0].size());
    for (int64_t b = 0; b < s[0]; ++b) {
      for (int64_t i = 0; i < s[2]; ++i) {
        for (int64_t j = 0; j < s[3]; ++j) {
          const int64_t ax = ((b * 2) * s[2] + i) * s[3] + j,
                        ay = ((b * 2 + 1) * s[2] + i) * s[3] + j;
          g[ax] = (in[0][ax] + j) / ((s[3] - 1) / 2.0) - 1;
          g[ay] = (in[0][ay] + i) / ((s[2] - 1) / 2.0) - 1;
        }
      }
    }
    return std::vector<Values>{g};
  };
  return c;
}

TEST(SpatialConformance, GridGenerator) {
  CheckOp(GridAffineCase(2, 3, 4));
  CheckOp(GridAffineCase(1, 5, 2));
  CheckOp(GridAffineCase(3, 2, 2));
  CheckOp(GridWarpCase(Shape{2, 2, 3, 4}));
  CheckOp(GridWarpCase(Shape{1, 2, 5, 2}));
  CheckOp(GridWarpCase(Shape{0, 2, 3, 4}));
}

// ------------------------------------------------------------------ BilinearSampler

// Grid values in [-range, range]: beyond 1 samples partly or wholly outside.
OpCase SamplerCase(const Shape& data, int64_t h, int64_t w, double range) {
  OpCase c;
  c.name = "BilinearSampler " + data.ToString() + " grid " + Tuple2(h, w) + " range " +
           std::to_string(range);
  c.op = "BilinearSampler";
  c.shapes = {data, Shape{data[0], 2, h, w}};
  c.dtypes = kWithHalf;
  c.forward_tol32 = 1e-5;
  c.init = [range](int input, const Shape& s) {
    std::mt19937_64 rng(17 + input);
    std::uniform_real_distribution<double> u(input == 1 ? -range : -1, input == 1 ? range : 1);
    Values v(NumElements(s));
    for (double& x : v) x = u(rng);
    return v;
  };
  c.reference = [h, w](const std::vector<Values>& in, const std::vector<Shape>& s) {
    return std::vector<Values>{SampleRef(in[0], s[0], in[1], h, w)};
  };
  return c;
}

TEST(SpatialConformance, BilinearSampler) {
  CheckOp(SamplerCase(Shape{2, 3, 4, 5}, 3, 4, 1.0));
  CheckOp(SamplerCase(Shape{1, 2, 5, 4}, 4, 6, 1.4));  // some points outside the image
  CheckOp(SamplerCase(Shape{2, 1, 3, 3}, 2, 2, 3.0));  // mostly outside
  CheckOp(SamplerCase(Shape{1, 2, 2, 2}, 5, 5, 1.0));  // upsampling
  CheckOp(SamplerCase(Shape{0, 2, 3, 3}, 2, 2, 1.0));
}

// Grid points exactly on pixels (the output equals the data where the grid is the
// identity) and on the image border.
TEST(SpatialConformance, BilinearSamplerIdentityGrid) {
  OpCase c;
  c.name = "BilinearSampler identity grid";
  c.op = "BilinearSampler";
  c.shapes = {Shape{1, 2, 3, 4}, Shape{1, 2, 3, 4}};
  c.check_backward = false;  // kinks at integer positions
  c.init = [](int input, const Shape& s) {
    Values v(NumElements(s));
    if (input == 0) {
      for (size_t i = 0; i < v.size(); ++i) v[i] = 0.25 * i - 1;
      return v;
    }
    for (int64_t i = 0; i < 3; ++i) {
      for (int64_t j = 0; j < 4; ++j) {
        v[i * 4 + j] = LinRef(j, 4);
        v[12 + i * 4 + j] = LinRef(i, 3);
      }
    }
    return v;
  };
  c.reference = [](const std::vector<Values>& in, const std::vector<Shape>&) {
    return std::vector<Values>{in[0]};
  };
  CheckOp(c);
}

// ------------------------------------------------------------------ SpatialTransformer

OpCase SpatialTransformerCase(const Shape& data, int64_t h, int64_t w, double scale) {
  OpCase c;
  c.name = "SpatialTransformer " + data.ToString() + " -> " + Tuple2(h, w);
  c.op = "SpatialTransformer";
  c.attrs = {
      {"target_shape", Tuple2(h, w)}, {"transform_type", "affine"}, {"sampler_type", "bilinear"}};
  c.shapes = {data, Shape{data[0], 6}};
  c.dtypes = kWithHalf;
  c.init = [scale](int input, const Shape& s) {
    std::mt19937_64 rng(5 + input);
    std::uniform_real_distribution<double> u(-1, 1);
    Values v(NumElements(s));
    for (double& x : v) x = input == 1 ? scale * u(rng) : u(rng);
    if (input == 1) {  // near the identity, perturbed
      for (int64_t b = 0; b < s[0]; ++b) v[b * 6] += 1, v[b * 6 + 4] += 1;
    }
    return v;
  };
  c.reference = [h, w](const std::vector<Values>& in, const std::vector<Shape>& s) {
    return std::vector<Values>{SampleRef(in[0], s[0], AffineGrid(in[1], s[0][0], h, w), h, w)};
  };
  return c;
}

TEST(SpatialConformance, SpatialTransformer) {
  CheckOp(SpatialTransformerCase(Shape{2, 3, 4, 5}, 3, 4, 0.2));
  CheckOp(SpatialTransformerCase(Shape{1, 2, 5, 5}, 6, 7, 0.5));
  CheckOp(SpatialTransformerCase(Shape{2, 1, 4, 3}, 2, 3, 1.0));
}

}  // namespace
}  // namespace testing

}  // namespace symx
