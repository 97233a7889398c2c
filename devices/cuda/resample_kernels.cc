// CUDA kernels of the resample family (graph/ops/resample.cc):
// _contrib_AdaptiveAvgPooling2D, _contrib_BilinearResize2D, UpSampling, with
// their backward ops.
//
// Over the shape checks and sampling maps every device shares
// (devices/geometry/upsampling_geometry.h, devices/geometry/resize_map.h).
#include "absl/strings/str_cat.h"
#include "devices/cuda/kernel_util.h"
#include "devices/kernel.h"
#include "devices/geometry/pad_geometry.h"
#include "devices/geometry/upsampling_geometry.h"
#include "graph/ops/resample.h"
#include "devices/cuda/resample_launch.h"

namespace symx {
namespace cuda {
namespace {

DepthwiseUpDims DepthwiseDims(const BilinearGeometry& g) {
  DepthwiseUpDims d;
  d.n = g.in.n;
  d.c = g.in.c;
  d.h = g.in.h;
  d.w = g.in.w;
  d.H = g.out.h;
  d.W = g.out.w;
  d.k = g.k;
  d.stride = g.stride;
  d.pad = g.pad;
  return d;
}

UpDims NearestDims(const Tensor& part, const Nchw& o, int64_t offset) {
  UpDims d;
  d.n = part.shape()[0];
  d.c = part.shape()[1];
  d.h = part.shape()[2];
  d.w = part.shape()[3];
  d.C = o.c;
  d.H = o.h;
  d.W = o.w;
  d.offset = offset;
  return d;
}

// Nearest inputs: the data arrays. Bilinear inputs: data, weight.
absl::Status UpSampling(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const auto& p = ctx.param<UpSamplingParam>();
  const Tensor& out = ctx.outputs[0];
  for (const Tensor& in : ctx.inputs) {
    if (in.dtype() != out.dtype()) return UnsupportedDType(ctx, in.dtype());
  }
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, out.dtype()));
  if (p.bilinear()) {
    SYMX_ASSIGN_OR_RETURN(BilinearGeometry g, Bilinear(ctx, p, ctx.inputs[0], ctx.inputs[1], out));
    SYMX_CUDA_LAUNCH(
        ctx, LaunchDepthwiseUp(t, ctx.inputs[0].read_raw_data(), ctx.inputs[1].read_raw_data(),
                               DepthwiseDims(g), out.raw_data(), device->stream()));
    return absl::OkStatus();
  }
  SYMX_ASSIGN_OR_RETURN(Nchw o, AsNchw(ctx, out, "output"));
  const bool sum = p.multi_input_mode == "sum";
  SYMX_RETURN_IF_ERROR(CheckNearest(ctx, ctx.inputs, o, sum));
  int64_t offset = 0;
  for (size_t k = 0; k < ctx.inputs.size(); ++k) {
    const Tensor& in = ctx.inputs[k];
    SYMX_CUDA_LAUNCH(ctx, LaunchUpSampleNearest(t, in.read_raw_data(), NearestDims(in, o, offset),
                                                sum && k > 0, out.raw_data(), device->stream()));
    if (!sum) offset += in.shape()[1];
  }
  return absl::OkStatus();
}

// Nearest inputs: ograd; outputs: the data gradients. Bilinear inputs:
// ograd, data, weight; outputs: grad data, grad weight.
absl::Status UpSamplingBackward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const auto& p = ctx.param<UpSamplingParam>();
  const Tensor& og = ctx.inputs[0];
  for (const Tensor& g : ctx.outputs) {
    if (g.dtype() != og.dtype()) return UnsupportedDType(ctx, g.dtype());
  }
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, og.dtype()));
  auto wanted = [&](size_t j) {
    return OutputWanted(ctx.req, j) ? ctx.outputs[j].raw_data() : nullptr;
  };
  if (p.bilinear()) {
    SYMX_ASSIGN_OR_RETURN(BilinearGeometry g, Bilinear(ctx, p, ctx.inputs[1], ctx.inputs[2], og));
    if (ctx.outputs[0].size() != ctx.inputs[1].size() ||
        ctx.outputs[1].size() != ctx.inputs[2].size()) {
      return absl::InvalidArgumentError(
          absl::StrCat(ctx.Where(), ": gradient outputs do not match data and weight"));
    }
    SYMX_CUDA_LAUNCH(
        ctx, LaunchDepthwiseUpGrad(t, og.read_raw_data(), ctx.inputs[1].read_raw_data(),
                                   ctx.inputs[2].read_raw_data(), DepthwiseDims(g), wanted(0),
                                   wanted(1), device->stream()));
    return absl::OkStatus();
  }
  SYMX_ASSIGN_OR_RETURN(Nchw o, AsNchw(ctx, og, "output gradient"));
  const bool sum = p.multi_input_mode == "sum";
  SYMX_RETURN_IF_ERROR(CheckNearest(ctx, ctx.outputs, o, sum));
  int64_t offset = 0;
  for (size_t k = 0; k < ctx.outputs.size(); ++k) {
    const Tensor& gx = ctx.outputs[k];
    if (wanted(k) != nullptr) {
      SYMX_CUDA_LAUNCH(ctx,
                       LaunchUpSampleNearestGrad(t, og.read_raw_data(), NearestDims(gx, o, offset),
                                                 gx.raw_data(), device->stream()));
    }
    if (!sum) offset += gx.shape()[1];
  }
  return absl::OkStatus();
}

