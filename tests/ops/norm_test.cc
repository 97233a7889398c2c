// Tests of the norm family (graph/ops/norm.cc): BatchNorm (and its variants
// BatchNorm_v1, _contrib_SyncBatchNorm, _contrib_BatchNormWithReLU), LayerNorm,
// L2Normalization, InstanceNorm and GroupNorm.
//
// Conformance: references are plain loops written from MXNet 1.9.1's formulas
// (checked against a live MXNet); gradients by finite differences. Direct
// kernel tests of BatchNorm's moving statistics (updated by a training forward
// only).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "devices/device.h"
#include "devices/kernel.h"
#include "devices/tensor.h"
#include "executor/executor.h"
#include "graph/error.h"
#include "graph/node.h"
#include "graph/symbol.h"
#include "gtest/gtest.h"
#include "tests/ops/conformance.h"

#ifdef SYMX_WITH_ONEDNN
#include "devices/cpu/onednn.h"
#endif

namespace symx {
namespace testing {
namespace {

// (outer, axis, inner) sizes of `s` around `axis` (may be negative).
void Split(const Shape& s, int axis, int64_t* outer, int64_t* mid, int64_t* inner) {
  if (axis < 0) axis += s.ndim();
  *outer = *inner = 1;
  for (int d = 0; d < axis; ++d) *outer *= s[d];
  *mid = s[axis];
  for (int d = axis + 1; d < s.ndim(); ++d) *inner *= s[d];
}

Values Uniform(const Shape& shape, double lo, double hi, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  Values v(NumElements(shape));
  for (double& x : v) x = u(rng);
  return v;
}

// ---------------------------------------------------------------- BatchNorm

struct BnSpec {
  std::string name;
  Shape data;
  int axis = 1;
  bool fix_gamma = true;
  bool use_global_stats = false;
  bool output_mean_var = false;
  bool is_train = true;
  double eps = 1e-3;
  // BatchNorm or a variant: BatchNorm_v1 and _contrib_SyncBatchNorm take no
  // axis (1), _contrib_BatchNormWithReLU applies relu to the output.
  std::string op = "BatchNorm";
};

// `onednn_bnorm`: bound with EngineOptions::onednn_batchnorm.
OpCase BnCase(const BnSpec& sp, bool onednn_bnorm = false) {
  OpCase c;
  c.name = sp.name;
  c.op = sp.op;
  c.attrs = {{"fix_gamma", sp.fix_gamma ? "True" : "False"},
             {"use_global_stats", sp.use_global_stats ? "True" : "False"},
             {"output_mean_var", sp.output_mean_var ? "True" : "False"},
             {"eps", std::to_string(sp.eps)}};
  if (sp.op == "BatchNorm" || sp.op == "_contrib_BatchNormWithReLU") {
    c.attrs["axis"] = std::to_string(sp.axis);
  }
  if (sp.op == "_contrib_SyncBatchNorm") c.attrs["key"] = "bn0";
  const bool relu = sp.op == "_contrib_BatchNormWithReLU";
  int64_t outer, ch, inner;
  Split(sp.data, sp.axis, &outer, &ch, &inner);
  const Shape chs{ch};
  c.shapes = {sp.data, chs, chs, chs, chs};
  c.no_grad = {3, 4};
  c.is_train = sp.is_train;
  c.init = [](int input, const Shape& shape) {
    // Moving variance must be positive.
    if (input == 4) return Uniform(shape, 0.5, 1.5, 5);
    return Uniform(shape, -1, 1, 11 + input);
  };
  const BnSpec spec = sp;
  c.reference = [=](const std::vector<Values>& in, const std::vector<Shape>&) {
    const bool batch_stats = spec.is_train && !spec.use_global_stats;
    const int64_t count = outer * inner;
    Values y(in[0].size()), mean(ch), var(ch);
    for (int64_t k = 0; k < ch; ++k) {
      double m = 0, v = 0;
      if (batch_stats) {
        for (int64_t o = 0; o < outer; ++o) {
          for (int64_t i = 0; i < inner; ++i) m += in[0][(o * ch + k) * inner + i];
        }
        m = count ? m / count : 0;
        for (int64_t o = 0; o < outer; ++o) {
          for (int64_t i = 0; i < inner; ++i) {
            const double d = in[0][(o * ch + k) * inner + i] - m;
            v += d * d;
          }
        }
        v = count ? v / count : 0;
      } else {
        m = in[3][k];
        v = in[4][k];
      }
      const double g = spec.fix_gamma ? 1.0 : in[1][k];
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t i = 0; i < inner; ++i) {
          const int64_t at = (o * ch + k) * inner + i;
          y[at] = (in[0][at] - m) / std::sqrt(v + spec.eps) * g + in[2][k];
          if (relu) y[at] = std::max(y[at], 0.0);
        }
      }
      mean[k] = m;
      var[k] = v;
    }
    if (spec.output_mean_var) return std::vector<Values>{y, mean, var};
    return std::vector<Values>{y};
  };
  c.forward_tol32 = 1e-4;
  // With its switch on, oneDNN takes channel axis 1 of 2-D, 4-D and 5-D data
  // that is not empty (oneDNN 2.6 has only its reference kernel for plain
  // 3-D data, which stays with the Eigen kernel).
#ifdef SYMX_WITH_ONEDNN
  const int nd = sp.data.ndim();
  c.engine.onednn_batchnorm = onednn_bnorm;
  c.onednn = onednn_bnorm && (sp.axis == 1 || sp.axis == 1 - nd) && nd != 3 && nd >= 2 && nd <= 5 &&
             NumElements(sp.data) > 0;
#endif
  // Head gradients on mean/var are ignored by the op's gradient (as in MXNet), so
  // the finite-difference check applies only when they are hidden.
  c.check_backward = !sp.output_mean_var;
  return c;
}

TEST(NormConformance, BatchNorm) {
  std::vector<BnSpec> specs = {
      {"bn NCHW", Shape{2, 3, 2, 2}},
      {"bn fix_gamma off", Shape{2, 3, 2, 2}, 1, false},
      {"bn 2-D", Shape{4, 3}, 1, false},
      {"bn axis -1", Shape{2, 3, 4}, -1, false},
      {"bn axis 0", Shape{3, 2, 2}, 0, false},
      {"bn 3-D spatial", Shape{2, 2, 2, 2, 2}, 1, false},
      {"bn batch 1", Shape{1, 3, 2, 2}, 1, false},
      {"bn eps", Shape{3, 2, 3}, 1, false, false, false, true, 1e-5},
      {"bn use_global_stats", Shape{2, 3, 2, 2}, 1, false, true},
      {"bn inference", Shape{2, 3, 2, 2}, 1, false, false, false, /*is_train=*/false},
      {"bn output_mean_var", Shape{3, 2, 2}, 1, false, false, true},
      {"bn output_mean_var inference", Shape{3, 2, 2}, 1, false, false, true, false},
      {"bn empty batch", Shape{0, 3}, 1, false},
  };
  // The Eigen kernels, and (builds with oneDNN) oneDNN's against them.
  for (const bool onednn_bnorm : {false, true}) {
#ifndef SYMX_WITH_ONEDNN
    if (onednn_bnorm) break;
#endif
    for (const BnSpec& s : specs) CheckOp(BnCase(s, onednn_bnorm));
  }
}

// BatchNorm_v1, _contrib_SyncBatchNorm (one device) and _contrib_BatchNormWithReLU run
// BatchNorm's kernels: training, inference, global statistics, 2-D and 4-D data.
TEST(NormConformance, BatchNormVariants) {
  for (const char* op : {"BatchNorm_v1", "_contrib_SyncBatchNorm", "_contrib_BatchNormWithReLU"}) {
    std::vector<BnSpec> specs = {
        {"NCHW", Shape{2, 3, 2, 2}},
        {"fix_gamma off", Shape{2, 3, 2, 2}, 1, false},
        {"2-D", Shape{4, 3}, 1, false},
        {"use_global_stats", Shape{2, 3, 2, 2}, 1, false, true},
        {"inference", Shape{2, 3, 2, 2}, 1, false, false, false, /*is_train=*/false},
        {"output_mean_var", Shape{3, 2, 2}, 1, false, false, true},
    };
    for (const bool onednn_bnorm : {false, true}) {
#ifndef SYMX_WITH_ONEDNN
      if (onednn_bnorm) break;
#endif
      for (BnSpec s : specs) {
        s.name = std::string(op) + " " + s.name;
        s.op = op;
        CheckOp(BnCase(s, onednn_bnorm));
      }
    }
  }
}

// BatchNormWithReLU's gradient selects the head gradient where the output is
// positive: where the relu is off the output is constant 0, so an infinite or
// NaN head gradient there (norm of an all-zero row, `_mod` by the output) gives
// 0, as relu's own gradient does. Multiplying by a 0/1 mask gave NaN (found by
// the differential fuzzer: tools/difftest/found/s32_g980.json).
TEST(NormConformance, BatchNormWithReLUGradientSelects) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Symbol net = OpCall("_contrib_BatchNormWithReLU")
                   .Name("bnr")
                   .Attr("use_global_stats", "True")
                   .Attr("fix_gamma", "True")
                   .Attr("eps", "0")
                   .Input("data", Symbol::Variable("x"))
                   .Input("gamma", Symbol::Variable("g"))
                   .Input("beta", Symbol::Variable("b"))
                   .Input("moving_mean", Symbol::Variable("mm"))
                   .Input("moving_var", Symbol::Variable("mv"));
  // One channel, moving mean 0 and variance 1: y = relu(x), dy/dx = (x > 0).
  const Shape shape{4, 1};
  const Values x = {-2, 3, -0.5, 1.5};
  const Values head = {inf, 2, nan, -1};
  for (const Context& ctx : DevicesPresent()) {
    for (DType dt : {DType::kFloat32, DType::kFloat64}) {
      SCOPED_TRACE(ctx.ToString() + " " + DTypeName(dt));
      SimpleBindOptions o;
      o.ctx = ctx;
      o.shapes = {{"x", shape}};
      o.type_dict = std::map<std::string, DType>{{"x", dt}, {"g", dt}, {"b", dt}};
      std::unique_ptr<Executor> exe = Executor::SimpleBind(net, o);
      ThrowIfError(CopyTensor(MakeTensor(shape, x, dt), exe->arg_dict().at("x")));
      ThrowIfError(CopyTensor(MakeTensor(Shape{1}, {1}, dt), exe->arg_dict().at("g")));
      ThrowIfError(CopyTensor(MakeTensor(Shape{1}, {0}, dt), exe->arg_dict().at("b")));
      ThrowIfError(CopyTensor(MakeTensor(Shape{1}, {0}, dt), exe->aux_dict().at("mm")));
      ThrowIfError(CopyTensor(MakeTensor(Shape{1}, {1}, dt), exe->aux_dict().at("mv")));
      exe->Forward(true);
      exe->Backward({ValueOrThrow(CopyToNew(MakeTensor(shape, head, dt), ctx, dt))});
      const Values dx =
          ValueOrThrow(CopyToNew(exe->grad_dict().at("x"), Context::CPU(), dt)).ToDoubles();
      EXPECT_EQ(dx, (Values{0, 2, 0, -1}));
    }
  }
}

