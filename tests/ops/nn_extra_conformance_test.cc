// Conformance tests for the extra nn ops: SoftmaxActivation, softmin, Crop,
// L2Normalization, LRN, InstanceNorm, GroupNorm, _contrib_AdaptiveAvgPooling2D and
// _contrib_BilinearResize2D. References are plain loops
// written from MXNet 1.9.1's documented formulas (checked against a live
// MXNet); gradients are checked by the harness against finite differences.
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

Values Uniform(const Shape& shape, double lo, double hi, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  Values v(NumElements(shape));
  for (double& x : v) x = u(rng);
  return v;
}

// Softmax of scale * x over the middle of (outer, n, inner).
Values SoftmaxRef(const Values& x, int64_t outer, int64_t n, int64_t inner, double scale) {
  Values y(x.size());
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      double m = -INFINITY, s = 0;
      for (int64_t k = 0; k < n; ++k) m = std::max(m, scale * x[(o * n + k) * inner + i]);
      for (int64_t k = 0; k < n; ++k) s += std::exp(scale * x[(o * n + k) * inner + i] - m);
      for (int64_t k = 0; k < n; ++k) {
        const int64_t at = (o * n + k) * inner + i;
        y[at] = std::exp(scale * x[at] - m) / s;
      }
    }
  }
  return y;
}

std::string Tuple2(int64_t a, int64_t b) {
  return "(" + std::to_string(a) + ", " + std::to_string(b) + ")";
}

// ------------------------------------------------------------------ SoftmaxActivation

OpCase SoftmaxActivationCase(const std::string& mode, const Shape& shape) {
  OpCase c;
  c.name = "SoftmaxActivation " + mode + " " + shape.ToString();
  c.op = "SoftmaxActivation";
  c.attrs = {{"mode", mode}};
  c.shapes = {shape};
  c.dtypes = kWithHalf;
  c.reference = [mode](const std::vector<Values>& in, const std::vector<Shape>& s) {
    const Shape& d = s[0];
    int64_t rest = 1;
    for (int k = 2; k < d.ndim(); ++k) rest *= d[k];
    if (mode == "channel") return std::vector<Values>{SoftmaxRef(in[0], d[0], d[1], rest, 1.0)};
    return std::vector<Values>{SoftmaxRef(in[0], d[0], d[1] * rest, 1, 1.0)};
  };
  return c;
}

TEST(NnExtraConformance, SoftmaxActivation) {
  CheckOp(SoftmaxActivationCase("instance", Shape{3, 5}));
  CheckOp(SoftmaxActivationCase("instance", Shape{2, 3, 2, 2}));
  CheckOp(SoftmaxActivationCase("channel", Shape{2, 4, 3}));
  CheckOp(SoftmaxActivationCase("channel", Shape{2, 3, 2, 2}));
  CheckOp(SoftmaxActivationCase("channel", Shape{1, 2, 1, 3, 2}));
  CheckOp(SoftmaxActivationCase("instance", Shape{0, 4}));
  // The default mode is instance.
  OpCase c = SoftmaxActivationCase("instance", Shape{2, 2, 3});
  c.attrs.clear();
  CheckOp(c);
}

// ------------------------------------------------------------------ softmin

OpCase SoftminCase(const Shape& shape, int axis, double temperature) {
  OpCase c;
  c.name = "softmin axis " + std::to_string(axis) + " t " + std::to_string(temperature);
  c.op = "softmin";
  c.attrs = {{"axis", std::to_string(axis)}};
  if (temperature != 1.0) c.attrs["temperature"] = std::to_string(temperature);
  c.shapes = {shape};
  c.dtypes = kWithHalf;
  c.reference = [axis, temperature](const std::vector<Values>& in, const std::vector<Shape>& s) {
    const Shape& d = s[0];
    const int ax = axis < 0 ? axis + d.ndim() : axis;
    int64_t outer = 1, inner = 1;
    for (int k = 0; k < ax; ++k) outer *= d[k];
    for (int k = ax + 1; k < d.ndim(); ++k) inner *= d[k];
    return std::vector<Values>{SoftmaxRef(in[0], outer, d[ax], inner, -1.0 / temperature)};
  };
  return c;
}

