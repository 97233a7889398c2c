// _symx_loss_scale(data, scale): the loss-scaling point of mixed-precision
// training (train/mixed_precision.h). The forward pass is the identity on
// data; the backward pass multiplies the head gradient by `scale` (a
// one-element array the trainer sets between steps, so the scale changes
// without a new bind), and scale gets no gradient.
//
// The pass puts it on the float32 side of a loss head's input: the head's
// gradient is scaled up while still in float32, before a Cast takes it down
// to float16, so small gradients do not flush to zero in the float16 part of
// backward. A loss head itself (SoftmaxOutput, MakeLoss) ignores head
// gradients, which is why the scale needs a node of its own.
#include <vector>

#include "graph/infer_util.h"
#include "graph/op.h"
#include "graph/ops/op_helpers.h"

namespace symx {
namespace {

absl::Status LossScaleShape(const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out) {
  SYMX_RETURN_IF_ERROR(AssignShape(in, 1, Shape{1}, "input scale"));
  std::vector<Shape> data = {(*in)[0]};
  SYMX_RETURN_IF_ERROR(InferSameShape(&data, out));
  return AssignShape(in, 0, data[0], "input data");
}

std::vector<NodeEntry> LossScaleGradient(const NodePtr& n, const std::vector<NodeEntry>& og) {
  if (!og[0].node) return ZeroGradient(n, og);
  // broadcast_mul's gradient graph is never built (this is already a
  // gradient), so the scale stays a constant of backward.
  return {MakeInternalEntry("broadcast_mul", n->name() + "_scaled_grad", {og[0], n->inputs[1]}),
          NodeEntry{}};
}

SYMX_REGISTER_OP("_symx_loss_scale")
    .Describe(
        "Identity on data; its gradient is the head gradient times scale (shape [1]). The "
        "loss-scaling point that mixed-precision training puts before each loss head.")
    .SetInputNames({"data", "scale"})
    .SetInferShape(LossScaleShape)
    .SetGradient(LossScaleGradient);

}  // namespace
}  // namespace symx
