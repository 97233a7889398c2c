// Tests of the optimizer family (graph/ops/optimizer.cc): every update op's
// output and written states against MXNet 1.9.1's update rules written out
// here in double (parameters exact in float32, so the float64 kernels agree
// to rounding), in place and not (nag_mom_update's momentum reads the output
// when it is the weight), the mixed-precision forms against the float32 op
// on the master copy, the schemas (states are auxiliary, mp_ dtypes), and
// the errors. The optimizers that call these ops are checked against MXNet's
// numbers in tests/python/test_optimizer.py.
#include "graph/ops/optimizer.h"

#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "devices/dtype_switch.h"
#include "devices/kernel.h"
#include "devices/tensor.h"
#include "gmock/gmock.h"
#include "graph/error.h"
#include "graph/node.h"
#include "graph/op.h"
#include "graph/symbol.h"
#include "gtest/gtest.h"
#include "tests/ops/conformance.h"
#include "tests/ops/kernel_calls.h"
#include "tests/ops/kernel_runs.h"

namespace symx {
namespace {

using kernel_runs::Empty;
using kernel_runs::ExpectNear;
using kernel_runs::Make;
using kernel_runs::Random;
using kernel_runs::RunOp;
using ::testing::HasSubstr;

// Parameters exact in float32 (the ops keep float32 parameters).
constexpr double kLr = 0.125, kWd = 0.0625, kMom = 0.75, kRescale = 0.5, kClip = 0.375;
constexpr double kBeta1 = 0.875, kBeta2 = 0.984375, kEps = 1.0 / 1024, kGamma1 = 0.9375,
                 kGamma2 = 0.8125, kLamda1 = 0.03125, kBeta = 1.5, kWdLh = 0.25;

double Clip(double x, double c) { return c < 0 ? x : std::min(std::max(x, -c), c); }
double Sign(double x) { return (x > 0) - (x < 0); }

AttrMap A(std::map<std::string, double> values) {
  AttrMap out;
  for (const auto& [k, v] : values) out[k] = absl::StrFormat("%.17g", v);
  return out;
}

// One element of each rule: w, g and the states in, the output back (states
// updated in place). `in_place`: the output is the weight (NAG's quirk).
using Rule = std::function<double(double w, double g, std::vector<double>* s, bool in_place)>;

struct UpdateCase {
  std::string op;
  AttrMap attrs;
  int num_states;
  Rule rule;
  // States must stay positive (n, v: sums of squares).
  bool positive_states = false;
};

std::vector<UpdateCase> Cases() {
  const double c = kClip;
  std::vector<UpdateCase> cases;
  cases.push_back({"sgd_update",
                   A({{"lr", kLr}, {"wd", kWd}, {"rescale_grad", kRescale}, {"clip_gradient", c}}),
                   0, [=](double w, double g, std::vector<double>*, bool) {
                     return (1 - kLr * kWd) * w - kLr * Clip(kRescale * g, c);
                   }});
  cases.push_back({"sgd_mom_update",
                   A({{"lr", kLr}, {"wd", kWd}, {"momentum", kMom}, {"rescale_grad", kRescale}}), 1,
                   [=](double w, double g, std::vector<double>* s, bool) {
                     (*s)[0] = kMom * (*s)[0] - kLr * kWd * w - kLr * kRescale * g;
                     return w + (*s)[0];
                   }});
  cases.push_back({"nag_mom_update",
                   A({{"lr", kLr},
                      {"wd", kWd},
                      {"momentum", kMom},
                      {"rescale_grad", kRescale},
                      {"clip_gradient", c}}),
                   1, [=](double w, double g, std::vector<double>* s, bool in_place) {
                     const double rg = Clip(kRescale * g, c);
                     const double m = kMom * (*s)[0];
                     const double out = w - m + (kMom + 1) * (m - kLr * (rg + kWd * w));
                     (*s)[0] = m - kLr * (rg + kWd * (in_place ? out : w));
                     return out;
                   }});
  cases.push_back({"adam_update",
                   A({{"lr", kLr},
                      {"wd", kWd},
                      {"beta1", kBeta1},
                      {"beta2", kBeta2},
                      {"epsilon", kEps},
                      {"rescale_grad", kRescale},
                      {"clip_gradient", c}}),
                   2,
                   [=](double w, double g, std::vector<double>* s, bool) {
                     const double gr = Clip(kRescale * g + kWd * w, c);
                     (*s)[0] = kBeta1 * (*s)[0] + (1 - kBeta1) * gr;
                     (*s)[1] = kBeta2 * (*s)[1] + (1 - kBeta2) * gr * gr;
                     return w - kLr * (*s)[0] / (std::sqrt((*s)[1]) + kEps);
                   },
                   true});
  cases.push_back(
      {"rmsprop_update",
       A({{"lr", kLr}, {"wd", kWd}, {"gamma1", kGamma1}, {"epsilon", kEps}, {"clip_weights", 0.5}}),
       1,
       [=](double w, double g, std::vector<double>* s, bool) {
         const double gr = g + kWd * w;
         (*s)[0] = (1 - kGamma1) * gr * gr + kGamma1 * (*s)[0];
         return Clip(w - kLr * gr / std::sqrt((*s)[0] + kEps), 0.5);
       },
       true});
  cases.push_back({"rmspropalex_update",
                   A({{"lr", kLr},
                      {"wd", kWd},
                      {"gamma1", kGamma1},
                      {"gamma2", kGamma2},
                      {"epsilon", kEps},
                      {"clip_gradient", c}}),
                   3,
                   [=](double w, double g, std::vector<double>* s, bool) {
                     const double gr = Clip(g + kWd * w, c);
                     (*s)[0] = (1 - kGamma1) * gr * gr + kGamma1 * (*s)[0];
                     (*s)[1] = (1 - kGamma1) * gr + kGamma1 * (*s)[1];
                     (*s)[2] = kGamma2 * (*s)[2] -
                               kLr * gr / std::sqrt((*s)[0] - (*s)[1] * (*s)[1] + kEps);
                     return w + (*s)[2];
                   },
                   true});
  cases.push_back({"ftrl_update",
                   A({{"lr", kLr},
                      {"wd", kWd},
                      {"lamda1", kLamda1},
                      {"beta", kBeta},
                      {"rescale_grad", kRescale}}),
                   2,
                   [=](double w, double g, std::vector<double>* s, bool) {
                     double& z = (*s)[0];
                     double& n = (*s)[1];
                     const double gr = kRescale * g;
                     z += gr - (std::sqrt(n + gr * gr) - std::sqrt(n)) * w / kLr;
                     n += gr * gr;
                     return (Sign(z) * kLamda1 - z) / ((kBeta + std::sqrt(n)) / kLr + kWd) *
                            (std::fabs(z) > kLamda1);
                   },
                   true});
  cases.push_back({"ftml_update",
                   A({{"lr", kLr},
                      {"wd", kWd},
                      {"beta1", kBeta1},
                      {"beta2", kBeta2},
                      {"epsilon", kEps},
                      {"t", 3},
                      {"clip_grad", c}}),
                   3,
                   [=](double w, double g, std::vector<double>* s, bool) {
                     double& d = (*s)[0];
                     double& v = (*s)[1];
                     double& z = (*s)[2];
                     const double gi = Clip(g + kWd * w, c);
                     v = kBeta2 * v + (1 - kBeta2) * gi * gi;
                     const double dt = (1 - std::pow(kBeta1, 3)) / kLr *
                                       (std::sqrt(v / (1 - std::pow(kBeta2, 3))) + kEps);
                     z = kBeta1 * z + (1 - kBeta1) * gi - (dt - kBeta1 * d) * w;
                     d = dt;
                     return -z / dt;
                   },
                   true});
  cases.push_back({"signsgd_update", A({{"lr", kLr}, {"wd", kWd}}), 0,
                   [=](double w, double g, std::vector<double>*, bool) {
                     return (1 - kLr * kWd) * w - kLr * Sign(g);
                   }});
  cases.push_back(
      {"signum_update",
       A({{"lr", kLr}, {"wd", kWd}, {"momentum", kMom}, {"wd_lh", kWdLh}, {"clip_gradient", c}}), 1,
       [=](double w, double g, std::vector<double>* s, bool) {
         (*s)[0] = kMom * (*s)[0] - (1 - kMom) * kWd * w - (1 - kMom) * Clip(g, c);
         return (1 - kLr * kWdLh) * w + kLr * Sign((*s)[0]);
       }});
  cases.push_back({"lamb_update_phase1",
                   A({{"wd", kWd},
                      {"beta1", kBeta1},
                      {"beta2", kBeta2},
                      {"epsilon", kEps},
                      {"t", 2},
                      {"rescale_grad", kRescale}}),
                   2,
                   [=](double w, double g, std::vector<double>* s, bool) {
                     const double gr = kRescale * g;
                     (*s)[0] = kBeta1 * (*s)[0] + (1 - kBeta1) * gr;
                     (*s)[1] = kBeta2 * (*s)[1] + (1 - kBeta2) * gr * gr;
                     const double mean_hat = (*s)[0] / (1 - kBeta1 * kBeta1);
                     const double var_hat = (*s)[1] / (1 - kBeta2 * kBeta2);
                     return mean_hat / (std::sqrt(var_hat) + kEps) + kWd * w;
                   },
                   true});
  return cases;
}

// Runs `u` on n elements in `dtype` (separate output or in place) and checks
// the output and every state against the rule in double.
void CheckCase(const UpdateCase& u, DType dtype, bool in_place, double tol) {
  const int64_t n = 37;
  const Shape shape{n};
  std::vector<double> w = Random(n, -1, 1, 1), g = Random(n, -2, 2, 2);
  std::vector<std::vector<double>> states;
  for (int k = 0; k < u.num_states; ++k) {
    states.push_back(u.positive_states && k != 2 ? Random(n, 0.1, 1, 3 + k)
                                                 : Random(n, -0.5, 0.5, 3 + k));
  }
  if (u.op == "rmspropalex_update") {
    // n - g^2 must stay positive: g (state 1) small against n (state 0).
    for (double& v : states[1]) v *= 0.1;
  }
  std::vector<Tensor> inputs = {Make(shape, w, dtype), Make(shape, g, dtype)};
  for (const auto& s : states) inputs.push_back(Make(shape, s, dtype));
  // The values the kernel sees (rounded to dtype).
  std::vector<double> w_in = inputs[0].ToDoubles(), g_in = inputs[1].ToDoubles();
  std::vector<std::vector<double>> s_in;
  for (int k = 0; k < u.num_states; ++k) s_in.push_back(inputs[2 + k].ToDoubles());
  Tensor out = in_place ? inputs[0] : Empty(shape, dtype);
  absl::Status st = RunOp(u.op, u.attrs, inputs, {out});
  ASSERT_TRUE(st.ok()) << u.op << ": " << st;
  std::vector<double> want_out(n);
  std::vector<std::vector<double>> want_s = s_in;
  for (int64_t i = 0; i < n; ++i) {
    std::vector<double> s(u.num_states);
    for (int k = 0; k < u.num_states; ++k) s[k] = s_in[k][i];
    want_out[i] = u.rule(w_in[i], g_in[i], &s, in_place);
    for (int k = 0; k < u.num_states; ++k) want_s[k][i] = s[k];
  }
  const std::string what = absl::StrCat(u.op, " ", DTypeName(dtype), in_place ? " in place" : "");
  ExpectNear(out.ToDoubles(), want_out, tol, what + " output");
  for (int k = 0; k < u.num_states; ++k) {
    ExpectNear(inputs[2 + k].ToDoubles(), want_s[k], tol, absl::StrCat(what, " state ", k));
  }
}

TEST(OptimizerOps, EveryRuleMatchesMXNetsFormula) {
  for (const UpdateCase& u : Cases()) {
    CheckCase(u, DType::kFloat64, false, 1e-12);
    CheckCase(u, DType::kFloat64, true, 1e-12);
    CheckCase(u, DType::kFloat32, true, 2e-5);
    CheckCase(u, DType::kFloat16, true, 4e-3);
  }
}

TEST(OptimizerOps, LambPhaseTwoScalesByTheNormRatio) {
  const Shape shape{4};
  for (double r1 : {0.0, 0.25, 4.0}) {
    Tensor w = Make(shape, {1, -2, 3, 0.5}, DType::kFloat64);
    Tensor g = Make(shape, {0.5, 0.25, -1, 2}, DType::kFloat64);
    Tensor t1 = Make(Shape{1}, {r1}, DType::kFloat64), t2 = Make(Shape{1}, {2}, DType::kFloat64);
    ASSERT_TRUE(RunOp("lamb_update_phase2",
                      A({{"lr", kLr}, {"lower_bound", 0.5}, {"upper_bound", 2}}), {w, g, t1, t2},
                      {w})
                    .ok());
    // r1 bounded to [0.5, 2] before the ratio (so 0 is not "no norm").
    const double ratio = std::min(std::max(r1, 0.5), 2.0) / 2;
    ExpectNear(
        w.ToDoubles(),
        {1 - kLr * ratio * 0.5, -2 - kLr * ratio * 0.25, 3 + kLr * ratio, 0.5 - kLr * ratio * 2},
        1e-12, "lamb phase 2 r1 " + std::to_string(r1));
  }
  // Without bounds a zero norm leaves the rate as it is.
  Tensor w = Make(shape, {1, 1, 1, 1}, DType::kFloat32);
  Tensor g = Make(shape, {1, 1, 1, 1}, DType::kFloat32);
  ASSERT_TRUE(RunOp("lamb_update_phase2", A({{"lr", kLr}}),
                    {w, g, Make(Shape{1}, {0}), Make(Shape{1}, {3})}, {w})
                  .ok());
  ExpectNear(w.ToDoubles(), {1 - kLr, 1 - kLr, 1 - kLr, 1 - kLr}, 1e-7, "zero r1");
}

// The mp_ forms: float16 weight and gradient, float32 states and master copy;
// they equal the float32 op on the master copy and the float32 gradient.
TEST(OptimizerOps, MixedPrecisionFormsStepTheMasterCopy) {
  struct Mp {
    std::string op, plain;
    AttrMap attrs;
    int num_states;
  };
  const AttrMap sgd = A({{"lr", kLr}, {"wd", kWd}, {"momentum", kMom}, {"clip_gradient", kClip}});
  const std::vector<Mp> cases = {
      {"mp_sgd_update", "sgd_update", A({{"lr", kLr}, {"wd", kWd}}), 0},
      {"mp_sgd_mom_update", "sgd_mom_update", sgd, 1},
      {"mp_nag_mom_update", "nag_mom_update", sgd, 1},
      {"mp_lamb_update_phase1", "lamb_update_phase1",
       A({{"wd", kWd}, {"t", 4}, {"beta1", kBeta1}, {"beta2", kBeta2}}), 2},
  };
  const int64_t n = 29;
  const Shape shape{n};
  for (const Mp& c : cases) {
    Tensor w16 = Make(shape, Random(n, -1, 1, 5), DType::kFloat16);
    Tensor g16 = Make(shape, Random(n, -1, 1, 6), DType::kFloat16);
    Tensor master = Make(shape, Random(n, -1, 1, 7));  // float32, finer than w16
    std::vector<Tensor> states, plain_states;
    for (int k = 0; k < c.num_states; ++k) {
      std::vector<double> v = Random(n, 0.1, 0.5, 8 + k);
      states.push_back(Make(shape, v));
      plain_states.push_back(Make(shape, v));
    }
    // The float32 op on copies of the master and of the gradient.
    Tensor plain_w = Make(shape, master.ToDoubles());
    Tensor g32 = Make(shape, g16.ToDoubles());
    const bool phase1 = c.op == "mp_lamb_update_phase1";
    Tensor plain_out = phase1 ? Empty(shape) : plain_w;
    std::vector<Tensor> plain_in = {plain_w, g32};
    plain_in.insert(plain_in.end(), plain_states.begin(), plain_states.end());
    ASSERT_TRUE(RunOp(c.plain, c.attrs, plain_in, {plain_out}).ok()) << c.plain;

    std::vector<Tensor> in = {w16, g16};
    in.insert(in.end(), states.begin(), states.end());
    in.push_back(master);
    Tensor out = phase1 ? Empty(shape) : w16;
    absl::Status st = RunOp(c.op, c.attrs, in, {out});
    ASSERT_TRUE(st.ok()) << c.op << ": " << st;
    for (int k = 0; k < c.num_states; ++k) {
      EXPECT_EQ(states[k].ToDoubles(), plain_states[k].ToDoubles()) << c.op << " state " << k;
    }
    if (phase1) {
      EXPECT_EQ(out.dtype(), DType::kFloat32);
      EXPECT_EQ(out.ToDoubles(), plain_out.ToDoubles()) << c.op;
      continue;
    }
    EXPECT_EQ(master.ToDoubles(), plain_w.ToDoubles()) << c.op << " master copy";
    // The weight is the master's float16 cast.
    EXPECT_EQ(w16.ToDoubles(), Make(shape, plain_w.ToDoubles(), DType::kFloat16).ToDoubles())
        << c.op;
  }
}

TEST(OptimizerOps, StatesAreAuxiliaryAndMixedPrecisionTypesInfer) {
  Symbol w = Symbol::Variable("w"), g = Symbol::Variable("g"), m = Symbol::Variable("m"),
         m32 = Symbol::Variable("w32");
  Symbol mom = OpCall("sgd_mom_update").Attr("lr", "0.1").Input(w).Input(g).Input(m);
  EXPECT_EQ(mom.ListArguments(), (std::vector<std::string>{"w", "g"}));
  EXPECT_EQ(mom.ListAuxiliaryStates(), (std::vector<std::string>{"m"}));
  Symbol mp = OpCall("mp_sgd_mom_update").Attr("lr", "0.1").Input(w).Input(g).Input(m).Input(m32);
  TypeInference types = mp.InferType({{"w", DType::kFloat16}});
  EXPECT_EQ(types.arg_types, (std::vector<DType>{DType::kFloat16, DType::kFloat16}));
  EXPECT_EQ(types.aux_types, (std::vector<DType>{DType::kFloat32, DType::kFloat32}));
  EXPECT_EQ(types.out_types, (std::vector<DType>{DType::kFloat16}));
  // LAMB phase 1 reads its master copy (an argument); phase 2 writes it.
  Symbol v = Symbol::Variable("v");
  Symbol lamb1 = OpCall("mp_lamb_update_phase1")
                     .Attr("wd", "0")
                     .Attr("t", "1")
                     .Input(w)
                     .Input(g)
                     .Input(m)
                     .Input(v)
                     .Input(m32);
  EXPECT_EQ(lamb1.ListAuxiliaryStates(), (std::vector<std::string>{"m", "v"}));
  EXPECT_EQ(lamb1.ListArguments(), (std::vector<std::string>{"w", "g", "w32"}));
}

TEST(OptimizerOps, ErrorsNameTheOpAndWhatIsWrong) {
  // RunKernel builds the node first, so attribute errors come back too.
  using kernel_calls::RunKernel;
  const Shape shape{3};
  auto f = [&](DType t = DType::kFloat32) { return Make(shape, {1, 2, 3}, t); };
  // A missing lr, an unknown attribute, FTML's t below 1.
  EXPECT_THAT(RunKernel("sgd_update", {}, {f(), f()}, {Empty(shape)}).ToString(),
              HasSubstr("'lr' is missing"));
  EXPECT_THAT(
      RunKernel("sgd_update", A({{"lr", 1}, {"betaa", 1}}), {f(), f()}, {Empty(shape)}).ToString(),
      HasSubstr("betaa"));
  EXPECT_THAT(
      RunKernel("ftml_update", A({{"lr", 1}, {"t", 0}}), {f(), f(), f(), f(), f()}, {Empty(shape)})
          .ToString(),
      HasSubstr("must be >= 1"));
  // A state of another size, a master copy that is not float32, bfloat16.
  EXPECT_THAT(RunKernel("sgd_mom_update", A({{"lr", 1}}), {f(), f(), Make(Shape{2}, {1, 2})},
                        {Empty(shape)})
                  .ToString(),
              HasSubstr("sgd_mom_update"));
  EXPECT_THAT(RunKernel("mp_sgd_update", A({{"lr", 1}}),
                        {f(DType::kFloat16), f(DType::kFloat16), f(DType::kFloat16)},
                        {Empty(shape, DType::kFloat16)})
                  .ToString(),
              HasSubstr("expected float32"));
  EXPECT_THAT(RunKernel("sgd_update", A({{"lr", 1}}), {f(DType::kBFloat16), f(DType::kBFloat16)},
                        {Empty(shape, DType::kBFloat16)})
                  .ToString(),
              HasSubstr("bfloat16"));
}

// The multi_ forms: each weight steps as sgd_mom_update with its own lr and
// wd (from a zero momentum without one: MXNet's aggregated SGD arithmetic,
// w + (-lr * wd * w - lr * g)); the preloaded_ forms read lrs and wds from
// arrays; the mp_ forms step the master copies.
TEST(OptimizerOps, MultiFormsStepEachWeightAsSgdMomUpdate) {
  const Shape s1{5}, s2{2, 3};
  const std::vector<double> lrs = {0.125, 0.25}, wds = {0.0625, 0.5};
  for (const std::string op : {"multi_sgd_update", "multi_sgd_mom_update",
                               "preloaded_multi_sgd_update", "preloaded_multi_sgd_mom_update",
                               "multi_mp_sgd_mom_update", "preloaded_multi_mp_sgd_update"}) {
    const MultiUpdateLayout l = MultiUpdateLayoutOf(op);
    const DType low = l.mixed_precision ? DType::kFloat16 : DType::kFloat32;
    std::vector<Tensor> in, outs, want_w, want_mom;
    int seed = 20;
    for (int i = 0; i < 2; ++i) {
      const Shape& shape = i == 0 ? s1 : s2;
      const int64_t n = shape.Size();
      Tensor w = Make(shape, Random(n, -1, 1, seed++), low);
      Tensor g = Make(shape, Random(n, -1, 1, seed++), low);
      Tensor mom = Make(shape, l.momentum ? Random(n, -0.1, 0.1, seed++) : std::vector<double>(n));
      Tensor master = Make(shape, w.ToDoubles());
      // The reference: sgd_mom_update in float32 on (a copy of) the float32 weight.
      Tensor ref_w = Make(shape, w.ToDoubles()), ref_mom = Make(shape, mom.ToDoubles());
      AttrMap attrs = A({{"lr", lrs[i]},
                         {"wd", wds[i]},
                         {"rescale_grad", kRescale},
                         {"momentum", l.momentum ? kMom : 0.0}});
      ASSERT_TRUE(
          RunOp("sgd_mom_update", attrs, {ref_w, Make(shape, g.ToDoubles()), ref_mom}, {ref_w})
              .ok());
      want_w.push_back(ref_w);
      want_mom.push_back(ref_mom);
      in.push_back(w);
      in.push_back(g);
      if (l.momentum) in.push_back(mom);
      if (l.mixed_precision) in.push_back(master);
      outs.push_back(w);
    }
    AttrMap attrs = A({{"num_weights", 2}, {"rescale_grad", kRescale}});
    if (l.momentum) attrs["momentum"] = absl::StrFormat("%.17g", kMom);
    if (l.preloaded) {
      in.push_back(Make(Shape{2}, lrs));
      in.push_back(Make(Shape{2}, wds));
    } else {
      attrs["lrs"] = "(0.125, 0.25)";
      attrs["wds"] = "(0.0625, 0.5)";
    }
    absl::Status st = RunOp(op, attrs, in, outs);
    ASSERT_TRUE(st.ok()) << op << ": " << st;
    for (int i = 0; i < 2; ++i) {
      const int stride = l.stride();
      const Tensor& got = l.mixed_precision ? in[i * stride + stride - 1] : in[i * stride];
      EXPECT_EQ(got.ToDoubles(), want_w[i].ToDoubles()) << op << " weight " << i;
      if (l.momentum) {
        EXPECT_EQ(in[i * stride + 2].ToDoubles(), want_mom[i].ToDoubles()) << op << " mom " << i;
      }
      if (l.mixed_precision) {
        EXPECT_EQ(in[i * stride].ToDoubles(),
                  Make(got.shape(), got.ToDoubles(), DType::kFloat16).ToDoubles())
            << op << " float16 weight " << i;
      }
    }
  }
  // num_weights out of range is the parse's error, not an allocation.
  EXPECT_THAT(
      kernel_calls::RunKernel("preloaded_multi_sgd_update", {{"num_weights", "1000000000000"}},
                              {Make(Shape{1}, {1})}, {Empty(Shape{1})})
          .ToString(),
      HasSubstr("num_weights"));
  // lrs must hold num_weights values.
  const Shape s{2};
  EXPECT_THAT(kernel_calls::RunKernel(
                  "multi_sgd_update", {{"num_weights", "2"}, {"lrs", "(0.1)"}, {"wds", "(0, 0)"}},
                  {Make(s, {1, 1}), Make(s, {1, 1}), Make(s, {1, 1}), Make(s, {1, 1})},
                  {Empty(s), Empty(s)})
                  .ToString(),
              HasSubstr("lrs"));
}

// Through a bound graph on every device present: the output, and the state
// (an aux array) written by the forward pass whether training or not.
TEST(OptimizerOps, SgdMomentumOnEveryDevice) {
  testing::OpCase c;
  c.name = "sgd_mom_update";
  c.op = "sgd_mom_update";
  c.attrs = A({{"lr", kLr}, {"wd", kWd}, {"momentum", kMom}, {"clip_gradient", kClip}});
  c.shapes = {Shape{3, 4}, Shape{3, 4}, Shape{3, 4}};
  c.check_backward = false;
  c.is_train = false;
  c.reference = [](const std::vector<testing::Values>& in, const std::vector<Shape>&) {
    testing::Values out(in[0].size());
    for (size_t i = 0; i < out.size(); ++i) {
      const double mom = kMom * in[2][i] - kLr * kWd * in[0][i] - kLr * Clip(in[1][i], kClip);
      out[i] = in[0][i] + mom;
    }
    return std::vector<testing::Values>{out};
  };
  testing::CheckOp(c);
}

}  // namespace
}  // namespace symx
