// The host fallback: how an op without a kernel for a device whose memory the
// host cannot address (a GPU) still runs there. Its CPU kernel runs on host
// copies: each call copies the inputs to host buffers, runs the CPU kernel
// on them, and copies the wanted outputs (and, in training, the aux states
// the op mutates) back. Correct wherever the CPU kernel is, slow by design
// (the device waits for the copies): it is for the few ops a device lacks,
// and the executor says once per op which nodes took it.
//
// Everything the CPU kernel needs (host buffers, its own prepared state and
// workspace) is made in the PrepareFn at Bind, so Forward/Backward allocate
// nothing, as for any kernel.
#ifndef SYMX_DEVICES_HOST_FALLBACK_H_
#define SYMX_DEVICES_HOST_FALLBACK_H_

#include "absl/strings/string_view.h"
#include "devices/kernel.h"

namespace symx {

// The fallback kernel for `op_name`, or nullptr when the op has no CPU kernel
// either. Only for devices with host_memory() false.
const KernelInfo* HostFallbackKernel(absl::string_view op_name);

// Binds use it unless their EngineOptions::host_fallback is off (which makes
// a missing device kernel a Bind error, to find such nodes).

}  // namespace symx

#endif  // SYMX_DEVICES_HOST_FALLBACK_H_
