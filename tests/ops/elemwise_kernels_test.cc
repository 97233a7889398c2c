// Direct tests of the elementwise, broadcast and activation CPU kernels for
// what the conformance tables cannot reach: arrays large enough for the
// thread pool, float16 backward kernels, rrelu's random training slopes,
// mixed-dtype Cast/where, in-place aliasing, errors, and the cost of a
// one-element op.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/device.h"
#include "devices/kernel.h"
#include "devices/tensor.h"
#include "gmock/gmock.h"
#include "graph/node.h"
#include "gtest/gtest.h"
#include "tests/ops/conformance.h"

namespace symx {
namespace {

using ::symx::testing::BroadcastAt;
using ::testing::HasSubstr;

struct KernelRun {
  NodePtr node;
  KernelContext ctx;
};

// A node of `op` over fresh variables, and a context over the given tensors.
KernelRun MakeRun(const std::string& op, AttrMap attrs, std::vector<Tensor> inputs,
                  std::vector<Tensor> outputs, bool is_train = false) {
  std::vector<NodeEntry> entries;
  for (size_t i = 0; i < inputs.size(); ++i) {
    entries.push_back(NodeEntry{MakeVariableNode(absl::StrCat("in", i)), 0, 0});
  }
  auto node = MakeOpNode(op, "n", std::move(attrs), entries);
  EXPECT_TRUE(node.ok()) << node.status();
  KernelRun r;
  r.node = *node;
  r.ctx.attrs = &r.node->attrs;
  r.ctx.device = GetDevice(Context::CPU(0)).value();
  r.ctx.is_train = is_train;
  r.ctx.inputs = std::move(inputs);
  r.ctx.outputs = std::move(outputs);
  r.ctx.req.assign(r.ctx.outputs.size(), OpReq::kWrite);
  return r;
}

absl::Status Call(const std::string& op, const KernelRun& r) {
  const KernelInfo* k = KernelRegistry::Find(op, DeviceType::kCPU);
  if (k == nullptr) return absl::NotFoundError(absl::StrCat("no kernel for ", op));
  return k->fn(r.ctx);
}

absl::Status RunOp(const std::string& op, AttrMap attrs, std::vector<Tensor> inputs,
                   std::vector<Tensor> outputs, bool is_train = false) {
  KernelRun r = MakeRun(op, std::move(attrs), std::move(inputs), std::move(outputs), is_train);
  return Call(op, r);
}

std::vector<double> Random(int64_t n, double lo, double hi, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<double> v(n);
  for (double& x : v) x = u(rng);
  return v;
}

Tensor Make(const Shape& s, const std::vector<double>& v, DType t = DType::kFloat32) {
  return Tensor::FromVector(s, v, t);
}

Tensor Empty(const Shape& s, DType t = DType::kFloat32) { return Tensor::Empty(s, t).value(); }

void ExpectNear(const std::vector<double>& got, const std::vector<double>& want, double tol,
                const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::fabs(got[i] - want[i]) > tol * (1 + std::fabs(want[i]))) {
      ADD_FAILURE() << what << ": element " << i << " is " << got[i] << ", expected " << want[i];
      return;
    }
  }
}

// ---------------------------------------------------------------------------
// Large arrays (the thread-pool paths).

TEST(ElemwiseKernels, LargeUnaryAndScalar) {
  const int64_t n = 200003;
  std::vector<double> x = Random(n, -2, 2, 1);
  Tensor in = Make(Shape{n}, x);
  Tensor out = Empty(Shape{n});
  ASSERT_TRUE(RunOp("exp", {}, {in}, {out}).ok());
  std::vector<double> want(n);
  for (int64_t i = 0; i < n; ++i) want[i] = std::exp(static_cast<float>(x[i]));
  ExpectNear(out.ToDoubles(), want, 1e-6, "exp");

  ASSERT_TRUE(RunOp("_rminus_scalar", {{"scalar", "3"}}, {in}, {out}).ok());
  for (int64_t i = 0; i < n; ++i) want[i] = 3 - static_cast<float>(x[i]);
  ExpectNear(out.ToDoubles(), want, 1e-6, "_rminus_scalar");
}

