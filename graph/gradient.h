// The symbolic gradient pass: extends a forward graph with the nodes that compute
// the gradients of chosen variables.
//
// Walking the forward nodes in reverse topological order, each op's gradient
// function (graph/op.h) turns its output gradients into input gradients. Only
// nodes on a path from a requested variable to an output are differentiated, so
// variables with grad_req null cost nothing. Several contributions to one entry
// are summed with one ElementWiseSum; zero contributions are dropped; a variable
// with no contribution gets zeros_like. Each returned gradient is a distinct
// entry computed by an op (never a variable or another variable's gradient), so
// an executor can write each into its own array.
#ifndef SYMX_GRAPH_GRADIENT_H_
#define SYMX_GRAPH_GRADIENT_H_

#include <unordered_map>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/node.h"

namespace symx {

// `ys`: forward outputs. `head_grads[i]`: the gradient flowing into ys[i], or an
// empty entry where there is none (a loss head, which needs none). `xs`: the
// variables to differentiate, as entries of variable nodes. Returns one gradient
// entry per x. Errors name an op that has no gradient.
//
// `origins` (optional) receives, for every node the pass creates, the forward
// node it belongs to: the op it differentiates, the producer whose output
// gradients a sum adds up, or the variable x for its final sum or copy. The
// placement pass puts backward nodes with their forward node through it.
struct GradientOrigins {
  std::unordered_map<const Node*, const Node*> of;
  // Keeps every recorded node alive, so a node the pass created and then
  // dropped cannot free its address for a later node to inherit its entry.
  std::vector<NodePtr> keep_alive;
};
absl::StatusOr<std::vector<NodeEntry>> Gradient(const std::vector<NodeEntry>& ys,
                                                const std::vector<NodeEntry>& head_grads,
                                                const std::vector<NodeEntry>& xs,
                                                GradientOrigins* origins = nullptr);

}  // namespace symx

#endif  // SYMX_GRAPH_GRADIENT_H_
