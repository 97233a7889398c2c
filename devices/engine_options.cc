#include "devices/engine_options.h"

#include <mutex>

#include "absl/strings/str_cat.h"

namespace symx {
namespace {

std::mutex& DeviceOptionsMutex() {
  static std::mutex* mu = new std::mutex;
  return *mu;
}

DeviceOptions& DeviceOptionsValue() {
  static DeviceOptions* options = new DeviceOptions;
  return *options;
}

}  // namespace

std::string EngineOptions::ToString() const {
  return absl::StrCat("onednn=", onednn, " onednn_batchnorm=", onednn_batchnorm,
                      " onednn_bf16=", onednn_bf16, " fusion=", fusion,
                      " channels_last=", channels_last, " host_fallback=", host_fallback);
}

void SetDeviceOptions(const DeviceOptions& options) {
  std::lock_guard<std::mutex> lock(DeviceOptionsMutex());
  DeviceOptionsValue() = options;
}

DeviceOptions GetDeviceOptions() {
  std::lock_guard<std::mutex> lock(DeviceOptionsMutex());
  return DeviceOptionsValue();
}

}  // namespace symx
