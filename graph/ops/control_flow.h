// The control-flow family's parameters (graph/ops/control_flow.cc; the kernels
// in devices/geometry/control_flow.cc run the bodies).
//
// _foreach(data..., states..., remains...) runs its body graph (the node's
// subgraph 0) once per row of the data inputs along axis 0, as MXNet 1.9.1's
// mx.sym.contrib.foreach: step t feeds the body row t of each data input, the
// states of step t-1 (the initial states at t = 0) and the remaining inputs
// unchanged; the body's first num_out_data outputs are stacked along a new
// axis 0, the rest are the next states, and the last step's are the op's last
// outputs. The body's inputs are its variables in DFS order; in_data_locs,
// in_state_locs and remain_locs say where each group of the node's inputs goes
// among them. MXNet counts the body itself as input "fn", so num_args is the
// node's input count plus one.
#ifndef SYMX_GRAPH_OPS_CONTROL_FLOW_H_
#define SYMX_GRAPH_OPS_CONTROL_FLOW_H_

#include <cstdint>
#include <vector>

#include "graph/param.h"
#include "graph/shape.h"

namespace symx {

struct ForeachParam : OpParam {
  int64_t num_args = 1;
  int64_t num_outputs = 0;
  int64_t num_out_data = 0;
  std::vector<int64_t> in_state_locs, in_data_locs, remain_locs;

  int num_data() const { return static_cast<int>(in_data_locs.size()); }
  int num_states() const { return static_cast<int>(in_state_locs.size()); }
  int num_inputs() const { return static_cast<int>(num_args - 1); }
  // The body input that node input i feeds (data, then states, then remains).
  int64_t BodyInputOf(int i) const;
};

// A data input's shape in one step: without axis 0, and (1,) for a 1-d
// input (MXNet's SliceFirstDim). Unknown stays unknown.
Shape StepShape(const Shape& data);

}  // namespace symx

#endif  // SYMX_GRAPH_OPS_CONTROL_FLOW_H_
