// CUDA kernels of the roi family (graph/ops/roi.cc): _contrib_MultiProposal,
// _contrib_Proposal, _contrib_ROIAlign, ROIPooling, _contrib_PSROIPooling and
// _contrib_DeformablePSROIPooling, with their backward ops.
//
// CUDA kernels of _contrib_Proposal and _contrib_MultiProposal
// (devices/cuda/roi.cu). The images' im_info rows are read on the host
// first (one small copy per call) so that an image larger than the feature
// map is the CPU's error, naming the image.
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/cuda/kernel_util.h"
#include "devices/cuda/ordering_launch.h"
#include "devices/cuda/roi_launch.h"
#include "devices/geometry/proposal_plan.h"
#include "devices/geometry/roi_geometry.h"
#include "devices/kernel.h"
#include "graph/op.h"
#include "graph/ops/roi.h"

namespace symx {
namespace cuda {
namespace {

// The sizes of (N, C, H, W) data and (R, C', PH, PW) pooled output.
RoiDims RoiDimsFrom(const Shape& ds, const Shape& os) {
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

// data (N, C, H, W), rois (R, 5), output (R, C_out, PH, PW), all one dtype.
absl::StatusOr<RoiDims> DimsOf(const KernelContext& ctx, const Tensor& data, const Tensor& rois,
                               const Tensor& out) {
  const Shape& ds = data.shape();
  const Shape& os = out.shape();
  if (ds.ndim() != 4 || os.ndim() != 4 || rois.shape().ndim() != 2 || rois.shape()[1] != 5 ||
      rois.shape()[0] != os[0]) {
    return absl::InvalidArgumentError(
        absl::StrCat(ctx.Where(), ": unexpected shapes: data ", ds.ToString(), ", rois ",
                     rois.shape().ToString(), ", output ", os.ToString()));
  }
  if (rois.dtype() != data.dtype()) return UnsupportedDType(ctx, rois.dtype());
  if (out.dtype() != data.dtype()) return UnsupportedDType(ctx, out.dtype());
  return RoiDimsFrom(ds, os);
}

absl::StatusOr<void*> HalfScratch(const KernelContext& ctx, const Tensor& grad) {
  if (!IsHalf(grad.dtype())) return nullptr;
  SYMX_ASSIGN_OR_RETURN(char* ws,
                        WorkspaceOf(ctx, 256 + static_cast<size_t>(grad.size()) * sizeof(float)));
  return ws + 256;
}

// The first 8 bytes of the workspace hold ROIAlign's first bad roi; past 256,
// the float accumulator of a half-type gradient.
size_t RoiWorkspace(const NodeAttrs&, const std::vector<Shape>& in, const std::vector<Shape>& out,
                    DType dtype) {
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
    const RoiAlignGrid<double> g = MakeRoiAlignGrid<double>(r[1], r[2], r[3], r[4], d.scale,
                                                            d.aligned, d.ph, d.pw, d.sample_ratio);
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
  SYMX_CUDA_LAUNCH(
      ctx, LaunchRoiPool(t, data.read_raw_data(), ctx.inputs[1].read_raw_data(), d,
                         ctx.outputs[0].raw_data(), ctx.outputs[1].raw_data(), device->stream()));
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
  SYMX_CUDA_LAUNCH(
      ctx, LaunchRoiPoolGrad(t, ctx.inputs[0].read_raw_data(), ctx.inputs[1].read_raw_data(),
                             ctx.inputs[2].read_raw_data(), d, grad.raw_data(), scratch,
                             device->stream()));
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
  SYMX_CUDA_LAUNCH(
      ctx, LaunchRoiAlignGrad(t, ctx.inputs[0].read_raw_data(), ctx.inputs[1].read_raw_data(), d,
                              grad.raw_data(), scratch, first_bad, device->stream()));
  return d.aligned ? CheckRois(ctx, device, ctx.inputs[1], d, first_bad) : absl::OkStatus();
}

}  // namespace

SYMX_REGISTER_KERNEL("ROIPooling", kGPU, RoiPooling);
SYMX_REGISTER_KERNEL("_backward_ROIPooling", kGPU, .fn = RoiPoolingBackward,
                     .workspace = RoiWorkspace);
SYMX_REGISTER_KERNEL("_contrib_ROIAlign", kGPU, .fn = RoiAlign, .workspace = RoiWorkspace);
SYMX_REGISTER_KERNEL("_backward_ROIAlign", kGPU, .fn = RoiAlignBackward, .workspace = RoiWorkspace);

}  // namespace cuda

namespace cuda {
namespace {
// ---------------------------------------------------------------- PS poolings

// data (N, C, H, W), rois (R, 5), output (R, D, P, P), [trans], one dtype.
absl::StatusOr<PsRoiDims> PsDimsOf(const KernelContext& ctx, const Tensor& data, const Tensor& rois,
                                   const Tensor& out, const Tensor* trans) {
  const Shape& ds = data.shape();
  const Shape& os = out.shape();
  const Shape& rs = rois.shape();
  if (ds.ndim() != 4 || os.ndim() != 4 || rs.ndim() != 2 || rs[1] != 5 || rs[0] != os[0] ||
      (trans != nullptr && (trans->shape().ndim() != 4 || trans->shape()[1] < 2))) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": unexpected shapes: data ",
                                                   ds.ToString(), ", rois ", rs.ToString(),
                                                   ", output ", os.ToString()));
  }
  for (const Tensor* t : {&rois, &out, trans}) {
    if (t != nullptr && t->dtype() != data.dtype()) return UnsupportedDType(ctx, t->dtype());
  }
  const auto& p = ctx.param<PSROIPoolingParam>();
  PsRoiDims d;
  d.n = ds[0];
  d.c = ds[1];
  d.h = ds[2];
  d.w = ds[3];
  d.r = os[0];
  d.d = os[1];
  d.p = os[2];
  d.group = p.group_size;
  d.part = p.part_size;
  d.per_part = p.sample_per_part;
  d.scale = p.spatial_scale;
  d.trans_std = p.trans_std;
  d.has_trans = trans != nullptr;
  if (trans != nullptr) d.classes = trans->shape()[1] / 2;
  return d;
}

// Float scratch for a half-type gradient of `elems` elements at `offset`
// bytes into the workspace (null for float and double).
absl::StatusOr<void*> HalfScratchAt(const KernelContext& ctx, DType dtype, size_t offset,
                                    int64_t elems) {
  if (!IsHalf(dtype)) return nullptr;
  SYMX_ASSIGN_OR_RETURN(char* ws,
                        WorkspaceOf(ctx, offset + static_cast<size_t>(elems) * sizeof(float)));
  return ws + offset;
}

size_t RoundUp256(size_t bytes) { return (bytes + 255) / 256 * 256; }

// _backward_PSROIPooling: the data gradient's float scratch (half types).
size_t PsRoiWorkspace(const NodeAttrs&, const std::vector<Shape>&, const std::vector<Shape>& out,
                      DType dtype) {
  if (!IsHalf(dtype) || out.empty()) return 0;
  return static_cast<size_t>(out[0].Size()) * sizeof(float);
}

// _backward_DeformablePSROIPooling (inputs ograd, data, rois, [trans], ...):
// float scratch for data's then trans's gradient (half types).
size_t DeformPsRoiWorkspace(const NodeAttrs& attrs, const std::vector<Shape>& in,
                            const std::vector<Shape>&, DType dtype) {
  if (!IsHalf(dtype) || in.size() < 2) return 0;
  size_t bytes = RoundUp256(static_cast<size_t>(in[1].Size()) * sizeof(float));
  if (Param<PSROIPoolingParam>(attrs).has_trans() && in.size() > 3) {
    bytes += static_cast<size_t>(in[3].Size()) * sizeof(float);
  }
  return bytes;
}

// Inputs: data, rois. Output: out.
absl::Status PsRoiPooling(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& data = ctx.inputs[0];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, data.dtype()));
  SYMX_ASSIGN_OR_RETURN(PsRoiDims d, PsDimsOf(ctx, data, ctx.inputs[1], ctx.outputs[0], nullptr));
  SYMX_CUDA_LAUNCH(ctx, LaunchPsRoiPool(t, data.read_raw_data(), ctx.inputs[1].read_raw_data(), d,
                                        ctx.outputs[0].raw_data(), device->stream()));
  return absl::OkStatus();
}

