// Making the ranks of an SPMD job agree before they act together.
//
// A cross-rank bind is one operation over all ranks: each rank binds the
// same symbol with the same options and builds its own part of one plan. If a
// rank bound something else, or failed on its own (a missing device, no
// memory), its partners would later wait for messages that never come. A
// Rendezvous runs the bind's collective steps so that this cannot happen:
// every step carries each rank's status, and a step in which any rank failed
// fails on every rank alike, naming the rank and its error. A rank that fails
// between steps calls Abandon, which takes part in the next step with its
// error, so the others learn of it at once instead of waiting out a deadline.
//
// Agree compares a description of what each rank is about to do (one line
// per item; a hash travels, the text only when ranks differ) and fails on
// every rank naming two ranks that differ and the first line where they do.
//
// Every method is a collective: all ranks call the same steps in the same
// order (Abandon standing in for whichever step comes next).
#ifndef SYMX_DISTRIBUTED_AGREEMENT_H_
#define SYMX_DISTRIBUTED_AGREEMENT_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "distributed/communicator.h"

namespace symx {

// Every rank's `mine`, indexed by rank.
absl::StatusOr<std::vector<std::string>> AllGather(Communicator& comm, const std::string& mine,
                                                   absl::Duration timeout);

class Rendezvous {
 public:
  // `what` starts messages ("bind").
  Rendezvous(Communicator& comm, std::string what, absl::Duration timeout)
      : comm_(comm), what_(std::move(what)), timeout_(timeout) {}

  // Every rank's payload when every rank's `local` is OK; else the error
  // (this rank's own unchanged, or "<what>: rank R failed: <its error>").
  absl::StatusOr<std::vector<std::string>> Exchange(const absl::Status& local,
                                                    const std::string& payload);
  // OK on every rank when all are OK and all `lines` are equal; else an error
  // on every rank: "<what>: ranks A and B differ at line N: rank A has '...',
  // rank B has '...'".
  absl::Status Agree(const absl::Status& local, const std::vector<std::string>& lines);
  // Takes part in the next step with `error` (once; nothing when a step has
  // already failed everywhere).
  void Abandon(const absl::Status& error);
  // A step failed on every rank (or communication failed): no more steps.
  bool settled() const { return settled_; }
  // Every rank reached the same error from a step's shared results: no more
  // steps.
  void MarkSettled() { settled_ = true; }

 private:
  Communicator& comm_;
  std::string what_;
  absl::Duration timeout_;
  bool settled_ = false;
};

}  // namespace symx

#endif  // SYMX_DISTRIBUTED_AGREEMENT_H_
