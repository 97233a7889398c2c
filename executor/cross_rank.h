// The parts of BuildPlan that only cross-rank binds need: finding every
// variable's array on whichever rank holds it, and the description of a plan
// that the ranks compare before they allocate (executor internals).
#ifndef SYMX_EXECUTOR_CROSS_RANK_H_
#define SYMX_EXECUTOR_CROSS_RANK_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "executor/exec_plan.h"
#include "graph/indexed_graph.h"

namespace symx {

// Where one bound array lives (a global context) with its shape and dtype.
struct ArrayHome {
  bool found = false;
  Context ctx;
  Shape shape;
  DType dtype = DType::kUnknown;
};

struct ArrayHomes {
  std::vector<ArrayHome> args, grads, aux;
};

// The homes of every argument, gradient and aux array. Single process: the
// bound arrays. Cross-rank: every rank's arrays, exchanged through
// bind.rendezvous (the bind's first collective step); an array bound on two
// ranks, or an argument or aux state bound on none, is an error on every
// rank naming it.
absl::StatusOr<ArrayHomes> LocateArrays(const ResolvedBind& bind,
                                        const std::vector<std::string>& arg_names,
                                        const std::vector<std::string>& aux_names);

// One line per node of the placed, partitioned and inferred graph (op, name,
// attributes, device, inputs, output dtypes and shapes) and per argument
// (grad_req): what the ranks of a cross-rank bind must agree on.
std::vector<std::string> DescribePlan(const IndexedGraph& g, const std::vector<Context>& node_ctx,
                                      const ShapeTable& shapes, const TypeTable& types,
                                      const std::vector<std::string>& arg_names,
                                      const std::vector<GradReq>& reqs);

}  // namespace symx

#endif  // SYMX_EXECUTOR_CROSS_RANK_H_
