#include "devices/cpu/onednn_conv.h"

#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/cpu/onednn.h"

namespace symx {
namespace cpu {
namespace {

using dnnl::memory;

memory::desc AnyDesc(const memory::dims& dims) {
  return memory::desc(dims, memory::data_type::f32, memory::format_tag::any);
}

// A convolution as oneDNN describes it: plain descriptors for the tensors as
// symx stores them, and the geometry.
struct ConvSetup {
  memory::desc src, wei, bias, dst;
  memory::dims strides, dilates, pad_l, pad_r;
  bool has_bias = false;
  // Whether data and output stay in the plain layout in the primitive (else
  // oneDNN picks, and they are converted on the way in and out).
  bool plain_activations = false;

  // The layouts the primitive is asked for.
  memory::desc Activation(const memory::desc& plain) const {
    return plain_activations ? plain : AnyDesc(plain.dims());
  }
};

// nullopt when the oneDNN path does not take this case (the im2col kernels
// then do, and report malformed shapes).
std::optional<ConvSetup> Describe(const ConvParam& p, const Shape& data, const Shape& weight,
                                  const Shape& out, DType dtype) {
  const int n = static_cast<int>(p.kernel.size());
  if (!OnednnEnabled() || p.deconv || dtype != DType::kFloat32 || n < 1 || n > 3) {
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
  s.src = PlainDesc(data);
  s.dst = PlainDesc(out);
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

dnnl::primitive_attr UserScratchpad() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

dnnl::convolution_forward::primitive_desc ForwardPd(const ConvSetup& s, dnnl::prop_kind kind) {
  memory::desc src = s.Activation(s.src), wei = AnyDesc(s.wei.dims()), dst = s.Activation(s.dst);
  auto d =
      s.has_bias
          ? dnnl::convolution_forward::desc(kind, dnnl::algorithm::convolution_direct, src, wei,
                                            s.bias, dst, s.strides, s.dilates, s.pad_l, s.pad_r)
          : dnnl::convolution_forward::desc(kind, dnnl::algorithm::convolution_direct, src, wei,
                                            dst, s.strides, s.dilates, s.pad_l, s.pad_r);
  return dnnl::convolution_forward::primitive_desc(d, UserScratchpad(), OnednnEngine());
}

// Forward: data, weight[, bias] -> out.
class ConvForwardStep : public OnednnStep {
 public:
  ConvForwardStep(const ConvSetup& s, WorkspaceArena* arena) {
    auto pd = ForwardPd(s, dnnl::prop_kind::forward_inference);
    src_ = Operand(s.src, pd.src_desc(), Operand::kInput, arena);
    wei_ = Operand(s.wei, pd.weights_desc(), Operand::kInput, arena);
    dst_ = Operand(s.dst, pd.dst_desc(), Operand::kOutput, arena);
    scratch_offset_ = arena->Reserve(pd.scratchpad_desc().get_size());
    if (s.has_bias) bias_ = Operand(s.bias, s.bias, Operand::kInput, arena);
    has_bias_ = s.has_bias;
    scratch_desc_ = pd.scratchpad_desc();
    prim_ = dnnl::convolution_forward(pd);
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
  Operand src_, wei_, bias_, dst_;
  bool has_bias_ = false;
  memory::desc scratch_desc_;
  size_t scratch_offset_ = 0;
  dnnl::convolution_forward prim_;
};

// Backward: ograd, data, weight -> data grad, weight grad[, bias grad]; each
// half runs only when one of its outputs is wanted.
class ConvBackwardStep : public OnednnStep {
 public:
  ConvBackwardStep(const ConvSetup& s, bool want_data, bool want_weight, WorkspaceArena* arena)
      : want_data_(want_data), want_weight_(want_weight), has_bias_(s.has_bias) {
    auto hint = ForwardPd(s, dnnl::prop_kind::forward_training);
    // The two halves run one after the other: their scratchpads share space.
    size_t scratch_bytes = 0;
    if (want_data_) {
      dnnl::convolution_backward_data::desc d(
          dnnl::algorithm::convolution_direct, s.Activation(s.src), AnyDesc(s.wei.dims()),
          s.Activation(s.dst), s.strides, s.dilates, s.pad_l, s.pad_r);
      dnnl::convolution_backward_data::primitive_desc pd(d, UserScratchpad(), OnednnEngine(), hint);
      data_ograd_ = Operand(s.dst, pd.diff_dst_desc(), Operand::kInput, arena);
      data_wei_ = Operand(s.wei, pd.weights_desc(), Operand::kInput, arena);
      data_grad_ = Operand(s.src, pd.diff_src_desc(), Operand::kOutput, arena);
      scratch_bytes = pd.scratchpad_desc().get_size();
      data_scratch_ = pd.scratchpad_desc();
      data_prim_ = dnnl::convolution_backward_data(pd);
    }
    if (want_weight_) {
      memory::desc wei = AnyDesc(s.wei.dims());
      auto d = has_bias_ ? dnnl::convolution_backward_weights::desc(
                               dnnl::algorithm::convolution_direct, s.Activation(s.src), wei,
                               s.bias, s.Activation(s.dst), s.strides, s.dilates, s.pad_l, s.pad_r)
                         : dnnl::convolution_backward_weights::desc(
                               dnnl::algorithm::convolution_direct, s.Activation(s.src), wei,
                               s.Activation(s.dst), s.strides, s.dilates, s.pad_l, s.pad_r);
      dnnl::convolution_backward_weights::primitive_desc pd(d, UserScratchpad(), OnednnEngine(),
                                                            hint);
      weight_src_ = Operand(s.src, pd.src_desc(), Operand::kInput, arena);
      weight_ograd_ = Operand(s.dst, pd.diff_dst_desc(), Operand::kInput, arena);
      weight_grad_ = Operand(s.wei, pd.diff_weights_desc(), Operand::kOutput, arena);
      if (has_bias_) bias_grad_ = Operand(s.bias, s.bias, Operand::kOutput, arena);
      scratch_bytes = std::max(scratch_bytes, pd.scratchpad_desc().get_size());
      weight_scratch_ = pd.scratchpad_desc();
      weight_prim_ = dnnl::convolution_backward_weights(pd);
    }
    scratch_offset_ = arena->Reserve(scratch_bytes);
  }

  void Run(const KernelContext& ctx) override {
    const Tensor& ws = ctx.workspace;
    if (want_data_) {
      data_prim_.execute(stream_,
                         {{DNNL_ARG_DIFF_DST, data_ograd_.Enter(ctx.inputs[0], ws, stream_)},
                          {DNNL_ARG_WEIGHTS, data_wei_.Enter(ctx.inputs[2], ws, stream_)},
                          {DNNL_ARG_DIFF_SRC, data_grad_.Enter(ctx.outputs[0], ws, stream_)},
                          {DNNL_ARG_SCRATCHPAD, ScratchpadAt(data_scratch_, ws, scratch_offset_)}});
      data_grad_.Leave(stream_);
    }
    if (want_weight_) {
      std::unordered_map<int, memory> args = {
          {DNNL_ARG_SRC, weight_src_.Enter(ctx.inputs[1], ws, stream_)},
          {DNNL_ARG_DIFF_DST, weight_ograd_.Enter(ctx.inputs[0], ws, stream_)},
          {DNNL_ARG_DIFF_WEIGHTS, weight_grad_.Enter(ctx.outputs[1], ws, stream_)},
          {DNNL_ARG_SCRATCHPAD, ScratchpadAt(weight_scratch_, ws, scratch_offset_)}};
      if (has_bias_) args[DNNL_ARG_DIFF_BIAS] = bias_grad_.Enter(ctx.outputs[2], ws, stream_);
      weight_prim_.execute(stream_, args);
      weight_grad_.Leave(stream_);
    }
    stream_.wait();
  }

 private:
  bool want_data_, want_weight_, has_bias_;
  Operand data_ograd_, data_wei_, data_grad_;
  Operand weight_src_, weight_ograd_, weight_grad_, bias_grad_;
  memory::desc data_scratch_, weight_scratch_;
  size_t scratch_offset_ = 0;
  dnnl::convolution_backward_data data_prim_;
  dnnl::convolution_backward_weights weight_prim_;
};

// Forward shapes: data, weight, out. Backward: ograd(out), data, weight.
std::optional<ConvSetup> SetupFor(const ConvParam& p, const std::vector<Shape>& in,
                                  const std::vector<Shape>& out, DType dtype, bool backward) {
  if (!backward) {
    if (in.size() < 2 || out.empty()) return std::nullopt;
    return Describe(p, in[0], in[1], out[0], dtype);
  }
  if (in.size() < 3) return std::nullopt;
  return Describe(p, in[1], in[2], in[0], dtype);
}

std::unique_ptr<OnednnStep> MakeStep(const ConvSetup& s, bool backward,
                                     const std::vector<OpReq>& req, WorkspaceArena* arena) {
  if (!backward) return std::make_unique<ConvForwardStep>(s, arena);
  return std::make_unique<ConvBackwardStep>(
      s, OutputWanted(req, 0), OutputWanted(req, 1) || (s.has_bias && OutputWanted(req, 2)), arena);
}

}  // namespace

absl::Status PrepareOnednnConv(KernelContext* ctx, bool backward, size_t* workspace_bytes) {
  const auto& p = ctx->param<ConvParam>();
  std::vector<Shape> in, out;
  for (const Tensor& t : ctx->inputs) in.push_back(t.shape());
  for (const Tensor& t : ctx->outputs) out.push_back(t.shape());
  const DType dtype = ctx->inputs[backward ? 1 : 0].dtype();
  std::optional<ConvSetup> s = SetupFor(p, in, out, dtype, backward);
  if (!s) return absl::OkStatus();
  // oneDNN fits its work split to the thread count at creation: create with
  // the team the step will run on.
  ScopedOmpThreads threads(ctx->num_threads);
  WorkspaceArena arena;
  std::unique_ptr<OnednnStep> step;
  try {
    step = MakeStep(*s, backward, ctx->req, &arena);
  } catch (const dnnl::error& e) {
    // No oneDNN implementation for this case: the im2col kernel runs it.
    if (e.status == dnnl_unimplemented) return absl::OkStatus();
    return OnednnError(e, "creating the convolution primitives");
  }
  *workspace_bytes = arena.bytes();
  AdoptOnednnStep(ctx, std::move(step));
  return absl::OkStatus();
}

}  // namespace cpu
}  // namespace symx
