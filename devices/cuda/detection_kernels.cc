// CUDA kernels of _contrib_MultiBoxPrior and _contrib_box_nms (forward and
// gradient); devices/cuda/detection.cu has the device code and the CPU's
// rules they follow.
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/cuda/kernel_util.h"
#include "devices/detection_plan.h"
#include "graph/op.h"
#include "graph/ops/detection.h"

namespace symx {
namespace cuda {
namespace {

size_t Aligned(size_t b) { return (b + 255) / 256 * 256; }

// The anchors' half sizes, uploaded each call.
size_t PriorWorkspace(const NodeAttrs& attrs, const std::vector<Shape>&,
                      const std::vector<Shape>&, DType) {
  return static_cast<size_t>(2 * Param<MultiBoxPriorParam>(attrs).num_anchors()) * sizeof(float);
}

absl::Status MultiBoxPriorForward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const auto& p = ctx.param<MultiBoxPriorParam>();
  SYMX_ASSIGN_OR_RETURN(const PriorGrid g, MakePriorGrid(ctx));
  if (ctx.outputs[0].size() == 0) return absl::OkStatus();
  SYMX_ASSIGN_OR_RETURN(char* ws, WorkspaceOf(ctx, g.half.size() * sizeof(float)));
  SYMX_RETURN_IF_ERROR(device->CopyFromHost(g.half.data(), ws, g.half.size() * sizeof(float)));
  SYMX_CUDA_LAUNCH(ctx, LaunchMultiBoxPrior(g.in_h, g.in_w, g.anchors, g.step_y, g.step_x,
                                            g.off_y, g.off_x, reinterpret_cast<float*>(ws),
                                            p.clip, static_cast<float*>(ctx.outputs[0].raw_data()),
                                            device->stream()));
  return absl::OkStatus();
}

// box_nms's workspace: the sort keys, the sort's own (LaunchSortRows), and a
// suppressed flag per row.
struct NmsLayout {
  size_t keys = 0, sort = 0, dead = 0, total = 0;
};

NmsLayout NmsLayoutOf(Elem t, int64_t batches, int64_t n) {
  NmsLayout l;
  const Elem k = BoxNmsKeyElem(t);
  const size_t key_bytes = k == Elem::kF64 ? 8 : 4;
  l.sort = Aligned(static_cast<size_t>(batches * n) * key_bytes);
  const size_t sort_bytes = SortWorkspaceBytes(k, SortDims{batches, n, 1});
  l.dead = l.sort + Aligned(sort_bytes);
  l.total = sort_bytes == 0 && batches * n > 0 ? 0 : l.dead + Aligned(batches * n);
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
  if (l.total == 0) {
    return Fail(ctx, absl::StrCat(d.batches, " x ", d.n, " rows exceed the GPU sort's int32 range"));
  }
  SYMX_ASSIGN_OR_RETURN(char* ws, WorkspaceOf(ctx, l.total));
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
                                       /*ascending=*/false, ws + l.sort, l.dead - l.sort, &sorted,
                                       &positions, device->stream()));
  SYMX_CUDA_LAUNCH(ctx, LaunchBoxNms(t, x, sorted, positions, a,
                                     reinterpret_cast<uint8_t*>(ws + l.dead),
                                     ctx.outputs[0].raw_data(), ctx.outputs[1].raw_data(),
                                     device->stream()));
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
  SYMX_CUDA_LAUNCH(ctx, LaunchBoxNmsGrad(t, ctx.inputs[0].read_raw_data(),
                                         ctx.inputs[1].read_raw_data(), d.batches, d.n, d.width,
                                         add, g.raw_data(), device->stream()));
  return absl::OkStatus();
}

}  // namespace

SYMX_REGISTER_KERNEL("_contrib_MultiBoxPrior", kGPU, MultiBoxPriorForward, PriorWorkspace);
SYMX_REGISTER_KERNEL("_contrib_box_nms", kGPU, BoxNmsForward, BoxNmsWorkspace);
SYMX_REGISTER_KERNEL("_backward_contrib_box_nms", kGPU, BoxNmsBackward, nullptr, true);

}  // namespace cuda
}  // namespace symx