// SyncBatchNorm with ndev > 1 outside a data-parallel job (no replicas to
// meet) is BatchNorm over the batch it has, in training and in inference
// (tests/data_parallel/sync_batch_norm_test covers the replicas).
TEST(BatchNormKernelTest, SyncBatchNormWithoutReplicasIsBatchNorm) {
  std::vector<NodeEntry> inputs;
  for (const char* n : {"x", "g", "b", "mm", "mv"}) inputs.push_back({MakeVariableNode(n), 0, 0});
  NodePtr sync =
      MakeOpNode("_contrib_SyncBatchNorm", "sbn", {{"ndev", "4"}, {"key", "stage1"}}, inputs)
          .value();
  NodePtr plain = MakeOpNode("BatchNorm", "bn", {}, inputs).value();
  const Shape data{2, 2, 3}, ch{2};
  for (bool is_train : {true, false}) {
    std::vector<std::vector<double>> results;
    for (const auto& [op, node] :
         {std::pair{"_contrib_SyncBatchNorm", sync}, std::pair{"BatchNorm", plain}}) {
      const KernelInfo* k = KernelRegistry::Find(op, DeviceType::kCPU);
      ASSERT_NE(k, nullptr);
      KernelContext ctx;
      ctx.attrs = &node->attrs;
      ctx.device = GetDevice(Context::CPU(0)).value();
      ctx.is_train = is_train;
      ctx.inputs = {Tensor::FromVector(data, Uniform(data, -2, 3, 1), DType::kFloat32),
                    Tensor::FromVector(ch, {1, 1}, DType::kFloat32),
                    Tensor::FromVector(ch, {0, 0}, DType::kFloat32),
                    Tensor::FromVector(ch, {0, 0}, DType::kFloat32),
                    Tensor::FromVector(ch, {1, 1}, DType::kFloat32)};
      ctx.outputs = {Tensor::Empty(data, DType::kFloat32).value(),
                     Tensor::Empty(ch, DType::kFloat32).value(),
                     Tensor::Empty(ch, DType::kFloat32).value()};
      ctx.req = {OpReq::kWrite, OpReq::kWrite, OpReq::kWrite};
      absl::Status s = k->fn(ctx);
      ASSERT_TRUE(s.ok()) << s;
      results.push_back(ctx.outputs[0].ToDoubles());
    }
    EXPECT_EQ(results[0], results[1]) << "is_train " << is_train;
  }
}

