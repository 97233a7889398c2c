// ChooseKernels: the kernel each local op node runs.
#include "devices/kernel_choice.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "executor/passes/passes.h"
#include "graph/op.h"

namespace symx {

// The choice itself is devices/kernel_choice.h, which imperative calls share.
absl::Status ChooseKernels(BindState* s) {
  const ExecPlan& plan = s->plan;
  const IndexedGraph& g = *plan.graph;
  s->kernels.assign(g.num_nodes(), nullptr);
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    const Node& node = *g[nid].node;
    if (node.is_variable() || s->slot[nid] < 0) continue;
    const Context& c = plan.node_ctx[nid];
    std::vector<DType> dtypes;
    for (const IndexedGraph::Entry& in : g[nid].inputs)
      dtypes.push_back(plan.types[g.entry_id(in)]);
    for (int j = 0; j < node.num_outputs(); ++j) dtypes.push_back(plan.types[g.entry_id(nid, j)]);
    SYMX_ASSIGN_OR_RETURN(Device * device, GetDevice(RankView::Local(c)));
    const KernelInfo* k =
        ChooseKernel(node.op()->name(), *device, dtypes, s->bind.engine, NodeLabel(node));
    if (k == nullptr) {
      return absl::UnimplementedError(
          absl::StrCat(NodeLabel(node), " has no kernel for ", c.ToString()));
    }
    s->kernels[nid] = k;
  }
  return absl::OkStatus();
}

}  // namespace symx
