// Communicator: how the ranks of a job exchange tensors. The one seam between
// the engine and MPI (and later NCCL): the executor and the training code use
// only this interface; distributed/ holds the implementations.
//
//   std::unique_ptr<Work> w = comm.Allreduce(grads, ReduceOp::kSum);
//   ...                                  // overlap other work
//   SYMX_RETURN_IF_ERROR(w->Wait(absl::Now() + timeout));
//
// Every operation is asynchronous and returns a Work; every wait takes a
// deadline. A wait that expires returns DeadlineExceeded with a message that
// names this rank, the operation, its tag or sequence number, and the rank(s)
// it was waiting for. After a failure the communicator is broken: later
// operations fail at once with the first error (MPI offers no way back from
// an abandoned request); a program should report the error and call Abort().
//
// Tensors: any dtype, host memory, contiguous (views are fine). A tensor given
// to an operation must stay alive and must not be written (Send) or read
// (Recv, collectives) until its Work has completed.
//
// Ordering: sends between two ranks with the same tag are received in the
// order they were sent. Collectives must be called in the same order on every
// rank (as in MPI); each is numbered per communicator ("allreduce #12"), which
// messages use. Reductions are deterministic: the same inputs on the same
// number of ranks give bitwise the same result, run after run.
//
// Thread safety: operations may be started and waited for from several
// threads at once (a compute thread receiving while a communication thread
// reduces gradients). Collectives started concurrently from different threads
// have no defined order between them; callers serialize them.
#ifndef SYMX_DISTRIBUTED_COMMUNICATOR_H_
#define SYMX_DISTRIBUTED_COMMUNICATOR_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "devices/context.h"
#include "devices/tensor.h"

namespace symx {

enum class ReduceOp { kSum, kAverage, kMax, kMin };
const char* ReduceOpName(ReduceOp op);

// The collectives, as implementations name and match them ("allreduce #12").
enum class Collective : int64_t { kAllreduce = 1, kBroadcast = 2, kBarrier = 3 };
// "allreduce", "broadcast", "barrier"; "an unknown collective" otherwise.
const char* CollectiveName(Collective c);

// An operation in flight.
class Work {
 public:
  virtual ~Work() = default;
  // Blocks until the operation completes or `deadline` passes. Calling Wait
  // again after it returned gives the same status.
  absl::Status Wait(absl::Time deadline) { return Wait(deadline, nullptr); }
  // The same, and returns Cancelled as soon as `*cancel` becomes true
  // (checked every few milliseconds): the caller gave up for reasons of its
  // own, so the communicator is not broken (the operation is abandoned; its
  // buffer stays valid).
  virtual absl::Status Wait(absl::Time deadline, const std::atomic<bool>* cancel) = 0;
};

// A Work that is already finished with `status` (e.g. an argument error).
std::unique_ptr<Work> DoneWork(absl::Status status);

// Base of implementations' Works: once finished, Wait returns the same status.
class WorkOnce : public Work {
 public:
  using Work::Wait;

 protected:
  bool done() const { return done_; }
  const absl::Status& status() const { return status_; }
  absl::Status Finish(absl::Status s) {
    done_ = true;
    status_ = std::move(s);
    return status_;
  }

 private:
  bool done_ = false;
  absl::Status status_;
};

class Communicator {
 public:
  virtual ~Communicator() = default;

  virtual int rank() const = 0;
  virtual int size() const = 0;
  // "mpi", "in-process".
  virtual std::string backend() const = 0;

  // Point to point. `tag` must be in [0, 2^30). A Recv's tensor must have the
  // sent tensor's byte size (an error names both sizes).
  virtual std::unique_ptr<Work> Send(const Tensor& t, int peer, int64_t tag) = 0;
  virtual std::unique_ptr<Work> Recv(const Tensor& t, int peer, int64_t tag) = 0;
  // In place on every rank: the element-wise reduction over all ranks.
  // kAverage is the sum divided by size(). Same shape and dtype on every rank.
  virtual std::unique_ptr<Work> Allreduce(const Tensor& t, ReduceOp op) = 0;
  // `root`'s values into `t` on every rank.
  virtual std::unique_ptr<Work> Broadcast(const Tensor& t, int root) = 0;
  virtual std::unique_ptr<Work> Barrier() = 0;

