// The NCCL communicator (distributed/nccl_communicator.h) on every physical
// GPU of this machine: collectives and send/recv between the GPUs of one
// process, the same between two in-process "ranks", argument errors, and
// deadlines (a peer that never joins or never calls). Tests that need more
// GPUs than the machine has skip, saying so.
#include "distributed/nccl_communicator.h"

#include <chrono>
#include <cmath>
#include <thread>
#include <vector>

#include "devices/cuda/cuda_device.h"
#include "distributed/agreement.h"
#include "distributed/inprocess_communicator.h"
#include "graph/error.h"
#include "gtest/gtest.h"
#include "tests/expect_contains.h"

namespace symx {
namespace {

int PhysicalGpus() { return cuda::NumPhysicalGpus(); }

#define REQUIRE_PHYSICAL_GPUS(n)                                                                 \
  do {                                                                                           \
    if (PhysicalGpus() < (n)) {                                                                  \
      GTEST_SKIP() << "needs " << (n) << " physical GPU(s); this machine has " << PhysicalGpus() \
                   << " (NCCL needs a distinct GPU per member)";                                 \
    }                                                                                            \
  } while (0)

std::vector<Context> AllGpus(int n) {
  std::vector<Context> out;
  for (int i = 0; i < n; ++i) out.push_back(Context::GPU(i));
  return out;
}

Tensor OnGpu(const std::vector<double>& v, DType dt, const Context& gpu) {
  return ValueOrThrow(
      CopyToNew(Tensor::FromVector(Shape{static_cast<int64_t>(v.size())}, v, dt), gpu, dt));
}

std::vector<double> Host(const Tensor& t) {
  return ValueOrThrow(CopyToNew(t, Context::CPU(), t.dtype())).ToDoubles();
}

constexpr absl::Duration kWait = absl::Seconds(60);

// This process's members of one communicator, finalized together when the
// test ends (destroying them one by one would make each wait for the next).
struct Members {
  std::vector<std::shared_ptr<NcclCommunicator>> all;
  ~Members() { FinalizeTogether(all); }
  NcclCommunicator& operator[](size_t i) { return *all[i]; }
};

TEST(Nccl, GroupAllreduceOverEveryGpuInEveryDtypeAndOp) {
  REQUIRE_PHYSICAL_GPUS(1);
  const int n = PhysicalGpus();
  Members members{ValueOrThrow(CreateNcclCommunicators(AllGpus(n), nullptr, {}))};
  ASSERT_EQ(members.all.size(), static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(members[i].rank(), i);
    EXPECT_EQ(members[i].size(), n);
    EXPECT_EQ(members[i].backend(), "nccl");
  }
  std::vector<NcclCommunicator*> raw;
  for (auto& m : members.all) raw.push_back(m.get());
  for (DType dt : {DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kBFloat16,
                   DType::kInt32, DType::kInt64, DType::kUint8}) {
    for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kAverage, ReduceOp::kMax, ReduceOp::kMin}) {
      SCOPED_TRACE(DTypeName(dt) + " " + ReduceOpName(op));
      std::vector<Tensor> ts;
      for (int i = 0; i < n; ++i) {
        ts.push_back(OnGpu({double(2 * i), double(4 + i), 8}, dt, Context::GPU(i)));
      }
      for (auto& w : GroupAllreduce(raw, ts, op)) ASSERT_TRUE(w->Wait(absl::Now() + kWait).ok());
      std::vector<double> want(3);
      for (int k = 0; k < 3; ++k) {
        std::vector<double> col;
        for (int i = 0; i < n; ++i) col.push_back(k == 0 ? 2 * i : k == 1 ? 4 + i : 8);
        double sum = 0;
        for (double v : col) sum += v;
        want[k] = op == ReduceOp::kSum       ? sum
                  : op == ReduceOp::kAverage ? sum / n
                  : op == ReduceOp::kMax     ? *std::max_element(col.begin(), col.end())
                                             : *std::min_element(col.begin(), col.end());
        const bool integer = dt == DType::kInt32 || dt == DType::kInt64 || dt == DType::kUint8;
        if (integer) want[k] = std::trunc(want[k]);
      }
      for (int i = 0; i < n; ++i) {
        std::vector<double> got = Host(ts[i]);
        for (int k = 0; k < 3; ++k) EXPECT_NEAR(got[k], want[k], 0.01 * std::abs(want[k]) + 1e-9);
      }
    }
  }
}

// One thread per member, as a program with a thread per GPU drives them.
void OnEveryMember(const std::vector<std::shared_ptr<NcclCommunicator>>& members,
                   const std::function<void(NcclCommunicator&)>& fn) {
  std::vector<std::thread> threads;
  for (auto& m : members) threads.emplace_back([&fn, m] { fn(*m); });
  for (auto& t : threads) t.join();
}

