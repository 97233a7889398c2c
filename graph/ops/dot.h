// dot and batch_dot parameters, shared by the schema and the kernels.
#ifndef SYMX_GRAPH_OPS_DOT_H_
#define SYMX_GRAPH_OPS_DOT_H_

#include "graph/param.h"

namespace symx {

struct DotParam : OpParam {
  bool transpose_a = false;
  bool transpose_b = false;
};

}  // namespace symx

#endif  // SYMX_GRAPH_OPS_DOT_H_
