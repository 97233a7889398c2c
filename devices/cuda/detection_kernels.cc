// CUDA kernels of the detection family (graph/ops/detection.cc):
// _contrib_box_iou, _contrib_box_nms, _contrib_MultiBoxDetection,
// _contrib_MultiBoxPrior, _contrib_MultiBoxTarget, with their backward ops,
// _contrib_box_encode, _contrib_box_decode and _contrib_bipartite_matching.
//
// CUDA kernels of _contrib_MultiBoxPrior, _contrib_MultiBoxDetection,
// _contrib_MultiBoxTarget and _contrib_box_nms (forward and gradient);
// devices/cuda/detection.cu has the device code and the CPU's rules they
// follow.
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/cuda/detection_launch.h"
#include "devices/cuda/elemwise_launch.h"
#include "devices/cuda/kernel_util.h"
#include "devices/cuda/ordering_launch.h"
#include "devices/geometry/detection_plan.h"
#include "devices/geometry/roi_geometry.h"
#include "devices/kernel.h"
#include "graph/op.h"
#include "graph/ops/detection.h"

namespace symx {
namespace cuda {
namespace {

// The anchors' half sizes, uploaded each call.
size_t PriorWorkspace(const NodeAttrs& attrs, const std::vector<Shape>&, const std::vector<Shape>&,
                      DType) {
  return static_cast<size_t>(2 * Param<MultiBoxPriorParam>(attrs).num_anchors()) * sizeof(float);
}

absl::Status MultiBoxPriorForward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const auto& p = ctx.param<MultiBoxPriorParam>();
  SYMX_ASSIGN_OR_RETURN(const PriorGrid g, MakePriorGrid(ctx));
  if (ctx.outputs[0].size() == 0) return absl::OkStatus();
  SYMX_ASSIGN_OR_RETURN(char* ws, WorkspaceOf(ctx, g.half.size() * sizeof(float)));
  SYMX_RETURN_IF_ERROR(device->CopyFromHost(g.half.data(), ws, g.half.size() * sizeof(float)));
  SYMX_CUDA_LAUNCH(
      ctx, LaunchMultiBoxPrior(g.in_h, g.in_w, g.anchors, g.step_y, g.step_x, g.off_y, g.off_x,
                               reinterpret_cast<float*>(ws), p.clip,
                               static_cast<float*>(ctx.outputs[0].raw_data()), device->stream()));
  return absl::OkStatus();
}

// MultiBoxDetection's workspace: the candidate rows, their sort keys, the
// sort's own (LaunchSortRows), and the compacted anchor order.
struct MultiBoxLayout {
  size_t keys = 0, compact = 0, total = 0;
  WorkspacePieces::SortPiece sort;
};

MultiBoxLayout MultiBoxLayoutOf(Elem t, int64_t batch, int64_t anchors) {
  MultiBoxLayout l;
  const size_t elem = t == Elem::kF64 ? 8 : 4;  // float32 and float64 only
  const size_t items = static_cast<size_t>(batch * anchors);
  WorkspacePieces w;
  w.Take(items * 6 * elem);  // candidate rows, at 0
  l.keys = w.Take(items * elem);
  l.sort = w.TakeSort(BoxNmsKeyElem(t), SortDims{batch, anchors, 1});
  l.compact = w.Take(items * sizeof(int32_t));
  l.total = w.total();
  return l;
}

size_t MultiBoxDetectionWorkspace(const NodeAttrs&, const std::vector<Shape>& in,
                                  const std::vector<Shape>&, DType dtype) {
  if (in[0].ndim() != 3 || !in[0].fully_known()) return 0;
  return MultiBoxLayoutOf(static_cast<Elem>(static_cast<int>(dtype)), in[0][0], in[0][2]).total;
}

absl::Status MultiBoxDetectionForward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const auto& p = ctx.param<MultiBoxDetectionParam>();
  SYMX_ASSIGN_OR_RETURN(const MultiBoxDims d, CheckMultiBoxDetection(ctx));
  SYMX_ASSIGN_OR_RETURN(const Elem t, Float32Or64Elem(ctx, ctx.inputs[0].dtype()));
  if (d.batch * d.anchors == 0) return absl::OkStatus();
  const MultiBoxLayout l = MultiBoxLayoutOf(t, d.batch, d.anchors);
  SYMX_ASSIGN_OR_RETURN(char* ws, SortingWorkspaceOf(ctx, l.total, d.batch, d.anchors));
  MultiBoxArgs a;
  a.batch = d.batch;
  a.classes = d.classes;
  a.anchors = d.anchors;
  a.threshold = p.threshold;
  a.nms_threshold = p.nms_threshold;
  for (int j = 0; j < 4; ++j) a.var[j] = p.variances[j];
  a.nms_topk = p.nms_topk;
  a.clip = p.clip;
  a.force_suppress = p.force_suppress;
  SYMX_CUDA_LAUNCH(ctx, LaunchMultiBoxDecode(
                            t, ctx.inputs[0].read_raw_data(), ctx.inputs[1].read_raw_data(),
                            ctx.inputs[2].read_raw_data(), a, ws, ws + l.keys, device->stream()));
  const void* sorted = nullptr;
  const int32_t* positions = nullptr;
  SYMX_CUDA_LAUNCH(ctx,
                   LaunchSortRows(BoxNmsKeyElem(t), ws + l.keys, SortDims{d.batch, d.anchors, 1},
                                  /*ascending=*/false, ws + l.sort.offset, l.sort.bytes, &sorted,
                                  &positions, device->stream()));
  SYMX_CUDA_LAUNCH(ctx, LaunchMultiBoxNms(t, ws, ws + l.keys, sorted, positions, a,
                                          reinterpret_cast<int32_t*>(ws + l.compact),
                                          ctx.outputs[0].raw_data(), device->stream()));
  return absl::OkStatus();
}

// MultiBoxTarget's workspace: MultiBoxTargetScratch's arrays, then the
// keys' sort (LaunchSortRows).
struct TargetLayout {
  size_t aflag = 0, match = 0, gflag = 0, best_iou = 0, keys = 0, info = 0, total = 0;
  WorkspacePieces::SortPiece sort;
};

TargetLayout TargetLayoutOf(int64_t batch, int64_t anchors, int64_t labels) {
  TargetLayout l;
  const size_t items = static_cast<size_t>(batch * anchors);
  WorkspacePieces w;
  l.aflag = w.Take(items * sizeof(int32_t));
  l.match = w.Take(items * sizeof(int32_t));
  l.gflag = w.Take(static_cast<size_t>(batch * labels) * sizeof(int32_t));
  l.best_iou = w.Take(items * sizeof(double));
  l.keys = w.Take(items * sizeof(double));
  l.info = w.Take(static_cast<size_t>(batch) * 2 * sizeof(int64_t));
  l.sort = w.TakeSort(Elem::kF64, SortDims{batch, anchors, 1});
  l.total = w.total();
  return l;
}

size_t MultiBoxTargetWorkspace(const NodeAttrs&, const std::vector<Shape>& in,
                               const std::vector<Shape>&, DType) {
  if (in.size() < 2 || in[0].ndim() != 3 || in[1].ndim() != 3 || !in[0].fully_known() ||
      !in[1].fully_known()) {
    return 0;
  }
  return TargetLayoutOf(in[1][0], in[0][1], in[1][1]).total;
}

absl::Status MultiBoxTargetForward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const auto& p = ctx.param<MultiBoxTargetParam>();
  SYMX_ASSIGN_OR_RETURN(const MultiBoxTargetDims d, CheckMultiBoxTarget(ctx));
  SYMX_ASSIGN_OR_RETURN(const Elem t, Float32Or64Elem(ctx, ctx.inputs[0].dtype()));
  if (d.batch == 0) return absl::OkStatus();
  const TargetLayout l = TargetLayoutOf(d.batch, d.anchors, d.labels);
  SYMX_ASSIGN_OR_RETURN(char* ws, SortingWorkspaceOf(ctx, l.total, d.batch, d.anchors));
  MultiBoxTargetArgs a;
  a.batch = d.batch;
  a.anchors = d.anchors;
  a.labels = d.labels;
  a.label_width = d.label_width;
  a.classes = d.classes;
  a.overlap_threshold = p.overlap_threshold;
  a.ignore_label = p.ignore_label;
  a.negative_mining_ratio = p.negative_mining_ratio;
  a.negative_mining_thresh = p.negative_mining_thresh;
  for (int j = 0; j < 4; ++j) a.var[j] = p.variances[j];
  MultiBoxTargetScratch w;
  w.aflag = reinterpret_cast<int32_t*>(ws + l.aflag);
  w.match = reinterpret_cast<int32_t*>(ws + l.match);
  w.gflag = reinterpret_cast<int32_t*>(ws + l.gflag);
  w.best_iou = reinterpret_cast<double*>(ws + l.best_iou);
  w.keys = reinterpret_cast<double*>(ws + l.keys);
  w.info = reinterpret_cast<int64_t*>(ws + l.info);
  const void* anchors = ctx.inputs[0].read_raw_data();
  const void* labels = ctx.inputs[1].read_raw_data();
  void* outs[3] = {ctx.outputs[0].raw_data(), ctx.outputs[1].raw_data(), ctx.outputs[2].raw_data()};
  SYMX_CUDA_LAUNCH(ctx, LaunchMultiBoxMatch(t, anchors, labels, ctx.inputs[2].read_raw_data(), a, w,
                                            outs[0], outs[1], outs[2], device->stream()));
  const void* sorted = nullptr;
  const int32_t* positions = nullptr;
  SYMX_CUDA_LAUNCH(ctx, LaunchSortRows(Elem::kF64, w.keys, SortDims{d.batch, d.anchors, 1},
                                       /*ascending=*/true, ws + l.sort.offset, l.sort.bytes,
                                       &sorted, &positions, device->stream()));
  SYMX_CUDA_LAUNCH(
      ctx, LaunchMultiBoxTargetOut(t, anchors, labels, static_cast<const double*>(sorted),
                                   positions, a, w, outs[0], outs[1], outs[2], device->stream()));
  return absl::OkStatus();
}

