// Training an example classifier end to end, as MXNet's Module.fit does:
//
//   build the model (tools/examples: MLP or LeNet, SoftmaxOutput head)
//   SimpleBind with data [B, 1, H, W] and softmax_label [B] (gradients for
//     the parameters only), initialize the parameters (seeded Xavier by default)
//   per epoch: for each shuffled batch Forward(is_train) -> Backward ->
//     one optimizer update of every (weight, grad) with rescale_grad = 1/B
//     (as Module's updater given the list), the rate from the lr schedule;
//     training loss (mean cross entropy of the softmax output) and accuracy;
//     test accuracy from an inference executor bound to the same parameter
//     arrays (no copy)
//   save PREFIX-symbol.json and PREFIX-NNNN.params after the last epoch (and
//     after every epoch with save_every_epoch).
//
// With options.dtype float16 or bfloat16 the bound model is the mixed-precision
// rewrite of the example (mixed_precision.h); the symbol saved and returned is
// the float32 example, which the float32 master weights belong to. Parameters
// on a device the host cannot address (a GPU) are updated on host copies.
//
// Like MXNet, weight decay applies to *_weight and *_gamma only (wd_mult 0
// elsewhere; lars: *_weight), and a variable's __lr_mult__/__wd_mult__
// attributes are honoured.
// The last partial training batch of an epoch is dropped (the order changes
// every epoch); the test set is evaluated completely (the last batch is padded
// and the padding not counted).
#ifndef SYMX_TRAIN_TRAINER_H_
#define SYMX_TRAIN_TRAINER_H_

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "devices/context.h"
#include "devices/engine_options.h"
#include "devices/tensor.h"
#include "distributed/communicator.h"
#include "graph/symbol.h"
#include "train/batch_feed.h"
#include "train/data.h"
#include "train/loss_scaler.h"
#include "train/metrics.h"
#include "train/optimizer.h"
#include "train/pipeline.h"

