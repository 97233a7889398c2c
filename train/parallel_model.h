// ParallelModel: the executors that train one model in this process, in one
// of three layouts, behind one interface for the training loop (trainer.h).
//
//   - One replica: a single executor on `ctx` (group2ctx may still split it
//     over devices of this process).
//   - Data parallel: a replica per device of `contexts` on every rank (every
//     rank passes the same list). Replica g of R (over all ranks, g = rank *
//     devices + i) binds rows [offset_g, offset_g + n_g) of the global batch,
//     the shares differing by at most one row. Gradients are summed over all
//     replicas by a GradientReducer while backward runs; the optimizer updates
//     replica 0 with rescale_grad = 1 / global batch, which is exactly the
//     one-process update, and the other local replicas get copies. Parameters
//     start as rank 0's (a broadcast); aux states are averaged over replicas
//     (AverageAux) before evaluation and checkpoints, as MXNet's Module does
//     over devices.
//   - Split across ranks: group2ctx names other ranks' devices
//     (`stage2=cpu(0)@rank1`); one SPMD executor per rank, each running and
//     updating its own part (executor.h). With `microbatches` m > 1 (or the
//     1f1b schedule) the split is a pipeline (pipeline.h): the batch is cut
//     into m micro-batches of batch/m rows that flow through the stages in
//     the schedule's order, each rank binding one executor per activation
//     slot (m for GPipe, min(m, stages) for 1F1B) over the same parameter,
//     gradient (grad_req add, zeroed each step) and aux arrays. Gradients
//     are the sum over the micro-batches: the full batch's to float32
//     rounding. BatchNorm normalizes each micro-batch by its own statistics
//     and updates its moving averages once per micro-batch.
//   - Stages x replicas: the split (pipelined or not) replicated `replicas`
//     times over the job's ranks. Each replica's executors bind over its
//     own split of the job's communicator (sub_communicator.h); after each
//     step a stage's replicas sum their gradients over a second split (one
//     per stage), start from the first replica's parameters, and average
//     their aux states (AverageAux). Replica j takes rows [j*B/N, (j+1)*B/N)
//     of the global batch B.
//
// Every method that talks to other ranks is collective: all ranks call the
// same methods in the same order (the training loop does).
#ifndef SYMX_TRAIN_PARALLEL_MODEL_H_
#define SYMX_TRAIN_PARALLEL_MODEL_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "devices/context.h"
#include "devices/engine_options.h"
#include "distributed/communicator.h"
#include "executor/device_workers.h"
#include "executor/executor.h"
#include "graph/symbol.h"
#include "train/metrics.h"
#include "train/pipeline.h"

namespace symx {
class GradientReducer;
}

namespace symx::train {

inline constexpr char kDataName[] = "data";
inline constexpr char kLabelName[] = "softmax_label";

struct ParallelOptions {
  Context ctx;                    // one replica: its device
  std::vector<Context> contexts;  // several: a data-parallel replica on each
  std::map<std::string, Context> group2ctx;
  std::shared_ptr<Communicator> comm;  // nullptr: this process only
  absl::Duration comm_timeout = absl::Seconds(300);
  size_t bucket_bytes = size_t{25} << 20;
  int64_t batch_size = 0;  // the global batch
  Shape example_shape;     // one example of `data`, e.g. [1, 28, 28]
  EngineOptions engine;    // every bind's switches (devices/engine_options.h)
  // A split across ranks as a pipeline: micro-batches per batch (a divisor
  // of batch_size) and their order. Other layouts refuse m > 1.
  int microbatches = 1;
  PipelineSchedule schedule = PipelineSchedule::kGpipe;
  // A split across ranks, replicated: group2ctx places one replica's stages
  // on ranks 0..S-1, and the job's R = S x replicas ranks run `replicas`
  // copies of it (replica j on ranks j*S .. j*S+S-1), each on its share of
  // the global batch; a stage's replicas sum their gradients.
  int replicas = 1;
};

class ParallelModel {
 public:
  // Binds every executor (collective). Throws symx::Error: a global batch
  // smaller than the number of replicas, group2ctx with data parallelism,
  // and bind errors.
  ParallelModel(const Symbol& net, const ParallelOptions& options);
  ~ParallelModel();

  // Every argument but data, label and the loss scale (mixed_precision.h),
  // in the symbol's order.
  const std::vector<std::string>& param_names() const { return param_names_; }
  // Shapes of every argument and aux state.
  const std::map<std::string, Shape>& shapes() const { return shapes_; }
  bool is_root() const { return comm_ == nullptr || comm_->rank() == 0; }
  int rank() const { return comm_ == nullptr ? 0 : comm_->rank(); }
  // "one device cpu(0)", "data parallel: 2 ranks x 2 devices (cpu(0), cpu(1)), 4 replicas", ...
  std::string Describe() const;