// box_nms's workspace: the sort keys, the sort's own (LaunchSortRows), and a
// suppressed flag per row.
struct NmsLayout {
  size_t keys = 0, dead = 0, total = 0;
  WorkspacePieces::SortPiece sort;
};

NmsLayout NmsLayoutOf(Elem t, int64_t batches, int64_t n) {
  NmsLayout l;
  const Elem k = BoxNmsKeyElem(t);
  const size_t items = static_cast<size_t>(batches * n);
  WorkspacePieces w;
  l.keys = w.Take(items * (k == Elem::kF64 ? 8 : 4));
  l.sort = w.TakeSort(k, SortDims{batches, n, 1});
  l.dead = w.Take(items);
  l.total = w.total();
  return l;
}

size_t BoxNmsWorkspace(const NodeAttrs&, const std::vector<Shape>& in, const std::vector<Shape>&,
                       DType dtype) {
  const Shape& s = in[0];
  if (s.ndim() < 2 || !s.fully_known()) return 0;
  const int64_t width = s[s.ndim() - 1], n = s[s.ndim() - 2];
  const int64_t batches = n * width == 0 ? 0 : s.Size() / (n * width);
  return NmsLayoutOf(static_cast<Elem>(static_cast<int>(dtype)), batches, n).total;
}

