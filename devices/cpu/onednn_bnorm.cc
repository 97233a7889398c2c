#include "devices/cpu/onednn_bnorm.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <unordered_map>
#include <utility>

#include "devices/cpu/onednn.h"
#include "graph/ops/norm.h"

namespace symx {
namespace cpu {
namespace {

using dnnl::memory;
using Flags = dnnl::normalization_flags;

// The data descriptor when oneDNN takes the case, else nullopt. eps must be
// positive: with var + eps <= 0 the Eigen kernel's 1/sqrt is 0, oneDNN's is
// not (moving variances are patched at run time, see VarianceFor).
std::optional<memory::desc> DataDesc(const BatchNormParam& p, const Shape& data, DType dtype,
                                     bool channels_last, const EngineOptions& options) {
  if (!options.onednn || !options.onednn_batchnorm || dtype != DType::kFloat32) {
    return std::nullopt;
  }
  const int nd = data.ndim();
  if (nd < 2 || nd > 5 || (p.axis != 1 && p.axis != 1 - nd)) return std::nullopt;
  if (data.Size() == 0 || !(p.eps > 0)) return std::nullopt;
  return ActivationDesc(data, channels_last);
}

Flags ScaleShiftFlags(const BatchNormParam& p) {
  // fix_gamma: gamma is 1 (no scale operand) and its gradient 0.
  return p.fix_gamma ? Flags::use_shift : (Flags::use_scale | Flags::use_shift);
}

dnnl::batch_normalization_forward::primitive_desc ForwardPd(const memory::desc& data,
                                                            const BatchNormParam& p,
                                                            dnnl::prop_kind prop, Flags flags) {
  dnnl::batch_normalization_forward::desc d(prop, data, static_cast<float>(p.eps), flags);
  return dnnl::batch_normalization_forward::primitive_desc(d, UserScratchpad(), OnednnEngine());
}

// The variance oneDNN should see: `var` itself, or (when some var + eps <= 0,
// as a checkpoint's moving variance may be) a copy in `spare` with +inf there,
// which makes oneDNN's 1/sqrt 0 as the Eigen kernel's.
const float* VarianceFor(const float* var, int64_t c, float eps, float* spare) {
  if (std::all_of(var, var + c, [eps](float v) { return v + eps > 0; })) return var;
  for (int64_t i = 0; i < c; ++i) {
    spare[i] = var[i] + eps > 0 ? var[i] : std::numeric_limits<float>::infinity();
  }
  return spare;
}

class BatchNormStep : public OnednnStep {
 public:
  BatchNormStep(const BatchNormParam& p, const memory::desc& data, int64_t channels,
                WorkspaceArena* arena)
      : p_(p), c_(channels) {
    const Flags flags = ScaleShiftFlags(p);
    auto train = ForwardPd(data, p, dnnl::prop_kind::forward_training, flags);
    auto infer =
        ForwardPd(data, p, dnnl::prop_kind::forward_inference, flags | Flags::use_global_stats);
    if (IsReferenceImpl(train) || IsReferenceImpl(infer)) {
      throw dnnl::error(dnnl_unimplemented, "only a reference implementation");
    }
    stats_ = train.mean_desc();
    scratch_desc_ = train.scratchpad_desc().get_size() > infer.scratchpad_desc().get_size()
                        ? train.scratchpad_desc()
                        : infer.scratchpad_desc();
    scratch_offset_ = arena->Reserve(scratch_desc_.get_size());
    spare_offset_ = arena->Reserve(sizeof(float) * c_);
    data_ = data;
    train_ = dnnl::batch_normalization_forward(train);
    infer_ = dnnl::batch_normalization_forward(infer);
  }

