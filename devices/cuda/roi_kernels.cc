// CUDA kernels of ROIPooling and _contrib_ROIAlign (and their backwards) and
// _contrib_box_iou,
// with the CPU kernels' checks and messages (devices/cpu/roi_kernels.cc).
#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/cuda/kernel_util.h"
#include "devices/kernel.h"
#include "devices/roi_geometry.h"
#include "graph/ops/detection.h"
#include "graph/ops/roi.h"

namespace symx {
namespace cuda {
namespace {

// data (N, C, H, W), rois (R, 5), output (R, C_out, PH, PW), all one dtype.
absl::StatusOr<RoiDims> DimsOf(const KernelContext& ctx, const Tensor& data, const Tensor& rois,
                               const Tensor& out) {
  const Shape& ds = data.shape();
  const Shape& os = out.shape();
  if (ds.ndim() != 4 || os.ndim() != 4 || rois.shape().ndim() != 2 || rois.shape()[1] != 5 ||
      rois.shape()[0] != os[0]) {
    return absl::InvalidArgumentError(absl::StrCat(
        ctx.Where(), ": unexpected shapes: data ", ds.ToString(), ", rois ",
        rois.shape().ToString(), ", output ", os.ToString()));
  }
  if (rois.dtype() != data.dtype()) return UnsupportedDType(ctx, rois.dtype());
  if (out.dtype() != data.dtype()) return UnsupportedDType(ctx, out.dtype());
  RoiDims d;
  d.n = ds[0];
  d.c = ds[1];
  d.h = ds[2];
  d.w = ds[3];
  d.r = os[0];
  d.co = os[1];
  d.ph = os[2];
  d.pw = os[3];
  return d;
}

absl::StatusOr<void*> HalfScratch(const KernelContext& ctx, const Tensor& grad) {
  if (!IsHalf(grad.dtype())) return nullptr;
  SYMX_ASSIGN_OR_RETURN(char* ws,
                        WorkspaceOf(ctx, 256 + static_cast<size_t>(grad.size()) * sizeof(float)));
  return ws + 256;
}

// The first 8 bytes of the workspace hold ROIAlign's first bad roi; past 256,
// the float accumulator of a half-type gradient.
size_t RoiWorkspace(const NodeAttrs&, const std::vector<Shape>& in,
                    const std::vector<Shape>& out, DType dtype) {
  size_t bytes = 256;
  if (IsHalf(dtype) && !out.empty()) bytes += static_cast<size_t>(out[0].Size()) * sizeof(float);
  return bytes;
}

// ROIAlign's empty rois with aligned=True: the CPU kernel's error.
// ROIAlign's empty rois with aligned=True: the CPU kernel's error, with the
// roi's size recomputed on the host by the shared geometry.
absl::Status CheckRois(const KernelContext& ctx, CudaDevice* device, const Tensor& rois,
                       const RoiDims& d, unsigned long long* first_bad) {
  SYMX_ASSIGN_OR_RETURN(int64_t bad, ReadFirstFlagged(device, first_bad));
  if (bad < 0) return absl::OkStatus();
  SYMX_ASSIGN_OR_RETURN(Tensor row, rois.Slice(bad, bad + 1));
  SYMX_ASSIGN_OR_RETURN(Tensor host, CopyToNew(row, Context::CPU(0), DType::kFloat64));
  const double* r = host.read_data<double>();
  double rw = 0, rh = 0;
  if (rois.dtype() == DType::kFloat64) {
    const RoiAlignGrid<double> g = MakeRoiAlignGrid<double>(
        r[1], r[2], r[3], r[4], d.scale, d.aligned, d.ph, d.pw, d.sample_ratio);
    rw = g.rw;
    rh = g.rh;
  } else {
    const RoiAlignGrid<float> g = MakeRoiAlignGrid<float>(
        static_cast<float>(r[1]), static_cast<float>(r[2]), static_cast<float>(r[3]),
        static_cast<float>(r[4]), d.scale, d.aligned, d.ph, d.pw, d.sample_ratio);
    rw = g.rw;
    rh = g.rh;
  }
  return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": roi ", bad, " has width ", rw,
                                                 " and height ", rh,
                                                 "; aligned=True needs both > 0 (MXNet aborts "
                                                 "here)"));
}

// The flag at the workspace's start.
absl::StatusOr<unsigned long long*> RoiFlag(const KernelContext& ctx, CudaDevice* device) {
  SYMX_ASSIGN_OR_RETURN(char* ws, WorkspaceOf(ctx, sizeof(unsigned long long)));
  auto* flag = reinterpret_cast<unsigned long long*>(ws);
  SYMX_RETURN_IF_ERROR(ResetFirstFlagged(device, flag));
  return flag;
}

// Inputs: data, rois. Outputs: out, argmax (as values of the data's dtype).
absl::Status RoiPooling(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& data = ctx.inputs[0];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, data.dtype()));
  SYMX_ASSIGN_OR_RETURN(RoiDims d, DimsOf(ctx, data, ctx.inputs[1], ctx.outputs[0]));
  d.scale = ctx.param<ROIPoolingParam>().spatial_scale;
  SYMX_CUDA_LAUNCH(ctx, LaunchRoiPool(t, data.read_raw_data(), ctx.inputs[1].read_raw_data(), d,
                                      ctx.outputs[0].raw_data(), ctx.outputs[1].raw_data(),
                                      device->stream()));
  return absl::OkStatus();
}

