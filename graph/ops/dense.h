// Parameters of the dense family (graph/ops/dense.cc), shared by the schema
// and the kernels.
//
// FullyConnected's parameters, shared by the schema and the kernels.
//
// dot and batch_dot parameters, shared by the schema and the kernels.
#ifndef SYMX_GRAPH_OPS_DENSE_H_
#define SYMX_GRAPH_OPS_DENSE_H_

#include <cstdint>

#include "graph/param.h"

namespace symx {

struct FullyConnectedParam : OpParam {
  int64_t num_hidden = 1;
  bool no_bias = false;
  bool flatten = true;
};

struct DotParam : OpParam {
  bool transpose_a = false;
  bool transpose_b = false;
};

}  // namespace symx

#endif  // SYMX_GRAPH_OPS_DENSE_H_
