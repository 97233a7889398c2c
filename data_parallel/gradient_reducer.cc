#include "data_parallel/gradient_reducer.h"

#include <cstdlib>
#include <cstring>
#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "data_parallel/replica_sync.h"
#include "distributed/agreement.h"
#include "graph/error.h"

namespace symx {
namespace {

std::map<DeviceType, DeviceBucketSumFactory>& DeviceSums() {
  static auto* sums = new std::map<DeviceType, DeviceBucketSumFactory>();
  return *sums;
}

}  // namespace

bool RegisterDeviceBucketSum(DeviceType type, DeviceBucketSumFactory factory) {
  const bool added = DeviceSums().emplace(type, std::move(factory)).second;
  if (!added) std::abort();  // two libraries claim one device type: a build bug
  return true;
}

absl::StatusOr<std::unique_ptr<GradientReducer>> GradientReducer::Create(
    const std::vector<Executor*>& replicas, const std::vector<std::string>& params,
    std::shared_ptr<Communicator> comm, const ReducerOptions& options) {
  const bool ranks = comm != nullptr && comm->size() > 1;
  std::unique_ptr<Rendezvous> rendezvous;
  if (ranks) rendezvous = std::make_unique<Rendezvous>(*comm, "gradient reducer", options.timeout);
  std::unique_ptr<GradientReducer> r(new GradientReducer());
  std::vector<std::string> layout;
  // Checks and layout; on a failure every rank learns of it (Agree below).
  absl::Status local = [&]() -> absl::Status {
    if (replicas.empty()) return absl::InvalidArgumentError("gradient reducer: no replicas");
    const std::vector<std::string> args = replicas[0]->symbol().ListArguments();
    std::map<std::string, size_t> arg_index;
    for (size_t i = 0; i < args.size(); ++i) arg_index.emplace(args[i], i);
    std::vector<size_t> param_arg;
    std::set<std::string> seen;
    for (const std::string& name : params) {
      if (!seen.insert(name).second) {
        return absl::InvalidArgumentError(
            absl::StrCat("gradient reducer: parameter '", name, "' is listed twice"));
      }
      auto it = arg_index.find(name);
      if (it == arg_index.end()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "gradient reducer: '", name,
            "' is not an argument of the model (arguments: ", absl::StrJoin(args, ", "), ")"));
      }
      param_arg.push_back(it->second);
    }
    r->grads_.assign(replicas.size(), std::vector<Tensor>(params.size()));
    for (size_t k = 0; k < replicas.size(); ++k) {
      if (replicas[k]->symbol().ListArguments() != args) {
        return absl::InvalidArgumentError(
            absl::StrCat("gradient reducer: replica ", k, " binds another symbol than replica 0"));
      }
      for (size_t p = 0; p < params.size(); ++p) {
        const Tensor& g = replicas[k]->grad_arrays()[param_arg[p]];
        if (!g.defined()) {
          return absl::InvalidArgumentError(
              absl::StrCat("gradient reducer: replica ", k, " computes no gradient for ", params[p],
                           " (grad_req null, or it lives on another rank)"));
        }
        const Tensor& g0 = r->grads_[0][p];
        const DeviceType want =
            r->grads_[0][0].defined() ? r->grads_[0][0].ctx().type : g.ctx().type;
        if (g.ctx().type != want) {
          return absl::InvalidArgumentError(absl::StrCat(
              "gradient reducer: the gradient of ", params[p], " is on ", g.ctx().ToString(),
              " in replica ", k, " but replica 0's gradients are on ",
              r->grads_[0][0].ctx().ToString(), ": replicas must all be on host or all on one "
              "kind of device"));
        }
        if (k > 0 && (g.shape() != g0.shape() || g.dtype() != g0.dtype())) {
          return absl::InvalidArgumentError(
              absl::StrCat("gradient reducer: the gradient of ", params[p], " is ", g.DebugString(),
                           " in replica ", k, " but ", g0.DebugString(), " in replica 0"));
        }
        r->grads_[k][p] = g;
      }
    }
    // Buckets in the order backward finishes the gradients.
    std::vector<size_t> order = replicas[0]->GradientReadyOrder();
    std::vector<int> param_of_arg(args.size(), -1);
    for (size_t p = 0; p < params.size(); ++p) param_of_arg[param_arg[p]] = static_cast<int>(p);
    r->bucket_of_arg_.assign(args.size(), -1);
    std::vector<bool> placed(params.size(), false);
    size_t bytes = 0;
    for (size_t arg : order) {
      const int p = param_of_arg[arg];
      if (p < 0 || placed[p]) continue;
      placed[p] = true;
      const Tensor& g = r->grads_[0][p];
      if (r->buckets_.empty() || r->buckets_.back().dtype != g.dtype() ||
          (bytes + g.nbytes() > options.bucket_bytes && !r->buckets_.back().params.empty())) {
        r->buckets_.emplace_back();
        r->buckets_.back().dtype = g.dtype();
        bytes = 0;
      }
      Bucket& b = r->buckets_.back();
      b.params.push_back(static_cast<size_t>(p));
      b.elements += g.size();
      bytes += g.nbytes();
      r->bucket_of_arg_[arg] = static_cast<int>(r->buckets_.size() - 1);
    }
    for (size_t p = 0; p < params.size(); ++p) {
      if (!placed[p]) {
        return absl::InternalError(absl::StrCat(
            "gradient reducer: no backward step finishes the gradient of ", params[p]));
      }
    }
    for (size_t b = 0; b < r->buckets_.size(); ++b) {
      // The device kind is part of the layout: ranks summing on the host and
      // ranks summing over NCCL could never meet.
      const DeviceType kind = r->grads_[0][r->buckets_[b].params[0]].ctx().type;
      std::string line = absl::StrCat("bucket ", b, " ", DTypeName(r->buckets_[b].dtype), " on ",
                                      DeviceTypeName(kind), ":");
      for (size_t p : r->buckets_[b].params) {
        absl::StrAppend(&line, " ", params[p], " ", r->grads_[0][p].shape().ToString());
      }
      layout.push_back(std::move(line));
    }
    return absl::OkStatus();
  }();
  if (ranks) {
    SYMX_RETURN_IF_ERROR(rendezvous->Agree(local, layout));
  } else {
    SYMX_RETURN_IF_ERROR(local);
  }
  const DeviceType type = params.empty() ? DeviceType::kCPU : r->grads_[0][0].ctx().type;
  if (type != DeviceType::kCPU && (ranks || replicas.size() > 1 || options.average)) {
    auto it = DeviceSums().find(type);
    if (it == DeviceSums().end()) {
      // Every rank's replicas are on this kind of device (their layouts
      // agreed), so every rank fails here alike.
      return absl::UnimplementedError(absl::StrCat(
          "gradient reducer: the gradients are on ", r->grads_[0][0].ctx().ToString(),
          ", and this build sums no such gradients (GPU gradients need a --config=cuda build, "
          "which sums them over NCCL)"));
    }
    std::vector<Context> devices;
    for (const auto& g : r->grads_) devices.push_back(g[0].ctx());
    SYMX_ASSIGN_OR_RETURN(r->device_sum_, it->second(devices, ranks ? comm : nullptr,
                                                     options.timeout));
  }
  r->replicas_ = replicas;
  r->comm_ = ranks ? comm : nullptr;
  r->options_ = options;
  r->total_replicas_ = static_cast<int>(replicas.size());
  if (ranks) {
    Tensor count = Tensor::FromVector(Shape{1}, {double(replicas.size())}, DType::kInt64);
    SYMX_RETURN_IF_ERROR(WaitFor(comm->Allreduce(count, ReduceOp::kSum), options.timeout));
    r->total_replicas_ = static_cast<int>(count.ToDoubles()[0]);
  }
  r->pending_.assign(r->buckets_.size(), 0);
  // The sums of the ops whose statistics span the job (SyncBatchNorm).
  auto sync = std::make_shared<JobReplicaSync>(static_cast<int>(replicas.size()), r->comm_,
                                               r->total_replicas_, options.timeout);
  for (size_t k = 0; k < replicas.size(); ++k) replicas[k]->SetReplicaSync(sync, static_cast<int>(k));
  GradientReducer* self = r.get();
  for (size_t k = 0; k < replicas.size(); ++k) {
    replicas[k]->SetGradientReadyCallback([self, k](size_t arg) { self->OnReady(k, arg); });
  }
  r->thread_ = std::thread([self] { self->Loop(); });
  return r;
}

