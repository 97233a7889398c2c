// What every Communicator must do, written once and run on each
// implementation: the in-process one with 2-4 ranks as threads, the MPI one
// under mpirun -np 2 and -np 4. Each function is the body of one rank; the
// number of ranks comes from the communicator (at least 2).
#ifndef SYMX_TESTS_DISTRIBUTED_COMM_CONFORMANCE_H_
#define SYMX_TESTS_DISTRIBUTED_COMM_CONFORMANCE_H_

#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/distributed/comm_test_util.h"

namespace symx::conformance {

inline const absl::Duration kLong = absl::Seconds(60);

inline Tensor Values(DType dtype, std::vector<double> values) {
  return Tensor::FromVector(Shape{static_cast<int64_t>(values.size())}, values, dtype);
}

// Small values every dtype holds exactly, different per rank.
inline std::vector<double> RankValues(int rank) {
  return {double(rank + 1), double(rank % 3), double(2 - rank % 3), 1, 0};
}

// A ring: each rank sends to the next and receives from the previous, in
// every dtype, with two tags in flight at once.
inline void SendRecvEveryDtype(Communicator& c) {
  const int n = c.size(), r = c.rank();
  const int next = (r + 1) % n, prev = (r + n - 1) % n;
  for (DType dt : AllDTypes()) {
    Tensor out_a = Values(dt, RankValues(r)), out_b = Values(dt, {double(r % 2)});
    Tensor in_a = *Tensor::Zeros(Shape{5}, dt), in_b = *Tensor::Zeros(Shape{1}, dt);
    auto recv_b = c.Recv(in_b, prev, 11);
    auto recv_a = c.Recv(in_a, prev, 10);
    auto send_a = c.Send(out_a, next, 10);
    auto send_b = c.Send(out_b, next, 11);
    const absl::Time deadline = absl::Now() + kLong;
    ASSERT_TRUE(recv_a->Wait(deadline).ok()) << DTypeName(dt);
    ASSERT_TRUE(recv_b->Wait(deadline).ok()) << DTypeName(dt);
    ASSERT_TRUE(send_a->Wait(deadline).ok()) << DTypeName(dt);
    ASSERT_TRUE(send_b->Wait(deadline).ok()) << DTypeName(dt);
    EXPECT_EQ(in_a.ToDoubles(), Values(dt, RankValues(prev)).ToDoubles()) << DTypeName(dt);
    EXPECT_EQ(in_b.ToDoubles()[0], prev % 2) << DTypeName(dt);
  }
}

// Messages with the same source and tag arrive in the order they were sent.
inline void SameTagInOrder(Communicator& c) {
  if (c.rank() == 0) {
    for (int i = 0; i < 5; ++i) {
      ASSERT_TRUE(WaitFor(c.Send(Values(DType::kInt64, {double(i)}), 1, 3), kLong).ok());
    }
  } else if (c.rank() == 1) {
    for (int i = 0; i < 5; ++i) {
      Tensor t = *Tensor::Zeros(Shape{1}, DType::kInt64);
      ASSERT_TRUE(WaitFor(c.Recv(t, 0, 3), kLong).ok());
      EXPECT_EQ(t.ToDoubles()[0], i);
    }
  }
}

inline bool IsFloat(DType dt) {
  return dt == DType::kFloat32 || dt == DType::kFloat64 || dt == DType::kFloat16 ||
         dt == DType::kBFloat16;
}

inline void AllreduceEveryOpAndDtype(Communicator& c) {
  const int n = c.size();
  for (DType dt : AllDTypes()) {
    for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kAverage, ReduceOp::kMax, ReduceOp::kMin}) {
      if (dt == DType::kBool && op == ReduceOp::kAverage) continue;
      Tensor t = Values(dt, RankValues(c.rank()));
      absl::Status s = WaitFor(c.Allreduce(t, op), kLong);
      ASSERT_TRUE(s.ok()) << s;
      std::vector<double> got = t.ToDoubles();
      for (size_t i = 0; i < got.size(); ++i) {
        double want = Values(dt, RankValues(0)).ToDoubles()[i];
        for (int r = 1; r < n; ++r) {
          double v = Values(dt, RankValues(r)).ToDoubles()[i];
          want = op == ReduceOp::kMax   ? std::max(want, v)
                 : op == ReduceOp::kMin ? std::min(want, v)
                                        : want + v;
        }
        if (dt == DType::kBool && op == ReduceOp::kSum) want = want != 0;
        if (op == ReduceOp::kAverage) {
          want = IsFloat(dt) ? want / n : static_cast<double>(static_cast<int64_t>(want) / n);
        }
        want = Values(dt, {want}).ToDoubles()[0];
        EXPECT_DOUBLE_EQ(got[i], want)
            << DTypeName(dt) << " " << ReduceOpName(op) << " element " << i;
      }
    }
  }
}

