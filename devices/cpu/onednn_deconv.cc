#include "devices/cpu/onednn_deconv.h"

#include <memory>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "devices/cpu/onednn.h"
#include "devices/cpu/onednn_backward.h"
#include "graph/ops/convolution.h"

namespace symx {
namespace cpu {
namespace {

using dnnl::memory;

struct DeconvSetup {
  memory::desc src, wei, bias, dst;  // as symx stores them
  memory::dims strides, dilates, pad_l, pad_r;
  bool has_bias = false;
};

// MXNet's weight (C_in, C_out/G, k...) as oneDNN's deconvolution weight
// (G, C_out/G, C_in/G, k...) (no G when 1): the same memory, strided.
memory::desc WeightDesc(const Shape& weight, int64_t groups) {
  const int64_t cin = weight[0], ocg = weight[1], icg = cin / groups;
  int64_t k = 1;
  memory::dims kdims, kstrides(weight.ndim() - 2);
  for (int i = 2; i < weight.ndim(); ++i) kdims.push_back(weight[i]);
  for (int i = static_cast<int>(kdims.size()) - 1; i >= 0; --i) {
    kstrides[i] = k;
    k *= kdims[i];
  }
  memory::dims dims, strides;
  if (groups > 1) {
    dims.push_back(groups);
    strides.push_back(icg * ocg * k);
  }
  dims.insert(dims.end(), {ocg, icg});
  strides.insert(strides.end(), {k, ocg * k});
  dims.insert(dims.end(), kdims.begin(), kdims.end());
  strides.insert(strides.end(), kstrides.begin(), kstrides.end());
  return memory::desc(dims, memory::data_type::f32, strides);
}

// nullopt when oneDNN does not take the case (the im2col kernel then does,
// and reports malformed shapes).
std::optional<DeconvSetup> Describe(const ConvParam& p, const Shape& data, const Shape& weight,
                                    const Shape& out, DType dtype, const EngineOptions& options) {
  const int n = static_cast<int>(p.kernel.size());
  if (!options.onednn || !p.deconv || dtype != DType::kFloat32 || n < 1 || n > 3) {
    return std::nullopt;
  }
  // MXNet's Deconvolution takes only channels-first layouts ("None": unset).
  if (!p.layout.empty() && p.layout != "None" && !absl::StartsWith(p.layout, "NC")) {
    return std::nullopt;
  }
  if (data.ndim() != n + 2 || out.ndim() != n + 2 || weight.ndim() != n + 2) return std::nullopt;
  if (data.Size() == 0 || out.Size() == 0 || weight.Size() == 0) return std::nullopt;
  const int64_t groups = p.num_group, cin = data[1], cout = out[1];
  if (groups < 1 || cin % groups != 0 || cout % groups != 0 || data[0] != out[0]) {
    return std::nullopt;
  }
  if (weight[0] != cin || weight[1] != cout / groups) return std::nullopt;
  DeconvSetup s;
  for (int i = 0; i < n; ++i) {
    if (weight[2 + i] != p.kernel[i]) return std::nullopt;
    const int64_t dk = p.DilatedKernel(i), stride = p.stride[i];
    int64_t pad = p.pad[i];
    if (!p.target_shape.empty()) {
      // MXNet's rule (as the im2col kernel): the excess over the target, the
      // odd element on the far side.
      pad = (stride * (data[2 + i] - 1) + dk - out[2 + i] + 1) / 2;
    }
    // The far padding that makes the output exact: pad - adj, or the target's.
    const int64_t pad_r = (data[2 + i] - 1) * stride + dk - out[2 + i] - pad;
    if (pad < 0 || pad_r + stride <= 0) return std::nullopt;
    s.strides.push_back(stride);
    s.dilates.push_back(p.dilate[i] - 1);
    s.pad_l.push_back(pad);
    s.pad_r.push_back(pad_r);
  }
  s.src = PlainDesc(data);
  s.dst = PlainDesc(out);
  s.wei = WeightDesc(weight, groups);
  s.has_bias = !p.no_bias;
  if (s.has_bias) s.bias = PlainDesc(Shape{cout});
  return s;
}

dnnl::deconvolution_forward::primitive_desc ForwardPd(const DeconvSetup& s,
                                                      dnnl::prop_kind kind) {
  const memory::desc src = AnyDesc(s.src.dims()), wei = AnyDesc(s.wei.dims()),
                     dst = AnyDesc(s.dst.dims());
  auto d = s.has_bias ? dnnl::deconvolution_forward::desc(
                            kind, dnnl::algorithm::deconvolution_direct, src, wei, s.bias, dst,
                            s.strides, s.dilates, s.pad_l, s.pad_r)
                      : dnnl::deconvolution_forward::desc(
                            kind, dnnl::algorithm::deconvolution_direct, src, wei, dst, s.strides,
                            s.dilates, s.pad_l, s.pad_r);
  return dnnl::deconvolution_forward::primitive_desc(d, UserScratchpad(), OnednnEngine());
}

template <typename Pd>
void RequireRealImpl(const Pd& pd) {
  // oneDNN's reference kernels are far slower than the im2col ones.
  if (IsReferenceImpl(pd)) throw dnnl::error(dnnl_unimplemented, "only a reference implementation");
}

class DeconvForwardStep : public OnednnStep {
 public:
  DeconvForwardStep(const DeconvSetup& s, Device* keep_weights_on, WorkspaceArena* arena)
      : has_bias_(s.has_bias) {
    auto pd = ForwardPd(s, dnnl::prop_kind::forward_inference);
    RequireRealImpl(pd);
    src_ = Operand(s.src, pd.src_desc(), Operand::kInput, arena);
    wei_ = WeightOperand(s.wei, pd.weights_desc(), keep_weights_on, arena);
    dst_ = Operand(s.dst, pd.dst_desc(), Operand::kOutput, arena);
    if (has_bias_) bias_ = Operand(s.bias, s.bias, Operand::kInput, arena);
    scratch_desc_ = pd.scratchpad_desc();
    scratch_offset_ = arena->Reserve(scratch_desc_.get_size());
    prim_ = dnnl::deconvolution_forward(pd);
  }

