// Parameters of the extra neural-network ops (graph/ops/nn_extra.cc), shared by
// the schemas and the CPU kernels (devices/cpu/nn_extra_kernels.cc):
// SoftmaxActivation, L2Normalization, LRN, InstanceNorm, GroupNorm,
// _contrib_AdaptiveAvgPooling2D, _contrib_BilinearResize2D.
// softmin uses SoftmaxParam (graph/ops/softmax.h).
#ifndef SYMX_GRAPH_OPS_NN_EXTRA_H_
#define SYMX_GRAPH_OPS_NN_EXTRA_H_

#include <cstdint>
#include <optional>
#include <string>

#include "graph/param.h"

namespace symx {

struct SoftmaxActivationParam : OpParam {
  bool channel = false;  // mode=channel (softmax over axis 1); else mode=instance
};

struct L2NormalizationParam : OpParam {
  double eps = 1e-10;
  std::string mode = "instance";  // instance, channel or spatial
};

struct LRNParam : OpParam {
  double alpha = 1e-4;
  double beta = 0.75;
  double knorm = 2;
  int64_t nsize = 0;  // odd, >= 1
};

struct InstanceNormParam : OpParam {
  double eps = 1e-3;
};

struct GroupNormParam : OpParam {
  int64_t num_groups = 1;
  double eps = 1e-5;
  bool output_mean_var = false;
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

#endif  // SYMX_GRAPH_OPS_NN_EXTRA_H_
