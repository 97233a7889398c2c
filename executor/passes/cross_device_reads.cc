// FindCrossDeviceReads: entries that must outlive their last local reader.
#include "executor/passes/passes.h"
#include "graph/op.h"

namespace symx {

// An entry another device reads (through its copy node) stays allocated for
// the whole run: the copy may run at any time after its producer. So does
// what a _send sends: the send completes in the background, until the end of
// the phase. A _send's output is its input itself (no memory).
absl::Status FindCrossDeviceReads(BindState* s) {
  const IndexedGraph& g = *s->plan.graph;
  s->read_elsewhere.assign(g.num_entries(), false);
  s->alias_of.assign(g.num_entries(), -1);
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    const Node& node = *g[nid].node;
    const bool is_send = !node.is_variable() && node.op()->name() == "_send";
    for (const auto& in : g[nid].inputs) {
      const uint32_t e = g.entry_id(in);
      const int producer = s->producer_slot[e];
      if (s->slot[nid] >= 0 && producer >= 0 && (producer != s->slot[nid] || is_send)) {
        s->read_elsewhere[e] = true;
      }
    }
    if (is_send) {
      const uint32_t out = g.entry_id(nid, 0);
      s->external[out] = true;
      s->alias_of[out] = g.entry_id(g[nid].inputs[0]);
    }
  }
  return absl::OkStatus();
}

}  // namespace symx