absl::Status BoxNmsForward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const auto& p = ctx.param<BoxNmsParam>();
  SYMX_ASSIGN_OR_RETURN(const BoxNmsDims d, CheckBoxNms(ctx));
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, ctx.inputs[0].dtype()));
  if (d.batches == 0) return absl::OkStatus();
  const NmsLayout l = NmsLayoutOf(t, d.batches, d.n);
  SYMX_ASSIGN_OR_RETURN(char* ws, SortingWorkspaceOf(ctx, l.total, d.batches, d.n));
  BoxNmsArgs a;
  a.batches = d.batches;
  a.n = d.n;
  a.width = d.width;
  a.overlap_thresh = p.overlap_thresh;
  a.valid_thresh = p.valid_thresh;
  a.topk = p.topk;
  a.coord_start = p.coord_start;
  a.score_index = p.score_index;
  a.id_index = p.id_index;
  a.background_id = p.background_id;
  a.force_suppress = p.force_suppress;
  a.in_center = p.in_center;
  a.out_center = p.out_center;
  const void* x = ctx.inputs[0].read_raw_data();
  SYMX_CUDA_LAUNCH(ctx, LaunchBoxNmsKeys(t, x, a, ws + l.keys, device->stream()));
  const void* sorted = nullptr;
  const int32_t* positions = nullptr;
  SYMX_CUDA_LAUNCH(ctx, LaunchSortRows(BoxNmsKeyElem(t), ws + l.keys, SortDims{d.batches, d.n, 1},
                                       /*ascending=*/false, ws + l.sort.offset, l.sort.bytes,
                                       &sorted, &positions, device->stream()));
  SYMX_CUDA_LAUNCH(
      ctx, LaunchBoxNms(t, x, sorted, positions, a, reinterpret_cast<uint8_t*>(ws + l.dead),
                        ctx.outputs[0].raw_data(), ctx.outputs[1].raw_data(), device->stream()));
  return absl::OkStatus();
}

