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
#include "devices/params_io.h"
#include "executor/executor.h"
#include "graph/error.h"
#include "nlohmann/json.hpp"
#include "tools/examples/models.h"
#include "train/auto_stages.h"
#include "train/checkpoint.h"
#include "train/initializer.h"
#include "train/lr_scheduler.h"
#include "train/mixed_precision.h"
#include "train/name_filter.h"
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

Symbol ReplaceOutputLayer(const Symbol& net, int num_classes, std::vector<std::string>* replaced) {
  nlohmann::json graph = nlohmann::json::parse(net.ToJson());
  auto& nodes = graph["nodes"];
  const auto& heads = graph["heads"];
  if (heads.empty()) Fail("--num-classes: the symbol has no outputs");
  const int head = heads[0][0].get<int>();
  auto node_name = [&](int id) { return nodes[id]["name"].get<std::string>(); };
  auto node_op = [&](int id) { return nodes[id]["op"].get<std::string>(); };
  // The output node itself, or the first input of a loss head
  // (SoftmaxOutput, softmax, ...), must be a FullyConnected layer.
  int fc = head;
  if (node_op(fc) != "FullyConnected" && !nodes[fc]["inputs"].empty()) {
    fc = nodes[fc]["inputs"][0][0].get<int>();
  }
  if (node_op(fc) != "FullyConnected") {
    Fail(absl::StrCat("--num-classes: the output ", node_name(head), " (", node_op(head),
                      ") is not fed by a FullyConnected layer but by ", node_name(fc), " (",
                      node_op(fc), "); give the model a classifier layer first"));
  }
  auto& attrs = nodes[fc].contains("attrs") ? nodes[fc]["attrs"] : nodes[fc]["param"];
  attrs["num_hidden"] = std::to_string(num_classes);
  for (size_t k = 1; k < nodes[fc]["inputs"].size(); ++k) {
    const int input = nodes[fc]["inputs"][k][0].get<int>();
    if (node_op(input) == "null") replaced->push_back(node_name(input));
  }
  return Symbol::FromJson(graph.dump());
}

TrainResult Train(const TrainOptions& options, const DataSplits& data,
                  const TrainCallbacks& callbacks) {
  const int64_t batch = options.batch_size;
  if (data.train.size() < batch) {
    Fail(absl::StrCat("batch size ", batch, " is larger than the training set (", data.train.size(),
                      " examples)"));
  }
  if (data.test.size() == 0) Fail("the test set is empty");
  FeedFactory train = [&](const FeedShare&) {
    return std::make_unique<DatasetFeed>(data.train, batch, /*training=*/true, options.seed);
  };
  FeedFactory eval = [&](const FeedShare&) {
    return std::make_unique<DatasetFeed>(data.test, batch, /*training=*/false, 0);
  };
  return Train(options, data.train.example_shape(), train, eval, callbacks);
}

