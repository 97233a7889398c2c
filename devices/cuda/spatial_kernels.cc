// CUDA kernels of GridGenerator, BilinearSampler, SpatialTransformer and
// Correlation (and their backwards), with the CPU kernels' checks (devices/cpu/spatial_kernels.cc).
#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/cuda/kernel_util.h"
#include "devices/cuda/spatial_launch.h"
#include "devices/geometry/correlation_geom.h"
#include "devices/kernel.h"
#include "graph/ops/spatial.h"

namespace symx {
namespace cuda {
namespace {

absl::Status CheckShape(const KernelContext& ctx, const Tensor& t, int ndim, const char* what) {
  if (t.shape().ndim() == ndim) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(ctx.Where(), ": ", what, " ", t.DebugString(), " should have ", ndim, " dims"));
}

// Every input and output in input 0's dtype, a floating one.
absl::StatusOr<Elem> CommonFloat(const KernelContext& ctx) {
  const DType t = ctx.inputs[0].dtype();
  for (const std::vector<Tensor>* side : {&ctx.inputs, &ctx.outputs}) {
    for (const Tensor& x : *side) {
      if (x.dtype() != t) return UnsupportedDType(ctx, x.dtype());
    }
  }
  return FloatElem(ctx, t);
}

bool Affine(const KernelContext& ctx) {
  return ctx.param<GridGeneratorParam>().transform_type == "affine";
}

// Inputs: data (affine: loc (N, 6); warp: flow (N, 2, H, W)). Output: grid.
absl::Status GridGenerator(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const bool affine = Affine(ctx);
  const Tensor& in = ctx.inputs[0];
  const Tensor& out = ctx.outputs[0];
  SYMX_ASSIGN_OR_RETURN(Elem t, CommonFloat(ctx));
  SYMX_RETURN_IF_ERROR(CheckShape(ctx, in, affine ? 2 : 4, "data"));
  SYMX_RETURN_IF_ERROR(CheckShape(ctx, out, 4, "output"));
  SamplerDims d;
  d.n = out.shape()[0];
  d.h = out.shape()[2];
  d.w = out.shape()[3];
  d.affine = affine;
  SYMX_CUDA_LAUNCH(ctx,
                   LaunchGridGenerator(t, in.read_raw_data(), d, out.raw_data(), device->stream()));
  return absl::OkStatus();
}

// Inputs: ograd. Output: grad data.
absl::Status GridGeneratorBackward(const KernelContext& ctx) {
  if (!OutputWanted(ctx.req, 0)) return absl::OkStatus();
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const bool affine = Affine(ctx);
  const Tensor& og = ctx.inputs[0];
  const Tensor& gin = ctx.outputs[0];
  SYMX_ASSIGN_OR_RETURN(Elem t, CommonFloat(ctx));
  SYMX_RETURN_IF_ERROR(CheckShape(ctx, og, 4, "ograd"));
  SYMX_RETURN_IF_ERROR(CheckShape(ctx, gin, affine ? 2 : 4, "data gradient"));
  SamplerDims d;
  d.n = og.shape()[0];
  d.h = og.shape()[2];
  d.w = og.shape()[3];
  d.affine = affine;
  SYMX_CUDA_LAUNCH(
      ctx, LaunchGridGeneratorGrad(t, og.read_raw_data(), d, gin.raw_data(), device->stream()));
  return absl::OkStatus();
}

absl::StatusOr<SamplerDims> SamplerDimsOf(const KernelContext& ctx, const Tensor& data,
                                          const Tensor& grid, const Tensor& out, bool affine) {
  SYMX_RETURN_IF_ERROR(CheckShape(ctx, data, 4, "data"));
  SYMX_RETURN_IF_ERROR(CheckShape(ctx, grid, affine ? 2 : 4, affine ? "loc" : "grid"));
  SYMX_RETURN_IF_ERROR(CheckShape(ctx, out, 4, "output"));
  SamplerDims d;
  d.n = data.shape()[0];
  d.c = data.shape()[1];
  d.ih = data.shape()[2];
  d.iw = data.shape()[3];
  d.h = out.shape()[2];
  d.w = out.shape()[3];
  d.affine = affine;
  return d;
}

// BilinearSampler (inputs data, grid) or SpatialTransformer (data, loc).
template <bool kAffine>
absl::Status Sampler(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  SYMX_ASSIGN_OR_RETURN(Elem t, CommonFloat(ctx));
  const Tensor& data = ctx.inputs[0];
  const Tensor& grid = ctx.inputs[1];
  SYMX_ASSIGN_OR_RETURN(SamplerDims d, SamplerDimsOf(ctx, data, grid, ctx.outputs[0], kAffine));
  SYMX_CUDA_LAUNCH(ctx, LaunchSampler(t, data.read_raw_data(), grid.read_raw_data(), d,
                                      ctx.outputs[0].raw_data(), device->stream()));
  return absl::OkStatus();
}

// Inputs: ograd, data, grid/loc. Outputs: grad data, grad grid/loc.
template <bool kAffine>
absl::Status SamplerBackward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  SYMX_ASSIGN_OR_RETURN(Elem t, CommonFloat(ctx));
  const Tensor& data = ctx.inputs[1];
  SYMX_ASSIGN_OR_RETURN(SamplerDims d,
                        SamplerDimsOf(ctx, data, ctx.inputs[2], ctx.inputs[0], kAffine));
  void* gdata = OutputWanted(ctx.req, 0) ? ctx.outputs[0].raw_data() : nullptr;
  void* ggrid = OutputWanted(ctx.req, 1) ? ctx.outputs[1].raw_data() : nullptr;
  void* scratch = nullptr;
  if (gdata != nullptr && IsHalf(data.dtype())) {
    SYMX_ASSIGN_OR_RETURN(scratch,
                          WorkspaceOf(ctx, static_cast<size_t>(data.size()) * sizeof(float)));
  }
  SYMX_CUDA_LAUNCH(ctx, LaunchSamplerGrad(t, ctx.inputs[0].read_raw_data(), data.read_raw_data(),
                                          ctx.inputs[2].read_raw_data(), d, gdata, ggrid, scratch,
                                          device->stream()));
  return absl::OkStatus();
}

// The half types accumulate the data gradient in float.
size_t SamplerBackwardWorkspace(const NodeAttrs&, const std::vector<Shape>& in,
                                const std::vector<Shape>&, DType dtype) {
  if (in.size() < 2 || !IsHalf(dtype)) return 0;
  return static_cast<size_t>(in[1].Size()) * sizeof(float);
}

// ---------------------------------------------------------------- Correlation

absl::StatusOr<CorrelationGeom> CorrelationGeomOf(const KernelContext& ctx, const Tensor& data,
                                                  const Tensor& other, const Shape& out) {
  const Shape& ds = data.shape();
  if (ds.ndim() != 4 || out.ndim() != 4 || out[0] != ds[0] || other.shape() != ds) {
    return absl::InvalidArgumentError(
        absl::StrCat(ctx.Where(), ": unexpected shapes: data1 ", ds.ToString(), ", data2 ",
                     other.shape().ToString(), ", output ", out.ToString()));
  }
  if (other.dtype() != data.dtype()) return UnsupportedDType(ctx, other.dtype());
  return CorrelationGeomFrom(ctx.param<CorrelationParam>(), ds, out);
}

// Inputs data1, data2; output.
absl::Status Correlation(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, ctx.inputs[0].dtype()));
  SYMX_ASSIGN_OR_RETURN(CorrelationGeom g, CorrelationGeomOf(ctx, ctx.inputs[0], ctx.inputs[1],
                                                             ctx.outputs[0].shape()));
  SYMX_CUDA_LAUNCH(
      ctx, LaunchCorrelation(t, ctx.inputs[0].read_raw_data(), ctx.inputs[1].read_raw_data(), g,
                             ctx.outputs[0].raw_data(), device->stream()));
  return absl::OkStatus();
}