absl::Status BoxNmsBackward(const KernelContext& ctx) {
  if (!OutputWanted(ctx.req, 0)) return absl::OkStatus();
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  SYMX_ASSIGN_OR_RETURN(const BoxNmsDims d, CheckBoxNmsBackward(ctx));
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, ctx.inputs[0].dtype()));
  if (ctx.inputs[1].dtype() != ctx.inputs[0].dtype()) {
    return UnsupportedDType(ctx, ctx.inputs[1].dtype());
  }
  const Tensor& g = ctx.outputs[0];
  const bool add = !ctx.req.empty() && ctx.req[0] == OpReq::kAdd;
  if (!add) SYMX_RETURN_IF_ERROR(device->Memset(g.raw_data(), 0, g.nbytes()));
  SYMX_CUDA_LAUNCH(
      ctx, LaunchBoxNmsGrad(t, ctx.inputs[0].read_raw_data(), ctx.inputs[1].read_raw_data(),
                            d.batches * d.n, d.n, d.width, add, g.raw_data(), device->stream()));
  return absl::OkStatus();
}

}  // namespace

SYMX_REGISTER_KERNEL("_contrib_MultiBoxPrior", kGPU, .fn = MultiBoxPriorForward,
                     .workspace = PriorWorkspace);
SYMX_REGISTER_KERNEL("_contrib_MultiBoxDetection", kGPU, .fn = MultiBoxDetectionForward,
                     .workspace = MultiBoxDetectionWorkspace);
SYMX_REGISTER_KERNEL("_contrib_MultiBoxTarget", kGPU, .fn = MultiBoxTargetForward,
                     .workspace = MultiBoxTargetWorkspace);
SYMX_REGISTER_KERNEL("_contrib_box_nms", kGPU, .fn = BoxNmsForward, .workspace = BoxNmsWorkspace);
SYMX_REGISTER_KERNEL("_backward_contrib_box_nms", kGPU, .fn = BoxNmsBackward, .supports_add = true);

}  // namespace cuda

namespace cuda {
namespace {

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
  SYMX_CUDA_LAUNCH(ctx,
                   LaunchBoxIou(t, l.read_raw_data(), nl, r.read_raw_data(), nr,
                                ctx.param<BoxIouParam>().center, out.raw_data(), device->stream()));
  return absl::OkStatus();
}

// bipartite_matching's workspace: the keys and the sort's own.
struct MatchLayout {
  size_t keys = 0, total = 0;
  WorkspacePieces::SortPiece sort;
};

MatchLayout MatchLayoutOf(Elem t, int64_t batches, int64_t stride) {
  MatchLayout l;
  const Elem k = BoxNmsKeyElem(t);
  WorkspacePieces w;
  l.keys = w.Take(static_cast<size_t>(batches * stride) * (k == Elem::kF64 ? 8 : 4));
  l.sort = w.TakeSort(k, SortDims{batches, stride, 1});
  l.total = w.total();
  return l;
}

int64_t MatchBatches(const Shape& s) {
  const int64_t stride = s[s.ndim() - 2] * s[s.ndim() - 1];
  return stride == 0 ? 0 : s.Size() / stride;
}

size_t BipartiteMatchingWorkspace(const NodeAttrs&, const std::vector<Shape>& in,
                                  const std::vector<Shape>&, DType dtype) {
  const Shape& s = in[0];
  if (s.ndim() < 2 || !s.fully_known() || s.Size() == 0) return 0;
  return MatchLayoutOf(static_cast<Elem>(static_cast<int>(dtype)), MatchBatches(s),
                       s[s.ndim() - 2] * s[s.ndim() - 1])
      .total;
}

absl::Status BipartiteMatching(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const auto& p = ctx.param<BipartiteMatchingParam>();
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, ctx.inputs[0].dtype()));
  for (const Tensor& o : ctx.outputs) {
    if (o.dtype() != ctx.inputs[0].dtype()) return UnsupportedDType(ctx, o.dtype());
  }
  const Shape& s = ctx.inputs[0].shape();
  const int64_t nr = s[s.ndim() - 2], nc = s[s.ndim() - 1];
  const int64_t batches = MatchBatches(s);
  if (nr * nc == 0) {  // no pairs: every row and column unmatched
    for (const Tensor& o : ctx.outputs) {
      SYMX_CUDA_LAUNCH(ctx, LaunchFill(t, -1.0, o.raw_data(), o.size(), device->stream()));
    }
    return absl::OkStatus();
  }
  if (batches == 0) return absl::OkStatus();  // empty outputs
  const MatchLayout l = MatchLayoutOf(t, batches, nr * nc);
  SYMX_ASSIGN_OR_RETURN(char* ws, SortingWorkspaceOf(ctx, l.total, batches, nr * nc));
  SYMX_CUDA_LAUNCH(ctx, LaunchMatchKeys(t, ctx.inputs[0].read_raw_data(), batches * nr * nc,
                                        ws + l.keys, device->stream()));
  const void* sorted = nullptr;
  const int32_t* positions = nullptr;
  SYMX_CUDA_LAUNCH(
      ctx, LaunchSortRows(BoxNmsKeyElem(t), ws + l.keys, SortDims{batches, nr * nc, 1}, p.is_ascend,
                          ws + l.sort.offset, l.sort.bytes, &sorted, &positions, device->stream()));
  SYMX_CUDA_LAUNCH(
      ctx, LaunchMatchGreedy(t, sorted, positions, batches, nr, nc, p.is_ascend,
                             static_cast<float>(p.threshold), p.topk, ctx.outputs[0].raw_data(),
                             ctx.outputs[1].raw_data(), device->stream()));
  return absl::OkStatus();
}

