// Parameters of the amp family (graph/ops/amp.cc), shared by the schema and
// the kernels.
#ifndef SYMX_GRAPH_OPS_AMP_H_
#define SYMX_GRAPH_OPS_AMP_H_

#include <cstdint>

#include "graph/dtype.h"
#include "graph/param.h"

namespace symx {

// amp_cast: the dtype a float32, float16 or bfloat16 input is cast to.
struct AmpCastParam : OpParam {
  DType dtype = DType::kUnknown;
};

// amp_multicast: num_outputs inputs cast to their widest (or, with
// cast_narrow, narrowest) float type.
struct AmpMultiCastParam : OpParam {
  int64_t num_outputs = 0;
  bool cast_narrow = false;
};

}  // namespace symx

#endif  // SYMX_GRAPH_OPS_AMP_H_
