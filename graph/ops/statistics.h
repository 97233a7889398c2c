// The statistics family's parameters (_histogram), shared by the schema
// (graph/ops/statistics.cc) and the kernels.
#ifndef SYMX_GRAPH_OPS_STATISTICS_H_
#define SYMX_GRAPH_OPS_STATISTICS_H_

#include <cstdint>

#include "graph/param.h"

namespace symx {

struct HistogramParam : OpParam {
  // With bin_cnt (and range): bin_cnt equal bins over [lo, hi] and one input
  // (data). Without: the bin edges are input 1 (bins).
  bool uniform = false;
  int64_t bin_cnt = 0;
  // range, widened to [lo - 0.5, hi + 0.5] when lo == hi, as MXNet does.
  double lo = 0, hi = 0;
};

}  // namespace symx

#endif  // SYMX_GRAPH_OPS_STATISTICS_H_
