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
// Contexts are global (executor/ranks.h): in a cross-rank bind a node may be
// placed on another rank's device; Place checks that the rank exists and
// leaves the device to that rank to check.
//
// Partition inserts, per (source entry, destination device), a
// _CrossDeviceCopy placed on the destination when both are on one rank, and
// a _send (on the source) feeding a _recv (on the destination) when the edge
// crosses ranks. Transfers are tagged 0, 1, 2, ... in the order Partition
// meets them, so every rank, partitioning the same graph, derives the same
// tags without talking. Nodes whose inputs change are cloned (Nodes are
// immutable), everything else is shared with the input graph.
#ifndef SYMX_EXECUTOR_PLACE_H_
#define SYMX_EXECUTOR_PLACE_H_

#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "absl/status/statusor.h"
#include "devices/context.h"
#include "executor/ranks.h"
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
  // Contexts above are global; this says which are this process's.
  RankView ranks;
};

// OK when `ctx` is this process's or belongs to a rank of the job; else
// NotFound "<what>: device cpu(0)@rank3 belongs to rank 3, but this job has
// 2 ranks (0 to 1)". The device itself is checked by its own rank.
absl::Status CheckRankExists(const Context& ctx, const RankView& ranks, const std::string& what);

// One context per node id. Every context returned exists in this process.
absl::StatusOr<std::vector<Context>> Place(const IndexedGraph& g, const PlaceOptions& options);

struct Partitioned {
  std::vector<NodeEntry> outputs;                     // the given outputs, in the rewritten graph
  std::unordered_map<const Node*, Context> node_ctx;  // every node of the new graph
  size_t num_copies = 0;                              // _CrossDeviceCopy nodes
  size_t num_transfers = 0;                           // _send/_recv pairs
};

// `outputs` must be the outputs `g` was built from; `node_ctx` comes from Place.
absl::StatusOr<Partitioned> Partition(const IndexedGraph& g, const std::vector<NodeEntry>& outputs,
                                      const std::vector<Context>& node_ctx);

// One node of a placed forward graph, for viewers (symx viz).
struct PlacedNode {
  std::string name;
  std::string op;  // "" for a variable
  Context ctx;
  bool is_copy = false;                               // a _CrossDeviceCopy Partition inserted
  bool is_send = false, is_recv = false;              // a cross-rank transfer
  int64_t peer = -1, tag = -1;                        // of a transfer
  std::vector<std::pair<uint32_t, uint32_t>> inputs;  // (index in the list, output index)
  std::vector<Shape> output_shapes;                   // unknown dims where inference can't tell
  std::vector<DType> output_types;                    // kUnknown where inference can't tell
};

// The forward graph of `symbol` placed as SimpleBind would place it (each
// variable on its group's context, else ctx) and partitioned, in topological
// order, with shapes inferred as far as `shapes` allow (no error for unknown
// ones). Contexts are global as `ranks` sees them (a viewer shows every
// rank's part: rank 0's view of a job of `ranks.size` ranks). Errors: those
// of Place, and inconsistent shapes.
absl::StatusOr<std::vector<PlacedNode>> PlaceForward(
    const Symbol& symbol, const Context& ctx, const std::map<std::string, Context>& group2ctx,
    const std::map<std::string, Shape>& shapes, const RankView& ranks = {});

// The rank view a viewer uses for these options outside an MPI job: a job of
// 1 + the highest rank named (rank 0's view), or a single process.
RankView ViewerRanks(const Context& ctx, const std::map<std::string, Context>& group2ctx);

}  // namespace symx

#endif  // SYMX_EXECUTOR_PLACE_H_
