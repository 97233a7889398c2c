// The in-process communicator: every operation and dtype, ordering, deadlines
// that name the missing rank, mismatched collectives, abort. Runs under TSan.
#include <atomic>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/distributed/comm_conformance.h"
#include "tests/distributed/comm_test_util.h"

namespace symx {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

const absl::Duration kLong = absl::Seconds(20);
const absl::Duration kShort = absl::Milliseconds(200);

Tensor Make(DType dtype, std::vector<double> values) {
  return Tensor::FromVector(Shape{static_cast<int64_t>(values.size())}, values, dtype);
}

TEST(InProcessCommunicator, RankAndSize) {
  RunRanks(3, [](int rank, Communicator& c) {
    EXPECT_EQ(c.rank(), rank);
    EXPECT_EQ(c.size(), 3);
    EXPECT_EQ(c.backend(), "in-process");
  });
}

class Conformance : public ::testing::TestWithParam<int> {};

TEST_P(Conformance, SendRecvEveryDtype) {
  RunRanks(GetParam(), [](int, Communicator& c) { conformance::SendRecvEveryDtype(c); });
}
TEST_P(Conformance, SameTagInOrder) {
  RunRanks(GetParam(), [](int, Communicator& c) { conformance::SameTagInOrder(c); });
}
TEST_P(Conformance, AllreduceEveryOpAndDtype) {
  RunRanks(GetParam(), [](int, Communicator& c) { conformance::AllreduceEveryOpAndDtype(c); });
}
TEST_P(Conformance, AllreduceIsReproducible) {
  RunRanks(GetParam(), [](int, Communicator& c) { conformance::AllreduceIsReproducible(c); });
}
TEST_P(Conformance, BroadcastFromEveryRootAndBarrier) {
  RunRanks(GetParam(),
           [](int, Communicator& c) { conformance::BroadcastFromEveryRootAndBarrier(c); });
}
TEST_P(Conformance, EmptyAndLargeTensors) {
  RunRanks(GetParam(), [](int, Communicator& c) { conformance::EmptyAndLargeTensors(c); });
}
TEST_P(Conformance, RecvTimeoutNamesThePeer) {
  RunRanksWithSync(GetParam(), conformance::RecvTimeoutNamesThePeer);
}
TEST_P(Conformance, CollectiveTimeoutNamesTheMissingRank) {
  RunRanksWithSync(GetParam(), conformance::CollectiveTimeoutNamesTheMissingRank);
}
INSTANTIATE_TEST_SUITE_P(Ranks, Conformance, ::testing::Values(2, 3, 4));

TEST(InProcessCommunicator, MatchingFollowsPostingOrder) {
  RunRanks(2, [](int rank, Communicator& c) {
    if (rank == 0) {
      for (int i = 0; i < 3; ++i) {
        ASSERT_TRUE(WaitFor(c.Send(Make(DType::kInt32, {double(i)}), 1, 7), kLong).ok());
      }
    } else {
      // Posted in order, waited for in reverse: each gets the message of its turn.
      std::vector<Tensor> ts;
      std::vector<std::unique_ptr<Work>> ws;
      for (int i = 0; i < 3; ++i) {
        ts.push_back(*Tensor::Zeros(Shape{1}, DType::kInt32));
        ws.push_back(c.Recv(ts.back(), 0, 7));
      }
      for (int i = 2; i >= 0; --i) ASSERT_TRUE(ws[i]->Wait(absl::Now() + kLong).ok());
      for (int i = 0; i < 3; ++i) EXPECT_EQ(ts[i].ToDoubles()[0], i);
    }
  });
}

TEST(InProcessCommunicator, AllreduceResultDoesNotDependOnArrivalOrder) {
  std::vector<float> first;
  for (int run = 0; run < 20; ++run) {
    std::vector<float> got(4);
    RunRanks(4, [&](int rank, Communicator& c) {
      if (rank == run % 4) std::this_thread::sleep_for(std::chrono::milliseconds(2));
      Tensor t = Make(DType::kFloat32, {1e8 * (rank % 2 ? -1 : 1), 0.1 * rank, 3.3e-3, 7.0 / 3});
      ASSERT_TRUE(WaitFor(c.Allreduce(t, ReduceOp::kSum), kLong).ok());
      if (rank == 0) std::memcpy(got.data(), t.raw_data(), 16);
    });
    if (run == 0) first = got;
    EXPECT_EQ(std::memcmp(first.data(), got.data(), 16), 0) << "run " << run;
  }
}

TEST(InProcessCommunicator, CollectiveTimeoutNamesEveryMissingRank) {
  RunRanks(4, [](int rank, Communicator& c) {
    if (rank == 1 || rank == 3) return;  // two ranks never join
    Tensor t = Make(DType::kFloat32, {1});
    absl::Status s = WaitFor(c.Allreduce(t, ReduceOp::kSum), kShort);
    EXPECT_EQ(s.code(), absl::StatusCode::kDeadlineExceeded);
    EXPECT_THAT(s.message(), AllOf(HasSubstr(absl::StrCat("rank ", rank, ": allreduce #0")),
                                   HasSubstr("waiting for ranks 1, 3")));
  });
}

TEST(InProcessCommunicator, MismatchedCollectivesNameBothRanks) {
  RunRanks(2, [](int rank, Communicator& c) {
    Tensor t = Make(DType::kFloat32, {1, 2});
    absl::Status s = rank == 0 ? WaitFor(c.Allreduce(t, ReduceOp::kSum), kLong)
                               : WaitFor(c.Broadcast(t, 0), kLong);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(s.message(), AllOf(HasSubstr("collective #0 differs between ranks"),
                                   HasSubstr("allreduce #0 (sum, float32, 8 bytes)"),
                                   HasSubstr("broadcast #0 (root 0, 8 bytes)")));
  });
}

TEST(InProcessCommunicator, SizeMismatchOnRecv) {
  RunRanks(2, [](int rank, Communicator& c) {
    if (rank == 0) {
      ASSERT_TRUE(WaitFor(c.Send(Make(DType::kFloat32, {1, 2, 3}), 1, 0), kLong).ok());
    } else {
      Tensor t = *Tensor::Zeros(Shape{2}, DType::kFloat32);
      absl::Status s = WaitFor(c.Recv(t, 0, 0), kLong);
      EXPECT_THAT(s.message(), HasSubstr("rank 0 sent 12 bytes but the receiving tensor"));
    }
  });
}

TEST(InProcessCommunicator, AbortReachesEveryRank) {
  std::atomic<int> aborted{0};
  RunRanks(3, [&](int rank, Communicator& c) {
    if (rank == 2) {
      c.Abort(absl::InternalError("out of disk"));
      return;
    }
    Tensor t = Make(DType::kFloat32, {1});
    absl::Status s = WaitFor(c.Allreduce(t, ReduceOp::kSum), kLong);
    EXPECT_THAT(s.message(), HasSubstr("rank 2 aborted the job: out of disk"));
    aborted += !s.ok();
  });
  EXPECT_EQ(aborted, 2);
}

TEST(InProcessCommunicator, BadArgumentsAreNamed) {
  RunRanks(2, [](int rank, Communicator& c) {
    if (rank != 0) return;
    Tensor t = Make(DType::kFloat32, {1});
    EXPECT_THAT(WaitFor(c.Send(t, 2, 0), kShort).message(),
                HasSubstr("peer rank 2 does not exist (the job has 2 ranks)"));
    EXPECT_THAT(WaitFor(c.Send(t, 0, 0), kShort).message(), HasSubstr("cannot send to itself"));
    EXPECT_THAT(WaitFor(c.Recv(t, 1, -3), kShort).message(), HasSubstr("tag -3 is outside"));
    EXPECT_THAT(WaitFor(c.Allreduce(Tensor(), ReduceOp::kSum), kShort).message(),
                HasSubstr("the tensor is undefined"));
    EXPECT_THAT(WaitFor(c.Allreduce(Make(DType::kBool, {1}), ReduceOp::kAverage), kShort).message(),
                HasSubstr("bool tensors cannot be averaged"));
    EXPECT_THAT(WaitFor(c.Broadcast(t, 5), kShort).message(),
                HasSubstr("root rank 5 does not exist"));
  });
}

TEST(PendingSends, WaitsForEveryWorkAndReportsTheFirstError) {
  PendingSends p;
  p.Add(DoneWork(absl::OkStatus()));
  p.Add(DoneWork(absl::UnavailableError("peer gone")));
  EXPECT_THAT(p.WaitAll(kShort).message(), HasSubstr("peer gone"));
  EXPECT_TRUE(p.WaitAll(kShort).ok());  // forgotten once waited for
}

}  // namespace
}  // namespace symx
