#include "devices/cpu/onednn_pool.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <unordered_map>
#include <utility>

#include "devices/cpu/onednn.h"
#include "graph/ops/pooling.h"

namespace symx {
namespace cpu {
namespace {

using dnnl::memory;

struct PoolSetup {
  dnnl::algorithm alg = dnnl::algorithm::pooling_max;
  memory::dims strides, kernel, pad_l, pad_r;
  Shape data, out;
};

// nullopt when oneDNN does not compute MXNet's numbers for this case.
std::optional<PoolSetup> Describe(const PoolParam& p, const Shape& data, const Shape& out,
                                  DType dtype, const EngineOptions& options) {
  if (!options.onednn || dtype != DType::kFloat32) return std::nullopt;
  const int nd = data.ndim();
  if (nd < 3 || nd > 5 || out.ndim() != nd || out[0] != data[0] || out[1] != data[1]) {
    return std::nullopt;
  }
  if (data.Size() == 0 || out.Size() == 0) return std::nullopt;
  const int n = nd - 2;
  if (!p.global_pool && static_cast<int>(p.kernel.size()) != n) return std::nullopt;
  const bool include_pad = p.count_include_pad.value_or(true);
  PoolSetup s;
  if (p.pool_type == "max") {
    s.alg = dnnl::algorithm::pooling_max;
  } else if (p.pool_type == "avg") {
    s.alg = include_pad ? dnnl::algorithm::pooling_avg_include_padding
                        : dnnl::algorithm::pooling_avg_exclude_padding;
  } else {
    return std::nullopt;
  }
  for (int i = 0; i < n; ++i) {
    const int64_t k = p.global_pool ? data[2 + i] : p.kernel[i];
    const int64_t stride = p.global_pool ? 1 : p.stride[i];
    const int64_t pad = p.global_pool ? 0 : p.pad[i];
    if (p.global_pool && out[2 + i] != 1) return std::nullopt;
    // The right padding that makes the output size exact. MXNet cuts a window
    // at input + pad; oneDNN's windows end at input + pad_r, so they agree
    // when pad_r <= pad (always for max, where padding is never a value).
    const int64_t pad_r = (out[2 + i] - 1) * stride + k - data[2 + i] - pad;
    if (pad_r < 0 || pad >= k || pad_r >= k) return std::nullopt;
    if (s.alg == dnnl::algorithm::pooling_avg_include_padding && pad_r > pad) return std::nullopt;
    s.kernel.push_back(k);
    s.strides.push_back(stride);
    s.pad_l.push_back(pad);
    s.pad_r.push_back(pad_r);
  }
  s.data = data;
  s.out = out;
  return s;
}

dnnl::pooling_forward::primitive_desc PoolPd(const PoolSetup& s, bool channels_last) {
  dnnl::pooling_forward::desc d(dnnl::prop_kind::forward_inference, s.alg,
                                ActivationDesc(s.data, channels_last),
                                ActivationDesc(s.out, channels_last), s.strides, s.kernel,
                                s.pad_l, s.pad_r);
  return dnnl::pooling_forward::primitive_desc(d, UserScratchpad(), OnednnEngine());
}

class PoolStep : public OnednnStep {
 public:
  PoolStep(const dnnl::pooling_forward::primitive_desc& pd, const memory::desc& src,
           const memory::desc& dst, WorkspaceArena* arena) {
    src_ = Operand(src, pd.src_desc(), Operand::kInput, arena);
    dst_ = Operand(dst, pd.dst_desc(), Operand::kOutput, arena);
    scratch_desc_ = pd.scratchpad_desc();
    scratch_offset_ = arena->Reserve(scratch_desc_.get_size());
    prim_ = dnnl::pooling_forward(pd);
  }

  void Run(const KernelContext& ctx) override {
    const Tensor& ws = ctx.workspace;
    prim_.execute(stream_, {{DNNL_ARG_SRC, src_.Enter(ctx.inputs[0], ws, stream_)},
                            {DNNL_ARG_DST, dst_.Enter(ctx.outputs[0], ws, stream_)},
                            {DNNL_ARG_SCRATCHPAD, ScratchpadAt(scratch_desc_, ws, scratch_offset_)}});
    dst_.Leave(stream_);
    stream_.wait();
  }

