#include "devices/cpu/onednn_conv.h"

#include <cmath>
#include <cstring>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/cpu/onednn.h"
#include "devices/cpu/onednn_backward.h"
#include "graph/op.h"
#include "graph/ops/activation.h"
#include "graph/ops/elemwise.h"
#include "graph/ops/fused_conv.h"

namespace symx {
namespace cpu {
namespace {

using dnnl::memory;

// A convolution as oneDNN describes it: plain descriptors for the tensors as
// symx stores them, and the geometry.
struct ConvSetup {
  memory::desc src, wei, bias, dst;
  // The data gradient as stored (backward; the data's layout unless set).
  memory::desc dsrc;
  memory::dims strides, dilates, pad_l, pad_r;
  bool has_bias = false;
  // Whether data and output stay plain in the primitive (both stored plain);
  // else oneDNN picks, and they are converted on the way in and out.
  bool plain_activations = false;
  // When either is stored channels-last, the primitive runs both
  // channels-last, the case ChannelsLastFn checked (oneDNN has only its
  // reference kernel for a plain operand next to a channels-last one); the
  // plain one is converted.
  bool src_channels_last = false, dst_channels_last = false, dsrc_channels_last = false;
  Shape src_shape, dst_shape;
  // Data and weights in bfloat16 (forward only; UseBf16); the output stays
  // float32.
  bool bf16 = false;

  // The layouts the primitive is asked for.
  memory::desc SrcWant() const {
    const memory::desc want = Want(src, src_shape);
    return bf16 ? WithDataType(want, memory::data_type::bf16) : want;
  }
  memory::desc DstWant() const { return Want(dst, dst_shape); }
  memory::desc WeightsWant() const {
    return memory::desc(wei.dims(), bf16 ? memory::data_type::bf16 : memory::data_type::f32,
                        memory::format_tag::any);
  }
  memory::desc Want(const memory::desc& stored, const Shape& shape) const {
    if (src_channels_last || dst_channels_last || dsrc_channels_last) {
      return ActivationDesc(shape, true);
    }
    return plain_activations ? stored : AnyDesc(stored.dims());
  }
};

// nullopt when the oneDNN path does not take this case (the im2col kernels
// then do, and report malformed shapes).
std::optional<ConvSetup> Describe(const ConvParam& p, const Shape& data, const Shape& weight,
                                  const Shape& out, DType dtype, const EngineOptions& options,
                                  bool src_channels_last = false, bool dst_channels_last = false) {
  const int n = static_cast<int>(p.kernel.size());
  if (!options.onednn || p.deconv || dtype != DType::kFloat32 || n < 1 || n > 3) {
    return std::nullopt;
  }
  if (data.ndim() != n + 2 || out.ndim() != n + 2 || weight.ndim() != n + 2) return std::nullopt;
  if (data.Size() == 0 || out.Size() == 0 || weight.Size() == 0) return std::nullopt;
  const int64_t groups = p.num_group;
  const int64_t c = data[1], o = out[1];
  if (groups < 1 || c % groups != 0 || o % groups != 0 || data[0] != out[0]) return std::nullopt;
  if (weight[0] != o || weight[1] != c / groups) return std::nullopt;
  ConvSetup s;
  for (int i = 0; i < n; ++i) {
    if (weight[2 + i] != p.kernel[i]) return std::nullopt;
    const int64_t dk = p.DilatedKernel(i);
    // oneDNN wants the right padding that makes the output size exact; MXNet's
    // floor convention can make it negative (down to 1 - stride), which
    // oneDNN accepts.
    const int64_t pad_r = (out[2 + i] - 1) * p.stride[i] + dk - data[2 + i] - p.pad[i];
    if (pad_r + p.stride[i] <= 0) return std::nullopt;
    s.strides.push_back(p.stride[i]);
    s.dilates.push_back(p.dilate[i] - 1);
    s.pad_l.push_back(p.pad[i]);
    s.pad_r.push_back(pad_r);
  }
  s.src = ActivationDesc(data, src_channels_last);
  s.dsrc = s.src;
  s.dst = ActivationDesc(out, dst_channels_last);
  s.src_channels_last = src_channels_last;
  s.dst_channels_last = dst_channels_last;
  s.src_shape = data;
  s.dst_shape = out;
  if (groups == 1) {
    s.wei = PlainDesc(weight);
  } else {
    // (O, C/G, k...) is (G, O/G, C/G, k...) in the same memory.
    std::vector<int64_t> dims = {groups, o / groups};
    for (int i = 1; i < weight.ndim(); ++i) dims.push_back(weight[i]);
    s.wei = PlainDesc(Shape(dims));
  }
  // A 1x1, stride-1, unpadded convolution on the plain layout is one GEMM per
  // sample, which oneDNN runs without converting anything; elsewhere its
  // direct kernels on a channel-last or blocked layout win even with the two
  // conversions (ResNet-50 batch 16, per layer: 3x3 16 ms + 2-4 ms of
  // conversions against 22-30 ms on the plain layout; 1x1 8-9 ms plain against
  // 8 ms + up to 18 ms of conversions).
  bool pointwise = true;
  for (int i = 0; i < n; ++i) {
    pointwise &= p.kernel[i] == 1 && p.stride[i] == 1 && p.pad[i] == 0 && p.dilate[i] == 1;
  }
  s.plain_activations = pointwise;
  s.has_bias = !p.no_bias;
  if (s.has_bias) s.bias = PlainDesc(Shape{o});
  return s;
}

// What a fused step applies after the convolution, in this order: the folded
// BatchNorm as a per-channel scale and shift (binary post-ops, so the weights
// stay as they are), the sum operand, the activation.
struct PostOps {
  bool bn = false;
  bool sum = false;
  std::optional<dnnl::algorithm> act;
  float alpha = 0, beta = 0;
  // Where the step finds the BatchNorm's inputs (gamma, beta, moving mean and
  // var) and the sum operand, and the BatchNorm's attributes.
  int bn_input = 0, sum_input = 0;
  double eps = 0;
  bool fix_gamma = false;