namespace symx::train {

struct TrainOptions {
  std::string model = "mlp";  // mlp | lenet
  // A model from a file instead (symx train MODEL-symbol.json): any symbol
  // whose inputs are `data` and `softmax_label` and whose first output is a
  // softmax over classes.
  std::string symbol_file;
  // Initial values from a checkpoint's .params ("arg:NAME"/"aux:NAME" or bare
  // names): every parameter the file holds with the right shape; the others
  // are initialized. A shape that differs is an error naming the parameter
  // (unless num_classes replaces it).
  std::string params_file;
  // Parameters whose whole name matches this regular expression are not
  // updated (fine-tuning the last layers only).
  std::string fixed_params;
  // > 0: the FullyConnected layer feeding the output gets this many classes
  // and fresh (initialized) weights, for fine-tuning on a new label set.
  int num_classes = 0;
  std::string data_dir;  // MNIST idx files; empty: the synthetic set
  int64_t synthetic_train = 10000;
  int64_t synthetic_test = 2000;
  int epochs = 3;
  int64_t batch_size = 100;
  // An optimizer spelled as CreateOptimizer reads it (optimizer.h):
  // "sgd", "adam", "lamb:beta1=0.8", ...
  std::string optimizer = "sgd";
  // The rate; unset: 0.05 for sgd (MXNet's train_mnist.py), the
  // optimizer's MXNet default for the others.
  std::optional<double> lr;
  // For the optimizers with a momentum (sgd, nag, lars, dcasgd, signum)
  // unless the optimizer spelling sets it.
  double momentum = 0.9;
  double wd = 0.0001;
  double clip_gradient = -1;  // <= 0: none
  // An lr schedule spelled as ParseLRScheduler reads it (lr_scheduler.h),
  // its base rate the optimizer's; empty: a constant rate.
  std::string lr_schedule;
  // MXNet's MXNET_OPTIMIZER_AGGREGATION_SIZE (the CLI reads it); unset: the
  // optimizer's default.
  std::optional<int64_t> aggregate_num;
  // An initializer description for *_weight (see initializer.h): MXNet's
  // train_mnist.py choice by default.
  std::string initializer =
      "[\"xavier\", {\"rnd_type\": \"gaussian\", \"factor_type\": \"in\", \"magnitude\": 2}]";
  uint64_t seed = 42;
  Context ctx;
  // Several devices train data parallel, a replica on each (parallel_model.h);
  // empty: `ctx` alone.
  std::vector<Context> contexts;
  std::map<std::string, Context> group2ctx;
  // The ranks of an mpirun job (nullptr: this process alone). Without
  // group2ctx naming other ranks' devices, every rank trains replicas on its
  // share of each batch (data parallel); with it, the model is split across
  // ranks. batch_size is the global batch either way.
  std::shared_ptr<Communicator> comm;
  absl::Duration comm_timeout = absl::Seconds(300);
  size_t bucket_bytes = size_t{25} << 20;  // gradient buckets (data parallel)
  // A model split across ranks as a pipeline (parallel_model.h, pipeline.h):
  // micro-batches per batch and their schedule.
  int microbatches = 1;
  PipelineSchedule schedule = PipelineSchedule::kGpipe;
  // That split replicated over the job's ranks (ParallelOptions::replicas):
  // group2ctx places one replica on ranks 0..S-1.
  int replicas = 1;
  // > 0: cut the model into this many cost-balanced stages (auto_stages.h),
  // replacing its ctx_groups; without group2ctx, stage k goes to rank k-1
  // (cpu(0) there; the job needs stages x replicas ranks).
  int auto_stages = 0;
  // float32, or float16/bfloat16 for mixed precision (mixed_precision.h):
  // the model computes in that dtype, the optimizer updates float32 master
  // weights, checkpoints are float32. float16 scales the loss dynamically
  // (loss_scaler.h).
  DType dtype = DType::kFloat32;
  LossScalerOptions loss_scaler;
  std::string prefix;  // empty: save nothing
  bool save_every_epoch = false;
  EngineOptions engine;  // every bind's switches (devices/engine_options.h)
};

struct EpochResult {
  int epoch = 0;  // 1-based
  double train_loss = 0;
  double train_accuracy = 0;
  double train_top5 = 0;
  bool has_test = true;  // false: no evaluation data was given
  double test_accuracy = 0;
  double test_top5 = 0;
  // Seconds the training steps waited for the data feed (decode threads
  // behind the model); ~0 when the feed keeps up.
  double data_wait_seconds = 0;
  int64_t train_examples = 0;  // examples seen this epoch
  int64_t test_examples = 0;
  // float16: updates skipped for a non-finite gradient this epoch, and the
  // loss scale at its end (0 without loss scaling).
  int64_t skipped_steps = 0;
  double loss_scale = 0;
  double train_seconds = 0;
  double eval_seconds = 0;
};

struct BatchProgress {
  int epoch = 0;      // 1-based
  int64_t batch = 0;  // 1-based
  int64_t num_batches = 0;
  double loss = 0;      // running mean over the epoch so far
  double accuracy = 0;  // running
  double seconds = 0;   // since the epoch began
};

struct TrainCallbacks {
  std::function<void(const BatchProgress&)> on_batch;
  std::function<void(const EpochResult&)> on_epoch;
  std::function<void(const std::string& path)> on_save;
};

struct TrainResult {
  std::vector<EpochResult> epochs;
  Symbol symbol;
  // How the model ran ("cpu(0)", "data parallel: ...").
  std::string layout;
  // auto_stages: the plan's summary (StagePlan::Describe); empty otherwise.
  std::string stages;
  // Intermediate memory this rank's training executors plan, in bytes (a
  // pipeline: all its activation slots).
  size_t planned_bytes = 0;
  // The trained parameters (the training executor's arrays; with several
  // ranks, on rank 0 only).
  std::map<std::string, Tensor> arg_params;
  std::map<std::string, Tensor> aux_params;
  // Files written, in order (symbol first).
  std::vector<std::string> saved_files;
  // With params_file: the parameters it did not provide (initialized), and
  // those it provided.
  std::vector<std::string> initialized_params;
  int64_t loaded_params = 0;
  int64_t fixed_params = 0;  // matched by fixed_params
};

// The optimizer Train uses: options.optimizer with options' rate, momentum,
// wd, clip_gradient and lr_schedule, rescale_grad 1/batch_size. Throws
// symx::Error for an unknown optimizer, schedule or setting.
std::unique_ptr<Optimizer> MakeOptimizer(const TrainOptions& options, int64_t batch_size);

// "mlp" or "lenet" (throws symx::Error for anything else).
Symbol BuildModel(const std::string& name);

// The symbol with the FullyConnected layer that feeds its first output given
// `num_classes` outputs; `replaced` gets that layer's weight and bias names.
// Throws symx::Error naming the node when the output is not fed by one.
Symbol ReplaceOutputLayer(const Symbol& net, int num_classes, std::vector<std::string>* replaced);

// The synthetic set (data_dir empty) or MNIST from data_dir. Throws symx::Error.
DataSplits LoadData(const TrainOptions& options);

// Trains on `data` (whose example shape must suit the model). Throws
// symx::Error on bad options (unknown model/optimizer, batch size larger than
// the training set, ...) and on engine errors. With several ranks every rank
// calls it (SPMD) with the same options and data; metrics are over all
// ranks; only rank 0 writes the checkpoint. Callbacks run on every rank
// (on_batch with this rank's running metrics).
TrainResult Train(const TrainOptions& options, const DataSplits& data,
                  const TrainCallbacks& callbacks = {});

// The same loop over feeds (batch_feed.h) of examples shaped
// `example_shape`: `train` and, when set, `eval` are made once the model
// knows each process's share of the global batch. In a data-parallel job
// over ranks each rank gets its own rows and shard; every epoch then runs as
// many steps as the smallest shard has batches.
TrainResult Train(const TrainOptions& options, const Shape& example_shape, const FeedFactory& train,
                  const FeedFactory& eval, const TrainCallbacks& callbacks = {});

}  // namespace symx::train

#endif  // SYMX_TRAIN_TRAINER_H_