  void Run(const KernelContext& ctx) override {
    const Tensor& ws = ctx.workspace;
    std::unordered_map<int, memory> args = {
        {DNNL_ARG_SRC, src_.Enter(ctx.inputs[0], ws, stream_)},
        {DNNL_ARG_WEIGHTS, wei_.Enter(ctx.inputs[1], ws, stream_)},
        {DNNL_ARG_DST, dst_.Enter(ctx.outputs[0], ws, stream_)},
        {DNNL_ARG_SCRATCHPAD, ScratchpadAt(scratch_desc_, ws, scratch_offset_)}};
    if (has_bias_) args[DNNL_ARG_BIAS] = bias_.Enter(ctx.inputs[2], ws, stream_);
    prim_.execute(stream_, args);
    dst_.Leave(stream_);
    stream_.wait();
  }

 private:
  bool has_bias_;
  Operand src_, bias_, dst_;
  WeightOperand wei_;
  memory::desc scratch_desc_;
  size_t scratch_offset_ = 0;
  dnnl::deconvolution_forward prim_;
};

// Backward (onednn_backward.h): each half only when one of its outputs is wanted.
std::unique_ptr<OnednnStep> MakeBackwardStep(const DeconvSetup& s, bool want_data,
                                             bool want_weight, WorkspaceArena* arena) {
  auto step = std::make_unique<WeightedBackwardStep<dnnl::deconvolution_backward_data,
                                                    dnnl::deconvolution_backward_weights>>();
  auto hint = ForwardPd(s, dnnl::prop_kind::forward_training);
  const memory::desc src = AnyDesc(s.src.dims()), wei = AnyDesc(s.wei.dims()),
                     dst = AnyDesc(s.dst.dims());
  if (want_data) {
    dnnl::deconvolution_backward_data::desc d(dnnl::algorithm::deconvolution_direct, src, wei, dst,
                                              s.strides, s.dilates, s.pad_l, s.pad_r);
    dnnl::deconvolution_backward_data::primitive_desc pd(d, UserScratchpad(), OnednnEngine(),
                                                         hint);
    RequireRealImpl(pd);
    step->SetDataHalf(pd, s.dst, s.wei, s.src, arena);
  }
  if (want_weight) {
    auto d = s.has_bias ? dnnl::deconvolution_backward_weights::desc(
                              dnnl::algorithm::deconvolution_direct, src, wei, s.bias, dst,
                              s.strides, s.dilates, s.pad_l, s.pad_r)
                        : dnnl::deconvolution_backward_weights::desc(
                              dnnl::algorithm::deconvolution_direct, src, wei, dst, s.strides,
                              s.dilates, s.pad_l, s.pad_r);
    dnnl::deconvolution_backward_weights::primitive_desc pd(d, UserScratchpad(), OnednnEngine(),
                                                            hint);
    RequireRealImpl(pd);
    step->SetWeightHalf(pd, s.src, s.dst, s.wei, s.has_bias ? &s.bias : nullptr, arena);
  }
  step->ReserveScratch(arena);
  return step;
}

}  // namespace

absl::Status PrepareOnednnDeconv(KernelContext* ctx, bool backward, size_t* workspace_bytes) {
  // Channels-last values never reach a Deconvolution (it declares none).
  SYMX_RETURN_IF_ERROR(RequirePlainLayouts(*ctx));
  const auto& p = ctx->param<ConvParam>();
  const size_t first = backward ? 1 : 0;
  if (ctx->inputs.size() < first + 2 || ctx->outputs.empty()) return absl::OkStatus();
  const Shape& data = ctx->inputs[first].shape();
  const Shape& weight = ctx->inputs[first + 1].shape();
  const Shape& out = backward ? ctx->inputs[0].shape() : ctx->outputs[0].shape();
  for (const Tensor& t : ctx->inputs) {
    if (t.dtype() != DType::kFloat32) return absl::OkStatus();
  }
  std::optional<DeconvSetup> s = Describe(p, data, weight, out, DType::kFloat32, ctx->options);
  if (!s) return absl::OkStatus();
  // A bias needs its input (forward) or its gradient output (backward): a
  // node without it is malformed, and the im2col kernel reports it.
  if (s->has_bias && (backward ? ctx->outputs.size() < 3 : ctx->inputs.size() < 3)) {
    return absl::OkStatus();
  }
  // No (real) oneDNN implementation for a case: the im2col kernel runs it.
  return PrepareOnednnStep(
      ctx, "creating the deconvolution primitives", workspace_bytes,
      [&](WorkspaceArena* arena) -> std::unique_ptr<OnednnStep> {
        if (!backward) {
          return std::make_unique<DeconvForwardStep>(
              *s, ctx->inference ? ctx->device : nullptr, arena);
        }
        const std::vector<OpReq>& req = ctx->req;
        const bool want_weight = OutputWanted(req, 1) || (s->has_bias && OutputWanted(req, 2));
        return MakeBackwardStep(*s, OutputWanted(req, 0), want_weight, arena);
      });
}

}  // namespace cpu
}  // namespace symx