  // The per-channel operand of the binary post-ops: (1, O, 1...).
  memory::desc ChannelDesc(const memory::desc& dst) const {
    memory::dims dims(dst.dims().size(), 1);
    dims[1] = dst.dims()[1];
    return PlainDesc(Shape(std::vector<int64_t>(dims.begin(), dims.end())));
  }

  dnnl::primitive_attr Attr(const memory::desc& dst) const {
    dnnl::primitive_attr attr = UserScratchpad();
    dnnl::post_ops ops;
    if (bn) {
      ops.append_binary(dnnl::algorithm::binary_mul, ChannelDesc(dst));
      ops.append_binary(dnnl::algorithm::binary_add, ChannelDesc(dst));
    }
    if (sum) ops.append_sum(1.0f);
    if (act) ops.append_eltwise(1.0f, *act, alpha, beta);
    attr.set_post_ops(ops);
    return attr;
  }
};

dnnl::convolution_forward::primitive_desc ForwardPd(const ConvSetup& s, dnnl::prop_kind kind,
                                                    const PostOps* post = nullptr) {
  memory::desc src = s.SrcWant(), wei = s.WeightsWant(), dst = s.DstWant();
  auto d =
      s.has_bias
          ? dnnl::convolution_forward::desc(kind, dnnl::algorithm::convolution_direct, src, wei,
                                            s.bias, dst, s.strides, s.dilates, s.pad_l, s.pad_r)
          : dnnl::convolution_forward::desc(kind, dnnl::algorithm::convolution_direct, src, wei,
                                            dst, s.strides, s.dilates, s.pad_l, s.pad_r);
  return dnnl::convolution_forward::primitive_desc(
      d, post != nullptr ? post->Attr(s.dst) : UserScratchpad(), OnednnEngine());
}

// Forward: data, weight[, bias] -> out; fused (graph/ops/fused_conv.h), also
// [gamma, beta, moving_mean, moving_var][, sum], with the rest as post-ops.
// keep_weights_on: keep the converted weights there between calls.
class ConvForwardStep : public OnednnStep {
 public:
  ConvForwardStep(const ConvSetup& s, const memory::desc& sum_desc, const PostOps& post,
                  Device* keep_weights_on, WorkspaceArena* arena)
      : post_(post), has_bias_(s.has_bias) {
    auto pd = ForwardPd(s, dnnl::prop_kind::forward_inference, &post);
    // oneDNN's reference kernels are orders of magnitude slower than the
    // unfused path: such a case is left to it.
    if (IsReferenceImpl(pd)) {
      throw dnnl::error(dnnl_unimplemented, "only a reference implementation");
    }
    src_ = Operand(s.src, pd.src_desc(), Operand::kInput, arena);
    wei_ = WeightOperand(s.wei, pd.weights_desc(), keep_weights_on, arena);
    dst_ = Operand(s.dst, pd.dst_desc(), Operand::kOutput, arena);
    if (has_bias_) bias_ = Operand(s.bias, s.bias, Operand::kInput, arena);
    if (post.bn) {
      channels_ = s.dst.dims()[1];
      scale_offset_ = arena->Reserve(2 * channels_ * sizeof(float));
      channel_desc_ = post.ChannelDesc(s.dst);
    }
    if (post.sum && pd.dst_desc() != sum_desc) {
      sum_user_ = memory(sum_desc, OnednnEngine(), DNNL_MEMORY_NONE);
      sum_reorder_ = dnnl::reorder(sum_user_, memory(pd.dst_desc(), OnednnEngine(),
                                                      DNNL_MEMORY_NONE));
    }
    scratch_desc_ = pd.scratchpad_desc();
    scratch_offset_ = arena->Reserve(scratch_desc_.get_size());
    prim_ = dnnl::convolution_forward(pd);
  }