  // Ends the whole job after a fatal error (MPI_Abort); does not return for
  // MPI. The in-process communicator breaks every rank of its group with
  // `why` and returns.
  virtual void Abort(const absl::Status& why) = 0;
};

// Starts and waits for one operation: `timeout` from now.
absl::Status WaitFor(std::unique_ptr<Work> work, absl::Duration timeout);

// The checks every implementation makes before starting an operation; errors
// name the operation and what is wrong.
absl::Status CheckPeer(const Communicator& comm, const char* op, int peer);
absl::Status CheckTag(const char* op, int64_t tag);
absl::Status CheckHostTensor(const Communicator& comm, const char* op, const Tensor& t);
// kSum/kAverage/kMax/kMin are defined for numbers; kMax/kMin for bool too.
absl::Status CheckReducible(const char* op, const Tensor& t, ReduceOp reduce);

// dst op= src element-wise (`n` elements of `dtype`), for the reductions of
// implementations that reduce in their own code. kAverage adds (the caller
// divides once at the end, see ScaleInPlace).
void ReduceInto(ReduceOp op, DType dtype, const void* src, void* dst, int64_t n);
// data[i] /= divisor for `n` elements of `dtype` (floats multiply by the
// reciprocal; integers divide, truncating toward zero).
void DivideInPlace(DType dtype, void* data, int64_t n, int64_t divisor);

// Sends completed by this process that an executor must wait for before its
// values may change again: a _send kernel adds its Work, the executor waits
// for all of them at the end of the phase. Thread-safe.
class PendingSends {
 public:
  void Add(std::unique_ptr<Work> work);
  // Waits for every added Work (all against one deadline, `timeout` from the
  // call) and forgets them; returns at the first error.
  absl::Status WaitAll(absl::Duration timeout);
  // Forgets every Work without waiting (after a failure; MPI keeps the
  // buffers of unfinished sends alive, see mpi_communicator.h).
  void Clear();

 private:
  std::mutex mu_;
  std::vector<std::unique_ptr<Work>> works_ ABSL_GUARDED_BY(mu_);
};

// What a cross-rank step (_send/_recv) needs: the bind's communicator, how
// long one wait may take, where sends in flight are handed over, and a flag
// the executor raises when another step of the run failed (a _recv then
// stops waiting at once). Two per executor: the plan's, which the _send/_recv
// kernels' PrepareFn sees at Bind (communicators only), and the RunState's,
// with `pending` and `cancel`, which every run's step contexts point at
// (KernelContext::rank_channel).
struct RankChannel {
  Communicator* comm = nullptr;
  // The bind's device communicator (NCCL for GPUs), when its transfers all
  // run on one device of that kind per rank (ConnectDeviceCommunicator); the
  // device's _send/_recv kernels use it, else `comm` on host copies.
  Communicator* device_comm = nullptr;
  absl::Duration timeout = absl::Seconds(300);
  PendingSends* pending = nullptr;
  const std::atomic<bool>* cancel = nullptr;
};

// A communicator for cross-rank transfers between devices the host cannot
// address, one device per rank: `device` is this rank's, `host` the ranks'
// communicator. A device library registers it for its device type (NCCL for
// GPUs, distributed/nccl_transfer.cc). Collective over `host`; an error
// that every rank reaches alike (a device shared by two ranks) is
// FailedPrecondition, and the transfers then go through host copies.
using DeviceCommunicatorFactory = std::function<absl::StatusOr<std::shared_ptr<Communicator>>(
    const Context& device, std::shared_ptr<Communicator> host, absl::Duration timeout)>;
bool RegisterDeviceCommunicator(DeviceType type, DeviceCommunicatorFactory factory);
// nullptr when no library registered one for `type`.
const DeviceCommunicatorFactory* FindDeviceCommunicator(DeviceType type);

}  // namespace symx

#endif  // SYMX_DISTRIBUTED_COMMUNICATOR_H_