TEST(NnExtraConformance, Softmin) {
  CheckOp(SoftminCase(Shape{3, 4}, -1, 1.0));
  CheckOp(SoftminCase(Shape{2, 3, 4}, 1, 1.0));
  CheckOp(SoftminCase(Shape{2, 3, 4}, 0, 0.5));
  CheckOp(SoftminCase(Shape{2, 3, 4}, -2, 3.0));
  CheckOp(SoftminCase(Shape{5}, 0, 1.0));
  // dtype=float64 from float32 data.
  OpCase c = SoftminCase(Shape{2, 5}, -1, 1.0);
  c.name = "softmin dtype float64";
  c.attrs["dtype"] = "float64";
  c.dtypes = {DType::kFloat32};
  CheckOp(c);
}

// ------------------------------------------------------------------ Crop

struct CropSpec {
  std::string name;
  Shape data;
  std::vector<int64_t> hw;  // h_w, or crop_like's (h, w) with like = true
  bool like = false;
  std::vector<int64_t> offset = {0, 0};
  bool center = false;
  bool pass_offset = true;
};

OpCase CropCase(const CropSpec& sp) {
  OpCase c;
  c.name = "Crop " + sp.name;
  c.op = "Crop";
  c.attrs = {{"num_args", sp.like ? "2" : "1"}};
  if (!sp.like) c.attrs["h_w"] = Tuple2(sp.hw[0], sp.hw[1]);
  if (sp.pass_offset) c.attrs["offset"] = Tuple2(sp.offset[0], sp.offset[1]);
  if (sp.center) c.attrs["center_crop"] = "True";
  c.shapes = {sp.data};
  if (sp.like) c.shapes.push_back(Shape{1, 2, sp.hw[0], sp.hw[1]});
  c.dtypes = kWithHalf;
  const CropSpec s = sp;
  c.reference = [s](const std::vector<Values>& in, const std::vector<Shape>&) {
    const int64_t N = s.data[0], C = s.data[1], H = s.data[2], W = s.data[3];
    const int64_t h = s.hw[0], w = s.hw[1];
    // MXNet's center crop rounds the offset down.
    const int64_t oy = s.center ? (H - h) / 2 : s.offset[0];
    const int64_t ox = s.center ? (W - w) / 2 : s.offset[1];
    Values y;
    for (int64_t p = 0; p < N * C; ++p) {
      for (int64_t r = 0; r < h; ++r) {
        for (int64_t q = 0; q < w; ++q) y.push_back(in[0][(p * H + oy + r) * W + ox + q]);
      }
    }
    return std::vector<Values>{y};
  };
  return c;
}

TEST(NnExtraConformance, Crop) {
  const Shape d{2, 2, 7, 8};
  std::vector<CropSpec> specs = {
      {"h_w at origin", d, {4, 4}},
      {"h_w offset", d, {4, 4}, false, {2, 3}},
      {"h_w offset at the edge", d, {4, 4}, false, {3, 4}},
      {"full size", d, {7, 8}},
      {"center even", d, {4, 4}, false, {0, 0}, true},
      {"center odd remainder", d, {4, 5}, false, {0, 0}, true},
      {"center ignores offset", d, {3, 3}, false, {2, 3}, true},
      {"crop_like", d, {3, 5}, true},
      {"crop_like offset", d, {3, 5}, true, {1, 2}},
      {"crop_like center", d, {4, 4}, true, {0, 0}, true},
      {"default offset", d, {2, 6}, false, {0, 0}, false, false},
      {"1x1", Shape{1, 3, 5, 5}, {1, 1}, false, {4, 2}},
  };
  for (const CropSpec& s : specs) CheckOp(CropCase(s));
  // Empty batch.
  OpCase e = CropCase({"empty batch", Shape{0, 2, 4, 4}, {2, 2}, false, {1, 1}});
  CheckOp(e);
}

