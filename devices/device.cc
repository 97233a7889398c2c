#include "devices/device.h"

#include <cstring>
#include <map>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"

namespace symx {
namespace {

struct DeviceTable {
  std::mutex mu;
  std::map<DeviceType, DeviceFactory> factories ABSL_GUARDED_BY(mu);
  std::map<Context, std::unique_ptr<Device>> devices ABSL_GUARDED_BY(mu);
  uint64_t seed ABSL_GUARDED_BY(mu) = 0;
};

DeviceTable& Table() {
  static DeviceTable* table = new DeviceTable();
  return *table;
}

}  // namespace

absl::Status Device::CopyToHost(const void* src, void* host_dst, size_t bytes) {
  if (bytes > 0 && src != host_dst) std::memmove(host_dst, src, bytes);
  return absl::OkStatus();
}

absl::Status Device::CopyFromHost(const void* host_src, void* dst, size_t bytes) {
  if (bytes > 0 && host_src != dst) std::memmove(dst, host_src, bytes);
  return absl::OkStatus();
}

absl::Status Device::CopyFromDevice(Device& src_device, const void* src, void* dst,
                                    size_t bytes) {
  if (!src_device.host_memory()) return src_device.CopyToHost(src, dst, bytes);
  return CopyFromHost(src, dst, bytes);
}

absl::Status Device::Memset(void* dst, int byte, size_t bytes) {
  if (bytes > 0) std::memset(dst, byte, bytes);
  return absl::OkStatus();
}

bool RegisterDeviceFactory(DeviceType type, DeviceFactory factory) {
  DeviceTable& t = Table();
  std::lock_guard<std::mutex> lock(t.mu);
  t.factories[type] = std::move(factory);
  return true;
}

absl::StatusOr<Device*> GetDevice(const Context& ctx) {
  DeviceTable& t = Table();
  std::lock_guard<std::mutex> lock(t.mu);
  auto it = t.devices.find(ctx);
  if (it != t.devices.end()) return it->second.get();
  if (ctx.rank >= 0) {
    return absl::NotFoundError(absl::StrCat(
        "device ", ctx.ToString(), " belongs to another MPI rank; this process cannot run it"));
  }
  auto f = t.factories.find(ctx.type);
  if (f == t.factories.end()) {
    return absl::NotFoundError(absl::StrCat("device ", ctx.ToString(), " does not exist: ",
                                            ctx.type == DeviceType::kGPU
                                                ? "this build has no CUDA support"
                                                : "no such device type in this build"));
  }
  auto made = f->second(ctx);
  if (!made.ok()) return made.status();
  Device* device = made->get();
  device->Seed(t.seed + static_cast<uint64_t>(ctx.id) * 7919 + static_cast<uint64_t>(ctx.type));
  t.devices.emplace(ctx, std::move(*made));
  return device;
}

void SeedAllDevices(uint64_t seed) {
  DeviceTable& t = Table();
  std::lock_guard<std::mutex> lock(t.mu);
  t.seed = seed;
  for (auto& [ctx, device] : t.devices) {
    device->Seed(seed + static_cast<uint64_t>(ctx.id) * 7919 + static_cast<uint64_t>(ctx.type));
  }
}

}  // namespace symx
