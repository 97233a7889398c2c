// The parameters of the array-with-scalar ops (_plus_scalar, _rpower_scalar,
// ...), shared by the schema and the kernels.
#ifndef SYMX_GRAPH_OPS_ELEMWISE_SCALAR_H_
#define SYMX_GRAPH_OPS_ELEMWISE_SCALAR_H_

#include "absl/status/statusor.h"
#include "graph/attrs.h"
#include "graph/param.h"

namespace symx {

struct ScalarParam : OpParam {
  double scalar = 1.0;
  bool is_int = true;  // recorded for round trips; the math does not depend on it
};

// Parses `scalar` (default 1) and `is_int` (default true): every op with
// MXNet's scalar parameter (the _*_scalar ops, comparisons, smooth_l1).
absl::StatusOr<OpParamPtr> ParseScalarParam(const AttrMap& attrs);

}  // namespace symx

#endif  // SYMX_GRAPH_OPS_ELEMWISE_SCALAR_H_
