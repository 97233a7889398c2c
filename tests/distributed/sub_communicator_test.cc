// SplitCommunicator: the communicator conformance suite run on the splits of
// an in-process job of 6 ranks (colour rank % 2: {0, 2, 4} and {1, 3, 5},
// both at once), two splits in use together (a pipeline's replica and stage
// communicators), and errors naming the job's ranks.
#include "distributed/sub_communicator.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "distributed/inprocess_communicator.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/distributed/comm_conformance.h"

namespace symx {
namespace {

using ::testing::HasSubstr;

// Runs fn(sub) on every rank of a job of `n`, `sub` being the rank's split
// by colour(rank).
void OnSplits(int n, const std::function<int(int)>& colour,
              const std::function<void(int, Communicator&)>& fn) {
  std::vector<std::shared_ptr<Communicator>> group = CreateInProcessGroup(n);
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r) {
    threads.emplace_back([&, r] {
      auto sub = SplitCommunicator(group[r], colour(r), absl::Seconds(60));
      ASSERT_TRUE(sub.ok()) << sub.status();
      fn(r, **sub);
    });
  }
  for (std::thread& t : threads) t.join();
}

int Parity(int r) { return r % 2; }

TEST(SplitCommunicator, RanksInParentOrder) {
  OnSplits(6, Parity, [](int r, Communicator& c) {
    EXPECT_EQ(c.size(), 3);
    EXPECT_EQ(c.rank(), r / 2);
    EXPECT_EQ(c.backend(), r % 2 ? "in-process (ranks 1, 3, 5)" : "in-process (ranks 0, 2, 4)");
  });
}

TEST(SplitCommunicator, SendRecvEveryDtype) {
  OnSplits(6, Parity, [](int, Communicator& c) { conformance::SendRecvEveryDtype(c); });
}
TEST(SplitCommunicator, SameTagInOrder) {
  OnSplits(6, Parity, [](int, Communicator& c) { conformance::SameTagInOrder(c); });
}
TEST(SplitCommunicator, AllreduceEveryOpAndDtype) {
  OnSplits(6, Parity, [](int, Communicator& c) { conformance::AllreduceEveryOpAndDtype(c); });
}
TEST(SplitCommunicator, AllreduceIsReproducible) {
  OnSplits(6, Parity, [](int, Communicator& c) { conformance::AllreduceIsReproducible(c); });
}
TEST(SplitCommunicator, BroadcastFromEveryRootAndBarrier) {
  OnSplits(6, Parity,
           [](int, Communicator& c) { conformance::BroadcastFromEveryRootAndBarrier(c); });
}
TEST(SplitCommunicator, EmptyAndLargeTensors) {  // 3 ranks: the 48 MB sum goes round the ring
  OnSplits(6, Parity, [](int, Communicator& c) { conformance::EmptyAndLargeTensors(c); });
}

// Large allreduces over 3 and 4 ranks go round a ring: every dtype and op,
// and the same bits on every rank and every call.
TEST(SplitCommunicator, RingAllreduceEveryOpAndDtype) {
  for (int job : {6, 8}) {
    OnSplits(job, Parity, [](int, Communicator& c) {
      const int n = c.size();
      const int64_t count = 70000;  // over 64 KB in every dtype
      for (DType dt : AllDTypes()) {
        for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kAverage, ReduceOp::kMax, ReduceOp::kMin}) {
          if (dt == DType::kBool && op == ReduceOp::kAverage) continue;
          auto value = [](int rank, int64_t i) { return double((rank + i) % 3); };
          std::vector<double> mine(count);
          for (int64_t i = 0; i < count; ++i) mine[i] = value(c.rank(), i);
          Tensor t = Tensor::FromVector(Shape{count}, mine, dt);
          ASSERT_TRUE(WaitFor(c.Allreduce(t, op), absl::Seconds(60)).ok());
          const std::vector<double> got = t.ToDoubles();
          for (int64_t i = 0; i < count; i += 997) {
            double want = value(0, i);
            for (int r = 1; r < n; ++r) {
              const double v = value(r, i);
              want = op == ReduceOp::kMax   ? std::max(want, v)
                     : op == ReduceOp::kMin ? std::min(want, v)
                                            : want + v;
            }
            if (dt == DType::kBool && op == ReduceOp::kSum) want = want != 0;
            if (op == ReduceOp::kAverage) {
              want = conformance::IsFloat(dt) ? want / n : double(static_cast<int64_t>(want) / n);
            }
            want = Tensor::FromVector(Shape{1}, {want}, dt).ToDoubles()[0];
            ASSERT_EQ(got[i], want) << DTypeName(dt) << " " << ReduceOpName(op) << " " << i;
          }
        }
      }
      // Inexact float sums: the same bits on every call and every rank.
      std::vector<double> v(count);
      for (int64_t i = 0; i < count; ++i)
        v[i] = 1.0 / (i + c.rank() + 3) * (c.rank() % 2 ? -1e3 : 1);
      std::vector<float> first;
      for (int call = 0; call < 3; ++call) {
        Tensor t = Tensor::FromVector(Shape{count}, v, DType::kFloat32);
        ASSERT_TRUE(WaitFor(c.Allreduce(t, ReduceOp::kSum), absl::Seconds(60)).ok());
        std::vector<float> bits(t.data<float>(), t.data<float>() + count);
        if (call == 0) first = bits;
        EXPECT_EQ(bits, first);
      }
      Tensor root = Tensor::FromVector(
          Shape{count}, std::vector<double>(first.begin(), first.end()), DType::kFloat32);
      Tensor mine = Tensor::FromVector(
          Shape{count}, std::vector<double>(first.begin(), first.end()), DType::kFloat32);
      ASSERT_TRUE(WaitFor(c.Broadcast(root, 0), absl::Seconds(60)).ok());
      EXPECT_EQ(root.ToDoubles(), mine.ToDoubles()) << "ranks hold different sums";
    });
  }
}

