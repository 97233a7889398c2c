// ChooseKernels: the kernel each local op node runs.
#include <iostream>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/half_widening.h"
#include "devices/host_fallback.h"
#include "executor/passes/passes.h"
#include "graph/op.h"

namespace symx {
namespace {

// Says once per process and (op, device type) that an op runs through the
// host fallback: a model that is slow on a GPU for this reason should say so.
void NoteHostFallback(const Node& node, const Context& c) {
  static std::mutex mu;
  static std::set<std::pair<std::string, DeviceType>>* noted =
      new std::set<std::pair<std::string, DeviceType>>();
  std::lock_guard<std::mutex> lock(mu);
  if (!noted->emplace(node.op()->name(), c.type).second) return;
  std::cerr << "symx: no " << node.op()->name() << " kernel for " << c.ToString() << ": "
            << NodeLabel(node) << " (and every " << node.op()->name()
            << " node on such a device) runs its CPU kernel on host copies of its inputs "
               "and outputs, each call; SYMX_HOST_FALLBACK=0 makes this a Bind error\n";
}

}  // namespace

// The device's kernel; on CPU a widening one when the op's kernel is
// float-only and an entry is half precision; on a device without host memory
// and no kernel, the host fallback when the options allow it.
absl::Status ChooseKernels(BindState* s) {
  const ExecPlan& plan = s->plan;
  const IndexedGraph& g = *plan.graph;
  s->kernels.assign(g.num_nodes(), nullptr);
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    const Node& node = *g[nid].node;
    if (node.is_variable() || s->slot[nid] < 0) continue;
    const Context& c = plan.node_ctx[nid];
    const KernelInfo* k = KernelRegistry::Find(node.op()->name(), c.type);
    if (k != nullptr && c.type == DeviceType::kCPU) {
      std::vector<DType> dtypes;
      for (const IndexedGraph::Entry& in : g[nid].inputs)
        dtypes.push_back(plan.types[g.entry_id(in)]);
      for (int j = 0; j < node.num_outputs(); ++j) dtypes.push_back(plan.types[g.entry_id(nid, j)]);
      if (const KernelInfo* wide = HalfWideningKernel(node.op()->name(), dtypes)) k = wide;
    }
    if (k == nullptr) {
      SYMX_ASSIGN_OR_RETURN(Device * device, GetDevice(RankView::Local(c)));
      if (!device->host_memory() && s->bind.engine.host_fallback) {
        k = HostFallbackKernel(node.op()->name());
        if (k != nullptr) NoteHostFallback(node, c);
      }
    }
    if (k == nullptr) {
      return absl::UnimplementedError(
          absl::StrCat(NodeLabel(node), " has no kernel for ", c.ToString()));
    }
    s->kernels[nid] = k;
  }
  return absl::OkStatus();
}

}  // namespace symx
