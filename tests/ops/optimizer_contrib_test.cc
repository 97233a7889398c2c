// Tests of the contributed optimizer family (graph/ops/optimizer_contrib.cc):
// each op's numbers against MXNet 1.9.1's on the same inputs (computed once
// with its CPU wheel and written here), the quirks kept (multi_sum_sq's
// float16 squares, all_finite's float cast and its flag that only clears,
// AdamW's skipped step) and those not (AdamW leaves grad alone; the dense
// GroupAdaGrad rule MXNet lacks, against its row_sparse kernel on every
// row), the schemas (mutated inputs are auxiliary, dtypes, shapes) and the
// errors.
#include "graph/ops/optimizer_contrib.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
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

using kernel_calls::RunKernel;
using kernel_runs::Empty;
using kernel_runs::ExpectNear;
using kernel_runs::Make;
using kernel_runs::RunOp;
using ::testing::HasSubstr;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

double Clip(double x, double c) { return std::min(std::max(x, -c), c); }

AttrMap A(std::map<std::string, double> values) {
  AttrMap out;
  for (const auto& [k, v] : values) out[k] = absl::StrFormat("%.17g", v);
  return out;
}

// ------------------------------------------------------------ multi_sum_sq

TEST(OptimizerContribOps, MultiSumSqIsOneFloatSumOfSquaresPerArray) {
  Tensor out = Empty(Shape{2});
  ASSERT_TRUE(RunOp("multi_sum_sq", A({{"num_arrays", 2}}),
                    {Make(Shape{3}, {1, 2, 3}), Make(Shape{2, 2}, {0.5, -1.5, 2, 0.25})}, {out})
                  .ok());
  EXPECT_EQ(out.ToDoubles(), (std::vector<double>{14, 6.5625}));
  // float16: each square is a float16, so 300^2 overflows (MXNet's CPU kernel).
  ASSERT_TRUE(
      RunOp("multi_sum_sq", A({{"num_arrays", 2}}),
            {Make(Shape{2}, {1.5, 2.5}, DType::kFloat16), Make(Shape{1}, {300}, DType::kFloat16)},
            {out})
          .ok());
  EXPECT_EQ(out.ToDoubles(), (std::vector<double>{8.5, kInf}));
  // float64: the squares are added in double to a float accumulator.
  Tensor one = Empty(Shape{1});
  ASSERT_TRUE(RunOp("multi_sum_sq", A({{"num_arrays", 1}}),
                    {Make(Shape{2}, {0.1, 0.2}, DType::kFloat64)}, {one})
                  .ok());
  EXPECT_EQ(one.ToDoubles(), (std::vector<double>{0.05000000074505806}));  // MXNet's value
}

TEST(OptimizerContribOps, MultiSumSqSchema) {
  Symbol a = Symbol::Variable("a"), b = Symbol::Variable("b");
  Symbol s = OpCall("multi_sum_sq").Attr("num_arrays", "2").Input(a).Input(b);
  ShapeInference shapes = s.InferShape({{"a", Shape{3}}, {"b", Shape{2, 2}}});
  ASSERT_TRUE(shapes.complete);
  EXPECT_EQ(shapes.out_shapes, (std::vector<Shape>{Shape{2}}));
  TypeInference types = s.InferType({{"a", DType::kFloat16}});
  EXPECT_EQ(types.arg_types, (std::vector<DType>{DType::kFloat16, DType::kFloat16}));
  EXPECT_EQ(types.out_types, (std::vector<DType>{DType::kFloat32}));
}

// ------------------------------------------------------------ multi_lars

TEST(OptimizerContribOps, MultiLarsScalesRatesByTheNormRatio) {
  Tensor lrs = Make(Shape{4}, {0.1, 0.2, 0.3, 0.4});
  Tensor wss = Make(Shape{4}, {4, 0, 9, 2.25});
  Tensor gss = Make(Shape{4}, {1, 1, kNan, 0.16});
  Tensor wds = Make(Shape{4}, {0.01, 0.01, 0.01, 0.5});
  // In place, as LARS calls it (out=lrs).
  ASSERT_TRUE(RunOp("multi_lars", A({{"eta", 0.5}, {"eps", 0.001}, {"rescale_grad", 2}}),
                    {lrs, wss, gss, wds}, {lrs})
                  .ok());
  // MXNet's values: a zero weight norm or a NaN gradient norm keeps the rate.
  ExpectNear(lrs.ToDoubles(),
             {0.04948045685887337, 0.20000000298023224, 0.30000001192092896, 0.19342359900474548},
             1e-7, "multi_lars");
  EXPECT_THAT(
      RunKernel("multi_lars", A({{"eta", 1}, {"eps", 0}}),
                {Make(Shape{1}, {1}, DType::kFloat64), Make(Shape{1}, {1}, DType::kFloat64),
                 Make(Shape{1}, {1}, DType::kFloat64), Make(Shape{1}, {1}, DType::kFloat64)},
                {Empty(Shape{1}, DType::kFloat64)})
          .ToString(),
      HasSubstr("float64"));
  EXPECT_THAT(RunKernel("multi_lars", A({{"eta", 1}}), {lrs, wss, gss, wds}, {lrs}).ToString(),
              HasSubstr("'eps' is missing"));
}

// ------------------------------------------------------------ all_finite

