// Parameters of the elemwise family (graph/ops/elemwise.cc), shared by the
// schema and the kernels.
//
// The parameters of the array-with-scalar ops (_plus_scalar, _rpower_scalar,
// ...), shared by the schema and the kernels.
//
// Parameters of ElementWiseSum, Cast and clip, shared by the schema and the
// kernels.
#ifndef SYMX_GRAPH_OPS_ELEMWISE_H_
#define SYMX_GRAPH_OPS_ELEMWISE_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "graph/attrs.h"
#include "graph/dtype.h"
#include "graph/param.h"

namespace symx {

struct ScalarParam : OpParam {
  double scalar = 1.0;
  bool is_int = true;  // recorded for round trips; the math does not depend on it
};

// Parses `scalar` (default 1) and `is_int` (default true): every op with
// MXNet's scalar parameter (the _*_scalar ops, comparisons, smooth_l1).
absl::StatusOr<OpParamPtr> ParseScalarParam(const AttrMap& attrs);

struct SumParam : OpParam {
  int64_t num_args = 0;
};

struct CastParam : OpParam {
  DType dtype = DType::kUnknown;
};

struct ClipParam : OpParam {
  double a_min = 0;
  double a_max = 0;
};

}  // namespace symx

#endif  // SYMX_GRAPH_OPS_ELEMWISE_H_