struct BroadcastCase {
  Shape lhs, rhs, out;
};

TEST(ElemwiseKernels, LargeBroadcastForwardAndBackward) {
  for (const BroadcastCase& c : {
           BroadcastCase{Shape{600, 300}, Shape{300}, Shape{600, 300}},     // bias: rows
           BroadcastCase{Shape{600, 1}, Shape{600, 300}, Shape{600, 300}},  // per-row scale
           BroadcastCase{Shape{8, 16, 30, 30}, Shape{1, 16, 1, 1},
                         Shape{8, 16, 30, 30}},  // per channel
           BroadcastCase{Shape{3, 1, 5000}, Shape{1, 7, 5000}, Shape{3, 7, 5000}},
           BroadcastCase{Shape{1}, Shape{40000}, Shape{40000}},
           BroadcastCase{Shape{2, 20000}, Shape{1, 20000}, Shape{2, 20000}},  // few wide rows
       }) {
    SCOPED_TRACE(absl::StrCat(c.lhs.ToString(), " ", c.rhs.ToString()));
    const int64_t nl = c.lhs.Size(), nr = c.rhs.Size(), no = c.out.Size();
    std::vector<double> l = Random(nl, 0.5, 1.5, 2), r = Random(nr, 0.5, 1.5, 3);
    std::vector<double> g = Random(no, -1, 1, 4);
    for (DType t : {DType::kFloat64, DType::kFloat32}) {
      const double tol = t == DType::kFloat64 ? 1e-12 : 1e-4;
      Tensor lt = Make(c.lhs, l, t), rt = Make(c.rhs, r, t), gt = Make(c.out, g, t);
      std::vector<double> lv = lt.ToDoubles(), rv = rt.ToDoubles(), gv = gt.ToDoubles();
      Tensor out = Empty(c.out, t);
      ASSERT_TRUE(RunOp("broadcast_mul", {}, {lt, rt}, {out}).ok());
      std::vector<double> want(no);
      for (int64_t i = 0; i < no; ++i)
        want[i] = BroadcastAt(lv, c.lhs, c.out, i) * BroadcastAt(rv, c.rhs, c.out, i);
      ExpectNear(out.ToDoubles(), want, tol, "broadcast_mul forward");

      Tensor dl = Empty(c.lhs, t), dr = Empty(c.rhs, t);
      ASSERT_TRUE(RunOp("_backward_broadcast_mul", {}, {gt, lt, rt}, {dl, dr}).ok());
      std::vector<double> wl(nl, 0.0), wr(nr, 0.0);
      // Accumulate the reference by mapping each output position back.
      for (int64_t i = 0; i < no; ++i) {
        // Index of the operand element read at position i.
        auto index_of = [&](const Shape& from) {
          int64_t idx = 0, stride = 1, rest = i;
          for (int d = c.out.ndim() - 1; d >= 0; --d) {
            int64_t coord = rest % c.out[d];
            rest /= c.out[d];
            int fd = d - (c.out.ndim() - from.ndim());
            if (fd < 0) continue;
            if (from[fd] != 1) idx += coord * stride;
            stride *= from[fd];
          }
          return idx;
        };
        int64_t li = index_of(c.lhs), ri = index_of(c.rhs);
        wl[li] += gv[i] * rv[ri];
        wr[ri] += gv[i] * lv[li];
      }
      ExpectNear(dl.ToDoubles(), wl, tol * 10, "lhs gradient");
      ExpectNear(dr.ToDoubles(), wr, tol * 10, "rhs gradient");

      Tensor sl = Empty(c.lhs, t), sr = Empty(c.rhs, t);
      ASSERT_TRUE(RunOp("_backward_broadcast_sub", {}, {gt}, {sl, sr}).ok());
      std::vector<double> ws_l(nl, 0.0), ws_r(nr, 0.0);
      // Sums of g over the broadcast dims (sub: lhs +, rhs -).
      for (int64_t i = 0; i < no; ++i) {
        int64_t idx_l = 0, idx_r = 0;
        {
          int64_t s1 = 1, s2 = 1, rest = i;
          for (int d = c.out.ndim() - 1; d >= 0; --d) {
            int64_t coord = rest % c.out[d];
            rest /= c.out[d];
            int fl = d - (c.out.ndim() - c.lhs.ndim());
            int fr = d - (c.out.ndim() - c.rhs.ndim());
            if (fl >= 0) {
              if (c.lhs[fl] != 1) idx_l += coord * s1;
              s1 *= c.lhs[fl];
            }
            if (fr >= 0) {
              if (c.rhs[fr] != 1) idx_r += coord * s2;
              s2 *= c.rhs[fr];
            }
          }
        }
        ws_l[idx_l] += gv[i];
        ws_r[idx_r] -= gv[i];
      }
      ExpectNear(sl.ToDoubles(), ws_l, tol * 10, "sub lhs gradient");
      ExpectNear(sr.ToDoubles(), ws_r, tol * 10, "sub rhs gradient");
    }
  }
}

