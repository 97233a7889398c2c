// Which kernel a node runs: shared by the bind (executor/passes/kernel_choice.cc)
// and the one-op plans of imperative calls (executor/imperative.h), so that
// an op runs the same code whichever way it is called.
#ifndef SYMX_DEVICES_KERNEL_CHOICE_H_
#define SYMX_DEVICES_KERNEL_CHOICE_H_

#include <string>
#include <vector>

#include "devices/device.h"
#include "devices/engine_options.h"
#include "devices/kernel.h"
#include "graph/dtype.h"

namespace symx {

// The kernel an `op` node with these dtypes (inputs, then outputs) runs on
// `device`: the device type's own; on CPU a widening one when the op's kernel
// is float-only and a dtype is half precision (devices/half_widening.h); on a
// device without host memory and no kernel of its own, the host fallback when
// `options` allow it, said once per process and (op, device type) on stderr
// with `label` (the node) as the example. nullptr: the op cannot run there.
const KernelInfo* ChooseKernel(const std::string& op, const Device& device,
                               const std::vector<DType>& dtypes, const EngineOptions& options,
                               const std::string& label);

}  // namespace symx

#endif  // SYMX_DEVICES_KERNEL_CHOICE_H_
