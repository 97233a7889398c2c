// Parameters of the cross-rank transfer ops _send and _recv, shared by the
// schema, the partition pass that creates them and their kernels.
#ifndef SYMX_GRAPH_OPS_TRANSFER_H_
#define SYMX_GRAPH_OPS_TRANSFER_H_

#include <cstdint>

#include "graph/param.h"

namespace symx {

struct TransferParam : OpParam {
  int64_t peer = 0;  // the other rank
  int64_t tag = 0;   // the same on both sides; unique per transfer in a plan
};

}  // namespace symx

#endif  // SYMX_GRAPH_OPS_TRANSFER_H_