TEST(NormConformance, BatchNormLarge) {
  OpCase c = BnCase({"bn many channels", Shape{4, 64, 8, 8}, 1, false});
  c.check_backward = false;
  CheckOp(c);
}

// Runs the BatchNorm kernel directly and returns moving_mean, moving_var after it.
std::vector<Values> RunBatchNorm(bool is_train, bool use_global_stats, Values* out_mean,
                                 Values* out_var) {
  AttrMap attrs = {{"fix_gamma", "False"},
                   {"momentum", "0.75"},
                   {"use_global_stats", use_global_stats ? "True" : "False"}};
  std::vector<NodeEntry> inputs;
  for (const char* n : {"x", "g", "b", "mm", "mv"}) inputs.push_back({MakeVariableNode(n), 0, 0});
  NodePtr node = MakeOpNode("BatchNorm", "bn", attrs, inputs).value();
  const KernelInfo* k = KernelRegistry::Find("BatchNorm", DeviceType::kCPU);
  EXPECT_NE(k, nullptr);
  const Shape data{4, 2, 3}, ch{2};
  KernelContext ctx;
  ctx.attrs = &node->attrs;
  ctx.device = GetDevice(Context::CPU(0)).value();
  ctx.is_train = is_train;
  ctx.inputs = {Tensor::FromVector(data, Uniform(data, -2, 3, 1), DType::kFloat64),
                Tensor::FromVector(ch, {1.5, 0.5}, DType::kFloat64),
                Tensor::FromVector(ch, {0.1, -0.2}, DType::kFloat64),
                Tensor::FromVector(ch, {0.25, -0.5}, DType::kFloat64),
                Tensor::FromVector(ch, {2.0, 0.5}, DType::kFloat64)};
  ctx.outputs = {Tensor::Empty(data, DType::kFloat64).value(),
                 Tensor::Empty(ch, DType::kFloat64).value(),
                 Tensor::Empty(ch, DType::kFloat64).value()};
  ctx.req = {OpReq::kWrite, OpReq::kWrite, OpReq::kWrite};
  EXPECT_TRUE(k->fn(ctx).ok());
  *out_mean = ctx.outputs[1].ToDoubles();
  *out_var = ctx.outputs[2].ToDoubles();
  return {ctx.inputs[3].ToDoubles(), ctx.inputs[4].ToDoubles()};
}

