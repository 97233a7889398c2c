// The parameters of the array-with-scalar ops (_plus_scalar, _rpower_scalar,
// ...), shared by the schema and the kernels.
#ifndef SYMX_GRAPH_OPS_ELEMWISE_SCALAR_H_
#define SYMX_GRAPH_OPS_ELEMWISE_SCALAR_H_

#include "graph/param.h"

namespace symx {

struct ScalarParam : OpParam {
  double scalar = 1.0;
  bool is_int = true;  // recorded for round trips; the math does not depend on it
};

}  // namespace symx

#endif  // SYMX_GRAPH_OPS_ELEMWISE_SCALAR_H_
