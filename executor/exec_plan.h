// ExecPlan: what Bind builds and Forward/Backward walk (executor internals).
#ifndef SYMX_EXECUTOR_EXEC_PLAN_H_
#define SYMX_EXECUTOR_EXEC_PLAN_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "devices/kernel.h"
#include "devices/tensor.h"
#include "executor/executor.h"
#include "executor/plan_memory.h"
#include "graph/indexed_graph.h"
#include "graph/infer_graph.h"
#include "graph/symbol.h"

namespace symx {

// Intermediate memory blocks on one device, shared by executors bound with
// shared_exec (they must not run concurrently).
struct MemoryPool {
  Context ctx;
  std::vector<std::shared_ptr<Storage>> blocks;
};

struct Step {
  uint32_t node_id = 0;
  const KernelInfo* kernel = nullptr;
  KernelContext ctx;
  // After the kernel: dst += src (grad_req add for kernels that only write).
  std::vector<std::pair<Tensor, Tensor>> accumulate;
};

// Everything Bind decided, immutable afterwards (except the step contexts'
// is_train flag, set per call).
class ExecPlan {
 public:
  std::unique_ptr<IndexedGraph> graph;
  uint32_t num_forward_nodes = 0;
  ShapeTable shapes;
  TypeTable types;
  MemoryPlan memory;
  std::vector<Step> forward_steps;
  std::vector<Step> backward_steps;
  // Per forward output: the array Backward copies its head gradient into
  // (undefined when the output needs none: a loss head, or no gradient flows).
  std::vector<Tensor> head_grads;
  std::vector<bool> head_is_loss;
  Tensor workspace;
  MemoryStats stats;
};

// Everything Bind/SimpleBind resolved from the user's arguments: one array per
// argument and aux state, a gradient array (or undefined) per argument.
struct ResolvedBind {
  Context ctx;
  std::vector<Tensor> args, grads, aux;
  std::vector<GradReq> reqs;
  std::shared_ptr<MemoryPool> pool;  // null: a new pool
  size_t allocated_array_bytes = 0;  // arrays SimpleBind/Reshape allocated for this bind
};

// Builds the plan; fills `outputs` with the forward output tensors.
absl::Status BuildPlan(const Symbol& symbol, const ResolvedBind& bind, ExecPlan* plan,
                       std::vector<Tensor>* outputs, std::shared_ptr<MemoryPool>* pool);

// dst += src, elementwise (same size).
absl::Status AccumulateInto(const Tensor& src, const Tensor& dst);

}  // namespace symx

#endif  // SYMX_EXECUTOR_EXEC_PLAN_H_
