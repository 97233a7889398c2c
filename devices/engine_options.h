// EngineOptions: the switches that choose between equivalent paths of one
// bind (oneDNN or the Eigen kernels, inference fusion, channels-last storage,
// the host fallback). They travel in the bind options (executor/executor.h)
// to the plan and to every kernel (KernelContext::options), so two binds in
// one process may differ and a test compares two paths by binding twice.
//
// DeviceOptions: what the process's devices are made with (threads per CPU
// device, how many cpu(N) and gpu(N) there are, pinned staging). Devices are
// made once per process, so these are set once, before the first device is
// asked for (SetDeviceOptions).
//
// Neither is read from the environment here: the edges (the symx tool, the
// Python package, the benchmarks) call tools/env/engine_env.h's functions
// once; that is where the SYMX_* variables are documented.
#ifndef SYMX_DEVICES_ENGINE_OPTIONS_H_
#define SYMX_DEVICES_ENGINE_OPTIONS_H_

#include <string>

namespace symx {

struct EngineOptions {
  // oneDNN under the CPU kernels where it applies (off: the Eigen reference
  // kernels everywhere). A build without oneDNN ignores it.
  bool onednn = true;
  // BatchNorm through oneDNN: off because on 2 cores the Eigen kernels
  // measured faster (docs/architecture.md, "oneDNN").
  bool onednn_batchnorm = false;
  // bfloat16 convolutions in binds that compute no gradient, where the CPU
  // has bfloat16 instructions (devices/cpu/onednn.h).
  bool onednn_bf16 = false;
  // The CPU inference fusion (executor/inference_fusion.h).
  bool fusion = true;
  // Values between two kernels that can take them stored channels-last
  // (executor/layout_plan.h).
  bool channels_last = true;
  // An op without a kernel for a device that has its own memory runs its CPU
  // kernel on host copies (devices/host_fallback.h); off: Bind fails.
  bool host_fallback = true;

  // "onednn=1 onednn_batchnorm=0 ..." for logs and messages.
  std::string ToString() const;
};

struct DeviceOptions {
  // Intra-op threads of each CPU device; 0: the machine's cores.
  int cpu_threads = 0;
  // How many cpu(N) devices the process offers.
  int num_cpu_devices = 8;
  // How many gpu(N) the process offers over its physical GPUs (several
  // logical GPUs on one physical device test multi-GPU placement); 0: one
  // per physical GPU.
  int logical_gpus = 0;
  // Large transfers of pageable host memory go through pinned buffers.
  bool pinned_staging = true;
};

// The options devices made from now on use. Call it before the first device
// of a kind is asked for: devices already made keep theirs.
void SetDeviceOptions(const DeviceOptions& options);
DeviceOptions GetDeviceOptions();

}  // namespace symx

#endif  // SYMX_DEVICES_ENGINE_OPTIONS_H_
