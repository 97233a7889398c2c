// Initializers: Xavier's fan computation and bounds, MXNet's name rules,
// __init__ attributes, seeding.
#include "train/initializer.h"

#include <algorithm>
#include <cmath>

#include "graph/error.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace symx::train {
namespace {

Tensor Zeros(const Shape& s, DType dtype = DType::kFloat32) {
  return ValueOrThrow(Tensor::Zeros(s, dtype));
}

double MaxAbs(const Tensor& t) {
  double m = 0;
  for (double v : t.ToDoubles()) m = std::max(m, std::abs(v));
  return m;
}

TEST(Xavier, FanInAndOutIncludeTheReceptiveField) {
  // Convolution weight (20, 1, 5, 5): fan_in = 1*25, fan_out = 20*25.
  Shape conv{20, 1, 5, 5};
  EXPECT_DOUBLE_EQ(Xavier(Xavier::RndType::kUniform, Xavier::FactorType::kAvg, 3).Scale("w", conv),
                   std::sqrt(3.0 / ((25.0 + 500.0) / 2)));
  EXPECT_DOUBLE_EQ(Xavier(Xavier::RndType::kUniform, Xavier::FactorType::kIn, 2).Scale("w", conv),
                   std::sqrt(2.0 / 25.0));
  EXPECT_DOUBLE_EQ(Xavier(Xavier::RndType::kUniform, Xavier::FactorType::kOut, 2).Scale("w", conv),
                   std::sqrt(2.0 / 500.0));
  // Dense (128, 784).
  EXPECT_DOUBLE_EQ(Xavier().Scale("w", Shape{128, 784}), std::sqrt(3.0 / 456.0));
}

TEST(Xavier, UniformValuesStayInBoundsAndSpreadOut) {
  Rng rng(1);
  Tensor w = Zeros(Shape{64, 100});
  Xavier x;
  x.InitWeight("fc_weight", w, rng);
  const double bound = x.Scale("fc_weight", w.shape());
  EXPECT_LE(MaxAbs(w), bound);
  EXPECT_GT(MaxAbs(w), 0.9 * bound);
  double mean = 0;
  for (double v : w.ToDoubles()) mean += v;
  EXPECT_NEAR(mean / w.size(), 0.0, 0.05 * bound);
}

TEST(Xavier, GaussianHasTheScaleAsStandardDeviation) {
  Rng rng(2);
  Tensor w = Zeros(Shape{200, 300}, DType::kFloat64);
  Xavier x(Xavier::RndType::kGaussian, Xavier::FactorType::kIn, 2);
  x.InitWeight("w", w, rng);
  double sq = 0;
  for (double v : w.ToDoubles()) sq += v * v;
  EXPECT_NEAR(std::sqrt(sq / w.size()), std::sqrt(2.0 / 300.0), 0.002);
}

TEST(Xavier, RejectsVectors) {
  Rng rng(0);
  try {
    Xavier().InitWeight("fc_weight", Zeros(Shape{10}), rng);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("fc_weight"), std::string::npos) << e.what();
  }
}

TEST(Initializer, SameSeedSameValues) {
  Tensor a = Zeros(Shape{5, 7}), b = Zeros(Shape{5, 7}), c = Zeros(Shape{5, 7});
  Rng r1(42), r2(42), r3(43);
  Uniform u(0.5);
  u.InitWeight("w", a, r1);
  u.InitWeight("w", b, r2);
  u.InitWeight("w", c, r3);
  EXPECT_EQ(a.ToDoubles(), b.ToDoubles());
  EXPECT_NE(a.ToDoubles(), c.ToDoubles());
  EXPECT_LE(MaxAbs(a), 0.5);
}

TEST(InitParameter, NameSuffixRules) {
  Rng rng(3);
  Uniform weight_init(0.1);
  auto init = [&](const std::string& name) {
    Tensor t = Zeros(Shape{4, 3});
    t.Fill(7);
    InitParameter(weight_init, name, "", t, rng);
    return t.ToDoubles();
  };
  std::vector<double> w = init("fc1_weight");
  EXPECT_LE(*std::max_element(w.begin(), w.end()), 0.1);
  EXPECT_NE(w, std::vector<double>(12, 7.0));
  EXPECT_EQ(init("fc1_bias"), std::vector<double>(12, 0.0));
  EXPECT_EQ(init("bn_gamma"), std::vector<double>(12, 1.0));
  EXPECT_EQ(init("bn_beta"), std::vector<double>(12, 0.0));
  EXPECT_EQ(init("bn_moving_mean"), std::vector<double>(12, 0.0));
  EXPECT_EQ(init("bn_moving_var"), std::vector<double>(12, 1.0));
  EXPECT_THROW(init("mystery"), Error);
}

