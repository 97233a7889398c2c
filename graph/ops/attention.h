// The attention family's parameters (the interleaved multi-head attention
// products of MXNet's contrib), shared by the schema (graph/ops/attention.cc)
// and the kernels.
#ifndef SYMX_GRAPH_OPS_ATTENTION_H_
#define SYMX_GRAPH_OPS_ATTENTION_H_

#include <cstdint>

#include "graph/param.h"

namespace symx {

struct InterleavedMatMulParam : OpParam {
  int64_t heads = 1;  // >= 1; divides the projection width
};

}  // namespace symx

#endif  // SYMX_GRAPH_OPS_ATTENTION_H_
