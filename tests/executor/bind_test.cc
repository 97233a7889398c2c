// Bind and run: MXNet's test_executor cases (bind table, dot, reshape) and the
// grad_req rules, on cpu(0) or (SYMX_TEST_DEVICE=gpu) on gpu(0).
#include <cmath>
#include <random>

#include "devices/device.h"
#include "executor/executor.h"
#include "gmock/gmock.h"
#include "graph/symbol.h"
#include "gtest/gtest.h"
#include "tests/executor/executor_test_util.h"

namespace symx {
namespace {

using ::symx::testing::ExpectNear;
using ::symx::testing::Full;
using ::symx::testing::Iota;
using ::testing::HasSubstr;

// The device under test: cpu(0), or gpu(0) with SYMX_TEST_DEVICE=gpu
// (tools/gpu/run.sh), where every array a test binds lives too.
const Context kDev = testing::TestDevice(0);

Tensor Dev(const Tensor& t) {
  return t.ctx() == kDev ? t : ValueOrThrow(CopyToNew(t, kDev, t.dtype()));
}

BindOptions Opt() {
  BindOptions o;
  o.ctx = kDev;
  return o;
}

struct BinaryCase {
  const char* name;
  std::function<Symbol(const Symbol&, const Symbol&)> build;
  std::function<double(double, double)> forward;
  // Gradients of x and y for head gradient g.
  std::function<double(double, double, double)> gx, gy;
};

std::vector<BinaryCase> BinaryCases() {
  return {
      {"add", [](const Symbol& x, const Symbol& y) { return x + y; },
       [](double x, double y) { return x + y; }, [](double, double, double g) { return g; },
       [](double, double, double g) { return g; }},
      {"sub", [](const Symbol& x, const Symbol& y) { return x - y; },
       [](double x, double y) { return x - y; }, [](double, double, double g) { return g; },
       [](double, double, double g) { return -g; }},
      {"mul", [](const Symbol& x, const Symbol& y) { return x * y; },
       [](double x, double y) { return x * y; }, [](double, double y, double g) { return y * g; },
       [](double x, double, double g) { return x * g; }},
      {"div", [](const Symbol& x, const Symbol& y) { return x / y; },
       [](double x, double y) { return x / y; }, [](double, double y, double g) { return g / y; },
       [](double x, double y, double g) { return -x * g / (y * y); }},
      {"maximum",
       [](const Symbol& x, const Symbol& y) {
         return OpCall("_maximum").Input(x).Input(y).Build();
       },
       [](double x, double y) { return std::max(x, y); },
       [](double x, double y, double g) { return x >= y ? g : 0.0; },
       [](double x, double y, double g) { return y > x ? g : 0.0; }},
      {"minimum",
       [](const Symbol& x, const Symbol& y) {
         return OpCall("_minimum").Input(x).Input(y).Build();
       },
       [](double x, double y) { return std::min(x, y); },
       [](double x, double y, double g) { return x <= y ? g : 0.0; },
       [](double x, double y, double g) { return y < x ? g : 0.0; }},
  };
}

// test_bind: each binary op bound three ways (list args + grads, args only,
// dict args + grads), checked against the formulas, ten random shapes each.
TEST(BindTest, BinaryOpsThreeWays) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> ndim(1, 3), dim(1, 5);
  std::uniform_real_distribution<double> u(-1, 1);
  for (const BinaryCase& c : BinaryCases()) {
    for (int rep = 0; rep < 10; ++rep) {
      std::vector<int64_t> dims(ndim(rng));
      for (auto& d : dims) d = dim(rng);
      Shape shape(dims);
      std::vector<double> xv(shape.Size()), yv(shape.Size());
      for (auto& v : xv) v = u(rng);
      for (auto& v : yv) v = u(rng) > 0 ? u(rng) + 1.5 : u(rng) - 1.5;  // away from 0 for div
      Symbol x = Symbol::Variable("x"), y = Symbol::Variable("y");
      Symbol z = c.build(x, y);
      for (int way = 0; way < 3; ++way) {
        Tensor xa = Dev(Tensor::FromVector(shape, xv)), ya = Dev(Tensor::FromVector(shape, yv));
        Tensor gx = Dev(Full(shape, 0)), gy = Dev(Full(shape, 0));
        std::unique_ptr<Executor> exe;
        if (way == 0) {
          exe = Executor::Bind(z, Opt(), {xa, ya}, ArrayArgs({gx, gy}));
        } else if (way == 1) {
          exe = Executor::Bind(z, Opt(), {xa, ya}, std::nullopt);
        } else {
          exe = Executor::Bind(z, Opt(), std::map<std::string, Tensor>{{"x", xa}, {"y", ya}},
                               ArrayArgs(std::map<std::string, Tensor>{{"x", gx}, {"y", gy}}));
        }
        exe->Forward(false);
        std::vector<double> want(shape.Size()), wgx(shape.Size()), wgy(shape.Size());
        for (size_t i = 0; i < want.size(); ++i) {
          want[i] = c.forward(xa.ToDoubles()[i], ya.ToDoubles()[i]);
        }
        ExpectNear(exe->outputs()[0], want, 1e-5, std::string(c.name) + " forward");
        if (way == 1) {
          EXPECT_TRUE(exe->grad_dict().empty());
          exe->Backward();  // no gradients: a no-op
          continue;
        }
        exe->Backward({Full(shape, 1.0)});
        std::vector<double> xs = xa.ToDoubles(), ys = ya.ToDoubles();
        for (size_t i = 0; i < want.size(); ++i) {
          wgx[i] = c.gx(xs[i], ys[i], 1.0);
          wgy[i] = c.gy(xs[i], ys[i], 1.0);
        }
        ExpectNear(gx, wgx, 1e-5, std::string(c.name) + " grad x");
        ExpectNear(gy, wgy, 1e-5, std::string(c.name) + " grad y");
      }
    }
  }
}

TEST(BindTest, Dot2DAnd1D) {
  Symbol x = Symbol::Variable("x"), y = Symbol::Variable("y");
  Symbol z = OpCall("dot").Input(x).Input(y);
  // (2,3) x (3,4): grads g.y^T and x^T.g.
  Tensor xa = Dev(Iota(Shape{2, 3}, [](int64_t i) { return 0.5 * i - 1; }));
  Tensor ya = Dev(Iota(Shape{3, 4}, [](int64_t i) { return 0.25 * i; }));
  Tensor gx = Dev(Full(Shape{2, 3}, 0)), gy = Dev(Full(Shape{3, 4}, 0));
  auto exe = Executor::Bind(z, Opt(), {xa, ya}, ArrayArgs({gx, gy}));
  exe->Forward(true);
  std::vector<double> xs = xa.ToDoubles(), ys = ya.ToDoubles(), want(8, 0.0);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 3; ++k) want[i * 4 + j] += xs[i * 3 + k] * ys[k * 4 + j];
  ExpectNear(exe->outputs()[0], want, 1e-5, "dot forward");
  exe->Backward({Full(Shape{2, 4}, 1.0)});
  std::vector<double> wgx(6, 0.0), wgy(12, 0.0);
  for (int i = 0; i < 2; ++i)
    for (int k = 0; k < 3; ++k)
      for (int j = 0; j < 4; ++j) wgx[i * 3 + k] += ys[k * 4 + j];
  for (int k = 0; k < 3; ++k)
    for (int j = 0; j < 4; ++j)
      for (int i = 0; i < 2; ++i) wgy[k * 4 + j] += xs[i * 3 + k];
  ExpectNear(gx, wgx, 1e-5, "dot grad x");
  ExpectNear(gy, wgy, 1e-5, "dot grad y");

