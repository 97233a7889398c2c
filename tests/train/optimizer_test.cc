// One SGD and Adam step against numbers worked out by hand from MXNet's rules.
#include "train/optimizer.h"

#include <cmath>

#include "graph/error.h"
#include "gtest/gtest.h"

namespace symx::train {
namespace {

Tensor Vec(const std::vector<double>& v, DType dtype = DType::kFloat32) {
  return Tensor::FromVector(Shape{static_cast<int64_t>(v.size())}, v, dtype);
}

void ExpectNear(const Tensor& t, const std::vector<double>& want, double tol) {
  std::vector<double> got = t.ToDoubles();
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "element " << i;
}

TEST(SGD, PlainStepWithWeightDecayAndRescale) {
  SGDOptions o;
  o.lr = 0.1;
  o.wd = 0.01;
  o.rescale_grad = 0.5;
  SGD sgd(o);
  Tensor w = Vec({1.0, -2.0});
  Tensor g = Vec({4.0, 2.0});
  sgd.Update(0, w, g);
  // w - lr * (rescale*g + wd*w): 1 - 0.1*(2 + 0.01) = 0.799; -2 - 0.1*(1 - 0.02) = -2.098
  ExpectNear(w, {0.799, -2.098}, 1e-6);
  EXPECT_FALSE(sgd.momentum_state(0).defined());
  EXPECT_EQ(sgd.update_count(0), 1);
}

TEST(SGD, MomentumTwoSteps) {
  SGDOptions o;
  o.lr = 0.1;
  o.momentum = 0.9;
  SGD sgd(o);
  Tensor w = Vec({1.0}, DType::kFloat64);
  Tensor g = Vec({1.0}, DType::kFloat64);
  sgd.Update(3, w, g);
  // mom = -0.1; w = 0.9
  ExpectNear(w, {0.9}, 1e-12);
  ExpectNear(sgd.momentum_state(3), {-0.1}, 1e-12);
  sgd.Update(3, w, g);
  // mom = 0.9*-0.1 - 0.1 = -0.19; w = 0.71
  ExpectNear(w, {0.71}, 1e-12);
}

TEST(SGD, ClipsTheRescaledGradientBeforeWeightDecay) {
  SGDOptions o;
  o.lr = 1.0;
  o.wd = 0.5;
  o.clip_gradient = 1.0;
  SGD sgd(o);
  Tensor w = Vec({2.0, 2.0});
  Tensor g = Vec({10.0, -0.5});
  sgd.Update(0, w, g);
  // 2 - (clip(10)=1 + 0.5*2) = 0;  2 - (-0.5 + 1) = 1.5
  ExpectNear(w, {0.0, 1.5}, 1e-6);
}

TEST(SGD, LrAndWdMultipliers) {
  SGDOptions o;
  o.lr = 0.1;
  o.wd = 1.0;
  SGD sgd(o);
  sgd.set_lr_mult(0, 2.0);
  sgd.set_wd_mult(0, 0.0);
  Tensor w = Vec({1.0});
  sgd.Update(0, w, Vec({1.0}));
  ExpectNear(w, {0.8}, 1e-6);  // 1 - 0.2 * 1
}

TEST(Adam, FirstTwoSteps) {
  AdamOptions o;
  o.lr = 0.01;
  o.wd = 0.1;
  Adam adam(o);
  Tensor w = Vec({1.0, -1.0}, DType::kFloat64);
  Tensor g = Vec({0.5, 0.2}, DType::kFloat64);
  adam.Update(0, w, g);
  // Step 1: g' = g + 0.1*w = {0.6, 0.1}; m = 0.1 g'; v = 0.001 g'^2;
  // lr_t = 0.01 * sqrt(0.001) / 0.1; w -= lr_t * m / (sqrt(v) + 1e-8)
  std::vector<double> want;
  const double lr1 = 0.01 * std::sqrt(1 - 0.999) / (1 - 0.9);
  std::vector<double> m1, v1;
  for (double gi : {0.6, 0.1}) {
    m1.push_back(0.1 * gi);
    v1.push_back(0.001 * gi * gi);
  }
  std::vector<double> w1 = {1.0 - lr1 * m1[0] / (std::sqrt(v1[0]) + 1e-8),
                            -1.0 - lr1 * m1[1] / (std::sqrt(v1[1]) + 1e-8)};
  ExpectNear(w, w1, 1e-12);
  // The bias-corrected first step moves each weight by about lr.
  EXPECT_NEAR(w1[0], 0.99, 1e-6);
  EXPECT_NEAR(w1[1], -1.01, 1e-6);

  adam.Update(0, w, g);
  const double lr2 = 0.01 * std::sqrt(1 - 0.999 * 0.999) / (1 - 0.9 * 0.9);
  std::vector<double> w2;
  for (int i = 0; i < 2; ++i) {
    double gi = (i == 0 ? 0.5 : 0.2) + 0.1 * w1[i];
    double m = 0.9 * m1[i] + 0.1 * gi;
    double v = 0.999 * v1[i] + 0.001 * gi * gi;
    w2.push_back(w1[i] - lr2 * m / (std::sqrt(v) + 1e-8));
  }
  ExpectNear(w, w2, 1e-12);
  EXPECT_EQ(adam.update_count(0), 2);
}

TEST(Adam, BeginNumUpdateShiftsTheBiasCorrection) {
  // MXNet's begin_num_update = 5: the first update is t = 6.
  AdamOptions o;
  o.lr = 0.01;
  Adam adam(o);
  adam.set_begin_num_update(5);
  Tensor w = Vec({1.0}, DType::kFloat64);
  adam.Update(0, w, Vec({0.5}, DType::kFloat64));
  const double m = 0.1 * 0.5, v = 0.001 * 0.25;
  const double lr_t = 0.01 * std::sqrt(1 - std::pow(0.999, 6)) / (1 - std::pow(0.9, 6));
  ExpectNear(w, {1.0 - lr_t * m / (std::sqrt(v) + 1e-8)}, 1e-12);
  EXPECT_EQ(adam.update_count(0), 1);
}

TEST(SGD, WdAndClipCanChangeBetweenUpdates) {
  SGDOptions o;
  o.lr = 0.1;
  SGD sgd(o);
  Tensor w = Vec({1.0}, DType::kFloat64);
  sgd.Update(0, w, Vec({4.0}, DType::kFloat64));  // w = 1 - 0.1 * 4
  ExpectNear(w, {0.6}, 1e-12);
  sgd.set_wd(0.5);
  sgd.set_clip_gradient(1.0);
  sgd.Update(0, w, Vec({4.0}, DType::kFloat64));  // w -= 0.1 * (clip(4) + 0.5 * 0.6)
  ExpectNear(w, {0.6 - 0.1 * (1.0 + 0.3)}, 1e-12);
}

TEST(Adam, Float32MatchesFloat64) {
  AdamOptions o;
  o.lr = 0.05;
  o.rescale_grad = 0.25;
  o.clip_gradient = 0.3;
  Adam a32(o), a64(o);
  Tensor w32 = Vec({0.5, -0.25, 2.0});
  Tensor w64 = Vec({0.5, -0.25, 2.0}, DType::kFloat64);
  for (int step = 0; step < 3; ++step) {
    a32.Update(1, w32, Vec({4.0, -0.4, 0.1}));
    a64.Update(1, w64, Vec({4.0, -0.4, 0.1}, DType::kFloat64));
  }
  ExpectNear(w32, w64.ToDoubles(), 1e-5);
}

TEST(Optimizer, MismatchedTensorsAreErrors) {
  SGD sgd(SGDOptions{});
  EXPECT_THROW(sgd.Update(0, Vec({1, 2}), Vec({1})), Error);
  EXPECT_THROW(sgd.Update(0, Vec({1}), Vec({1}, DType::kFloat64)), Error);
  EXPECT_THROW(sgd.Update(0, Vec({1}, DType::kInt32), Vec({1}, DType::kInt32)), Error);
  try {
    sgd.Update(7, Vec({1, 2}), Vec({1}));
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("index 7"), std::string::npos) << e.what();
  }
}

TEST(Optimizer, CreateByName) {
  OptimizerOptions o;
  o.lr = 0.2;
  EXPECT_EQ(CreateOptimizer("SGD", o, 0.9)->name(), "sgd");
  EXPECT_EQ(CreateOptimizer("adam", o, 0.0)->lr(), 0.2);
  EXPECT_THROW(CreateOptimizer("rmsprop", o, 0.0), Error);
}

}  // namespace
}  // namespace symx::train