TEST(ElemwiseKernels, LargeMiscOps) {
  const int64_t n = 100000;
  std::vector<double> a = Random(n, -1, 1, 5), b = Random(n, -1, 1, 6), c = Random(n, -1, 1, 7);
  Tensor ta = Make(Shape{n}, a, DType::kFloat64), tb = Make(Shape{n}, b, DType::kFloat64),
         tc = Make(Shape{n}, c, DType::kFloat64);
  Tensor sum = Empty(Shape{n}, DType::kFloat64);
  ASSERT_TRUE(RunOp("ElementWiseSum", {{"num_args", "3"}}, {ta, tb, tc}, {sum}).ok());
  std::vector<double> want(n);
  for (int64_t i = 0; i < n; ++i) want[i] = a[i] + b[i] + c[i];
  ExpectNear(sum.ToDoubles(), want, 1e-14, "ElementWiseSum");

  Tensor half = Empty(Shape{n}, DType::kFloat16);
  ASSERT_TRUE(RunOp("Cast", {{"dtype", "float16"}}, {ta}, {half}).ok());
  Tensor back = Empty(Shape{n}, DType::kFloat64);
  ASSERT_TRUE(RunOp("_backward_Cast", {{"dtype", "float16"}}, {half}, {back}).ok());
  ExpectNear(back.ToDoubles(), a, 1e-3, "Cast round trip through float16");

  Tensor ones = Empty(Shape{n}, DType::kInt64);
  ASSERT_TRUE(RunOp("ones_like", {}, {ones}, {ones}).ok());
  for (double v : ones.ToDoubles()) ASSERT_EQ(v, 1.0);
}

// ---------------------------------------------------------------------------
// float16 backward kernels (the conformance harness checks float16 forward only).

struct GradCase {
  std::string op;
  AttrMap attrs;
  std::function<double(double, double)> grad;  // (g, v) -> dx
  double lo, hi;
};

