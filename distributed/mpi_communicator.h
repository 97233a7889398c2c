// The MPI communicator (Open MPI): host tensors between the processes of an
// mpirun job. The only code in symx that names MPI.
//
//   int main(int argc, char** argv) {
//     std::shared_ptr<Communicator> world;
//     if (StartedByMpiLauncher()) world = ValueOrThrow(InitMpiWorld(&argc, &argv));
//     ...
//     FinalizeMpi();
//   }
//
// Every operation is a non-blocking MPI call (MPI_Isend, MPI_Irecv,
// MPI_Iallreduce, MPI_Ibcast, MPI_Ibarrier) on a duplicate of MPI_COMM_WORLD
// with MPI_ERRORS_RETURN; Work::Wait polls it with MPI_Test against the
// deadline (spinning briefly, then sleeping with backoff so idle waits leave
// the cores to compute). MPI is initialized with MPI_THREAD_MULTIPLE, so
// compute threads and a communication thread may communicate at once.
//
// Naming the rank at fault: a point-to-point wait names its peer. MPI cannot
// say which rank a collective waits for, so when a collective times out the
// rank asks every other rank, on a separate communicator, what it is waiting
// for. Every wait that lasts more than a moment answers such questions, so
// the ranks that do not answer within two seconds are the ones stopped, hung,
// dead or busy outside any communication, and are named as such; ranks that
// answer with another collective or a transfer are named with it (calls made
// in different orders).

// Reductions use MPI's built-in operations (float16 and bfloat16 through
// user-defined ones that add in float): for a fixed number of ranks Open MPI
// picks the same algorithm for the same sizes, so results are reproducible
// run after run. Tensors of any size: larger than 1 GiB moves in 1 GiB pieces.
#ifndef SYMX_DISTRIBUTED_MPI_COMMUNICATOR_H_
#define SYMX_DISTRIBUTED_MPI_COMMUNICATOR_H_

#include <memory>

#include "absl/status/statusor.h"
#include "distributed/communicator.h"

namespace symx {

// True when mpirun/mpiexec (or another PMI launcher) started this process.
// Read from the launcher's environment, once, at the program's edge.
bool StartedByMpiLauncher();

// Initializes MPI with MPI_THREAD_MULTIPLE (once per process; later calls
// return the same communicator) and returns the world communicator.
// FailedPrecondition when the MPI library cannot give thread-multiple.
absl::StatusOr<std::shared_ptr<Communicator>> InitMpiWorld(int* argc, char*** argv);

// A new communicator over every rank (MPI_Comm_dup of the world; collective:
// every rank must call it). Its failures do not break the world's.
absl::StatusOr<std::shared_ptr<Communicator>> NewMpiCommunicator();

// Ranks of the world on this host (after InitMpiWorld; 1 otherwise).
int MpiLocalSize();

// Finalizes MPI if it was initialized. Call at the end of main after every
// operation has completed (after an error, Abort instead).
void FinalizeMpi();

}  // namespace symx

#endif  // SYMX_DISTRIBUTED_MPI_COMMUNICATOR_H_
