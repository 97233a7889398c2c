// CUDA kernels of _contrib_Proposal and _contrib_MultiProposal
// (devices/cuda/proposal.cu). The images' im_info rows are read on the host
// first (one small copy per call) so that an image larger than the feature
// map is the CPU's error, naming the image.
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/cuda/kernel_util.h"
#include "devices/proposal_plan.h"
#include "graph/op.h"
#include "graph/ops/roi.h"

namespace symx {
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
    return Fail(ctx, absl::StrCat("im_info ", ctx.inputs[2].DebugString(), " should be (",
                                  d.n, ", 3)"));
  }
  for (int64_t b = 0; b < d.n; ++b) {
    int64_t real_h = 0, real_w = 0;
    SYMX_RETURN_IF_ERROR(CheckProposalImage(ctx, d, b, static_cast<float>(info[b * 3]),
                                            static_cast<float>(info[b * 3 + 1]), &real_h,
                                            &real_w));
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
  SYMX_CUDA_LAUNCH(ctx, LaunchProposalDecode(
                            static_cast<const float*>(ctx.inputs[0].read_raw_data()),
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
