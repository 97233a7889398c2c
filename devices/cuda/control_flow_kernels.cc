// CUDA kernels of the control-flow family (graph/ops/control_flow.cc): the
// loops of devices/geometry/control_flow.h, which run the body's own kernels
// on this device through an executor bound at Prepare. The loop itself has
// no device code; its half-precision nodes need no widening (the body's
// kernels widen where they must).
#include "devices/geometry/control_flow.h"
#include "devices/kernel.h"

namespace symx {
namespace {

SYMX_REGISTER_KERNEL("_foreach", kGPU, .fn = ForeachForward, .prepare = PrepareForeach,
                     .widening = HalfWidening::kNever);
SYMX_REGISTER_KERNEL("_backward_foreach", kGPU, .fn = ForeachBackward,
                     .prepare = PrepareForeachBackward, .widening = HalfWidening::kNever);
SYMX_REGISTER_KERNEL("_cond", kGPU, .fn = CondForward, .prepare = PrepareCond,
                     .widening = HalfWidening::kNever);
SYMX_REGISTER_KERNEL("_backward_cond", kGPU, .fn = CondBackward, .prepare = PrepareCondBackward,
                     .widening = HalfWidening::kNever);
SYMX_REGISTER_KERNEL("_while_loop", kGPU, .fn = WhileLoopForward, .prepare = PrepareWhileLoop,
                     .widening = HalfWidening::kNever);
SYMX_REGISTER_KERNEL("_backward_while_loop", kGPU, .fn = WhileLoopBackward,
                     .prepare = PrepareWhileLoopBackward, .widening = HalfWidening::kNever);

}  // namespace
}  // namespace symx