// Inputs ograd, data1, data2; outputs the gradients of data1 and data2.
absl::Status CorrelationBackward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, ctx.inputs[1].dtype()));
  SYMX_ASSIGN_OR_RETURN(CorrelationGeom g, CorrelationGeomOf(ctx, ctx.inputs[1], ctx.inputs[2],
                                                             ctx.inputs[0].shape()));
  SYMX_CUDA_LAUNCH(
      ctx, LaunchCorrelationGrad(t, ctx.inputs[0].read_raw_data(), ctx.inputs[1].read_raw_data(),
                                 ctx.inputs[2].read_raw_data(), g,
                                 OutputWanted(ctx.req, 0) ? ctx.outputs[0].raw_data() : nullptr,
                                 OutputWanted(ctx.req, 1) ? ctx.outputs[1].raw_data() : nullptr,
                                 device->stream()));
  return absl::OkStatus();
}

}  // namespace

SYMX_REGISTER_KERNEL("Correlation", kGPU, Correlation);
SYMX_REGISTER_KERNEL("_backward_Correlation", kGPU, CorrelationBackward);
SYMX_REGISTER_KERNEL("GridGenerator", kGPU, GridGenerator);
SYMX_REGISTER_KERNEL("_backward_GridGenerator", kGPU, GridGeneratorBackward);
SYMX_REGISTER_KERNEL("BilinearSampler", kGPU, Sampler<false>);
SYMX_REGISTER_KERNEL("_backward_BilinearSampler", kGPU, .fn = SamplerBackward<false>,
                     .workspace = SamplerBackwardWorkspace);
SYMX_REGISTER_KERNEL("SpatialTransformer", kGPU, Sampler<true>);
SYMX_REGISTER_KERNEL("_backward_SpatialTransformer", kGPU, .fn = SamplerBackward<true>,
                     .workspace = SamplerBackwardWorkspace);

}  // namespace cuda
}  // namespace symx