TEST(Nccl, BroadcastBarrierAndAllreduceFromEachMembersThread) {
  REQUIRE_PHYSICAL_GPUS(1);
  const int n = PhysicalGpus();
  Members members{ValueOrThrow(CreateNcclCommunicators(AllGpus(n), nullptr, {}))};
  OnEveryMember(members.all, [&](NcclCommunicator& m) {
    const int r = m.rank();
    Tensor t = OnGpu({double(r), double(10 * r)}, DType::kFloat32, m.device());
    EXPECT_TRUE(WaitFor(m.Broadcast(t, n - 1), kWait).ok());
    EXPECT_EQ(Host(t), (std::vector<double>{double(n - 1), double(10 * (n - 1))}));
    EXPECT_TRUE(WaitFor(m.Barrier(), kWait).ok());
    Tensor s = OnGpu({1.0}, DType::kFloat32, m.device());
    EXPECT_TRUE(WaitFor(m.Allreduce(s, ReduceOp::kSum), kWait).ok());
    EXPECT_EQ(Host(s), (std::vector<double>{double(n)}));
  });
}

TEST(Nccl, ComputeStreamWaitsOnTheDevice) {
  REQUIRE_PHYSICAL_GPUS(1);
  auto members = ValueOrThrow(CreateNcclCommunicators({Context::GPU(0)}, nullptr, {}));
  NcclCommunicator& m = *members[0];
  Tensor t = OnGpu({3, 4}, DType::kFloat32, m.device());
  std::unique_ptr<Work> w = m.Allreduce(t, ReduceOp::kSum);
  ASSERT_TRUE(m.ComputeWaitsFor(*w).ok());
  // A copy enqueued after it (through the compute stream) sees the result.
  EXPECT_EQ(Host(t), (std::vector<double>{3, 4}));
  EXPECT_TRUE(w->Wait(absl::Now() + kWait).ok());
  // Another member's (or communicator's) Work is refused.
  auto other = ValueOrThrow(CreateNcclCommunicators({Context::GPU(0)}, nullptr, {}));
  std::unique_ptr<Work> w2 = other[0]->Barrier();
  EXPECT_CONTAINS(std::string(m.ComputeWaitsFor(*w2).message()), "not this member's");
  EXPECT_TRUE(w2->Wait(absl::Now() + kWait).ok());
}

TEST(Nccl, SendAndRecvBetweenTwoGpus) {
  REQUIRE_PHYSICAL_GPUS(2);
  Members members{ValueOrThrow(CreateNcclCommunicators(AllGpus(2), nullptr, {}))};
  OnEveryMember(members.all, [&](NcclCommunicator& m) {
    if (m.rank() == 0) {
      Tensor t = OnGpu({1.5, -2, 7}, DType::kFloat64, m.device());
      EXPECT_TRUE(WaitFor(m.Send(t, 1, 5), kWait).ok());
    } else {
      Tensor t = OnGpu({0, 0, 0}, DType::kFloat64, m.device());
      EXPECT_TRUE(WaitFor(m.Recv(t, 0, 5), kWait).ok());
      EXPECT_EQ(Host(t), (std::vector<double>{1.5, -2, 7}));
    }
  });
}

TEST(Nccl, ArgumentErrorsNameTheMemberAndTheFault) {
  REQUIRE_PHYSICAL_GPUS(1);
  auto members = ValueOrThrow(CreateNcclCommunicators({Context::GPU(0)}, nullptr, {}));
  NcclCommunicator& m = *members[0];
  auto error = [](std::unique_ptr<Work> w) {
    return std::string(w->Wait(absl::Now() + kWait).message());
  };
  Tensor host = Tensor::FromVector(Shape{2}, {1, 2}, DType::kFloat32);
  EXPECT_CONTAINS(error(m.Allreduce(host, ReduceOp::kSum)), "is on cpu(0), not on gpu(0)");
  Tensor flag = OnGpu({1, 0}, DType::kBool, m.device());
  EXPECT_CONTAINS(error(m.Allreduce(flag, ReduceOp::kSum)), "bool tensors reduce with max or min");
  EXPECT_CONTAINS(error(m.Broadcast(OnGpu({1}, DType::kFloat32, m.device()), 3)),
                  "root 3 does not exist");
  EXPECT_CONTAINS(error(m.Send(OnGpu({1}, DType::kFloat32, m.device()), 0, 0)),
                  "cannot send to itself");
  EXPECT_CONTAINS(error(m.Recv(OnGpu({1}, DType::kFloat32, m.device()), 0, int64_t{1} << 31)),
                  "tag");
  // Bad arguments do not break the communicator.
  Tensor ok = OnGpu({2}, DType::kFloat32, m.device());
  EXPECT_TRUE(WaitFor(m.Allreduce(ok, ReduceOp::kSum), kWait).ok());
}

TEST(Nccl, SetupErrorsNameTheContext) {
  auto error = [](const std::vector<Context>& gpus) {
    return std::string(CreateNcclCommunicators(gpus, nullptr, {}).status().message());
  };
  EXPECT_CONTAINS(error({}), "no GPUs given");
  EXPECT_CONTAINS(error({Context::CPU(0)}), "cpu(0) is not a GPU of this process");
  EXPECT_CONTAINS(error({Context::GPU(99)}), "gpu(99)");
  if (PhysicalGpus() >= 1 && cuda::NumLogicalGpus() >= 2 && PhysicalGpus() < 2) {
    EXPECT_CONTAINS(error({Context::GPU(0), Context::GPU(1)}), "same physical GPU");
  }
}

