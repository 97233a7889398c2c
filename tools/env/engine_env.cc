#include "tools/env/engine_env.h"

#include <cstdlib>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "graph/error.h"

namespace symx {
namespace {

// Applies the switch `var` to *on when it is set.
absl::Status ReadSwitch(const char* var, bool* on) {
  const char* raw = std::getenv(var);
  if (raw == nullptr) return absl::OkStatus();
  const std::string value = absl::AsciiStrToLower(raw);
  if (value == "1" || value == "on" || value == "true" || value == "yes") {
    *on = true;
  } else if (value == "0" || value == "off" || value == "false" || value == "no") {
    *on = false;
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("environment variable ", var, "='", raw, "' is not a switch: use 1 or 0"));
  }
  return absl::OkStatus();
}

// Applies the positive count `var` to *n when it is set.
absl::Status ReadCount(const char* var, int* n) {
  const char* raw = std::getenv(var);
  if (raw == nullptr) return absl::OkStatus();
  int value = 0;
  if (!absl::SimpleAtoi(raw, &value) || value < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("environment variable ", var, "='", raw, "' is not a positive integer"));
  }
  *n = value;
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<EngineOptions> EngineOptionsFromEnvironment() {
  EngineOptions o;
  SYMX_RETURN_IF_ERROR(ReadSwitch("SYMX_ONEDNN", &o.onednn));
  SYMX_RETURN_IF_ERROR(ReadSwitch("SYMX_ONEDNN_BATCHNORM", &o.onednn_batchnorm));
  SYMX_RETURN_IF_ERROR(ReadSwitch("SYMX_ONEDNN_BF16", &o.onednn_bf16));
  SYMX_RETURN_IF_ERROR(ReadSwitch("SYMX_FUSION", &o.fusion));
  SYMX_RETURN_IF_ERROR(ReadSwitch("SYMX_CHANNELS_LAST", &o.channels_last));
  SYMX_RETURN_IF_ERROR(ReadSwitch("SYMX_HOST_FALLBACK", &o.host_fallback));
  return o;
}

absl::StatusOr<DeviceOptions> DeviceOptionsFromEnvironment() {
  DeviceOptions o;
  SYMX_RETURN_IF_ERROR(ReadCount("SYMX_CPU_THREADS", &o.cpu_threads));
  SYMX_RETURN_IF_ERROR(ReadCount("SYMX_NUM_CPU_DEVICES", &o.num_cpu_devices));
  SYMX_RETURN_IF_ERROR(ReadCount("SYMX_LOGICAL_GPUS", &o.logical_gpus));
  SYMX_RETURN_IF_ERROR(ReadSwitch("SYMX_PINNED_STAGING", &o.pinned_staging));
  return o;
}

absl::Status SetDeviceOptionsFromEnvironment() {
  SYMX_ASSIGN_OR_RETURN(DeviceOptions options, DeviceOptionsFromEnvironment());
  SetDeviceOptions(options);
  return absl::OkStatus();
}

}  // namespace symx