  // Sets every parameter and aux state from host tensors (data parallel:
  // rank 0's values, broadcast). Collective.
  void SetParams(const std::map<std::string, Tensor>& args,
                 const std::map<std::string, Tensor>& aux);
  // Forward and backward of every local replica on its rows of the global
  // batch, then the gradient sum. Adds this process's rows to `local`.
  // `data` and `label` hold the global batch's rows from `first_row` on:
  // the whole batch (0), or only this process's rows (local_rows().first),
  // as a rank that reads its own shard passes. Collective.
  void TrainStep(const Tensor& data, const Tensor& label, Metrics* local, int64_t first_row = 0);
  // The global batch's rows [first, second) this process's replicas take
  // (split across ranks: the whole batch).
  std::pair<int64_t, int64_t> local_rows() const;
  // The smallest of `local` over the ranks. Collective.
  int64_t MinOverRanks(int64_t local);
  bool data_parallel_over_ranks() const { return layout_ == Layout::kReplicas && ranks_ > 1; }
  // What the optimizer updates: replica 0's parameters and their (summed)
  // gradients; undefined where another rank holds them.
  std::map<std::string, Tensor> params() const;
  std::map<std::string, Tensor> grads() const;
  // Whether the model has a loss-scale input (kLossScaleName), and its value
  // in every replica (throws symx::Error when the model has none).
  bool has_loss_scale() const { return has_loss_scale_; }
  void SetLossScale(double scale);
  // Whether `local` is true on any rank. Collective.
  bool AnyRank(bool local);
  // After the update: the other local replicas take replica 0's values.
  void SyncReplicas();
  // Inference of every local replica on its rows; of the global batch's first
  // `rows` rows, this process's go into `local`. `data`/`label` start at
  // global row `first_row` as in TrainStep. Collective (split layout).
  void EvalStep(const Tensor& data, const Tensor& label, int64_t rows, Metrics* local,
                int64_t first_row = 0);
  // `local` summed over ranks. Collective.
  Metrics SumOverRanks(const Metrics& local);
  // Data parallel: every replica's aux states become their average over all
  // replicas. Collective.
  void AverageAux();
  // Every parameter and aux state as one process would hold them, on rank 0
  // (other ranks get empty maps). Collective.
  void Gather(std::map<std::string, Tensor>* args, std::map<std::string, Tensor>* aux);
  // Bytes of intermediate memory this rank's training executors plan (every
  // activation slot of a pipeline), summed over devices.
  size_t planned_bytes() const;

 private:
  enum class Layout { kReplicas, kSplit };
  struct Replica {
    Context ctx;
    int64_t offset = 0, rows = 0;
    std::unique_ptr<Executor> train, infer;
  };
  // Runs fn(k) for every local replica, concurrently when there are several;
  // the first exception is raised again once all are done.
  void ForEachReplica(const std::function<void(size_t)>& fn);
  // The split layout as a pipeline: binds the activation slots, and runs one
  // batch through them in this rank's schedule.
  void BindPipeline(const Symbol& net, const ParallelOptions& o,
                    const std::map<std::string, GradReq>& grad_req);
  void PipelineTrainStep(const Tensor& data, const Tensor& label, Metrics* local,
                         int64_t first_row);

  Layout layout_ = Layout::kReplicas;
  std::shared_ptr<Communicator> comm_;  // several ranks only
  absl::Duration timeout_;
  int ranks_ = 1;
  int total_replicas_ = 1;
  bool has_loss_scale_ = false;
  std::vector<std::string> param_names_, aux_names_;
  std::map<std::string, Shape> shapes_;
  std::map<std::string, DType> dtypes_;
  std::vector<Replica> replicas_;
  std::unique_ptr<GradientReducer> reducer_;
  std::unique_ptr<DeviceWorkers> workers_;
  // Pipeline (split layout with micro-batches): slot 0 is replicas_[0].train.
  int microbatches_ = 1;
  PipelineSchedule schedule_ = PipelineSchedule::kGpipe;
  std::vector<int> stages_;  // ranks in pipeline order
  int stage_ = 0;            // this rank's place in stages_
  std::vector<std::unique_ptr<Executor>> extra_slots_;
  // The communicator the executors bind over: comm_, or this replica's
  // split when the split layout is replicated; and the split of this
  // rank's stage over the replicas (nullptr without replicas).
  std::shared_ptr<Communicator> bind_comm_;
  std::shared_ptr<Communicator> stage_comm_;
  int num_replicas_ = 1, replica_ = 0;
  // Stages x replicas: checks the layout and makes the two splits.
  void SplitReplicas(const ParallelOptions& o);
  // Sums this rank's gradients over its stage's replicas.
  void SumOverStageReplicas();
};

}  // namespace symx::train

#endif  // SYMX_TRAIN_PARALLEL_MODEL_H_
