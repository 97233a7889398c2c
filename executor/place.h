// Place and Partition: which device runs each node of a bound graph, and the
// copy nodes that carry values between devices.
//
// Place follows MXNet's rules (notes/mxnet-semantics.md §4) with DESIGN.md's
// change for ungrouped nodes:
//   - with an empty group2ctx, ctx_group attributes are ignored;
//   - an op in a ctx_group runs on group2ctx[group] (a group missing from the
//     map is an error naming the group and the node);
//   - a backward node runs with the forward node it differentiates
//     (control_deps[0], or the Gradient pass's origin map); the sum of an
//     entry's gradients runs with the entry's producer;
//   - any other op runs on the bind context;
//   - a variable is where its array lives; unbound variables (head gradients)
//     go to the device of a consumer (the last in topological order).
// An op that mutates an auxiliary state must run where the state lives.
//
// Partition inserts one _CrossDeviceCopy per (source entry, destination
// device), placed on the destination; nodes whose inputs change are cloned
// (Nodes are immutable), everything else is shared with the input graph.
#ifndef SYMX_EXECUTOR_PLACE_H_
#define SYMX_EXECUTOR_PLACE_H_

#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/status/statusor.h"
#include "devices/context.h"
#include "graph/gradient.h"
#include "graph/indexed_graph.h"
#include "graph/symbol.h"

namespace symx {

// The node's ctx_group attribute, or "" when it has none.
const std::string& CtxGroupOf(const Node& node);

// Where SimpleBind allocates a variable: its group's context when group2ctx
// maps it, else `ctx`.
Context VariableContext(const Node& var, const Context& ctx,
                        const std::map<std::string, Context>& group2ctx);

struct PlaceOptions {
  Context default_ctx;
  std::map<std::string, Context> group2ctx;
  // Per node id: where a variable's array lives (nullopt: not bound yet).
  std::vector<std::optional<Context>> var_ctx;
  const GradientOrigins* origins = nullptr;
};

// One context per node id. Every context returned exists in this process.
absl::StatusOr<std::vector<Context>> Place(const IndexedGraph& g, const PlaceOptions& options);

struct Partitioned {
  std::vector<NodeEntry> outputs;  // the given outputs, in the rewritten graph
  std::unordered_map<const Node*, Context> node_ctx;  // every node of the new graph
  size_t num_copies = 0;
};

// `outputs` must be the outputs `g` was built from; `node_ctx` comes from Place.
absl::StatusOr<Partitioned> Partition(const IndexedGraph& g,
                                      const std::vector<NodeEntry>& outputs,
                                      const std::vector<Context>& node_ctx);

// One node of a placed forward graph, for viewers (symx viz).
struct PlacedNode {
  std::string name;
  std::string op;  // "" for a variable
  Context ctx;
  bool is_copy = false;                                // a _CrossDeviceCopy Partition inserted
  std::vector<std::pair<uint32_t, uint32_t>> inputs;  // (index in the list, output index)
  std::vector<Shape> output_shapes;                    // unknown dims where inference can't tell
  std::vector<DType> output_types;                     // kUnknown where inference can't tell
};

// The forward graph of `symbol` placed as SimpleBind would place it (each
// variable on its group's context, else ctx) and partitioned, in topological
// order, with shapes inferred as far as `shapes` allow (no error for unknown
// ones). Errors: those of Place, and inconsistent shapes.
absl::StatusOr<std::vector<PlacedNode>> PlaceForward(
    const Symbol& symbol, const Context& ctx, const std::map<std::string, Context>& group2ctx,
    const std::map<std::string, Shape>& shapes);

}  // namespace symx

#endif  // SYMX_EXECUTOR_PLACE_H_