TEST(OptimizerContribOps, AllFiniteFlagsAndAccumulates) {
  Tensor flag = Make(Shape{1}, {5});
  // A float64 past FLT_MAX is not finite once cast to float32 (as MXNet).
  ASSERT_TRUE(RunOp("all_finite", {}, {Make(Shape{2}, {1, 1e300}, DType::kFloat64)}, {flag}).ok());
  EXPECT_EQ(flag.ToDoubles(), (std::vector<double>{0}));
  ASSERT_TRUE(RunOp("all_finite", {}, {Make(Shape{2}, {1, 1e30}, DType::kFloat64)}, {flag}).ok());
  EXPECT_EQ(flag.ToDoubles(), (std::vector<double>{1}));
  // Without init_output the flag is only ever cleared: 5 stays 5 when all
  // are finite, and becomes 0 on an infinity.
  const AttrMap keep = {{"num_arrays", "2"}, {"init_output", "False"}};
  Tensor acc = Make(Shape{1}, {5});
  ASSERT_TRUE(
      RunOp("multi_all_finite", keep, {Make(Shape{2}, {1, 2}), Make(Shape{1}, {3})}, {acc}).ok());
  EXPECT_EQ(acc.ToDoubles(), (std::vector<double>{5}));
  ASSERT_TRUE(
      RunOp("multi_all_finite", keep, {Make(Shape{2}, {1, 2}), Make(Shape{1}, {kInf})}, {acc})
          .ok());
  EXPECT_EQ(acc.ToDoubles(), (std::vector<double>{0}));
  ASSERT_TRUE(RunOp("multi_all_finite", {{"num_arrays", "2"}},
                    {Make(Shape{1}, {kNan}, DType::kFloat16), Make(Shape{1}, {3}, DType::kFloat16)},
                    {acc})
                  .ok());
  EXPECT_EQ(acc.ToDoubles(), (std::vector<double>{0}));
  // The arrays share a dtype; the flag is one float32.
  EXPECT_THAT(RunKernel("multi_all_finite", {{"num_arrays", "2"}},
                        {Make(Shape{1}, {1}), Make(Shape{1}, {1}, DType::kFloat64)}, {acc})
                  .ToString(),
              HasSubstr("share a dtype"));
  EXPECT_THAT(RunKernel("all_finite", {}, {Make(Shape{1}, {1})}, {Empty(Shape{1}, DType::kFloat64)})
                  .ToString(),
              HasSubstr("one float32"));
  Symbol x = Symbol::Variable("x");
  Symbol s = OpCall("all_finite").Input(x);
  ShapeInference shapes = s.InferShape({{"x", Shape{4, 5}}});
  EXPECT_EQ(shapes.out_shapes, (std::vector<Shape>{Shape{1}}));
  EXPECT_EQ(s.InferType({{"x", DType::kFloat64}}).out_types, (std::vector<DType>{DType::kFloat32}));
}

// ------------------------------------------------------------ reset_arrays

TEST(OptimizerContribOps, ResetArraysZeroesEveryArrayAndHasNoOutput) {
  Tensor a = Make(Shape{3}, {1, -2, 3});
  Tensor b = Make(Shape{2, 2}, {4, 5, 6, kNan}, DType::kFloat16);
  ASSERT_TRUE(RunOp("reset_arrays", {{"num_arrays", "2"}}, {a, b}, {}).ok());
  EXPECT_EQ(a.ToDoubles(), (std::vector<double>{0, 0, 0}));
  EXPECT_EQ(b.ToDoubles(), (std::vector<double>{0, 0, 0, 0}));
  // Every array is mutated (auxiliary); no output, so no symbol can hold
  // the node (as in MXNet): it is an imperative op.
  const Op* op = OpRegistry::Global().Find("reset_arrays");
  ASSERT_NE(op, nullptr);
  NodeAttrs attrs;
  attrs.op = op;
  attrs.dict = {{"num_arrays", "2"}};
  EXPECT_EQ(op->NumOutputs(attrs), 0);
  EXPECT_EQ(op->AuxInputs(attrs), (std::vector<int>{0, 1}));
  EXPECT_EQ(op->InputNames(attrs), (std::vector<std::string>{"array_0", "array_1"}));
  EXPECT_THAT(RunKernel("reset_arrays", {{"num_arrays", "0"}}, {a}, {}).ToString(),
              HasSubstr("num_arrays"));
}

// ------------------------------------------------------------ AdamW

struct AdamWState {
  Tensor w, g, mean, var, master, rescale;
};

AdamWState MakeAdamW(DType t, bool mixed, double rescale) {
  const Shape s{4};
  const DType st = mixed ? DType::kFloat32 : t;
  AdamWState a;
  a.w = Make(s, {1, -2, 0.5, 3}, t);
  a.g = Make(s, {0.5, 1, -3, 0.25}, t);
  a.mean = Make(s, {0.1, 0, 0.2, -0.1}, st);
  a.var = Make(s, {0.01, 0.04, 0, 0.5}, st);
  a.master = Make(s, {1.0001, -2, 0.5, 3});
  a.rescale = Make(Shape{1}, {rescale});
  return a;
}

const AttrMap kAdamWAttrs = A({{"lr", 0.1}, {"eta", 0.5}, {"wd", 0.1}, {"clip_gradient", 1}});

