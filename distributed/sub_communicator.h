// SplitCommunicator: a communicator over some ranks of another, as MPI's
// MPI_Comm_split makes one: every rank of `parent` calls it (collective) with
// a colour, and the ranks of one colour form a communicator, ranked in their
// parent order. Pipelines with replicated stages use two splits of the job:
// a replica's stages (its pipeline) and a stage's replicas (their gradient
// sums).
//
// It runs on the parent's point-to-point operations, so it works over any
// backend (MPI, in-process) and every error names the parent's ranks, the
// ones a user launched: "recv from rank 3 ... did not complete". Its tags
// live in a range of their own, [2^29, 2^30), shared by at most 256 splits
// of one parent (the parent's own users keep tags below 2^29). Point to
// point takes tags below 2^20. Small collectives (and any over 2 ranks) go
// through the split's rank 0: the others send their tensors to it, it
// reduces them in rank order and sends the result back. An allreduce of
// 64 KB or more over 3 ranks or more goes round a ring (reduce-scatter, then
// all-gather), so each rank moves 2 (n-1)/n of the tensor however many ranks
// there are. Both are deterministic: the same bits on every rank and every
// call. Host tensors only, as MPI's.
#ifndef SYMX_DISTRIBUTED_SUB_COMMUNICATOR_H_
#define SYMX_DISTRIBUTED_SUB_COMMUNICATOR_H_

#include <memory>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "distributed/communicator.h"

namespace symx {

// Collective over `parent`: every rank learns every colour first (within
// `timeout`: a rank that does not take part is named), then the ranks of its
// own colour become the new communicator. Colours are non-negative.
absl::StatusOr<std::shared_ptr<Communicator>> SplitCommunicator(
    const std::shared_ptr<Communicator>& parent, int color, absl::Duration timeout);

}  // namespace symx

#endif  // SYMX_DISTRIBUTED_SUB_COMMUNICATOR_H_
