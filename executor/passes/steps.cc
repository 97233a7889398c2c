// BuildSteps: one Step per local op node, in graph order, per phase and
// device; a copy waits for its producer on another device when both run in
// the same phase.
#include <algorithm>
#include <vector>

#include "executor/passes/passes.h"
#include "graph/error.h"
#include "graph/op.h"

namespace symx {
namespace {

// Which entries something reads: backward outputs nothing reads (the data
// gradient of a convolution whose input needs none) get req null, so that
// kernels skip computing them.
std::vector<bool> ReadEntries(const IndexedGraph& g, const std::vector<NodeEntry>& outputs) {
  std::vector<bool> read(g.num_entries(), false);
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    for (const auto& i : g[nid].inputs) read[g.entry_id(i)] = true;
  }
  for (const NodeEntry& out : outputs) read[g.entry_id(out)] = true;
  return read;
}

// Per input and output of node `nid`: stored channels-last (left empty when
// none is).
void SetChannelsLast(const BindState& s, uint32_t nid, KernelContext* ctx) {
  if (s.channels_last.empty()) return;
  const IndexedGraph& g = *s.plan.graph;
  bool any = false;
  for (const auto& i : g[nid].inputs) {
    ctx->in_channels_last.push_back(s.channels_last[g.entry_id(i)]);
    any |= ctx->in_channels_last.back();
  }
  for (int j = 0; j < g[nid].node->num_outputs(); ++j) {
    ctx->out_channels_last.push_back(s.channels_last[g.entry_id(nid, j)]);
    any |= ctx->out_channels_last.back();
  }
  if (!any) ctx->in_channels_last.clear(), ctx->out_channels_last.clear();
}

}  // namespace

absl::Status BuildSteps(BindState* s) {
  ExecPlan& plan = s->plan;
  const IndexedGraph& g = *plan.graph;
  const size_t num_slots = plan.devices.size();
  const std::vector<bool> read = ReadEntries(g, s->full_outputs);
  s->step_of.assign(g.num_nodes(), -1);
  s->prepared_bytes.assign(g.num_nodes(), 0);
  // CPU devices of one plan run at once and share the machine's cores.
  const int cpu_devices =
      static_cast<int>(std::count_if(plan.devices.begin(), plan.devices.end(),
                                     [](const Context& c) { return c.type == DeviceType::kCPU; }));
  plan.forward.per_device.assign(num_slots, {});
  plan.backward.per_device.assign(num_slots, {});
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    const Node& node = *g[nid].node;
    if (node.is_variable() || s->slot[nid] < 0) continue;
    const size_t slot = static_cast<size_t>(s->slot[nid]);
    const bool forward = nid < plan.num_forward_nodes;
    Phase& phase = forward ? plan.forward : plan.backward;
    Step step;
    step.node_id = nid;
    step.kernel = s->kernels[nid];
    step.ctx.attrs = &node.attrs;
    step.ctx.device = s->devices[slot];
    step.ctx.num_threads = s->devices[slot]->num_threads();
    step.ctx.inference = s->inference();
    step.ctx.options = s->bind.engine;
    if (plan.devices[slot].type == DeviceType::kCPU && cpu_devices > 1) {
      step.ctx.num_threads = std::max(1, step.ctx.num_threads / cpu_devices);
    }
    if (node.op()->name() == "_send" || node.op()->name() == "_recv") {
      step.ctx.rank_channel = &plan.channel;
    }
    for (const auto& i : g[nid].inputs) {
      step.ctx.inputs.push_back(s->entry[g.entry_id(i)]);
      const int ps = s->producer_slot[g.entry_id(i)];
      if (ps >= 0 && ps != static_cast<int>(slot) &&
          (i.node_id < plan.num_forward_nodes) == forward) {
        const uint32_t producer = static_cast<uint32_t>(s->step_of[i.node_id]);
        step.waits.push_back(producer);
        phase.steps[producer].signals = true;
      }
    }
    for (int j = 0; j < node.num_outputs(); ++j) {
      const uint32_t e = g.entry_id(nid, j);
      step.ctx.outputs.push_back(s->entry[e]);
      const bool unread = !forward && !read[e] && !s->external[e] && !s->keep[e] &&
                          !s->read_elsewhere[e] && s->add_grads.count(e) == 0;
      step.ctx.req.push_back(unread                                   ? OpReq::kNull
                             : plan.memory[slot].inplace_from[e] >= 0 ? OpReq::kInplace
                                                                      : OpReq::kWrite);
      auto add = s->add_grads.find(e);
      if (add != s->add_grads.end())
        step.accumulate.emplace_back(s->grads[add->second], s->entry[e]);
    }
    SetChannelsLast(*s, nid, &step.ctx);
    if (step.kernel->prepare != nullptr) {
      absl::Status prepared = step.kernel->prepare(&step.ctx, &s->prepared_bytes[nid]);
      if (!prepared.ok()) return Annotate(prepared, NodeLabel(node));
    }
    s->step_of[nid] = static_cast<int64_t>(phase.steps.size());
    phase.per_device[slot].push_back(static_cast<uint32_t>(phase.steps.size()));
    phase.steps.push_back(std::move(step));
  }
  return absl::OkStatus();
}

}  // namespace symx
