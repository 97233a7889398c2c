#include "executor/device_workers.h"

#include <exception>

namespace symx {

DeviceWorkers::DeviceWorkers(size_t num_slots) {
  try {
    for (size_t slot = 1; slot < num_slots; ++slot) {
      threads_.emplace_back([this, slot] { Loop(slot); });
    }
  } catch (...) {
    Stop();  // joins the threads already started before the error propagates
    throw;
  }
}

DeviceWorkers::~DeviceWorkers() { Stop(); }

void DeviceWorkers::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  start_cv_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void DeviceWorkers::RunAll(const std::function<void(size_t)>& fn) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    job_ = &fn;
    pending_ = threads_.size();
    ++generation_;
  }
  start_cv_.notify_all();
  // The workers use `fn` until they are done: wait for them even if fn(0) throws.
  std::exception_ptr error;
  try {
    fn(0);
  } catch (...) {
    error = std::current_exception();
  }
  std::unique_lock<std::mutex> lock(mu_);
  done_cv_.wait(lock, [this] { return pending_ == 0; });
  job_ = nullptr;
  if (error) std::rethrow_exception(error);
}

void DeviceWorkers::Loop(size_t slot) {
  uint64_t seen = 0;
  for (;;) {
    const std::function<void(size_t)>* job;
    {
      std::unique_lock<std::mutex> lock(mu_);
      start_cv_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      job = job_;
    }
    (*job)(slot);
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (--pending_ == 0) done_cv_.notify_one();
    }
  }
}

}  // namespace symx
