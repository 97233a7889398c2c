// LayerNorm parameters, shared by the schema and the kernels.
#ifndef SYMX_GRAPH_OPS_LAYER_NORM_H_
#define SYMX_GRAPH_OPS_LAYER_NORM_H_

#include <cstdint>

#include "graph/param.h"

namespace symx {

struct LayerNormParam : OpParam {
  int64_t axis = -1;
  double eps = 1e-5;
  bool output_mean_var = false;
};

}  // namespace symx

#endif  // SYMX_GRAPH_OPS_LAYER_NORM_H_