TEST(ElemwiseKernels, Float16BackwardKernels) {
  const std::vector<GradCase> cases = {
      {"_backward_sqrt", {}, [](double g, double y) { return g * 0.5 / y; }, 0.5, 2},
      {"_backward_relu", {}, [](double g, double y) { return y > 0 ? g : 0.0; }, -1, 1},
      {"_backward_sigmoid", {}, [](double g, double y) { return g * y * (1 - y); }, 0.1, 0.9},
      {"_backward_tanh", {}, [](double g, double y) { return g * (1 - y * y); }, -0.9, 0.9},
      {"_backward_square", {}, [](double g, double x) { return 2 * g * x; }, -1, 1},
      {"_backward_abs",
       {},
       [](double g, double x) { return x > 0 ? g : (x < 0 ? -g : 0.0); },
       -1,
       1},
      {"_backward_rdiv_scalar",
       {{"scalar", "2"}},
       [](double g, double x) { return -2 * g / (x * x); },
       0.5,
       2},
      {"_backward_maximum_scalar",
       {{"scalar", "0.25"}},
       [](double g, double x) { return x >= 0.25 ? g : 0.0; },
       -1,
       1},
      {"_backward_minimum_scalar",
       {{"scalar", "0.25"}},
       [](double g, double x) { return x <= 0.25 ? g : 0.0; },
       -1,
       1},
      {"_backward_power_scalar",
       {{"scalar", "3"}},
       [](double g, double x) { return 3 * g * x * x; },
       -1,
       1},
      {"_backward_rpower_scalar",
       {{"scalar", "2"}},
       [](double g, double y) { return g * y * std::log(2.0); },
       0.5,
       2},
      {"_backward_clip",
       {{"a_min", "-0.5"}, {"a_max", "0.5"}},
       [](double g, double x) { return (x < -0.5 || x > 0.5) ? 0.0 : g; },
       -1,
       1},
  };
  const int64_t n = 64;
  for (const GradCase& c : cases) {
    Tensor g = Make(Shape{n}, Random(n, -1, 1, 8), DType::kFloat16);
    Tensor v = Make(Shape{n}, Random(n, c.lo, c.hi, 9), DType::kFloat16);
    Tensor out = Empty(Shape{n}, DType::kFloat16);
    ASSERT_TRUE(RunOp(c.op, c.attrs, {g, v}, {out}).ok()) << c.op;
    std::vector<double> gv = g.ToDoubles(), vv = v.ToDoubles(), want(n);
    for (int64_t i = 0; i < n; ++i) want[i] = c.grad(gv[i], vv[i]);
    ExpectNear(out.ToDoubles(), want, 4e-3, c.op);
  }
}

TEST(ElemwiseKernels, Float16BinaryBackward) {
  const int64_t n = 40;
  Tensor g = Make(Shape{4, 10}, Random(n, -1, 1, 10), DType::kFloat16);
  Tensor l = Make(Shape{4, 10}, Random(n, 0.5, 1.5, 11), DType::kFloat16);
  Tensor r = Make(Shape{1, 10}, Random(10, 0.5, 1.5, 12), DType::kFloat16);
  Tensor dl = Empty(Shape{4, 10}, DType::kFloat16), dr = Empty(Shape{1, 10}, DType::kFloat16);
  ASSERT_TRUE(RunOp("_backward_broadcast_power", {}, {g, l, r}, {dl, dr}).ok());
  std::vector<double> gv = g.ToDoubles(), lv = l.ToDoubles(), rv = r.ToDoubles();
  std::vector<double> wl(n), wr(10, 0.0);
  for (int64_t i = 0; i < n; ++i) {
    double a = lv[i], b = rv[i % 10];
    wl[i] = gv[i] * b * std::pow(a, b - 1);
    wr[i % 10] += gv[i] * std::pow(a, b) * std::log(a);
  }
  ExpectNear(dl.ToDoubles(), wl, 4e-3, "power lhs gradient");
  ExpectNear(dr.ToDoubles(), wr, 4e-3, "power rhs gradient");

  Tensor rr = Make(Shape{4, 10}, Random(n, 0.5, 1.5, 13), DType::kFloat16);
  Tensor d1 = Empty(Shape{4, 10}, DType::kFloat16), d2 = Empty(Shape{4, 10}, DType::kFloat16);
  ASSERT_TRUE(RunOp("_backward_maximum", {}, {g, l, rr}, {d1, d2}).ok());
  std::vector<double> rrv = rr.ToDoubles(), w1(n), w2(n);
  for (int64_t i = 0; i < n; ++i) {
    w1[i] = lv[i] >= rrv[i] ? gv[i] : 0.0;
    w2[i] = lv[i] >= rrv[i] ? 0.0 : gv[i];
  }
  ExpectNear(d1.ToDoubles(), w1, 0, "max lhs gradient");
  ExpectNear(d2.ToDoubles(), w2, 0, "max rhs gradient");
}

