// Automatic pipeline stages: splits a model that has no ctx_group attributes
// into N contiguous stages ("stage1" ... "stageN") balanced by an estimate of
// each op's cost, for a pipeline across ranks (pipeline.h) without editing
// the model by hand.
//
// The ops, in the graph's topological order (MXNet's node order), are cut at
// N-1 places. A stage's cost is its ops' compute (multiply-adds: from the
// weight shapes for FullyConnected, Convolution, Deconvolution, dot and the
// fused RNN; the elements read and written for the rest) plus, per byte that
// crosses its cuts (forward values one way, their gradients back),
// `flops_per_byte` (how many multiply-adds a device does in the time the
// link moves a byte). The cuts minimize the most costly stage (dynamic
// programming over the cut positions, exact for contiguous stages); among
// equal maxima, the fewest bytes crossing.
//
// Variables take the stage of their first consumer (a weight lives with its
// layer; `data` with the first stage). The groups are written into the
// symbol's nodes, replacing any ctx_group they had, so the checkpoint's
// symbol and `symx viz` show them.
#ifndef SYMX_TRAIN_AUTO_STAGES_H_
#define SYMX_TRAIN_AUTO_STAGES_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/shape.h"
#include "graph/symbol.h"

namespace symx::train {

struct AutoStagesOptions {
  int stages = 2;
  // Input shapes for shape inference (data with its batch, labels...).
  std::map<std::string, Shape> shapes;
  double flops_per_byte = 64;
};

struct StagePlan {
  Symbol symbol;                       // with ctx_group stage1..stageN
  std::vector<double> stage_flops;     // compute per stage
  std::vector<double> stage_cost;      // compute + its cuts' bytes x flops_per_byte
  std::vector<double> cut_bytes;       // per cut (N-1), forward and backward
  std::vector<std::string> first_ops;  // the first op of each stage
  bool replaced_groups = false;        // the model had ctx_group attributes
  // The most costly stage over the mean stage cost (1 = perfectly even).
  double balance() const;
  // "4 stages, balance 1.03 (slowest / mean); stage1 from fc1: 1.2 GFLOP, ..."
  std::string Describe() const;
};

// Errors: fewer ops than stages, stages < 1, shapes that do not infer (the
// message names what is missing).
absl::StatusOr<StagePlan> AutoStages(const Symbol& net, const AutoStagesOptions& options);

}  // namespace symx::train

#endif  // SYMX_TRAIN_AUTO_STAGES_H_