TEST(OptimizerContribOps, AdamWMatchesMXNet) {
  // MXNet's weights and states after one step (rescale 2, clip 1).
  const std::vector<double> want_w = {0.859379768371582, -1.9247052669525146, 0.34850817918777466,
                                      2.8528292179107666};
  const std::vector<double> want_m = {0.1900000274181366, 0.10000002384185791, 0.07999996840953827,
                                      -0.039999984204769135};
  const std::vector<double> want_v = {0.010989987291395664, 0.04095998778939247,
                                      0.0009999871253967285, 0.499750018119812};
  AdamWState a = MakeAdamW(DType::kFloat32, false, 2);
  ASSERT_TRUE(
      RunOp("_adamw_update", kAdamWAttrs, {a.w, a.g, a.mean, a.var, a.rescale}, {a.w}).ok());
  ExpectNear(a.w.ToDoubles(), want_w, 1e-7, "adamw weight");
  ExpectNear(a.mean.ToDoubles(), want_m, 1e-7, "adamw mean");
  ExpectNear(a.var.ToDoubles(), want_v, 1e-7, "adamw var");
  // MXNet also overwrites grad with clip(rescale * grad); here it stays.
  EXPECT_EQ(a.g.ToDoubles(), (std::vector<double>{0.5, 1, -3, 0.25}));

  // float64, float32 parameters: MXNet's values to rounding.
  AdamWState d = MakeAdamW(DType::kFloat64, false, 2);
  ASSERT_TRUE(
      RunOp("_adamw_update", kAdamWAttrs, {d.w, d.g, d.mean, d.var, d.rescale}, {d.w}).ok());
  ExpectNear(d.w.ToDoubles(),
             {0.8593797974456038, -1.924705301494979, 0.34850816230411563, 2.852829131242878},
             1e-14, "adamw float64 weight");
  ExpectNear(d.var.ToDoubles(),
             {0.010989987254142762, 0.04095998764038086, 0.0009999871253967285, 0.4997500032186508},
             1e-14, "adamw float64 var");

  // No clipping (clip_gradient < 0), into a separate output.
  AdamWState c = MakeAdamW(DType::kFloat32, false, 2);
  Tensor out = Empty(Shape{4});
  ASSERT_TRUE(RunOp("_adamw_update", A({{"lr", 0.1}, {"eta", 0.5}, {"wd", 0.1}}),
                    {c.w, c.g, c.mean, c.var, c.rescale}, {out})
                  .ok());
  ExpectNear(out.ToDoubles(),
             {0.859379768371582, -1.9476948976516724, 0.5856804847717285, 2.8528292179107666}, 1e-7,
             "adamw unclipped");
  EXPECT_EQ(c.w.ToDoubles(), (std::vector<double>{1, -2, 0.5, 3}));
}

TEST(OptimizerContribOps, AdamWSkipsTheStepWhenRescaleIsZeroOrNotFinite) {
  for (double r : {0.0, kNan, kInf, -kInf}) {
    for (bool mixed : {false, true}) {
      AdamWState a = MakeAdamW(mixed ? DType::kFloat16 : DType::kFloat32, mixed, r);
      Tensor out = Make(Shape{4}, {7, 7, 7, 7}, a.w.dtype());
      std::vector<Tensor> in = {a.w, a.g, a.mean, a.var};
      if (mixed) in.push_back(a.master);
      in.push_back(a.rescale);
      const std::string op = mixed ? "_mp_adamw_update" : "_adamw_update";
      ASSERT_TRUE(RunOp(op, kAdamWAttrs, in, {out}).ok()) << op;
      // The weight, unchanged, also in a separate output (MXNet leaves that
      // unwritten: whatever the buffer held).
      EXPECT_EQ(out.ToDoubles(), (std::vector<double>{1, -2, 0.5, 3})) << op << " rescale " << r;
      EXPECT_EQ(a.w.ToDoubles(), (std::vector<double>{1, -2, 0.5, 3})) << op;
      EXPECT_EQ(a.mean.ToDoubles(), MakeAdamW(a.w.dtype(), mixed, r).mean.ToDoubles()) << op;
      EXPECT_EQ(a.var.ToDoubles(), MakeAdamW(a.w.dtype(), mixed, r).var.ToDoubles()) << op;
      EXPECT_EQ(a.master.ToDoubles(), MakeAdamW(a.w.dtype(), mixed, r).master.ToDoubles()) << op;
    }
  }
}

TEST(OptimizerContribOps, MixedPrecisionAdamWStepsTheMasterCopy) {
  AdamWState a = MakeAdamW(DType::kFloat16, true, 2);
  ASSERT_TRUE(
      RunOp("_mp_adamw_update", kAdamWAttrs, {a.w, a.g, a.mean, a.var, a.master, a.rescale}, {a.w})
          .ok());
  // MXNet: the float16 weight is not read; the master copy steps in float.
  ExpectNear(a.master.ToDoubles(),
             {0.859474778175354, -1.9247052669525146, 0.34850817918777466, 2.8528292179107666},
             1e-7, "mp adamw master");
  EXPECT_EQ(a.w.ToDoubles(),
            (std::vector<double>{0.859375, -1.9248046875, 0.348388671875, 2.853515625}));
  ExpectNear(a.mean.ToDoubles(),
             {0.1900000274181366, 0.10000002384185791, 0.07999996840953827, -0.039999984204769135},
             1e-7, "mp adamw mean");
}