TEST(ElemwiseKernels, Float16ActivationBackward) {
  const int64_t n = 50;
  for (const std::string act :
       {"relu", "sigmoid", "log_sigmoid", "mish", "tanh", "softrelu", "softsign"}) {
    Tensor x = Make(Shape{n}, Random(n, -3, 3, 14), DType::kFloat16);
    Tensor y = Empty(Shape{n}, DType::kFloat16);
    ASSERT_TRUE(RunOp("Activation", {{"act_type", act}}, {x}, {y}).ok());
    Tensor g = Make(Shape{n}, Random(n, -1, 1, 15), DType::kFloat16);
    Tensor dx = Empty(Shape{n}, DType::kFloat16);
    // mish and softsign differentiate from the input too (ActivationNeedsData).
    const bool needs_x = act == "mish" || act == "softsign";
    std::vector<Tensor> bin = {g, y};
    if (needs_x) bin.push_back(x);
    ASSERT_TRUE(RunOp("_backward_Activation", {{"act_type", act}}, bin, {dx}).ok());
    // The same in float64.
    Tensor x64 = Make(Shape{n}, x.ToDoubles(), DType::kFloat64);
    Tensor y64 = Empty(Shape{n}, DType::kFloat64);
    ASSERT_TRUE(RunOp("Activation", {{"act_type", act}}, {x64}, {y64}).ok());
    Tensor g64 = Make(Shape{n}, g.ToDoubles(), DType::kFloat64);
    Tensor dx64 = Empty(Shape{n}, DType::kFloat64);
    std::vector<Tensor> bin64 = {g64, y64};
    if (needs_x) bin64.push_back(x64);
    ASSERT_TRUE(RunOp("_backward_Activation", {{"act_type", act}}, bin64, {dx64}).ok());
    ExpectNear(y.ToDoubles(), y64.ToDoubles(), 4e-3, act + " forward");
    ExpectNear(dx.ToDoubles(), dx64.ToDoubles(), 1e-2, act + " backward");
  }
}

// ---------------------------------------------------------------------------
// rrelu

TEST(ElemwiseKernels, RReLUTrainingDrawsSlopesInRange) {
  const int64_t n = 4000;
  std::vector<double> x = Random(n, -1, 1, 16);
  Tensor in = Make(Shape{40, 100}, x, DType::kFloat64);
  Tensor out = Empty(Shape{40, 100}, DType::kFloat64),
         mask = Empty(Shape{40, 100}, DType::kFloat64);
  AttrMap attrs = {{"act_type", "rrelu"}, {"lower_bound", "0.1"}, {"upper_bound", "0.4"}};
  ASSERT_TRUE(RunOp("LeakyReLU", attrs, {in}, {out, mask}, /*is_train=*/true).ok());
  std::vector<double> m = mask.ToDoubles(), y = out.ToDoubles();
  double lo = 1, hi = 0, sum = 0;
  for (int64_t i = 0; i < n; ++i) {
    lo = std::min(lo, m[i]);
    hi = std::max(hi, m[i]);
    sum += m[i];
    ASSERT_DOUBLE_EQ(y[i], x[i] > 0 ? x[i] : m[i] * x[i]) << i;
  }
  EXPECT_GE(lo, 0.1);
  EXPECT_LT(hi, 0.4);
  EXPECT_NEAR(sum / n, 0.25, 0.01);  // uniform: mean (lo + hi) / 2
  // Two passes draw different slopes.
  Tensor mask2 = Empty(Shape{40, 100}, DType::kFloat64);
  ASSERT_TRUE(RunOp("LeakyReLU", attrs, {in}, {out, mask2}, true).ok());
  EXPECT_NE(mask2.ToDoubles(), m);

  // The backward uses the stored slopes: (ograd, data, output, mask).
  ASSERT_TRUE(RunOp("LeakyReLU", attrs, {in}, {out, mask}, true).ok());
  m = mask.ToDoubles();
  std::vector<double> gv = Random(n, -1, 1, 17);
  Tensor g = Make(Shape{40, 100}, gv, DType::kFloat64);
  Tensor dx = Empty(Shape{40, 100}, DType::kFloat64);
  ASSERT_TRUE(RunOp("_backward_LeakyReLU", attrs, {g, in, out, mask}, {dx}).ok());
  std::vector<double> want(n);
  for (int64_t i = 0; i < n; ++i) want[i] = x[i] > 0 ? gv[i] : m[i] * gv[i];
  ExpectNear(dx.ToDoubles(), want, 1e-15, "rrelu backward");

  // Inference: the mean slope, also written to the mask.
  ASSERT_TRUE(RunOp("LeakyReLU", attrs, {in}, {out, mask}, /*is_train=*/false).ok());
  for (double v : mask.ToDoubles()) ASSERT_DOUBLE_EQ(v, 0.25);
}

