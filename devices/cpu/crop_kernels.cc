// CPU kernels of the crop family (graph/ops/crop.cc): Crop and _backward_Crop.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "devices/geometry/axis_layout.h"
#include "devices/cpu/kernel_util.h"
#include "devices/dtype_switch.h"
#include "devices/geometry/resize_map.h"
#include "devices/geometry/strided_view.h"
#include "graph/error.h"
#include "graph/infer_util.h"

namespace symx {
namespace cpu {
namespace {

// ------------------------------------------------------------------ Crop

// Copies the (h, w) window at (oy, ox) of `big` (N, C, H, W) to or from `small`
// (N, C, h, w), byte-wise, so every dtype works.
absl::Status CropCopy(const KernelContext& ctx, const Tensor& big, const Tensor& small,
                      bool to_small) {
  const Shape& B = big.shape();
  const Shape& S = small.shape();
  StridedView v;
  SYMX_RETURN_IF_ERROR(CropView(ctx, B, S, &v));
  if (big.dtype() != small.dtype()) return UnsupportedDType(ctx, small.dtype());
  const int64_t oy = v.offset / B[3], ox = v.offset % B[3];
  const size_t es = DTypeSize(big.dtype());
  char* bp = static_cast<char*>(big.raw_data());
  char* sp = static_cast<char*>(small.raw_data());
  const int64_t planes = S[0] * S[1], h = S[2], w = S[3], H = B[2], W = B[3];
  const size_t row = static_cast<size_t>(w) * es;
  if (row == 0) return absl::OkStatus();
  ParallelFor(ctx, planes * h, static_cast<double>(w), [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t plane = r / h, y = r % h;
      char* b = bp + static_cast<size_t>((plane * H + oy + y) * W + ox) * es;
      char* s = sp + static_cast<size_t>(r * w) * es;
      if (to_small) {
        std::memcpy(s, b, row);
      } else {
        std::memcpy(b, s, row);
      }
    }
  });
  return absl::OkStatus();
}

absl::Status CropForward(const KernelContext& ctx) {
  return CropCopy(ctx, ctx.inputs[0], ctx.outputs[0], /*to_small=*/true);
}

// grad data: zeros with ograd in the window.
absl::Status CropBackward(const KernelContext& ctx) {
  const Tensor& gx = ctx.outputs[0];
  std::memset(gx.raw_data(), 0, gx.nbytes());
  return CropCopy(ctx, gx, ctx.inputs[0], /*to_small=*/false);
}

SYMX_REGISTER_KERNEL("Crop", kCPU, CropForward);
SYMX_REGISTER_KERNEL("_backward_Crop", kCPU, CropBackward);

}  // namespace
}  // namespace cpu

}  // namespace symx
