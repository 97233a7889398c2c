// InferShapesAndTypes: every entry's shape and dtype, and its size in bytes
// representable.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "executor/passes/passes.h"
#include "graph/error.h"
#include "graph/infer_graph.h"
#include "graph/op.h"

namespace symx {
namespace {

// Entries whose shape or dtype stayed unknown after inference, for the error;
// an op whose output shape depends on input values is named first and why.
absl::Status UnknownEntriesError(const IndexedGraph& g, const ShapeTable& shapes,
                                 const TypeTable& types) {
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    const Node& node = *g[nid].node;
    if (node.is_variable() || !node.op()->value_shape()) continue;
    for (int j = 0; j < node.num_outputs(); ++j) {
      if (shapes[g.entry_id(nid, j)].fully_known()) continue;
      return absl::InvalidArgumentError(absl::StrCat(
          "cannot bind: ", NodeLabel(node), " output ", j,
          " has a shape that depends on the "
          "values of its inputs (",
          shapes[g.entry_id(nid, j)].ToString(),
          "), and a bind plans memory from shapes alone. Run it imperatively (mx.nd) instead; "
          "MXNet 1.9.1 cannot bind it either"));
    }
  }
  std::vector<std::string> names;
  for (uint32_t nid = 0; nid < g.num_nodes() && names.size() < 10; ++nid) {
    const Node& node = *g[nid].node;
    for (int j = 0; j < node.num_outputs(); ++j) {
      uint32_t e = g.entry_id(nid, j);
      if (!shapes[e].fully_known() || types[e] == DType::kUnknown) {
        names.push_back(absl::StrCat(NodeLabel(node), " output ", j, ": shape ",
                                     shapes[e].ToString(), ", dtype ", DTypeName(types[e])));
      }
    }
  }
  return absl::InvalidArgumentError(
      absl::StrCat("cannot bind: shapes or dtypes stay unknown after inference for:\n",
                   absl::StrJoin(names, "\n")));
}

}  // namespace

// Seeded from the bound arrays (every rank's); head gradients take their
// output's shape once the forward part is inferred.
absl::Status InferShapesAndTypes(BindState* s) {
  ExecPlan& plan = s->plan;
  const IndexedGraph& g = *plan.graph;
  plan.shapes.assign(g.num_entries(), Shape());
  plan.types.assign(g.num_entries(), DType::kUnknown);
  for (size_t i = 0; i < s->arg_nodes.size(); ++i) {
    plan.shapes[g.entry_id(s->arg_nodes[i], 0)] = s->homes.args[i].shape;
    plan.types[g.entry_id(s->arg_nodes[i], 0)] = s->homes.args[i].dtype;
  }
  for (size_t i = 0; i < s->aux_nodes.size(); ++i) {
    plan.shapes[g.entry_id(s->aux_nodes[i], 0)] = s->homes.aux[i].shape;
    plan.types[g.entry_id(s->aux_nodes[i], 0)] = s->homes.aux[i].dtype;
  }
  size_t unknown = 0;
  SYMX_RETURN_IF_ERROR(InferShapes(g, &plan.shapes, &unknown));
  SYMX_RETURN_IF_ERROR(InferTypes(g, &plan.types, &unknown));
  bool any_head = false;
  for (size_t i = 0; i < s->head_vars.size(); ++i) {
    if (!s->head_vars[i] || !g.contains(s->head_vars[i].get())) continue;
    uint32_t he = g.entry_id(NodeEntry{s->head_vars[i], 0, 0});
    uint32_t oe = g.entry_id(s->full_outputs[i]);
    plan.shapes[he] = plan.shapes[oe];
    plan.types[he] = plan.types[oe];
    any_head = true;
  }
  if (any_head) {
    SYMX_RETURN_IF_ERROR(InferShapes(g, &plan.shapes, &unknown));
    SYMX_RETURN_IF_ERROR(InferTypes(g, &plan.types, &unknown));
  }
  for (size_t e = 0; e < g.num_entries(); ++e) {
    if (!plan.shapes[e].fully_known() || plan.types[e] == DType::kUnknown) {
      return UnknownEntriesError(g, plan.shapes, plan.types);
    }
  }
  // Every size must be representable before the planner adds them up.
  for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
    for (int j = 0; j < g[nid].node->num_outputs(); ++j) {
      uint32_t e = g.entry_id(nid, j);
      auto bytes = CheckedBytes(plan.shapes[e], plan.types[e]);
      if (!bytes.ok()) return Annotate(bytes.status(), NodeLabel(*g[nid].node));
    }
  }
  return absl::OkStatus();
}

}  // namespace symx
