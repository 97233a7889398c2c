// The CPU device: host memory plus an Eigen thread pool for intra-op
// parallelism. cpu(0) .. cpu(N-1) are distinct devices (N from
// DeviceOptions::num_cpu_devices, default 8), each with its own pool and
// accounting.
//
// Thread count per device: DeviceOptions::cpu_threads, else the machine's
// cores (devices/engine_options.h).
// Tiny ops run on the calling thread: handing work to a pool costs a few
// microseconds, far more than a small elementwise op.
//
// Thread safety: as any Device (devices/device.h); the pool is Eigen's,
// thread-safe, and fixed when the device is made.
#ifndef SYMX_DEVICES_CPU_CPU_DEVICE_H_
#define SYMX_DEVICES_CPU_CPU_DEVICE_H_

#include <memory>

#include "devices/device.h"

namespace Eigen {
class ThreadPoolInterface;
struct ThreadPoolDevice;
}  // namespace Eigen

namespace symx {

class CpuDevice : public Device {
 public:
  CpuDevice(Context ctx, int num_threads);
  ~CpuDevice() override;

  int num_threads() const override { return num_threads_; }
  const Eigen::ThreadPoolDevice& eigen() const { return *eigen_device_; }

 private:
  int num_threads_;
  std::unique_ptr<Eigen::ThreadPoolInterface> pool_;
  std::unique_ptr<Eigen::ThreadPoolDevice> eigen_device_;
};

// Number of cpu(N) devices this process offers.
int NumCpuDevices();
// Sets the intra-op thread count (DeviceOptions::cpu_threads) for CPU
// devices created after this call (benchmarks use 1 to measure single-core
// behaviour).
void SetCpuThreadsForNewDevices(int n);

}  // namespace symx

#endif  // SYMX_DEVICES_CPU_CPU_DEVICE_H_
