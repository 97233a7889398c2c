// Cross-rank graphs under mpirun: the same cases as cross_rank_test, each
// rank a process (run with -np 2 and -np 4).
#include "distributed/mpi_communicator.h"
#include "tests/distributed/cross_rank_cases.h"
#include "tests/distributed/mpi_test_main.h"

namespace symx {
namespace {

TEST(MpiCrossRank, ChainWithArrays) { cross_rank::ChainWithArrays(MpiWorld()); }
TEST(MpiCrossRank, LegacyMlpTraining) { cross_rank::LegacyMlpTraining(MpiWorld()); }
TEST(MpiCrossRank, TwoBranchesTwoDevicesPerRank) {
  cross_rank::TwoBranchesTwoDevicesPerRank(MpiWorld());
}
TEST(MpiCrossRank, MismatchedGraphs) { cross_rank::MismatchedGraphs(MpiWorld()); }
TEST(MpiCrossRank, OneRankFails) { cross_rank::OneRankFails(MpiWorld()); }
TEST(MpiCrossRank, PlacementErrors) { cross_rank::PlacementErrors(MpiWorld()); }
TEST(MpiCrossRank, HungPeerIsNamed) {
  // A communicator of its own: the test breaks it.
  std::shared_ptr<Communicator> comm = ValueOrThrow(NewMpiCommunicator());
  cross_rank::HungPeerIsNamed(comm, *MpiWorld());
}

TEST(MpiCrossRank, FailingStepStopsAWaitingRecv) {
  std::shared_ptr<Communicator> comm = ValueOrThrow(NewMpiCommunicator());
  cross_rank::FailingStepStopsAWaitingRecv(comm, *MpiWorld());
}

}  // namespace
}  // namespace symx
