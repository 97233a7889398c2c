// Mixed-precision training: a float32 model rewritten to compute in float16
// or bfloat16 while its parameters stay float32 master weights, as MXNet's
// AMP (amp.convert_symbol) and PyTorch's autocast do.
//
//   Symbol low = ToMixedPrecision(net, {DType::kFloat16, /*loss_scale=*/true});
//   bind `low` as `net` would be bound (same arguments, float32 arrays, plus
//   kLossScaleName when loss_scale), train; save `net` with the arrays
//
// The rewrite:
// - Arguments and aux states are the model's own, float32. Where an op that
//   computes in low precision reads one, a Cast to the low dtype comes in
//   between, so weight gradients return to float32 through the Cast's
//   gradient: the optimizer updates float32 weights from float32 gradients,
//   and checkpoints stay plain float32 MXNet files.
// - Ops that need float32's range or precision (registered with
//   PrecisionClass kFloat32 or kFloat32LossHead, graph/op.h: BatchNorm and the
//   other normalizations, softmax and every loss head, exp/log-like math,
//   sums, index-producing ops) read float32: a Cast up before them, and a
//   Cast down where a low-precision op reads their outputs. Every other op
//   computes in the low dtype (its float32 inputs cast down once per entry).
// - Index inputs (Op::IsIndexInput: labels, Embedding/take/pick indices) are
//   never cast; entries that are not float32 in the model (integers, an
//   explicit float64) keep their dtype. An op with a float32 aux state runs
//   in float32 (an aux state must be a variable, not a Cast).
// - Graph outputs keep their float32 dtype.
// - loss_scale (float16): each loss head's (kFloat32LossHead) data input, on its float32 side,
//   passes through _symx_loss_scale(x, symx_loss_scale), which scales the
//   gradient by the value the trainer sets (loss_scaler.h).
// A Cast takes the __ctx_group__ of the op that reads it, so placement is
// unchanged. Throws symx::Error for a low dtype other than float16/bfloat16.
#ifndef SYMX_TRAIN_MIXED_PRECISION_H_
#define SYMX_TRAIN_MIXED_PRECISION_H_

#include <string>

#include "graph/dtype.h"
#include "graph/symbol.h"

namespace symx::train {

// The variable holding the loss scale ([1], float32), an input like data.
inline constexpr char kLossScaleName[] = "symx_loss_scale";

struct MixedPrecisionOptions {
  DType dtype = DType::kFloat16;
  bool loss_scale = true;
};

Symbol ToMixedPrecision(const Symbol& net, const MixedPrecisionOptions& options);

}  // namespace symx::train

#endif  // SYMX_TRAIN_MIXED_PRECISION_H_
