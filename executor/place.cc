#include "executor/place.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "devices/device.h"
#include "graph/infer_graph.h"
#include "graph/op.h"
#include "graph/ops/transfer.h"

namespace symx {
namespace {

std::string NodeLabel(const Node& node) {
  if (node.is_variable()) return absl::StrCat("variable '", node.name(), "'");
  return absl::StrCat("operator '", node.name(), "' (", node.op()->name(), ")");
}

std::string GroupNames(const std::map<std::string, Context>& group2ctx) {
  std::vector<std::string> names;
  for (const auto& [name, ctx] : group2ctx) names.push_back(name);
  return absl::StrJoin(names, ", ");
}

}  // namespace

const std::string& CtxGroupOf(const Node& node) {
  static const std::string* const kNone = new std::string();
  auto it = node.attrs.dict.find("__ctx_group__");
  return it == node.attrs.dict.end() ? *kNone : it->second;
}

Context VariableContext(const Node& var, const Context& ctx,
                        const std::map<std::string, Context>& group2ctx) {
  auto it = group2ctx.find(CtxGroupOf(var));
  return it == group2ctx.end() ? ctx : it->second;
}

absl::Status CheckRankExists(const Context& ctx, const RankView& ranks, const std::string& what) {
  if (ranks.IsLocal(ctx) || ctx.rank < ranks.size) return absl::OkStatus();
  std::string job =
      ranks.size == 1 ? absl::StrCat("1 rank (start it with mpirun -np ", ctx.rank + 1, " or more)")
                      : absl::StrCat(ranks.size, " ranks (0 to ", ranks.size - 1, ")");
  return absl::NotFoundError(absl::StrCat(what, ": device ", ctx.ToString(), " belongs to rank ",
                                          ctx.rank, ", but this job has ", job));
}

absl::StatusOr<std::vector<Context>> Place(const IndexedGraph& g, const PlaceOptions& o) {
  const size_t n = g.num_nodes();
  std::vector<std::optional<Context>> where(n);
  std::set<Context> checked;
  // A context is usable once GetDevice has found (or created) it.
  auto check = [&](const Context& ctx, const std::string& what) -> absl::Status {
    if (checked.count(ctx)) return absl::OkStatus();
    if (!o.ranks.IsLocal(ctx)) {
      // Another rank's device: that rank checks that it exists.
      SYMX_RETURN_IF_ERROR(CheckRankExists(ctx, o.ranks, what));
      checked.insert(ctx);
      return absl::OkStatus();
    }
    absl::StatusOr<Device*> device = GetDevice(RankView::Local(ctx));
    if (!device.ok()) {
      return absl::Status(device.status().code(),
                          absl::StrCat(what, ": ", device.status().message()));
    }
    checked.insert(ctx);
    return absl::OkStatus();
  };
  SYMX_RETURN_IF_ERROR(
      check(o.default_ctx, absl::StrCat("the bind context ", o.default_ctx.ToString())));
  const bool grouped = !o.group2ctx.empty();

  // Forward sweep in topological order (inputs and control deps come first).
  for (uint32_t nid = 0; nid < n; ++nid) {
    const Node& node = *g[nid].node;
    if (node.is_variable()) {
      if (nid < o.var_ctx.size() && o.var_ctx[nid]) where[nid] = *o.var_ctx[nid];
      continue;
    }
    const std::string& group = CtxGroupOf(node);
    if (grouped && !group.empty()) {
      auto it = o.group2ctx.find(group);
      if (it == o.group2ctx.end()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "The device assignment not found for group ", group, ": ctx_group '", group, "' of ",
            NodeLabel(node), " is not in group2ctx (groups given: ", GroupNames(o.group2ctx), ")"));
      }
      SYMX_RETURN_IF_ERROR(check(it->second, absl::StrCat("group2ctx maps ctx_group '", group,
                                                          "' to ", it->second.ToString())));
      where[nid] = it->second;
      continue;
    }
    const Node* origin = nullptr;
    if (node.op()->is_backward() && !node.control_deps.empty()) {
      origin = node.control_deps[0].get();
    } else if (o.origins != nullptr) {
      auto it = o.origins->of.find(&node);
      if (it != o.origins->of.end()) origin = it->second;
    }
    if (origin != nullptr && g.contains(origin) && where[g.node_id(origin)]) {
      where[nid] = *where[g.node_id(origin)];
    } else {
      where[nid] = o.default_ctx;
    }
  }
  // Backward sweep: unbound variables go with a consumer.
  for (uint32_t nid = static_cast<uint32_t>(n); nid-- > 0;) {
    if (g[nid].node->is_variable()) continue;
    for (const IndexedGraph::Entry& in : g[nid].inputs) {
      if (!where[in.node_id]) where[in.node_id] = where[nid];
    }
  }
  std::vector<Context> out(n);
  for (uint32_t nid = 0; nid < n; ++nid) out[nid] = where[nid] ? *where[nid] : o.default_ctx;

  // Mutable state cannot be copied across devices: the op updating it would
  // update a copy, and a copy read elsewhere would race with the update.
  for (uint32_t nid = 0; nid < n; ++nid) {
    const Node& node = *g[nid].node;
    if (node.is_variable()) continue;
    std::vector<int> aux = node.op()->AuxInputs(node.attrs);
    for (size_t i = 0; i < g[nid].inputs.size(); ++i) {
      uint32_t src = g[nid].inputs[i].node_id;
      bool updates = std::find(aux.begin(), aux.end(), static_cast<int>(i)) != aux.end();
      if (!updates && !g.is_mutable_input(src)) continue;
      if (out[src] != out[nid]) {
        return absl::InvalidArgumentError(absl::StrCat(
            "mutable state cannot go across device: auxiliary state '", g[src].node->name(),
            "' lives on ", out[src].ToString(), " but ", NodeLabel(node),
            updates ? ", which updates it, runs on " : ", which reads it, runs on ",
            out[nid].ToString(), "; bind the state on ", out[nid].ToString(),
            " or give both the same ctx_group"));
      }
    }
  }
  return out;
}

