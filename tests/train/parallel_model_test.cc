// ParallelModel's aux states under data parallelism: each replica's BatchNorm
// moving statistics follow its own rows, and AverageAux makes them the mean
// over every replica, as MXNet's Module does over devices.
#include "train/parallel_model.h"

#include <random>

#include "gtest/gtest.h"

namespace symx::train {
namespace {

Tensor Random(const Shape& shape, uint32_t seed, double scale) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-scale, scale);
  std::vector<double> v(shape.Size());
  for (double& x : v) x = u(rng);
  return Tensor::FromVector(shape, v);
}

TEST(ParallelModel, AverageAuxIsTheMeanOverReplicas) {
  // fc1 + relu, fc2 + BatchNorm + softmax (ctx_groups are ignored here).
  Symbol net = Symbol::Load("tools/examples/legacy_mlp-symbol.json");
  ParallelOptions o;
  o.contexts = {Context::CPU(1), Context::CPU(2)};
  o.batch_size = 8;
  o.example_shape = Shape{10};
  ParallelModel model(net, o);

  std::map<std::string, Tensor> args, aux;
  uint32_t seed = 1;
  for (const std::string& name : model.param_names()) {
    args[name] = Random(model.shapes().at(name), seed++, 0.5);
  }
  for (const std::string& name : net.ListAuxiliaryStates()) {
    aux[name] = Random(model.shapes().at(name), seed++, 0.2);
    if (name.find("var") != std::string::npos) aux[name] = Random(model.shapes().at(name), 99, 0.0);
  }
  model.SetParams(args, aux);
  Tensor data = Random(Shape{8, 10}, 7, 1.0);
  Tensor label = Tensor::FromVector(Shape{8}, {0, 1, 2, 3, 0, 1, 2, 3});
  Metrics m;
  model.TrainStep(data, label, &m);
  EXPECT_EQ(m.count, 8);
  model.AverageAux();
  std::map<std::string, Tensor> got_args, got_aux;
  model.Gather(&got_args, &got_aux);

  // The same step on two plain executors, one per half of the batch.
  const std::vector<std::string> aux_names = net.ListAuxiliaryStates();
  std::vector<std::map<std::string, std::vector<double>>> halves(2);
  for (int half = 0; half < 2; ++half) {
    auto exe = Executor::SimpleBind(net, {.shapes = {{"data", Shape{4, 10}}}});
    exe->CopyParamsFrom(args, aux);
    exe->Forward(true, {{"data", *data.Slice(4 * half, 4 * half + 4)},
                        {"softmax_label", *label.Slice(4 * half, 4 * half + 4)}});
    for (const std::string& name : aux_names) {
      halves[half][name] = exe->aux_dict().at(name).ToDoubles();
    }
  }
  ASSERT_FALSE(aux_names.empty());
  for (const std::string& name : aux_names) {
    const std::vector<double>& a = halves[0][name];
    const std::vector<double>& b = halves[1][name];
    std::vector<double> got = got_aux.at(name).ToDoubles();
    ASSERT_EQ(got.size(), a.size()) << name;
    bool differ = false;
    for (size_t i = 0; i < a.size(); ++i) {
      differ |= a[i] != b[i];
      EXPECT_NEAR(got[i], (a[i] + b[i]) / 2, 1e-6) << name << " " << i;
    }
    EXPECT_TRUE(differ) << name << ": the halves should move the statistics differently";
  }
}

}  // namespace
}  // namespace symx::train
