// UpSampling's shapes checked once for every device's kernels: nearest mode's
// inputs against the output, and bilinear mode's depthwise transposed
// convolution (kernel, stride and padding from the op's scale).
#ifndef SYMX_DEVICES_GEOMETRY_UPSAMPLING_GEOMETRY_H_
#define SYMX_DEVICES_GEOMETRY_UPSAMPLING_GEOMETRY_H_

#include <vector>

#include "absl/status/statusor.h"
#include "devices/kernel.h"
#include "graph/ops/resample.h"

namespace symx {

struct Nchw {
  int64_t n = 0, c = 0, h = 0, w = 0;
  int64_t plane() const { return h * w; }
};

// `t` as (N, C, H, W); an error naming `what` and the node unless 4-D.
absl::StatusOr<Nchw> AsNchw(const KernelContext& ctx, const Tensor& t, const char* what);

// Nearest: input k is (N, C_k, h_k, w_k) with h_k, w_k dividing the output's;
// channels concatenated (or, with `sum`, each equal to) the output's.
absl::Status CheckNearest(const KernelContext& ctx, const std::vector<Tensor>& ins, const Nchw& o,
                          bool sum);

// Bilinear: out[n, c] = the transposed convolution of data[n, c] with
// weight[c, 0] (k x k), stride scale, padding pad.
struct BilinearGeometry {
  Nchw in, out;
  int64_t k = 0, stride = 0, pad = 0;
};
absl::StatusOr<BilinearGeometry> Bilinear(const KernelContext& ctx, const UpSamplingParam& p,
                                          const Tensor& data, const Tensor& weight,
                                          const Tensor& out);

}  // namespace symx

#endif  // SYMX_DEVICES_GEOMETRY_UPSAMPLING_GEOMETRY_H_