TEST(OptimizerContribOps, AdamWSchemaAndErrors) {
  Symbol w = Symbol::Variable("w"), g = Symbol::Variable("g"), m = Symbol::Variable("m"),
         v = Symbol::Variable("v"), w32 = Symbol::Variable("w32"), r = Symbol::Variable("r");
  Symbol s = OpCall("_mp_adamw_update")
                 .Attr("lr", "0.1")
                 .Attr("eta", "1")
                 .Input(w)
                 .Input(g)
                 .Input(m)
                 .Input(v)
                 .Input(w32)
                 .Input(r);
  EXPECT_EQ(s.ListArguments(), (std::vector<std::string>{"w", "g", "r"}));
  EXPECT_EQ(s.ListAuxiliaryStates(), (std::vector<std::string>{"m", "v", "w32"}));
  TypeInference types = s.InferType({{"w", DType::kFloat16}});
  EXPECT_EQ(types.arg_types,
            (std::vector<DType>{DType::kFloat16, DType::kFloat16, DType::kFloat32}));
  EXPECT_EQ(types.aux_types, (std::vector<DType>(3, DType::kFloat32)));
  ShapeInference shapes = s.InferShape({{"w", Shape{2, 3}}});
  ASSERT_TRUE(shapes.complete) << shapes.missing;
  EXPECT_EQ(shapes.arg_shapes, (std::vector<Shape>{Shape{2, 3}, Shape{2, 3}, Shape{1}}));
  EXPECT_EQ(shapes.aux_shapes, (std::vector<Shape>(3, Shape{2, 3})));

  AdamWState a = MakeAdamW(DType::kFloat32, false, 1);
  EXPECT_THAT(
      RunKernel("_adamw_update", A({{"lr", 0.1}}), {a.w, a.g, a.mean, a.var, a.rescale}, {a.w})
          .ToString(),
      HasSubstr("'eta' is missing"));
  EXPECT_THAT(RunKernel("_adamw_update", A({{"lr", 0.1}, {"eta", 1}}),
                        {a.w, a.g, Make(Shape{3}, {0, 0, 0}), a.var, a.rescale}, {a.w})
                  .ToString(),
              HasSubstr("should have 4 elements"));
  EXPECT_THAT(RunKernel("_adamw_update", A({{"lr", 0.1}, {"eta", 1}}),
                        {a.w, a.g, a.mean, a.var, Empty(Shape{0})}, {a.w})
                  .ToString(),
              HasSubstr("rescale_grad is empty"));
  EXPECT_THAT(
      RunKernel("_mp_adamw_update", A({{"lr", 0.1}, {"eta", 1}}),
                {a.w, a.g, a.mean, a.var, Make(Shape{4}, {1, 2, 3, 4}, DType::kFloat16), a.rescale},
                {a.w})
          .ToString(),
      HasSubstr("expected float32"));
}

// ------------------------------------------------------------ GroupAdaGrad

TEST(OptimizerContribOps, GroupAdagradDenseRuleIsMXNetsRowSparseRuleOnEveryRow) {
  Tensor w = Make(Shape{3, 2}, {1, 2, 3, 4, 0.5, -1});
  Tensor g = Make(Shape{3, 2}, {1, 2, 0.5, -0.5, 3, 0});
  Tensor h = Make(Shape{3, 1}, {0.5, 0, 1});
  ASSERT_TRUE(RunOp("_contrib_group_adagrad_update",
                    A({{"lr", 0.1}, {"rescale_grad", 0.5}, {"clip_gradient", 1.2}}), {w, g, h}, {w})
                  .ok());
  // MXNet 1.9.1 with the gradient as row_sparse holding every row.
  ExpectNear(w.ToDoubles(),
             {0.9528597593307495, 1.905719518661499, 2.900007963180542, 4.099991798400879,
              0.40850111842155457, -1.0},
             1e-7, "group adagrad weight");
  ExpectNear(h.ToDoubles(), {1.125, 0.0625, 1.7200000286102295}, 1e-7, "group adagrad history");

  // float64 against the rule written out (epsilon inside the square root).
  Tensor w64 = Make(Shape{2, 3}, {1, 2, 3, -1, 0, 2}, DType::kFloat64);
  Tensor g64 = Make(Shape{2, 3}, {0.5, -1, 2, 0, 0, 0}, DType::kFloat64);
  Tensor h64 = Make(Shape{2, 1}, {0.25, 2}, DType::kFloat64);
  Tensor out = Empty(Shape{2, 3}, DType::kFloat64);
  ASSERT_TRUE(RunOp("_contrib_group_adagrad_update", A({{"lr", 0.5}, {"epsilon", 0.125}}),
                    {w64, g64, h64}, {out})
                  .ok());
  const double h0 = 0.25 + (0.25 + 1 + 4) / 3;
  const double d0 = std::sqrt(h0 + 0.125);
  ExpectNear(out.ToDoubles(), {1 - 0.25 / d0, 2 + 0.5 / d0, 3 - 1 / d0, -1, 0, 2}, 1e-15,
             "group adagrad float64");
  ExpectNear(h64.ToDoubles(), {h0, 2}, 1e-15, "group adagrad float64 history");
}

