// Executor: running a built plan, and the accessors.
#include "executor/executor.h"

#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "devices/layout.h"
#include "executor/device_workers.h"
#include "executor/exec_plan.h"
#include "executor/run_state.h"
#include "graph/error.h"
#include "graph/op.h"

namespace symx {
namespace {

// What the user sees of a value: a channels-last one (devices/kernel.h) as a
// plain copy.
Tensor Visible(const Tensor& t, bool channels_last) {
  if (!channels_last) return t;
  absl::StatusOr<Tensor> copy = Tensor::Empty(t.shape(), t.dtype(), t.ctx());
  if (!copy.ok()) throw Error(copy.status());
  ConvertChannelsLast(t.raw_data(), copy->raw_data(), t.shape(), DTypeSize(t.dtype()), false);
  return *copy;
}

// Reports a step's inputs (monitor_all) before it runs, as an in-place op
// overwrites them, and its visible outputs after.
void ReportInputs(const Step& step, const IndexedGraph& g, const MonitorCallback& monitor) {
  const Node& node = *g[step.node_id].node;
  std::vector<std::string> in_names = node.op()->InputNames(node.attrs);
  for (size_t i = 0; i < step.ctx.inputs.size(); ++i) {
    if (!step.ctx.inputs[i].defined()) continue;  // a _recv's input lives on another rank
    monitor(absl::StrCat(node.name(), "_", i < in_names.size() ? in_names[i] : "input"),
            Visible(step.ctx.inputs[i], step.ctx.InputChannelsLast(i)));
  }
}

void ReportOutputs(const Step& step, const IndexedGraph& g, const MonitorCallback& monitor) {
  const Node& node = *g[step.node_id].node;
  std::vector<std::string> out_names = node.op()->OutputNames(node.attrs);
  int visible = node.num_visible_outputs();
  for (int j = 0; j < visible; ++j) {
    // A gradient nobody asked for was not computed.
    if (static_cast<size_t>(j) < step.ctx.req.size() && step.ctx.req[j] == OpReq::kNull) continue;
    monitor(absl::StrCat(node.name(), "_",
                         j < static_cast<int>(out_names.size()) ? out_names[j] : "output"),
            Visible(step.ctx.outputs[j], step.ctx.OutputChannelsLast(j)));
  }
}

// What a run calls besides kernels.
struct RunHooks {
  MonitorCallback monitor;
  bool monitor_all = false;
  GradientReadyCallback gradient_ready;
};

// `ctx` is the step's context in the executor's RunState.
absl::Status RunStep(const Step& step, KernelContext& ctx, bool is_train, const IndexedGraph& g,
                     const RunHooks& hooks) {
  ctx.is_train = is_train;
  if (hooks.monitor && hooks.monitor_all) ReportInputs(step, g, hooks.monitor);
  SYMX_RETURN_IF_ERROR(step.kernel->fn(ctx));
  for (const auto& [dst, src] : step.accumulate) SYMX_RETURN_IF_ERROR(AccumulateInto(src, dst));
  // A GPU's kernels are only enqueued: what another device's worker or a
  // gradient-ready callback reads next must have run. (Host reads of GPU
  // tensors wait by themselves; this is for readers the step cannot see.)
  if (!step.ctx.device->host_memory() &&
      (step.signals || (hooks.gradient_ready && !step.finishes_gradients.empty()))) {
    SYMX_RETURN_IF_ERROR(step.ctx.device->Synchronize());
  }
  if (hooks.monitor) ReportOutputs(step, g, hooks.monitor);
  if (hooks.gradient_ready) {
    for (size_t arg : step.finishes_gradients) hooks.gradient_ready(arg);
  }
  return absl::OkStatus();
}

// Shared by the device workers of one multi-device run.
struct PhaseSync {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<char> done;  // per step, for steps other devices wait on
  std::atomic<bool> failed{false};
  std::atomic<bool>* cancel = nullptr;  // the RunState's: stops _recv waits on other devices
  absl::Status error;                   // the first failure, under mu
  std::exception_ptr exception;         // or the first exception (a monitor callback's), under mu
  std::mutex monitor_mu;                // the user's callback is called from one thread at a time
};

// Runs one device's steps in order, waiting where a step reads another
// device's value; the first failure stops every device.
void RunDeviceSteps(const Phase& phase, std::vector<KernelContext>& contexts, size_t slot,
                    bool is_train, const IndexedGraph& g, const RunHooks& hooks, PhaseSync* state) {
  // The gradient-ready callback is thread-safe by contract; the monitor is
  // the user's and gets one call at a time.
  RunHooks locked = hooks;
  if (hooks.monitor) {
    locked.monitor = [&](const std::string& name, const Tensor& t) {
      std::lock_guard<std::mutex> lock(state->monitor_mu);
      hooks.monitor(name, t);
    };
  }
  for (uint32_t index : phase.per_device[slot]) {
    const Step& step = phase.steps[index];
    if (!step.waits.empty()) {
      std::unique_lock<std::mutex> lock(state->mu);
      state->cv.wait(lock, [&] {
        if (state->failed) return true;
        for (uint32_t w : step.waits) {
          if (!state->done[w]) return false;
        }
        return true;
      });
      if (state->failed) return;
    }
    absl::Status s;
    try {
      s = RunStep(step, contexts[index], is_train, g, locked);
    } catch (...) {
      // Raised again on the calling thread once every device has stopped.
      std::lock_guard<std::mutex> lock(state->mu);
      if (!state->failed) state->exception = std::current_exception();
      state->failed = true;
      state->cancel->store(true);
      state->cv.notify_all();
      return;
    }
    if (!s.ok() || step.signals) {
      std::lock_guard<std::mutex> lock(state->mu);
      if (!s.ok() && !state->failed) {
        state->failed = true;
        state->error = s;
      }
      if (!s.ok()) state->cancel->store(true);
      state->done[index] = 1;
      state->cv.notify_all();
      if (!s.ok()) return;
    } else if (state->failed) {
      return;
    }
  }
}

absl::Status RunSteps(const Phase& phase, std::vector<KernelContext>& contexts, bool is_train,
                      const IndexedGraph& g, const RunHooks& hooks, DeviceWorkers* workers,
                      std::atomic<bool>* cancel) {
  if (workers == nullptr) {
    for (size_t i = 0; i < phase.steps.size(); ++i) {
      SYMX_RETURN_IF_ERROR(RunStep(phase.steps[i], contexts[i], is_train, g, hooks));
    }
    return absl::OkStatus();
  }
  PhaseSync state;
  state.cancel = cancel;
  state.done.assign(phase.steps.size(), 0);
  workers->RunAll(
      [&](size_t slot) { RunDeviceSteps(phase, contexts, slot, is_train, g, hooks, &state); });
  if (state.exception) std::rethrow_exception(state.exception);
  return state.error;
}

// Runs a phase; in a cross-rank plan it returns once the sends its _send
// steps started have completed, as the values they read may change next.
absl::Status RunPhase(const Phase& phase, bool is_train, const ExecPlan& plan, RunState& run,
                      const RunHooks& hooks, DeviceWorkers* workers, bool defer_send_wait) {
  absl::Status s;
  run.cancel.store(false);
  // A peer that failed or hung would make waiting for sends to it futile.
  // A device communicator (NCCL) is aborted too: a device stream may be
  // blocked on a receive that will never come, and only the abort ends it.
  auto give_up = [&](const absl::Status& why) {
    run.pending.Clear();
    if (plan.device_comm != nullptr) plan.device_comm->Abort(why);
  };
  // Deferred sends of the previous phase read values this phase may change.
  s = run.pending.WaitAll(plan.comm_timeout);
  if (!s.ok()) {
    give_up(s);
    return s;
  }
  try {
    s = RunSteps(phase, run.contexts(phase, plan), is_train, *plan.graph, hooks, workers,
                 &run.cancel);
  } catch (const std::exception& e) {
    give_up(absl::InternalError(e.what()));
    throw;
  } catch (...) {
    give_up(absl::InternalError("an exception"));
    throw;
  }
  if (!s.ok()) {
    give_up(s);
    return s;
  }
  if (defer_send_wait) return absl::OkStatus();
  s = run.pending.WaitAll(plan.comm_timeout);
  if (!s.ok()) give_up(s);
  return s;
}

// Marks every pool of `exe` as in use by it for the guard's lifetime; refuses
// when another executor sharing a pool is running (or this one already is).
class PoolGuard {
 public:
  PoolGuard(const Executor* exe, const std::map<Context, std::shared_ptr<MemoryPool>>& pools,
            const std::vector<Context>& devices) {
    for (const Context& ctx : devices) {
      auto it = pools.find(ctx);
      if (it == pools.end()) continue;
      MemoryPool* pool = it->second.get();
      const void* expected = nullptr;
      if (!pool->running.compare_exchange_strong(expected, exe)) {
        Release();
        throw Error(absl::FailedPreconditionError(absl::StrCat(
            expected == exe ? "this executor is already running on another thread"
                            : "another executor that shares this executor's memory pool on " +
                                  ctx.ToString() + " (shared_exec or Reshape) is running",
            ": executors sharing memory must not run Forward/Backward concurrently")));
      }
      held_.push_back(pool);
    }
  }
  ~PoolGuard() { Release(); }

