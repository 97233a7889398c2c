// Bind as a pipeline of named passes. BuildPlan runs them in the order of
// BindPasses(), each reading the BindState fields the passes before it
// filled (bind_state.h) and filling its own; a pass that fails stops the
// bind with its error. Each pass has a file here (the three agreement steps
// share rank_agreement.cc) and its own unit test (tests/executor/passes/),
// which builds a few nodes, runs the passes before it (RunPassesBefore) and
// checks what the one pass did.
//
// Cross-rank binds: AgreeOnRequest, LocateArrayHomes, AgreeOnPlan and
// AgreeOnCompletion are collective steps (distributed/agreement.h), and so is
// ConnectDeviceCommunicator when it makes a device communicator; every rank
// runs every pass.
#ifndef SYMX_EXECUTOR_PASSES_PASSES_H_
#define SYMX_EXECUTOR_PASSES_PASSES_H_

#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "executor/passes/bind_state.h"

namespace symx {

// The forward graph, its arguments and aux states; rejects a symbol holding
// _send/_recv nodes (the optimized symbol of a cross-rank executor).
absl::Status CollectVariables(BindState* s);
// Cross-rank: the ranks compare what they were asked to bind (shapes,
// dtypes, contexts, grad_req, engine switches) and that the ranks named exist.
absl::Status AgreeOnRequest(BindState* s);
// Where every bound array lives; a gradient nobody holds an array for (and
// none to allocate) gets req null.
absl::Status LocateArrayHomes(BindState* s);
// Head-gradient variables and the gradient nodes of the arguments whose req
// is not null.
absl::Status BuildGradientGraph(BindState* s);
// Inference binds on CPU with oneDNN: convolution chains become
// _symx_fused_conv nodes.
absl::Status FuseForInference(BindState* s);
// A device per node (executor/place.h), then copies and _send/_recv pairs
// where edges cross devices and ranks: plan.graph, node_ctx, optimized.
absl::Status PlaceAndPartition(BindState* s);
// Shapes and dtypes of every entry, seeded with the bound arrays; an entry
// left unknown or too large to count in bytes is an error.
absl::Status InferShapesAndTypes(BindState* s);
// The devices of this process that run steps (the bind context first), and
// each node's slot among them.
absl::Status AssignDeviceSlots(BindState* s);
// A kernel per local op node: the device's own, a half-precision widening
// one on CPU, or the host fallback; none is an error naming the node.
absl::Status ChooseKernels(BindState* s);
// Cross-rank: the ranks compare the plan they are about to run.
absl::Status AgreeOnPlan(BindState* s);
// The gradient arrays the bind allocates (SimpleBind's), where computed.
absl::Status AllocateGradients(BindState* s);
// Entries that live outside the memory plan (bound arrays, head gradients,
// write gradients), entries kept for the whole run, grad_req=add gradients.
absl::Status MarkExternalEntries(BindState* s);
// Entries read by another device or sent to another rank: kept all run.
absl::Status FindCrossDeviceReads(BindState* s);
// One memory plan per device and its blocks from the device's pool.
absl::Status PlanDeviceMemory(BindState* s);
// Which entries are stored channels-last.
absl::Status PlanLayout(BindState* s);
// Cross-rank: NCCL between ranks' GPUs when every transfer allows it.
absl::Status ConnectDeviceCommunicator(BindState* s);
// One Step per local op node, per phase and device, with its waits.
absl::Status BuildSteps(BindState* s);
// One workspace per device, as large as its largest step needs.
absl::Status AllocateWorkspaces(BindState* s);
// Which backward step finishes each gradient; plan.gradient_order.
absl::Status OrderGradients(BindState* s);
// plan.stats: planned, allocated and array bytes per device.
absl::Status CountMemory(BindState* s);
// Cross-rank: every rank has what it needs, or all fail.
absl::Status AgreeOnCompletion(BindState* s);
// Hands the bind its results: outputs, gradient arrays, the pools with
// their new blocks. Nothing before it changes a pool.
absl::Status CommitPools(BindState* s);

struct BindPass {
  std::string_view name;
  absl::Status (*run)(BindState* s);
};
// Every pass, in the order BuildPlan runs them.
const std::vector<BindPass>& BindPasses();
// Runs the passes before the one named `name`; an unknown name is an error
// before any pass runs.
absl::Status RunPassesBefore(std::string_view name, BindState* s);

// Builds the plan: every pass in order. Fills `outputs` with the forward
// output tensors, `pools` with the pool of every device the plan uses, and
// allocates the gradients `allocate_grad` asks for into bind->grads.
absl::Status BuildPlan(const Symbol& symbol, ResolvedBind* bind, ExecPlan* plan,
                       std::vector<Tensor>* outputs, PoolMap* pools);

}  // namespace symx

#endif  // SYMX_EXECUTOR_PASSES_PASSES_H_
