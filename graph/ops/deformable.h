// Parameters of the deformable convolutions (graph/ops/deformable.cc), shared
// by the schemas and the CPU and CUDA kernels: _contrib_DeformableConvolution
// and _contrib_ModulatedDeformableConvolution.
#ifndef SYMX_GRAPH_OPS_DEFORMABLE_H_
#define SYMX_GRAPH_OPS_DEFORMABLE_H_

#include <cstdint>
#include <string>

#include "graph/param.h"

namespace symx {

struct DeformableConvParam : OpParam {
  bool modulated = false;  // _contrib_ModulatedDeformableConvolution (a mask input)
  // 2-D only, as MXNet (its kernels stop at "not implemented" for others).
  int64_t kernel_h = 1, kernel_w = 1;
  int64_t stride_h = 1, stride_w = 1;
  int64_t dilate_h = 1, dilate_w = 1;
  int64_t pad_h = 0, pad_w = 0;
  int64_t num_filter = 1;
  int64_t num_group = 1;
  int64_t num_deformable_group = 1;
  int64_t workspace = 1024;  // MB; accepted and unused (MXNet sizes a buffer with it)
  bool no_bias = false;
  int64_t im2col_step = 64;  // modulated only: samples per im2col batch (no effect on results)
  std::string layout;        // "None" or "NCHW"

  int64_t taps() const { return kernel_h * kernel_w; }
  const char* op_name() const {
    return modulated ? "_contrib_ModulatedDeformableConvolution" : "_contrib_DeformableConvolution";
  }
  // Forward inputs: data, offset, [mask], weight, [bias].
  int weight_input() const { return modulated ? 3 : 2; }
  int num_inputs() const { return weight_input() + (no_bias ? 1 : 2); }
};

}  // namespace symx

#endif  // SYMX_GRAPH_OPS_DEFORMABLE_H_
