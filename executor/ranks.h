// RankView: how one bind sees the ranks of its job.
//
// A single-process bind (no communicator, or one of size 1) runs everything
// here: contexts without a rank are this process, and so is "@rank0".
// A cross-rank bind (SPMD: every rank binds the same symbol with the same
// options) names devices globally: a context in the options without @rank is
// rank 0's, so `--group2ctx stage2=cpu(0)@rank1` and an ungrouped rest mean
// the same thing on every rank. Arrays are always this process's; their
// contexts become global by taking this rank.
//
// Plans keep global contexts per node (so all ranks partition the same graph)
// and local ones (rank -1) for devices, memory and tensors.
#ifndef SYMX_EXECUTOR_RANKS_H_
#define SYMX_EXECUTOR_RANKS_H_

#include "devices/context.h"

namespace symx {

struct RankView {
  int self = -1;  // this process's rank in a cross-rank bind; -1: single process
  int size = 1;

  bool cross_rank() const { return self >= 0; }

  // A context from the bind options.
  Context FromOption(Context c) const {
    if (cross_rank()) {
      if (c.rank < 0) c.rank = 0;
    } else if (c.rank == 0) {
      c.rank = -1;
    }
    return c;
  }
  // The context of an array of this process.
  Context FromArray(Context c) const {
    if (cross_rank()) c.rank = self;
    return c;
  }
  bool IsLocal(const Context& c) const { return cross_rank() ? c.rank == self : c.rank < 0; }
  // The device of this process that a local global context names.
  static Context Local(Context c) {
    c.rank = -1;
    return c;
  }
};

}  // namespace symx

#endif  // SYMX_EXECUTOR_RANKS_H_
