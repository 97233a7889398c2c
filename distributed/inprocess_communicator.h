// An in-process communicator: N ranks as threads of one process, for tests
// and for trying cross-rank graphs without mpirun.
//
//   std::vector<std::shared_ptr<Communicator>> group = CreateInProcessGroup(2);
//   std::thread t1([&] { RunRank(*group[1]); });
//   RunRank(*group[0]);
//
// Semantics are those of communicator.h. Sends are buffered (the data is
// copied at Send, whose Work is complete at once), so a sender never waits
// for its receiver. Receives match sends posted with the same (source, tag)
// in order of posting, as MPI does. Collectives are matched by their number
// per communicator; every rank must call them in the same order, and a rank
// that calls a different collective (or another dtype or size) under the same
// number fails, naming both. Reductions add the ranks' contributions in rank
// order, so results are deterministic. A wait that times out names the ranks
// that have not yet sent or joined.
#ifndef SYMX_DISTRIBUTED_INPROCESS_COMMUNICATOR_H_
#define SYMX_DISTRIBUTED_INPROCESS_COMMUNICATOR_H_

#include <memory>
#include <vector>

#include "distributed/communicator.h"

namespace symx {

// `size` communicators of one group, index = rank. size >= 1.
std::vector<std::shared_ptr<Communicator>> CreateInProcessGroup(int size);

}  // namespace symx

#endif  // SYMX_DISTRIBUTED_INPROCESS_COMMUNICATOR_H_
