// _symx_fused_conv: a Convolution with what follows it folded in, made by the
// inference fusion pass (executor/inference_fusion.h) for binds that compute
// no gradient: conv -> [BatchNorm] -> [+ sum operand] -> [activation].
//
// Inputs, in order: data, weight, [bias], [gamma, beta, moving_mean,
// moving_var (aux)], [sum operand]. Attributes: the Convolution's own, plus
// "with_bn" and "bn.<key>" (the BatchNorm's), "with_sum", and "act" (the
// activation op, "Activation" or "clip") with "act.<key>" (its attributes).
// Each part keeps its op's parsed attributes, so the reference kernel runs
// the parts one after another with the parts' own kernels.
#ifndef SYMX_GRAPH_OPS_FUSED_CONV_H_
#define SYMX_GRAPH_OPS_FUSED_CONV_H_

#include <string>

#include "graph/node.h"
#include "graph/ops/convolution.h"
#include "graph/ops/norm.h"
#include "graph/param.h"

namespace symx {

inline constexpr char kFusedConvOp[] = "_symx_fused_conv";

struct FusedConvParam : OpParam {
  NodeAttrs conv;  // a Convolution
  bool with_bn = false;
  NodeAttrs bn;  // a BatchNorm, when with_bn
  bool with_sum = false;
  NodeAttrs act;  // an Activation or clip; act.op == nullptr: none

  const ConvParam& conv_param() const { return Param<ConvParam>(conv); }
  const BatchNormParam& bn_param() const { return Param<BatchNormParam>(bn); }
  bool has_act() const { return act.op != nullptr; }
  // Index of gamma (then beta, moving_mean, moving_var), and of the sum operand.
  int bn_input() const { return conv_param().no_bias ? 2 : 3; }
  int sum_input() const { return bn_input() + (with_bn ? 4 : 0); }
  int num_inputs() const { return sum_input() + (with_sum ? 1 : 0); }
};

// The attribute dict of a fused node from its parts' dicts (hidden keys of
// the convolution kept: ctx_group and the like).
AttrMap FusedConvAttrs(const AttrMap& conv, const AttrMap* bn, bool with_sum, const Node* act);

}  // namespace symx

#endif  // SYMX_GRAPH_OPS_FUSED_CONV_H_