absl::StatusOr<Partitioned> Partition(const IndexedGraph& g, const std::vector<NodeEntry>& outputs,
                                      const std::vector<Context>& node_ctx) {
  Partitioned result;
  std::vector<NodePtr> mapped(g.num_nodes());
  // (source entry id, destination) -> the copy node.
  std::map<std::pair<uint32_t, Context>, NodePtr> copies;
  std::map<uint32_t, int> copies_of_entry;
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    const IndexedGraph::NodeInfo& info = g[nid];
    const Context& ctx = node_ctx[nid];
    bool changed = false;
    std::vector<NodeEntry> inputs = info.node->inputs;
    for (size_t i = 0; i < info.inputs.size(); ++i) {
      const IndexedGraph::Entry& in = info.inputs[i];
      NodeEntry src{mapped[in.node_id], in.index, in.version};
      if (mapped[in.node_id] != g[in.node_id].node) changed = true;
      const Context& from = node_ctx[in.node_id];
      if (from != ctx) {
        uint32_t eid = g.entry_id(in);
        NodePtr& copy = copies[{eid, ctx}];
        if (!copy) {
          // MXNet's name, <source>_<output>_copy; later destinations get a number.
          int k = copies_of_entry[eid]++;
          std::string base = absl::StrCat(g[in.node_id].node->name(), "_", in.index);
          std::string suffix = k == 0 ? "" : absl::StrCat(k);
          if (from.rank == ctx.rank) {
            SYMX_ASSIGN_OR_RETURN(copy, MakeOpNode("_CrossDeviceCopy",
                                                   absl::StrCat(base, "_copy", suffix), {}, {src}));
            ++result.num_copies;
          } else {
            const std::string tag = absl::StrCat(result.num_transfers++);
            SYMX_ASSIGN_OR_RETURN(
                NodePtr send, MakeOpNode("_send", absl::StrCat(base, "_send", suffix),
                                         {{"peer", absl::StrCat(ctx.rank)}, {"tag", tag}}, {src}));
            result.node_ctx[send.get()] = from;
            SYMX_ASSIGN_OR_RETURN(copy,
                                  MakeOpNode("_recv", absl::StrCat(base, "_recv", suffix),
                                             {{"peer", absl::StrCat(from.rank)}, {"tag", tag}},
                                             {NodeEntry{send, 0, 0}}));
          }
          result.node_ctx[copy.get()] = ctx;
        }
        src = NodeEntry{copy, 0, 0};
        changed = true;
      }
      inputs[i] = src;
    }
    std::vector<NodePtr> deps = info.node->control_deps;
    for (size_t i = 0; i < info.control_deps.size() && i < deps.size(); ++i) {
      uint32_t dep = info.control_deps[i];
      if (mapped[dep] != deps[i]) {
        deps[i] = mapped[dep];
        changed = true;
      }
    }
    if (changed) {
      auto clone = std::make_shared<Node>(*info.node);
      clone->inputs = std::move(inputs);
      clone->control_deps = std::move(deps);
      mapped[nid] = clone;
    } else {
      mapped[nid] = info.node;
    }
    result.node_ctx[mapped[nid].get()] = ctx;
  }
  for (const NodeEntry& out : outputs) {
    uint32_t nid = g.node_id(out.node.get());
    result.outputs.push_back(NodeEntry{mapped[nid], out.index, out.version});
  }
  return result;
}

