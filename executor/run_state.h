// RunState: what Forward and Backward change, kept apart from the plan
// (executor internals). The ExecPlan's structure (graph, steps, memory,
// contexts) is not changed after Bind; a run needs step contexts that say
// is_train, a list of the sends in flight and a cancel flag that stops other
// devices' _recv waits. One RunState per executor, made once at Bind from the
// plan: Forward/Backward still allocate nothing. The kernels' prepared states
// (KernelContext::state) are shared by the plan's contexts and these copies;
// a run may change what is inside them (scratch, cached weights), one run at
// a time.
//
// Thread-safety: a RunState belongs to one executor, which runs one phase at
// a time (PoolGuard refuses a second); within a phase each device worker
// touches only its own steps' contexts, `cancel` is atomic and `pending` is
// thread-safe (distributed/communicator.h).
#ifndef SYMX_EXECUTOR_RUN_STATE_H_
#define SYMX_EXECUTOR_RUN_STATE_H_

#include <atomic>
#include <vector>

#include "absl/status/status.h"
#include "devices/kernel.h"
#include "distributed/communicator.h"
#include "executor/exec_plan.h"

namespace symx {

struct RunState {
  explicit RunState(const ExecPlan& plan);
  RunState(const RunState&) = delete;
  RunState& operator=(const RunState&) = delete;

  // Per step of the plan's forward / backward phase: its context, as the
  // plan built it but for is_train (set per call) and the channel (this
  // state's).
  std::vector<KernelContext> forward, backward;
  PendingSends pending;
  // Raised when a step of the current run fails, so that _recv steps on the
  // other devices stop waiting.
  std::atomic<bool> cancel{false};
  RankChannel channel;  // the plan's communicators, with `pending` and `cancel`

  // The contexts of `phase`, which is plan.forward or plan.backward.
  std::vector<KernelContext>& contexts(const Phase& phase, const ExecPlan& plan) {
    return &phase == &plan.forward ? forward : backward;
  }
};

// dst += src, elementwise (same size and dtype): grad_req add.
absl::Status AccumulateInto(const Tensor& src, const Tensor& dst);

}  // namespace symx

#endif  // SYMX_EXECUTOR_RUN_STATE_H_
