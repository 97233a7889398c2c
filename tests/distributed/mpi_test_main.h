// main() for gtest binaries run under mpirun (tests/distributed/mpirun.sh):
// it initializes MPI, runs the tests on every rank and makes every rank exit
// with the worst result, so a failure on any rank fails the job.
#ifndef SYMX_TESTS_DISTRIBUTED_MPI_TEST_MAIN_H_
#define SYMX_TESTS_DISTRIBUTED_MPI_TEST_MAIN_H_

#include <memory>

#include "distributed/communicator.h"

namespace symx {

// The world communicator (valid while tests run).
const std::shared_ptr<Communicator>& MpiWorld();

}  // namespace symx

#endif  // SYMX_TESTS_DISTRIBUTED_MPI_TEST_MAIN_H_