// A pipeline of 2 stages x 2 replicas on 4 ranks: replicas {0,1} and {2,3},
// stages {0,2} and {1,3}, used in turn and in flight together.
TEST(SplitCommunicator, TwoSplitsOfOneJobWorkTogether) {
  std::vector<std::shared_ptr<Communicator>> group = CreateInProcessGroup(4);
  std::vector<std::thread> threads;
  for (int r = 0; r < 4; ++r) {
    threads.emplace_back([&, r] {
      auto replica = SplitCommunicator(group[r], r / 2, absl::Seconds(60));
      auto stage = SplitCommunicator(group[r], r % 2, absl::Seconds(60));
      ASSERT_TRUE(replica.ok() && stage.ok());
      Tensor a = Tensor::FromVector(Shape{1}, {double(r)});
      Tensor b = Tensor::FromVector(Shape{1}, {double(10 * r)});
      auto wa = (*replica)->Allreduce(a, ReduceOp::kSum);
      auto wb = (*stage)->Allreduce(b, ReduceOp::kSum);
      ASSERT_TRUE(wb->Wait(absl::Now() + absl::Seconds(60)).ok());
      ASSERT_TRUE(wa->Wait(absl::Now() + absl::Seconds(60)).ok());
      EXPECT_EQ(a.ToDoubles()[0], r < 2 ? 0 + 1 : 2 + 3);
      EXPECT_EQ(b.ToDoubles()[0], r % 2 ? 10 + 30 : 0 + 20);
      // The parent still works beside them.
      Tensor c = Tensor::FromVector(Shape{1}, {1.0});
      ASSERT_TRUE(WaitFor(group[r]->Allreduce(c, ReduceOp::kSum), absl::Seconds(60)).ok());
      EXPECT_EQ(c.ToDoubles()[0], 4);
    });
  }
  for (std::thread& t : threads) t.join();
}

TEST(SplitCommunicator, ErrorsNameTheJobsRanks) {
  // Rank 3 (sub-rank 1 of {1, 3, 5}) never joins: rank 1 waits for rank 3.
  std::vector<std::shared_ptr<Communicator>> group = CreateInProcessGroup(6);
  std::vector<std::thread> threads;
  for (int r = 0; r < 6; ++r) {
    threads.emplace_back([&, r] {
      auto sub = SplitCommunicator(group[r], r % 2, absl::Seconds(60));
      ASSERT_TRUE(sub.ok());
      if (r == 1) {
        Tensor t = Tensor::FromVector(Shape{1}, {1.0});
        absl::Status s = WaitFor((*sub)->Allreduce(t, ReduceOp::kSum), absl::Milliseconds(300));
        EXPECT_EQ(s.code(), absl::StatusCode::kDeadlineExceeded);
        EXPECT_THAT(s.message(), HasSubstr("recv from rank 3"));
        EXPECT_THAT(s.message(), HasSubstr("waiting for rank 3"));
      }
      // Bad arguments.
      Tensor t = Tensor::FromVector(Shape{1}, {1.0});
      absl::Status peer = WaitFor((*sub)->Send(t, 3, 0), absl::Seconds(1));
      EXPECT_THAT(peer.message(), HasSubstr("3")) << peer;
      absl::Status tag =
          WaitFor((*sub)->Send(t, ((*sub)->rank() + 1) % 3, 1 << 20), absl::Seconds(1));
      EXPECT_THAT(tag.message(), HasSubstr("is outside [0, 2^20), the tags of a split"));
    });
  }
  for (std::thread& t : threads) t.join();
  // A rank that does not take part in the split: the others name it.
  std::vector<std::shared_ptr<Communicator>> g2 = CreateInProcessGroup(2);
  auto lonely = SplitCommunicator(g2[0], 0, absl::Milliseconds(300));
  ASSERT_FALSE(lonely.ok());
  EXPECT_THAT(lonely.status().message(), HasSubstr("rank 1"));
  auto negative = SplitCommunicator(g2[1], -1, absl::Seconds(1));
  EXPECT_THAT(negative.status().message(), HasSubstr("split: colour -1 is negative"));
}

}  // namespace
}  // namespace symx
