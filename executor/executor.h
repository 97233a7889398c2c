// Executor: a Symbol bound to devices and arrays, run with Forward/Backward.
//
//   auto exe = Executor::SimpleBind(net, {.ctx = Context::CPU(),
//                                         .shapes = {{"data", Shape{32, 784}}}});
//
//   exe->Forward(/*is_train=*/true, {{"data", batch}});
//   exe->Backward();
//   Tensor w_grad = exe->grad_dict().at("fc1_weight");
//
// Bind does all the thinking once: it builds the forward+backward graph, infers
// shapes and dtypes, resolves kernels, plans memory and builds an immutable
// plan of steps whose tensors point into planned memory. Forward and Backward
// only walk the plan; they allocate nothing.
//
// Errors: the public API throws symx::Error with MXNet's explanations (missing
// or extra arguments, wrong lengths, shape mismatches, bad grad_req, a missing
// head gradient). An Executor must not run Forward/Backward from two threads
// at once, nor may two executors that share a memory pool (shared_exec,
// Reshape) run concurrently: both are detected and refused with an error.
// Executors that share a device's generator (Dropout) must not run
// concurrently either (not detected).
//
// Multi-device: with group2ctx, nodes run where Place puts them (executor/
// place.h) and values cross devices through copy nodes; each device runs its
// steps on its own worker, concurrently, ordered by the copies' dependencies.
//
// Across ranks (a `comm` of more than one rank in the options): every rank
// binds the same symbol with the same options (SPMD), and Bind, SimpleBind,
// Reshape, Forward and Backward are collective: all ranks call them in the
// same order. group2ctx may name other ranks' devices (`cpu(0)@rank1`); in
// the options a context without @rank is rank 0's. Each rank allocates and
// runs only its own part; edges between ranks become _send/_recv pairs.
// Arrays that live on another rank are undefined here (arg_arrays, outputs,
// ...); Forward's inputs and CopyParamsFrom skip them, so every rank may pass
// the same values. Ranks that bound different things fail at bind on every
// rank, naming both ranks and the first difference; a rank that fails alone
// makes every rank fail. Every wait on another rank ends after comm_timeout
// with an error naming the rank and the operation.
#ifndef SYMX_EXECUTOR_EXECUTOR_H_
#define SYMX_EXECUTOR_EXECUTOR_H_

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
#include "executor/grad_req.h"
#include "executor/memory_stats.h"
#include "graph/symbol.h"

namespace symx {

class ExecPlan;
struct RunState;
class DeviceWorkers;
struct MemoryPool;
class Communicator;  // distributed/communicator.h
class ReplicaSync;   // devices/kernel.h

// Arrays given to Bind: a list in the symbol's order, or a map by name.
class ArrayArgs {
 public:
  ArrayArgs() : is_map_(false) {}
  ArrayArgs(std::vector<Tensor> list) : is_map_(false), list_(std::move(list)) {}        // NOLINT
  ArrayArgs(std::map<std::string, Tensor> map) : is_map_(true), map_(std::move(map)) {}  // NOLINT
  ArrayArgs(std::initializer_list<Tensor> list) : is_map_(false), list_(list) {}         // NOLINT
  bool is_map() const { return is_map_; }
  const std::vector<Tensor>& list() const { return list_; }
  const std::map<std::string, Tensor>& map() const { return map_; }

 private:
  bool is_map_;
  std::vector<Tensor> list_;
  std::map<std::string, Tensor> map_;
};

struct BindOptions {
  Context ctx;
  GradReqSpec grad_req = GradReq::kWrite;
  // ctx_group name -> context (multi-device placement).
  std::map<std::string, Context> group2ctx;
  // Intermediate memory is taken from (and grows) this executor's pools, one
  // per device (a pool is used only by plans on its own device).
  const class Executor* shared_exec = nullptr;
  // The ranks of a cross-rank bind (nullptr or one rank: this process only),
  // and how long any wait on another rank may take.
  std::shared_ptr<Communicator> comm;
  absl::Duration comm_timeout = absl::Seconds(300);
  // Cross-rank: a phase (Forward, Backward) returns without waiting for the
  // sends its _send steps started; the next phase of this executor, or
  // WaitForSends(), waits for them first. For pipelines, where a stage runs
  // other executors while its peer has not yet posted the receive (MPI's
  // large sends complete only then): waiting at the phase's end would
  // deadlock 1F1B. The caller must not change what a send reads (this
  // executor's arrays, parameters it sends) before WaitForSends().
  bool defer_send_wait = false;
  // The engine's switches for this bind (oneDNN, fusion, channels-last, the
  // host fallback: devices/engine_options.h). The defaults are the fast
  // paths; the symx tool and the Python package fill them from SYMX_*
  // environment variables (tools/env/engine_env.h).
  EngineOptions engine;
};

struct SimpleBindOptions {
  Context ctx;
  std::map<std::string, Shape> shapes;  // 0 dims mean unknown (MXNet's legacy convention)
  GradReqSpec grad_req = GradReq::kWrite;
  // dtypes by argument name; without it, arguments with no __dtype__ are float32.
  std::optional<std::map<std::string, DType>> type_dict;
  std::map<std::string, Context> group2ctx;
  std::vector<std::string> shared_arg_names;
  const class Executor* shared_exec = nullptr;
  // Input arrays shared across executors (bucketing): name -> array. Updated in place.
  std::map<std::string, Tensor>* shared_buffer = nullptr;
  // As in BindOptions.
  std::shared_ptr<Communicator> comm;
  absl::Duration comm_timeout = absl::Seconds(300);
  bool defer_send_wait = false;
  EngineOptions engine;
};

using MonitorCallback = std::function<void(const std::string& name, const Tensor& value)>;
// Called with an argument's index once its gradient array holds this
// Backward's final value.
using GradientReadyCallback = std::function<void(size_t arg)>;

class Executor {
 public:
  // `args`/`aux_states`: every argument/aux state (list or map; a map may hold
  // extra names). `args_grad`: nullopt for no backward graph; arguments without
  // a gradient array get grad_req null whatever `options.grad_req` says. In a
  // cross-rank bind, each array is given on the one rank that holds it and is
  // undefined (or missing from a map) on the others.
  static std::unique_ptr<Executor> Bind(const Symbol& symbol, const BindOptions& options,
                                        const ArrayArgs& args,
                                        const std::optional<ArrayArgs>& args_grad,
                                        const ArrayArgs& aux_states = {});
  // Allocates every array (zero-filled) from shapes and dtypes inferred from
  // `options.shapes`; no gradient arrays for null arguments.
  static std::unique_ptr<Executor> SimpleBind(const Symbol& symbol,
                                              const SimpleBindOptions& options);
  ~Executor();

