// Cross-rank graphs on the in-process communicator: ranks are threads, each
// with its own devices (cpu(1), cpu(2), cpu(3)), so this runs under TSan.
#include "distributed/inprocess_communicator.h"
#include "tests/distributed/cross_rank_cases.h"

namespace symx {
namespace {

void RunRanksOf(int n, const std::function<void(const std::shared_ptr<Communicator>&)>& body) {
  std::vector<std::shared_ptr<Communicator>> group = CreateInProcessGroup(n);
  std::vector<std::thread> threads;
  for (int r = 1; r < n; ++r) threads.emplace_back([&, r] { body(group[r]); });
  body(group[0]);
  for (std::thread& t : threads) t.join();
}

TEST(CrossRank, ChainWithArrays) { RunRanksOf(2, cross_rank::ChainWithArrays); }
TEST(CrossRank, ChainWithArraysOverFourRanks) { RunRanksOf(4, cross_rank::ChainWithArrays); }
TEST(CrossRank, LegacyMlpTraining) { RunRanksOf(2, cross_rank::LegacyMlpTraining); }
TEST(CrossRank, TwoBranchesTwoDevicesPerRank) {
  RunRanksOf(2, cross_rank::TwoBranchesTwoDevicesPerRank);
}
TEST(CrossRank, Bfloat16Split) { RunRanksOf(2, cross_rank::Bfloat16Split); }
TEST(CrossRank, MismatchedGraphs) { RunRanksOf(2, cross_rank::MismatchedGraphs); }
TEST(CrossRank, OneRankFails) { RunRanksOf(3, cross_rank::OneRankFails); }
TEST(CrossRank, PlacementErrors) { RunRanksOf(2, cross_rank::PlacementErrors); }
TEST(CrossRank, HungPeerIsNamed) {
  std::vector<std::shared_ptr<Communicator>> sync = CreateInProcessGroup(2);
  std::vector<std::shared_ptr<Communicator>> group = CreateInProcessGroup(2);
  std::thread t([&] { cross_rank::HungPeerIsNamed(group[1], *sync[1]); });
  cross_rank::HungPeerIsNamed(group[0], *sync[0]);
  t.join();
}

TEST(CrossRank, FailingStepStopsAWaitingRecv) {
  std::vector<std::shared_ptr<Communicator>> sync = CreateInProcessGroup(2);
  std::vector<std::shared_ptr<Communicator>> group = CreateInProcessGroup(2);
  std::thread t([&] { cross_rank::FailingStepStopsAWaitingRecv(group[1], *sync[1]); });
  cross_rank::FailingStepStopsAWaitingRecv(group[0], *sync[0]);
  t.join();
}

// Without a communicator, a context of another rank is an error that says
// how to get one.
TEST(CrossRank, RankWithoutMpiIsAnError) {
  Symbol net = cross_rank::Chain();
  std::string error = cross_rank::ErrorOf([&] {
    Executor::SimpleBind(net, {.shapes = {{"data1", Shape{2, 2}}},
                               .group2ctx = {{"dev1", Context::CPU(1)},
                                             {"dev2", cross_rank::OnRank(Context::CPU(0), 1)}}});
  });
  EXPECT_THAT(error,
              ::testing::HasSubstr("device cpu(0)@rank1 belongs to rank 1, but this job has 1 rank "
                                   "(start it with mpirun -np 2 or more)"));
  // @rank0 is this process when there is one rank.
  auto exe = Executor::SimpleBind(
      net,
      {.shapes = {{"data1", Shape{2, 2}}},
       .group2ctx = {{"dev1", cross_rank::OnRank(Context::CPU(1), 0)}, {"dev2", Context::CPU(2)}}});
  exe->Forward(false);
  EXPECT_EQ(exe->outputs()[0].ctx(), Context::CPU(2));
  EXPECT_THAT(exe->DebugStr(), ::testing::HasSubstr("_mul_scalar _mulscalar0 on cpu(1)"));
}

}  // namespace
}  // namespace symx