// Crop copies every dtype: an int32 crop_like run straight through the kernel.
TEST(NnExtraConformance, CropKernelIntegers) {
  NodePtr node =
      MakeOpNode("Crop", "c", {{"num_args", "1"}, {"h_w", "(2, 2)"}, {"center_crop", "True"}},
                 {{MakeVariableNode("x"), 0, 0}})
          .value();
  const KernelInfo* k = KernelRegistry::Find("Crop", DeviceType::kCPU);
  ASSERT_NE(k, nullptr);
  KernelContext ctx;
  ctx.attrs = &node->attrs;
  ctx.device = GetDevice(Context::CPU(0)).value();
  Values v(16);
  for (int i = 0; i < 16; ++i) v[i] = i;
  ctx.inputs = {Tensor::FromVector(Shape{1, 1, 4, 4}, v, DType::kInt32)};
  ctx.outputs = {Tensor::Empty(Shape{1, 1, 2, 2}, DType::kInt32).value()};
  ctx.req = {OpReq::kWrite};
  ASSERT_TRUE(k->fn(ctx).ok());
  EXPECT_EQ(ctx.outputs[0].ToDoubles(), (Values{5, 6, 9, 10}));
}

// ------------------------------------------------------------------ L2Normalization

OpCase L2Case(const std::string& mode, const Shape& shape, double eps) {
  OpCase c;
  c.name = "L2Normalization " + mode + " " + shape.ToString() + " eps " + std::to_string(eps);
  c.op = "L2Normalization";
  c.attrs = {{"mode", mode}, {"eps", std::to_string(eps)}};
  c.shapes = {shape};
  c.dtypes = kWithHalf;
  c.reference = [mode, eps](const std::vector<Values>& in, const std::vector<Shape>& s) {
    const Shape& d = s[0];
    int64_t outer = d[0], n = 1, inner = 1;
    if (mode == "instance") {
      for (int k = 1; k < d.ndim(); ++k) n *= d[k];
    } else if (mode == "channel") {
      n = d[1];
      for (int k = 2; k < d.ndim(); ++k) inner *= d[k];
    } else {
      outer = d[0] * d[1];
      for (int k = 2; k < d.ndim(); ++k) n *= d[k];
    }
    Values y(in[0].size());
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < inner; ++i) {
        double s2 = 0;
        for (int64_t k = 0; k < n; ++k)
          s2 += in[0][(o * n + k) * inner + i] * in[0][(o * n + k) * inner + i];
        // eps inside the root, as MXNet: x / sqrt(sum + eps).
        for (int64_t k = 0; k < n; ++k) {
          const int64_t at = (o * n + k) * inner + i;
          y[at] = in[0][at] / std::sqrt(s2 + eps);
        }
      }
    }
    return std::vector<Values>{y};
  };
  return c;
}

TEST(NnExtraConformance, L2Normalization) {
  CheckOp(L2Case("instance", Shape{3, 4}, 1e-10));
  CheckOp(L2Case("instance", Shape{2, 3, 2, 2}, 0.5));
  CheckOp(L2Case("instance", Shape{5}, 0.25));
  CheckOp(L2Case("channel", Shape{2, 3, 2, 2}, 1e-10));
  CheckOp(L2Case("channel", Shape{2, 4, 3}, 0.5));
  CheckOp(L2Case("spatial", Shape{2, 3, 2, 2}, 1e-10));
  CheckOp(L2Case("spatial", Shape{2, 2, 5}, 0.5));
  OpCase def = L2Case("instance", Shape{2, 6}, 1e-10);
  def.attrs.clear();
  CheckOp(def);
}