// ---------------------------------------------------------------------------
// Mixed dtypes.

TEST(ElemwiseKernels, CastBetweenDtypes) {
  Tensor in = Make(Shape{5}, {-2.7, -0.5, 0, 1.5, 100.9}, DType::kFloat64);
  Tensor i32 = Empty(Shape{5}, DType::kInt32);
  ASSERT_TRUE(RunOp("Cast", {{"dtype", "int32"}}, {in}, {i32}).ok());
  EXPECT_EQ(i32.ToDoubles(), (std::vector<double>{-2, 0, 0, 1, 100}));
  Tensor b = Empty(Shape{5}, DType::kBool);
  ASSERT_TRUE(RunOp("Cast", {{"dtype", "bool"}}, {in}, {b}).ok());
  EXPECT_EQ(b.ToDoubles(), (std::vector<double>{1, 1, 0, 1, 1}));
  Tensor u8 = Empty(Shape{5}, DType::kUint8);
  ASSERT_TRUE(RunOp("Cast", {{"dtype", "uint8"}}, {i32}, {u8}).ok());
  Tensor f16 = Empty(Shape{5}, DType::kFloat16);
  ASSERT_TRUE(RunOp("Cast", {{"dtype", "float16"}}, {u8}, {f16}).ok());
  EXPECT_EQ(f16.ToDoubles()[4], 100.0);
  // _backward_Cast: the gradient (in the cast dtype) back in the input's dtype.
  Tensor g = Make(Shape{5}, {0.5, 1, 2, 3, 4}, DType::kFloat16);
  Tensor dx = Empty(Shape{5}, DType::kFloat32);
  ASSERT_TRUE(RunOp("_backward_Cast", {{"dtype", "float16"}}, {g}, {dx}).ok());
  EXPECT_EQ(dx.ToDoubles(), (std::vector<double>{0.5, 1, 2, 3, 4}));
}