TEST(OptimizerContribOps, GroupAdagradSchemaAndErrors) {
  Symbol w = Symbol::Variable("w"), g = Symbol::Variable("g"), h = Symbol::Variable("h");
  Symbol s = OpCall("_contrib_group_adagrad_update").Attr("lr", "0.1").Input(w).Input(g).Input(h);
  EXPECT_EQ(s.ListAuxiliaryStates(), (std::vector<std::string>{"h"}));
  ShapeInference shapes = s.InferShape({{"w", Shape{5, 4}}});
  ASSERT_TRUE(shapes.complete) << shapes.missing;
  EXPECT_EQ(shapes.aux_shapes, (std::vector<Shape>{Shape{5, 1}}));
  try {
    s.InferShape({{"w", Shape{5, 4}}, {"h", Shape{5, 4}}});
    ADD_FAILURE() << "a (5, 4) history was accepted";
  } catch (const Error& e) {
    EXPECT_THAT(std::string(e.what()), HasSubstr("history"));
  }
  const Shape s2{2, 2};
  EXPECT_THAT(RunKernel("_contrib_group_adagrad_update", A({{"lr", 0.1}}),
                        {Make(s2, {1, 1, 1, 1}), Make(s2, {1, 1, 1, 1}), Make(Shape{3}, {0, 0, 0})},
                        {Empty(s2)})
                  .ToString(),
              HasSubstr("history"));
  EXPECT_THAT(RunKernel("_contrib_group_adagrad_update", A({{"lr", 0.1}, {"wd", 0}}),
                        {Make(s2, {1, 1, 1, 1}), Make(s2, {1, 1, 1, 1}), Make(Shape{2}, {0, 0})},
                        {Empty(s2)})
                  .ToString(),
              HasSubstr("wd"));
}

// ------------------------------------------------------------ multi-tensor AdamW and LAMB

// Two weights, (4,) and (2, 2), with their states, in `t` (states `st`),
// and float32 master copies a little off the first weight.
struct MultiState {
  std::vector<Tensor> w, g, mean, var, master;
};

MultiState MakeMulti(DType t, DType st) {
  MultiState m;
  m.w = {Make(Shape{4}, {1, -2, 0.5, 3}, t), Make(Shape{2, 2}, {0.25, -0.75, 1.5, 2}, t)};
  m.g = {Make(Shape{4}, {0.5, 1, -3, 0.25}, t), Make(Shape{2, 2}, {1, -0.5, 0.125, 4}, t)};
  m.mean = {Make(Shape{4}, {0.1, 0, 0.2, -0.1}, st), Make(Shape{2, 2}, {0, 0.1, 0.2, 0.3}, st)};
  m.var = {Make(Shape{4}, {0.01, 0.04, 0, 0.5}, st), Make(Shape{2, 2}, {0.1, 0.2, 0, 0.01}, st)};
  m.master = {Make(Shape{4}, {1.0001, -2, 0.5, 3}), Make(Shape{2, 2}, {0.25, -0.75, 1.5, 2.0002})};
  return m;
}

std::vector<Tensor> MultiInputs(const MultiState& m, bool mixed) {
  std::vector<Tensor> in;
  for (size_t i = 0; i < m.w.size(); ++i) {
    in.insert(in.end(), {m.w[i], m.g[i], m.mean[i], m.var[i]});
    if (mixed) in.push_back(m.master[i]);
  }
  return in;
}

const AttrMap kMultiAdamWAttrs = {
    {"num_weights", "2"}, {"lrs", "(0.1, 0.05)"}, {"wds", "(0.1, 0.2)"}, {"etas", "(0.5, 1)"}};

TEST(OptimizerContribOps, MultiAdamWMatchesMXNet) {
  MultiState m = MakeMulti(DType::kFloat32, DType::kFloat32);
  std::vector<Tensor> in = MultiInputs(m, false);
  in.push_back(Make(Shape{1}, {2}));
  AttrMap attrs = kMultiAdamWAttrs;
  attrs["clip_gradient"] = "1";
  ASSERT_TRUE(RunOp("_multi_adamw_update", attrs, in, m.w).ok());
  ExpectNear(m.w[0].ToDoubles(),
             {0.8593796491622925, -1.9247052669525146, 0.3485080599784851, 2.8528292179107666},
             1e-7, "multi adamw w0");
  ExpectNear(m.w[1].ToDoubles(),
             {0.18425928056240082, -0.5988842248916626, -0.09654068946838379, 1.4235289096832275},
             1e-7, "multi adamw w1");
  ExpectNear(m.mean[0].ToDoubles(),
             {0.19000005722045898, 0.10000002384185791, 0.08000004291534424, -0.04000002145767212},
             1e-7, "multi adamw mean0");
  ExpectNear(
      m.var[1].ToDoubles(),
      {0.10089999437332153, 0.20080000162124634, 6.249919533729553e-05, 0.010989964008331299}, 1e-7,
      "multi adamw var1");

  // float64 weights: MXNet 1.9.1 copies the float rates into double slots
  // byte for byte (its weights then do not move); here they step as float32's.
  MultiState d = MakeMulti(DType::kFloat64, DType::kFloat64);
  std::vector<Tensor> in64 = MultiInputs(d, false);
  in64.push_back(Make(Shape{1}, {2}, DType::kFloat64));
  ASSERT_TRUE(RunOp("_multi_adamw_update", attrs, in64, d.w).ok());
  ExpectNear(d.w[0].ToDoubles(), m.w[0].ToDoubles(), 1e-6, "multi adamw float64 w0");
  ExpectNear(d.w[1].ToDoubles(), m.w[1].ToDoubles(), 1e-6, "multi adamw float64 w1");

  // A zero rescale_grad skips every weight.
  MultiState z = MakeMulti(DType::kFloat32, DType::kFloat32);
  std::vector<Tensor> zin = MultiInputs(z, false);
  zin.push_back(Make(Shape{1}, {0}));
  ASSERT_TRUE(RunOp("_multi_adamw_update", attrs, zin, z.w).ok());
  EXPECT_EQ(z.w[1].ToDoubles(), MakeMulti(DType::kFloat32, DType::kFloat32).w[1].ToDoubles());
  EXPECT_EQ(z.var[0].ToDoubles(), MakeMulti(DType::kFloat32, DType::kFloat32).var[0].ToDoubles());
}