 private:
  Operand src_, dst_;
  memory::desc scratch_desc_;
  size_t scratch_offset_ = 0;
  dnnl::pooling_forward prim_;
};

// Backward: ograd, data, out -> data gradient. Max pooling needs the
// positions of the maxima, which only oneDNN's training forward records: the
// step runs that forward again (into the workspace) before the backward.
class PoolBackwardStep : public OnednnStep {
 public:
  PoolBackwardStep(const PoolSetup& s, bool run_cl, const memory::desc& ograd,
                   const memory::desc& data, const memory::desc& dgrad, WorkspaceArena* arena)
      : max_(s.alg == dnnl::algorithm::pooling_max) {
    const memory::desc src = ActivationDesc(s.data, run_cl), dst = ActivationDesc(s.out, run_cl);
    const dnnl::primitive_attr attr = UserScratchpad();
    dnnl::pooling_forward::desc fd(dnnl::prop_kind::forward_training, s.alg, src, dst, s.strides,
                                   s.kernel, s.pad_l, s.pad_r);
    dnnl::pooling_forward::primitive_desc fpd(fd, attr, OnednnEngine());
    dnnl::pooling_backward::desc bd(s.alg, src, dst, s.strides, s.kernel, s.pad_l, s.pad_r);
    dnnl::pooling_backward::primitive_desc bpd(bd, attr, OnednnEngine(), fpd);
    if (IsReferenceImpl(bpd) || (max_ && IsReferenceImpl(fpd))) {
      throw dnnl::error(dnnl_unimplemented, "only a reference implementation");
    }
    ograd_ = Operand(ograd, bpd.diff_dst_desc(), Operand::kInput, arena);
    dgrad_ = Operand(dgrad, bpd.diff_src_desc(), Operand::kOutput, arena);
    size_t scratch = bpd.scratchpad_desc().get_size();
    if (max_) {
      data_ = Operand(data, fpd.src_desc(), Operand::kInput, arena);
      out_desc_ = fpd.dst_desc();
      ws_desc_ = fpd.workspace_desc();
      out_offset_ = arena->Reserve(out_desc_.get_size());
      ws_offset_ = arena->Reserve(ws_desc_.get_size());
      fwd_scratch_ = fpd.scratchpad_desc();
      scratch = std::max(scratch, fwd_scratch_.get_size());
      fwd_ = dnnl::pooling_forward(fpd);
    }
    bwd_scratch_ = bpd.scratchpad_desc();
    scratch_offset_ = arena->Reserve(scratch);
    bwd_ = dnnl::pooling_backward(bpd);
  }

  void Run(const KernelContext& ctx) override {
    const Tensor& ws = ctx.workspace;
    std::unordered_map<int, memory> args = {
        {DNNL_ARG_DIFF_DST, ograd_.Enter(ctx.inputs[0], ws, stream_)},
        {DNNL_ARG_DIFF_SRC, dgrad_.Enter(ctx.outputs[0], ws, stream_)},
        {DNNL_ARG_SCRATCHPAD, ScratchpadAt(bwd_scratch_, ws, scratch_offset_)}};
    if (max_) {
      char* base = static_cast<char*>(ws.raw_data());  // (no workspace at all without max_)
      const memory workspace = MemoryAt(ws_desc_, base + ws_offset_);
      fwd_.execute(stream_, {{DNNL_ARG_SRC, data_.Enter(ctx.inputs[1], ws, stream_)},
                             {DNNL_ARG_DST, MemoryAt(out_desc_, base + out_offset_)},
                             {DNNL_ARG_WORKSPACE, workspace},
                             {DNNL_ARG_SCRATCHPAD, ScratchpadAt(fwd_scratch_, ws, scratch_offset_)}});
      args[DNNL_ARG_WORKSPACE] = workspace;
    }
    bwd_.execute(stream_, args);
    dgrad_.Leave(stream_);
    stream_.wait();
  }