// ------------------------------------------------------------------ LRN

OpCase LrnCase(const Shape& shape, double alpha, double beta, double knorm, int nsize) {
  OpCase c;
  c.name = "LRN nsize " + std::to_string(nsize) + " " + shape.ToString();
  c.op = "LRN";
  // oneDNN 2.6 has a real LRN kernel only for 16+ channels in multiples of
  // 8, nsize 5 and beta 0.75; its reference kernel is left to Eigen.
  c.onednn = shape[1] % 8 == 0 && shape[1] >= 16 && nsize == 5 && beta == 0.75;
  c.attrs = {{"alpha", std::to_string(alpha)},
             {"beta", std::to_string(beta)},
             {"knorm", std::to_string(knorm)},
             {"nsize", std::to_string(nsize)}};
  c.shapes = {shape};
  c.dtypes = kWithHalf;
  c.reference = [=](const std::vector<Values>& in, const std::vector<Shape>& s) {
    const Shape& d = s[0];
    const int64_t N = d[0], C = d[1], S = d[2] * d[3];
    Values y(in[0].size());
    for (int64_t b = 0; b < N; ++b) {
      for (int64_t c = 0; c < C; ++c) {
        for (int64_t p = 0; p < S; ++p) {
          double sum = 0;
          for (int64_t k = c - nsize / 2; k <= c + nsize / 2; ++k) {
            if (k < 0 || k >= C) continue;
            const double v = in[0][(b * C + k) * S + p];
            sum += v * v;
          }
          // alpha is divided by nsize (MXNet).
          y[(b * C + c) * S + p] =
              in[0][(b * C + c) * S + p] * std::pow(knorm + alpha / nsize * sum, -beta);
        }
      }
    }
    return std::vector<Values>{y};
  };
  return c;
}

TEST(NnExtraConformance, LRN) {
  CheckOp(LrnCase(Shape{2, 5, 2, 3}, 1e-4, 0.75, 2, 3));
  CheckOp(LrnCase(Shape{2, 5, 2, 3}, 0.5, 0.75, 1, 3));
  CheckOp(LrnCase(Shape{1, 6, 2, 2}, 0.5, 0.6, 2, 5));
  CheckOp(LrnCase(Shape{2, 3, 1, 2}, 0.7, 0.5, 1.5, 1));
  CheckOp(LrnCase(Shape{1, 4, 2, 2}, 0.9, 1.25, 1, 9));  // window wider than the channels
  CheckOp(LrnCase(Shape{2, 16, 3, 2}, 0.5, 0.75, 2, 5));  // AlexNet's: oneDNN takes it
  CheckOp(LrnCase(Shape{1, 24, 2, 3}, 1e-4, 0.75, 1, 5));
}

// ------------------------------------------------------------------ InstanceNorm / GroupNorm

// Shared reference: data (N, C, rest), groups of C / G channels, gamma/beta per
// channel (instance) or per group.
std::vector<Values> GroupNormRef(const std::vector<Values>& in, const Shape& d, int64_t G,
                                 double eps, bool per_channel, bool with_stats, bool store_std) {
  const int64_t N = d[0], C = d[1];
  int64_t rest = 1;
  for (int k = 2; k < d.ndim(); ++k) rest *= d[k];
  const int64_t cpg = C / G;
  Values y(in[0].size()), mean(N * G), stat(N * G);
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t g = 0; g < G; ++g) {
      double m = 0, v = 0;
      const int64_t count = cpg * rest;
      for (int64_t c = g * cpg; c < (g + 1) * cpg; ++c) {
        for (int64_t r = 0; r < rest; ++r) m += in[0][(n * C + c) * rest + r];
      }
      m /= count;
      for (int64_t c = g * cpg; c < (g + 1) * cpg; ++c) {
        for (int64_t r = 0; r < rest; ++r) {
          const double e = in[0][(n * C + c) * rest + r] - m;
          v += e * e;
        }
      }
      v /= count;
      for (int64_t c = g * cpg; c < (g + 1) * cpg; ++c) {
        const int64_t a = per_channel ? c : g;
        for (int64_t r = 0; r < rest; ++r) {
          const int64_t at = (n * C + c) * rest + r;
          y[at] = (in[0][at] - m) / std::sqrt(v + eps) * in[1][a] + in[2][a];
        }
      }
      mean[n * G + g] = m;
      stat[n * G + g] = store_std ? std::sqrt(v + eps) : v;
    }
  }
  if (with_stats) return {y, mean, stat};
  return {y};
}

