// ExecPlan: what Bind builds and Forward/Backward walk (executor internals).
#ifndef SYMX_EXECUTOR_EXEC_PLAN_H_
#define SYMX_EXECUTOR_EXEC_PLAN_H_

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "devices/engine_options.h"
#include "devices/kernel.h"
#include "devices/tensor.h"
#include "distributed/agreement.h"
#include "distributed/communicator.h"
#include "executor/grad_req.h"
#include "executor/memory_stats.h"
#include "executor/plan_memory.h"
#include "executor/ranks.h"
#include "graph/indexed_graph.h"
#include "graph/infer_graph.h"
#include "graph/symbol.h"

namespace symx {

// Intermediate memory blocks on one device, shared by executors bound with
// shared_exec or made by Reshape. Such executors must not run concurrently:
// `running` holds the executor that is running on the pool, and a second one
// is refused instead of corrupting the first one's values.
struct MemoryPool {
  Context ctx;
  std::vector<std::shared_ptr<Storage>> blocks;
  std::atomic<const void*> running{nullptr};
};
using PoolMap = std::map<Context, std::shared_ptr<MemoryPool>>;

struct Step {
  uint32_t node_id = 0;
  const KernelInfo* kernel = nullptr;
  KernelContext ctx;
  // After the kernel: dst += src (grad_req add for kernels that only write).
  std::vector<std::pair<Tensor, Tensor>> accumulate;
  // Multi-device only: steps of this phase on other devices that must finish
  // first (the producers a copy node reads), and whether another device waits
  // for this one.
  std::vector<uint32_t> waits;
  bool signals = false;
  // Arguments whose gradient array is final once this step (and its
  // accumulation) is done.
  std::vector<size_t> finishes_gradients;
};

// The steps of Forward or Backward: in one valid global order, and per device
// slot (ExecPlan::devices) the indices of that device's steps in that order.
struct Phase {
  std::vector<Step> steps;
  std::vector<std::vector<uint32_t>> per_device;
};

// Everything Bind decided (executor/passes/), not changed afterwards (the
// executor holds it const): what a run changes (is_train, the sends in
// flight, the cancel flag) lives in the executor's RunState
// (executor/run_state.h), which copies the step contexts. The tensors' data
// and the kernels' prepared states are the run's to change.
class ExecPlan {
 public:
  std::unique_ptr<IndexedGraph> graph;  // forward + backward, copies inserted
  uint32_t num_forward_nodes = 0;
  ShapeTable shapes;
  TypeTable types;
  // Per argument / aux state: its dtype (known on every rank).
  std::vector<DType> arg_dtypes, aux_dtypes;
  std::vector<Context> node_ctx;   // per node id
  std::vector<Context> devices;    // the devices that run steps (the bind context first if so)
  std::vector<MemoryPlan> memory;  // per device slot
  Phase forward, backward;
  // Per forward output: the array Backward copies its head gradient into
  // (undefined when the output needs none: a loss head, or no gradient flows).
  std::vector<Tensor> head_grads;
  std::vector<bool> head_is_loss;
  // Arguments with a gradient computed here, in backward step order.
  std::vector<size_t> gradient_order;
  std::vector<Tensor> workspaces;  // per device slot (undefined: none needed)
  std::vector<MemoryStats> stats;  // per device slot
  size_t num_copies = 0;
  Symbol optimized;  // the forward graph as executed
  // Cross-rank binds: the communicator, and the device communicator for
  // transfers between GPUs of different ranks when every rank runs on one
  // GPU (NCCL; see ConnectDeviceCommunicator). `channel` points at both for
  // the _send/_recv kernels' PrepareFn at Bind; a run's steps point at the
  // RunState's channel, which adds its pending sends and cancel flag.
  std::shared_ptr<Communicator> comm;
  std::shared_ptr<Communicator> device_comm;
  absl::Duration comm_timeout;
  RankChannel channel;
};

// Everything Bind/SimpleBind resolved from the user's arguments: one array per
// argument and aux state, a gradient array (or undefined) per argument.
struct ResolvedBind {
  Context ctx;
  std::map<std::string, Context> group2ctx;
  std::vector<Tensor> args, grads, aux;
  std::vector<GradReq> reqs;
  // Per argument: BuildPlan allocates the gradient array (zeros) on the device
  // that computes the gradient (SimpleBind's arrays it made itself).
  std::vector<bool> allocate_grad;
  PoolMap pools;  // from shared_exec/Reshape; missing devices get new pools
  std::map<Context, size_t> allocated_array_bytes;  // arrays SimpleBind/Reshape allocated
  // Cross-rank binds: arrays of other ranks are undefined here; the
  // rendezvous runs the bind's collective steps (distributed/agreement.h).
  RankView ranks;
  std::shared_ptr<Communicator> comm;
  absl::Duration comm_timeout = absl::Seconds(300);
  Rendezvous* rendezvous = nullptr;
  EngineOptions engine;  // BindOptions::engine
  // What the user asked for (shapes, dtypes, contexts, grad_req), one line
  // per item: the ranks agree on it before anything else.
  std::vector<std::string> request;
};

}  // namespace symx

#endif  // SYMX_EXECUTOR_EXEC_PLAN_H_
