// The NCCL communicator: GPU tensors between GPUs, of one process and of the
// ranks of an mpirun job (built with --config=cuda).
//
//   auto members = ValueOrThrow(CreateNcclCommunicators({gpu0, gpu1}, mpi_world, {}));
//   // members[i] is gpu i's member: NCCL rank host_rank * 2 + i of 2 * ranks
//   SYMX_RETURN_IF_ERROR(WaitFor(members[0]->Allreduce(grad_on_gpu0, ReduceOp::kSum), t));
//
// One member per GPU: a member is a Communicator whose rank() and size() are
// NCCL ranks (with one GPU per process, the host ranks). Setup is collective
// over the host communicator's ranks: rank 0 makes NCCL's unique id and
// broadcasts it over the host communicator (MPI); every rank must give the
// same number of GPUs, each a distinct physical device.
//
// Streams and ordering: each member has its own non-blocking stream. An
// operation makes that stream wait (on the GPU, through an event) for what
// the GPU's compute stream has enqueued so far, the tensor's producer, then
// enqueues the NCCL call and records a completion event. Nothing waits on the
// host: Work::Wait polls the event, and ComputeWaitsFor(work) makes the
// compute stream wait for it on the GPU instead (RecvForCompute: the _recv
// kernel's way). Abort aborts the NCCL communicator only (which ends the
// NCCL kernels a stream is blocked on); ending the job is the host
// communicator's Abort.
//
// Deadlines, as for MPI (communicator.h): communicators are non-blocking
// (ncclConfig_t::blocking = 0), so setup and enqueueing never block the host
// either; every wait polls ncclCommGetAsyncError against its deadline. On a
// deadline or an asynchronous NCCL error the NCCL communicator is aborted
// (ncclCommAbort, which also ends the kernels waiting on the GPU) and the
// member is broken. The error names the operation, this NCCL rank and, for
// send/recv, the peer; for a collective it then asks the ranks over the
// `probe` host communicator (a barrier with a short deadline; the MPI
// communicator names the ranks that do not answer) which rank stalled.
//
// Tensors: on the member's GPU, any dtype NCCL has (float16/32/64, bfloat16,
// int8/32/64, uint8, bool for max/min). Send/Recv: NCCL matches a pair's
// messages strictly in call order and cannot check sizes or tags (tags are
// range-checked only); the executor's bind-time agreement makes both sides'
// plans, shapes included, equal. Reductions are NCCL's: deterministic for
// the same ranks, sizes and topology.
//
// Several members in one thread: NCCL requires one group call for all of
// them (GroupAllreduce), else the first call can wait for the others forever.
#ifndef SYMX_DISTRIBUTED_NCCL_COMMUNICATOR_H_
#define SYMX_DISTRIBUTED_NCCL_COMMUNICATOR_H_

#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "devices/context.h"
#include "distributed/communicator.h"

namespace symx {

struct NcclOptions {
  // How long setup and the enqueueing of one operation may take.
  absl::Duration timeout = absl::Seconds(300);
  // Asked which rank stalled when a collective times out (a barrier with a
  // 2 s deadline, whose error names the ranks that do not answer); nullptr:
  // not asked. The gradient reducer and cross-rank binds pass the job's host
  // communicator: the probe runs only on the way to ending the job.
  std::shared_ptr<Communicator> probe;
};

class NcclCommunicator : public Communicator {
 public:
  // The GPU this member runs on (this process's context).
  virtual const Context& device() const = 0;
  // The GPU's compute stream waits, on the device, for `work` (a Work this
  // member returned) to complete. InvalidArgument for another member's Work.
  virtual absl::Status ComputeWaitsFor(const Work& work) = 0;
  // Recv, then the compute stream waits for it on the device: what follows
  // on the GPU may read `t` at once, the host not waiting. A failure to
  // order it breaks the member (the returned Work carries the error).
  virtual std::unique_ptr<Work> RecvForCompute(const Tensor& t, int peer, int64_t tag) = 0;
};

// The members for `gpus` (this process's GPUs, in order) of one NCCL
// communicator over every rank of `host` (nullptr or one rank: this process
// only). Collective over `host`. Errors name the GPU or rank at fault.
absl::StatusOr<std::vector<std::shared_ptr<NcclCommunicator>>> CreateNcclCommunicators(
    const std::vector<Context>& gpus, std::shared_ptr<Communicator> host,
    const NcclOptions& options);

// Starts NCCL's finalize on every member given (this process's members of
// one communicator, about to be destroyed). A member's destructor waits for
// its finalize, which completes only once every member of the communicator
// has started one: without this, destroying a process's members one by one
// would make each wait for the next (10 s, then an abort).
void FinalizeTogether(const std::vector<std::shared_ptr<NcclCommunicator>>& members);

// An allreduce of tensors[i] on members[i] (members of one process, each
// once), as one NCCL group. One Work per member.
std::vector<std::unique_ptr<Work>> GroupAllreduce(const std::vector<NcclCommunicator*>& members,
                                                  const std::vector<Tensor>& tensors, ReduceOp op);

}  // namespace symx

#endif  // SYMX_DISTRIBUTED_NCCL_COMMUNICATOR_H_