// Inputs: ograd, rois. Output: grad data.
absl::Status PsRoiPoolingBackward(const KernelContext& ctx) {
  if (!OutputWanted(ctx.req, 0)) return absl::OkStatus();
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& grad = ctx.outputs[0];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, grad.dtype()));
  SYMX_ASSIGN_OR_RETURN(PsRoiDims d, PsDimsOf(ctx, grad, ctx.inputs[1], ctx.inputs[0], nullptr));
  SYMX_ASSIGN_OR_RETURN(void* scratch, HalfScratchAt(ctx, grad.dtype(), 0, grad.size()));
  SYMX_CUDA_LAUNCH(
      ctx, LaunchPsRoiPoolGrad(t, ctx.inputs[0].read_raw_data(), ctx.inputs[1].read_raw_data(), d,
                               grad.raw_data(), scratch, device->stream()));
  return absl::OkStatus();
}

// Inputs: data, rois, [trans]. Outputs: out, top_count.
absl::Status DeformPsRoiPooling(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const bool has_trans = ctx.param<PSROIPoolingParam>().has_trans();
  const Tensor& data = ctx.inputs[0];
  const Tensor* trans = has_trans ? &ctx.inputs[2] : nullptr;
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, data.dtype()));
  SYMX_ASSIGN_OR_RETURN(PsRoiDims d, PsDimsOf(ctx, data, ctx.inputs[1], ctx.outputs[0], trans));
  SYMX_CUDA_LAUNCH(ctx, LaunchDeformPsRoiPool(
                            t, data.read_raw_data(), ctx.inputs[1].read_raw_data(),
                            trans ? trans->read_raw_data() : nullptr, d, ctx.outputs[0].raw_data(),
                            ctx.outputs[1].raw_data(), device->stream()));
  return absl::OkStatus();
}