  // Copies `inputs` into the bound arguments (shapes must match), then runs the
  // forward pass. Aux states change only when is_train.
  void Forward(bool is_train, const std::map<std::string, Tensor>& inputs = {});
  // Runs the backward pass. `head_grads`: one per output (or by output name);
  // needed unless the head is a loss op. A no-op when no gradient is computed.
  void Backward(const std::vector<Tensor>& head_grads = {});
  void Backward(const std::map<std::string, Tensor>& head_grads);
  // Waits for the sends of the last phase (defer_send_wait); a no-op
  // otherwise. Throws symx::Error naming the rank when one fails or times out.
  void WaitForSends();

  const Symbol& symbol() const { return symbol_; }
  const std::vector<Tensor>& outputs() const { return outputs_; }
  const std::vector<Tensor>& arg_arrays() const { return arg_arrays_; }
  // Undefined tensors where grad_req is null and no array was bound.
  const std::vector<Tensor>& grad_arrays() const { return grad_arrays_; }
  const std::vector<Tensor>& aux_arrays() const { return aux_arrays_; }
  const std::vector<GradReq>& grad_reqs() const { return grad_reqs_; }
  // By name; duplicate names are an error.
  std::map<std::string, Tensor> arg_dict() const;
  std::map<std::string, Tensor> grad_dict() const;  // only defined gradients
  std::map<std::string, Tensor> aux_dict() const;
  std::map<std::string, Tensor> output_dict() const;

  // Copies values (converted to each array's dtype) into the bound arrays.
  // Unknown names are an error unless allow_extra; names not given are untouched.
  void CopyParamsFrom(const std::map<std::string, Tensor>& args,
                      const std::map<std::string, Tensor>& aux = {}, bool allow_extra = false);

  // A new executor for new input shapes that shares this one's parameters and
  // memory: arrays whose shape is unchanged are the same arrays, smaller ones
  // are views of the old memory, larger ones need allow_up_sizing and are new.
  // An argument not named whose shape changes needs partial_shaping.
  std::unique_ptr<Executor> Reshape(const std::map<std::string, Shape>& shapes,
                                    bool partial_shaping = false,
                                    bool allow_up_sizing = false) const;

  // The forward graph as executed (after placement and copy insertion).
  Symbol OptimizedSymbol() const;
  // Called after each op with "<node>_<output>" and the value; with
  // monitor_all also with each input ("<node>_<input name>").
  void SetMonitorCallback(MonitorCallback callback, bool monitor_all = false);

  // Data parallelism (data_parallel/gradient_reducer.h): the arguments whose
  // gradient this process computes, in the order Backward finishes them (the
  // plan fixes it at bind), and a callback run right after the step that
  // finishes each (grad_req add: after the accumulation), on the thread of
  // the device that ran it. The callback must be thread-safe when the plan
  // has several devices; set it before Backward, not during.
  std::vector<size_t> GradientReadyOrder() const;
  void SetGradientReadyCallback(GradientReadyCallback callback);
  // The job's replicas, for the kernels that sum statistics over them
  // (devices/kernel.h), this executor being local replica `replica`; null
  // clears it. Set between runs, not during.
  void SetReplicaSync(std::shared_ptr<const ReplicaSync> sync, int replica);

  // One entry per device: those that run steps (the bind context first when it
  // runs any), then
  // those that only hold bound arrays.
  std::vector<MemoryStats> memory_stats() const;
  // Per-node summary and memory totals.
  std::string DebugStr() const;

 private:
  Executor();
  friend class ExecutorBuilder;

  Symbol symbol_;
  std::vector<std::string> arg_names_, aux_names_, output_names_;
  std::vector<Tensor> arg_arrays_, grad_arrays_, aux_arrays_, outputs_;
  std::vector<GradReq> grad_reqs_;
  std::unique_ptr<const ExecPlan> plan_;  // immutable after Bind
  std::unique_ptr<RunState> run_;         // what Forward/Backward change
  std::map<Context, std::shared_ptr<MemoryPool>> pools_;
  std::unique_ptr<DeviceWorkers> workers_;  // multi-device plans only
  BindOptions bind_options_;
  MonitorCallback monitor_;
  bool monitor_all_ = false;
  GradientReadyCallback gradient_ready_;
  std::shared_ptr<const ReplicaSync> replica_sync_;
};

}  // namespace symx

#endif  // SYMX_EXECUTOR_EXECUTOR_H_
