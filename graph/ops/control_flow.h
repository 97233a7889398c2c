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

// _cond(data...) runs body 0 (cond) on the inputs cond_input_locs names and,
// as its one-element output is nonzero or zero, body 1 (then) or body 2 (else)
// on the inputs then_input_locs / else_input_locs name; the taken branch's
// outputs are the op's. Locations index the node's inputs; MXNet counts the
// three bodies as inputs, so num_args is the node's input count plus three.
struct CondParam : OpParam {
  int64_t num_args = 3;
  int64_t num_outputs = 1;
  std::vector<int64_t> cond_input_locs, then_input_locs, else_input_locs;

  int num_inputs() const { return static_cast<int>(num_args - 3); }
  // The node inputs body b (0 cond, 1 then, 2 else) takes, in its input order.
  const std::vector<int64_t>& LocsOf(int b) const {
    return b == 0 ? cond_input_locs : b == 1 ? then_input_locs : else_input_locs;
  }
};

// _while_loop(data...) runs body 0 (cond) on the inputs cond_input_locs names
// and, while its one-element output is nonzero and fewer than max_iterations
// steps ran, body 1 (func) on the inputs func_input_locs names. func's
// outputs are num_out_data step outputs, stacked along a new axis 0 of
// max_iterations rows (rows of steps not taken are zero in symx, left
// uninitialized by MXNet), then the new loop variables: loop variable v is
// func's input func_var_locs[v], and its new value replaces that node input
// for the next step's cond and func. The last outputs are the final loop
// variables. num_args is the node's input count plus two (the bodies).
struct WhileLoopParam : OpParam {
  int64_t num_args = 2;
  int64_t num_outputs = 1;
  int64_t num_out_data = 0;
  int64_t max_iterations = 1;
  std::vector<int64_t> cond_input_locs, func_input_locs, func_var_locs;

  int num_inputs() const { return static_cast<int>(num_args - 2); }
  int num_vars() const { return static_cast<int>(func_var_locs.size()); }
  // The node input loop variable v replaces.
  int64_t VarInput(int v) const { return func_input_locs[func_var_locs[v]]; }
  const std::vector<int64_t>& LocsOf(int b) const {
    return b == 0 ? cond_input_locs : func_input_locs;
  }
};

// A data input's shape in one step: without axis 0, and (1,) for a 1-d
// input (MXNet's SliceFirstDim). Unknown stays unknown.
Shape StepShape(const Shape& data);

}  // namespace symx

#endif  // SYMX_GRAPH_OPS_CONTROL_FLOW_H_