// Order-sensitive float sums give the same bits on every call.
inline void AllreduceIsReproducible(Communicator& c) {
  std::vector<char> first;
  for (int run = 0; run < 10; ++run) {
    const double sign = c.rank() % 2 ? -1 : 1;
    Tensor t = Values(DType::kFloat32,
                      {1e8 * sign, 0.1 * c.rank(), 3.3e-3, 7.0 / 3, 1.0 / (c.rank() + 3)});
    ASSERT_TRUE(WaitFor(c.Allreduce(t, ReduceOp::kSum), kLong).ok());
    std::vector<char> bits(t.nbytes());
    std::memcpy(bits.data(), t.raw_data(), t.nbytes());
    if (run == 0) first = bits;
    EXPECT_EQ(bits, first) << "run " << run;
  }
}

inline void BroadcastFromEveryRootAndBarrier(Communicator& c) {
  for (int root = 0; root < c.size(); ++root) {
    Tensor t = Values(DType::kFloat64, {double(c.rank()), double(c.rank()) * 10});
    ASSERT_TRUE(WaitFor(c.Broadcast(t, root), kLong).ok());
    EXPECT_EQ(t.ToDoubles(), (std::vector<double>{double(root), double(root) * 10}));
    EXPECT_TRUE(WaitFor(c.Barrier(), kLong).ok());
  }
}

// A zero-size tensor and a 48 MB one (many MPI fragments).
inline void EmptyAndLargeTensors(Communicator& c) {
  Tensor empty = *Tensor::Zeros(Shape{0}, DType::kFloat32);
  ASSERT_TRUE(WaitFor(c.Allreduce(empty, ReduceOp::kSum), kLong).ok());
  ASSERT_TRUE(WaitFor(c.Broadcast(empty, 0), kLong).ok());
  Tensor big = *Tensor::Empty(Shape{12 << 20}, DType::kFloat32);
  big.Fill(c.rank() + 1);
  ASSERT_TRUE(WaitFor(c.Allreduce(big, ReduceOp::kSum), kLong).ok());
  const float want = c.size() * (c.size() + 1) / 2.0f;
  const float* d = big.data<float>();
  EXPECT_EQ(d[0], want);
  EXPECT_EQ(d[big.size() - 1], want);
  if (c.rank() < 2) {
    Tensor msg = *Tensor::Empty(Shape{12 << 20}, DType::kFloat32);
    if (c.rank() == 0) {
      msg.Fill(7);
      ASSERT_TRUE(WaitFor(c.Send(msg, 1, 0), kLong).ok());
    } else {
      ASSERT_TRUE(WaitFor(c.Recv(msg, 0, 0), kLong).ok());
      EXPECT_EQ(msg.data<float>()[msg.size() - 1], 7);
    }
  }
}

// Rank 1 never sends: rank 0's receive times out naming rank 1 and the tag,
// and the communicator refuses later work. `sync` is a second, healthy
// communicator of the same ranks.
inline void RecvTimeoutNamesThePeer(Communicator& c, Communicator& sync) {
  Tensor t = *Tensor::Zeros(Shape{4}, DType::kFloat32);
  if (c.rank() == 0) {
    absl::Status s = WaitFor(c.Recv(t, 1, 42), absl::Milliseconds(300));
    EXPECT_EQ(s.code(), absl::StatusCode::kDeadlineExceeded);
    EXPECT_THAT(
        s.message(),
        ::testing::AllOf(::testing::HasSubstr("rank 0: recv from rank 1 (tag 42, 16 bytes)"),
                         ::testing::HasSubstr("did not complete within"),
                         ::testing::HasSubstr("waiting for rank 1")));
    absl::Status later = WaitFor(c.Barrier(), absl::Milliseconds(300));
    EXPECT_EQ(later.code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_THAT(later.message(), ::testing::HasSubstr("failed earlier"));
  }
  ASSERT_TRUE(WaitFor(sync.Barrier(), kLong).ok());
  // The late message completes the abandoned receive (no request left over).
  if (c.rank() == 1) {
    ASSERT_TRUE(WaitFor(c.Send(t, 0, 42), kLong).ok());
  }
  ASSERT_TRUE(WaitFor(sync.Barrier(), kLong).ok());
}

// Rank 1 joins an allreduce late: the others time out naming rank 1.
inline void CollectiveTimeoutNamesTheMissingRank(Communicator& c, Communicator& sync) {
  Tensor t = Values(DType::kFloat32, {1});
  if (c.rank() != 1) {
    absl::Status s = WaitFor(c.Allreduce(t, ReduceOp::kSum), absl::Milliseconds(500));
    EXPECT_EQ(s.code(), absl::StatusCode::kDeadlineExceeded);
    EXPECT_THAT(
        s.message(),
        ::testing::AllOf(::testing::HasSubstr(absl::StrCat("rank ", c.rank(), ": allreduce #0")),
                         ::testing::HasSubstr("waiting for rank 1,")));
    // Only rank 1: the other healthy ranks are stuck in the same collective.
    EXPECT_THAT(s.message(), ::testing::Not(::testing::HasSubstr("waiting for ranks")));
  }
  ASSERT_TRUE(WaitFor(sync.Barrier(), kLong).ok());
  if (c.rank() == 1) {
    ASSERT_TRUE(WaitFor(c.Allreduce(t, ReduceOp::kSum), kLong).ok());
  }
  ASSERT_TRUE(WaitFor(sync.Barrier(), kLong).ok());
}

}  // namespace symx::conformance

#endif  // SYMX_TESTS_DISTRIBUTED_COMM_CONFORMANCE_H_
