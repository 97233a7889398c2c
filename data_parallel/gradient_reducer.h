// GradientReducer: data-parallel gradient summation, overlapped with
// backward (PyTorch DDP's Reducer is the model).
//
// Every replica of a model (an executor per device of this process, and the
// same on every rank) runs the whole graph on its share of the batch. After
// Backward, each replica's gradient of every parameter must hold the sum (or
// average) over all replicas of all ranks. The reducer groups the parameters
// into buckets of at most `bucket_bytes`, in the order backward finishes
// their gradients (Executor::GradientReadyOrder: a table the plan fixed at
// bind, so bucket assignment is part of the plan). Each executor calls back
// as each gradient becomes final; when a bucket's gradients are final on
// every local replica, a communication thread adds the other replicas'
// gradients into replica 0's in replica order, allreduces those across ranks
// in place (all of the bucket's at once) and copies the result to the other
// replicas, while backward goes on computing the next buckets.
//
// Buckets are launched strictly in bucket order, so every rank issues the
// same collectives in the same order whatever the timing, and the sums are
// bitwise reproducible run after run (fixed replica order, deterministic
// allreduce). Ranks whose bucket layouts differ (another model or shapes)
// fail at Create, on every rank, naming both ranks and the first difference.
//
//   auto reducer = GradientReducer::Create(replicas, params, comm, {});
//   for (each batch) {
//     reducer->Start();
//     run every replica's Forward(true) and Backward()   // concurrently
//     SYMX_RETURN_IF_ERROR(reducer->Finish());
//     update the parameters (the same on every replica and rank)
//   }
//
// Thread safety: Start and Finish from one thread; the executors' callbacks
// from any; the accessors from any (last_busy/last_finish_wait lock). What
// those threads share is guarded by mu_. Replicas must not be re-bound while the reducer lives; it
// holds their gradient arrays and sets their gradient-ready callbacks (cleared by the destructor).
#ifndef SYMX_DATA_PARALLEL_GRADIENT_REDUCER_H_
#define SYMX_DATA_PARALLEL_GRADIENT_REDUCER_H_

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "distributed/communicator.h"
#include "executor/executor.h"

namespace symx {

// How buckets of device gradients (gradients on a device the host cannot
// address) are summed. Host gradients use the built-in path (ReduceInto and
// the communicator's host Allreduce); a device library registers one per
// device type: data_parallel/nccl_reducer.cc for GPUs, linked into
// --config=cuda builds, sums over NCCL.
class DeviceBucketSum {
 public:
  virtual ~DeviceBucketSum() = default;
  // grads[k][i]: replica k's gradient of the bucket's i-th parameter. Leaves
  // on every replica the sum over every replica of every rank (divided by
  // their number with `average`), before `deadline`; errors name the rank.
  virtual absl::Status Sum(const std::vector<std::vector<Tensor>>& grads, bool average,
                           absl::Time deadline) = 0;
};
// Makes the summer for replicas on `devices` (this process's, in replica
// order) over the ranks of `comm` (nullptr: this process). Collective.
using DeviceBucketSumFactory = std::function<absl::StatusOr<std::unique_ptr<DeviceBucketSum>>(
    const std::vector<Context>& devices, std::shared_ptr<Communicator> comm,
    absl::Duration timeout)>;
// At static initialization; a second registration for a type is a bug.
bool RegisterDeviceBucketSum(DeviceType type, DeviceBucketSumFactory factory);

struct ReducerOptions {
  size_t bucket_bytes = size_t{25} << 20;
  // Divide the sum by the number of replicas over all ranks (else the sum,
  // as MXNet's kvstore: the optimizer's rescale_grad = 1/global batch then
  // gives the average over the global batch).
  bool average = false;
  absl::Duration timeout = absl::Seconds(300);
};

class GradientReducer {
 public:
  struct Bucket {
    std::vector<size_t> params;  // indices into the `params` given to Create
    DType dtype = DType::kFloat32;
    int64_t elements = 0;
  };

  // `replicas`: this process's executors of one model, one per device (the
  // same symbol and parameter shapes; batch sizes may differ). `params`:
  // argument names to reduce; each needs a gradient in every replica. `comm`:
  // the ranks (nullptr or one rank: this process only). Collective across
  // ranks when comm has several.
  static absl::StatusOr<std::unique_ptr<GradientReducer>> Create(
      const std::vector<Executor*>& replicas, const std::vector<std::string>& params,
      std::shared_ptr<Communicator> comm, const ReducerOptions& options);
  ~GradientReducer();
  GradientReducer(const GradientReducer&) = delete;
  GradientReducer& operator=(const GradientReducer&) = delete;

  // Arms every bucket for one backward pass of every replica.
  void Start();
  // Waits until every bucket has been reduced and written back. Errors: a
  // communication failure or timeout (naming the rank), or a replica whose
  // Backward did not finish every gradient.
  absl::Status Finish();

  const std::vector<Bucket>& buckets() const { return buckets_; }
  int total_replicas() const { return total_replicas_; }
  // Of the last round: how long the communication thread was busy (packing,
  // allreduce, unpacking) and how long Finish waited for it.
  absl::Duration last_busy() const {
    std::lock_guard<std::mutex> lock(mu_);
    return last_busy_;
  }
  absl::Duration last_finish_wait() const {
    std::lock_guard<std::mutex> lock(mu_);
    return last_finish_wait_;
  }

 private:
  GradientReducer() = default;
  void OnReady(size_t replica, size_t arg);
  void Loop();
  absl::Status Reduce(size_t bucket);

  std::vector<Executor*> replicas_;
  std::shared_ptr<Communicator> comm_;
  ReducerOptions options_;
  int total_replicas_ = 1;
  std::vector<Bucket> buckets_;
  std::vector<int> bucket_of_arg_;  // per argument index; -1: not reduced
  std::unique_ptr<DeviceBucketSum> device_sum_;  // device gradients only
  // grads_[replica][param]
  std::vector<std::vector<Tensor>> grads_;

  // What the executors' callbacks, the communication thread and Start/Finish
  // share.
  mutable std::mutex mu_;
  std::condition_variable cv_;
  uint64_t round_ ABSL_GUARDED_BY(mu_) = 0;       // rounds started
  uint64_t done_round_ ABSL_GUARDED_BY(mu_) = 0;  // rounds the thread finished
  // Per bucket: gradients still to finish this round.
  std::vector<int> pending_ ABSL_GUARDED_BY(mu_);
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  absl::Status error_ ABSL_GUARDED_BY(mu_);
  absl::Duration last_busy_ ABSL_GUARDED_BY(mu_);
  absl::Duration last_finish_wait_ ABSL_GUARDED_BY(mu_);
  std::thread thread_;
};

}  // namespace symx

#endif  // SYMX_DATA_PARALLEL_GRADIENT_REDUCER_H_
