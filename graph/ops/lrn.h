// LRN's parameters, shared by the schema (graph/ops/lrn.cc) and the kernels.
#ifndef SYMX_GRAPH_OPS_LRN_H_
#define SYMX_GRAPH_OPS_LRN_H_

#include <cstdint>

#include "graph/param.h"

namespace symx {

struct LRNParam : OpParam {
  double alpha = 1e-4;
  double beta = 0.75;
  double knorm = 2;
  int64_t nsize = 0;  // odd, >= 1
};

}  // namespace symx

#endif  // SYMX_GRAPH_OPS_LRN_H_