TEST(OptimizerContribOps, MultiMixedPrecisionAdamWMatchesMXNet) {
  MultiState m = MakeMulti(DType::kFloat16, DType::kFloat32);
  std::vector<Tensor> in = MultiInputs(m, true);
  in.push_back(Make(Shape{1}, {2}));
  ASSERT_TRUE(RunOp("_multi_mp_adamw_update", kMultiAdamWAttrs, in, m.w).ok());
  ExpectNear(m.master[0].ToDoubles(),
             {0.8594746589660645, -1.9476948976516724, 0.5856809616088867, 2.8528292179107666},
             1e-7, "multi mp adamw master0");
  ExpectNear(m.master[1].ToDoubles(),
             {0.16897638142108917, -0.5988842248916626, -0.09654068946838379, 1.40347158908844},
             1e-7, "multi mp adamw master1");
  EXPECT_EQ(m.w[1].ToDoubles(),
            (std::vector<double>{0.1689453125, -0.59912109375, -0.0965576171875, 1.4033203125}));
  ExpectNear(m.var[1].ToDoubles(),
             {0.10389995574951172, 0.20080000162124634, 6.249919533729553e-05, 0.07398605346679688},
             1e-7, "multi mp adamw var1");
}

const AttrMap kLambAttrs = {{"num_tensors", "2"},
                            {"learning_rates", "(0.1, 0.05)"},
                            {"wds", "(0.01, 0.2)"},
                            {"step_count", "(1, 3)"}};

TEST(OptimizerContribOps, MultiLambMatchesMXNet) {
  struct Case {
    AttrMap extra;
    std::vector<double> w0, w1;
  };
  const std::vector<Case> cases = {
      {{},
       {0.7240866422653198, -2.0840070247650146, 0.7435452938079834, 2.9994335174560547},
       {0.24854204058647156, -0.7483066916465759, 1.3698869943618774, 1.984090805053711}},
      // lower_bound raises |w|; clipping after rescaling.
      {{{"lower_bound", "2"}, {"clip_gradient", "0.5"}, {"rescale_grad", "0.5"}},
       {0.9465484023094177, -2.008439779281616, 0.12640762329101562, 3.0006704330444336},
       {0.24944540858268738, -0.7491832971572876, 1.3690913915634155, 1.992967128753662}},
      // upper_bound 0 is a bound: |w| becomes 0, the ratio 1.
      {{{"upper_bound", "0"}},
       {0.9552502632141113, -2.013624906539917, 0.5394999980926514, 2.999908208847046},
       {0.24432021379470825, -0.7434033155441284, 0.993118941783905, 1.9380226135253906}},
      {{{"bias_correction", "False"}},
       {0.7286412715911865, -2.0923242568969727, 0.7453468441963196, 3.012066602706909},
       {0.24902789294719696, -0.7498385906219482, 1.369465947151184, 1.9878599643707275}},
  };
  for (const Case& c : cases) {
    MultiState m = MakeMulti(DType::kFloat32, DType::kFloat32);
    AttrMap attrs = kLambAttrs;
    for (const auto& [k, v] : c.extra) attrs[k] = v;
    ASSERT_TRUE(RunOp("_multi_lamb_update", attrs, MultiInputs(m, false), m.w).ok());
    const std::string what = c.extra.empty() ? "default" : c.extra.begin()->first;
    ExpectNear(m.w[0].ToDoubles(), c.w0, 1e-6, "multi lamb w0 " + what);
    ExpectNear(m.w[1].ToDoubles(), c.w1, 1e-6, "multi lamb w1 " + what);
    if (c.extra.empty()) {
      ExpectNear(
          m.mean[1].ToDoubles(),
          {0.10000002384185791, 0.039999984204769135, 0.19249999523162842, 0.6700000762939453},
          1e-7, "multi lamb mean1");
      ExpectNear(
          m.var[0].ToDoubles(),
          {0.010239996947348118, 0.04095998778939247, 0.008999884128570557, 0.49956250190734863},
          1e-7, "multi lamb var0");
    }
  }
}

