// UpSampling's parameters, shared by the schema and the kernels.
#ifndef SYMX_GRAPH_OPS_UPSAMPLING_H_
#define SYMX_GRAPH_OPS_UPSAMPLING_H_

#include <cstdint>
#include <string>

#include "graph/param.h"

namespace symx {

struct UpSamplingParam : OpParam {
  int64_t scale = 1;
  int64_t num_filter = 0;
  std::string sample_type;
  std::string multi_input_mode;
  int64_t num_args = 1;
  int64_t workspace = 512;

  bool bilinear() const { return sample_type == "bilinear"; }
  // Bilinear upsampling is a stride-`scale` deconvolution with this square kernel, padded by
  // pad() on each side.
  int64_t kernel() const { return 2 * scale - scale % 2; }
  int64_t pad() const { return scale / 2; }  // ceil((scale - 1) / 2)
};

}  // namespace symx

#endif  // SYMX_GRAPH_OPS_UPSAMPLING_H_