GradientReducer::~GradientReducer() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
  for (Executor* e : replicas_) {
    e->SetGradientReadyCallback(nullptr);
    e->SetReplicaSync(nullptr, 0);
  }
}

void GradientReducer::Start() {
  std::lock_guard<std::mutex> lock(mu_);
  for (size_t b = 0; b < buckets_.size(); ++b) {
    pending_[b] = static_cast<int>(buckets_[b].params.size() * replicas_.size());
  }
  error_ = absl::OkStatus();
  ++round_;
  cv_.notify_all();
}

void GradientReducer::OnReady(size_t replica, size_t arg) {
  (void)replica;
  const int b = arg < bucket_of_arg_.size() ? bucket_of_arg_[arg] : -1;
  if (b < 0) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (--pending_[b] == 0) cv_.notify_all();
}

void GradientReducer::Loop() {
  uint64_t seen = 0;
  for (;;) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return stop_ || round_ > seen; });
    if (stop_) return;
    seen = round_;
    absl::Duration busy;
    absl::Status error;
    // Strictly in bucket order: every rank issues the same collectives in
    // the same order.
    for (size_t b = 0; b < buckets_.size(); ++b) {
      cv_.wait(lock, [&] { return stop_ || pending_[b] <= 0 || round_ != seen; });
      if (stop_) return;
      if (round_ != seen) break;  // restarted after a failed round
      if (!error.ok()) continue;
      lock.unlock();
      const absl::Time start = absl::Now();
      error = Reduce(b);
      busy += absl::Now() - start;
      lock.lock();
    }
    error_ = error;
    last_busy_ = busy;
    done_round_ = seen;
    cv_.notify_all();
  }
}