TEST(OptimizerContribOps, MultiMixedPrecisionLambTakesTheNormOfTheFloat16Weights) {
  MultiState m = MakeMulti(DType::kFloat16, DType::kFloat32);
  ASSERT_TRUE(RunOp("_multi_mp_lamb_update", kLambAttrs, MultiInputs(m, true), m.w).ok());
  // The master copy steps from 1.0001, the trust ratio uses |w| of the
  // float16 weight (1.0): MXNet's numbers.
  ExpectNear(m.master[0].ToDoubles(),
             {0.724186360836029, -2.0840070247650146, 0.7435449361801147, 2.9994335174560547}, 1e-6,
             "multi mp lamb master0");
  ExpectNear(m.master[1].ToDoubles(),
             {0.24854204058647156, -0.7483066916465759, 1.3698869943618774, 1.984290361404419},
             1e-6, "multi mp lamb master1");
  EXPECT_EQ(m.w[0].ToDoubles(),
            (std::vector<double>{0.72412109375, -2.083984375, 0.74365234375, 3}));
}

TEST(OptimizerContribOps, MultiUpdateSchemasAndLimits) {
  const Op* op = OpRegistry::Global().Find("_multi_mp_adamw_update");
  ASSERT_NE(op, nullptr);
  NodeAttrs attrs;
  attrs.op = op;
  attrs.dict = {{"num_weights", "2"}};
  // Proper names (MXNet 1.9.1 repeats weight_0, weight_0, ...).
  EXPECT_EQ(
      op->InputNames(attrs),
      (std::vector<std::string>{"weight_0", "grad_0", "mean_0", "var_0", "weight32_0", "weight_1",
                                "grad_1", "mean_1", "var_1", "weight32_1", "rescale_grad"}));
  EXPECT_EQ(op->AuxInputs(attrs), (std::vector<int>{2, 3, 4, 7, 8, 9}));
  const Op* lamb = OpRegistry::Global().Find("_multi_lamb_update");
  attrs.op = lamb;
  attrs.dict = {{"num_tensors", "2"}};
  EXPECT_EQ(lamb->InputNames(attrs),
            (std::vector<std::string>{"weight_0", "grad_0", "mean_0", "var_0", "weight_1", "grad_1",
                                      "mean_1", "var_1"}));
  EXPECT_EQ(lamb->NumOutputs(attrs), 2);

  // Shapes and dtypes of the outputs are inferred (MXNet's are not).
  Symbol w = Symbol::Variable("w"), g = Symbol::Variable("g"), m = Symbol::Variable("m"),
         v = Symbol::Variable("v");
  Symbol s = OpCall("_multi_lamb_update")
                 .Attr("learning_rates", "(0.1,)")
                 .Attr("wds", "(0,)")
                 .Attr("step_count", "(1,)")
                 .Input(w)
                 .Input(g)
                 .Input(m)
                 .Input(v);
  EXPECT_EQ(s.ListAuxiliaryStates(), (std::vector<std::string>{"m", "v"}));
  ShapeInference shapes = s.InferShape({{"w", Shape{3, 2}}});
  ASSERT_TRUE(shapes.complete) << shapes.missing;
  EXPECT_EQ(shapes.out_shapes, (std::vector<Shape>{Shape{3, 2}}));

  // MXNet's limits (unchecked there: its kernels overflow a fixed block).
  const Tensor x = Make(Shape{1}, {1});
  EXPECT_THAT(RunKernel("_multi_adamw_update", {{"num_weights", "51"}}, {x}, {x}).ToString(),
              HasSubstr("num_weights"));
  EXPECT_THAT(RunKernel("_multi_lamb_update", {{"num_tensors", "46"}}, {x}, {x}).ToString(),
              HasSubstr("num_tensors"));
  // One rate per tensor; step_count too.
  AttrMap bad = kLambAttrs;
  bad["step_count"] = "(1,)";
  MultiState ms = MakeMulti(DType::kFloat32, DType::kFloat32);
  EXPECT_THAT(RunKernel("_multi_lamb_update", bad, MultiInputs(ms, false), ms.w).ToString(),
              HasSubstr("step_count"));
  AttrMap bad_etas = kMultiAdamWAttrs;
  bad_etas["etas"] = "(1, 2, 3)";
  std::vector<Tensor> in = MultiInputs(ms, false);
  in.push_back(x);
  EXPECT_THAT(RunKernel("_multi_adamw_update", bad_etas, in, ms.w).ToString(), HasSubstr("etas"));
  // A state of the wrong size, weights of two dtypes.
  std::vector<Tensor> wrong = MultiInputs(ms, false);
  wrong[6] = Make(Shape{3}, {0, 0, 0});
  EXPECT_THAT(RunKernel("_multi_lamb_update", kLambAttrs, wrong, ms.w).ToString(),
              HasSubstr("should have 4 elements"));
  std::vector<Tensor> mixed = MultiInputs(ms, false);
  mixed[4] = Make(Shape{2, 2}, {1, 1, 1, 1}, DType::kFloat64);
  EXPECT_THAT(RunKernel("_multi_lamb_update", kLambAttrs, mixed, ms.w).ToString(),
              HasSubstr("expected float32"));
}

// ------------------------------------------------------------ every device

