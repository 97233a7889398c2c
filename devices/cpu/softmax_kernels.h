// The softmax routine of the softmax family's CPU kernels
// (devices/cpu/softmax_kernels.cc), for the loss heads that apply it
// (SoftmaxOutput, devices/cpu/loss_kernels.cc).
#ifndef SYMX_DEVICES_CPU_SOFTMAX_KERNELS_H_
#define SYMX_DEVICES_CPU_SOFTMAX_KERNELS_H_

#include "absl/status/status.h"
#include "devices/geometry/axis_layout.h"
#include "devices/kernel.h"
#include "devices/tensor.h"

namespace symx {
namespace cpu {

// y = softmax(x) along the middle axis of `l`, float32 or float64, x and y
// of one dtype (y may alias x).
absl::Status SoftmaxAlong(const KernelContext& ctx, const AxisLayout& l, const Tensor& x,
                          const Tensor& y);

}  // namespace cpu
}  // namespace symx

#endif  // SYMX_DEVICES_CPU_SOFTMAX_KERNELS_H_
