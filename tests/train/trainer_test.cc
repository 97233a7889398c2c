// End to end: train the MLP on a small synthetic set, check it learned, save a
// checkpoint, reload it (Symbol::Load + LoadParams) into a new executor and get
// the same predictions.
#include "train/trainer.h"

#include <cstdlib>

#include "devices/params_io.h"
#include "executor/executor.h"
#include "graph/error.h"
#include "gtest/gtest.h"
#include "train/checkpoint.h"

namespace symx::train {
namespace {

std::string TempDir() {
  const char* t = std::getenv("TEST_TMPDIR");
  return t != nullptr ? t : "/tmp";
}

std::vector<double> Predict(const Symbol& net, const std::map<std::string, Tensor>& args,
                            const std::map<std::string, Tensor>& aux, const Tensor& images) {
  SimpleBindOptions o;
  o.grad_req = GradReq::kNull;
  o.shapes = {{"data", images.shape()}};
  std::unique_ptr<Executor> exe = Executor::SimpleBind(net, o);
  exe->CopyParamsFrom(args, aux);
  exe->Forward(false, {{"data", images}});
  return exe->outputs()[0].ToDoubles();
}

TEST(Trainer, LearnsTheSyntheticTaskAndRoundTripsTheCheckpoint) {
  TrainOptions o;
  o.epochs = 2;
  o.batch_size = 50;
  o.seed = 11;
  o.prefix = TempDir() + "/trainer_test_mlp";
  DataSplits data = SyntheticDataset(3000, 500, o.seed);
  std::vector<BatchProgress> progress;
  std::vector<std::string> saved;
  TrainCallbacks cb;
  cb.on_batch = [&](const BatchProgress& p) { progress.push_back(p); };
  cb.on_save = [&](const std::string& path) { saved.push_back(path); };
  TrainResult r = Train(o, data, cb);

  ASSERT_EQ(r.epochs.size(), 2u);
  EXPECT_EQ(progress.size(), 2u * 60u);
  EXPECT_EQ(progress.back().num_batches, 60);
  EXPECT_EQ(r.epochs[0].train_examples, 3000);
  EXPECT_EQ(r.epochs[1].test_examples, 500);
  EXPECT_LT(r.epochs[1].train_loss, r.epochs[0].train_loss);
  EXPECT_GT(r.epochs[1].test_accuracy, 0.95);

  ASSERT_EQ(r.saved_files.size(), 2u);
  EXPECT_EQ(r.saved_files[0], o.prefix + "-symbol.json");
  EXPECT_EQ(r.saved_files[1], o.prefix + "-0002.params");
  EXPECT_EQ(saved, r.saved_files);

  // The .params file holds exactly the learned arguments, MXNet-style keys.
  NamedTensors raw = ValueOrThrow(LoadParams(r.saved_files[1]));
  std::vector<std::string> want_keys;
  for (const auto& [name, t] : r.arg_params) want_keys.push_back("arg:" + name);
  EXPECT_EQ(raw.names, want_keys);
  EXPECT_EQ(r.arg_params.count("data"), 0u);
  EXPECT_EQ(r.arg_params.count("softmax_label"), 0u);

  Checkpoint c = LoadCheckpoint(o.prefix, 2);
  EXPECT_EQ(c.symbol.ToJson(), r.symbol.ToJson());
  ASSERT_EQ(c.arg_params.size(), r.arg_params.size());
  for (const auto& [name, t] : r.arg_params) {
    EXPECT_EQ(c.arg_params.at(name).ToDoubles(), t.ToDoubles()) << name;
  }

  Tensor images = ValueOrThrow(data.test.images.Slice(0, 64));
  std::vector<double> before = Predict(r.symbol, r.arg_params, r.aux_params, images);
  std::vector<double> after = Predict(c.symbol, c.arg_params, c.aux_params, images);
  EXPECT_EQ(before, after);
}

TEST(Trainer, LeNetLearnsToo) {
  TrainOptions o;
  o.model = "lenet";
  o.epochs = 1;
  o.batch_size = 50;
  DataSplits data = SyntheticDataset(2000, 300, 3);
  TrainResult r = Train(o, data);
  EXPECT_GT(r.epochs[0].test_accuracy, 0.9);
  EXPECT_EQ(r.arg_params.at("conv1_weight").shape(), (Shape{20, 1, 5, 5}));
}

TEST(Trainer, SameSeedSameResult) {
  TrainOptions o;
  o.epochs = 1;
  o.batch_size = 100;
  o.optimizer = "adam";
  o.lr = 0.001;
  DataSplits data = SyntheticDataset(500, 100, 5);
  TrainResult a = Train(o, data);
  TrainResult b = Train(o, data);
  EXPECT_EQ(a.epochs[0].train_loss, b.epochs[0].train_loss);
  EXPECT_EQ(a.arg_params.at("fc1_weight").ToDoubles(), b.arg_params.at("fc1_weight").ToDoubles());
  EXPECT_TRUE(a.saved_files.empty());
}

TEST(Trainer, OptimizersAndSchedulesFromTheirSpellings) {
  TrainOptions o;
  std::unique_ptr<Optimizer> sgd = MakeOptimizer(o, 100);
  EXPECT_DOUBLE_EQ(sgd->learning_rate(), 0.05);
  EXPECT_DOUBLE_EQ(sgd->rescale_grad(), 0.01);
  EXPECT_NE(sgd->Describe().find("momentum 0.9"), std::string::npos) << sgd->Describe();
  o.optimizer = "nag:momentum=0.5";
  EXPECT_NE(MakeOptimizer(o, 100)->Describe().find("momentum 0.5"), std::string::npos);
  o.optimizer = "lamb";  // MXNet's default rate for it
  EXPECT_DOUBLE_EQ(MakeOptimizer(o, 100)->learning_rate(), 0.001);
  o.lr = 0.2;
  o.lr_schedule = "factor:step=2,factor=0.5";
  std::unique_ptr<Optimizer> lamb = MakeOptimizer(o, 100);
  EXPECT_DOUBLE_EQ(lamb->learning_rate(), 0.2);
  EXPECT_NE(lamb->Describe().find("factor(x0.5 every 2 updates, from 0.2"), std::string::npos)
      << lamb->Describe();
}

TEST(Trainer, TrainsWithAScheduleAndAnAdaptiveOptimizer) {
  TrainOptions o;
  o.epochs = 2;
  o.batch_size = 50;
  o.optimizer = "rmsprop";
  o.lr = 0.003;
  o.lr_schedule = "cosine:max_update=60,final_lr=0.0001,warmup_steps=5";
  DataSplits data = SyntheticDataset(1500, 300, 11);
  TrainResult r = Train(o, data);
  EXPECT_LT(r.epochs.back().train_loss, r.epochs.front().train_loss);
  EXPECT_GT(r.epochs.back().test_accuracy, 0.9);
}

TEST(Trainer, BadOptionsAreErrors) {
  DataSplits data = SyntheticDataset(100, 10, 1);
  TrainOptions o;
  o.model = "resnet";
  EXPECT_THROW(Train(o, data), Error);
  o = TrainOptions();
  o.optimizer = "rmsprob";
  EXPECT_THROW(Train(o, data), Error);
  o = TrainOptions();
  o.optimizer = "adam:beta3=0.5";
  EXPECT_THROW(Train(o, data), Error);
  o = TrainOptions();
  o.lr_schedule = "factor:stp=10";
  EXPECT_THROW(Train(o, data), Error);
  o = TrainOptions();
  o.batch_size = 200;
  EXPECT_THROW(Train(o, data), Error);
  o = TrainOptions();
  o.epochs = 0;
  EXPECT_THROW(Train(o, data), Error);
  o = TrainOptions();
  o.lr = -1;
  EXPECT_THROW(Train(o, data), Error);
}

TEST(Checkpoint, AParamsFileWithoutArgAuxKeysIsAnErrorNamingIt) {
  const std::string prefix = TempDir() + "/trainer_test_listy";
  Symbol::Variable("x").Save(SymbolPath(prefix));
  NamedTensors list;  // a list file: no keys at all
  list.tensors.push_back(Tensor::FromVector(Shape{1}, {1.0}));
  ASSERT_TRUE(SaveParams(ParamsPath(prefix, 1), list).ok());
  try {
    LoadCheckpoint(prefix, 1);
    FAIL() << "a list file loaded as a checkpoint";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("trainer_test_listy-0001.params: "), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("arg:/aux: keys"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace symx::train
