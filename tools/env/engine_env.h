// The SYMX_* environment variables, read at the edges only: the symx tool,
// the Python package, the benchmarks and test mains call these once and pass
// what they return on (bind options, SetDeviceOptions). The library below
// them never reads the environment.
//
//   SYMX_ONEDNN            oneDNN under the CPU kernels (default on)
//   SYMX_ONEDNN_BATCHNORM  BatchNorm through oneDNN (default off)
//   SYMX_ONEDNN_BF16       bfloat16 convolutions for inference (default off)
//   SYMX_FUSION            the CPU inference fusion (default on)
//   SYMX_CHANNELS_LAST     channels-last storage between kernels (default on)
//   SYMX_HOST_FALLBACK     CPU kernels on host copies for ops a GPU lacks (on)
//   SYMX_CPU_THREADS       intra-op threads per CPU device (default: cores)
//   SYMX_NUM_CPU_DEVICES   how many cpu(N) devices (default 8)
//   SYMX_LOGICAL_GPUS      gpu(N) count over the physical GPUs (default: theirs)
//   SYMX_PINNED_STAGING    pinned staging of large host transfers (default on)
//
// Switches take 1/0, on/off, true/false, yes/no; counts a positive integer.
// Anything else is an error naming the variable and its value.
#ifndef SYMX_TOOLS_ENV_ENGINE_ENV_H_
#define SYMX_TOOLS_ENV_ENGINE_ENV_H_

#include "absl/status/statusor.h"
#include "devices/engine_options.h"

namespace symx {

// EngineOptions{} with each variable that is set applied.
absl::StatusOr<EngineOptions> EngineOptionsFromEnvironment();
// DeviceOptions{} with each variable that is set applied (cpu_threads stays
// 0 without SYMX_CPU_THREADS).
absl::StatusOr<DeviceOptions> DeviceOptionsFromEnvironment();
// SetDeviceOptions(DeviceOptionsFromEnvironment()), for edges that need no
// more (test mains, benchmark tools, the Python extension).
absl::Status SetDeviceOptionsFromEnvironment();

}  // namespace symx

#endif  // SYMX_TOOLS_ENV_ENGINE_ENV_H_
