// Pipelined model parallelism: the order in which one stage of a model split
// across ranks runs the forward and backward passes of a batch's
// micro-batches, and which stage each rank is.
//
//   GPipe: every forward (micro-batch 0, 1, ..., m-1), then every backward in
//          the same order. Every stage keeps all m micro-batches' activations.
//   1F1B:  PipeDream-Flush's order. Stage s of p first runs min(p-s-1, m)
//          forwards, then alternates one forward and one backward, then runs
//          the remaining backwards. At most p - s micro-batches are in flight
//          at stage s, so min(m, p) activation slots suffice.
//
// Both run every micro-batch's backward in micro-batch order on every stage,
// so the gradients they accumulate are the same sums in the same order
// (bitwise equal to each other). With unit-time stages, both take m + p - 1
// forward slots and as many backward ones: the bubble is (p-1)/(m+p-1).
#ifndef SYMX_TRAIN_PIPELINE_H_
#define SYMX_TRAIN_PIPELINE_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "devices/context.h"
#include "graph/symbol.h"

namespace symx::train {

enum class PipelineSchedule { kGpipe, kOneFOneB };

// "gpipe" or "1f1b"; anything else is an error listing both.
absl::StatusOr<PipelineSchedule> ParsePipelineSchedule(absl::string_view name);
const char* PipelineScheduleName(PipelineSchedule schedule);

struct PipelineOp {
  bool forward = true;
  int microbatch = 0;
  bool operator==(const PipelineOp& o) const {
    return forward == o.forward && microbatch == o.microbatch;
  }
};

// What stage `stage` of `stages` runs, in order, for `microbatches`.
std::vector<PipelineOp> StageSchedule(PipelineSchedule schedule, int stages, int stage,
                                      int microbatches);

// How many micro-batches' activations a stage holds at once, hence how many
// executors (activation slots) a rank binds: m for GPipe, min(m, p) for 1F1B.
// Micro-batch i uses slot i % slots.
int ActivationSlots(PipelineSchedule schedule, int stages, int microbatches);

// The ranks of a model split across ranks in pipeline order: the order in
// which a walk of the forward graph (MXNet's node order, inputs first) first
// meets an op on each rank, an op running on its ctx_group's context or else
// on `ctx`. Ranks that run no op are absent. With `require_chain` (1F1B),
// every value an op reads from another rank must come from the stage just
// before its own; otherwise the error names the two ops and their ranks (an
// edge that skips or goes back a stage could deadlock 1F1B's order; GPipe
// has no such requirement).
absl::StatusOr<std::vector<int>> PipelineStages(const Symbol& net, const Context& ctx,
                                                const std::map<std::string, Context>& group2ctx,
                                                bool require_chain);

}  // namespace symx::train

#endif  // SYMX_TRAIN_PIPELINE_H_
