// The CPU kernel of _symx_fused_conv (graph/ops/fused_conv.h).
#ifndef SYMX_DEVICES_CPU_FUSED_CONV_KERNELS_H_
#define SYMX_DEVICES_CPU_FUSED_CONV_KERNELS_H_

#include "devices/engine_options.h"

namespace symx {
namespace cpu {

// Whether fusing pays on CPU in a bind with `options`: only oneDNN runs a
// fused convolution in one pass; without it the kernel runs the parts one
// after another.
bool CpuFusionPays(const EngineOptions& options);

}  // namespace cpu
}  // namespace symx

#endif  // SYMX_DEVICES_CPU_FUSED_CONV_KERNELS_H_
