#define EIGEN_USE_THREADS
#include "devices/cpu/cpu_device.h"

#include <atomic>
#include <cstdlib>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace symx {
namespace {

int EnvInt(const char* name, int fallback) {
  const char* v = std::getenv(name);
  int n = 0;
  if (v != nullptr && absl::SimpleAtoi(v, &n) && n > 0) return n;
  return fallback;
}

std::atomic<int> g_threads{0};

int ThreadsForNewDevice() {
  int n = g_threads.load();
  if (n > 0) return n;
  int hw = static_cast<int>(std::thread::hardware_concurrency());
  return EnvInt("SYMX_CPU_THREADS", hw > 0 ? hw : 1);
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

int NumCpuDevices() { return EnvInt("SYMX_NUM_CPU_DEVICES", 8); }

void SetCpuThreadsForNewDevices(int n) { g_threads.store(n); }

}  // namespace symx
