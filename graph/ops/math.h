// Parameters of the math family (graph/ops/math.cc) that its kernels read.
#ifndef SYMX_GRAPH_OPS_MATH_H_
#define SYMX_GRAPH_OPS_MATH_H_

#include "graph/param.h"

namespace symx {

// _contrib_quadratic: a x^2 + b x + c, each coefficient a float32 value.
struct QuadraticParam : OpParam {
  double a = 0, b = 0, c = 0;
};

}  // namespace symx

#endif  // SYMX_GRAPH_OPS_MATH_H_