 private:
  void Release() {
    for (MemoryPool* p : held_) p->running.store(nullptr);
    held_.clear();
  }
  std::vector<MemoryPool*> held_;
};

std::map<std::string, Tensor> MakeDict(const std::vector<std::string>& names,
                                       const std::vector<Tensor>& arrays, bool skip_undefined) {
  std::map<std::string, Tensor> out;
  std::set<std::string> dups;
  for (size_t i = 0; i < names.size(); ++i) {
    if (out.count(names[i])) dups.insert(names[i]);
    if (skip_undefined && !arrays[i].defined()) continue;
    out[names[i]] = arrays[i];
  }
  if (!dups.empty()) {
    throw Error(absl::InvalidArgumentError(
        absl::StrCat("Duplicate names detected, [", absl::StrJoin(dups, ", "), "]")));
  }
  return out;
}

}  // namespace

Executor::Executor() = default;
Executor::~Executor() = default;

void Executor::Forward(bool is_train, const std::map<std::string, Tensor>& inputs) {
  // Claimed before the inputs are copied: a refused call must not have
  // written into arrays a running executor reads.
  PoolGuard guard(this, pools_, plan_->devices);
  if (!inputs.empty()) {
    std::map<std::string, Tensor> args = arg_dict();
    for (const auto& [name, value] : inputs) {
      auto it = args.find(name);
      if (it == args.end()) {
        throw Error(absl::InvalidArgumentError(
            absl::StrCat("Unknown argument ", name,
                         " in Forward (arguments: ", absl::StrJoin(arg_names_, ", "), ")")));
      }
      if (!it->second.defined()) continue;  // another rank's array
      if (!value.defined() || value.shape() != it->second.shape()) {
        throw Error(absl::InvalidArgumentError(absl::StrCat(
            "Shape not match! Argument ", name, ", need: ", it->second.shape().ToString(),
            ", received: ", value.defined() ? value.shape().ToString() : "<undefined>")));
      }
      if (!value.SharesStorageWith(it->second) || value.offset() != it->second.offset() ||
          value.dtype() != it->second.dtype()) {
        ThrowIfError(CopyTensor(value, it->second));
      }
    }
  }
  ThrowIfError(RunPhase(plan_->forward, is_train, *plan_, *run_, {monitor_, monitor_all_, nullptr},
                        workers_.get(), bind_options_.defer_send_wait));
}

void Executor::Backward(const std::vector<Tensor>& head_grads) {
  if (plan_->backward.steps.empty()) return;
  PoolGuard guard(this, pools_, plan_->devices);
  if (!head_grads.empty() && head_grads.size() != outputs_.size()) {
    throw Error(absl::InvalidArgumentError(
        absl::StrCat("Backward got ", head_grads.size(), " head gradients for ", outputs_.size(),
                     " outputs (", absl::StrJoin(output_names_, ", "), ")")));
  }
  for (size_t i = 0; i < outputs_.size(); ++i) {
    const Tensor& dst = plan_->head_grads[i];
    if (!dst.defined()) continue;  // a loss head, or no gradient flows from it
    if (head_grads.empty() || !head_grads[i].defined()) {
      throw Error(absl::InvalidArgumentError(absl::StrCat(
          "Because the last operator is not Loss function, head_gradient is required when "
          "calling backward (missing for output ",
          output_names_[i],
          "). If you are attempting to minimize the output as an objective, please modify your "
          "network and pass it through the make_loss symbol.")));
    }
    if (head_grads[i].shape() != dst.shape()) {
      throw Error(absl::InvalidArgumentError(
          absl::StrCat("head gradient for output ", output_names_[i], " has shape ",
                       head_grads[i].shape().ToString(), ", expected ", dst.shape().ToString())));
    }
    ThrowIfError(CopyTensor(head_grads[i], dst));
  }
  ThrowIfError(RunPhase(plan_->backward, true, *plan_, *run_,
                        {monitor_, monitor_all_, gradient_ready_}, workers_.get(),
                        bind_options_.defer_send_wait));
}

void Executor::WaitForSends() {
  absl::Status s = run_->pending.WaitAll(plan_->comm_timeout);
  if (!s.ok()) {
    run_->pending.Clear();
    if (plan_->device_comm != nullptr) plan_->device_comm->Abort(s);
    throw Error(s);
  }
}

void Executor::Backward(const std::map<std::string, Tensor>& head_grads) {
  // As MXNet: one array per output by name, so outputs sharing a name share
  // the array given for it.
  std::vector<Tensor> list(outputs_.size());
  for (size_t i = 0; i < output_names_.size(); ++i) {
    auto it = head_grads.find(output_names_[i]);
    if (it != head_grads.end()) list[i] = it->second;
  }
  std::set<std::string> names(output_names_.begin(), output_names_.end());
  for (const auto& [name, t] : head_grads) {
    if (!names.count(name)) {
      throw Error(absl::InvalidArgumentError(absl::StrCat(
          "head gradient given for ", name,
          ", which is not an output (outputs: ", absl::StrJoin(output_names_, ", "), ")")));
    }
  }
  Backward(list);
}

std::map<std::string, Tensor> Executor::arg_dict() const {
  return MakeDict(arg_names_, arg_arrays_, false);
}
std::map<std::string, Tensor> Executor::grad_dict() const {
  return MakeDict(arg_names_, grad_arrays_, true);
}
std::map<std::string, Tensor> Executor::aux_dict() const {
  return MakeDict(aux_names_, aux_arrays_, false);
}
std::map<std::string, Tensor> Executor::output_dict() const {
  return MakeDict(output_names_, outputs_, false);
}

void Executor::CopyParamsFrom(const std::map<std::string, Tensor>& args,
                              const std::map<std::string, Tensor>& aux, bool allow_extra) {
  std::map<std::string, Tensor> my_args = arg_dict();
  std::map<std::string, Tensor> my_aux = aux_dict();
  // Check everything first so a bad name copies nothing.
  for (const auto& [name, t] : args) {
    auto it = my_args.find(name);
    if (it == my_args.end()) {
      if (allow_extra) continue;
      throw Error(absl::InvalidArgumentError(
          absl::StrCat("Find name \"", name, "\" that is not in the arguments")));
    }
    if (it->second.defined() && t.shape() != it->second.shape()) {
      throw Error(absl::InvalidArgumentError(
          absl::StrCat("CopyParamsFrom: argument ", name, " has shape ",
                       it->second.shape().ToString(), ", the given array ", t.shape().ToString())));
    }
  }
  for (const auto& [name, t] : aux) {
    auto it = my_aux.find(name);
    if (it == my_aux.end()) {
      if (allow_extra) continue;
      throw Error(absl::InvalidArgumentError(
          absl::StrCat("Find name ", name, " that is not in the auxiliary states")));
    }
    if (it->second.defined() && t.shape() != it->second.shape()) {
      throw Error(absl::InvalidArgumentError(
          absl::StrCat("CopyParamsFrom: auxiliary state ", name, " has shape ",
                       it->second.shape().ToString(), ", the given array ", t.shape().ToString())));
    }
  }
  // Arrays of other ranks are undefined here: their rank copies them.
  for (const auto& [name, t] : args) {
    auto it = my_args.find(name);
    if (it != my_args.end() && it->second.defined()) ThrowIfError(CopyTensor(t, it->second));
  }
  for (const auto& [name, t] : aux) {
    auto it = my_aux.find(name);
    if (it != my_aux.end() && it->second.defined()) ThrowIfError(CopyTensor(t, it->second));
  }
}

Symbol Executor::OptimizedSymbol() const { return plan_->optimized; }

std::vector<size_t> Executor::GradientReadyOrder() const { return plan_->gradient_order; }

void Executor::SetGradientReadyCallback(GradientReadyCallback callback) {
  gradient_ready_ = std::move(callback);
}

void Executor::SetReplicaSync(std::shared_ptr<const ReplicaSync> sync, int replica) {
  replica_sync_ = std::move(sync);
  for (auto* contexts : {&run_->forward, &run_->backward}) {
    for (KernelContext& ctx : *contexts) {
      ctx.replica_sync = replica_sync_.get();
      ctx.replica = replica;
    }
  }
}

void Executor::SetMonitorCallback(MonitorCallback callback, bool monitor_all) {
  monitor_ = std::move(callback);
  monitor_all_ = monitor_all;
}

std::vector<MemoryStats> Executor::memory_stats() const { return plan_->stats; }

std::string Executor::DebugStr() const {
  const IndexedGraph& g = *plan_->graph;
  std::string out;
  auto dump = [&](const Phase& phase, const char* name) {
    for (const Step& s : phase.steps) {
      const Node& node = *g[s.node_id].node;
      absl::StrAppend(&out, name, " ", node.op()->name(), " ", node.name(), " on ",
                      plan_->node_ctx[s.node_id].ToString(), " ->");
      for (size_t j = 0; j < s.ctx.outputs.size(); ++j) {
        absl::StrAppend(&out, " ", s.ctx.outputs[j].shape().ToString(),
                        s.ctx.OutputChannelsLast(j) ? " (channels-last)" : "");
      }
      absl::StrAppend(&out, "\n");
    }
  };
  dump(plan_->forward, "forward");
  dump(plan_->backward, "backward");
  // Threads per step on each device: a device's threads are divided among the
  // CPU devices of the plan, which run at once.
  for (size_t slot = 0; slot < plan_->devices.size(); ++slot) {
    for (const Phase* phase : {&plan_->forward, &plan_->backward}) {
      if (slot >= phase->per_device.size() || phase->per_device[slot].empty()) continue;
      const Step& step = phase->steps[phase->per_device[slot].front()];
      absl::StrAppend(&out, "Threads on ", plan_->devices[slot].ToString(), ": ",
                      step.ctx.num_threads, " per step\n");
      break;
    }
  }
  size_t total = 0;
  for (const MemoryStats& m : plan_->stats) {
    absl::StrAppend(&out, "Memory on ", m.ctx.ToString(), ": ", m.planned_bytes,
                    " bytes planned for intermediates (", m.no_reuse_bytes, " without reuse), ",
                    m.allocated_bytes, " bytes allocated\n");
    total += m.allocated_bytes;
  }
  // MXNet's closing line, which scripts parse (whole MiB, rounded down).
  absl::StrAppend(&out, "Total ", total >> 20, " MB allocated\n");
  return out;
}

}  // namespace symx
