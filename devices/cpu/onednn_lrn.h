// LRN through oneDNN (across channels, forward and backward), float32 4-D
// data stored plain, where oneDNN has a real (not its reference) kernel: in
// oneDNN 2.6 the forward's needs 16 or more channels in multiples of 8, nsize
// 5 and beta 0.75 (AlexNet's and GoogLeNet's LRN); the backward runs on a
// blocked copy of its operands. The Eigen kernels take the rest. The forward
// step writes the output only: the kernel computes MXNet's hidden tmp_norm
// output itself (oneDNN has none). The backward runs oneDNN's training
// forward again for the workspace its backward reads (cheaper than keeping
// one alive between the passes).
#ifndef SYMX_DEVICES_CPU_ONEDNN_LRN_H_
#define SYMX_DEVICES_CPU_ONEDNN_LRN_H_

#include <cstddef>

#include "absl/status/status.h"
#include "devices/kernel.h"

namespace symx {
namespace cpu {

// PrepareFn of LRN (data -> out, tmp_norm) and, with `backward`, of
// _backward_LRN (ograd, data, tmp_norm -> data gradient).
absl::Status PrepareOnednnLrn(KernelContext* ctx, bool backward, size_t* workspace_bytes);

}  // namespace cpu
}  // namespace symx

#endif  // SYMX_DEVICES_CPU_ONEDNN_LRN_H_
