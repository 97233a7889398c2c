#include "tools/train/trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <optional>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "executor/executor.h"
#include "graph/error.h"
#include "tools/examples/models.h"
#include "tools/train/checkpoint.h"
#include "tools/train/initializer.h"
#include "tools/train/optimizer.h"

namespace symx::train {
namespace {

constexpr char kData[] = "data";
constexpr char kLabel[] = "softmax_label";

[[noreturn]] void Fail(const std::string& message) {
  throw Error(absl::InvalidArgumentError(message));
}

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

void CheckOptions(const TrainOptions& o) {
  if (o.epochs < 1) Fail(absl::StrCat("epochs must be at least 1, got ", o.epochs));
  if (o.batch_size < 1) Fail(absl::StrCat("batch size must be at least 1, got ", o.batch_size));
  if (!(o.lr > 0) || !std::isfinite(o.lr)) Fail(absl::StrCat("lr must be positive, got ", o.lr));
  if (!(o.wd >= 0) || !std::isfinite(o.wd)) {
    Fail(absl::StrCat("wd must not be negative, got ", o.wd));
  }
  if (!(o.momentum >= 0 && o.momentum < 1)) {
    Fail(absl::StrCat("momentum must be in [0, 1), got ", o.momentum));
  }
}

// An attribute of a variable read as a number (e.g. __lr_mult__), if present.
std::optional<double> NumberAttr(const std::map<std::string, AttrMap>& attrs,
                                 const std::string& node, const std::string& key) {
  auto it = attrs.find(node);
  if (it == attrs.end()) return std::nullopt;
  auto a = it->second.find(key);
  double v;
  if (a == it->second.end() || !absl::SimpleAtod(a->second, &v)) return std::nullopt;
  return v;
}

Metrics Evaluate(Executor& exe, const Dataset& test, int64_t batch_size) {
  Metrics m;
  BatchIterator it(test, batch_size, /*shuffle=*/false, 0, BatchIterator::LastBatch::kPad);
  while (it.Next()) {
    exe.Forward(/*is_train=*/false, {{kData, it.data()}});
    m.Add(exe.outputs()[0], it.label(), batch_size - it.pad());
  }
  return m;
}

}  // namespace

Symbol BuildModel(const std::string& name) {
  if (name == "mlp") return examples::Mlp();
  if (name == "lenet") return examples::LeNet();
  Fail(absl::StrCat("unknown model '", name, "' (known: mlp, lenet)"));
}

DataSplits LoadData(const TrainOptions& options) {
  if (options.data_dir.empty()) {
    return SyntheticDataset(options.synthetic_train, options.synthetic_test, options.seed);
  }
  return ValueOrThrow(LoadMnist(options.data_dir));
}

void Metrics::Add(const Tensor& probabilities, const Tensor& labels, int64_t rows) {
  const Shape& s = probabilities.shape();
  if (s.ndim() != 2 || labels.shape().ndim() != 1 || labels.shape()[0] != s[0] || rows > s[0]) {
    Fail(absl::StrCat("metrics: expected probabilities [B, C] and labels [B], got ", s.ToString(),
                      " and ", labels.shape().ToString()));
  }
  const int64_t classes = s[1];
  std::vector<double> p = probabilities.ToDoubles();
  std::vector<double> l = labels.ToDoubles();
  for (int64_t r = 0; r < rows; ++r) {
    const double* row = p.data() + r * classes;
    const int64_t label = static_cast<int64_t>(l[r]);
    const int64_t best = std::max_element(row, row + classes) - row;
    correct += (best == label);
    const double pl = (label >= 0 && label < classes) ? row[label] : 0.0;
    loss_sum += -std::log(std::max(pl, 1e-12));
    ++count;
  }
}

TrainResult Train(const TrainOptions& options, const DataSplits& data,
                  const TrainCallbacks& callbacks) {
  CheckOptions(options);
  const int64_t batch = options.batch_size;
  if (data.train.size() < batch) {
    Fail(absl::StrCat("batch size ", batch, " is larger than the training set (", data.train.size(),
                      " examples)"));
  }
  if (data.test.size() == 0) Fail("the test set is empty");

  TrainResult result;
  result.symbol = BuildModel(options.model);
  const Symbol& net = result.symbol;

  std::vector<int64_t> data_dims = {batch};
  const Shape example = data.train.example_shape();
  for (int64_t d : example.dims()) data_dims.push_back(d);
  const Shape data_shape(data_dims), label_shape{batch};

  // Gradients for the parameters only.
  std::vector<std::string> arg_names = net.ListArguments();
  std::vector<std::string> param_names;
  std::map<std::string, GradReq> grad_req;
  for (const std::string& name : arg_names) {
    if (name == kData || name == kLabel) continue;
    param_names.push_back(name);
    grad_req[name] = GradReq::kWrite;
  }

  SimpleBindOptions bind;
  bind.ctx = options.ctx;
  bind.group2ctx = options.group2ctx;
  bind.grad_req = grad_req;
  bind.shapes = {{kData, data_shape}, {kLabel, label_shape}};
  std::unique_ptr<Executor> exe = Executor::SimpleBind(net, bind);

  std::map<std::string, Tensor> args = exe->arg_dict();
  std::map<std::string, Tensor> grads = exe->grad_dict();
  std::map<std::string, Tensor> aux = exe->aux_dict();

  Rng rng(options.seed);
  std::unique_ptr<Initializer> init = CreateInitializer(options.initializer);
  InitParameters(net, *init, args, {kData, kLabel}, rng);
  InitParameters(net, *init, aux, {}, rng);

  OptimizerOptions oo;
  oo.lr = options.lr;
  oo.wd = options.wd;
  oo.rescale_grad = 1.0 / static_cast<double>(batch);
  oo.clip_gradient = options.clip_gradient;
  std::unique_ptr<Optimizer> opt = CreateOptimizer(options.optimizer, oo, options.momentum);
  const std::map<std::string, AttrMap> attrs = net.AttrDict();
  for (size_t i = 0; i < param_names.size(); ++i) {
    const std::string& name = param_names[i];
    const int index = static_cast<int>(i);
    if (!absl::EndsWith(name, "_weight") && !absl::EndsWith(name, "_gamma")) {
      opt->set_wd_mult(index, 0.0);
    }
    if (auto m = NumberAttr(attrs, name, "__wd_mult__")) opt->set_wd_mult(index, *m);
    if (auto m = NumberAttr(attrs, name, "__lr_mult__")) opt->set_lr_mult(index, *m);
  }

  // The inference executor uses the training executor's parameter and aux
  // arrays themselves; only data and label are its own.
  std::map<std::string, Tensor> infer_args = args;
  infer_args[kData] = ValueOrThrow(Tensor::Zeros(data_shape, args[kData].dtype(), options.ctx));
  infer_args[kLabel] = ValueOrThrow(Tensor::Zeros(label_shape, args[kLabel].dtype(), options.ctx));
  BindOptions infer_bind;
  infer_bind.ctx = options.ctx;
  infer_bind.group2ctx = options.group2ctx;
  std::unique_ptr<Executor> infer = Executor::Bind(net, infer_bind, infer_args, std::nullopt, aux);

  if (!options.prefix.empty()) {
    result.saved_files.push_back(SaveSymbolFile(options.prefix, net));
    if (callbacks.on_save) callbacks.on_save(result.saved_files.back());
  }

  BatchIterator train_it(data.train, batch, /*shuffle=*/true, options.seed,
                         BatchIterator::LastBatch::kDiscard);
  for (int epoch = 1; epoch <= options.epochs; ++epoch) {
    EpochResult er;
    er.epoch = epoch;
    auto start = std::chrono::steady_clock::now();
    Metrics m;
    train_it.Reset(epoch - 1);
    int64_t b = 0;
    while (train_it.Next()) {
      exe->Forward(/*is_train=*/true, {{kData, train_it.data()}, {kLabel, train_it.label()}});
      exe->Backward();
      for (size_t i = 0; i < param_names.size(); ++i) {
        opt->Update(static_cast<int>(i), args[param_names[i]], grads[param_names[i]]);
      }
      m.Add(exe->outputs()[0], train_it.label(), batch);
      ++b;
      if (callbacks.on_batch) {
        callbacks.on_batch(BatchProgress{epoch, b, train_it.num_batches(), m.loss(), m.accuracy()});
      }
    }
    er.train_seconds = Seconds(start);
    er.train_loss = m.loss();
    er.train_accuracy = m.accuracy();
    er.train_examples = m.count;

    start = std::chrono::steady_clock::now();
    Metrics t = Evaluate(*infer, data.test, batch);
    er.eval_seconds = Seconds(start);
    er.test_accuracy = t.accuracy();
    er.test_examples = t.count;
    result.epochs.push_back(er);
    if (callbacks.on_epoch) callbacks.on_epoch(er);

    if (!options.prefix.empty() && (options.save_every_epoch || epoch == options.epochs)) {
      std::map<std::string, Tensor> params;
      for (const std::string& name : param_names) params[name] = args[name];
      result.saved_files.push_back(SaveParamsFile(options.prefix, epoch, params, aux));
      if (callbacks.on_save) callbacks.on_save(result.saved_files.back());
    }
  }
  for (const std::string& name : param_names) result.arg_params[name] = args[name];
  result.aux_params = aux;
  return result;
}

}  // namespace symx::train
