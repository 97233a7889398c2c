#include "devices/cpu/onednn_lrn.h"

#include <algorithm>
#include <memory>
#include <unordered_map>
#include <vector>

#include "devices/cpu/onednn.h"
#include "graph/ops/lrn.h"

namespace symx {
namespace cpu {
namespace {

using dnnl::memory;

// MXNet's LRN is oneDNN's across-channel LRN: y = x * (knorm + alpha / nsize *
// sum of x^2 over the nsize channels centred on x's)^-beta.
dnnl::lrn_forward::desc ForwardDesc(dnnl::prop_kind kind, const memory::desc& data,
                                    const LRNParam& p) {
  return dnnl::lrn_forward::desc(kind, dnnl::algorithm::lrn_across_channels, data, p.nsize,
                                 static_cast<float>(p.alpha), static_cast<float>(p.beta),
                                 static_cast<float>(p.knorm));
}

class LrnForwardStep : public OnednnStep {
 public:
  LrnForwardStep(const memory::desc& data, const LRNParam& p, WorkspaceArena* arena) : data_(data) {
    dnnl::lrn_forward::primitive_desc pd(ForwardDesc(dnnl::prop_kind::forward_inference, data, p),
                                         UserScratchpad(), OnednnEngine());
    if (IsReferenceImpl(pd)) throw dnnl::error(dnnl_unimplemented, "only a reference kernel");
    scratch_desc_ = pd.scratchpad_desc();
    scratch_offset_ = arena->Reserve(scratch_desc_.get_size());
    prim_ = dnnl::lrn_forward(pd);
  }

  void Run(const KernelContext& ctx) override {
    prim_.execute(stream_,
                  {{DNNL_ARG_SRC, MemoryAt(data_, ctx.inputs[0].read_raw_data())},
                   {DNNL_ARG_DST, MemoryAt(data_, ctx.outputs[0].raw_data())},
                   {DNNL_ARG_SCRATCHPAD, ScratchpadAt(scratch_desc_, ctx.workspace, scratch_offset_)}});
    stream_.wait();
  }

 private:
  memory::desc data_, scratch_desc_;
  size_t scratch_offset_ = 0;
  dnnl::lrn_forward prim_;
};

// oneDNN's LRN backward has fast kernels for blocked layouts only (its plain
// one is the reference kernel): the step converts data, its gradient and the
// output gradient to the first blocked layout with a real kernel.
class LrnBackwardStep : public OnednnStep {
 public:
  LrnBackwardStep(const memory::desc& data, const LRNParam& p, WorkspaceArena* arena) {
    for (const memory::format_tag tag :
         {memory::format_tag::nChw16c, memory::format_tag::nChw8c, memory::format_tag::nchw}) {
      const memory::desc run(data.dims(), memory::data_type::f32, tag);
      dnnl::lrn_forward::primitive_desc fpd(
          ForwardDesc(dnnl::prop_kind::forward_training, run, p), UserScratchpad(),
          OnednnEngine());
      dnnl::lrn_backward::desc bd(dnnl::algorithm::lrn_across_channels, run, run, p.nsize,
                                  static_cast<float>(p.alpha), static_cast<float>(p.beta),
                                  static_cast<float>(p.knorm));
      dnnl::lrn_backward::primitive_desc bpd(bd, UserScratchpad(), OnednnEngine(), fpd);
      if (IsReferenceImpl(fpd) || IsReferenceImpl(bpd)) continue;
      src_ = Operand(data, run, Operand::kInput, arena);
      ograd_ = Operand(data, run, Operand::kInput, arena);
      dgrad_ = Operand(data, run, Operand::kOutput, arena);
      run_ = run;
      ws_desc_ = fpd.workspace_desc();
      out_offset_ = arena->Reserve(run.get_size());
      ws_offset_ = arena->Reserve(ws_desc_.get_size());
      fwd_scratch_ = fpd.scratchpad_desc();
      bwd_scratch_ = bpd.scratchpad_desc();
      // The passes run one after the other: their scratchpads share space.
      scratch_offset_ =
          arena->Reserve(std::max(fwd_scratch_.get_size(), bwd_scratch_.get_size()));
      fwd_ = dnnl::lrn_forward(fpd);
      bwd_ = dnnl::lrn_backward(bpd);
      return;
    }
    throw dnnl::error(dnnl_unimplemented, "only reference kernels");
  }

  void Run(const KernelContext& ctx) override {
    const Tensor& ws = ctx.workspace;
    char* base = static_cast<char*>(ws.raw_data());
    const memory src = src_.Enter(ctx.inputs[1], ws, stream_);
    const memory workspace = MemoryAt(ws_desc_, base + ws_offset_);
    fwd_.execute(stream_, {{DNNL_ARG_SRC, src},
                           {DNNL_ARG_DST, MemoryAt(run_, base + out_offset_)},
                           {DNNL_ARG_WORKSPACE, workspace},
                           {DNNL_ARG_SCRATCHPAD, ScratchpadAt(fwd_scratch_, ws, scratch_offset_)}});
    bwd_.execute(stream_, {{DNNL_ARG_SRC, src},
                           {DNNL_ARG_DIFF_DST, ograd_.Enter(ctx.inputs[0], ws, stream_)},
                           {DNNL_ARG_WORKSPACE, workspace},
                           {DNNL_ARG_DIFF_SRC, dgrad_.Enter(ctx.outputs[0], ws, stream_)},
                           {DNNL_ARG_SCRATCHPAD, ScratchpadAt(bwd_scratch_, ws, scratch_offset_)}});
    dgrad_.Leave(stream_);
    stream_.wait();
  }

 private:
  Operand src_, ograd_, dgrad_;
  memory::desc run_, ws_desc_, fwd_scratch_, bwd_scratch_;
  size_t out_offset_ = 0, ws_offset_ = 0, scratch_offset_ = 0;
  dnnl::lrn_forward fwd_;
  dnnl::lrn_backward bwd_;
};

}  // namespace

absl::Status PrepareOnednnLrn(KernelContext* ctx, bool backward, size_t* workspace_bytes) {
  if (!ctx->options.onednn || ctx->inputs.empty() || ctx->outputs.empty()) return absl::OkStatus();
  // LRN is not declared channels-last: its values are plain.
  const Shape& shape = ctx->outputs[0].shape();
  if (shape.ndim() != 4 || shape.Size() == 0) return absl::OkStatus();
  // Other dtypes, or operands whose sizes differ: the Eigen kernel (and its errors).
  for (const std::vector<Tensor>* operands : {&ctx->inputs, &ctx->outputs}) {
    for (const Tensor& t : *operands) {
      if (t.dtype() != DType::kFloat32 || t.shape() != shape) return absl::OkStatus();
    }
  }
  const auto& p = ctx->param<LRNParam>();
  const memory::desc data = PlainDesc(shape);
  return PrepareOnednnStep(ctx, "creating the LRN primitives", workspace_bytes,
                           [&](WorkspaceArena* arena) -> std::unique_ptr<OnednnStep> {
                             if (backward) return std::make_unique<LrnBackwardStep>(data, p, arena);
                             return std::make_unique<LrnForwardStep>(data, p, arena);
                           });
}

}  // namespace cpu
}  // namespace symx