RankView ViewerRanks(const Context& ctx, const std::map<std::string, Context>& group2ctx) {
  int highest = ctx.rank;
  for (const auto& [group, c] : group2ctx) highest = std::max(highest, c.rank);
  RankView ranks;
  if (highest >= 1) {
    ranks.self = 0;
    ranks.size = highest + 1;
  }
  return ranks;
}

absl::StatusOr<std::vector<PlacedNode>> PlaceForward(
    const Symbol& symbol, const Context& bind_ctx,
    const std::map<std::string, Context>& bind_group2ctx,
    const std::map<std::string, Shape>& shapes, const RankView& ranks) {
  const Context ctx = ranks.FromOption(bind_ctx);
  std::map<std::string, Context> group2ctx;
  for (const auto& [group, c] : bind_group2ctx) group2ctx[group] = ranks.FromOption(c);
  IndexedGraph g0(symbol.outputs());
  PlaceOptions popt;
  popt.default_ctx = ctx;
  popt.group2ctx = group2ctx;
  popt.ranks = ranks;
  popt.var_ctx.resize(g0.num_nodes());
  for (uint32_t nid : g0.input_nodes()) {
    popt.var_ctx[nid] = VariableContext(*g0[nid].node, ctx, group2ctx);
  }
  SYMX_ASSIGN_OR_RETURN(std::vector<Context> where, Place(g0, popt));
  SYMX_ASSIGN_OR_RETURN(Partitioned parts, Partition(g0, symbol.outputs(), where));
  IndexedGraph g(parts.outputs);

  SYMX_ASSIGN_OR_RETURN(ShapeTable st, InitialShapes(g));
  SYMX_ASSIGN_OR_RETURN(TypeTable tt, InitialTypes(g));
  SYMX_RETURN_IF_ERROR(SeedInputs(g, shapes, std::nullopt, &st, &tt));
  size_t unknown = 0;
  SYMX_RETURN_IF_ERROR(InferShapes(g, &st, &unknown));
  SYMX_RETURN_IF_ERROR(InferTypes(g, &tt, &unknown));

  std::vector<PlacedNode> out(g.num_nodes());
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    const Node& node = *g[nid].node;
    PlacedNode& p = out[nid];
    p.name = node.name();
    p.op = node.is_variable() ? "" : node.op()->name();
    p.ctx = parts.node_ctx.at(&node);
    p.is_copy = p.op == "_CrossDeviceCopy";
    p.is_send = p.op == "_send";
    p.is_recv = p.op == "_recv";
    if (p.is_send || p.is_recv) {
      const TransferParam& t = Param<TransferParam>(node.attrs);
      p.peer = t.peer;
      p.tag = t.tag;
    }
    for (const IndexedGraph::Entry& in : g[nid].inputs) p.inputs.emplace_back(in.node_id, in.index);
    for (int j = 0; j < node.num_outputs(); ++j) {
      p.output_shapes.push_back(st[g.entry_id(nid, j)]);
      p.output_types.push_back(tt[g.entry_id(nid, j)]);
    }
  }
  return out;
}

}  // namespace symx