// Inputs: ograd, data, rois, [trans], top_count. Outputs: grad data,
// [grad rois (zero), grad trans].
absl::Status DeformPsRoiPoolingBackward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const bool has_trans = ctx.param<PSROIPoolingParam>().has_trans();
  const Tensor& data = ctx.inputs[1];
  const Tensor* trans = has_trans ? &ctx.inputs[3] : nullptr;
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, data.dtype()));
  SYMX_ASSIGN_OR_RETURN(PsRoiDims d, PsDimsOf(ctx, data, ctx.inputs[2], ctx.inputs[0], trans));
  const bool want_dx = OutputWanted(ctx.req, 0);
  const bool want_dt = has_trans && OutputWanted(ctx.req, 2);
  const size_t trans_offset = RoundUp256(static_cast<size_t>(data.size()) * sizeof(float));
  void* scratch = nullptr;
  void* trans_scratch = nullptr;
  if (want_dx) {
    SYMX_ASSIGN_OR_RETURN(scratch, HalfScratchAt(ctx, data.dtype(), 0, data.size()));
  }
  if (want_dt) {
    SYMX_ASSIGN_OR_RETURN(trans_scratch,
                          HalfScratchAt(ctx, data.dtype(), trans_offset, trans->size()));
  }
  if (has_trans && OutputWanted(ctx.req, 1) && ctx.outputs[1].nbytes() > 0) {
    SYMX_CUDA_LAUNCH(ctx, cudaMemsetAsync(ctx.outputs[1].raw_data(), 0, ctx.outputs[1].nbytes(),
                                          device->stream()));
  }
  if (!want_dx && !want_dt) return absl::OkStatus();
  SYMX_CUDA_LAUNCH(
      ctx,
      LaunchDeformPsRoiPoolGrad(
          t, ctx.inputs[0].read_raw_data(), data.read_raw_data(), ctx.inputs[2].read_raw_data(),
          trans ? trans->read_raw_data() : nullptr, ctx.inputs[has_trans ? 4 : 3].read_raw_data(),
          d, want_dx ? ctx.outputs[0].raw_data() : nullptr, scratch,
          want_dt ? ctx.outputs[2].raw_data() : nullptr, trans_scratch, device->stream()));
  return absl::OkStatus();
}