namespace {

// Initial values of a model's parameters: a checkpoint's where it has them
// (fresh ones excepted), seeded initialization for the rest.
void InitialValues(const TrainOptions& options, const Symbol& net, const ParallelModel& model,
                   const std::vector<std::string>& fresh, std::map<std::string, Tensor>* args,
                   std::map<std::string, Tensor>* aux, TrainResult* result) {
  for (const std::string& name : model.param_names()) {
    (*args)[name] = ValueOrThrow(Tensor::Zeros(model.shapes().at(name), DType::kFloat32));
  }
  for (const std::string& name : net.ListAuxiliaryStates()) {
    (*aux)[name] = ValueOrThrow(Tensor::Zeros(model.shapes().at(name), DType::kFloat32));
  }
  Rng rng(options.seed);
  std::unique_ptr<Initializer> init = CreateInitializer(options.initializer);
  InitParameters(net, *init, *args, {}, rng);
  InitParameters(net, *init, *aux, {}, rng);
  if (options.params_file.empty()) return;
  NamedTensors file = ValueOrThrow(LoadParams(options.params_file));
  std::map<std::string, Tensor> given;
  for (size_t i = 0; i < file.tensors.size(); ++i) {
    std::string key = file.is_dict() ? file.names[i] : std::to_string(i);
    if (absl::StartsWith(key, "arg:") || absl::StartsWith(key, "aux:")) key = key.substr(4);
    given[key] = file.tensors[i];
  }
  auto take = [&](std::map<std::string, Tensor>* into) {
    for (auto& [name, value] : *into) {
      auto it = given.find(name);
      const bool is_fresh = std::find(fresh.begin(), fresh.end(), name) != fresh.end();
      if (it == given.end() || !it->second.defined() || is_fresh) {
        result->initialized_params.push_back(name);
        continue;
      }
      if (it->second.shape() != value.shape()) {
        Fail(absl::StrCat(options.params_file, ": ", name, " has shape ",
                          it->second.shape().ToString(), " but the model's is ",
                          value.shape().ToString(),
                          options.num_classes > 0 ? "" : " (a new label set: --num-classes)"));
      }
      ConvertElements(it->second.read_raw_data(), it->second.dtype(), value.raw_data(),
                      DType::kFloat32, value.size());
      ++result->loaded_params;
    }
  };
  take(args);
  take(aux);
}

// Each process's feeds: its own rows and shard when data parallel over
// ranks, else the whole batch and data. A rank that cannot open its data
// says so on every rank: the others would otherwise wait in the next
// collective until the timeout. Collective.
struct Feeds {
  std::unique_ptr<BatchFeed> train, eval;
};

Feeds MakeFeeds(const TrainOptions& options, ParallelModel& model, const FeedFactory& make_train,
                const FeedFactory& make_eval) {
  FeedShare share;
  share.rows = options.batch_size;
  if (model.data_parallel_over_ranks()) {
    auto [begin, end] = model.local_rows();
    share = {begin, end - begin, model.rank(), options.comm->size()};
  }
  Feeds feeds;
  std::optional<Error> feed_error;
  try {
    feeds.train = make_train(share);
    if (make_eval) feeds.eval = make_eval(share);
  } catch (const Error& e) {
    feed_error.emplace(e);
  }
  if (model.MinOverRanks(feed_error ? 0 : 1) == 0) {
    if (feed_error) throw *feed_error;
    Fail(
        "another rank of the job could not open its training or evaluation data (its error "
        "says which)");
  }
  return feeds;
}

// One optimizer call over every parameter this process holds and updates
// (not another rank's stage, not a fixed one), on the host mirror.
void UpdateParameters(Optimizer& opt, const HostMirror& mirror,
                      const std::vector<std::string>& param_names, const std::vector<int>& indices,
                      const std::vector<bool>& frozen) {
  std::vector<Tensor> ws, gs;
  std::vector<int> ids;
  for (size_t i = 0; i < param_names.size(); ++i) {
    const Tensor& w = mirror.param(param_names[i]);
    if (!w.defined() || frozen[i]) continue;
    ids.push_back(indices[i]);
    ws.push_back(w);
    gs.push_back(mirror.grad(param_names[i]));
  }
  if (!ids.empty()) opt.Update(ids, ws, gs);
}

// This process's metrics over epoch `epoch`'s evaluation batches (none
// without a feed); the padded rows are not counted.
Metrics Evaluate(ParallelModel& model, BatchFeed* feed, int epoch) {
  Metrics t;
  if (feed == nullptr) return t;
  feed->Reset(epoch - 1);
  const int64_t first = feed->first_row();
  while (feed->Next()) {
    const int64_t rows = feed->data().shape()[0];
    model.EvalStep(feed->data(), feed->label(), first + rows - feed->pad(), &t, first);
  }
  return t;
}

// --auto-stages: the model (result->symbol) cut into balanced stages, the
// plan's summary in result->stages; returns the group2ctx to bind with
// (options.group2ctx, or stage k on rank k-1 when it is empty).
std::map<std::string, Context> ApplyAutoStages(const TrainOptions& options,
                                               const Shape& example_shape, TrainResult* result) {
  std::map<std::string, Context> group2ctx = options.group2ctx;
  if (options.auto_stages <= 0) return group2ctx;
  const int64_t batch = options.batch_size;
  AutoStagesOptions ao;
  ao.stages = options.auto_stages;
  std::vector<int64_t> dims = {batch};
  for (int64_t d : example_shape.dims()) dims.push_back(d);
  ao.shapes = {{kDataName, Shape(dims)}, {kLabelName, Shape{batch}}};
  StagePlan plan = ValueOrThrow(AutoStages(result->symbol, ao));
  result->symbol = plan.symbol;
  result->stages = plan.Describe();
  if (!group2ctx.empty()) return group2ctx;
  const int ranks = options.comm == nullptr ? 1 : options.comm->size();
  if (ranks < options.auto_stages * std::max(1, options.replicas)) {
    Fail(absl::StrCat(
        "auto stages: ", options.auto_stages, " stages",
        options.replicas > 1 ? absl::StrCat(" x ", options.replicas, " replicas") : std::string(),
        " need as many ranks (mpirun -np), or a group2ctx placing the stages; "
        "this job has ",
        ranks));
  }
  for (int k = 0; k < options.auto_stages; ++k) {
    Context c = Context::CPU(0);
    c.rank = k;
    group2ctx[absl::StrCat("stage", k + 1)] = c;
  }
  return group2ctx;
}

}  // namespace

