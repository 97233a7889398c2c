// CUDA kernels of the lrn family (graph/ops/lrn.cc): LRN, with their backward
// ops.
#include <utility>

#include "absl/strings/str_cat.h"
#include "devices/geometry/axis_layout.h"
#include "devices/cuda/kernel_util.h"
#include "graph/infer_util.h"
#include "graph/ops/lrn.h"
#include "devices/cuda/lrn_launch.h"

namespace symx {
namespace cuda {
namespace {

// LRN over (N, C, H, W) data.
absl::StatusOr<LrnDims> LrnDimsOf(const KernelContext& ctx, const Tensor& x,
                                  const std::vector<Tensor>& same) {
  const Shape& s = x.shape();
  if (s.ndim() != 4) {
    return Fail(ctx, absl::StrCat("data ", s.ToString(), " must have 4 dims"));
  }
  for (const Tensor& t : same) {
    if (t.size() != x.size()) {
      return Fail(ctx, absl::StrCat(t.DebugString(), " should hold ", x.size(), " values"));
    }
    if (t.dtype() != x.dtype()) return UnsupportedDType(ctx, t.dtype());
  }
  const auto& p = ctx.param<LRNParam>();
  LrnDims d;
  d.batch = s[0];
  d.channels = s[1];
  d.spatial = s[2] * s[3];
  d.nsize = p.nsize;
  d.alpha = p.alpha;
  d.beta = p.beta;
  d.knorm = p.knorm;
  return d;
}

// Outputs: out, tmp_norm.
absl::Status Lrn(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& x = ctx.inputs[0];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, x.dtype()));
  SYMX_ASSIGN_OR_RETURN(LrnDims d, LrnDimsOf(ctx, x, ctx.outputs));
  SYMX_CUDA_LAUNCH(ctx, LaunchLrn(t, x.read_raw_data(), d, ctx.outputs[0].raw_data(),
                                  ctx.outputs[1].raw_data(), device->stream()));
  return absl::OkStatus();
}

// Inputs: ograd, data, tmp_norm. Output: grad data.
absl::Status LrnBackward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& gx = ctx.outputs[0];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, gx.dtype()));
  SYMX_ASSIGN_OR_RETURN(LrnDims d, LrnDimsOf(ctx, gx, ctx.inputs));
  SYMX_CUDA_LAUNCH(
      ctx, LaunchLrnGrad(t, ctx.inputs[0].read_raw_data(), ctx.inputs[1].read_raw_data(),
                         ctx.inputs[2].read_raw_data(), d, gx.raw_data(), device->stream()));
  return absl::OkStatus();
}

}  // namespace

SYMX_REGISTER_KERNEL("LRN", kGPU, Lrn);
SYMX_REGISTER_KERNEL("_backward_LRN", kGPU, LrnBackward);

}  // namespace cuda

}  // namespace symx