absl::Status GradientReducer::Reduce(size_t b) {
  const Bucket& bucket = buckets_[b];
  const bool local_only = comm_ == nullptr;
  if (local_only && replicas_.size() == 1 && !options_.average) return absl::OkStatus();
  if (device_sum_ != nullptr) {
    std::vector<std::vector<Tensor>> grads(replicas_.size());
    for (size_t k = 0; k < replicas_.size(); ++k) {
      for (size_t p : bucket.params) grads[k].push_back(grads_[k][p]);
    }
    absl::Status s = device_sum_->Sum(grads, options_.average, absl::Now() + options_.timeout);
    if (!s.ok()) {
      return absl::Status(s.code(), absl::StrCat("gradient bucket ", b, ": ", s.message()));
    }
    return absl::OkStatus();
  }
  // Sum into replica 0's gradients, adding the others in replica order
  // (deterministic), then across ranks in place: no packing copies.
  for (size_t p : bucket.params) {
    const Tensor& g0 = grads_[0][p];
    for (size_t k = 1; k < replicas_.size(); ++k) {
      ReduceInto(ReduceOp::kSum, bucket.dtype, grads_[k][p].raw_data(), g0.raw_data(), g0.size());
    }
  }
  if (!local_only) {
    // Every gradient of the bucket in flight at once; MPI matches the
    // collectives in the order they are started, the same on every rank.
    std::vector<std::unique_ptr<Work>> works;
    for (size_t p : bucket.params) works.push_back(comm_->Allreduce(grads_[0][p], ReduceOp::kSum));
    const absl::Time deadline = absl::Now() + options_.timeout;
    for (auto& w : works) {
      absl::Status s = w->Wait(deadline);
      if (!s.ok()) {
        return absl::Status(s.code(), absl::StrCat("gradient bucket ", b, ": ", s.message()));
      }
    }
  }
  for (size_t p : bucket.params) {
    const Tensor& g0 = grads_[0][p];
    if (options_.average) DivideInPlace(bucket.dtype, g0.raw_data(), g0.size(), total_replicas_);
    for (size_t k = 1; k < replicas_.size(); ++k) {
      std::memcpy(grads_[k][p].raw_data(), g0.raw_data(), g0.nbytes());
    }
  }
  return absl::OkStatus();
}

absl::Status GradientReducer::Finish() {
  const absl::Time start = absl::Now();
  std::unique_lock<std::mutex> lock(mu_);
  auto done = [&] { return done_round_ == round_; };
  // The deadline is for backward finishing its gradients; once every bucket
  // is ready the communication thread's own waits have deadlines.
  bool finished = cv_.wait_until(lock, absl::ToChronoTime(start + options_.timeout), done);
  std::vector<std::string> waiting;
  for (size_t b = 0; b < buckets_.size() && !finished; ++b) {
    if (pending_[b] > 0) waiting.push_back(absl::StrCat(b));
  }
  if (!finished && waiting.empty()) {
    cv_.wait(lock, done);
    finished = true;
  }
  last_finish_wait_ = absl::Now() - start;
  if (!finished) {
    return absl::DeadlineExceededError(
        absl::StrCat("gradient reducer: the gradients of bucket(s) ", absl::StrJoin(waiting, ", "),
                     " were not all finished within ", absl::FormatDuration(options_.timeout),
                     " (did every replica run Backward after Start?)"));
  }
  return error_;
}

}  // namespace symx