  void Run(const KernelContext& ctx) override {
    const Tensor& ws = ctx.workspace;
    std::unordered_map<int, memory> args = {
        {DNNL_ARG_SRC, src_.Enter(ctx.inputs[0], ws, stream_)},
        {DNNL_ARG_WEIGHTS, wei_.Enter(ctx.inputs[1], ws, stream_)},
        {DNNL_ARG_SCRATCHPAD, ScratchpadAt(scratch_desc_, ws, scratch_offset_)}};
    if (has_bias_) args[DNNL_ARG_BIAS] = bias_.Enter(ctx.inputs[2], ws, stream_);
    if (post_.bn) {
      float* scale = reinterpret_cast<float*>(static_cast<char*>(ws.raw_data()) + scale_offset_);
      float* shift = scale + channels_;
      FoldBatchNorm(ctx, scale, shift);
      args[DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1] =
          memory(channel_desc_, OnednnEngine(), scale);
      args[DNNL_ARG_ATTR_MULTIPLE_POST_OP(1) | DNNL_ARG_SRC_1] =
          memory(channel_desc_, OnednnEngine(), shift);
    }
    memory dst = dst_.Enter(ctx.outputs[0], ws, stream_);
    if (post_.sum) {
      // The sum post-op adds what dst holds: the operand, placed there first
      // (nothing to do when the plan gave the output the operand's memory).
      const Tensor& sum = ctx.inputs[post_.sum_input];
      if (sum_reorder_) {
        sum_user_.set_data_handle(const_cast<void*>(sum.read_raw_data()));
        sum_reorder_->execute(stream_, sum_user_, dst);
      } else if (sum.read_raw_data() != dst.get_data_handle()) {
        std::memcpy(dst.get_data_handle(), sum.read_raw_data(), sum.nbytes());
      }
    }
    args[DNNL_ARG_DST] = dst;
    prim_.execute(stream_, args);
    dst_.Leave(stream_);
    stream_.wait();
  }

 private:
  // The BatchNorm with moving statistics as y = x * scale + shift.
  void FoldBatchNorm(const KernelContext& ctx, float* scale, float* shift) const {
    const int b = post_.bn_input;
    const float* gamma = ctx.inputs[b].read_data<float>();
    const float* beta = ctx.inputs[b + 1].read_data<float>();
    const float* mean = ctx.inputs[b + 2].read_data<float>();
    const float* var = ctx.inputs[b + 3].read_data<float>();
    for (memory::dim c = 0; c < channels_; ++c) {
      const float g = post_.fix_gamma ? 1.0f : gamma[c];
      // As the BatchNorm kernel: no scale where var + eps is not positive.
      const float denom = var[c] + static_cast<float>(post_.eps);
      scale[c] = denom > 0 ? g / std::sqrt(denom) : 0.0f;
      shift[c] = beta[c] - mean[c] * scale[c];
    }
  }

