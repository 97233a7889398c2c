// The inference fusion pass: for binds that compute no gradient, every chain
// Convolution -> [BatchNorm] -> [elemwise_add] -> [activation] whose inner
// values nothing else reads becomes one _symx_fused_conv node (see
// graph/ops/fused_conv.h), which the CPU kernel runs as one oneDNN
// convolution with the rest as post-ops. MXNet's oneDNN backend does the
// same for such binds; OptimizedSymbol() shows the result.
#ifndef SYMX_EXECUTOR_INFERENCE_FUSION_H_
#define SYMX_EXECUTOR_INFERENCE_FUSION_H_

#include <vector>

#include "absl/status/statusor.h"
#include "graph/node.h"

namespace symx {

// Binds fuse unless their EngineOptions::fusion is off (which tests use to
// compare).

// `outputs` with the chains fused; *num_fused counts the fused nodes. Nodes
// of one chain must share their ctx_group; a graph with control dependencies
// is left alone.
absl::StatusOr<std::vector<NodeEntry>> FuseConvChains(const std::vector<NodeEntry>& outputs,
                                                      int* num_fused);

}  // namespace symx

#endif  // SYMX_EXECUTOR_INFERENCE_FUSION_H_
