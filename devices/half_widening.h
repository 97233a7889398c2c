// Half-precision widening on the CPU: how an op whose CPU kernel computes in
// float32/float64 only (GEMMs, convolutions, pooling, norms, loss heads) runs
// a float16 or bfloat16 node. Each call converts the half-precision inputs to
// float32 buffers, runs the float32 kernel on them, and rounds the outputs
// (and, in training, the aux states the op mutates) back. The arithmetic is
// then float32 with half-precision storage, which is what GPU tensor cores do
// for these ops, so a mixed-precision model runs and trains on the CPU with
// the numbers it would have on a GPU (train/mixed_precision.h), if slowly.
//
// Buffers and the float32 kernel's own prepared state are made at Bind, as
// for any kernel (Forward/Backward allocate nothing).
#ifndef SYMX_DEVICES_HALF_WIDENING_H_
#define SYMX_DEVICES_HALF_WIDENING_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "devices/kernel.h"

namespace symx {

// The widening kernel for a CPU node of `op_name` whose inputs and outputs
// have `dtypes`, or nullptr when the node needs none, as its CPU kernel's
// registration says (KernelInfo::widening, devices/kernel.h): bfloat16 widens
// every op that computes (few CPU kernels take it; not Cast, the cross-rank
// and cross-device transfers); float16 widens the ops of HalfWidenedOps()
// (the others' CPU kernels compute in float16 themselves).
const KernelInfo* HalfWideningKernel(absl::string_view op_name, const std::vector<DType>& dtypes);

// The ops whose CPU kernels are widened for float16, sorted.
std::vector<std::string> HalfWidenedOps();

}  // namespace symx

#endif  // SYMX_DEVICES_HALF_WIDENING_H_