// Inputs: data, rois (R, 6). Output: out (R, C, PH, PW).
absl::Status RroiAlign(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& data = ctx.inputs[0];
  const Tensor& rois = ctx.inputs[1];
  const Tensor& out = ctx.outputs[0];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, data.dtype()));
  const Shape& ds = data.shape();
  const Shape& os = out.shape();
  if (ds.ndim() != 4 || os.ndim() != 4 || rois.shape().ndim() != 2 || rois.shape()[1] != 6 ||
      rois.shape()[0] != os[0] || os[1] != ds[1]) {
    return absl::InvalidArgumentError(
        absl::StrCat(ctx.Where(), ": unexpected shapes: data ", ds.ToString(), ", rois ",
                     rois.shape().ToString(), ", output ", os.ToString()));
  }
  if (rois.dtype() != data.dtype()) return UnsupportedDType(ctx, rois.dtype());
  const auto& p = ctx.param<RROIAlignParam>();
  RoiDims d = RoiDimsFrom(ds, os);
  d.scale = p.spatial_scale;
  d.sample_ratio = p.sampling_ratio;
  SYMX_CUDA_LAUNCH(ctx, LaunchRroiAlign(t, data.read_raw_data(), rois.read_raw_data(), d,
                                        out.raw_data(), device->stream()));
  return absl::OkStatus();
}

}  // namespace

SYMX_REGISTER_KERNEL("_contrib_RROIAlign", kGPU, RroiAlign);
SYMX_REGISTER_KERNEL("_contrib_PSROIPooling", kGPU, PsRoiPooling);
SYMX_REGISTER_KERNEL("_backward_PSROIPooling", kGPU, .fn = PsRoiPoolingBackward,
                     .workspace = PsRoiWorkspace);
SYMX_REGISTER_KERNEL("_contrib_DeformablePSROIPooling", kGPU, DeformPsRoiPooling);
SYMX_REGISTER_KERNEL("_backward_DeformablePSROIPooling", kGPU, .fn = DeformPsRoiPoolingBackward,
                     .workspace = DeformPsRoiWorkspace);

}  // namespace cuda

