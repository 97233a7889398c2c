// The MPI communicator under mpirun (-np 2 and -np 4): the conformance suite
// every communicator passes, plus MPI-only behaviour (a communicator of its
// own per test that breaks one, thread-multiple use).
#include "distributed/mpi_communicator.h"

#include <thread>

#include "graph/error.h"
#include "tests/distributed/comm_conformance.h"
#include "tests/distributed/mpi_test_main.h"

namespace symx {
namespace {

Communicator& World() { return *MpiWorld(); }

TEST(MpiCommunicator, RankAndSize) {
  EXPECT_EQ(World().backend(), "mpi");
  EXPECT_GE(World().size(), 2);
  EXPECT_LT(World().rank(), World().size());
}

TEST(MpiCommunicator, SendRecvEveryDtype) { conformance::SendRecvEveryDtype(World()); }
TEST(MpiCommunicator, SameTagInOrder) { conformance::SameTagInOrder(World()); }
TEST(MpiCommunicator, AllreduceEveryOpAndDtype) { conformance::AllreduceEveryOpAndDtype(World()); }
TEST(MpiCommunicator, AllreduceIsReproducible) { conformance::AllreduceIsReproducible(World()); }
TEST(MpiCommunicator, BroadcastFromEveryRootAndBarrier) {
  conformance::BroadcastFromEveryRootAndBarrier(World());
}
TEST(MpiCommunicator, EmptyAndLargeTensors) { conformance::EmptyAndLargeTensors(World()); }

// Two threads of each rank communicate at once (MPI_THREAD_MULTIPLE): one
// exchanges messages, the other reduces.
TEST(MpiCommunicator, ConcurrentThreads) {
  std::shared_ptr<Communicator> other = ValueOrThrow(NewMpiCommunicator());
  std::thread t([&] { conformance::SendRecvEveryDtype(*other); });
  conformance::AllreduceEveryOpAndDtype(World());
  t.join();
}

TEST(MpiCommunicator, RecvTimeoutNamesThePeer) {
  std::shared_ptr<Communicator> c = ValueOrThrow(NewMpiCommunicator());
  conformance::RecvTimeoutNamesThePeer(*c, World());
}

TEST(MpiCommunicator, CollectiveTimeoutNamesTheMissingRank) {
  std::shared_ptr<Communicator> c = ValueOrThrow(NewMpiCommunicator());
  conformance::CollectiveTimeoutNamesTheMissingRank(*c, World());
}

}  // namespace
}  // namespace symx
