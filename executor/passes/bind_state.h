// BindState: what the bind passes (passes.h) hand on to each other while they
// build one ExecPlan (executor internals). Each field says which pass fills
// it; a pass reads only what the passes before it filled.
#ifndef SYMX_EXECUTOR_PASSES_BIND_STATE_H_
#define SYMX_EXECUTOR_PASSES_BIND_STATE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "devices/device.h"
#include "devices/kernel.h"
#include "devices/tensor.h"
#include "executor/cross_rank.h"
#include "executor/exec_plan.h"
#include "graph/gradient.h"
#include "graph/indexed_graph.h"
#include "graph/symbol.h"

namespace symx {

struct BindState {
  // The plan is built into `*plan`; `*bind` gains the gradient arrays the
  // plan allocates (and reqs turned null); `*outputs` and `*pools` are
  // filled by the last pass only.
  BindState(const Symbol& symbol, ResolvedBind* bind, ExecPlan* plan, std::vector<Tensor>* outputs,
            PoolMap* pools)
      : symbol(symbol), bind(*bind), plan(*plan), outputs(outputs), pools_out(pools) {}

  const Symbol& symbol;
  ResolvedBind& bind;
  ExecPlan& plan;
  std::vector<Tensor>* outputs;
  PoolMap* pools_out;

  // CollectVariables: the user's forward graph and its variables; the bind
  // context (global: with its rank in a cross-rank bind).
  std::unique_ptr<IndexedGraph> fwd;
  Context bind_ctx;
  std::vector<const Node*> arg_vars, aux_vars;
  std::vector<std::string> arg_names, aux_names;
  // LocateArrayHomes: where every bound array lives (every rank's).
  ArrayHomes homes;
  // The forward outputs (CollectVariables), then one gradient per entry of
  // x_arg (BuildGradientGraph; the arguments whose req is not null); the
  // nodes are replaced by FuseForInference and PlaceAndPartition, the count
  // stays. BuildGradientGraph: per forward output its head gradient variable
  // (null for a loss head); each backward node's origin.
  std::vector<NodeEntry> full_outputs;
  std::vector<size_t> x_arg;
  std::vector<NodePtr> head_vars;
  GradientOrigins origins;
  // PlaceAndPartition: the forward outputs and the argument / aux node ids
  // in plan.graph.
  std::vector<NodeEntry> placed_fwd;
  std::vector<uint32_t> arg_nodes, aux_nodes;
  // AssignDeviceSlots: per node id, its index in plan.devices (-1: a
  // variable, or another rank's node).
  std::vector<int> slot;
  // ChooseKernels: per node id (null where slot is -1).
  std::vector<const KernelInfo*> kernels;
  // Bytes per context: seeded by AssignDeviceSlots (the devices that run
  // steps), counted by the passes that allocate, summed by CountMemory.
  std::map<Context, MemoryStats> stats;
  // AllocateGradients: per argument, its gradient array (bound or made here).
  std::vector<Tensor> grads;
  // MarkExternalEntries: per entry, its tensor where it lives outside the
  // plan's memory (PlanDeviceMemory adds the planned ones); external (not
  // planned; FindCrossDeviceReads adds each _send's output) and kept (never
  // reused) entries;
  // the device slot of its producer (-1: a variable or another rank's);
  // grad_req=add gradients (entry -> argument), accumulated after their step.
  std::vector<Tensor> entry;
  std::vector<bool> external, keep;
  std::vector<int> producer_slot;
  std::map<uint32_t, size_t> add_grads;
  // FindCrossDeviceReads: entries another device (or a _send) reads; a
  // _send's output aliases its input.
  std::vector<bool> read_elsewhere;
  std::vector<int64_t> alias_of;
  // PlanDeviceMemory: per device slot its Device and the blocks that join
  // its pool once the bind has succeeded; the pool of every slot's device.
  std::vector<Device*> devices;
  std::vector<std::vector<std::shared_ptr<Storage>>> new_blocks;
  PoolMap pools;
  // PlanLayout: per entry, stored channels-last.
  std::vector<bool> channels_last;
  // BuildSteps: per node id its index within its phase (-1: no step); the
  // workspace bytes a step's PrepareFn reported.
  std::vector<int64_t> step_of;
  std::vector<size_t> prepared_bytes;
  // AllocateWorkspaces: per device slot.
  std::vector<size_t> workspace_bytes;

  const RankView& ranks() const { return bind.ranks; }
  size_t num_forward_outputs() const { return full_outputs.size() - x_arg.size(); }
  // The gradient entry of x_arg[k] in full_outputs.
  const NodeEntry& gradient(size_t k) const { return full_outputs[num_forward_outputs() + k]; }
  // No gradient is computed: an inference bind.
  bool inference() const { return x_arg.empty(); }
  // Node `nid` of plan.graph runs (or lives) in this process.
  bool local(uint32_t nid) const { return bind.ranks.IsLocal(plan.node_ctx[nid]); }
  void CountAllocated(const Context& c, size_t bytes) {
    stats[c].ctx = c;
    stats[c].allocated_bytes += bytes;
  }
  void CountArray(const Context& c, size_t bytes) {
    stats[c].ctx = c;
    stats[c].array_bytes += bytes;
  }
};

// "operator fc1 (FullyConnected)" or "variable data", for messages.
std::string NodeLabel(const Node& node);

}  // namespace symx

#endif  // SYMX_EXECUTOR_PASSES_BIND_STATE_H_
