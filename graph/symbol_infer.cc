// Symbol::InferShape / InferType: the user-facing wrappers around the graph
// inference passes (graph/infer_graph.h), with MXNet's argument conventions.
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/error.h"
#include "graph/indexed_graph.h"
#include "graph/infer_graph.h"
#include "graph/symbol.h"

namespace symx {
namespace {

constexpr size_t kMaxListed = 10;

std::string Candidates(const IndexedGraph& g) {
  std::vector<std::string> lines;
  size_t i = 0;
  for (uint32_t nid : g.input_nodes()) {
    lines.push_back(absl::StrCat("\t[", i++, "]", g[nid].node->name()));
  }
  return absl::StrJoin(lines, "\n");
}

// Node ids of the inputs named `name` (a name may repeat in a graph).
std::vector<uint32_t> FindInputs(const IndexedGraph& g, const std::string& name) {
  std::vector<uint32_t> out;
  for (uint32_t nid : g.input_nodes()) {
    if (g[nid].node->name() == name) out.push_back(nid);
  }
  return out;
}

template <typename T>
void SeedByName(const IndexedGraph& g, const std::map<std::string, T>& known, const char* what,
                std::vector<T>* table, T (*convert)(const T&)) {
  for (const auto& [name, value] : known) {
    std::vector<uint32_t> ids = FindInputs(g, name);
    if (ids.empty()) {
      throw Error(absl::InvalidArgumentError(
          absl::StrCat(what, ": '", name,
                       "' is not an input of the symbol.\nCandidate arguments:\n", Candidates(g))));
    }
    for (uint32_t nid : ids) (*table)[g.entry_id(nid, 0)] = convert(value);
  }
}

template <typename T>
void SeedByPosition(const IndexedGraph& g, const std::vector<T>& known, const char* what,
                    std::vector<T>* table, T (*convert)(const T&)) {
  std::vector<uint32_t> args = g.arg_nodes();
  if (known.size() > args.size()) {
    throw Error(absl::InvalidArgumentError(
        absl::StrCat(what, ": ", known.size(), " positional values given, but the symbol has ",
                     args.size(), " arguments")));
  }
  for (size_t i = 0; i < known.size(); ++i) (*table)[g.entry_id(args[i], 0)] = convert(known[i]);
}

// A given shape follows MXNet's convention: 0 is an unknown dim.
Shape FromUser(const Shape& s) { return s.ndim_known() ? Shape::FromLegacy(s.dims()) : s; }
DType SameType(const DType& t) { return t; }

std::string LegacyText(const Shape& s) { return s.ToTupleString(); }
std::string LegacyText(DType t) { return DTypeName(t); }
bool Complete(const Shape& s) { return s.fully_known(); }
bool Complete(DType t) { return t != DType::kUnknown; }

template <typename T, typename Result>
void Collect(const IndexedGraph& g, const std::vector<T>& table, size_t num_unknown,
             const char* missing_header, bool partial, Result* r, std::vector<T> Result::*args,
             std::vector<T> Result::*outs, std::vector<T> Result::*aux) {
  for (uint32_t nid : g.arg_nodes()) (r->*args).push_back(table[g.entry_id(nid, 0)]);
  for (uint32_t nid : g.aux_nodes()) (r->*aux).push_back(table[g.entry_id(nid, 0)]);
  for (const IndexedGraph::Entry& e : g.outputs()) (r->*outs).push_back(table[g.entry_id(e)]);
  r->complete = num_unknown == 0;
  if (r->complete) return;
  std::vector<std::string> lines;
  for (uint32_t nid : g.input_nodes()) {
    const T& v = table[g.entry_id(nid, 0)];
    if (Complete(v) || lines.size() >= kMaxListed) continue;
    lines.push_back(absl::StrCat("\t", g[nid].node->name(), ": ", LegacyText(v)));
  }
  r->missing = absl::StrCat(missing_header, absl::StrJoin(lines, "\n"));
  if (!partial) {
    (r->*args).clear();
    (r->*outs).clear();
    (r->*aux).clear();
  }
}

constexpr char kShapeMissing[] =
    "Cannot decide shape for the following arguments (0s in shape means unknown dimensions). "
    "Consider providing them as input:\n";
constexpr char kTypeMissing[] =
    "Cannot decide type for the following arguments. Consider providing them as input:\n";

template <typename Seed>
ShapeInference RunShapes(const std::vector<NodeEntry>& outputs, bool partial, const Seed& seed) {
  IndexedGraph g(outputs);
  ShapeTable table = ValueOrThrow(InitialShapes(g));
  seed(g, &table);
  size_t unknown = 0;
  ThrowIfError(InferShapes(g, &table, &unknown));
  ShapeInference r;
  Collect(g, table, unknown, kShapeMissing, partial, &r, &ShapeInference::arg_shapes,
          &ShapeInference::out_shapes, &ShapeInference::aux_shapes);
  return r;
}

TypeInference RunTypes(const std::vector<NodeEntry>& outputs, bool partial,
                       const std::map<std::string, DType>& known) {
  IndexedGraph g(outputs);
  TypeTable table = ValueOrThrow(InitialTypes(g));
  SeedByName(g, known, "InferType", &table, &SameType);
  size_t unknown = 0;
  ThrowIfError(InferTypes(g, &table, &unknown));
  TypeInference r;
  Collect(g, table, unknown, kTypeMissing, partial, &r, &TypeInference::arg_types,
          &TypeInference::out_types, &TypeInference::aux_types);
  return r;
}

}  // namespace

ShapeInference Symbol::InferShape(const std::map<std::string, Shape>& known) const {
  return RunShapes(outputs_, false, [&](const IndexedGraph& g, ShapeTable* t) {
    SeedByName(g, known, "InferShape", t, &FromUser);
  });
}

ShapeInference Symbol::InferShape(const std::vector<Shape>& positional) const {
  return RunShapes(outputs_, false, [&](const IndexedGraph& g, ShapeTable* t) {
    SeedByPosition(g, positional, "InferShape", t, &FromUser);
  });
}

ShapeInference Symbol::InferShapePartial(const std::map<std::string, Shape>& known) const {
  return RunShapes(outputs_, true, [&](const IndexedGraph& g, ShapeTable* t) {
    SeedByName(g, known, "InferShape", t, &FromUser);
  });
}

ShapeInference Symbol::InferShapePartial(const std::vector<Shape>& positional) const {
  return RunShapes(outputs_, true, [&](const IndexedGraph& g, ShapeTable* t) {
    SeedByPosition(g, positional, "InferShape", t, &FromUser);
  });
}

TypeInference Symbol::InferType(const std::map<std::string, DType>& known) const {
  return RunTypes(outputs_, false, known);
}

TypeInference Symbol::InferTypePartial(const std::map<std::string, DType>& known) const {
  return RunTypes(outputs_, true, known);
}

}  // namespace symx
