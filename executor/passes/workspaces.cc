// AllocateWorkspaces: one workspace per device, as large as its largest step
// needs: what a prepared step reported, else the kernel's WorkspaceFn. Steps
// are built first because preparing decides the size.
#include <algorithm>

#include "executor/passes/passes.h"

namespace symx {
namespace {

size_t StepWorkspaceBytes(const BindState& s, const Step& step) {
  const ExecPlan& plan = s.plan;
  const IndexedGraph& g = *plan.graph;
  const uint32_t nid = step.node_id;
  const KernelInfo* k = s.kernels[nid];
  if (step.ctx.state != nullptr || k->workspace == nullptr) return s.prepared_bytes[nid];
  const Node& node = *g[nid].node;
  std::vector<Shape> in, out;
  for (const auto& i : g[nid].inputs) in.push_back(plan.shapes[g.entry_id(i)]);
  for (int j = 0; j < node.num_outputs(); ++j) out.push_back(plan.shapes[g.entry_id(nid, j)]);
  const DType dt =
      in.empty() ? plan.types[g.entry_id(nid, 0)] : plan.types[g.entry_id(g[nid].inputs[0])];
  return k->workspace(node.attrs, in, out, dt);
}

}  // namespace

absl::Status AllocateWorkspaces(BindState* s) {
  ExecPlan& plan = s->plan;
  const size_t num_slots = plan.devices.size();
  s->workspace_bytes.assign(num_slots, 0);
  for (Phase* phase : {&plan.forward, &plan.backward}) {
    for (const Step& step : phase->steps) {
      size_t& ws = s->workspace_bytes[s->slot[step.node_id]];
      ws = std::max(ws, StepWorkspaceBytes(*s, step));
    }
  }
  plan.workspaces.assign(num_slots, Tensor());
  for (size_t slot = 0; slot < num_slots; ++slot) {
    const size_t bytes = s->workspace_bytes[slot];
    if (bytes == 0) continue;
    SYMX_ASSIGN_OR_RETURN(plan.workspaces[slot], Tensor::Empty(Shape{static_cast<int64_t>(bytes)},
                                                               DType::kUint8, plan.devices[slot]));
    s->CountAllocated(plan.devices[slot], bytes);
  }
  for (Phase* phase : {&plan.forward, &plan.backward}) {
    for (Step& step : phase->steps) step.ctx.workspace = plan.workspaces[s->slot[step.node_id]];
  }
  return absl::OkStatus();
}

}  // namespace symx