// Two in-process ranks, each with its own GPU, over an in-process host
// communicator (a stand-in for MPI).
TEST(Nccl, AcrossRanksAStalledPeerIsADeadlineNotAHang) {
  REQUIRE_PHYSICAL_GPUS(2);
  auto host = CreateInProcessGroup(2);
  std::vector<std::shared_ptr<NcclCommunicator>> mine(2);
  std::vector<std::thread> threads;
  NcclOptions o;
  o.timeout = absl::Seconds(30);
  for (int r = 0; r < 2; ++r) {
    threads.emplace_back([&, r] {
      auto made = CreateNcclCommunicators({Context::GPU(r)}, host[r], o);
      ASSERT_TRUE(made.ok()) << made.status();
      mine[r] = (*made)[0];
    });
  }
  for (auto& t : threads) t.join();
  ASSERT_TRUE(mine[0] && mine[1]);
  EXPECT_EQ(mine[1]->rank(), 1);
  // Rank 1 never calls the allreduce: rank 0's wait ends at its deadline.
  Tensor t = OnGpu({1}, DType::kFloat32, mine[0]->device());
  const auto start = std::chrono::steady_clock::now();
  absl::Status s = WaitFor(mine[0]->Allreduce(t, ReduceOp::kSum), absl::Seconds(2));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
  EXPECT_EQ(s.code(), absl::StatusCode::kDeadlineExceeded) << s;
  EXPECT_CONTAINS(std::string(s.message()), "nccl allreduce #0");
  EXPECT_CONTAINS(std::string(s.message()), "NCCL rank 0 (gpu(0) of rank 0)");
  EXPECT_CONTAINS(std::string(s.message()), "aborted");
  // The member is broken from now on, naming the first error.
  EXPECT_CONTAINS(std::string(WaitFor(mine[0]->Barrier(), kWait).message()), "failed earlier");
  // A recv whose peer never sends names the peer.
  Tensor r = OnGpu({0}, DType::kFloat32, mine[1]->device());
  absl::Status rs = WaitFor(mine[1]->Recv(r, 0, 1), absl::Seconds(2));
  EXPECT_CONTAINS(std::string(rs.message()), "waiting for NCCL rank 0 (rank 0)");
}

// Two ranks on one physical GPU: every rank fails alike, at once, with
// FailedPrecondition (a bind then moves its transfers through host copies).
TEST(Nccl, TwoRanksOnOneGpuFailAlikeBeforeNcclIsAsked) {
  REQUIRE_PHYSICAL_GPUS(1);
  auto host = CreateInProcessGroup(2);
  std::vector<absl::Status> s(2);
  std::vector<std::thread> threads;
  for (int r = 0; r < 2; ++r) {
    threads.emplace_back(
        [&, r] { s[r] = CreateNcclCommunicators({Context::GPU(0)}, host[r], {}).status(); });
  }
  for (auto& t : threads) t.join();
  for (int r = 0; r < 2; ++r) {
    EXPECT_EQ(s[r].code(), absl::StatusCode::kFailedPrecondition) << s[r];
    EXPECT_CONTAINS(std::string(s[r].message()), "ranks 0 and 1 both use the GPU at");
  }
}

// A rank that never joins makes setup end at its deadline on the rank that
// did, with both ranks' calls returning.
TEST(Nccl, ARankThatNeverJoinsEndsSetupAtItsDeadline) {
  REQUIRE_PHYSICAL_GPUS(1);
  auto host = CreateInProcessGroup(2);
  NcclOptions o;
  o.timeout = absl::Seconds(3);
  absl::Status s0, s1;
  std::thread rank1([&] {
    // Rank 1 agrees to set up, then never initializes its NCCL member: it
    // takes part in the host steps only (the id exchange).
    Rendezvous rendezvous(*host[1], "NCCL setup", o.timeout);
    s1 = rendezvous.Agree(absl::OkStatus(), {"GPUs per rank: 1"});
    // Its GPU's identity (another host's), then the unique id.
    if (s1.ok()) s1 = rendezvous.Exchange(absl::OkStatus(), "elsewhere:0000:99:00.0;").status();
    if (s1.ok()) s1 = rendezvous.Exchange(absl::OkStatus(), "").status();
  });
  const auto start = std::chrono::steady_clock::now();
  s0 = CreateNcclCommunicators({Context::GPU(0)}, host[0], o).status();
  rank1.join();
  EXPECT_TRUE(s1.ok()) << s1;
  EXPECT_EQ(s0.code(), absl::StatusCode::kDeadlineExceeded) << s0;
  EXPECT_CONTAINS(std::string(s0.message()), "NCCL setup of 2 members over 2 ranks");
  EXPECT_CONTAINS(std::string(s0.message()), "a rank did not join");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
}

}  // namespace
}  // namespace symx
