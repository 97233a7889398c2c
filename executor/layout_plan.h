// Which values of a bind are stored channels-last (devices/kernel.h).
//
// oneDNN's direct convolutions run on channels-last data; a network of them
// kept plain pays two layout conversions per convolution (forward, and the
// data and weight gradients). The plan keeps a value, forward or gradient,
// channels-last when every kernel that writes or reads it can take it so.
// Elementwise ops on equal shapes (Activation and its gradient, clip,
// elemwise_add/sub/mul/div, gradient sums) do not care: a value they read and
// the values they write share one decision, as do values the memory plan puts
// in one block in place and the values a kernel declares tied (Concat,
// BatchNorm and its gradient: they have no converting path). Values the user
// sees (arguments, outputs, gradients), values other devices read, and values
// of kernels without the capability stay plain; so does everything when no
// kernel has it.
#ifndef SYMX_EXECUTOR_LAYOUT_PLAN_H_
#define SYMX_EXECUTOR_LAYOUT_PLAN_H_

#include <vector>

#include "devices/kernel.h"
#include "executor/plan_memory.h"
#include "graph/indexed_graph.h"
#include "graph/infer_graph.h"

namespace symx {

struct LayoutPlanInput {
  const IndexedGraph* graph = nullptr;
  const std::vector<const KernelInfo*>* kernels = nullptr;  // per node (null: not run here)
  const ShapeTable* shapes = nullptr;
  const TypeTable* types = nullptr;
  EngineOptions options;  // the bind's: channels_last, and what kernels ask
  // Per entry: must stay plain (seen by the user or another device, a view).
  std::vector<bool> pinned;
  // Per entry: the entry it shares memory with in place, or -1.
  std::vector<int64_t> inplace_from;
};

// Per entry: stored channels-last (none when options.channels_last is off,
// which tests and benchmarks use to compare against all-plain plans).
std::vector<bool> PlanChannelsLast(const LayoutPlanInput& in);

}  // namespace symx

#endif  // SYMX_EXECUTOR_LAYOUT_PLAN_H_
