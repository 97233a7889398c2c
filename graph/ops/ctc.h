// Parameters of CTCLoss, shared by the schema (graph/ops/ctc.cc) and the
// CPU kernels (devices/cpu/ctc_kernels.cc).
#ifndef SYMX_GRAPH_OPS_CTC_H_
#define SYMX_GRAPH_OPS_CTC_H_

#include "graph/param.h"

namespace symx {

struct CTCLossParam : OpParam {
  bool use_data_lengths = false;
  bool use_label_lengths = false;
  // true: blank is class 0 and labels are padded with 0; false ("last"): blank is
  // class alphabet-1 and labels are padded with -1.
  bool blank_first = true;
};

}  // namespace symx

#endif  // SYMX_GRAPH_OPS_CTC_H_