TEST(BatchNormKernelTest, MovingStatsUpdateOnlyInTraining) {
  Values mean, var;
  std::vector<Values> moving = RunBatchNorm(/*is_train=*/true, false, &mean, &var);
  for (int c = 0; c < 2; ++c) {
    const double old_mean = c == 0 ? 0.25 : -0.5, old_var = c == 0 ? 2.0 : 0.5;
    EXPECT_NEAR(moving[0][c], old_mean * 0.75 + mean[c] * 0.25, 1e-12) << "channel " << c;
    EXPECT_NEAR(moving[1][c], old_var * 0.75 + var[c] * 0.25, 1e-12) << "channel " << c;
    EXPECT_NE(moving[0][c], old_mean);
    EXPECT_NE(moving[1][c], old_var);
  }
  // Inference and use_global_stats leave them alone and report them as the statistics.
  for (bool use_global : {false, true}) {
    moving = RunBatchNorm(/*is_train=*/use_global, use_global, &mean, &var);
    EXPECT_EQ(moving[0], (Values{0.25, -0.5})) << "use_global_stats " << use_global;
    EXPECT_EQ(moving[1], (Values{2.0, 0.5})) << "use_global_stats " << use_global;
    EXPECT_EQ(mean, (Values{0.25, -0.5}));
    EXPECT_EQ(var, (Values{2.0, 0.5}));
  }
}