namespace cuda {
namespace {

// The workspace: base anchors, proposals, sort keys, the sort's own, then
// the NMS scratch (ordered, area, dead, keep).
struct ProposalLayout {
  size_t anchors = 0, props = 0, keys = 0, ordered = 0, area = 0, dead = 0, keep = 0, total = 0;
  WorkspacePieces::SortPiece sort;
};

ProposalLayout ProposalLayoutOf(const ProposalParam& p, const ProposalDims& d) {
  ProposalLayout l;
  const size_t items = static_cast<size_t>(d.n * d.count), pre = static_cast<size_t>(d.n * d.pre);
  WorkspacePieces w;
  l.anchors = w.Take(static_cast<size_t>(p.num_anchors()) * 4 * sizeof(float));
  l.props = w.Take(items * 5 * sizeof(float));
  l.keys = w.Take(items * sizeof(float));
  l.sort = w.TakeSort(Elem::kF32, SortDims{d.n, d.count, 1});
  l.ordered = w.Take(pre * 5 * sizeof(float));
  l.area = w.Take(pre * sizeof(float));
  l.dead = w.Take(pre);
  l.keep = w.Take(pre * sizeof(int32_t));
  l.total = w.total();
  return l;
}

size_t ProposalWorkspace(const NodeAttrs& attrs, const std::vector<Shape>& in,
                         const std::vector<Shape>&, DType) {
  if (in.empty() || in[0].ndim() != 4 || !in[0].fully_known()) return 0;
  const auto& p = Param<ProposalParam>(attrs);
  return ProposalLayoutOf(p, GetProposalDims(p, in[0])).total;
}

template <bool kMulti>
absl::Status ProposalForward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const auto& p = ctx.param<ProposalParam>();
  SYMX_ASSIGN_OR_RETURN(const ProposalDims d, CheckProposal(ctx, kMulti));
  if (d.count == 0 || d.n == 0) return absl::OkStatus();
  SYMX_ASSIGN_OR_RETURN(std::vector<double> info, HostDoubles(ctx.inputs[2]));
  if (static_cast<int64_t>(info.size()) < d.n * 3) {
    return Fail(ctx,
                absl::StrCat("im_info ", ctx.inputs[2].DebugString(), " should be (", d.n, ", 3)"));
  }
  for (int64_t b = 0; b < d.n; ++b) {
    int64_t real_h = 0, real_w = 0;
    SYMX_RETURN_IF_ERROR(CheckProposalImage(ctx, d, b, static_cast<float>(info[b * 3]),
                                            static_cast<float>(info[b * 3 + 1]), &real_h, &real_w));
  }
  const ProposalLayout l = ProposalLayoutOf(p, d);
  SYMX_ASSIGN_OR_RETURN(char* ws, SortingWorkspaceOf(ctx, l.total, d.n, d.count));
  const std::vector<float> anchors = MakeProposalAnchors(p);
  SYMX_RETURN_IF_ERROR(
      device->CopyFromHost(anchors.data(), ws + l.anchors, anchors.size() * sizeof(float)));
  ProposalArgs a;
  a.n = d.n;
  a.a = d.a;
  a.h = d.h;
  a.w = d.w;
  a.count = d.count;
  a.pre = d.pre;
  a.post_nms = d.post_nms;
  a.rows = d.rows;
  a.stride = p.feature_stride;
  a.min_size = p.rpn_min_size;
  a.threshold = p.threshold;
  a.iou_loss = p.iou_loss;
  auto* props = reinterpret_cast<float*>(ws + l.props);
  SYMX_CUDA_LAUNCH(ctx,
                   LaunchProposalDecode(static_cast<const float*>(ctx.inputs[0].read_raw_data()),
                                        static_cast<const float*>(ctx.inputs[1].read_raw_data()),
                                        static_cast<const float*>(ctx.inputs[2].read_raw_data()),
                                        reinterpret_cast<const float*>(ws + l.anchors), a, props,
                                        reinterpret_cast<float*>(ws + l.keys), device->stream()));
  const void* sorted = nullptr;
  const int32_t* positions = nullptr;
  SYMX_CUDA_LAUNCH(ctx, LaunchSortRows(Elem::kF32, ws + l.keys, SortDims{d.n, d.count, 1},
                                       /*ascending=*/false, ws + l.sort.offset, l.sort.bytes,
                                       &sorted, &positions, device->stream()));
  SYMX_CUDA_LAUNCH(
      ctx, LaunchProposalNms(props, positions, a, reinterpret_cast<float*>(ws + l.ordered),
                             reinterpret_cast<float*>(ws + l.area),
                             reinterpret_cast<uint8_t*>(ws + l.dead),
                             reinterpret_cast<int32_t*>(ws + l.keep),
                             static_cast<float*>(ctx.outputs[0].raw_data()),
                             static_cast<float*>(ctx.outputs[1].raw_data()), device->stream()));
  return absl::OkStatus();
}

}  // namespace

SYMX_REGISTER_KERNEL("_contrib_Proposal", kGPU, .fn = ProposalForward<false>,
                     .workspace = ProposalWorkspace);
SYMX_REGISTER_KERNEL("_contrib_MultiProposal", kGPU, .fn = ProposalForward<true>,
                     .workspace = ProposalWorkspace);

}  // namespace cuda

}  // namespace symx