// The planes of (N, C, H, W) input `big` and (N, C, h, w) output `small`.
absl::StatusOr<ResizeDims> ResizeDimsOf(const KernelContext& ctx, const Tensor& big,
                                        const Tensor& small, bool align_corners) {
  const Shape& a = big.shape();
  const Shape& b = small.shape();
  if (a.ndim() != 4 || b.ndim() != 4 || a[0] != b[0] || a[1] != b[1]) {
    return absl::InvalidArgumentError(
        absl::StrCat(ctx.Where(), ": input ", big.DebugString(), " and output ",
                     small.DebugString(), " must be 4-D with the same batch and channels"));
  }
  if (big.dtype() != small.dtype()) return UnsupportedDType(ctx, small.dtype());
  ResizeDims d;
  d.planes = a[0] * a[1];
  d.H = a[2];
  d.W = a[3];
  d.h = b[2];
  d.w = b[3];
  d.align_corners = align_corners;
  return d;
}

// Forward (inputs data; output out) or backward (inputs ograd; output grad).
template <bool kForward, bool kBilinear>
absl::Status Resize(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& big = kForward ? ctx.inputs[0] : ctx.outputs[0];
  const Tensor& small = kForward ? ctx.outputs[0] : ctx.inputs[0];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, big.dtype()));
  const bool align = kBilinear && ctx.param<BilinearResize2DParam>().align_corners;
  SYMX_ASSIGN_OR_RETURN(ResizeDims d, ResizeDimsOf(ctx, big, small, align));
  const cudaStream_t s = device->stream();
  if (kForward) {
    SYMX_CUDA_LAUNCH(
        ctx, kBilinear ? LaunchBilinearResize(t, big.read_raw_data(), d, small.raw_data(), s)
                       : LaunchAdaptiveAvgPool(t, big.read_raw_data(), d, small.raw_data(), s));
  } else {
    SYMX_CUDA_LAUNCH(
        ctx, kBilinear ? LaunchBilinearResizeGrad(t, small.read_raw_data(), d, big.raw_data(), s)
                       : LaunchAdaptiveAvgPoolGrad(t, small.read_raw_data(), d, big.raw_data(), s));
  }
  return absl::OkStatus();
}

}  // namespace

SYMX_REGISTER_KERNEL("UpSampling", kGPU, UpSampling);
SYMX_REGISTER_KERNEL("_backward_UpSampling", kGPU, UpSamplingBackward);
SYMX_REGISTER_KERNEL("_contrib_AdaptiveAvgPooling2D", kGPU, Resize<true, false>);
SYMX_REGISTER_KERNEL("_backward_contrib_AdaptiveAvgPooling2D", kGPU, Resize<false, false>);
SYMX_REGISTER_KERNEL("_contrib_BilinearResize2D", kGPU, Resize<true, true>);
SYMX_REGISTER_KERNEL("_backward_contrib_BilinearResize2D", kGPU, Resize<false, true>);

}  // namespace cuda

}  // namespace symx
