// Convolution and Deconvolution parameters, shared by the schema and the kernels.
#ifndef SYMX_GRAPH_OPS_CONVOLUTION_H_
#define SYMX_GRAPH_OPS_CONVOLUTION_H_

#include <cstdint>
#include <string>
#include <vector>

#include "graph/param.h"

namespace symx {

struct ConvParam : OpParam {
  bool deconv = false;
  std::vector<int64_t> kernel, stride, dilate, pad;
  std::vector<int64_t> adj, target_shape;  // Deconvolution only; target_shape empty = none
  int64_t num_filter = 1;
  int64_t num_group = 1;
  int64_t workspace = 0;
  bool no_bias = false;
  std::string cudnn_tune;
  bool cudnn_off = false;
  std::string layout;

  int64_t DilatedKernel(int i) const { return dilate[i] * (kernel[i] - 1) + 1; }
  const char* op_name() const { return deconv ? "Deconvolution" : "Convolution"; }
};

}  // namespace symx

#endif  // SYMX_GRAPH_OPS_CONVOLUTION_H_
