#include "train/trainer.h"

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
#include "train/checkpoint.h"
#include "train/initializer.h"
#include "train/lr_scheduler.h"
#include "train/mixed_precision.h"
#include "train/optimizer.h"
#include "train/parallel_model.h"
#include "train/spec.h"

namespace symx::train {
namespace {

[[noreturn]] void Fail(const std::string& message) {
  throw Error(absl::InvalidArgumentError(message));
}

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

void CheckOptions(const TrainOptions& o) {
  if (o.epochs < 1) Fail(absl::StrCat("epochs must be at least 1, got ", o.epochs));
  if (o.batch_size < 1) Fail(absl::StrCat("batch size must be at least 1, got ", o.batch_size));
  if (o.lr && (!(*o.lr > 0) || !std::isfinite(*o.lr))) {
    Fail(absl::StrCat("lr must be positive, got ", *o.lr));
  }
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

// The optimizer works on host tensors: parameters on a device the host
// cannot address are updated on host copies, pulled before and pushed after.
class HostMirror {
 public:
  HostMirror(const std::map<std::string, Tensor>& params,
             const std::map<std::string, Tensor>& grads) {
    for (const auto& [name, w] : params) {
      const Tensor& g = grads.at(name);
      if (!w.defined() || w.ctx().type == DeviceType::kCPU) {
        params_[name] = w;
        grads_[name] = g;
        continue;
      }
      params_[name] = ValueOrThrow(CopyToNew(w, Context::CPU(), w.dtype()));
      grads_[name] = ValueOrThrow(Tensor::Zeros(g.shape(), g.dtype()));
      mirrored_.push_back({w, params_[name], g, grads_[name]});
    }
  }
  const Tensor& param(const std::string& name) const { return params_.at(name); }
  const Tensor& grad(const std::string& name) const { return grads_.at(name); }
  void Pull() const {
    for (const Pair& p : mirrored_) ThrowIfError(CopyTensor(p.device_grad, p.host_grad));
  }
  void Push() const {
    for (const Pair& p : mirrored_) ThrowIfError(CopyTensor(p.host_param, p.device_param));
  }

 private:
  struct Pair {
    Tensor device_param, host_param, device_grad, host_grad;
  };
  std::map<std::string, Tensor> params_, grads_;
  std::vector<Pair> mirrored_;
};

}  // namespace

std::unique_ptr<Optimizer> MakeOptimizer(const TrainOptions& options, int64_t batch_size) {
  const Spec spec = ParseSpec(options.optimizer, "optimizer");
  std::string text = options.optimizer;
  static const char* const kWithMomentum[] = {"sgd", "ccsgd", "nag", "lars", "dcasgd", "signum"};
  if (spec.values.count("momentum") == 0 &&
      std::find(std::begin(kWithMomentum), std::end(kWithMomentum), spec.name) !=
          std::end(kWithMomentum)) {
    absl::StrAppend(&text, text.find(':') == std::string::npos ? ":" : ",",
                    "momentum=", options.momentum);
  }
  OptimizerOptions oo;
  oo.lr = options.lr;
  if (!oo.lr && spec.name == "sgd") oo.lr = 0.05;  // MXNet's train_mnist.py
  oo.wd = options.wd;
  // Gradients are sums over the global batch, on every layout.
  oo.rescale_grad = 1.0 / static_cast<double>(batch_size);
  if (options.clip_gradient > 0) oo.clip_gradient = options.clip_gradient;
  oo.seed = options.seed;
  oo.aggregate_num = options.aggregate_num;
  std::unique_ptr<Optimizer> probe = CreateOptimizer(text, oo);
  if (!options.lr_schedule.empty()) {
    // The schedule starts from the optimizer's rate (its own default when
    // --lr is not given), as MXNet's optimizer sets the schedule's base_lr.
    oo.lr_scheduler = ParseLRScheduler(options.lr_schedule, probe->learning_rate());
    return CreateOptimizer(text, oo);
  }
  return probe;
}

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
  Symbol bound = net;
  if (options.dtype != DType::kFloat32) {
    bound = ToMixedPrecision(net, {options.dtype, options.dtype == DType::kFloat16});
  }

  ParallelOptions po;
  po.ctx = options.ctx;
  po.contexts = options.contexts;
  po.group2ctx = options.group2ctx;
  po.comm = options.comm;
  po.comm_timeout = options.comm_timeout;
  po.bucket_bytes = options.bucket_bytes;
  po.batch_size = batch;
  po.example_shape = data.train.example_shape();
  po.engine = options.engine;
  ParallelModel model(bound, po);
  // float16 scales the loss of a model that has a loss head (the rewrite
  // then has the scale input); without one there is nothing to scale.
  std::optional<LossScaler> scaler;
  if (model.has_loss_scale()) {
    scaler.emplace(options.loss_scaler);
    model.SetLossScale(scaler->scale());
  }
  result.layout = model.Describe();
  const std::vector<std::string>& param_names = model.param_names();

