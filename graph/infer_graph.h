// Shape and dtype inference over a whole graph.
//
// Tables are indexed by IndexedGraph entry id. Inference alternates forward and
// backward sweeps over the nodes, running each op's inference function, until the
// number of unknown entries stops shrinking (MXNet's fixed point). Backward op
// nodes take their output shapes/dtypes from their forward node's inputs.
// Errors name the node and op: "Error in operator fc1 (FullyConnected): ...".
#ifndef SYMX_GRAPH_INFER_GRAPH_H_
#define SYMX_GRAPH_INFER_GRAPH_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "graph/dtype.h"
#include "graph/indexed_graph.h"
#include "graph/shape.h"

namespace symx {

using ShapeTable = std::vector<Shape>;  // by entry id
using TypeTable = std::vector<DType>;   // by entry id

// Fills `shapes` (sized num_entries, holding what is known) as far as possible.
// Returns the number of entries still not fully known in `*num_unknown`.
absl::Status InferShapes(const IndexedGraph& graph, ShapeTable* shapes, size_t* num_unknown);
absl::Status InferTypes(const IndexedGraph& graph, TypeTable* types, size_t* num_unknown);

// Initial tables: each variable's `__shape__` / `__dtype__` hint where present
// (a malformed hint is an error naming the variable).
absl::StatusOr<ShapeTable> InitialShapes(const IndexedGraph& graph);
absl::StatusOr<TypeTable> InitialTypes(const IndexedGraph& graph);

// Puts the user's values on top of initial tables: shapes by input name
// (MXNet's convention: 0 is an unknown dim) and dtypes by input name; without
// `types`, arguments whose dtype is still unknown become float32. A name that
// is not an input is an error listing the inputs (bind-style, Status-based;
// Symbol::InferShape keeps its own MXNet-worded errors).
absl::Status SeedInputs(const IndexedGraph& graph, const std::map<std::string, Shape>& shapes,
                        const std::optional<std::map<std::string, DType>>& types,
                        ShapeTable* shape_table, TypeTable* type_table);

}  // namespace symx

#endif  // SYMX_GRAPH_INFER_GRAPH_H_
