// Parameters of the compare family (graph/ops/compare.cc) that its kernels
// read.
#ifndef SYMX_GRAPH_OPS_COMPARE_H_
#define SYMX_GRAPH_OPS_COMPARE_H_

#include "graph/param.h"

namespace symx {

// _contrib_allclose: every |a - b| <= atol + rtol |b| (float32 tolerances,
// as MXNet declares them); NaNs match each other when equal_nan.
struct AllCloseParam : OpParam {
  double rtol = static_cast<float>(1e-5);
  double atol = static_cast<float>(1e-8);
  bool equal_nan = true;
};

}  // namespace symx

#endif  // SYMX_GRAPH_OPS_COMPARE_H_
