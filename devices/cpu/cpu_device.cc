#define EIGEN_USE_THREADS
#include "devices/cpu/cpu_device.h"

#include <thread>

#include "absl/strings/str_cat.h"
#include "devices/engine_options.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace symx {
namespace {

int ThreadsForNewDevice() {
  const int n = GetDeviceOptions().cpu_threads;
  if (n > 0) return n;
  const int hw = static_cast<int>(std::thread::hardware_concurrency());
  return hw > 0 ? hw : 1;
}

const bool kCpuRegistered = RegisterDeviceFactory(
    DeviceType::kCPU, [](const Context& ctx) -> absl::StatusOr<std::unique_ptr<Device>> {
      if (ctx.id >= NumCpuDevices()) {
        return absl::NotFoundError(absl::StrCat(
            "device ", ctx.ToString(), " does not exist: this process has cpu(0) to cpu(",
            NumCpuDevices() - 1, ") (set SYMX_NUM_CPU_DEVICES for more)"));
      }
      return std::unique_ptr<Device>(new CpuDevice(ctx, ThreadsForNewDevice()));
    });

}  // namespace

CpuDevice::CpuDevice(Context ctx, int num_threads) : Device(ctx), num_threads_(num_threads) {
  pool_ = std::make_unique<Eigen::ThreadPool>(num_threads_);
  eigen_device_ = std::make_unique<Eigen::ThreadPoolDevice>(pool_.get(), num_threads_);
}

CpuDevice::~CpuDevice() = default;

int NumCpuDevices() { return GetDeviceOptions().num_cpu_devices; }

void SetCpuThreadsForNewDevices(int n) {
  DeviceOptions options = GetDeviceOptions();
  options.cpu_threads = n;
  SetDeviceOptions(options);
}

}  // namespace symx