OpCase InstanceNormCase(const Shape& shape, double eps, bool pass_eps = true) {
  OpCase c;
  c.name = "InstanceNorm " + shape.ToString() + " eps " + std::to_string(eps);
  c.op = "InstanceNorm";
  if (pass_eps) c.attrs = {{"eps", std::to_string(eps)}};
  c.shapes = {shape, Shape{shape[1]}, Shape{shape[1]}};
  c.init = [](int input, const Shape& s) {
    return input == 1 ? Uniform(s, 0.5, 1.5, 7) : Uniform(s, -1, 1, 17 + input);
  };
  c.forward_tol32 = 1e-4;
  c.reference = [eps](const std::vector<Values>& in, const std::vector<Shape>& s) {
    return GroupNormRef(in, s[0], s[0][1], eps, true, false, false);
  };
  return c;
}

TEST(NnExtraConformance, InstanceNorm) {
  CheckOp(InstanceNormCase(Shape{2, 3, 4}, 1e-3));
  CheckOp(InstanceNormCase(Shape{2, 3, 2, 3}, 1e-3, /*pass_eps=*/false));
  CheckOp(InstanceNormCase(Shape{1, 2, 5}, 0.3));
  CheckOp(InstanceNormCase(Shape{2, 2, 2, 1, 2}, 1e-5));
}

OpCase GroupNormCase(const Shape& shape, int64_t groups, double eps, bool mean_var = false) {
  OpCase c;
  c.name = "GroupNorm " + shape.ToString() + " groups " + std::to_string(groups) +
           (mean_var ? " output_mean_var" : "");
  c.op = "GroupNorm";
  c.attrs = {{"num_groups", std::to_string(groups)}, {"eps", std::to_string(eps)}};
  if (mean_var) c.attrs["output_mean_var"] = "True";
  c.shapes = {shape, Shape{groups}, Shape{groups}};
  c.init = [](int input, const Shape& s) {
    return input == 1 ? Uniform(s, 0.5, 1.5, 9) : Uniform(s, -1, 1, 27 + input);
  };
  c.forward_tol32 = 1e-4;
  // Head gradients on mean/std are ignored (as MXNet), so only check without them.
  c.check_backward = !mean_var;
  c.reference = [groups, eps, mean_var](const std::vector<Values>& in,
                                        const std::vector<Shape>& s) {
    return GroupNormRef(in, s[0], groups, eps, false, mean_var, true);
  };
  return c;
}

TEST(NnExtraConformance, GroupNorm) {
  CheckOp(GroupNormCase(Shape{2, 6, 2, 3}, 2, 1e-5));
  CheckOp(GroupNormCase(Shape{2, 6, 2, 3}, 1, 1e-5));
  CheckOp(GroupNormCase(Shape{2, 6, 4}, 3, 0.3));
  CheckOp(GroupNormCase(Shape{1, 4, 3}, 4, 1e-5));  // one channel per group
  CheckOp(GroupNormCase(Shape{2, 4, 3}, 2, 1e-5, /*mean_var=*/true));
}

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

TEST(NnExtraConformance, AdaptiveAvgPooling2D) {
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

TEST(NnExtraConformance, BilinearResize2D) {
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
}  // namespace symx
