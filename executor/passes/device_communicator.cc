// ConnectDeviceCommunicator: the communicators a cross-rank plan's transfers
// use, and the bind-time channel the _send/_recv kernels prepare with.
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <vector>

#include "executor/passes/passes.h"
#include "graph/op.h"

namespace symx {
namespace {

// The device communicator for a cross-rank bind's transfers (NCCL between
// GPUs), or null for transfers through host copies over the bind's
// communicator. Every rank decides alike from the whole graph: a device
// communicator when every _send/_recv of the job runs on a device of one
// kind that has a registered factory, one device per rank, on every rank.
// Collective when it says yes. A device shared by two ranks (both on one
// GPU) falls back to host copies, saying so once.
absl::StatusOr<std::shared_ptr<Communicator>> MakeDeviceCommunicator(
    const IndexedGraph& g, const std::vector<Context>& node_ctx, const RankView& ranks,
    const ResolvedBind& bind) {
  std::map<int, std::set<Context>> per_rank;
  std::optional<DeviceType> type;
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    const Node& node = *g[nid].node;
    if (node.is_variable() || (node.op()->name() != "_send" && node.op()->name() != "_recv")) {
      continue;
    }
    const Context& c = node_ctx[nid];
    if (c.type == DeviceType::kCPU || (type && *type != c.type)) return nullptr;
    type = c.type;
    per_rank[c.rank].insert(RankView::Local(c));
  }
  if (!type || static_cast<int>(per_rank.size()) != ranks.size) return nullptr;
  for (const auto& [rank, devices] : per_rank) {
    if (devices.size() != 1) return nullptr;
  }
  const DeviceCommunicatorFactory* factory = FindDeviceCommunicator(*type);
  if (factory == nullptr) return nullptr;
  // The factory's collective steps run on the bind's communicator: first
  // every rank must have got this far (a rank that failed since the last
  // step is heard of here, not inside the factory's own steps), and after
  // it every rank learns whether every other one has a communicator.
  SYMX_RETURN_IF_ERROR(bind.rendezvous->Exchange(absl::OkStatus(), "").status());
  absl::StatusOr<std::shared_ptr<Communicator>> made =
      (*factory)(*per_rank.at(ranks.self).begin(), bind.comm, bind.comm_timeout);
  // FailedPrecondition: a reason every rank found alike to use host copies.
  const bool fall_back = made.status().code() == absl::StatusCode::kFailedPrecondition;
  SYMX_RETURN_IF_ERROR(
      bind.rendezvous->Exchange(fall_back ? absl::OkStatus() : made.status(), "").status());
  if (fall_back) {
    static std::once_flag said;
    std::call_once(said, [&] {
      std::cerr << "symx: cross-rank transfers go through host copies: " << made.status().message()
                << "\n";
    });
    return nullptr;
  }
  return made;
}

}  // namespace

absl::Status ConnectDeviceCommunicator(BindState* s) {
  ExecPlan& plan = s->plan;
  plan.comm = s->bind.comm;
  plan.comm_timeout = s->bind.comm_timeout;
  if (s->ranks().cross_rank()) {
    SYMX_ASSIGN_OR_RETURN(plan.device_comm,
                          MakeDeviceCommunicator(*plan.graph, plan.node_ctx, s->ranks(), s->bind));
  }
  // No pending sends nor cancel flag: those are a run's (RunState).
  plan.channel =
      RankChannel{plan.comm.get(), plan.device_comm.get(), plan.comm_timeout, nullptr, nullptr};
  return absl::OkStatus();
}

}  // namespace symx
