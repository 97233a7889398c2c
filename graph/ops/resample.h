// Parameters of the resample family (graph/ops/resample.cc), shared by the
// schema and the kernels.
#ifndef SYMX_GRAPH_OPS_RESAMPLE_H_
#define SYMX_GRAPH_OPS_RESAMPLE_H_

#include <cstdint>
#include <optional>
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

struct AdaptiveAvgPooling2DParam : OpParam {
  int64_t out_h = 1, out_w = 1;  // output_size: () -> (1, 1), (k,) -> (k, k), (h, w)
};

struct BilinearResize2DParam : OpParam {
  int64_t height = 1, width = 1;
  std::optional<double> scale_height, scale_width;  // both or neither
  // size, like (a second input gives H and W), odd_scale, to_even_down, to_even_up,
  // to_odd_down, to_odd_up.
  std::string mode = "size";
  bool align_corners = true;
  bool like() const { return mode == "like"; }
};

// MXNet's int(float(n) * scale).

inline int64_t ScaledSize(int64_t n, double scale) {
  return static_cast<int64_t>(static_cast<float>(n) * static_cast<float>(scale));
}

// The output size along one axis of `in` elements for every mode but like
// (`size` and `scale` are that axis's height/width and scale_*):
//   size:      in * scale when scales are given, else size;
//   odd_scale: in * scale for even in, (in - 1) * scale + 1 for odd in;
//   to_even_down / to_even_up / to_odd_down / to_odd_up: in, or in -/+ 1 when
//   its parity is not the wanted one.
inline int64_t BilinearOutputDim(const BilinearResize2DParam& p, int64_t in, int64_t size,
                                 const std::optional<double>& scale) {
  const std::string& m = p.mode;
  if (m == "size") return scale ? ScaledSize(in, *scale) : size;
  if (m == "odd_scale") {
    if (!scale) return size;  // rejected at parse time
    return in % 2 == 0 ? ScaledSize(in, *scale) : ScaledSize(in - 1, *scale) + 1;
  }
  const bool want_even = m == "to_even_down" || m == "to_even_up";
  const bool up = m == "to_even_up" || m == "to_odd_up";
  if ((in % 2 == 0) == want_even) return in;
  return up ? in + 1 : in - 1;
}

}  // namespace symx

#endif  // SYMX_GRAPH_OPS_RESAMPLE_H_
