#include "tests/distributed/mpi_test_main.h"

#include <cstdio>

#include "distributed/mpi_communicator.h"
#include "graph/error.h"
#include "gtest/gtest.h"

namespace symx {
namespace {
std::shared_ptr<Communicator> g_world;
}  // namespace

const std::shared_ptr<Communicator>& MpiWorld() { return g_world; }

}  // namespace symx

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (!symx::StartedByMpiLauncher()) {
    std::fprintf(stderr, "run this test under mpirun (tests/distributed/mpirun.sh)\n");
    return 2;
  }
  symx::g_world = symx::ValueOrThrow(symx::InitMpiWorld(&argc, &argv));
  int rc = RUN_ALL_TESTS();
  symx::Tensor worst = symx::Tensor::FromVector(symx::Shape{1}, {double(rc)}, symx::DType::kInt32);
  absl::Status s =
      symx::WaitFor(symx::g_world->Allreduce(worst, symx::ReduceOp::kMax), absl::Seconds(60));
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", std::string(s.message()).c_str());
    return 1;
  }
  rc = static_cast<int>(worst.ToDoubles()[0]);
  symx::g_world.reset();
  symx::FinalizeMpi();
  return rc;
}
