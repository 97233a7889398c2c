// CUDA kernels of the pooling family (graph/ops/pooling.cc): Pooling and Pooling_v1, with
// their backward ops.
#include "absl/strings/str_cat.h"
#include "devices/geometry/axis_layout.h"
#include "devices/cuda/kernel_util.h"
#include "devices/geometry/pool_geom.h"
#include "graph/infer_util.h"
#include "graph/ops/pooling.h"
#include "devices/cuda/pooling_launch.h"

namespace symx {
namespace cuda {
namespace {

PoolDims DimsOfGeom(const PoolGeom& g) {
  PoolDims d;
  d.planes = g.planes;
  for (int k = 0; k < 3; ++k) {
    d.in[k] = g.in[k];
    d.out[k] = g.out[k];
    d.kernel[k] = g.kernel[k];
    d.stride[k] = g.stride[k];
    d.pad[k] = g.pad[k];
  }
  switch (g.type) {
    case PoolType::kMax:
      d.type = PoolFn::kMax;
      break;
    case PoolType::kAvg:
      d.type = PoolFn::kAvg;
      break;
    case PoolType::kSum:
      d.type = PoolFn::kSum;
      break;
    case PoolType::kLp:
      d.type = PoolFn::kLp;
      break;
  }
  d.count_include_pad = g.count_include_pad;
  d.p = g.p;
  return d;
}

absl::StatusOr<PoolDims> PoolDimsOf(const KernelContext& ctx, const Shape& data, const Shape& out) {
  PoolGeom g;
  SYMX_RETURN_IF_ERROR(MakePoolGeom(ctx, data, out, &g));
  return DimsOfGeom(g);
}

absl::StatusOr<PoolDims> PoolV1DimsOf(const KernelContext& ctx, const Shape& data,
                                      const Shape& out) {
  PoolGeom g;
  SYMX_RETURN_IF_ERROR(MakePoolV1Geom(ctx, data, out, &g));
  return DimsOfGeom(g);
}

absl::Status Pooling(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& x = ctx.inputs[0];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, x.dtype()));
  SYMX_ASSIGN_OR_RETURN(PoolDims d, PoolDimsOf(ctx, x.shape(), ctx.outputs[0].shape()));
  SYMX_CUDA_LAUNCH(
      ctx, LaunchPoolForward(t, x.read_raw_data(), d, ctx.outputs[0].raw_data(), device->stream()));
  return absl::OkStatus();
}

// Inputs: ograd, data, output. Output: grad data.
absl::Status PoolingBackward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& x = ctx.inputs[1];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, x.dtype()));
  SYMX_ASSIGN_OR_RETURN(PoolDims d, PoolDimsOf(ctx, x.shape(), ctx.inputs[2].shape()));
  void* workspace =
      ctx.workspace.defined() && ctx.workspace.nbytes() > 0 ? ctx.workspace.raw_data() : nullptr;
  SYMX_CUDA_LAUNCH(ctx, LaunchPoolBackward(t, ctx.inputs[0].read_raw_data(), x.read_raw_data(),
                                           ctx.inputs[2].read_raw_data(), d, workspace,
                                           ctx.outputs[0].raw_data(), device->stream()));
  return absl::OkStatus();
}

// Max pooling's backward keeps one window argmax (int64) per output.
size_t PoolingBackwardWorkspace(const NodeAttrs& attrs, const std::vector<Shape>& in,
                                const std::vector<Shape>&, DType) {
  if (Param<PoolParam>(attrs).pool_type != "max" || in.empty()) return 0;
  return static_cast<size_t>(in[0].Size()) * sizeof(int64_t);
}

absl::Status PoolingV1(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& x = ctx.inputs[0];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, x.dtype()));
  SYMX_ASSIGN_OR_RETURN(PoolDims d, PoolV1DimsOf(ctx, x.shape(), ctx.outputs[0].shape()));
  SYMX_CUDA_LAUNCH(ctx, LaunchPoolV1Forward(t, x.read_raw_data(), d, ctx.outputs[0].raw_data(),
                                            device->stream()));
  return absl::OkStatus();
}

// Inputs: ograd, data, output. Output: grad data.
absl::Status PoolingV1Backward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& x = ctx.inputs[1];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, x.dtype()));
  SYMX_ASSIGN_OR_RETURN(PoolDims d, PoolV1DimsOf(ctx, x.shape(), ctx.inputs[2].shape()));
  SYMX_CUDA_LAUNCH(ctx, LaunchPoolV1Backward(t, ctx.inputs[0].read_raw_data(), x.read_raw_data(),
                                             ctx.inputs[2].read_raw_data(), d,
                                             ctx.outputs[0].raw_data(), device->stream()));
  return absl::OkStatus();
}

}  // namespace

SYMX_REGISTER_KERNEL("Pooling", kGPU, Pooling);
SYMX_REGISTER_KERNEL("Pooling_v1", kGPU, PoolingV1);
SYMX_REGISTER_KERNEL("_backward_Pooling_v1", kGPU, PoolingV1Backward);
SYMX_REGISTER_KERNEL("_backward_Pooling", kGPU, .fn = PoolingBackward,
                     .workspace = PoolingBackwardWorkspace);

}  // namespace cuda

}  // namespace symx
