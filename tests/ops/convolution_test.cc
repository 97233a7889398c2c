// Conformance tests for Convolution (and Convolution_v1) and Deconvolution (1-D, 2-D, 3-D; stride,
// pad, dilate, groups, bias, adj, target_shape), plus a direct kernel test of the
// one-sample-at-a-time path that large samples take.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "devices/device.h"
#include "devices/kernel.h"
#include "devices/tensor.h"
#include "graph/node.h"
#include "gtest/gtest.h"
#include "tests/ops/conformance.h"

namespace symx {
namespace testing {
namespace {

using Tuple = std::vector<int64_t>;

std::string TupleStr(const Tuple& t) { return absl::StrCat("(", absl::StrJoin(t, ","), ")"); }

// A window geometry padded to 3 spatial dims.
struct Geo {
  int64_t k[3] = {1, 1, 1}, s[3] = {1, 1, 1}, p[3] = {0, 0, 0}, d[3] = {1, 1, 1};
};

Geo MakeGeo(const Tuple& kernel, const Tuple& stride, const Tuple& pad, const Tuple& dilate) {
  Geo g;
  const int off = 3 - static_cast<int>(kernel.size());
  for (size_t i = 0; i < kernel.size(); ++i) {
    g.k[off + i] = kernel[i];
    g.s[off + i] = stride.empty() ? 1 : stride[i];
    g.p[off + i] = pad.empty() ? 0 : pad[i];
    g.d[off + i] = dilate.empty() ? 1 : dilate[i];
  }
  return g;
}

// Spatial dims of `s` (from dim 2) padded to 3 with leading 1s.
void Spatial3(const Shape& s, int64_t out[3]) {
  out[0] = out[1] = out[2] = 1;
  const int n = s.ndim() - 2;
  for (int i = 0; i < n; ++i) out[3 - n + i] = s[2 + i];
}

// Direct convolution: y[n, f, o] = sum_{c in group, k} x[n, c, o*s - p + k*d] w[f, c', k] + b[f].
Values ConvRef(const Values& x, const Values& w, const Values* b, const Shape& xs, const Shape& ys,
               const Geo& g, int64_t groups) {
  const int64_t batch = xs[0], c_in = xs[1], f_out = ys[1];
  int64_t in[3], out[3];
  Spatial3(xs, in);
  Spatial3(ys, out);
  const int64_t cg = c_in / groups, fg = f_out / groups;
  const int64_t in_sz = in[0] * in[1] * in[2], out_sz = out[0] * out[1] * out[2];
  const int64_t k_sz = g.k[0] * g.k[1] * g.k[2];
  Values y(batch * f_out * out_sz, 0.0);
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t f = 0; f < f_out; ++f) {
      const int64_t grp = f / fg;
      for (int64_t oz = 0; oz < out[0]; ++oz) {
        for (int64_t oy = 0; oy < out[1]; ++oy) {
          for (int64_t ox = 0; ox < out[2]; ++ox) {
            double acc = b ? (*b)[f] : 0.0;
            for (int64_t cl = 0; cl < cg; ++cl) {
              const int64_t c = grp * cg + cl;
              for (int64_t kz = 0; kz < g.k[0]; ++kz) {
                for (int64_t ky = 0; ky < g.k[1]; ++ky) {
                  for (int64_t kx = 0; kx < g.k[2]; ++kx) {
                    const int64_t iz = oz * g.s[0] - g.p[0] + kz * g.d[0];
                    const int64_t iy = oy * g.s[1] - g.p[1] + ky * g.d[1];
                    const int64_t ix = ox * g.s[2] - g.p[2] + kx * g.d[2];
                    if (iz < 0 || iz >= in[0] || iy < 0 || iy >= in[1] || ix < 0 || ix >= in[2]) {
                      continue;
                    }
                    const double xv = x[(n * c_in + c) * in_sz + (iz * in[1] + iy) * in[2] + ix];
                    const double wv = w[(f * cg + cl) * k_sz + (kz * g.k[1] + ky) * g.k[2] + kx];
                    acc += xv * wv;
                  }
                }
              }
            }
            y[(n * f_out + f) * out_sz + (oz * out[1] + oy) * out[2] + ox] = acc;
          }
        }
      }
    }
  }
  return y;
}

// Direct transposed convolution: every x[n, c, i] scatters x * w[c, f', k] to
// y[n, f, i*s - p + k*d]; then bias.
Values DeconvRef(const Values& x, const Values& w, const Values* b, const Shape& xs,
                 const Shape& ys, const Geo& g, int64_t groups) {
  const int64_t batch = xs[0], c_in = xs[1], f_out = ys[1];
  int64_t in[3], out[3];
  Spatial3(xs, in);
  Spatial3(ys, out);
  const int64_t cg = c_in / groups, fg = f_out / groups;
  const int64_t in_sz = in[0] * in[1] * in[2], out_sz = out[0] * out[1] * out[2];
  const int64_t k_sz = g.k[0] * g.k[1] * g.k[2];
  Values y(batch * f_out * out_sz, 0.0);
  for (int64_t n = 0; n < batch; ++n) {
    for (int64_t c = 0; c < c_in; ++c) {
      const int64_t grp = c / cg;
      for (int64_t iz = 0; iz < in[0]; ++iz) {
        for (int64_t iy = 0; iy < in[1]; ++iy) {
          for (int64_t ix = 0; ix < in[2]; ++ix) {
            const double xv = x[(n * c_in + c) * in_sz + (iz * in[1] + iy) * in[2] + ix];
            for (int64_t fl = 0; fl < fg; ++fl) {
              const int64_t f = grp * fg + fl;
              for (int64_t kz = 0; kz < g.k[0]; ++kz) {
                for (int64_t ky = 0; ky < g.k[1]; ++ky) {
                  for (int64_t kx = 0; kx < g.k[2]; ++kx) {
                    const int64_t oz = iz * g.s[0] - g.p[0] + kz * g.d[0];
                    const int64_t oy = iy * g.s[1] - g.p[1] + ky * g.d[1];
                    const int64_t ox = ix * g.s[2] - g.p[2] + kx * g.d[2];
                    if (oz < 0 || oz >= out[0] || oy < 0 || oy >= out[1] || ox < 0 ||
                        ox >= out[2]) {
                      continue;
                    }
                    const double wv = w[(c * fg + fl) * k_sz + (kz * g.k[1] + ky) * g.k[2] + kx];
                    y[(n * f_out + f) * out_sz + (oz * out[1] + oy) * out[2] + ox] += xv * wv;
                  }
                }
              }
            }
          }
        }
      }
    }
  }
  if (b != nullptr) {
    for (int64_t n = 0; n < batch; ++n) {
      for (int64_t f = 0; f < f_out; ++f) {
        for (int64_t j = 0; j < out_sz; ++j) y[(n * f_out + f) * out_sz + j] += (*b)[f];
      }
    }
  }
  return y;
}

struct ConvSpec {
  std::string name;
  Shape data;
  Tuple kernel, stride, pad, dilate;
  int64_t num_filter = 1;
  int64_t num_group = 1;
  bool no_bias = false;
  // Deconvolution only.
  Tuple adj, target;
};

int64_t ConvOut(int64_t x, int64_t k, int64_t s, int64_t p, int64_t d) {
  return (x + 2 * p - (d * (k - 1) + 1)) / s + 1;
}

OpCase ConvCase(const ConvSpec& sp, bool deconv) {
  OpCase c;
  c.name = sp.name;
  c.op = deconv ? "Deconvolution" : "Convolution";
  c.attrs = {{"kernel", TupleStr(sp.kernel)},
             {"num_filter", std::to_string(sp.num_filter)},
             {"num_group", std::to_string(sp.num_group)},
             {"no_bias", sp.no_bias ? "True" : "False"}};
  if (!sp.stride.empty()) c.attrs["stride"] = TupleStr(sp.stride);
  if (!sp.pad.empty()) c.attrs["pad"] = TupleStr(sp.pad);
  if (!sp.dilate.empty()) c.attrs["dilate"] = TupleStr(sp.dilate);
  if (!sp.adj.empty()) c.attrs["adj"] = TupleStr(sp.adj);
  if (!sp.target.empty()) c.attrs["target_shape"] = TupleStr(sp.target);
  const int n = static_cast<int>(sp.kernel.size());
  Shape weight = Shape::UnknownDims(n + 2);
  Shape out = Shape::UnknownDims(n + 2);
  out[0] = sp.data[0];
  out[1] = sp.num_filter;
  if (!deconv) {
    weight[0] = sp.num_filter;
    weight[1] = sp.data[1] / sp.num_group;
  } else {
    weight[0] = sp.data[1];
    weight[1] = sp.num_filter / sp.num_group;
  }
  Tuple pad = sp.pad.empty() ? Tuple(n, 0) : sp.pad;
  for (int i = 0; i < n; ++i) {
    weight[2 + i] = sp.kernel[i];
    const int64_t s = sp.stride.empty() ? 1 : sp.stride[i];
    const int64_t d = sp.dilate.empty() ? 1 : sp.dilate[i];
    const int64_t dk = d * (sp.kernel[i] - 1) + 1;
    if (!deconv) {
      out[2 + i] = ConvOut(sp.data[2 + i], sp.kernel[i], s, pad[i], d);
    } else if (!sp.target.empty()) {
      out[2 + i] = sp.target[i];
      // The padding that yields the target (the excess split, odd element at the end).
      pad[i] = (s * (sp.data[2 + i] - 1) + dk - sp.target[i] + 1) / 2;
    } else {
      const int64_t a = sp.adj.empty() ? 0 : sp.adj[i];
      out[2 + i] = s * (sp.data[2 + i] - 1) + dk - 2 * pad[i] + a;
    }
  }
  c.shapes = {sp.data, weight};
  if (!sp.no_bias) c.shapes.push_back(Shape{sp.num_filter});
  const Geo geo = MakeGeo(sp.kernel, sp.stride, pad, sp.dilate);
  const bool no_bias = sp.no_bias;
  const int64_t groups = sp.num_group;
  c.reference = [=](const std::vector<Values>& in, const std::vector<Shape>& shapes) {
    const Values* b = no_bias ? nullptr : &in[2];
    return std::vector<Values>{deconv ? DeconvRef(in[0], in[1], b, shapes[0], out, geo, groups)
                                      : ConvRef(in[0], in[1], b, shapes[0], out, geo, groups)};
  };
  c.forward_tol32 = 1e-4;
  // oneDNN takes every float32 convolution and deconvolution with data.
  c.onednn = NumElements(sp.data) > 0 && NumElements(out) > 0;
  return c;
}

TEST(ConvConformance, Convolution) {
  std::vector<ConvSpec> specs = {
      {"conv 2-D", Shape{2, 3, 5, 5}, {3, 3}, {}, {}, {}, 4},
      {"conv stride 2 pad 1", Shape{2, 3, 5, 5}, {3, 3}, {2, 2}, {1, 1}, {}, 4},
      {"conv dilate 2 pad 1", Shape{2, 2, 6, 6}, {3, 3}, {}, {1, 1}, {2, 2}, 3},
      {"conv groups 2", Shape{2, 4, 5, 5}, {3, 3}, {}, {1, 1}, {}, 4, 2},
      {"conv depthwise", Shape{1, 3, 4, 4}, {3, 3}, {}, {1, 1}, {}, 3, 3},
      {"conv no_bias", Shape{2, 3, 4, 4}, {2, 2}, {}, {}, {}, 2, 1, true},
      {"conv rect kernel", Shape{2, 2, 5, 7}, {2, 3}, {1, 2}, {0, 1}, {}, 3},
      {"conv 1x1", Shape{3, 4, 3, 3}, {1, 1}, {}, {}, {}, 2},
      {"conv kernel = input", Shape{2, 2, 3, 3}, {3, 3}, {}, {}, {}, 2},
      {"conv 1-D", Shape{2, 3, 7}, {3}, {2}, {1}, {}, 4},
      {"conv 1-D dilate groups", Shape{2, 4, 9}, {3}, {}, {2}, {2}, 2, 2},
      {"conv 3-D", Shape{1, 2, 4, 4, 4}, {2, 2, 2}, {2, 1, 1}, {1, 0, 1}, {}, 2},
      {"conv 3-D groups", Shape{2, 2, 3, 3, 3}, {2, 2, 2}, {}, {}, {}, 2, 2},
      {"conv batch 1", Shape{1, 2, 5, 5}, {3, 3}, {}, {}, {}, 2},
      {"conv batch 9 (more samples than buffers)", Shape{9, 1, 3, 3}, {2, 2}, {}, {}, {}, 2},
      {"conv empty batch", Shape{0, 2, 4, 4}, {3, 3}, {}, {}, {}, 2},
      {"conv empty spatial dim, padded", Shape{1, 2, 0, 3}, {1, 2}, {}, {1, 0}, {}, 2},
  };
  for (const ConvSpec& s : specs) CheckOp(ConvCase(s, false));
}

// MXNet's legacy Convolution_v1 is Convolution with a 2-D kernel; other kernels are refused.
TEST(ConvConformance, ConvolutionV1) {
  std::vector<ConvSpec> specs = {
      {"conv_v1 2-D", Shape{2, 3, 5, 5}, {3, 3}, {}, {}, {}, 4},
      {"conv_v1 stride dilate pad", Shape{2, 2, 6, 6}, {3, 3}, {2, 2}, {1, 1}, {2, 2}, 3},
      {"conv_v1 groups no_bias", Shape{2, 4, 5, 5}, {3, 3}, {}, {1, 1}, {}, 4, 2, true},
  };
  for (const ConvSpec& s : specs) {
    OpCase c = ConvCase(s, false);
    c.op = "Convolution_v1";
    CheckOp(c);
  }
  std::vector<NodeEntry> in;
  for (const char* n : {"x", "w", "b"}) in.push_back({MakeVariableNode(n), 0, 0});
  absl::Status s =
      MakeOpNode("Convolution_v1", "c", {{"kernel", "(3,)"}, {"num_filter", "2"}}, in).status();
  EXPECT_NE(s.message().find("Convolution_v1 supports 2-D kernels only"), std::string::npos) << s;
  EXPECT_NE(s.message().find("'kernel'"), std::string::npos) << s;
}

TEST(ConvConformance, Deconvolution) {
  std::vector<ConvSpec> specs = {
      {"deconv 2-D", Shape{2, 3, 4, 4}, {3, 3}, {}, {}, {}, 4},
      {"deconv no bias (default)", Shape{2, 2, 3, 3}, {2, 2}, {}, {}, {}, 3, 1, true},
      {"deconv stride 2 pad 1 adj 1",
       Shape{2, 2, 3, 3},
       {3, 3},
       {2, 2},
       {1, 1},
       {},
       3,
       1,
       false,
       {1, 1}},
      {"deconv groups 2", Shape{2, 4, 3, 3}, {3, 3}, {}, {}, {}, 6, 2},
      {"deconv target_shape", Shape{1, 2, 3, 3}, {3, 3}, {2, 2}, {}, {}, 2, 1, false, {}, {6, 7}},
      {"deconv rect stride dilate", Shape{2, 2, 3, 4}, {2, 3}, {2, 1}, {0, 1}, {1, 2}, 2},
      {"deconv 1-D dilate 2", Shape{2, 3, 5}, {3}, {2}, {1}, {2}, 2, 1, false, {1}},
      {"deconv 3-D", Shape{1, 2, 2, 3, 2}, {2, 2, 2}, {2, 1, 2}, {}, {}, 2},
      {"deconv batch 9", Shape{9, 1, 2, 2}, {2, 2}, {}, {}, {}, 1},
      {"deconv empty batch", Shape{0, 2, 3, 3}, {2, 2}, {}, {}, {}, 2},
      {"deconv empty spatial dim", Shape{1, 2, 0, 3}, {2, 2}, {}, {}, {}, 2, 1, false},
  };
  for (const ConvSpec& s : specs) CheckOp(ConvCase(s, true));
}

TEST(ConvConformance, LargeSamplesForward) {
  // Per-sample products above the threshold for one-sample-at-a-time parallel GEMMs.
  OpCase c =
      ConvCase({"conv large sample", Shape{2, 16, 32, 32}, {3, 3}, {}, {1, 1}, {}, 40}, false);
  c.check_backward = false;
  CheckOp(c);
  OpCase d =
      ConvCase({"deconv large sample", Shape{2, 40, 32, 32}, {3, 3}, {}, {1, 1}, {}, 16}, true);
  d.check_backward = false;
  CheckOp(d);
}

// ---------------------------------------------------------------- direct backward test

Tensor RandomTensor(const Shape& s, std::mt19937_64* rng) {
  std::uniform_real_distribution<double> u(-1, 1);
  Values v(NumElements(s));
  for (double& x : v) x = u(*rng);
  return Tensor::FromVector(s, v, DType::kFloat64);
}

void ExpectNear(const Values& got, const Values& want, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(got[i], want[i], 1e-9 * (1 + std::abs(want[i]))) << what << " element " << i;
  }
}