TEST(ElemwiseKernels, WhereWithIntegerConditionAndData) {
  Tensor cond = Make(Shape{2, 3}, {0, 1, 2, 0, -1, 0}, DType::kInt32);
  Tensor x = Make(Shape{2, 3}, {1, 2, 3, 4, 5, 6}, DType::kInt64);
  Tensor y = Make(Shape{2, 3}, {-1, -2, -3, -4, -5, -6}, DType::kInt64);
  Tensor out = Empty(Shape{2, 3}, DType::kInt64);
  ASSERT_TRUE(RunOp("where", {}, {cond, x, y}, {out}).ok());
  EXPECT_EQ(out.ToDoubles(), (std::vector<double>{-1, 2, 3, -4, 5, -6}));
  // A float16 condition with a -0 (false) and a NaN (true); bool data.
  Tensor hc = Make(Shape{3}, {-0.0, std::nan(""), 0.5}, DType::kFloat16);
  Tensor hx = Make(Shape{3, 2}, {1, 1, 1, 1, 1, 1}, DType::kBool);
  Tensor hy = Make(Shape{3, 2}, {0, 0, 0, 0, 0, 0}, DType::kBool);
  Tensor hout = Empty(Shape{3, 2}, DType::kBool);
  ASSERT_TRUE(RunOp("where", {}, {hc, hx, hy}, {hout}).ok());
  EXPECT_EQ(hout.ToDoubles(), (std::vector<double>{0, 0, 1, 1, 1, 1}));
  // Backward: (ograd, cond) -> (zeros, ograd where cond, ograd elsewhere).
  Tensor g = Make(Shape{2, 3}, {1, 2, 3, 4, 5, 6}, DType::kFloat32);
  Tensor gc = Make(Shape{2, 3}, {9, 9, 9, 9, 9, 9}, DType::kInt32);
  Tensor gx = Empty(Shape{2, 3}), gy = Empty(Shape{2, 3});
  ASSERT_TRUE(RunOp("_backward_where", {}, {g, cond}, {gc, gx, gy}).ok());
  EXPECT_EQ(gc.ToDoubles(), (std::vector<double>(6, 0.0)));
  EXPECT_EQ(gx.ToDoubles(), (std::vector<double>{0, 2, 3, 0, 5, 0}));
  EXPECT_EQ(gy.ToDoubles(), (std::vector<double>{1, 0, 0, 4, 0, 6}));
}

// ---------------------------------------------------------------------------
// In place, errors, cost.

TEST(ElemwiseKernels, InPlace) {
  const int64_t n = 50000;  // large enough for the pool
  std::vector<double> x = Random(n, -1, 1, 18);
  Tensor t = Make(Shape{n}, x, DType::kFloat64);
  ASSERT_TRUE(RunOp("sigmoid", {}, {t}, {t}).ok());
  std::vector<double> got = t.ToDoubles();
  for (int64_t i = 0; i < n; ++i) ASSERT_NEAR(got[i], 1 / (1 + std::exp(-x[i])), 1e-12);

  // broadcast_add writing over its full-size lhs.
  Tensor l = Make(Shape{500, 100}, Random(n, -1, 1, 19), DType::kFloat64);
  std::vector<double> lv = l.ToDoubles();
  Tensor r = Make(Shape{100}, Random(100, -1, 1, 20), DType::kFloat64);
  std::vector<double> rv = r.ToDoubles();
  ASSERT_TRUE(RunOp("broadcast_add", {}, {l, r}, {l}).ok());
  got = l.ToDoubles();
  for (int64_t i = 0; i < n; ++i) ASSERT_DOUBLE_EQ(got[i], lv[i] + rv[i % 100]);

  // ElementWiseSum into its first input.
  Tensor a = Make(Shape{4}, {1, 2, 3, 4}), b = Make(Shape{4}, {10, 20, 30, 40}),
         c = Make(Shape{4}, {100, 200, 300, 400}), d = Make(Shape{4}, {1000, 0, 0, 0});
  ASSERT_TRUE(RunOp("ElementWiseSum", {{"num_args", "4"}}, {a, b, c, d}, {a}).ok());
  EXPECT_EQ(a.ToDoubles(), (std::vector<double>{1111, 222, 333, 444}));
}