// Inputs samples (B, N), matches (B, N), anchors (B, N, 4), refs (B, M, 4),
// means (4), stds (4); outputs targets, masks (B, N, 4).
absl::Status BoxEncode(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, ctx.inputs[0].dtype()));
  for (const Tensor& x : ctx.inputs) {
    if (x.dtype() != ctx.inputs[0].dtype()) return UnsupportedDType(ctx, x.dtype());
  }
  const Shape& as = ctx.inputs[2].shape();
  const int64_t n = as[1], m = ctx.inputs[3].shape()[1];
  SYMX_CUDA_LAUNCH(
      ctx,
      LaunchBoxEncode(t, ctx.inputs[0].read_raw_data(), ctx.inputs[1].read_raw_data(),
                      ctx.inputs[2].read_raw_data(), ctx.inputs[3].read_raw_data(),
                      ctx.inputs[4].read_raw_data(), ctx.inputs[5].read_raw_data(), as[0] * n, n, m,
                      ctx.outputs[0].raw_data(), ctx.outputs[1].raw_data(), device->stream()));
  return absl::OkStatus();
}

// Inputs data (B, N, 4), anchors (1, N, 4); output (B, N, 4).
absl::Status BoxDecode(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, ctx.inputs[0].dtype()));
  if (ctx.inputs[1].dtype() != ctx.inputs[0].dtype()) {
    return UnsupportedDType(ctx, ctx.inputs[1].dtype());
  }
  const auto& p = ctx.param<BoxDecodeParam>();
  const Shape& ds = ctx.inputs[0].shape();
  const double stds[4] = {p.std0, p.std1, p.std2, p.std3};
  SYMX_CUDA_LAUNCH(ctx,
                   LaunchBoxDecode(t, ctx.inputs[0].read_raw_data(), ctx.inputs[1].read_raw_data(),
                                   ds[0] * ds[1], ds[1], p.center, stds, p.clip > 0, p.clip,
                                   ctx.outputs[0].raw_data(), device->stream()));
  return absl::OkStatus();
}

}  // namespace

SYMX_REGISTER_KERNEL("_contrib_box_iou", kGPU, BoxIou);
SYMX_REGISTER_KERNEL("_contrib_box_encode", kGPU, BoxEncode);
SYMX_REGISTER_KERNEL("_contrib_bipartite_matching", kGPU, .fn = BipartiteMatching,
                     .workspace = BipartiteMatchingWorkspace);
SYMX_REGISTER_KERNEL("_contrib_box_decode", kGPU, BoxDecode);

}  // namespace cuda

}  // namespace symx