  void Run(const KernelContext& ctx) override {
    const Tensor& ws = ctx.workspace;
    const float* gamma = ctx.inputs[1].read_data<float>();
    const float* beta = ctx.inputs[2].read_data<float>();
    float* moving_mean = ctx.inputs[3].data<float>();
    float* moving_var = ctx.inputs[4].data<float>();
    float* mean = ctx.outputs[1].data<float>();
    float* var = ctx.outputs[2].data<float>();
    const bool batch_stats = ctx.is_train && !p_.use_global_stats;
    std::unordered_map<int, memory> args = {
        {DNNL_ARG_SRC, MemoryAt(data_, ctx.inputs[0].read_raw_data())},
        {DNNL_ARG_DST, MemoryAt(data_, ctx.outputs[0].raw_data())},
        {DNNL_ARG_SHIFT, MemoryAt(stats_, beta)},
        {DNNL_ARG_SCRATCHPAD, ScratchpadAt(scratch_desc_, ws, scratch_offset_)}};
    if (!p_.fix_gamma) args.emplace(DNNL_ARG_SCALE, MemoryAt(stats_, gamma));
    if (batch_stats) {
      args.emplace(DNNL_ARG_MEAN, MemoryAt(stats_, mean));
      args.emplace(DNNL_ARG_VARIANCE, MemoryAt(stats_, var));
      train_.execute(stream_, args);
      stream_.wait();
      const float momentum = static_cast<float>(p_.momentum);
      for (int64_t i = 0; i < c_; ++i) {
        moving_mean[i] = moving_mean[i] * momentum + mean[i] * (1.f - momentum);
        moving_var[i] = moving_var[i] * momentum + var[i] * (1.f - momentum);
      }
      return;
    }
    float* spare = reinterpret_cast<float*>(static_cast<char*>(ws.raw_data()) + spare_offset_);
    args.emplace(DNNL_ARG_MEAN, MemoryAt(stats_, moving_mean));
    args.emplace(DNNL_ARG_VARIANCE,
                 MemoryAt(stats_, VarianceFor(moving_var, c_, static_cast<float>(p_.eps), spare)));
    infer_.execute(stream_, args);
    stream_.wait();
    // The statistics outputs report the moving ones (written after they were
    // read: odd graphs may alias them).
    std::memmove(mean, moving_mean, sizeof(float) * c_);
    std::memmove(var, moving_var, sizeof(float) * c_);
  }

 private:
  BatchNormParam p_;
  int64_t c_;
  memory::desc data_, stats_, scratch_desc_;
  size_t scratch_offset_ = 0, spare_offset_ = 0;
  dnnl::batch_normalization_forward train_, infer_;
};

class BatchNormBackwardStep : public OnednnStep {
 public:
  BatchNormBackwardStep(const BatchNormParam& p, const memory::desc& data, int64_t channels,
                        WorkspaceArena* arena)
      : p_(p), c_(channels), data_(data) {
    const Flags flags = ScaleShiftFlags(p);
    for (int global = 0; global < 2; ++global) {
      const Flags f = global ? flags | Flags::use_global_stats : flags;
      auto hint = ForwardPd(data, p, dnnl::prop_kind::forward_training, f);
      dnnl::batch_normalization_backward::desc d(dnnl::prop_kind::backward, data, data,
                                                 static_cast<float>(p.eps), f);
      dnnl::batch_normalization_backward::primitive_desc pd(d, UserScratchpad(), OnednnEngine(),
                                                            hint);
      if (IsReferenceImpl(hint) || IsReferenceImpl(pd)) {
        throw dnnl::error(dnnl_unimplemented, "only a reference implementation");
      }
      if (pd.scratchpad_desc().get_size() > scratch_desc_.get_size()) {
        scratch_desc_ = pd.scratchpad_desc();
      }
      stats_ = pd.mean_desc();
      prim_[global] = dnnl::batch_normalization_backward(pd);
    }
    scratch_offset_ = arena->Reserve(scratch_desc_.get_size());
    // The variance patch, and the gamma/beta gradients nobody reads.
    spare_offset_ = arena->Reserve(sizeof(float) * c_ * 3);
  }