// Backward of a convolution with samples large enough for the one-at-a-time
// path, against plain-loop gradients (finite differences would be too slow here).
void CheckLargeBackward(bool deconv) {
  const std::string op = deconv ? "Deconvolution" : "Convolution";
  const Shape data = deconv ? Shape{2, 64, 32, 32} : Shape{2, 32, 32, 32};
  const int64_t filters = deconv ? 32 : 64;
  const int64_t groups = 2;
  const int64_t space = 32 * 32;
  AttrMap attrs = {{"kernel", "(3, 3)"},
                   {"pad", "(1, 1)"},
                   {"num_filter", std::to_string(filters)},
                   {"num_group", std::to_string(groups)},
                   {"no_bias", "False"}};
  const Shape weight = deconv ? Shape{64, filters / groups, 3, 3} : Shape{filters, 16, 3, 3};
  const Shape out{2, filters, 32, 32};
  NodePtr node =
      MakeOpNode(absl::StrCat("_backward_", op), "b", attrs,
                 {NodeEntry{MakeVariableNode("g"), 0, 0}, NodeEntry{MakeVariableNode("x"), 0, 0},
                  NodeEntry{MakeVariableNode("w"), 0, 0}})
          .value();
  const KernelInfo* k = KernelRegistry::Find(absl::StrCat("_backward_", op), DeviceType::kCPU);
  ASSERT_NE(k, nullptr);
  ASSERT_NE(k->workspace, nullptr);
  std::mt19937_64 rng(7);
  Tensor dy = RandomTensor(out, &rng), x = RandomTensor(data, &rng), w = RandomTensor(weight, &rng);
  KernelContext ctx;
  ctx.attrs = &node->attrs;
  ctx.device = GetDevice(Context::CPU(0)).value();
  ctx.is_train = true;
  ctx.inputs = {dy, x, w};
  ctx.outputs = {Tensor::Empty(data, DType::kFloat64).value(),
                 Tensor::Empty(weight, DType::kFloat64).value(),
                 Tensor::Empty(Shape{filters}, DType::kFloat64).value()};
  ctx.req = {OpReq::kWrite, OpReq::kWrite, OpReq::kWrite};
  size_t bytes = k->workspace(node->attrs, {out, data, weight}, {data, weight, Shape{filters}},
                              DType::kFloat64);
  ctx.workspace = Tensor::Empty(Shape{static_cast<int64_t>(bytes)}, DType::kUint8).value();
  ASSERT_TRUE(k->fn(ctx).ok());

  // y is linear in x and in w, so the gradients of L = <dy, y> satisfy
  // <grad_x, v> = <dy, conv(v, w)> and <grad_w, u> = <dy, conv(x, u)> for any v, u;
  // checked for random v, u with the plain-loop reference.
  Geo geo = MakeGeo({3, 3}, {}, {1, 1}, {});
  auto forward = [&](const Values& xv, const Values& wv) {
    return deconv ? DeconvRef(xv, wv, nullptr, data, out, geo, groups)
                  : ConvRef(xv, wv, nullptr, data, out, geo, groups);
  };
  auto dotp = [](const Values& a, const Values& b) {
    double s = 0;
    for (size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
    return s;
  };
  const Values dyv = dy.ToDoubles(), xv = x.ToDoubles(), wv = w.ToDoubles();
  for (int trial = 0; trial < 2; ++trial) {
    Values v = RandomTensor(data, &rng).ToDoubles(), u = RandomTensor(weight, &rng).ToDoubles();
    const double want_x = dotp(dyv, forward(v, wv));
    const double want_w = dotp(dyv, forward(xv, u));
    EXPECT_NEAR(dotp(ctx.outputs[0].ToDoubles(), v), want_x, 1e-8 * (1 + std::abs(want_x)))
        << op << " data gradient";
    EXPECT_NEAR(dotp(ctx.outputs[1].ToDoubles(), u), want_w, 1e-8 * (1 + std::abs(want_w)))
        << op << " weight gradient";
  }
  Values db(filters, 0.0);
  for (int64_t n = 0; n < 2; ++n) {
    for (int64_t f = 0; f < filters; ++f) {
      for (int64_t j = 0; j < space; ++j) db[f] += dyv[(n * filters + f) * space + j];
    }
  }
  ExpectNear(ctx.outputs[2].ToDoubles(), db, op + " bias gradient");
}

TEST(ConvKernelTest, LargeSampleBackward) {
  CheckLargeBackward(false);
  CheckLargeBackward(true);
}

}  // namespace
}  // namespace testing

}  // namespace symx