 private:
  bool max_;
  Operand ograd_, data_, dgrad_;
  memory::desc out_desc_, ws_desc_, fwd_scratch_, bwd_scratch_;
  size_t out_offset_ = 0, ws_offset_ = 0, scratch_offset_ = 0;
  dnnl::pooling_forward fwd_;
  dnnl::pooling_backward bwd_;
};

}  // namespace

absl::Status PrepareOnednnPoolingBackward(KernelContext* ctx, size_t* workspace_bytes) {
  if (ctx->inputs.size() < 3 || ctx->outputs.empty()) return absl::OkStatus();
  if (!OutputWanted(ctx->req, 0)) return absl::OkStatus();  // the Eigen kernel skips it
  const Tensor& data = ctx->inputs[1];
  for (const Tensor& t : ctx->inputs) {
    if (t.dtype() != DType::kFloat32) return absl::OkStatus();
  }
  if (ctx->inputs[0].shape() != ctx->inputs[2].shape()) return absl::OkStatus();
  std::optional<PoolSetup> s = Describe(ctx->param<PoolParam>(), data.shape(),
                                        ctx->inputs[0].shape(), data.dtype(), ctx->options);
  if (!s) return absl::OkStatus();
  // The primitives run channels-last when any operand is stored so (the plan
  // decides each on its own: the Eigen kernel takes any mix); the others are
  // converted.
  const bool ograd_cl = ctx->InputChannelsLast(0), data_cl = ctx->InputChannelsLast(1),
             dgrad_cl = ctx->OutputChannelsLast(0);
  const bool run_cl = ograd_cl || data_cl || dgrad_cl;
  return PrepareOnednnStep(ctx, "creating the pooling backward primitives", workspace_bytes,
                           [&](WorkspaceArena* arena) {
                             return std::make_unique<PoolBackwardStep>(
                                 *s, run_cl, ActivationDesc(s->out, ograd_cl),
                                 ActivationDesc(s->data, data_cl),
                                 ActivationDesc(s->data, dgrad_cl), arena);
                           });
}

absl::Status PrepareOnednnPooling(KernelContext* ctx, size_t* workspace_bytes) {
  if (ctx->inputs.empty() || ctx->outputs.empty()) return absl::OkStatus();
  std::optional<PoolSetup> s =
      Describe(ctx->param<PoolParam>(), ctx->inputs[0].shape(), ctx->outputs[0].shape(),
               ctx->inputs[0].dtype(), ctx->options);
  if (!s) return absl::OkStatus();
  const bool src_cl = ctx->InputChannelsLast(0), dst_cl = ctx->OutputChannelsLast(0);
  // With either side channels-last the primitive runs channels-last (the
  // case PoolingChannelsLast checked) and the plain side is converted; the
  // Eigen kernel takes plain values only, so such a step must get a kernel.
  const bool run_cl = src_cl || dst_cl;
  return PrepareOnednnStep(
      ctx, "creating the pooling primitive", workspace_bytes,
      [&](WorkspaceArena* arena) -> std::unique_ptr<OnednnStep> {
        auto pd = PoolPd(*s, run_cl);
        // Plain data gets oneDNN's plain-layout kernel only when it is a real one.
        if (IsReferenceImpl(pd)) return nullptr;
        return std::make_unique<PoolStep>(pd, ActivationDesc(s->data, src_cl),
                                          ActivationDesc(s->out, dst_cl), arena);
      },
      /*required=*/run_cl);
}

void PoolingChannelsLast(const NodeAttrs& attrs, const std::vector<Shape>& in,
                         const std::vector<Shape>& out, DType dtype, const EngineOptions& options,
                         std::vector<bool>* in_cl, std::vector<bool>* out_cl) {
  if (in.empty() || out.empty()) return;
  std::optional<PoolSetup> s = Describe(Param<PoolParam>(attrs), in[0], out[0], dtype, options);
  if (!s) return;
  try {
    ScopedOmpThreads threads(1);
    if (IsReferenceImpl(PoolPd(*s, true))) return;
  } catch (const dnnl::error&) {
    return;
  }
  (*in_cl)[0] = (*out_cl)[0] = true;
}

}  // namespace cpu
}  // namespace symx