TEST(InitParameter, InitAttributeWins) {
  Rng rng(4);
  Uniform weight_init(0.1);
  Tensor t = Zeros(Shape{3, 4});
  InitParameter(weight_init, "fc1_weight", "zeros", t, rng);
  EXPECT_EQ(t.ToDoubles(), std::vector<double>(12, 0.0));
  InitParameter(weight_init, "fc1_bias", "[\"constant\", {\"value\": 2.5}]", t, rng);
  EXPECT_EQ(t.ToDoubles(), std::vector<double>(12, 2.5));
  InitParameter(weight_init, "anything", "one", t, rng);
  EXPECT_EQ(t.ToDoubles(), std::vector<double>(12, 1.0));
  InitParameter(weight_init, "fc1_bias",
                "[\"xavier\", {\"rnd_type\": \"uniform\", \"factor_type\": \"in\", "
                "\"magnitude\": \"3\"}]",
                t, rng);
  EXPECT_LE(MaxAbs(t), std::sqrt(3.0 / 4.0));
  EXPECT_GT(MaxAbs(t), 0.0);
}

TEST(CreateInitializer, ParsesMxnetDumpsAndRejectsTheRest) {
  auto x = CreateInitializer(
      "[\"xavier\", {\"rnd_type\": \"gaussian\", \"factor_type\": \"in\", \"magnitude\": 2}]");
  nlohmann::json d = nlohmann::json::parse(x->Dumps());
  EXPECT_EQ(d[0], "xavier");
  EXPECT_EQ(d[1]["rnd_type"], "gaussian");
  EXPECT_EQ(d[1]["factor_type"], "in");
  EXPECT_EQ(d[1]["magnitude"], 2.0);
  EXPECT_EQ(nlohmann::json::parse(CreateInitializer("Normal")->Dumps())[1]["sigma"], 0.01);
  EXPECT_EQ(nlohmann::json::parse(CreateInitializer("[\"uniform\"]")->Dumps())[1]["scale"], 0.07);
  EXPECT_EQ(nlohmann::json::parse(CreateInitializer("msraprelu")->Dumps())[0], "msraprelu");
  EXPECT_THROW(CreateInitializer("orthogonal"), Error);
  EXPECT_THROW(CreateInitializer("[\"xavier\", {\"rnd_type\": \"cauchy\"}]"), Error);
  EXPECT_THROW(CreateInitializer("[\"xavier\", {\"bogus\": 1}]"), Error);
  EXPECT_THROW(CreateInitializer("[\"xavier\", "), Error);
  EXPECT_THROW(CreateInitializer("nonsense"), Error);
}

TEST(InitParameters, SkipsInputsAndReadsVariableAttributes) {
  VariableOptions zero_init;
  zero_init.init = "zeros";
  Symbol data = Symbol::Variable("data");
  Symbol w = Symbol::Variable("fc_weight", zero_init);
  Symbol net = OpCall("FullyConnected")
                   .Name("fc")
                   .Attr("num_hidden", 3)
                   .Input("data", data)
                   .Input("weight", w);
  std::map<std::string, Tensor> arrays = {{"data", Zeros(Shape{2, 4})},
                                          {"fc_weight", Zeros(Shape{3, 4})},
                                          {"fc_bias", Zeros(Shape{3})}};
  arrays["data"].Fill(5);
  arrays["fc_weight"].Fill(5);
  arrays["fc_bias"].Fill(5);
  Rng rng(5);
  InitParameters(net, Xavier(), arrays, {"data"}, rng);
  EXPECT_EQ(arrays["data"].ToDoubles(), std::vector<double>(8, 5.0));
  EXPECT_EQ(arrays["fc_weight"].ToDoubles(), std::vector<double>(12, 0.0));
  EXPECT_EQ(arrays["fc_bias"].ToDoubles(), std::vector<double>(3, 0.0));
}

}  // namespace
}  // namespace symx::train
