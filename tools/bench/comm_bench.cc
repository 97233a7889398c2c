// Communicator cost against bare MPI, side by side in one run (run it under
// mpirun: tools/bench/run_mpi.sh runs it with 2 and 4 ranks).
//
//   allreduce: symx's Communicator::Allreduce (MPI_Iallreduce polled against
//     a deadline) against a blocking MPI_Allreduce on the same buffer, 4 KB to
//     64 MB of float32; bus bandwidth = bytes/time * 2(n-1)/n (as nccl-tests).
//   send/recv: a stream of messages rank 0 -> rank 1 through Send/Recv Works
//     against MPI_Send/MPI_Recv, 4 KB to 64 MB.
// Each sample starts after a barrier; the two sides alternate; medians are
// reported with their ratio (symx / MPI; >= 0.9 is the goal).
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#include "devices/tensor.h"
#include "distributed/mpi_communicator.h"
#include "graph/error.h"

namespace symx {
namespace {

const absl::Duration kTimeout = absl::Seconds(120);

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Median seconds per operation of `a` and `b`, alternating, each sample
// `inner` operations started together on every rank.
std::pair<double, double> Paired(const std::function<void()>& a, const std::function<void()>& b,
                                 int reps, int inner) {
  std::vector<double> sa, sb;
  for (int r = -1; r < reps; ++r) {
    for (int which = 0; which < 2; ++which) {
      MPI_Barrier(MPI_COMM_WORLD);
      const double t0 = Now();
      for (int i = 0; i < inner; ++i) (which == 0 ? a : b)();
      const double t = (Now() - t0) / inner;
      if (r >= 0) (which == 0 ? sa : sb).push_back(t);
    }
  }
  std::sort(sa.begin(), sa.end());
  std::sort(sb.begin(), sb.end());
  return {sa[sa.size() / 2], sb[sb.size() / 2]};
}

void Allreduce(Communicator& comm) {
  const int n = comm.size();
  if (comm.rank() == 0) {
    std::printf("allreduce, %d ranks: bus bandwidth GB/s (median), symx / MPI_Allreduce\n", n);
    std::printf("%10s %12s %12s %8s\n", "bytes", "symx", "MPI", "ratio");
  }
  std::vector<double> ratios;
  for (size_t bytes = 4096; bytes <= (size_t{64} << 20); bytes *= 4) {
    const int64_t count = static_cast<int64_t>(bytes / 4);
    Tensor t = ValueOrThrow(Tensor::Empty(Shape{count}, DType::kFloat32));
    t.Fill(1.0 / n);
    const int inner = bytes <= (size_t{1} << 20) ? 50 : 5;
    auto [ours, bare] =
        Paired([&] { ThrowIfError(WaitFor(comm.Allreduce(t, ReduceOp::kSum), kTimeout)); },
               [&] {
                 MPI_Allreduce(MPI_IN_PLACE, t.raw_data(), static_cast<int>(count), MPI_FLOAT,
                               MPI_SUM, MPI_COMM_WORLD);
               },
               7, inner);
    const double factor = 2.0 * (n - 1) / n;
    const double bw_ours = bytes / ours * factor / 1e9, bw_bare = bytes / bare * factor / 1e9;
    ratios.push_back(bw_ours / bw_bare);
    if (comm.rank() == 0) {
      std::printf("%10zu %12.3f %12.3f %8.3f\n", bytes, bw_ours, bw_bare, bw_ours / bw_bare);
    }
  }
  std::sort(ratios.begin(), ratios.end());
  if (comm.rank() == 0) std::printf("allreduce ratio: min %.3f\n\n", ratios.front());
}

void SendRecv(Communicator& comm) {
  if (comm.rank() == 0) {
    std::printf("send/recv rank 0 -> 1: GB/s (median), symx / MPI_Send+MPI_Recv\n");
    std::printf("%10s %12s %12s %8s\n", "bytes", "symx", "MPI", "ratio");
  }
  const bool sender = comm.rank() == 0, receiver = comm.rank() == 1;
  for (size_t bytes = 4096; bytes <= (size_t{64} << 20); bytes *= 4) {
    Tensor t = ValueOrThrow(Tensor::Empty(Shape{static_cast<int64_t>(bytes)}, DType::kUint8));
    t.Fill(1);
    const int inner = bytes <= (size_t{1} << 20) ? 50 : 5;
    auto [ours, bare] = Paired(
        [&] {
          if (sender) ThrowIfError(WaitFor(comm.Send(t, 1, 3), kTimeout));
          if (receiver) ThrowIfError(WaitFor(comm.Recv(t, 0, 3), kTimeout));
        },
        [&] {
          if (sender) {
            MPI_Send(t.raw_data(), static_cast<int>(bytes), MPI_BYTE, 1, 3, MPI_COMM_WORLD);
          }
          if (receiver) {
            MPI_Recv(t.raw_data(), static_cast<int>(bytes), MPI_BYTE, 0, 3, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
          }
        },
        7, inner);
    if (comm.rank() == 0) {
      std::printf("%10zu %12.3f %12.3f %8.3f\n", bytes, bytes / ours / 1e9, bytes / bare / 1e9,
                  bare / ours);
    }
  }
}

}  // namespace
}  // namespace symx

int main(int argc, char** argv) {
  if (!symx::StartedByMpiLauncher()) {
    std::fprintf(stderr, "run under mpirun: tools/bench/run_mpi.sh\n");
    return 2;
  }
  std::shared_ptr<symx::Communicator> world = symx::ValueOrThrow(symx::InitMpiWorld(&argc, &argv));
  symx::Allreduce(*world);
  if (world->size() >= 2) symx::SendRecv(*world);
  world.reset();
  symx::FinalizeMpi();
  return 0;
}