  PostOps post_;
  bool has_bias_;
  Operand src_, bias_, dst_;
  WeightOperand wei_;
  memory::dim channels_ = 0;
  size_t scale_offset_ = 0;
  memory::desc channel_desc_;
  memory sum_user_;
  std::optional<dnnl::reorder> sum_reorder_;
  memory::desc scratch_desc_;
  size_t scratch_offset_ = 0;
  dnnl::convolution_forward prim_;
};

dnnl::convolution_backward_data::primitive_desc BackwardDataPd(
    const ConvSetup& s, const dnnl::convolution_forward::primitive_desc& hint) {
  dnnl::convolution_backward_data::desc d(dnnl::algorithm::convolution_direct, s.SrcWant(),
                                          AnyDesc(s.wei.dims()), s.DstWant(), s.strides,
                                          s.dilates, s.pad_l, s.pad_r);
  return dnnl::convolution_backward_data::primitive_desc(d, UserScratchpad(), OnednnEngine(),
                                                         hint);
}

dnnl::convolution_backward_weights::primitive_desc BackwardWeightsPd(
    const ConvSetup& s, const dnnl::convolution_forward::primitive_desc& hint) {
  memory::desc wei = AnyDesc(s.wei.dims());
  auto d = s.has_bias ? dnnl::convolution_backward_weights::desc(
                            dnnl::algorithm::convolution_direct, s.SrcWant(), wei, s.bias,
                            s.DstWant(), s.strides, s.dilates, s.pad_l, s.pad_r)
                      : dnnl::convolution_backward_weights::desc(
                            dnnl::algorithm::convolution_direct, s.SrcWant(), wei, s.DstWant(),
                            s.strides, s.dilates, s.pad_l, s.pad_r);
  return dnnl::convolution_backward_weights::primitive_desc(d, UserScratchpad(), OnednnEngine(),
                                                            hint);
}

using ConvBackwardStep =
    WeightedBackwardStep<dnnl::convolution_backward_data, dnnl::convolution_backward_weights>;

// Backward (onednn_backward.h): each half only when one of its outputs is wanted.
std::unique_ptr<OnednnStep> MakeBackwardStep(const ConvSetup& s, bool want_data, bool want_weight,
                                             WorkspaceArena* arena) {
  auto step = std::make_unique<ConvBackwardStep>();
  auto hint = ForwardPd(s, dnnl::prop_kind::forward_training);
  if (want_data) step->SetDataHalf(BackwardDataPd(s, hint), s.dst, s.wei, s.dsrc, arena);
  if (want_weight) {
    step->SetWeightHalf(BackwardWeightsPd(s, hint), s.src, s.dst, s.wei,
                        s.has_bias ? &s.bias : nullptr, arena);
  }
  step->ReserveScratch(arena);
  return step;
}

// Which values are stored channels-last: data, output (forward) or its
// gradient (backward), and the data's gradient (backward).
struct ConvLayouts {
  bool src = false, dst = false, dsrc = false;
};

// Forward shapes: data, weight, out. Backward: ograd(out), data, weight.
std::optional<ConvSetup> SetupFor(const ConvParam& p, const std::vector<Shape>& in,
                                  const std::vector<Shape>& out, DType dtype, bool backward,
                                  const EngineOptions& options, ConvLayouts cl = {}) {
  if (!backward) {
    if (in.size() < 2 || out.empty()) return std::nullopt;
    return Describe(p, in[0], in[1], out[0], dtype, options, cl.src, cl.dst);
  }
  if (in.size() < 3) return std::nullopt;
  std::optional<ConvSetup> s = Describe(p, in[1], in[2], in[0], dtype, options, cl.src, cl.dst);
  if (s) {
    s->dsrc = ActivationDesc(in[1], cl.dsrc);
    s->dsrc_channels_last = cl.dsrc;
  }
  return s;
}

// A forward step, in bfloat16 where UseBf16 says so and oneDNN has a real
// kernel for it (else float32).
std::unique_ptr<OnednnStep> MakeForwardStep(ConvSetup s, const memory::desc& sum_desc,
                                            const PostOps& post, const KernelContext& ctx,
                                            WorkspaceArena* arena) {
  Device* keep_weights_on = ctx.inference ? ctx.device : nullptr;
  if (UseBf16(ctx)) {
    s.bf16 = true;
    WorkspaceArena trial = *arena;
    try {
      auto step = std::make_unique<ConvForwardStep>(s, sum_desc, post, keep_weights_on, &trial);
      *arena = trial;
      return step;
    } catch (const dnnl::error& e) {
      if (e.status != dnnl_unimplemented) throw;
    }
    s.bf16 = false;
  }
  return std::make_unique<ConvForwardStep>(s, sum_desc, post, keep_weights_on, arena);
}

std::unique_ptr<OnednnStep> MakeStep(const ConvSetup& s, bool backward, const KernelContext& ctx,
                                     WorkspaceArena* arena) {
  const std::vector<OpReq>& req = ctx.req;
  if (!backward) return MakeForwardStep(s, s.dst, PostOps{}, ctx, arena);
  return MakeBackwardStep(s, OutputWanted(req, 0),
                          OutputWanted(req, 1) || (s.has_bias && OutputWanted(req, 2)), arena);
}

}  // namespace

absl::Status PrepareOnednnConv(KernelContext* ctx, bool backward, size_t* workspace_bytes) {
  const auto& p = ctx->param<ConvParam>();
  std::vector<Shape> in, out;
  for (const Tensor& t : ctx->inputs) in.push_back(t.shape());
  for (const Tensor& t : ctx->outputs) out.push_back(t.shape());
  const DType dtype = ctx->inputs[backward ? 1 : 0].dtype();
  ConvLayouts cl;
  if (backward) {
    cl = {ctx->InputChannelsLast(1), ctx->InputChannelsLast(0), ctx->OutputChannelsLast(0)};
  } else {
    cl = {ctx->InputChannelsLast(0), ctx->OutputChannelsLast(0), false};
  }
  std::optional<ConvSetup> s = SetupFor(p, in, out, dtype, backward, ctx->options, cl);
  if (!s) return absl::OkStatus();
  // No oneDNN implementation for a case: the im2col kernel runs it.
  return PrepareOnednnStep(ctx, "creating the convolution primitives", workspace_bytes,
                           [&](WorkspaceArena* arena) { return MakeStep(*s, backward, *ctx, arena); });
}

namespace {

// The post-ops of `p`; nullopt when oneDNN has no such activation.
std::optional<PostOps> PostOpsOf(const FusedConvParam& p) {
  PostOps post;
  post.bn = p.with_bn;
  post.sum = p.with_sum;
  post.bn_input = p.bn_input();
  post.sum_input = p.sum_input();
  if (p.with_bn) {
    post.eps = p.bn_param().eps;
    post.fix_gamma = p.bn_param().fix_gamma;
  }
  if (!p.has_act()) return post;
  if (p.act.op->name() == "clip") {
    const ClipParam& c = Param<ClipParam>(p.act);
    post.act = dnnl::algorithm::eltwise_clip;
    post.alpha = static_cast<float>(c.a_min);
    post.beta = static_cast<float>(c.a_max);
    return post;
  }
  switch (Param<ActivationParam>(p.act).type) {
    case ActivationType::kRelu:
      post.act = dnnl::algorithm::eltwise_relu;
      return post;
    case ActivationType::kSigmoid:
      post.act = dnnl::algorithm::eltwise_logistic;
      return post;
    case ActivationType::kTanh:
      post.act = dnnl::algorithm::eltwise_tanh;
      return post;
    case ActivationType::kSoftRelu:
      post.act = dnnl::algorithm::eltwise_soft_relu;
      return post;
    default:
      return std::nullopt;
  }
}

// Whether oneDNN runs the forward inference of `s` with a real (not its
// reference) implementation.
bool RunsDirect(const ConvSetup& s, const PostOps* post) {
  try {
    ScopedOmpThreads threads(1);
    return !IsReferenceImpl(ForwardPd(s, dnnl::prop_kind::forward_inference, post));
  } catch (const dnnl::error&) {
    return false;
  }
}

// Whether oneDNN runs both backward halves of `s` with real implementations.
bool BackwardRunsDirect(const ConvSetup& s) {
  try {
    ScopedOmpThreads threads(1);
    auto hint = ForwardPd(s, dnnl::prop_kind::forward_training);
    return !IsReferenceImpl(BackwardDataPd(s, hint)) &&
           !IsReferenceImpl(BackwardWeightsPd(s, hint));
  } catch (const dnnl::error&) {
    return false;
  }
}

std::optional<ConvSetup> FusedSetup(const FusedConvParam& p, const Shape& data, const Shape& weight,
                                    const Shape& out, DType dtype, const EngineOptions& options,
                                    bool src_cl, bool dst_cl) {
  std::optional<ConvSetup> s =
      Describe(p.conv_param(), data, weight, out, dtype, options, src_cl, dst_cl);
  // Post-ops run in oneDNN's direct kernels on a channel-last or blocked
  // layout; its plain 1x1 (GEMM) kernel applies them slowly or not at all.
  if (s) s->plain_activations = false;
  return s;
}

}  // namespace

void ConvChannelsLast(const NodeAttrs& attrs, const std::vector<Shape>& in,
                      const std::vector<Shape>& out, DType dtype, const EngineOptions& options,
                      std::vector<bool>* in_cl, std::vector<bool>* out_cl) {
  const ConvParam& p = Param<ConvParam>(attrs);
  if (p.deconv || in.size() < 2 || out.empty() || in[0].ndim() < 3) return;
  std::optional<ConvSetup> s = Describe(p, in[0], in[1], out[0], dtype, options, true, true);
  if (!s || !RunsDirect(*s, nullptr)) return;
  (*in_cl)[0] = (*out_cl)[0] = true;
}

void ConvBackwardChannelsLast(const NodeAttrs& attrs, const std::vector<Shape>& in,
                              const std::vector<Shape>& out, DType dtype,
                              const EngineOptions& options, std::vector<bool>* in_cl,
                              std::vector<bool>* out_cl) {
  const ConvParam& p = Param<ConvParam>(attrs);
  if (p.deconv || out.empty()) return;
  std::optional<ConvSetup> s = SetupFor(p, in, out, dtype, true, options, {true, true, true});
  if (!s || !BackwardRunsDirect(*s)) return;
  (*in_cl)[0] = (*in_cl)[1] = (*out_cl)[0] = true;
}

void FusedConvChannelsLast(const NodeAttrs& attrs, const std::vector<Shape>& in,
                           const std::vector<Shape>& out, DType dtype, const EngineOptions& options,
                           std::vector<bool>* in_cl, std::vector<bool>* out_cl) {
  const auto& p = Param<FusedConvParam>(attrs);
  std::optional<PostOps> post = PostOpsOf(p);
  if (!post || in.size() < 2 || out.empty() || in[0].ndim() < 3) return;
  std::optional<ConvSetup> s = FusedSetup(p, in[0], in[1], out[0], dtype, options, true, true);
  if (!s || !RunsDirect(*s, &*post)) return;
  (*in_cl)[0] = (*out_cl)[0] = true;
  if (p.with_sum) (*in_cl)[p.sum_input()] = true;
}

absl::Status PrepareOnednnFusedConv(KernelContext* ctx, size_t* workspace_bytes) {
  const auto& p = ctx->param<FusedConvParam>();
  std::optional<PostOps> post = PostOpsOf(p);
  if (!post || ctx->inputs.size() < 2 || ctx->outputs.empty()) return absl::OkStatus();
  std::optional<ConvSetup> s = FusedSetup(
      p, ctx->inputs[0].shape(), ctx->inputs[1].shape(), ctx->outputs[0].shape(),
      ctx->inputs[0].dtype(), ctx->options, ctx->InputChannelsLast(0), ctx->OutputChannelsLast(0));
  if (!s) return absl::OkStatus();
  const memory::desc sum_desc =
      ActivationDesc(ctx->outputs[0].shape(), ctx->InputChannelsLast(p.sum_input()));
  return PrepareOnednnStep(ctx, "creating the fused convolution primitive", workspace_bytes,
                           [&](WorkspaceArena* arena) {
                             return MakeForwardStep(*s, sum_desc, *post, *ctx, arena);
                           });
}

}  // namespace cpu
}  // namespace symx
