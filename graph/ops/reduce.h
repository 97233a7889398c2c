// Reduction parameters (sum, mean, max, min, prod, nansum, nanprod, norm,
// moments), shared by the schema and the kernels.
#ifndef SYMX_GRAPH_OPS_REDUCE_H_
#define SYMX_GRAPH_OPS_REDUCE_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "graph/dtype.h"
#include "graph/param.h"

namespace symx {

struct ReduceParam : OpParam {
  std::optional<std::vector<int64_t>> axis;
  bool keepdims = false;
  bool exclude = false;
};

// norm's: `exclude` stays false; `ord` is 1 or 2 (checked at parse).
struct NormParam : ReduceParam {
  int ord = 2;
  std::optional<DType> out_dtype;  // None: the input's dtype
};

// moments' (MXNet's `axes`, never None or empty; `exclude` stays false).
struct MomentsParam : ReduceParam {};

// Which of `ndim` input axes the op reduces (axis None or () reduces all, whatever `exclude`
// says). Errors: an axis out of range or listed twice.
absl::StatusOr<std::vector<bool>> ReducedAxes(const ReduceParam& p, int ndim);

}  // namespace symx

#endif  // SYMX_GRAPH_OPS_REDUCE_H_