  void Run(const KernelContext& ctx) override {
    const Tensor& ws = ctx.workspace;
    float* spare = reinterpret_cast<float*>(static_cast<char*>(ws.raw_data()) + spare_offset_);
    const bool batch_stats = ctx.is_train && !p_.use_global_stats;
    const float* var = ctx.inputs[5].read_data<float>();
    if (!batch_stats) var = VarianceFor(var, c_, static_cast<float>(p_.eps), spare);
    const bool want_dgamma = OutputWanted(ctx.req, 1), want_dbeta = OutputWanted(ctx.req, 2);
    float* dgamma = want_dgamma ? ctx.outputs[1].data<float>() : spare + c_;
    float* dbeta = want_dbeta ? ctx.outputs[2].data<float>() : spare + 2 * c_;
    std::unordered_map<int, memory> args = {
        {DNNL_ARG_SRC, MemoryAt(data_, ctx.inputs[1].read_raw_data())},
        {DNNL_ARG_DIFF_DST, MemoryAt(data_, ctx.inputs[0].read_raw_data())},
        {DNNL_ARG_MEAN, MemoryAt(stats_, ctx.inputs[4].read_raw_data())},
        {DNNL_ARG_VARIANCE, MemoryAt(stats_, var)},
        {DNNL_ARG_DIFF_SRC, MemoryAt(data_, ctx.outputs[0].raw_data())},
        {DNNL_ARG_DIFF_SHIFT, MemoryAt(stats_, dbeta)},
        // oneDNN 2.6 checks that a use_shift backward has the shift too,
        // although no gradient depends on it.
        {DNNL_ARG_SHIFT, MemoryAt(stats_, ctx.inputs[3].read_raw_data())},
        {DNNL_ARG_SCRATCHPAD, ScratchpadAt(scratch_desc_, ws, scratch_offset_)}};
    if (!p_.fix_gamma) {
      args.emplace(DNNL_ARG_SCALE, MemoryAt(stats_, ctx.inputs[2].read_raw_data()));
      args.emplace(DNNL_ARG_DIFF_SCALE, MemoryAt(stats_, dgamma));
    }
    prim_[batch_stats ? 0 : 1].execute(stream_, args);
    stream_.wait();
    if (p_.fix_gamma && want_dgamma) std::fill(dgamma, dgamma + c_, 0.f);
  }

 private:
  BatchNormParam p_;
  int64_t c_;
  memory::desc data_, stats_, scratch_desc_;
  size_t scratch_offset_ = 0, spare_offset_ = 0;
  dnnl::batch_normalization_backward prim_[2];
};

// Shared by both PrepareFns: builds `make(desc, channels, arena)` when oneDNN
// takes the case with a real (not its reference) implementation.
template <typename Make>
absl::Status Prepare(KernelContext* ctx, int data_input, bool channels_last, const char* what,
                     size_t* workspace_bytes, Make&& make) {
  const Tensor& data = ctx->inputs[data_input];
  const auto& p = ctx->param<BatchNormParam>();
  std::optional<memory::desc> desc =
      DataDesc(p, data.shape(), data.dtype(), channels_last, ctx->options);
  if (!desc) return absl::OkStatus();
  // Other dtypes or per-channel operands of the wrong size: the Eigen
  // kernel's errors.
  const int64_t channels = data.shape()[1];
  for (size_t i = 0; i < ctx->inputs.size(); ++i) {
    const Tensor& t = ctx->inputs[i];
    if (t.dtype() != DType::kFloat32) return absl::OkStatus();
    if (t.shape() != data.shape() && t.shape().Size() != channels) return absl::OkStatus();
  }
  return PrepareOnednnStep(
      // The steps throw dnnl_unimplemented where oneDNN has only its
      // reference implementation: the Eigen kernels take both layouts.
      ctx, what, workspace_bytes,
      [&](WorkspaceArena* arena) { return make(*desc, channels, arena); });
}

}  // namespace

absl::Status PrepareOnednnBatchNorm(KernelContext* ctx, size_t* workspace_bytes) {
  if (ctx->inputs.size() != 5 || ctx->outputs.size() != 3) return absl::OkStatus();
  const auto& p = ctx->param<BatchNormParam>();
  return Prepare(ctx, 0, ctx->InputChannelsLast(0), "creating the BatchNorm primitives",
                 workspace_bytes, [&](const memory::desc& d, int64_t c, WorkspaceArena* arena) {
                   return std::make_unique<BatchNormStep>(p, d, c, arena);
                 });
}

absl::Status PrepareOnednnBatchNormBackward(KernelContext* ctx, size_t* workspace_bytes) {
  if (ctx->inputs.size() < 6 || ctx->outputs.size() != 3) return absl::OkStatus();
  // oneDNN always computes the data gradient: without a reader, the Eigen
  // kernel computes only the gamma/beta gradients.
  if (!OutputWanted(ctx->req, 0)) return absl::OkStatus();
  const auto& p = ctx->param<BatchNormParam>();
  return Prepare(ctx, 1, ctx->InputChannelsLast(1), "creating the BatchNorm backward primitives",
                 workspace_bytes, [&](const memory::desc& d, int64_t c, WorkspaceArena* arena) {
                   return std::make_unique<BatchNormBackwardStep>(p, d, c, arena);
                 });
}

}  // namespace cpu
}  // namespace symx
