#include "train/auto_stages.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <unordered_map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "graph/indexed_graph.h"
#include "graph/op.h"

namespace symx::train {
namespace {

// Unknown shapes (or dims) count as nothing.
double Elements(const Shape& s) {
  if (s.ndim() < 0) return 0;
  double n = 1;
  for (int64_t d : s.dims()) n *= d < 0 ? 0 : static_cast<double>(d);
  return n;
}

// Multiply-adds of one op, from its inputs' and outputs' shapes.
double OpFlops(const Node& node, const std::vector<Shape>& in, const std::vector<Shape>& out) {
  const std::string& op = node.op()->name();
  double out_elems = 0, in_elems = 0;
  for (const Shape& s : out) out_elems += Elements(s);
  for (const Shape& s : in) in_elems += Elements(s);
  auto dim = [](const Shape& s, int i) -> double {
    return s.ndim() > i ? static_cast<double>(s[i]) : 1.0;
  };
  if (op == "FullyConnected" && in.size() >= 2 && in[1].ndim() == 2) {
    return out_elems * dim(in[1], 1);  // each output: one row of the weight
  }
  if ((op == "Convolution" || op == "Deconvolution") && in.size() >= 2 && in[1].ndim() >= 3) {
    const double per_filter = Elements(in[1]) / std::max(1.0, dim(in[1], 0));
    // Deconvolution: each input element scatters through a filter.
    return op == "Convolution"
               ? out_elems * per_filter
               : Elements(in[0]) * per_filter * dim(in[1], 0) / std::max(1.0, dim(in[0], 1));
  }
  if ((op == "dot" || op == "batch_dot" || op == "_npi_matmul") && in.size() >= 2 &&
      in[0].ndim() >= 1) {
    return out_elems * dim(in[0], in[0].ndim() - 1);
  }
  if (op == "RNN" && in.size() >= 2 && in[0].ndim() == 3) {
    return Elements(in[1]) * dim(in[0], 0) * dim(in[0], 1);  // parameters x steps x batch
  }
  return out_elems + in_elems;  // memory-bound: every element read or written once
}

}  // namespace

double StagePlan::balance() const {
  if (stage_cost.empty()) return 1;
  const double mean =
      std::accumulate(stage_cost.begin(), stage_cost.end(), 0.0) / stage_cost.size();
  const double most = *std::max_element(stage_cost.begin(), stage_cost.end());
  return mean > 0 ? most / mean : 1;
}

std::string StagePlan::Describe() const {
  std::string text = absl::StrFormat("%d stages, balance %.2f (slowest / mean cost)",
                                     static_cast<int>(stage_cost.size()), balance());
  for (size_t s = 0; s < stage_cost.size(); ++s) {
    absl::StrAppendFormat(&text, "; stage%d from %s: %.3g MFLOP", static_cast<int>(s + 1),
                          first_ops[s], stage_flops[s] * 2e-6);
    if (s + 1 < stage_cost.size()) {
      absl::StrAppendFormat(&text, ", %.3g MB to the next", cut_bytes[s] / 1048576.0);
    }
  }
  if (replaced_groups) absl::StrAppend(&text, " (the model's own ctx_groups were replaced)");
  return text;
}

absl::StatusOr<StagePlan> AutoStages(const Symbol& net, const AutoStagesOptions& o) {
  if (o.stages < 1) {
    return absl::InvalidArgumentError(absl::StrCat("auto stages: ", o.stages, " stages"));
  }
  // Every output of every node, with its shape.
  const Symbol internals = net.GetInternals(/*hidden_outputs=*/true);
  const ShapeInference si = internals.InferShapePartial(o.shapes);
  if (!si.missing.empty() && !si.complete) {
    return absl::InvalidArgumentError(
        absl::StrCat("auto stages: the shapes do not infer (", si.missing, ")"));
  }
  std::unordered_map<const Node*, std::vector<Shape>> shapes;
  for (size_t k = 0; k < internals.outputs().size(); ++k) {
    const NodeEntry& e = internals.outputs()[k];
    auto& v = shapes[e.node.get()];
    if (v.size() <= e.index) v.resize(e.index + 1);
    v[e.index] = si.out_shapes[k];
  }
  const IndexedGraph g(net.outputs());
  std::vector<uint32_t> ops;  // op node ids in topological order
  std::vector<int> position(g.num_nodes(), -1);
  for (uint32_t id = 0; id < g.num_nodes(); ++id) {
    if (g[id].node->is_variable()) continue;
    position[id] = static_cast<int>(ops.size());
    ops.push_back(id);
  }
  const int n = static_cast<int>(ops.size()), S = o.stages;
  if (n < S) {
    return absl::InvalidArgumentError(
        absl::StrCat("auto stages: the model has ", n, " ops, fewer than the ", S, " stages"));
  }
  StagePlan plan;
  std::vector<double> flops(n), prefix(n + 1, 0);
  for (int i = 0; i < n; ++i) {
    const auto& info = g[ops[i]];
    std::vector<Shape> in;
    for (const auto& e : info.inputs) {
      const auto& v = shapes[g[e.node_id].node.get()];
      in.push_back(e.index < v.size() ? v[e.index] : Shape());
    }
    flops[i] = OpFlops(*info.node, in, shapes[info.node.get()]);
    prefix[i + 1] = prefix[i] + flops[i];
    if (info.node->attrs.dict.count("__ctx_group__")) plan.replaced_groups = true;
  }
  // Bytes crossing the cut after op i (0..n-2): each op output read by a
  // later op, counted once per cut it spans (forward and gradient: x2).
  std::vector<double> diff(n + 1, 0);
  {
    std::unordered_map<uint64_t, int> last_reader;
    for (int i = 0; i < n; ++i) {
      for (const auto& e : g[ops[i]].inputs) {
        if (position[e.node_id] < 0) continue;  // a variable: lives with its reader
        const uint64_t key = (uint64_t{e.node_id} << 20) | e.index;
        last_reader[key] = std::max(last_reader[key], i);
      }
    }
    for (const auto& [key, reader] : last_reader) {
      const uint32_t producer = static_cast<uint32_t>(key >> 20);
      const uint32_t index = static_cast<uint32_t>(key & 0xFFFFF);
      const auto& v = shapes[g[producer].node.get()];
      const double bytes = 2 * 4 * (index < v.size() ? Elements(v[index]) : 0);
      diff[position[producer]] += bytes;  // cuts position[producer] .. reader-1
      diff[reader] -= bytes;
    }
  }
  std::vector<double> cut(n, 0);  // cut[i]: after op i
  double running = 0;
  for (int i = 0; i < n; ++i) cut[i] = (running += diff[i]);
  // Stage (j, i]: ops j..i-1 (0-based, half open [j, i)).
  auto cost = [&](int j, int i) {
    double c = prefix[i] - prefix[j];
    if (j > 0) c += o.flops_per_byte * cut[j - 1];
    if (i < n) c += o.flops_per_byte * cut[i - 1];
    return c;
  };
  const double inf = std::numeric_limits<double>::infinity();
  // best[k][i]: the least max cost of ops [0, i) in k stages; bytes: its
  // total cut bytes (the tie-break); from: the previous cut.
  std::vector<std::vector<double>> best(S + 1, std::vector<double>(n + 1, inf)),
      bytes(S + 1, std::vector<double>(n + 1, inf));
  std::vector<std::vector<int>> from(S + 1, std::vector<int>(n + 1, -1));
  best[0][0] = 0;
  bytes[0][0] = 0;
  for (int k = 1; k <= S; ++k) {
    for (int i = k; i <= n - (S - k); ++i) {
      for (int j = k - 1; j < i; ++j) {
        if (best[k - 1][j] == inf) continue;
        const double m = std::max(best[k - 1][j], cost(j, i));
        const double b = bytes[k - 1][j] + (j > 0 ? cut[j - 1] : 0);
        if (m < best[k][i] || (m == best[k][i] && b < bytes[k][i])) {
          best[k][i] = m;
          bytes[k][i] = b;
          from[k][i] = j;
        }
      }
    }
  }
  std::vector<int> starts(S + 1);
  starts[S] = n;
  for (int k = S; k >= 1; --k) starts[k - 1] = from[k][starts[k]];
  std::vector<int> stage_of(g.num_nodes(), -1);
  for (int k = 0; k < S; ++k) {
    plan.stage_flops.push_back(prefix[starts[k + 1]] - prefix[starts[k]]);
    plan.stage_cost.push_back(cost(starts[k], starts[k + 1]));
    plan.first_ops.push_back(g[ops[starts[k]]].node->name());
    if (k + 1 < S) plan.cut_bytes.push_back(cut[starts[k + 1] - 1]);
    for (int i = starts[k]; i < starts[k + 1]; ++i) stage_of[ops[i]] = k;
  }
  // Variables: their first reader's stage.
  for (int i = 0; i < n; ++i) {
    for (const auto& e : g[ops[i]].inputs) {
      if (stage_of[e.node_id] < 0) stage_of[e.node_id] = stage_of[ops[i]];
    }
  }
  // The same graph with the groups written in (nodes are immutable: copies).
  std::vector<NodePtr> copies(g.num_nodes());
  std::unordered_map<const Node*, NodePtr> copy_of;
  for (uint32_t id = 0; id < g.num_nodes(); ++id) {
    auto node = std::make_shared<Node>(*g[id].node);
    for (NodeEntry& e : node->inputs) e.node = copy_of.at(e.node.get());
    for (NodePtr& d : node->control_deps) {
      auto it = copy_of.find(d.get());
      if (it != copy_of.end()) d = it->second;
    }
    if (stage_of[id] >= 0) {
      node->attrs.dict["__ctx_group__"] = absl::StrCat("stage", stage_of[id] + 1);
    }
    copy_of[g[id].node.get()] = node;
  }
  std::vector<NodeEntry> outputs = net.outputs();
  for (NodeEntry& e : outputs) e.node = copy_of.at(e.node.get());
  plan.symbol = Symbol(std::move(outputs));
  return plan;
}

}  // namespace symx::train
