// PlanMemory: assigns storage blocks to the entries of a graph that runs in a
// fixed node order, forward and backward planned together.
//
// Liveness-based reuse in the manner of NNVM's plan: an entry's block returns
// to a free list when its last reader has run; a new entry takes the smallest
// free block of at least its size within a match range (else grows the largest
// smaller one, else opens a new block); the best of several ranges is kept. Where the op declares an in-place pair
// and the input's only remaining reader is this node, the output takes the
// input's block. Sizes are real bytes per dtype (NNVM assumes 4 for all).
#ifndef SYMX_EXECUTOR_PLAN_MEMORY_H_
#define SYMX_EXECUTOR_PLAN_MEMORY_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "graph/indexed_graph.h"
#include "graph/infer_graph.h"

namespace symx {

struct MemoryPlanOptions {
  // Per entry: storage comes from outside the plan (bound arrays, variables).
  std::vector<bool> external;
  // Per entry: must stay readable after the last node (graph outputs).
  std::vector<bool> keep;
  // Op nodes in execution order.
  std::vector<uint32_t> order;
  // A request of b bytes takes the smallest free block in [b, b*R), else the
  // largest in [b/R, b) grown to b; 0 disables reuse (every entry gets its own
  // block: the "no reuse" baseline). R and every smaller power of two are
  // tried and the plan with the fewest bytes kept, as MXNet sweeps its
  // NNVM_EXEC_MATCH_RANGE.
  int match_range = 16;
  bool allow_inplace = true;
  // Sizes of blocks a shared pool already holds (shared_exec, Reshape): the
  // plan that needs the fewest new bytes beside them wins, then the smallest.
  std::vector<size_t> pool_blocks;
};

struct MemoryPlan {
  static constexpr int kExternal = -1;
  std::vector<int> storage_id;        // per entry; kExternal for external entries
  std::vector<size_t> storage_offset;  // per entry: its byte offset in its block
  std::vector<size_t> storage_bytes;  // per storage id
  // Per entry: the input entry whose block it took in place, or -1.
  std::vector<int64_t> inplace_from;
  size_t total_bytes = 0;     // sum of blocks
  size_t no_reuse_bytes = 0;  // sum of every planned entry's own size
};

// Which pool block each plan block takes (index into `pool_blocks`), or -1
// for a new one: largest plan block first, each the smallest unused pool
// block that fits.
std::vector<int> MatchPoolBlocks(const std::vector<size_t>& plan_blocks,
                                 const std::vector<size_t>& pool_blocks);

MemoryPlan PlanMemory(const IndexedGraph& graph, const ShapeTable& shapes, const TypeTable& types,
                      const MemoryPlanOptions& options);

}  // namespace symx

#endif  // SYMX_EXECUTOR_PLAN_MEMORY_H_