  // 1-D: a scalar-shaped (1,) output; grads g*y and g*x.
  Tensor a = Dev(Iota(Shape{5}, [](int64_t i) { return i + 1.0; }));
  Tensor b = Dev(Iota(Shape{5}, [](int64_t i) { return 2.0 - i; }));
  Tensor ga = Dev(Full(Shape{5}, 0)), gb = Dev(Full(Shape{5}, 0));
  auto exe1 = Executor::Bind(z, Opt(), {a, b}, ArrayArgs({ga, gb}));
  exe1->Forward(true);
  ExpectNear(exe1->outputs()[0], {1 * 2 + 2 * 1 + 3 * 0 + 4 * -1 + 5 * -2}, 1e-6, "dot 1-D");
  exe1->Backward({Full(exe1->outputs()[0].shape(), 2.0)});
  ExpectNear(ga, {4, 2, 0, -2, -4}, 1e-6, "dot 1-D grad x");
  ExpectNear(gb, {2, 4, 6, 8, 10}, 1e-6, "dot 1-D grad y");
}

// test_reshape: smaller shapes are views of the old memory; up-sizing gives
// new input arrays but keeps sharing the parameters.
TEST(BindTest, ReshapeSharesMemory) {
  Symbol x = Symbol::Variable("x");
  Symbol y = OpCall("FullyConnected").Name("fc").Attr("num_hidden", 4).Input("data", x);
  SimpleBindOptions o;
  o.ctx = kDev;
  o.shapes = {{"x", Shape{5, 4}}};
  o.grad_req = GradReq::kNull;
  auto exe = Executor::SimpleBind(y, o);
  exe->arg_dict().at("x").Fill(1);
  exe->arg_dict().at("fc_weight").Fill(1);
  exe->arg_dict().at("fc_bias").Fill(0);
  auto small = exe->Reshape({{"x", Shape{3, 4}}});
  small->Forward(false);
  ExpectNear(small->outputs()[0], std::vector<double>(12, 4.0), 0, "reshaped forward");
  EXPECT_TRUE(small->arg_dict().at("x").SharesStorageWith(exe->arg_dict().at("x")));
  // The new outputs live in the old executor's pool: its first rows show them.
  std::vector<double> old_out = exe->outputs()[0].ToDoubles();
  for (int i = 0; i < 12; ++i) EXPECT_EQ(old_out[i], 4.0) << i;

  EXPECT_THAT(testing::ErrorOf([&] {
                exe->Reshape({{"x", Shape{6, 4}}});
              }),
              HasSubstr("New shape of arg: x ([6,4]) is larger than original ([5,4])"));
  auto big = exe->Reshape({{"x", Shape{6, 4}}}, false, /*allow_up_sizing=*/true);
  EXPECT_FALSE(big->arg_dict().at("x").SharesStorageWith(exe->arg_dict().at("x")));
  EXPECT_TRUE(big->arg_dict().at("fc_weight").SharesStorageWith(exe->arg_dict().at("fc_weight")));
}

