// _symx_fused_conv on CPU. With oneDNN (float32, a case it runs with its
// direct kernels) one convolution primitive applies the BatchNorm, sum and
// activation as post-ops. Otherwise, and for Forward(is_train) when the
// BatchNorm uses batch statistics (which then also updates its moving
// statistics, as the unfused graph would), the parts run one after another
// with their own kernels, in place on the output.
#include "devices/cpu/fused_conv_kernels.h"

#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/kernel.h"
#include "devices/layout.h"
#include "graph/op.h"
#include "graph/ops/fused_conv.h"
#ifdef SYMX_WITH_ONEDNN
#include "devices/cpu/onednn.h"
#include "devices/cpu/onednn_conv.h"
#endif

namespace symx {
namespace cpu {
namespace {

size_t Align64(size_t n) { return (n + 63) / 64 * 64; }

// Scratch of the part-by-part path, in this order: the convolution's (im2col),
// BatchNorm's batch mean and var, a copy of the sum operand (the plan may
// have given the output the operand's memory, and the convolution writes the
// output first), and plain copies of data and output stored channels-last.
struct PartsScratch {
  size_t conv = 0, stats = 0, sum = 0, data = 0, out = 0;
  size_t total() const { return conv + stats + sum + data + out; }
};

PartsScratch ScratchFor(const FusedConvParam& p, const std::vector<Shape>& in,
                        const std::vector<Shape>& out, DType dtype, bool data_cl = false,
                        bool out_cl = false) {
  PartsScratch s;
  const KernelInfo* conv = KernelRegistry::Find("Convolution", DeviceType::kCPU);
  if (conv != nullptr && conv->workspace != nullptr && !out.empty()) {
    std::vector<Shape> conv_in(in.begin(), in.begin() + std::min<size_t>(in.size(), p.bn_input()));
    s.conv = Align64(conv->workspace(p.conv, conv_in, out, dtype));
  }
  if (out.empty() || out[0].ndim() < 2) return s;
  if (p.with_bn) s.stats = 2 * Align64(out[0][1] * DTypeSize(dtype));
  if (p.with_sum) s.sum = Align64(out[0].Size() * DTypeSize(dtype));
  if (data_cl && !in.empty()) s.data = Align64(in[0].Size() * DTypeSize(dtype));
  if (out_cl) s.out = Align64(out[0].Size() * DTypeSize(dtype));
  return s;
}

// ScratchFor the step `ctx` runs (its shapes and channels-last values).
PartsScratch ScratchOf(const KernelContext& ctx) {
  std::vector<Shape> in_shapes;
  for (const Tensor& t : ctx.inputs) in_shapes.push_back(t.shape());
  const Tensor& out = ctx.outputs[0];
  return ScratchFor(ctx.param<FusedConvParam>(), in_shapes, {out.shape()}, out.dtype(),
                    ctx.InputChannelsLast(0), ctx.OutputChannelsLast(0));
}

size_t FusedConvWorkspace(const NodeAttrs& attrs, const std::vector<Shape>& in,
                          const std::vector<Shape>& out, DType dtype) {
  return ScratchFor(Param<FusedConvParam>(attrs), in, out, dtype).total();
}

Tensor ScratchView(const Tensor& scratch, size_t offset, const Shape& shape, DType dtype) {
  return Tensor(scratch.storage(), scratch.offset() + offset, shape, dtype);
}

absl::Status RunPart(absl::string_view op, const KernelContext& part) {
  const KernelInfo* k = KernelRegistry::Find(op, DeviceType::kCPU);
  if (k == nullptr) return absl::InternalError(absl::StrCat("no CPU kernel for ", op));
  return k->fn(part);
}

const NodeAttrs& AddAttrs() {
  static const NodeAttrs* attrs = [] {
    auto* a = new NodeAttrs;
    a->op = OpRegistry::Global().Find("elemwise_add");
    a->parsed = std::make_shared<OpParam>();
    return a;
  }();
  return *attrs;
}

// conv -> [BatchNorm] -> [+ sum] -> [activation], each part's own kernel,
// in place on the output; `scratch` holds ScratchFor's bytes.
absl::Status RunParts(const KernelContext& ctx, const Tensor& scratch) {
  const auto& p = ctx.param<FusedConvParam>();
  const bool data_cl = ctx.InputChannelsLast(0), out_cl = ctx.OutputChannelsLast(0);
  const Tensor& result = ctx.outputs[0];
  const DType dtype = result.dtype();
  const size_t elem = DTypeSize(dtype);
  const PartsScratch sizes = ScratchOf(ctx);
  if (sizes.total() > 0 && (!scratch.defined() || scratch.nbytes() < sizes.total())) {
    return absl::InternalError(absl::StrCat(ctx.Where(), ": scratch space of ",
                                            scratch.defined() ? scratch.nbytes() : 0,
                                            " bytes, needs ", sizes.total()));
  }
  const size_t sum_at = sizes.conv + sizes.stats, data_at = sum_at + sizes.sum,
               out_at = data_at + sizes.data;
  Tensor data = ctx.inputs[0];
  if (data_cl) {
    data = ScratchView(scratch, data_at, data.shape(), dtype);
    ConvertChannelsLast(ctx.inputs[0].raw_data(), data.raw_data(), data.shape(), elem, false);
  }
  const Tensor out = out_cl ? ScratchView(scratch, out_at, result.shape(), dtype) : result;
  Tensor sum;
  if (p.with_sum) {
    sum = ScratchView(scratch, sum_at, out.shape(), dtype);
    const Tensor& given = ctx.inputs[p.sum_input()];
    if (ctx.InputChannelsLast(p.sum_input())) {
      ConvertChannelsLast(given.raw_data(), sum.raw_data(), out.shape(), elem, false);
    } else {
      std::memcpy(sum.raw_data(), given.raw_data(), out.nbytes());
    }
  }
  KernelContext part;
  part.device = ctx.device;
  part.is_train = ctx.is_train;
  part.num_threads = ctx.num_threads;
  part.rank_channel = ctx.rank_channel;
  part.options = ctx.options;

  part.attrs = &p.conv;
  part.inputs.assign(ctx.inputs.begin(), ctx.inputs.begin() + p.bn_input());
  part.inputs[0] = data;
  part.outputs = {out};
  part.req = {OpReq::kWrite};
  if (sizes.conv > 0) part.workspace = ScratchView(scratch, 0, Shape{int64_t(sizes.conv)}, DType::kUint8);
  SYMX_RETURN_IF_ERROR(RunPart("Convolution", part));
  part.workspace = Tensor();
  part.req = {OpReq::kInplace};
  if (p.with_bn) {
    const int b = p.bn_input();
    const Shape channels{out.shape()[1]};
    part.attrs = &p.bn;
    part.inputs = {out, ctx.inputs[b], ctx.inputs[b + 1], ctx.inputs[b + 2], ctx.inputs[b + 3]};
    const size_t half = sizes.stats / 2;
    part.outputs = {out, ScratchView(scratch, sizes.conv, channels, out.dtype()),
                    ScratchView(scratch, sizes.conv + half, channels, out.dtype())};
    part.req = {OpReq::kInplace, OpReq::kWrite, OpReq::kWrite};
    SYMX_RETURN_IF_ERROR(RunPart("BatchNorm", part));
  }
  part.req = {OpReq::kInplace};
  part.outputs = {out};
  if (p.with_sum) {
    part.attrs = &AddAttrs();
    part.inputs = {out, sum};
    SYMX_RETURN_IF_ERROR(RunPart("elemwise_add", part));
  }
  if (p.has_act()) {
    part.attrs = &p.act;
    part.inputs = {out};
    SYMX_RETURN_IF_ERROR(RunPart(p.act.op->name(), part));
  }
  if (out_cl) ConvertChannelsLast(out.raw_data(), result.raw_data(), out.shape(), elem, true);
  return absl::OkStatus();
}

// A prepared oneDNN step (or none), and the scratch of the part-by-part path,
// made the first time a call needs it (the plan does not reserve it for a
// path inference never takes).
struct FusedConvState : KernelState {
  std::shared_ptr<KernelState> onednn;
  Tensor parts_scratch;
};

absl::Status FusedConvKernel(const KernelContext& ctx) {
  if (ctx.state == nullptr) return Annotate(RunParts(ctx, ctx.workspace), ctx.Where());
  auto& state = static_cast<FusedConvState&>(*ctx.state);
#ifdef SYMX_WITH_ONEDNN
  // The oneDNN step folds the moving statistics: a BatchNorm on batch
  // statistics runs as its own kernel.
  const auto& p = ctx.param<FusedConvParam>();
  const bool batch_stats = ctx.is_train && p.with_bn && !p.bn_param().use_global_stats;
  if (state.onednn != nullptr && !batch_stats) {
    return RunOnednnStep(ctx, static_cast<OnednnStep&>(*state.onednn));
  }
#endif
  if (!state.parts_scratch.defined()) {
    const size_t bytes = ScratchOf(ctx).total();
    SYMX_ASSIGN_OR_RETURN(state.parts_scratch,
                          Tensor::Empty(Shape{int64_t(std::max<size_t>(bytes, 1))},
                                        DType::kUint8, ctx.outputs[0].ctx()));
  }
  return Annotate(RunParts(ctx, state.parts_scratch), ctx.Where());
}

#ifdef SYMX_WITH_ONEDNN
absl::Status PrepareFusedConv(KernelContext* ctx, size_t* workspace_bytes) {
  SYMX_RETURN_IF_ERROR(PrepareOnednnFusedConv(ctx, workspace_bytes));
  // Without a oneDNN step, channels-last values still need the part-by-part
  // path's conversion scratch, which the planned workspace does not hold.
  const bool channels_last = ctx->InputChannelsLast(0) || ctx->OutputChannelsLast(0);
  if (ctx->state == nullptr && !channels_last) return absl::OkStatus();
  auto state = std::make_shared<FusedConvState>();
  state->onednn = std::move(ctx->state);
  ctx->state = std::move(state);
  return absl::OkStatus();
}
constexpr ChannelsLastFn kFusedConvChannelsLast = FusedConvChannelsLast;
#else
constexpr PrepareFn PrepareFusedConv = nullptr;
constexpr ChannelsLastFn kFusedConvChannelsLast = nullptr;
#endif

}  // namespace

bool CpuFusionPays(const EngineOptions& options) {
#ifdef SYMX_WITH_ONEDNN
  return options.onednn;
#else
  return false;
#endif
}

SYMX_REGISTER_KERNEL(kFusedConvOp, kCPU, .fn = FusedConvKernel, .workspace = FusedConvWorkspace,
                     .prepare = PrepareFusedConv, .channels_last = kFusedConvChannelsLast,
                     .widening = HalfWidening::kFloat16AndBFloat16);

}  // namespace cpu
}  // namespace symx
