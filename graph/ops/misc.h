// Parameters of ElementWiseSum, Cast and clip, shared by the schema and the
// kernels.
#ifndef SYMX_GRAPH_OPS_MISC_H_
#define SYMX_GRAPH_OPS_MISC_H_

#include <cstdint>

#include "graph/dtype.h"
#include "graph/param.h"

namespace symx {

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

#endif  // SYMX_GRAPH_OPS_MISC_H_