TEST(BindTest, ReshapeRefusesSilentParameterChange) {
  Symbol x = Symbol::Variable("x");
  Symbol y = OpCall("FullyConnected").Name("fc").Attr("num_hidden", 4).Input("data", x);
  auto exe = Executor::SimpleBind(y, {.ctx = kDev, .shapes = {{"x", Shape{5, 4}}}});
  EXPECT_THAT(testing::ErrorOf([&] {
                exe->Reshape({{"x", Shape{5, 2}}});
              }),
              HasSubstr("Shape of unspecified arg: fc_weight changed"));
  auto ok = exe->Reshape({{"x", Shape{5, 2}}}, /*partial_shaping=*/true);
  EXPECT_EQ(ok->arg_dict().at("fc_weight").shape(), (Shape{4, 2}));
}

TEST(BindTest, GradReqAddAccumulatesAndWriteOverwrites) {
  Symbol x = Symbol::Variable("x"), y = Symbol::Variable("y");
  Symbol z = x * y;
  Tensor xa = Dev(Full(Shape{3}, 2)), ya = Dev(Full(Shape{3}, 5));
  Tensor gx = Dev(Full(Shape{3}, 1)), gy = Dev(Full(Shape{3}, 1));
  BindOptions opt = Opt();
  opt.grad_req = std::map<std::string, GradReq>{{"x", GradReq::kAdd}, {"y", GradReq::kWrite}};
  auto exe = Executor::Bind(z, opt, {xa, ya}, ArrayArgs({gx, gy}));
  for (int i = 0; i < 2; ++i) {
    exe->Forward(true);
    exe->Backward({Full(Shape{3}, 1)});
  }
  ExpectNear(gx, {11, 11, 11}, 0, "add: 1 + 5 + 5");
  ExpectNear(gy, {2, 2, 2}, 0, "write: overwritten");
}

TEST(BindTest, NullGradReqPrunesBackwardNodes) {
  Symbol x = Symbol::Variable("x"), w = Symbol::Variable("w");
  Symbol h = OpCall("exp").Name("e").Input(x);
  Symbol z = h * w;
  Tensor gx = Dev(Full(Shape{2}, 7)), gw = Dev(Full(Shape{2}, 7));
  auto count_backward = [](const Executor& e) {
    std::string s = e.DebugStr();
    int n = 0;
    for (size_t p = s.find("backward "); p != std::string::npos; p = s.find("backward ", p + 1))
      ++n;
    return n;
  };
  BindOptions all = Opt();
  auto full =
      Executor::Bind(z, all, {Dev(Full(Shape{2}, 0)), Dev(Full(Shape{2}, 3))}, ArrayArgs({gx, gw}));
  BindOptions only_w = Opt();
  only_w.grad_req = std::vector<GradReq>{GradReq::kNull, GradReq::kWrite};
  auto pruned =
      Executor::Bind(z, only_w, {Dev(Full(Shape{2}, 0)), Dev(Full(Shape{2}, 3))},
                     ArrayArgs({gx, gw}));
  EXPECT_LT(count_backward(*pruned), count_backward(*full));
  pruned->Forward(true);
  pruned->Backward({Full(Shape{2}, 1)});
  ExpectNear(gw, {1, 1}, 1e-6, "w gradient = exp(0)");
  ExpectNear(gx, {7, 7}, 0, "null: the bound array is never written");
  EXPECT_EQ(pruned->grad_reqs()[0], GradReq::kNull);
}

