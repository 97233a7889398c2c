// The spectral family's parameters (_contrib_fft, _contrib_ifft,
// _contrib_count_sketch), shared by
// the schema (graph/ops/spectral.cc) and the kernels.
#ifndef SYMX_GRAPH_OPS_SPECTRAL_H_
#define SYMX_GRAPH_OPS_SPECTRAL_H_

#include <cstdint>

#include "graph/param.h"

namespace symx {

struct FftParam : OpParam {
  // MXNet's sub-batch size for cuFFT plans; the result does not depend on it.
  int64_t compute_size = 128;
};

struct CountSketchParam : OpParam {
  int64_t out_dim = 0;
  // MXNet's rows per GPU launch; the result does not depend on it.
  int64_t processing_batch_size = 32;
};

}  // namespace symx

#endif  // SYMX_GRAPH_OPS_SPECTRAL_H_