TEST(ElemwiseKernels, ErrorsNameTheOpAndDtype) {
  Tensor i = Make(Shape{3}, {1, 2, 3}, DType::kInt32);
  Tensor o = Empty(Shape{3}, DType::kInt32);
  absl::Status s = RunOp("exp", {}, {i}, {o});
  EXPECT_EQ(s.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(s.message(), HasSubstr("exp"));
  EXPECT_THAT(s.message(), HasSubstr("int32"));
  s = RunOp("broadcast_add", {}, {i, i}, {o});
  EXPECT_THAT(s.message(), HasSubstr("int32"));
  // Shapes that do not broadcast (the schema would reject them first).
  Tensor a = Empty(Shape{2, 3}), b = Empty(Shape{4}), out = Empty(Shape{2, 3});
  s = RunOp("broadcast_mul", {}, {a, b}, {out});
  EXPECT_THAT(s.message(), HasSubstr("do not broadcast"));
  // prelu with a gamma of the wrong length.
  Tensor x = Empty(Shape{2, 3}), gamma = Empty(Shape{2}), y = Empty(Shape{2, 3});
  s = RunOp("LeakyReLU", {{"act_type", "prelu"}}, {x, gamma}, {y});
  EXPECT_THAT(s.message(), HasSubstr("gamma"));
}

// Every op of these families has a CPU kernel.
TEST(ElemwiseKernels, EveryOpHasAKernel) {
  for (const char* op : {"exp",
                         "log",
                         "negative",
                         "sqrt",
                         "square",
                         "abs",
                         "relu",
                         "sigmoid",
                         "tanh",
                         "_backward_sqrt",
                         "_backward_relu",
                         "_backward_sigmoid",
                         "_backward_tanh",
                         "_backward_square",
                         "_backward_abs",
                         "elemwise_add",
                         "elemwise_sub",
                         "elemwise_mul",
                         "elemwise_div",
                         "_maximum",
                         "_minimum",
                         "_power",
                         "_backward_maximum",
                         "_backward_minimum",
                         "_backward_power",
                         "_plus_scalar",
                         "_minus_scalar",
                         "_rminus_scalar",
                         "_mul_scalar",
                         "_div_scalar",
                         "_rdiv_scalar",
                         "_maximum_scalar",
                         "_minimum_scalar",
                         "_power_scalar",
                         "_rpower_scalar",
                         "_backward_rdiv_scalar",
                         "_backward_maximum_scalar",
                         "_backward_minimum_scalar",
                         "_backward_power_scalar",
                         "_backward_rpower_scalar",
                         "broadcast_add",
                         "broadcast_sub",
                         "broadcast_mul",
                         "broadcast_div",
                         "broadcast_maximum",
                         "broadcast_minimum",
                         "broadcast_power",
                         "_backward_broadcast_add",
                         "_backward_broadcast_sub",
                         "_backward_broadcast_mul",
                         "_backward_broadcast_div",
                         "_backward_broadcast_maximum",
                         "_backward_broadcast_minimum",
                         "_backward_broadcast_power",
                         "ElementWiseSum",
                         "zeros_like",
                         "ones_like",
                         "BlockGrad",
                         "_copy",
                         "Cast",
                         "_backward_Cast",
                         "where",
                         "_backward_where",
                         "clip",
                         "_backward_clip",
                         "Activation",
                         "_backward_Activation",
                         "LeakyReLU",
                         "_backward_LeakyReLU"}) {
    EXPECT_NE(KernelRegistry::Find(op, DeviceType::kCPU), nullptr) << op;
  }
}

// A one-element op must cost well under a microsecond: no pool dispatch, no
// allocation. The bound is loose so a loaded machine does not flake.
TEST(ElemwiseKernels, OneElementOpIsCheap) {
  Tensor x = Make(Shape{1}, {0.5});
  Tensor y = Empty(Shape{1});
  Tensor b = Make(Shape{1}, {0.25});
  for (const std::string op : {"relu", "broadcast_add", "_plus_scalar", "Activation"}) {
    AttrMap attrs;
    std::vector<Tensor> in = {x};
    if (op == "broadcast_add") in.push_back(b);
    if (op == "_plus_scalar") attrs["scalar"] = "1";
    if (op == "Activation") attrs["act_type"] = "tanh";
    KernelRun r = MakeRun(op, attrs, in, {y});
    const KernelInfo* k = KernelRegistry::Find(op, DeviceType::kCPU);
    ASSERT_NE(k, nullptr);
    const int iters = 200000;
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < iters; ++i) {
      if (!k->fn(r.ctx).ok()) FAIL();
    }
    double ns =
        std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count() /
        iters;
    std::printf("%s on one element: %.1f ns\n", op.c_str(), ns);
    EXPECT_LT(ns, 500) << op;
  }
}

}  // namespace
}  // namespace symx
