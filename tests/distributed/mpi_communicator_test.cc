// The MPI communicator under mpirun (-np 2 and -np 4): the conformance suite
// every communicator passes, plus MPI-only behaviour (a communicator of its
// own per test that breaks one, thread-multiple use).
#include <thread>

#include "distributed/mpi_communicator.h"
#include "graph/error.h"
#include "tests/distributed/comm_conformance.h"

namespace symx {
namespace {

std::shared_ptr<Communicator> g_world;

Communicator& World() { return *g_world; }

TEST(MpiCommunicator, RankAndSize) {
  EXPECT_EQ(World().backend(), "mpi");
  EXPECT_GE(World().size(), 2);
  EXPECT_LT(World().rank(), World().size());
}

TEST(MpiCommunicator, SendRecvEveryDtype) { conformance::SendRecvEveryDtype(World()); }
TEST(MpiCommunicator, SameTagInOrder) { conformance::SameTagInOrder(World()); }
TEST(MpiCommunicator, AllreduceEveryOpAndDtype) {
  conformance::AllreduceEveryOpAndDtype(World());
}
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

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (!symx::StartedByMpiLauncher()) {
    std::fprintf(stderr, "run this test under mpirun (tests/distributed/mpirun.sh)\n");
    return 2;
  }
  symx::g_world = symx::ValueOrThrow(symx::InitMpiWorld(&argc, &argv));
  int rc = RUN_ALL_TESTS();
  // Every rank exits with the worst result, so a failure on any rank fails the job.
  symx::Tensor worst = symx::Tensor::FromVector(symx::Shape{1}, {double(rc)}, symx::DType::kInt32);
  absl::Status s = symx::WaitFor(symx::g_world->Allreduce(worst, symx::ReduceOp::kMax),
                                 absl::Seconds(60));
  if (!s.ok()) return 1;
  rc = static_cast<int>(worst.ToDoubles()[0]);
  symx::g_world.reset();
  symx::FinalizeMpi();
  return rc;
}