// Inputs: ograd, rois, argmax. Output: grad data.
absl::Status RoiPoolingBackward(const KernelContext& ctx) {
  if (!OutputWanted(ctx.req, 0)) return absl::OkStatus();
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& grad = ctx.outputs[0];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, grad.dtype()));
  SYMX_ASSIGN_OR_RETURN(RoiDims d, DimsOf(ctx, grad, ctx.inputs[1], ctx.inputs[0]));
  SYMX_ASSIGN_OR_RETURN(void* scratch, HalfScratch(ctx, grad));
  SYMX_CUDA_LAUNCH(ctx, LaunchRoiPoolGrad(t, ctx.inputs[0].read_raw_data(),
                                          ctx.inputs[1].read_raw_data(),
                                          ctx.inputs[2].read_raw_data(), d, grad.raw_data(),
                                          scratch, device->stream()));
  return absl::OkStatus();
}

RoiDims WithAlign(RoiDims d, const ROIAlignParam& p) {
  d.scale = p.spatial_scale;
  d.sample_ratio = p.sample_ratio;
  d.position_sensitive = p.position_sensitive;
  d.aligned = p.aligned;
  return d;
}

// Inputs: data, rois. Output: out.
absl::Status RoiAlign(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& data = ctx.inputs[0];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, data.dtype()));
  SYMX_ASSIGN_OR_RETURN(RoiDims d, DimsOf(ctx, data, ctx.inputs[1], ctx.outputs[0]));
  d = WithAlign(d, ctx.param<ROIAlignParam>());
  SYMX_ASSIGN_OR_RETURN(unsigned long long* first_bad, RoiFlag(ctx, device));
  SYMX_CUDA_LAUNCH(ctx, LaunchRoiAlign(t, data.read_raw_data(), ctx.inputs[1].read_raw_data(), d,
                                       ctx.outputs[0].raw_data(), first_bad, device->stream()));
  return d.aligned ? CheckRois(ctx, device, ctx.inputs[1], d, first_bad) : absl::OkStatus();
}

// Inputs: ograd, rois. Output: grad data.
absl::Status RoiAlignBackward(const KernelContext& ctx) {
  if (!OutputWanted(ctx.req, 0)) return absl::OkStatus();
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& grad = ctx.outputs[0];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, grad.dtype()));
  SYMX_ASSIGN_OR_RETURN(RoiDims d, DimsOf(ctx, grad, ctx.inputs[1], ctx.inputs[0]));
  d = WithAlign(d, ctx.param<ROIAlignParam>());
  SYMX_ASSIGN_OR_RETURN(void* scratch, HalfScratch(ctx, grad));
  SYMX_ASSIGN_OR_RETURN(unsigned long long* first_bad, RoiFlag(ctx, device));
  SYMX_CUDA_LAUNCH(ctx, LaunchRoiAlignGrad(t, ctx.inputs[0].read_raw_data(),
                                           ctx.inputs[1].read_raw_data(), d, grad.raw_data(),
                                           scratch, first_bad, device->stream()));
  return d.aligned ? CheckRois(ctx, device, ctx.inputs[1], d, first_bad) : absl::OkStatus();
}

// Inputs: lhs (..., 4), rhs (..., 4). Output: (lhs boxes, rhs boxes).
absl::Status BoxIou(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& l = ctx.inputs[0];
  const Tensor& r = ctx.inputs[1];
  const Tensor& out = ctx.outputs[0];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, l.dtype()));
  if (r.dtype() != l.dtype()) return UnsupportedDType(ctx, r.dtype());
  if (out.dtype() != l.dtype()) return UnsupportedDType(ctx, out.dtype());
  const int64_t nl = l.size() / 4, nr = r.size() / 4;
  if (out.size() != nl * nr) {
    return absl::InvalidArgumentError(
        absl::StrCat(ctx.Where(), ": output size is not lhs boxes x rhs boxes"));
  }
  SYMX_CUDA_LAUNCH(ctx, LaunchBoxIou(t, l.read_raw_data(), nl, r.read_raw_data(), nr,
                                     ctx.param<BoxIouParam>().center, out.raw_data(),
                                     device->stream()));
  return absl::OkStatus();
}

}  // namespace

SYMX_REGISTER_KERNEL("_contrib_box_iou", kGPU, BoxIou);
SYMX_REGISTER_KERNEL("ROIPooling", kGPU, RoiPooling);
SYMX_REGISTER_KERNEL("_backward_ROIPooling", kGPU, .fn = RoiPoolingBackward,
                     .workspace = RoiWorkspace);
SYMX_REGISTER_KERNEL("_contrib_ROIAlign", kGPU, .fn = RoiAlign, .workspace = RoiWorkspace);
SYMX_REGISTER_KERNEL("_backward_ROIAlign", kGPU, .fn = RoiAlignBackward, .workspace = RoiWorkspace);

}  // namespace cuda
}  // namespace symx
