#include "train/parallel_model.h"

#include <algorithm>
#include <exception>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "data_parallel/gradient_reducer.h"
#include "distributed/agreement.h"
#include "distributed/sub_communicator.h"
#include "graph/error.h"
#include "train/mixed_precision.h"

namespace symx::train {
namespace {

[[noreturn]] void Fail(const std::string& message) {
  throw Error(absl::InvalidArgumentError(message));
}

std::vector<int64_t> WithBatch(int64_t batch, const Shape& example) {
  std::vector<int64_t> dims = {batch};
  for (int64_t d : example.dims()) dims.push_back(d);
  return dims;
}

// The rule of executor/ranks.h: a context of another rank makes the bind a
// split across ranks.
bool NamesAnotherRank(const Context& ctx, const std::map<std::string, Context>& group2ctx) {
  bool named = ctx.rank >= 1;
  for (const auto& [group, c] : group2ctx) named = named || c.rank >= 1;
  return named;
}

// The ranks of a split must run the same pipeline (else their binds would
// differ in shapes or slots, or their transfers would not pair up).
// Collective.
void CheckRanksAgreeOnPipeline(Communicator& comm, const ParallelOptions& o,
                               absl::Duration timeout) {
  const std::string mine = absl::StrCat(
      std::max(1, o.microbatches), " micro-batches (", PipelineScheduleName(o.schedule), ") in ",
      std::max(1, o.replicas), o.replicas > 1 ? " replicas" : " replica");
  std::vector<std::string> all = ValueOrThrow(AllGather(comm, mine, timeout));
  for (size_t k = 1; k < all.size(); ++k) {
    if (all[k] != all[0]) {
      Fail(absl::StrCat("the ranks disagree on the pipeline: rank 0 runs ", all[0], ", rank ", k,
                        " runs ", all[k],
                        " (give every rank the same --microbatches and "
                        "--schedule)"));
    }
  }
}

}  // namespace

ParallelModel::ParallelModel(const Symbol& net, const ParallelOptions& o)
    : timeout_(o.comm_timeout) {
  if (o.comm != nullptr && o.comm->size() > 1) {
    comm_ = o.comm;
    ranks_ = o.comm->size();
  }
  bind_comm_ = comm_;
  const int64_t batch = o.batch_size;
  for (const std::string& name : net.ListArguments()) {
    if (name == kLossScaleName) {
      has_loss_scale_ = true;
    } else if (name != kDataName && name != kLabelName) {
      param_names_.push_back(name);
    }
  }
  aux_names_ = net.ListAuxiliaryStates();
  {
    ShapeInference si = net.InferShapePartial(
        {{kDataName, Shape(WithBatch(batch, o.example_shape))}, {kLabelName, Shape{batch}}});
    TypeInference ti = net.InferTypePartial({{kDataName, DType::kFloat32}});
    std::vector<std::string> args = net.ListArguments();
    for (size_t i = 0; i < args.size(); ++i) {
      shapes_[args[i]] = si.arg_shapes[i];
      dtypes_[args[i]] = ti.arg_types[i] == DType::kUnknown ? DType::kFloat32 : ti.arg_types[i];
    }
    for (size_t i = 0; i < aux_names_.size(); ++i) {
      shapes_[aux_names_[i]] = si.aux_shapes[i];
      dtypes_[aux_names_[i]] =
          ti.aux_types[i] == DType::kUnknown ? DType::kFloat32 : ti.aux_types[i];
    }
  }
  std::map<std::string, GradReq> grad_req;
  for (const std::string& name : param_names_) grad_req[name] = GradReq::kWrite;

  if (comm_ != nullptr && NamesAnotherRank(o.ctx, o.group2ctx)) {
    // Split across ranks: one SPMD executor per rank.
    if (o.contexts.size() > 1) {
      Fail(
          "several devices train data parallel, but group2ctx (or the context) names other "
          "ranks' devices, which splits the model across ranks: use one or the other");
    }
    layout_ = Layout::kSplit;
    // Compared before anything collective that depends on them (the splits,
    // the binds), so ranks that disagree fail naming the difference.
    CheckRanksAgreeOnPipeline(*comm_, o, timeout_);
    if (o.replicas > 1) SplitReplicas(o);
    if (o.microbatches > 1 || o.schedule == PipelineSchedule::kOneFOneB) {
      BindPipeline(net, o, grad_req);
    } else {
      Replica r;
      r.ctx = o.ctx;
      r.rows = batch / num_replicas_;
      r.offset = replica_ * r.rows;
      SimpleBindOptions bind;
      bind.ctx = o.ctx;
      bind.group2ctx = o.group2ctx;
      bind.grad_req = grad_req;
      bind.shapes = {{kDataName, Shape(WithBatch(r.rows, o.example_shape))},
                     {kLabelName, Shape{r.rows}}};
      bind.comm = bind_comm_;
      bind.comm_timeout = timeout_;
      bind.engine = o.engine;
      r.train = Executor::SimpleBind(net, bind);
      replicas_.push_back(std::move(r));
    }
  } else {
    if (o.replicas > 1) {
      Fail(absl::StrCat("replicas (", o.replicas,
                        ") replicate a model split across ranks (group2ctx naming other ranks' "
                        "devices); without a split, every rank is already a data-parallel "
                        "replica"));
    }
    if (o.microbatches > 1) {
      Fail(absl::StrCat(
          "micro-batches (", o.microbatches,
          ") pipeline a model split across ranks (group2ctx naming other ranks' devices, "
          "e.g. stage2=cpu(0)@rank1); this model runs ",
          o.contexts.size() > 1 || comm_ != nullptr ? "data parallel" : "in one process",
          ", which has no stages to pipeline"));
    }
    std::vector<Context> contexts = o.contexts.empty() ? std::vector<Context>{o.ctx} : o.contexts;
    if (!o.group2ctx.empty() && (contexts.size() > 1 || comm_ != nullptr)) {
      Fail(
          "group2ctx splits one model over devices; it cannot be combined with data "
          "parallelism over several devices or ranks (to split the model across ranks, "
          "map its groups to other ranks' devices, e.g. stage2=cpu(0)@rank1)");
    }
    for (const Context& c : contexts) {
      if (comm_ != nullptr && c.rank >= 0) {
        Fail(absl::StrCat("data-parallel replicas run on each rank's own devices, but ",
                          c.ToString(), " names a rank; give plain contexts (cpu(0))"));
      }
    }
    const int local = static_cast<int>(contexts.size());
    const int rank = comm_ == nullptr ? 0 : comm_->rank();
    total_replicas_ = local * ranks_;
    if (batch < total_replicas_) {
      Fail(absl::StrCat("the batch size ", batch, " is smaller than the number of replicas (",
                        total_replicas_, "): every replica needs at least one row"));
    }
    for (int i = 0; i < local; ++i) {
      const int g = rank * local + i;
      Replica r;
      r.ctx = contexts[i];
      const int64_t share = batch / total_replicas_, extra = batch % total_replicas_;
      r.rows = share + (g < extra ? 1 : 0);
      r.offset = g * share + std::min<int64_t>(g, extra);
      SimpleBindOptions bind;
      bind.ctx = r.ctx;
      bind.group2ctx = o.group2ctx;
      bind.grad_req = grad_req;
      bind.shapes = {{kDataName, Shape(WithBatch(r.rows, o.example_shape))},
                     {kLabelName, Shape{r.rows}}};
      bind.engine = o.engine;
      r.train = Executor::SimpleBind(net, bind);
      replicas_.push_back(std::move(r));
    }
  }
  // Inference executors use the training executors' parameter and aux arrays
  // themselves; only data and label are their own (where they live).
  for (Replica& r : replicas_) {
    std::map<std::string, Tensor> args = r.train->arg_dict();
    for (const char* name : {kDataName, kLabelName}) {
      // The whole replica's rows (a pipeline's training executors take a
      // micro-batch; inference takes the batch at once).
      Tensor& t = args[name];
      Shape shape = shapes_.at(name);
      std::vector<int64_t> dims = shape.dims();
      dims[0] = r.rows;
      if (t.defined()) t = ValueOrThrow(Tensor::Zeros(Shape(dims), t.dtype(), t.ctx()));
    }
    BindOptions bind;
    bind.ctx = r.ctx;
    bind.group2ctx = o.group2ctx;
    bind.comm = layout_ == Layout::kSplit ? bind_comm_ : nullptr;
    bind.comm_timeout = timeout_;
    bind.engine = o.engine;
    r.infer = Executor::Bind(net, bind, args, std::nullopt, r.train->aux_dict());
  }
  if (layout_ == Layout::kReplicas && total_replicas_ > 1) {
    std::vector<Executor*> train;
    for (Replica& r : replicas_) train.push_back(r.train.get());
    ReducerOptions ro;
    ro.bucket_bytes = o.bucket_bytes;
    ro.timeout = timeout_;
    reducer_ = ValueOrThrow(GradientReducer::Create(train, param_names_, comm_, ro));
    if (reducer_->total_replicas() != total_replicas_) {
      Fail(absl::StrCat("data parallel: every rank must train on the same number of devices (",
                        replicas_.size(), " here, ", reducer_->total_replicas(),
                        " replicas in all over ", ranks_, " ranks)"));
    }
  }
  if (replicas_.size() > 1) workers_ = std::make_unique<DeviceWorkers>(replicas_.size());
}

ParallelModel::~ParallelModel() = default;

std::string ParallelModel::Describe() const {
  if (layout_ == Layout::kSplit) {
    std::string text =
        absl::StrCat("split over ", ranks_, " ranks (rank ", rank(), " runs its part)");
    if (num_replicas_ > 1) {
      absl::StrAppend(&text, ", ", num_replicas_, " replicas of ", ranks_ / num_replicas_,
                      " ranks (this is replica ", replica_, ")");
    }
    if (!stages_.empty()) {
      absl::StrAppend(&text, ", pipelined: ", stages_.size(), " stages (ranks ",
                      absl::StrJoin(stages_, ", "), "), ", microbatches_, " micro-batches of ",
                      replicas_[0].rows / microbatches_, ", ", PipelineScheduleName(schedule_),
                      ", ", 1 + extra_slots_.size(), " activation slots");
    }
    return text;
  }
  std::vector<std::string> devices;
  for (const Replica& r : replicas_) devices.push_back(r.ctx.ToString());
  if (total_replicas_ == 1) return devices[0];
  return absl::StrCat("data parallel: ", ranks_, ranks_ == 1 ? " rank x " : " ranks x ",
                      replicas_.size(), replicas_.size() == 1 ? " device (" : " devices (",
                      absl::StrJoin(devices, ", "), "), ", total_replicas_, " replicas");
}

void ParallelModel::ForEachReplica(const std::function<void(size_t)>& fn) {
  if (workers_ == nullptr) {
    fn(0);
    return;
  }
  std::vector<std::exception_ptr> errors(replicas_.size());
  workers_->RunAll([&](size_t k) {
    try {
      fn(k);
    } catch (...) {
      errors[k] = std::current_exception();
    }
  });
  for (const std::exception_ptr& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

void ParallelModel::SetParams(const std::map<std::string, Tensor>& args,
                              const std::map<std::string, Tensor>& aux) {
  std::map<std::string, Tensor> a = args, x = aux;
  if (layout_ == Layout::kReplicas && comm_ != nullptr) {
    // Every replica on every rank starts from rank 0's values.
    for (auto* table : {&a, &x}) {
      for (auto& [name, t] : *table) {
        t = ValueOrThrow(CopyToNew(t, Context::CPU(), t.dtype()));
        ThrowIfError(WaitFor(comm_->Broadcast(t, 0), timeout_));
      }
    }
  }
  for (Replica& r : replicas_) r.train->CopyParamsFrom(a, x);
  if (stage_comm_ != nullptr && stage_comm_->size() > 1) {
    // A stage's replicas start from the first replica's values.
    for (const auto& table : {replicas_[0].train->arg_dict(), replicas_[0].train->aux_dict()}) {
      for (const auto& [name, t] : table) {
        if (!t.defined() || name == kDataName || name == kLabelName) continue;
        Tensor host = ValueOrThrow(CopyToNew(t, Context::CPU(), t.dtype()));
        ThrowIfError(WaitFor(stage_comm_->Broadcast(host, 0), timeout_));
        ThrowIfError(CopyTensor(host, t));
      }
    }
  }
}

void ParallelModel::BindPipeline(const Symbol& net, const ParallelOptions& o,
                                 const std::map<std::string, GradReq>& grad_req) {
  microbatches_ = std::max(1, o.microbatches);
  schedule_ = o.schedule;
  const int64_t batch = o.batch_size / num_replicas_;  // this replica's rows
  if (batch % microbatches_ != 0) {
    Fail(absl::StrCat("the batch size ", batch, num_replicas_ > 1 ? " of each replica" : "",
                      " is not a multiple of the ", microbatches_,
                      " micro-batches (each micro-batch has batch / microbatches rows)"));
  }
  absl::StatusOr<std::vector<int>> stages = PipelineStages(
      net, o.ctx, o.group2ctx, /*require_chain=*/schedule_ == PipelineSchedule::kOneFOneB);
  if (!stages.ok()) Fail(std::string(stages.status().message()));
  stages_ = *stages;
  auto at = std::find(stages_.begin(), stages_.end(), bind_comm_->rank());
  stage_ = at == stages_.end() ? -1 : static_cast<int>(at - stages_.begin());
  const int64_t micro = batch / microbatches_;
  const int slots = ActivationSlots(schedule_, static_cast<int>(stages_.size()), microbatches_);
  std::map<std::string, GradReq> add = grad_req;
  for (auto& [name, req] : add) req = GradReq::kAdd;  // summed over micro-batches

  Replica r;
  r.ctx = o.ctx;
  r.rows = batch;
  r.offset = replica_ * batch;
  SimpleBindOptions bind;
  bind.ctx = o.ctx;
  bind.group2ctx = o.group2ctx;
  bind.grad_req = add;
  bind.shapes = {{kDataName, Shape(WithBatch(micro, o.example_shape))}, {kLabelName, Shape{micro}}};
  bind.comm = bind_comm_;
  bind.comm_timeout = timeout_;
  bind.defer_send_wait = true;
  bind.engine = o.engine;
  r.train = Executor::SimpleBind(net, bind);
  // The other slots: their own data, label and activations; the first's
  // parameters, gradients and aux states.
  std::map<std::string, Tensor> args = r.train->arg_dict();
  for (const char* name : {kDataName, kLabelName}) {
    Tensor& t = args[name];
    if (t.defined()) t = ValueOrThrow(Tensor::Zeros(t.shape(), t.dtype(), t.ctx()));
  }
  BindOptions slot;
  slot.ctx = o.ctx;
  slot.group2ctx = o.group2ctx;
  slot.grad_req = add;
  slot.comm = bind_comm_;
  slot.comm_timeout = timeout_;
  slot.defer_send_wait = true;
  slot.engine = o.engine;
  for (int k = 1; k < slots; ++k) {
    std::map<std::string, Tensor> own = args;
    for (const char* name : {kDataName, kLabelName}) {
      Tensor& t = own[name];
      if (t.defined()) t = ValueOrThrow(Tensor::Zeros(t.shape(), t.dtype(), t.ctx()));
    }
    extra_slots_.push_back(
        Executor::Bind(net, slot, own, r.train->grad_dict(), r.train->aux_dict()));
  }
  replicas_.push_back(std::move(r));
}

void ParallelModel::PipelineTrainStep(const Tensor& data, const Tensor& label, Metrics* local,
                                      int64_t first_row) {
  Replica& r = replicas_[0];
  for (const auto& [name, grad] : r.train->grad_dict()) grad.Fill(0);
  const int64_t micro = r.rows / microbatches_;
  const size_t slots = 1 + extra_slots_.size();
  auto slot = [&](int microbatch) -> Executor& {
    const size_t k = static_cast<size_t>(microbatch) % slots;
    return k == 0 ? *r.train : *extra_slots_[k - 1];
  };
  // A rank that runs no op of the model keeps GPipe's order (its executors
  // have no steps).
  const std::vector<PipelineOp> ops =
      stage_ < 0
          ? StageSchedule(PipelineSchedule::kGpipe, 1, 0, microbatches_)
          : StageSchedule(schedule_, static_cast<int>(stages_.size()), stage_, microbatches_);
  for (const PipelineOp& op : ops) {
    Executor& exe = slot(op.microbatch);
    if (!op.forward) {
      exe.Backward();
      continue;
    }
    const int64_t at = r.offset - first_row + op.microbatch * micro;
    const Tensor l = ValueOrThrow(label.Slice(at, at + micro));
    exe.Forward(/*is_train=*/true,
                {{kDataName, ValueOrThrow(data.Slice(at, at + micro))}, {kLabelName, l}});
    const Tensor& out = exe.outputs()[0];
    if (out.defined()) local->Add(out, l, micro);  // on the rank holding the loss head
  }
  // The optimizer changes parameters next, which sends may still read.
  r.train->WaitForSends();
  for (auto& exe : extra_slots_) exe->WaitForSends();
}

void ParallelModel::SplitReplicas(const ParallelOptions& o) {
  const int n = o.replicas;
  if (ranks_ % n != 0) {
    Fail(absl::StrCat("replicas: the job's ", ranks_, " ranks cannot hold ", n,
                      " replicas of the same size (the number of ranks must be a multiple)"));
  }
  const int per_replica = ranks_ / n;
  auto check = [&](const std::string& what, const Context& c) {
    if (c.rank >= per_replica) {
      Fail(absl::StrCat("replicas: group2ctx describes one replica on ranks 0 to ", per_replica - 1,
                        " (", ranks_, " ranks / ", n, " replicas), but ", what, " names ",
                        c.ToString(), "; the other replicas are placed by shifting the ranks"));
    }
  };
  check("the context", o.ctx);
  for (const auto& [group, c] : o.group2ctx) check("group " + group, c);
  if (o.batch_size % n != 0) {
    Fail(absl::StrCat("the batch size ", o.batch_size, " is not a multiple of the ", n,
                      " replicas (each takes batch / replicas rows)"));
  }
  num_replicas_ = n;
  replica_ = comm_->rank() / per_replica;
  bind_comm_ = ValueOrThrow(SplitCommunicator(comm_, replica_, timeout_));
  stage_comm_ = ValueOrThrow(SplitCommunicator(comm_, comm_->rank() % per_replica, timeout_));
}

void ParallelModel::SumOverStageReplicas() {
  if (stage_comm_ == nullptr || stage_comm_->size() < 2) return;
  for (const auto& [name, grad] : replicas_[0].train->grad_dict()) {
    Tensor host = ValueOrThrow(CopyToNew(grad, Context::CPU(), grad.dtype()));
    ThrowIfError(WaitFor(stage_comm_->Allreduce(host, ReduceOp::kSum), timeout_));
    ThrowIfError(CopyTensor(host, grad));
  }
}

size_t ParallelModel::planned_bytes() const {
  size_t total = 0;
  auto add = [&](const Executor& exe) {
    for (const MemoryStats& m : exe.memory_stats()) total += m.planned_bytes;
  };
  for (const Replica& r : replicas_) add(*r.train);
  for (const auto& exe : extra_slots_) add(*exe);
  return total;
}

void ParallelModel::TrainStep(const Tensor& data, const Tensor& label, Metrics* local,
                              int64_t first_row) {
  if (!stages_.empty()) {  // a pipeline (BindPipeline)
    PipelineTrainStep(data, label, local, first_row);
    SumOverStageReplicas();
    return;
  }
  if (reducer_) reducer_->Start();
  ForEachReplica([&](size_t k) {
    Replica& r = replicas_[k];
    const int64_t at = r.offset - first_row;
    const Tensor d = ValueOrThrow(data.Slice(at, at + r.rows));
    const Tensor l = ValueOrThrow(label.Slice(at, at + r.rows));
    r.train->Forward(/*is_train=*/true, {{kDataName, d}, {kLabelName, l}});
    r.train->Backward();
  });
  if (reducer_) ThrowIfError(reducer_->Finish());
  SumOverStageReplicas();
  for (Replica& r : replicas_) {
    const Tensor& out = r.train->outputs()[0];
    if (!out.defined()) continue;  // on another rank
    const int64_t at = r.offset - first_row;
    local->Add(out, ValueOrThrow(label.Slice(at, at + r.rows)), r.rows);
  }
}

std::pair<int64_t, int64_t> ParallelModel::local_rows() const {
  int64_t begin = -1, end = 0;
  for (const Replica& r : replicas_) {
    if (begin < 0 || r.offset < begin) begin = r.offset;
    end = std::max(end, r.offset + r.rows);
  }
  return {std::max<int64_t>(begin, 0), end};
}

int64_t ParallelModel::MinOverRanks(int64_t local) {
  if (comm_ == nullptr) return local;
  Tensor t = Tensor::FromVector(Shape{1}, {static_cast<double>(local)}, DType::kInt64);
  ThrowIfError(WaitFor(comm_->Allreduce(t, ReduceOp::kMin), timeout_));
  return static_cast<int64_t>(t.ToDoubles()[0]);
}

void ParallelModel::SetLossScale(double scale) {
  if (!has_loss_scale_) {
    throw Error(absl::FailedPreconditionError(
        absl::StrCat("the model has no ", kLossScaleName, " input to set")));
  }
  const Tensor value = Tensor::FromVector(Shape{1}, {scale}, DType::kFloat32);
  for (Replica& r : replicas_) {
    const std::map<std::string, Tensor> args = r.train->arg_dict();
    auto it = args.find(kLossScaleName);
    // Undefined where the scale lives on another rank (with the loss head).
    if (it != args.end() && it->second.defined()) ThrowIfError(CopyTensor(value, it->second));
  }
}

bool ParallelModel::AnyRank(bool local) {
  if (comm_ == nullptr) return local;
  Tensor t = Tensor::FromVector(Shape{1}, {local ? 1.0 : 0.0}, DType::kInt32);
  ThrowIfError(WaitFor(comm_->Allreduce(t, ReduceOp::kMax), timeout_));
  return t.ToDoubles()[0] != 0;
}

std::map<std::string, Tensor> ParallelModel::params() const {
  std::map<std::string, Tensor> out, all = replicas_[0].train->arg_dict();
  for (const std::string& name : param_names_) out[name] = all.at(name);
  return out;
}

std::map<std::string, Tensor> ParallelModel::grads() const {
  std::map<std::string, Tensor> out, all = replicas_[0].train->grad_dict();
  for (const std::string& name : param_names_) {
    auto it = all.find(name);
    out[name] = it == all.end() ? Tensor() : it->second;
  }
  return out;
}

void ParallelModel::SyncReplicas() {
  if (replicas_.size() < 2) return;
  std::map<std::string, Tensor> source = params();
  for (size_t k = 1; k < replicas_.size(); ++k) {
    std::map<std::string, Tensor> dst = replicas_[k].train->arg_dict();
    for (const auto& [name, t] : source) ThrowIfError(CopyTensor(t, dst.at(name)));
  }
}

void ParallelModel::EvalStep(const Tensor& data, const Tensor& label, int64_t rows, Metrics* local,
                             int64_t first_row) {
  ForEachReplica([&](size_t k) {
    Replica& r = replicas_[k];
    const int64_t at = r.offset - first_row;
    r.infer->Forward(false, {{kDataName, ValueOrThrow(data.Slice(at, at + r.rows))}});
  });
  for (Replica& r : replicas_) {
    const Tensor& out = r.infer->outputs()[0];
    const int64_t valid = std::max<int64_t>(0, std::min(r.rows, rows - r.offset));
    if (!out.defined() || valid == 0) continue;
    const int64_t at = r.offset - first_row;
    local->Add(out, ValueOrThrow(label.Slice(at, at + r.rows)), valid);
  }
}

Metrics ParallelModel::SumOverRanks(const Metrics& local) {
  if (comm_ == nullptr) return local;
  Tensor t = Tensor::FromVector(
      Shape{4},
      {local.loss_sum, double(local.correct), double(local.count), double(local.correct_top5)},
      DType::kFloat64);
  ThrowIfError(WaitFor(comm_->Allreduce(t, ReduceOp::kSum), timeout_));
  std::vector<double> v = t.ToDoubles();
  Metrics out;
  out.loss_sum = v[0];
  out.correct = static_cast<int64_t>(v[1]);
  out.count = static_cast<int64_t>(v[2]);
  out.correct_top5 = static_cast<int64_t>(v[3]);
  return out;
}

void ParallelModel::AverageAux() {
  if (stage_comm_ != nullptr && stage_comm_->size() > 1) {
    for (const auto& [name, t] : replicas_[0].train->aux_dict()) {
      if (!t.defined()) continue;
      Tensor host = ValueOrThrow(CopyToNew(t, Context::CPU(), t.dtype()));
      ThrowIfError(WaitFor(stage_comm_->Allreduce(host, ReduceOp::kAverage), timeout_));
      ThrowIfError(CopyTensor(host, t));
    }
    return;
  }
  if (layout_ != Layout::kReplicas || total_replicas_ == 1) return;
  for (const std::string& name : aux_names_) {
    Tensor first = replicas_[0].train->aux_dict().at(name);
    Tensor sum = ValueOrThrow(CopyToNew(first, Context::CPU(), first.dtype()));
    for (size_t k = 1; k < replicas_.size(); ++k) {
      Tensor other = ValueOrThrow(
          CopyToNew(replicas_[k].train->aux_dict().at(name), Context::CPU(), first.dtype()));
      ReduceInto(ReduceOp::kSum, first.dtype(), other.raw_data(), sum.raw_data(), sum.size());
    }
    if (comm_ != nullptr) ThrowIfError(WaitFor(comm_->Allreduce(sum, ReduceOp::kSum), timeout_));
    DivideInPlace(sum.dtype(), sum.raw_data(), sum.size(), total_replicas_);
    for (Replica& r : replicas_) ThrowIfError(CopyTensor(sum, r.train->aux_dict().at(name)));
  }
}

void ParallelModel::Gather(std::map<std::string, Tensor>* args,
                           std::map<std::string, Tensor>* aux) {
  args->clear();
  aux->clear();
  std::map<std::string, Tensor> mine = params(), mine_aux = replicas_[0].train->aux_dict();
  if (layout_ == Layout::kReplicas) {
    if (!is_root()) return;
    *args = mine;
    *aux = mine_aux;
    return;
  }
  // Split: each array from the rank that holds it, in name order on every rank.
  auto gather = [&](const std::map<std::string, Tensor>& local,
                    std::map<std::string, Tensor>* out) {
    for (const auto& [name, t] : local) {
      Tensor owner =
          Tensor::FromVector(Shape{1}, {t.defined() ? double(rank()) : -1.0}, DType::kInt64);
      ThrowIfError(WaitFor(comm_->Allreduce(owner, ReduceOp::kMax), timeout_));
      const int from = static_cast<int>(owner.ToDoubles()[0]);
      Tensor host = ValueOrThrow(Tensor::Zeros(shapes_.at(name), dtypes_.at(name)));
      if (t.defined()) ThrowIfError(CopyTensor(t, host));
      ThrowIfError(WaitFor(comm_->Broadcast(host, from), timeout_));
      if (is_root()) (*out)[name] = host;
    }
  };
  gather(mine, args);
  gather(mine_aux, aux);
}

}  // namespace symx::train