  // Initial values made on the host as one process makes them (the same
  // generator draws in the same order), then set into every replica.
  std::map<std::string, Tensor> init_args, init_aux;
  for (const std::string& name : param_names) {
    init_args[name] = ValueOrThrow(Tensor::Zeros(model.shapes().at(name), DType::kFloat32));
  }
  for (const std::string& name : net.ListAuxiliaryStates()) {
    init_aux[name] = ValueOrThrow(Tensor::Zeros(model.shapes().at(name), DType::kFloat32));
  }
  Rng rng(options.seed);
  std::unique_ptr<Initializer> init = CreateInitializer(options.initializer);
  InitParameters(net, *init, init_args, {}, rng);
  InitParameters(net, *init, init_aux, {}, rng);
  model.SetParams(init_args, init_aux);

  std::unique_ptr<Optimizer> opt = MakeOptimizer(options, batch);
  const std::map<std::string, AttrMap> attrs = net.AttrDict();
  std::vector<int> indices;
  for (size_t i = 0; i < param_names.size(); ++i) {
    const std::string& name = param_names[i];
    const int index = static_cast<int>(i);
    indices.push_back(index);
    opt->set_index_name(index, name);  // the optimizer's default wd_mult by name
    if (auto m = NumberAttr(attrs, name, "__wd_mult__")) opt->set_wd_mult(index, *m);
    if (auto m = NumberAttr(attrs, name, "__lr_mult__")) opt->set_lr_mult(index, *m);
  }
  const std::map<std::string, Tensor> params = model.params();
  const std::map<std::string, Tensor> grads = model.grads();
  const HostMirror mirror(params, grads);

  if (!options.prefix.empty() && model.is_root()) {
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
    const int64_t skipped_before = scaler ? scaler->skipped() : 0;
    while (train_it.Next()) {
      model.TrainStep(train_it.data(), train_it.label(), &m);
      bool apply = true;
      if (scaler) {
        // Every rank decides alike (a split model's ranks hold different
        // gradients); the gradients carry the scale this step used.
        const double used = scaler->scale();
        apply = scaler->Update(!model.AnyRank(!AllFinite(grads)));
        if (apply) opt->set_rescale_grad(1.0 / (static_cast<double>(batch) * used));
        if (scaler->scale() != used) model.SetLossScale(scaler->scale());
      }
      if (apply) {
        mirror.Pull();
        std::vector<Tensor> ws, gs;
        std::vector<int> ids;
        for (size_t i = 0; i < param_names.size(); ++i) {
          const Tensor& w = mirror.param(param_names[i]);
          if (!w.defined()) continue;  // another rank's stage holds it
          ids.push_back(indices[i]);
          ws.push_back(w);
          gs.push_back(mirror.grad(param_names[i]));
        }
        opt->Update(ids, ws, gs);
        mirror.Push();
        model.SyncReplicas();
      }
      ++b;
      if (callbacks.on_batch) {
        callbacks.on_batch(BatchProgress{epoch, b, train_it.num_batches(), m.loss(), m.accuracy()});
      }
    }
    er.train_seconds = Seconds(start);
    if (scaler) {
      er.skipped_steps = scaler->skipped() - skipped_before;
      er.loss_scale = scaler->scale();
    }
    const Metrics total = model.SumOverRanks(m);
    er.train_loss = total.loss();
    er.train_accuracy = total.accuracy();
    er.train_examples = total.count;

    model.AverageAux();
    start = std::chrono::steady_clock::now();
    Metrics t;
    BatchIterator test_it(data.test, batch, /*shuffle=*/false, 0, BatchIterator::LastBatch::kPad);
    while (test_it.Next())
      model.EvalStep(test_it.data(), test_it.label(), batch - test_it.pad(), &t);
    const Metrics test = model.SumOverRanks(t);
    er.eval_seconds = Seconds(start);
    er.test_accuracy = test.accuracy();
    er.test_examples = test.count;
    result.epochs.push_back(er);
    if (callbacks.on_epoch) callbacks.on_epoch(er);

    if (!options.prefix.empty() && (options.save_every_epoch || epoch == options.epochs)) {
      std::map<std::string, Tensor> args, aux;
      model.Gather(&args, &aux);
      if (model.is_root()) {
        result.saved_files.push_back(SaveParamsFile(options.prefix, epoch, args, aux));
        if (callbacks.on_save) callbacks.on_save(result.saved_files.back());
      }
    }
  }
  model.Gather(&result.arg_params, &result.aux_params);
  return result;
}

}  // namespace symx::train
