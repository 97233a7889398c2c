#include "train/pipeline.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "executor/place.h"
#include "graph/indexed_graph.h"

namespace symx::train {

absl::StatusOr<PipelineSchedule> ParsePipelineSchedule(absl::string_view name) {
  if (name == "gpipe") return PipelineSchedule::kGpipe;
  if (name == "1f1b") return PipelineSchedule::kOneFOneB;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown pipeline schedule '", name, "': use gpipe or 1f1b"));
}

const char* PipelineScheduleName(PipelineSchedule schedule) {
  return schedule == PipelineSchedule::kGpipe ? "gpipe" : "1f1b";
}

std::vector<PipelineOp> StageSchedule(PipelineSchedule schedule, int stages, int stage,
                                      int microbatches) {
  std::vector<PipelineOp> ops;
  const int m = microbatches;
  if (schedule == PipelineSchedule::kGpipe) {
    for (int i = 0; i < m; ++i) ops.push_back({true, i});
    for (int i = 0; i < m; ++i) ops.push_back({false, i});
    return ops;
  }
  const int warmup = std::min(stages - stage - 1, m);
  for (int i = 0; i < warmup; ++i) ops.push_back({true, i});
  for (int i = 0; i < m - warmup; ++i) {
    ops.push_back({true, warmup + i});
    ops.push_back({false, i});
  }
  for (int i = m - warmup; i < m; ++i) ops.push_back({false, i});
  return ops;
}

int ActivationSlots(PipelineSchedule schedule, int stages, int microbatches) {
  return schedule == PipelineSchedule::kGpipe ? microbatches : std::min(microbatches, stages);
}

absl::StatusOr<std::vector<int>> PipelineStages(const Symbol& net, const Context& ctx,
                                                const std::map<std::string, Context>& group2ctx,
                                                bool require_chain) {
  const IndexedGraph g(net.outputs());
  // Each op's rank (-1 for variables, which live where their consumers do).
  std::vector<int> rank_of(g.num_nodes(), -1);
  std::vector<int> order;
  for (uint32_t id = 0; id < g.num_nodes(); ++id) {
    const Node& node = *g[id].node;
    if (node.op() == nullptr) continue;
    auto it = group2ctx.find(CtxGroupOf(node));
    const Context c = it == group2ctx.end() ? ctx : it->second;
    rank_of[id] = std::max(c.rank, 0);
    if (std::find(order.begin(), order.end(), rank_of[id]) == order.end()) {
      order.push_back(rank_of[id]);
    }
  }
  if (!require_chain) return order;
  auto stage = [&](int rank) {
    return static_cast<int>(std::find(order.begin(), order.end(), rank) - order.begin());
  };
  for (uint32_t id = 0; id < g.num_nodes(); ++id) {
    if (rank_of[id] < 0) continue;
    for (const IndexedGraph::Entry& in : g[id].inputs) {
      const int from = rank_of[in.node_id];
      if (from < 0 || from == rank_of[id]) continue;
      if (stage(from) + 1 != stage(rank_of[id])) {
        return absl::InvalidArgumentError(absl::StrCat(
            "1f1b needs each stage to read only from the stage before it, but op '",
            g[id].node->name(), "' (rank ", rank_of[id], ", stage ", stage(rank_of[id]),
            ") reads '", g[in.node_id].node->name(), "' (rank ", from, ", stage ", stage(from),
            "); use --schedule gpipe, or regroup the model"));
      }
    }
  }
  return order;
}

}  // namespace symx::train