TrainResult Train(const TrainOptions& options, const Shape& example_shape,
                  const FeedFactory& make_train, const FeedFactory& make_eval,
                  const TrainCallbacks& callbacks) {
  CheckOptions(options);
  const int64_t batch = options.batch_size;

  TrainResult result;
  std::vector<std::string> fresh;
  result.symbol =
      options.symbol_file.empty() ? BuildModel(options.model) : Symbol::Load(options.symbol_file);
  if (options.num_classes > 0) {
    result.symbol = ReplaceOutputLayer(result.symbol, options.num_classes, &fresh);
  }
  const std::map<std::string, Context> group2ctx = ApplyAutoStages(options, example_shape, &result);
  const Symbol& net = result.symbol;
  Symbol bound = net;
  if (options.dtype != DType::kFloat32) {
    bound = ToMixedPrecision(net, {options.dtype, options.dtype == DType::kFloat16});
  }

  ParallelOptions po;
  po.ctx = options.ctx;
  po.contexts = options.contexts;
  po.group2ctx = group2ctx;
  po.comm = options.comm;
  po.comm_timeout = options.comm_timeout;
  po.bucket_bytes = options.bucket_bytes;
  po.batch_size = batch;
  po.example_shape = example_shape;
  po.engine = options.engine;
  po.microbatches = options.microbatches;
  po.schedule = options.schedule;
  po.replicas = options.replicas;
  ParallelModel model(bound, po);
  // float16 scales the loss of a model that has a loss head (the rewrite
  // then has the scale input); without one there is nothing to scale.
  std::optional<LossScaler> scaler;
  if (model.has_loss_scale()) {
    scaler.emplace(options.loss_scaler);
    model.SetLossScale(scaler->scale());
  }
  result.layout = model.Describe();
  result.planned_bytes = model.planned_bytes();
  const std::vector<std::string>& param_names = model.param_names();

  // Initial values made on the host as one process makes them (the same
  // generator draws in the same order), then set into every replica.
  std::map<std::string, Tensor> init_args, init_aux;
  InitialValues(options, net, model, fresh, &init_args, &init_aux, &result);
  model.SetParams(init_args, init_aux);

  Feeds feeds = MakeFeeds(options, model, make_train, make_eval);
  std::unique_ptr<BatchFeed>& train_feed = feeds.train;
  std::unique_ptr<BatchFeed>& eval_feed = feeds.eval;
  // Ranks reading shards of different sizes take the same number of steps.
  const int64_t steps = model.MinOverRanks(train_feed->num_batches());
  if (steps == 0) Fail("the training data holds no full batch");

  std::unique_ptr<Optimizer> opt = MakeOptimizer(options, batch);
  const std::map<std::string, AttrMap> attrs = net.AttrDict();
  std::optional<NameFilter> fixed;
  if (!options.fixed_params.empty()) {
    fixed.emplace(ValueOrThrow(NameFilter::Create(options.fixed_params, "fixed_params")));
  }
  std::vector<int> indices;
  std::vector<bool> frozen;
  for (size_t i = 0; i < param_names.size(); ++i) {
    const std::string& name = param_names[i];
    const int index = static_cast<int>(i);
    indices.push_back(index);
    frozen.push_back(fixed && fixed->Matches(name));
    result.fixed_params += frozen.back();
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

  for (int epoch = 1; epoch <= options.epochs; ++epoch) {
    EpochResult er;
    er.epoch = epoch;
    auto start = std::chrono::steady_clock::now();
    Metrics m;
    train_feed->Reset(epoch - 1);
    const double wait_before = train_feed->wait_seconds();
    int64_t b = 0;
    const int64_t skipped_before = scaler ? scaler->skipped() : 0;
    while (b < steps && train_feed->Next()) {
      model.TrainStep(train_feed->data(), train_feed->label(), &m, train_feed->first_row());
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
        UpdateParameters(*opt, mirror, param_names, indices, frozen);
        mirror.Push();
        model.SyncReplicas();
      }
      ++b;
      if (callbacks.on_batch) {
        callbacks.on_batch(BatchProgress{epoch, b, steps, m.loss(), m.accuracy(), Seconds(start)});
      }
    }
    er.train_seconds = Seconds(start);
    er.data_wait_seconds = train_feed->wait_seconds() - wait_before;
    if (scaler) {
      er.skipped_steps = scaler->skipped() - skipped_before;
      er.loss_scale = scaler->scale();
    }
    const Metrics total = model.SumOverRanks(m);
    er.train_loss = total.loss();
    er.train_accuracy = total.accuracy();
    er.train_top5 = total.top5_accuracy();
    er.train_examples = total.count;

    model.AverageAux();
    start = std::chrono::steady_clock::now();
    const Metrics test = model.SumOverRanks(Evaluate(model, eval_feed.get(), epoch));
    er.eval_seconds = Seconds(start);
    er.has_test = eval_feed != nullptr;
    er.test_accuracy = test.accuracy();
    er.test_top5 = test.top5_accuracy();
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
