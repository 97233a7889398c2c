#include "graph/infer_graph.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/error.h"
#include "graph/op.h"

namespace symx {
namespace {

bool Known(const Shape& s) { return s.fully_known(); }
bool Known(DType t) { return t != DType::kUnknown; }

bool Merge(Shape* dst, const Shape& src) { return MergeShape(dst, src); }
bool Merge(DType* dst, DType src) {
  if (src == DType::kUnknown) return true;
  if (*dst == DType::kUnknown) {
    *dst = src;
    return true;
  }
  return *dst == src;
}

std::string Describe(const Shape& s) { return s.ToString(); }
std::string Describe(DType t) { return DTypeName(t); }

std::string Where(const Node& node) {
  return absl::StrCat("Error in operator ", node.name(), " (", node.op()->name(), ")");
}

// Writes `value` into table slot `entry`, which must agree with what is there.
template <typename T>
absl::Status WriteBack(std::vector<T>* table, uint32_t entry, const T& value, const Node& node,
                       const std::string& what) {
  T merged = (*table)[entry];
  if (!Merge(&merged, value)) {
    return absl::InvalidArgumentError(absl::StrCat(Where(node), ": inconsistent ", what,
                                                   ", Provided = ", Describe((*table)[entry]),
                                                   ", inferred = ", Describe(value)));
  }
  (*table)[entry] = merged;
  return absl::OkStatus();
}

template <typename T, typename Fn>
absl::Status InferNode(const IndexedGraph& g, uint32_t nid, std::vector<T>* table,
                       const Fn& op_fn) {
  const IndexedGraph::NodeInfo& info = g[nid];
  const Node& node = *info.node;
  if (node.is_variable()) return absl::OkStatus();
  const Op* op = node.op();
  std::vector<T> in, out;
  for (const IndexedGraph::Entry& e : info.inputs) in.push_back((*table)[g.entry_id(e)]);
  for (int i = 0; i < node.num_outputs(); ++i) out.push_back((*table)[g.entry_id(nid, i)]);

  if (op->is_backward() && !info.control_deps.empty()) {
    // Output i of a backward node is the gradient of forward input i.
    const IndexedGraph::NodeInfo& fwd = g[info.control_deps[0]];
    for (size_t i = 0; i < out.size() && i < fwd.inputs.size(); ++i) {
      uint32_t fwd_entry = g.entry_id(fwd.inputs[i]);
      if (!Merge(&out[i], (*table)[fwd_entry])) {
        return absl::InvalidArgumentError(absl::StrCat(Where(node), ": gradient ", i, " is ",
                                                       Describe(out[i]), " but forward input is ",
                                                       Describe((*table)[fwd_entry])));
      }
      SYMX_RETURN_IF_ERROR(WriteBack(table, fwd_entry, out[i], node, "forward input"));
    }
  }
  if (op_fn(op)) {
    absl::Status s = op_fn(op)(node.attrs, &in, &out);
    if (!s.ok()) return Annotate(s, Where(node));
  }
  for (size_t i = 0; i < in.size(); ++i) {
    SYMX_RETURN_IF_ERROR(
        WriteBack(table, g.entry_id(info.inputs[i]), in[i], node, absl::StrCat("input ", i)));
  }
  for (size_t i = 0; i < out.size(); ++i) {
    SYMX_RETURN_IF_ERROR(WriteBack(table, g.entry_id(nid, static_cast<uint32_t>(i)), out[i], node,
                                   absl::StrCat("output ", i)));
  }
  return absl::OkStatus();
}

template <typename T, typename Fn>
absl::Status FixedPoint(const IndexedGraph& g, std::vector<T>* table, size_t* num_unknown,
                        const Fn& op_fn) {
  auto count = [&] {
    size_t n = 0;
    for (const T& v : *table) n += Known(v) ? 0 : 1;
    return n;
  };
  size_t before = count();
  while (true) {
    for (uint32_t nid = 0; nid < g.num_nodes(); ++nid) {
      SYMX_RETURN_IF_ERROR(InferNode(g, nid, table, op_fn));
    }
    for (uint32_t nid = static_cast<uint32_t>(g.num_nodes()); nid-- > 0;) {
      SYMX_RETURN_IF_ERROR(InferNode(g, nid, table, op_fn));
    }
    size_t after = count();
    if (after == 0 || after >= before) {
      *num_unknown = after;
      return absl::OkStatus();
    }
    before = after;
  }
}

}  // namespace

absl::Status InferShapes(const IndexedGraph& graph, ShapeTable* shapes, size_t* num_unknown) {
  return FixedPoint(graph, shapes, num_unknown,
                    [](const Op* op) -> const InferShapeFn& { return op->infer_shape(); });
}

absl::Status InferTypes(const IndexedGraph& graph, TypeTable* types, size_t* num_unknown) {
  return FixedPoint(graph, types, num_unknown,
                    [](const Op* op) -> const InferTypeFn& { return op->infer_type(); });
}

absl::StatusOr<ShapeTable> InitialShapes(const IndexedGraph& graph) {
  ShapeTable table(graph.num_entries());
  for (uint32_t nid : graph.input_nodes()) {
    const Node& node = *graph[nid].node;
    auto it = node.attrs.dict.find("__shape__");
    if (it == node.attrs.dict.end()) continue;
    absl::StatusOr<std::vector<int64_t>> dims = ParseIntTuple(it->second);
    if (!dims.ok()) {
      return Annotate(dims.status(),
                      absl::StrCat("variable '", node.name(), "' attribute __shape__"));
    }
    table[graph.entry_id(nid, 0)] = Shape::FromLegacy(*dims);
  }
  return table;
}

absl::StatusOr<TypeTable> InitialTypes(const IndexedGraph& graph) {
  TypeTable table(graph.num_entries(), DType::kUnknown);
  for (uint32_t nid : graph.input_nodes()) {
    const Node& node = *graph[nid].node;
    auto it = node.attrs.dict.find("__dtype__");
    if (it == node.attrs.dict.end()) continue;
    absl::StatusOr<DType> t = ParseDType(it->second);
    if (!t.ok()) {
      return Annotate(t.status(), absl::StrCat("variable '", node.name(), "' attribute __dtype__"));
    }
    table[graph.entry_id(nid, 0)] = *t;
  }
  return table;
}

absl::Status SeedInputs(const IndexedGraph& graph, const std::map<std::string, Shape>& shapes,
                        const std::optional<std::map<std::string, DType>>& types,
                        ShapeTable* shape_table, TypeTable* type_table) {
  std::map<std::string, std::vector<uint32_t>> inputs;  // name -> entry ids
  for (uint32_t nid : graph.input_nodes()) {
    inputs[graph[nid].node->name()].push_back(graph.entry_id(nid, 0));
  }
  auto not_an_input = [&](const std::string& name, const char* what) {
    std::vector<std::string> names;
    for (const auto& [n, ids] : inputs) names.push_back(n);
    return absl::InvalidArgumentError(absl::StrCat(what, " given for '", name,
                                                   "', which is not an input of the symbol "
                                                   "(inputs: ",
                                                   absl::StrJoin(names, ", "), ")"));
  };
  for (const auto& [name, shape] : shapes) {
    auto it = inputs.find(name);
    if (it == inputs.end()) return not_an_input(name, "a shape");
    for (uint32_t e : it->second) {
      (*shape_table)[e] = shape.ndim_known() ? Shape::FromLegacy(shape.dims()) : shape;
    }
  }
  if (types) {
    for (const auto& [name, dtype] : *types) {
      auto it = inputs.find(name);
      if (it == inputs.end()) return not_an_input(name, "a dtype");
      for (uint32_t e : it->second) (*type_table)[e] = dtype;
    }
  } else {
    for (uint32_t nid : graph.arg_nodes()) {
      DType& t = (*type_table)[graph.entry_id(nid, 0)];
      if (t == DType::kUnknown) t = DType::kFloat32;
    }
  }
  return absl::OkStatus();
}

}  // namespace symx
