// DeviceWorkers: one thread per device of a multi-device executor.
//
// RunAll(fn) calls fn(0) on the calling thread and fn(1..n-1) on the workers,
// and returns when all have returned. Each executor owns its workers, so two
// executors never queue behind each other (no cross-executor deadlock); a
// device's kernels may still use that device's intra-op thread pool.
//
// Thread safety: RunAll from one thread at a time (the executor's
// Forward/Backward, which refuse to run concurrently); the job hand-over
// between it and the workers is under mu_.
#ifndef SYMX_EXECUTOR_DEVICE_WORKERS_H_
#define SYMX_EXECUTOR_DEVICE_WORKERS_H_

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"

namespace symx {

class DeviceWorkers {
 public:
  explicit DeviceWorkers(size_t num_slots);
  ~DeviceWorkers();
  DeviceWorkers(const DeviceWorkers&) = delete;
  DeviceWorkers& operator=(const DeviceWorkers&) = delete;

  size_t num_slots() const { return threads_.size() + 1; }
  // fn(1..n-1) must not throw; an exception from fn(0) is raised again once
  // every worker has finished.
  void RunAll(const std::function<void(size_t slot)>& fn);

 private:
  void Loop(size_t slot);
  void Stop();

  std::mutex mu_;
  std::condition_variable start_cv_, done_cv_;
  const std::function<void(size_t)>* job_ ABSL_GUARDED_BY(mu_) = nullptr;
  uint64_t generation_ ABSL_GUARDED_BY(mu_) = 0;
  size_t pending_ ABSL_GUARDED_BY(mu_) = 0;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<std::thread> threads_;
};

}  // namespace symx

#endif  // SYMX_EXECUTOR_DEVICE_WORKERS_H_