// Through a bound graph on every device present (the GPU kernels where
// there is one) against plain loops: outputs, not the written states.
TEST(OptimizerContribOps, EveryDeviceAgreesWithTheRules) {
  auto positive = [](int, const Shape& shape) {
    testing::Values v(shape.Size());
    for (size_t i = 0; i < v.size(); ++i) v[i] = 0.25 + 0.125 * static_cast<double>(i % 7);
    return v;
  };
  std::vector<testing::OpCase> cases;
  {
    testing::OpCase c;
    c.name = c.op = "multi_sum_sq";
    c.attrs = {{"num_arrays", "2"}};
    c.shapes = {Shape{3, 4}, Shape{5}};
    c.forward_tol64 = 1e-6;  // a float accumulator, as MXNet's
    c.reference = [](const std::vector<testing::Values>& in, const std::vector<Shape>&) {
      testing::Values out;
      for (const testing::Values& x : in) {
        double sum = 0;
        for (double v : x) sum += v * v;
        out.push_back(sum);
      }
      return std::vector<testing::Values>{out};
    };
    cases.push_back(c);
  }
  {
    testing::OpCase c;
    c.name = c.op = "multi_lars";
    c.attrs = A({{"eta", 0.5}, {"eps", 0.001}, {"rescale_grad", 2}});
    c.shapes = {Shape{6}, Shape{6}, Shape{6}, Shape{6}};
    c.init = positive;
    c.dtypes = {DType::kFloat32};
    c.reference = [](const std::vector<testing::Values>& in, const std::vector<Shape>&) {
      testing::Values out(in[0].size());
      for (size_t i = 0; i < out.size(); ++i) {
        const double wn = std::sqrt(in[1][i]);
        out[i] = in[0][i] * 0.5 * wn / (std::sqrt(in[2][i]) * 2 + in[3][i] * wn + 0.001);
      }
      return std::vector<testing::Values>{out};
    };
    cases.push_back(c);
  }
  {
    testing::OpCase c;
    c.name = c.op = "all_finite";
    c.shapes = {Shape{2, 3}};
    c.reference = [](const std::vector<testing::Values>&, const std::vector<Shape>&) {
      return std::vector<testing::Values>{{1}};
    };
    cases.push_back(c);
  }
  {
    testing::OpCase c;
    c.name = c.op = "_contrib_group_adagrad_update";
    c.attrs = A({{"lr", 0.125}, {"rescale_grad", 0.5}, {"clip_gradient", 0.375}});
    c.shapes = {Shape{3, 4}, Shape{3, 4}, Shape{3, 1}};
    c.init = [&](int input, const Shape& shape) {
      return input == 2 ? positive(input, shape) : testing::Values(shape.Size(), 0.5);
    };
    c.reference = [](const std::vector<testing::Values>& in, const std::vector<Shape>&) {
      testing::Values out(in[0].size());
      for (size_t r = 0; r < 3; ++r) {
        double ssq = 0;
        for (size_t j = 0; j < 4; ++j) ssq += std::pow(std::min(in[1][r * 4 + j] * 0.5, 0.375), 2);
        const double h = in[2][r] + ssq / 4;
        for (size_t j = 0; j < 4; ++j) {
          out[r * 4 + j] = in[0][r * 4 + j] -
                           0.125 * std::min(in[1][r * 4 + j] * 0.5, 0.375) / std::sqrt(h + 1e-5);
        }
      }
      return std::vector<testing::Values>{out};
    };
    cases.push_back(c);
  }
  for (const char* op : {"_adamw_update", "_multi_adamw_update"}) {
    testing::OpCase c;
    c.name = c.op = op;
    const bool multi = std::string(op) == "_multi_adamw_update";
    c.attrs = multi ? AttrMap{{"lrs", "(0.125,)"},
                              {"wds", "(0.0625,)"},
                              {"etas", "(0.5,)"},
                              {"clip_gradient", "0.375"}}
                    : A({{"lr", 0.125}, {"wd", 0.0625}, {"eta", 0.5}, {"clip_gradient", 0.375}});
    c.shapes = {Shape{2, 5}, Shape{2, 5}, Shape{2, 5}, Shape{2, 5}, Shape{1}};
    c.init = [&](int input, const Shape& shape) {
      if (input == 4) return testing::Values{0.5};
      return input == 3 ? positive(input, shape)
                        : testing::Values(shape.Size(), 0.25 * input - 0.5);
    };
    // MXNet's float32 parameters (0.9f, ...) against the exact ones here.
    c.forward_tol64 = 1e-6;
    // _adamw_update's rescale_grad is float32 whatever the weight's dtype.
    if (!multi) c.dtypes = {DType::kFloat32};
    c.reference = [](const std::vector<testing::Values>& in, const std::vector<Shape>&) {
      testing::Values out(in[0].size());
      for (size_t i = 0; i < out.size(); ++i) {
        const double g = Clip(0.5 * in[1][i], 0.375);
        const double m = 0.9 * in[2][i] + 0.1 * g;
        const double v = 0.999 * in[3][i] + 0.001 * g * g;
        out[i] = in[0][i] - 0.5 * (0.125 * m / (std::sqrt(v) + 1e-8) + 0.0625 * in[0][i]);
      }
      return std::vector<testing::Values>{out};
    };
    cases.push_back(c);
  }
  for (testing::OpCase& c : cases) {
    c.check_backward = false;
    c.is_train = false;
    testing::CheckOp(c);
  }
}

}  // namespace
}  // namespace symx