TEST(BindTest, HeadGradientRequiredUnlessLoss) {
  Symbol x = Symbol::Variable("x");
  Symbol y = OpCall("tanh").Name("t").Input(x);
  auto exe = Executor::SimpleBind(y, {.ctx = kDev, .shapes = {{"x", Shape{2, 3}}}});
  exe->Forward(true);
  EXPECT_THAT(testing::ErrorOf([&] { exe->Backward(); }),
              HasSubstr("Because the last operator is not Loss function, head_gradient is "
                        "required when calling backward"));
  EXPECT_THAT(testing::ErrorOf([&] {
                exe->Backward({Full(Shape{3, 2}, 1)});
              }),
              HasSubstr("head gradient for output t_output has shape [3,2], expected [2,3]"));
  Symbol loss = OpCall("MakeLoss").Name("loss").Input(y);
  auto lexe = Executor::SimpleBind(loss, {.ctx = kDev, .shapes = {{"x", Shape{2, 3}}}});
  lexe->arg_dict().at("x").Fill(0.5);
  lexe->Forward(true);
  lexe->Backward();
  double t = std::tanh(0.5);
  ExpectNear(lexe->grad_dict().at("x"), std::vector<double>(6, 1 - t * t), 1e-6, "MakeLoss");
}

TEST(BindTest, AuxStatesChangeOnlyInTraining) {
  Symbol x = Symbol::Variable("x");
  Symbol bn = OpCall("BatchNorm").Name("bn").Attr("fix_gamma", false).Input("data", x);
  auto exe = Executor::SimpleBind(
      bn, {.ctx = kDev, .shapes = {{"x", Shape{4, 2}}}, .grad_req = GradReq::kNull});
  exe->arg_dict().at("x").Fill(3);
  exe->arg_dict().at("bn_gamma").Fill(1);
  exe->Forward(false);
  ExpectNear(exe->aux_dict().at("bn_moving_mean"), {0, 0}, 0, "inference leaves aux alone");
  exe->Forward(true);
  std::vector<double> m = exe->aux_dict().at("bn_moving_mean").ToDoubles();
  EXPECT_GT(m[0], 0.0);
  EXPECT_LT(m[0], 3.0);
}

TEST(BindTest, MonitorSeesEveryOpOutput) {
  Symbol x = Symbol::Variable("x");
  Symbol y = OpCall("FullyConnected").Name("fc1").Attr("num_hidden", 3).Input("data", x);
  Symbol z = OpCall("relu").Name("r").Input(y);
  auto exe = Executor::SimpleBind(
      z, {.ctx = kDev, .shapes = {{"x", Shape{2, 4}}}, .grad_req = GradReq::kNull});
  std::vector<std::string> seen;
  exe->SetMonitorCallback([&](const std::string& name, const Tensor&) { seen.push_back(name); });
  exe->Forward(false);
  EXPECT_THAT(seen, ::testing::ElementsAre("fc1_output", "r_output"));
  seen.clear();
  exe->SetMonitorCallback([&](const std::string& name, const Tensor&) { seen.push_back(name); },
                          /*monitor_all=*/true);
  exe->Forward(false);
  EXPECT_THAT(seen, ::testing::Contains("fc1_weight"));
}

TEST(BindTest, ForwardAndBackwardAllocateNothing) {
  Symbol x = Symbol::Variable("x");
  Symbol y = OpCall("FullyConnected").Name("fc").Attr("num_hidden", 16).Input("data", x);
  Symbol z = OpCall("SoftmaxOutput").Name("sm").Input("data", y);
  auto exe = Executor::SimpleBind(
      z, {.ctx = kDev, .shapes = {{"x", Shape{8, 32}}, {"sm_label", Shape{8}}}});
  Device* dev = GetDevice(kDev).value();
  size_t before = dev->allocator().bytes_in_use();
  dev->allocator().ResetPeak();
  for (int i = 0; i < 3; ++i) {
    exe->Forward(true);
    exe->Backward();
  }
  EXPECT_EQ(dev->allocator().bytes_in_use(), before);
  EXPECT_EQ(dev->allocator().peak_bytes(), before);
}

}  // namespace
}  // namespace symx