TEST(BatchNormKernelTest, RejectsFloat16) {
  NodePtr node = MakeOpNode("BatchNorm", "bn", {},
                            {{MakeVariableNode("x"), 0, 0},
                             {MakeVariableNode("g"), 0, 0},
                             {MakeVariableNode("b"), 0, 0},
                             {MakeVariableNode("mm"), 0, 0},
                             {MakeVariableNode("mv"), 0, 0}})
                     .value();
  KernelContext ctx;
  ctx.attrs = &node->attrs;
  ctx.device = GetDevice(Context::CPU(0)).value();
  ctx.inputs = {Tensor::Empty(Shape{2, 2}, DType::kFloat16).value()};
  absl::Status s = KernelRegistry::Find("BatchNorm", DeviceType::kCPU)->fn(ctx);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("float16"), std::string::npos) << s.message();
}

// ---------------------------------------------------------------- LayerNorm

OpCase LnCase(const std::string& name, const Shape& data, int axis, bool output_mean_var = false,
              double eps = 1e-5) {
  OpCase c;
  c.name = name;
  c.op = "LayerNorm";
  c.attrs = {{"axis", std::to_string(axis)},
             {"eps", std::to_string(eps)},
             {"output_mean_var", output_mean_var ? "True" : "False"}};
  int64_t outer, mid, inner;
  Split(data, axis, &outer, &mid, &inner);
  c.shapes = {data, Shape{mid}, Shape{mid}};
  c.reference = [=](const std::vector<Values>& in, const std::vector<Shape>&) {
    Values y(in[0].size()), mean(outer * inner), sd(outer * inner);
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < inner; ++i) {
        double m = 0, v = 0;
        for (int64_t a = 0; a < mid; ++a) m += in[0][(o * mid + a) * inner + i];
        m /= mid;
        for (int64_t a = 0; a < mid; ++a) {
          const double d = in[0][(o * mid + a) * inner + i] - m;
          v += d * d;
        }
        v /= mid;
        const double s = std::sqrt(v + eps);
        for (int64_t a = 0; a < mid; ++a) {
          const int64_t at = (o * mid + a) * inner + i;
          y[at] = (in[0][at] - m) / s * in[1][a] + in[2][a];
        }
        mean[o * inner + i] = m;
        sd[o * inner + i] = s;
      }
    }
    if (output_mean_var) return std::vector<Values>{y, mean, sd};
    return std::vector<Values>{y};
  };
  c.forward_tol32 = 1e-4;
  c.check_backward = !output_mean_var;
  return c;
}

TEST(NormConformance, LayerNorm) {
  CheckOp(LnCase("ln last axis", Shape{3, 5}, -1));
  CheckOp(LnCase("ln middle axis", Shape{2, 4, 3}, 1));
  CheckOp(LnCase("ln axis 0", Shape{4, 3}, 0));
  CheckOp(LnCase("ln 4-D", Shape{2, 2, 2, 6}, -1));
  CheckOp(LnCase("ln 1-D", Shape{6}, 0));
  CheckOp(LnCase("ln axis size 1", Shape{3, 1}, -1));
  CheckOp(LnCase("ln eps", Shape{2, 4}, -1, false, 1e-2));
  CheckOp(LnCase("ln output_mean_var", Shape{2, 3, 4}, 1, true));
  CheckOp(LnCase("ln empty rows", Shape{0, 4}, -1));
}

TEST(NormConformance, LayerNormLarge) {
  OpCase c = LnCase("ln 64x256", Shape{64, 256}, -1);
  c.check_backward = false;
  CheckOp(c);
  OpCase d = LnCase("ln 16x64x8 middle", Shape{16, 64, 8}, 1);
  d.check_backward = false;
  CheckOp(d);
}

}  // namespace
}  // namespace testing

namespace testing {
namespace {

const std::vector<DType> kWithHalf = {DType::kFloat32, DType::kFloat64, DType::kFloat16};

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

TEST(NormConformance, L2Normalization) {
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

TEST(NormConformance, InstanceNorm) {
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

TEST(NormConformance, GroupNorm) {
  CheckOp(GroupNormCase(Shape{2, 6, 2, 3}, 2, 1e-5));
  CheckOp(GroupNormCase(Shape{2, 6, 2, 3}, 1, 1e-5));
  CheckOp(GroupNormCase(Shape{2, 6, 4}, 3, 0.3));
  CheckOp(GroupNormCase(Shape{1, 4, 3}, 4, 1e-5));  // one channel per group
  CheckOp(GroupNormCase(Shape{2, 4, 3}, 2, 1e-5, /*mean_var=*/true));
}

}  // namespace
}  // namespace testing

}  // namespace symx
