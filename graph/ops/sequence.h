// The sequence family's parameters (SequenceMask, SequenceLast,
// SequenceReverse), shared by the schema (graph/ops/sequence.cc) and the
// kernels.
#ifndef SYMX_GRAPH_OPS_SEQUENCE_H_
#define SYMX_GRAPH_OPS_SEQUENCE_H_

#include "graph/param.h"

namespace symx {

struct SequenceParam : OpParam {
  // Input 1 (sequence_length, one length per batch entry) is present.
  bool use_sequence_length = false;
  // The time axis: 0 (time, batch, ...) or 1 (batch, time, ...); SequenceReverse
  // takes 0 only.
  int axis = 0;
  // SequenceMask's fill for the steps past a sequence's length.
  double value = 0;
};

}  // namespace symx

#endif  // SYMX_GRAPH_OPS_SEQUENCE_H_
