// CUDA kernels of Dropout, Embedding, LeakyReLU, where, clip, softmin,
// SoftmaxActivation and SwapAxis, forward and backward.
#include <utility>

#include "absl/strings/str_cat.h"
#include "devices/axis_layout.h"
#include "devices/cuda/kernel_util.h"
#include "graph/infer_util.h"
#include "graph/ops/activation.h"
#include "graph/ops/dropout.h"
#include "graph/ops/elemwise.h"
#include "graph/ops/indexing.h"
#include "graph/ops/lrn.h"
#include "graph/ops/softmax.h"
#include "graph/ops/tensor.h"

namespace symx {
namespace cuda {
namespace {

// dst = src * mask, the mask broadcast along the axes where it has size 1.
absl::Status MultiplyByMask(const KernelContext& ctx, CudaDevice* device, Elem t,
                            const Tensor& src, const Tensor& mask, const Tensor& dst) {
  if (mask.shape().ndim() != src.shape().ndim() || dst.size() != src.size()) {
    return Fail(ctx, absl::StrCat("mask ", mask.DebugString(), " does not fit data ",
                                     src.DebugString()));
  }
  for (int d = 0; d < src.shape().ndim(); ++d) {
    if (mask.shape()[d] != src.shape()[d] && mask.shape()[d] != 1) {
      return Fail(ctx, absl::StrCat("mask ", mask.DebugString(), " does not fit data ",
                                       src.DebugString()));
    }
  }
  SYMX_ASSIGN_OR_RETURN(BroadcastDims d,
                        MakeBroadcastDims(ctx, src.shape(), mask.shape(), src.shape()));
  SYMX_CUDA_LAUNCH(ctx, LaunchBroadcast(BinaryFn::kMul, t, src.read_raw_data(),
                                        mask.read_raw_data(), dst.raw_data(), d, src.size(),
                                        device->stream()));
  return absl::OkStatus();
}

// Outputs: out, mask. Training (or mode='always') with p > 0 draws the mask
// from the device's generator as the CPU kernel does; otherwise the output is
// the data and the mask ones.
absl::Status DropoutForward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const auto& p = ctx.param<DropoutParam>();
  const Tensor& x = ctx.inputs[0];
  const Tensor& y = ctx.outputs[0];
  const Tensor& mask = ctx.outputs[1];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, x.dtype()));
  const bool active = (ctx.is_train || p.mode == "always") && p.p > 0;
  if (!active) {
    if (x.size() != y.size()) return Fail(ctx, "output size differs from the data's");
    SYMX_RETURN_IF_ERROR(CopyOnStream(ctx, x, y));
    SYMX_CUDA_LAUNCH(ctx, LaunchFill(t, 1.0, mask.raw_data(), mask.size(), device->stream()));
    return absl::OkStatus();
  }
  const double keep = 1.0 - p.p;
  SYMX_CUDA_LAUNCH(ctx, LaunchDropoutMask(t, device->rng()(), keep, 1.0 / keep, mask.raw_data(),
                                          mask.size(), device->stream()));
  return MultiplyByMask(ctx, device, t, x, mask, y);
}

// Inputs: ograd, mask.
absl::Status DropoutBackward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, ctx.outputs[0].dtype()));
  return MultiplyByMask(ctx, device, t, ctx.inputs[0], ctx.inputs[1], ctx.outputs[0]);
}

absl::Status CheckTable(const KernelContext& ctx, const Tensor& table) {
  const auto& p = ctx.param<EmbeddingParam>();
  if (table.shape().ndim() != 2 || table.shape()[0] != p.input_dim ||
      table.shape()[1] != p.output_dim) {
    return Fail(ctx, absl::StrCat("weight ", table.DebugString(), " should be (", p.input_dim,
                                     ", ", p.output_dim, ")"));
  }
  return absl::OkStatus();
}

// Inputs: data (indices), weight.
absl::Status EmbeddingForward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const auto& p = ctx.param<EmbeddingParam>();
  const Tensor& idx = ctx.inputs[0];
  const Tensor& weight = ctx.inputs[1];
  const Tensor& out = ctx.outputs[0];
  SYMX_RETURN_IF_ERROR(CheckTable(ctx, weight));
  if (out.size() != idx.size() * p.output_dim || out.dtype() != weight.dtype()) {
    return Fail(ctx, absl::StrCat("output ", out.DebugString(), " does not match ",
                                     idx.size(), " indices of ", p.output_dim, " values"));
  }
  SYMX_ASSIGN_OR_RETURN(Elem it, AnyElem(ctx, idx.dtype()));
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, weight.dtype()));
  SYMX_CUDA_LAUNCH(ctx, LaunchEmbedding(it, idx.read_raw_data(), idx.size(), t,
                                        weight.read_raw_data(), p.input_dim, p.output_dim,
                                        out.raw_data(), device->stream()));
  return absl::OkStatus();
}

// Inputs: ograd, data (indices). Outputs: grad data (zero), grad weight.
absl::Status EmbeddingBackward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const auto& p = ctx.param<EmbeddingParam>();
  const Tensor& ograd = ctx.inputs[0];
  const Tensor& idx = ctx.inputs[1];
  if (OutputWanted(ctx.req, 0) && ctx.outputs[0].defined()) {
    SYMX_RETURN_IF_ERROR(device->Memset(ctx.outputs[0].raw_data(), 0, ctx.outputs[0].nbytes()));
  }
  if (!OutputWanted(ctx.req, 1)) return absl::OkStatus();
  const Tensor& gw = ctx.outputs[1];
  SYMX_RETURN_IF_ERROR(CheckTable(ctx, gw));
  if (ograd.size() != idx.size() * p.output_dim) {
    return Fail(ctx, absl::StrCat("head gradient ", ograd.DebugString(), " does not match ",
                                     idx.size(), " indices"));
  }
  SYMX_ASSIGN_OR_RETURN(Elem it, AnyElem(ctx, idx.dtype()));
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, gw.dtype()));
  void* scratch = ctx.workspace.defined() && ctx.workspace.nbytes() > 0
                      ? ctx.workspace.raw_data()
                      : nullptr;
  SYMX_CUDA_LAUNCH(ctx, LaunchEmbeddingGrad(it, idx.read_raw_data(), idx.size(), t,
                                            ograd.read_raw_data(), p.input_dim, p.output_dim,
                                            gw.raw_data(), scratch, device->stream()));
  return absl::OkStatus();
}

// A float32 accumulator for float16/bfloat16 weight gradients.
size_t EmbeddingBackwardWorkspace(const NodeAttrs& attrs, const std::vector<Shape>&,
                                  const std::vector<Shape>&, DType dtype) {
  if (dtype != DType::kFloat16 && dtype != DType::kBFloat16) return 0;
  const auto& p = Param<EmbeddingParam>(attrs);
  return static_cast<size_t>(p.input_dim * p.output_dim) * sizeof(float);
}

absl::StatusOr<int64_t> WhereRow(const KernelContext& ctx, const Tensor& cond, const Tensor& x) {
  if (cond.size() == x.size()) return 1;
  if (cond.shape().ndim() == 1 && x.shape().ndim() >= 1 && cond.size() == x.shape()[0]) {
    return x.shape()[0] == 0 ? 1 : x.size() / x.shape()[0];
  }
  return Fail(ctx, absl::StrCat("condition of shape ", cond.shape().ToString(),
                                   " does not match x of shape ", x.shape().ToString()));
}

// Inputs: condition, x, y.
absl::Status Where(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& cond = ctx.inputs[0];
  const Tensor& x = ctx.inputs[1];
  SYMX_ASSIGN_OR_RETURN(int64_t row, WhereRow(ctx, cond, x));
  SYMX_ASSIGN_OR_RETURN(Elem ct, AnyElem(ctx, cond.dtype()));
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, x.dtype()));
  SYMX_CUDA_LAUNCH(ctx, LaunchWhere(ct, cond.read_raw_data(), t, x.read_raw_data(),
                                    ctx.inputs[2].read_raw_data(), row,
                                    ctx.outputs[0].raw_data(), x.size(), device->stream()));
  return absl::OkStatus();
}

// Inputs: ograd, condition. Outputs: grad condition (zero), grad x, grad y.
absl::Status WhereBackward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& g = ctx.inputs[0];
  const Tensor& cond = ctx.inputs[1];
  SYMX_ASSIGN_OR_RETURN(int64_t row, WhereRow(ctx, cond, g));
  if (OutputWanted(ctx.req, 0) && ctx.outputs[0].defined()) {
    SYMX_RETURN_IF_ERROR(device->Memset(ctx.outputs[0].raw_data(), 0, ctx.outputs[0].nbytes()));
  }
  SYMX_ASSIGN_OR_RETURN(Elem ct, AnyElem(ctx, cond.dtype()));
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, g.dtype()));
  void* gx = OutputWanted(ctx.req, 1) ? ctx.outputs[1].raw_data() : nullptr;
  void* gy = OutputWanted(ctx.req, 2) ? ctx.outputs[2].raw_data() : nullptr;
  SYMX_CUDA_LAUNCH(ctx, LaunchWhereGrad(ct, cond.read_raw_data(), t, g.read_raw_data(), row, gx,
                                        gy, g.size(), device->stream()));
  return absl::OkStatus();
}

absl::Status Clip(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const auto& p = ctx.param<ClipParam>();
  const Tensor& x = ctx.inputs[0];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, x.dtype()));
  SYMX_CUDA_LAUNCH(ctx, LaunchClip(t, x.read_raw_data(), p.a_min, p.a_max,
                                   ctx.outputs[0].raw_data(), x.size(), device->stream()));
  return absl::OkStatus();
}

// Inputs: ograd, data.
absl::Status ClipBackward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const auto& p = ctx.param<ClipParam>();
  const Tensor& g = ctx.inputs[0];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, g.dtype()));
  SYMX_CUDA_LAUNCH(ctx, LaunchClipGrad(t, g.read_raw_data(), ctx.inputs[1].read_raw_data(),
                                       p.a_min, p.a_max, ctx.outputs[0].raw_data(), g.size(),
                                       device->stream()));
  return absl::OkStatus();
}

absl::Status SameTypes(const KernelContext& ctx, const Tensor& a, const Tensor& b) {
  if (a.dtype() == b.dtype() && a.size() == b.size()) return absl::OkStatus();
  return absl::UnimplementedError(
      absl::StrCat(ctx.Where(), ": ", a.DebugString(), " and ", b.DebugString(),
                   " (a dtype change is not supported on the GPU yet)"));
}

// softmax of x over rows, scaled: softmin is softmax(-x / T), i.e. a negative
// temperature; SoftmaxActivation is the plain softmax over its mode's rows.
absl::Status SoftmaxRows(const KernelContext& ctx, const AxisLayout& r, double temperature) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& x = ctx.inputs[0];
  const Tensor& y = ctx.outputs[0];
  SYMX_RETURN_IF_ERROR(SameTypes(ctx, x, y));
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, x.dtype()));
  SYMX_CUDA_LAUNCH(ctx, LaunchSoftmax(t, x.read_raw_data(), r.outer, r.n, r.inner, temperature,
                                      false, y.raw_data(), device->stream()));
  return absl::OkStatus();
}

// Inputs: ograd, output.
absl::Status SoftmaxRowsGrad(const KernelContext& ctx, const AxisLayout& r, double temperature) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& g = ctx.inputs[0];
  const Tensor& gx = ctx.outputs[0];
  SYMX_RETURN_IF_ERROR(SameTypes(ctx, g, gx));
  SYMX_RETURN_IF_ERROR(SameTypes(ctx, ctx.inputs[1], gx));
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, gx.dtype()));
  SYMX_CUDA_LAUNCH(ctx, LaunchSoftmaxGrad(t, g.read_raw_data(), ctx.inputs[1].read_raw_data(),
                                          r.outer, r.n, r.inner, temperature, false,
                                          gx.raw_data(), device->stream()));
  return absl::OkStatus();
}

absl::Status Softmin(const KernelContext& ctx) {
  const auto& p = ctx.param<SoftmaxParam>();
  SYMX_ASSIGN_OR_RETURN(AxisLayout r, LayoutAlong(ctx, ctx.inputs[0].shape(), p.axis));
  return SoftmaxRows(ctx, r, -p.temperature.value_or(1.0));
}

absl::Status SoftminBackward(const KernelContext& ctx) {
  const auto& p = ctx.param<SoftmaxParam>();
  SYMX_ASSIGN_OR_RETURN(AxisLayout r, LayoutAlong(ctx, ctx.outputs[0].shape(), p.axis));
  return SoftmaxRowsGrad(ctx, r, -p.temperature.value_or(1.0));
}

absl::Status SoftmaxActivation(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(AxisLayout r, SoftmaxActivationLayout(ctx, ctx.inputs[0].shape()));
  return SoftmaxRows(ctx, r, 1.0);
}

absl::Status SoftmaxActivationBackward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(AxisLayout r, SoftmaxActivationLayout(ctx, ctx.outputs[0].shape()));
  return SoftmaxRowsGrad(ctx, r, 1.0);
}

// SwapAxis: a transpose exchanging two axes (its own gradient).
absl::Status SwapAxis(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const auto& p = ctx.param<SwapAxisParam>();
  const Tensor& in = ctx.inputs[0];
  const Tensor& out = ctx.outputs[0];
  const int nd = in.shape().ndim();
  if (nd > kMaxDims || in.size() != out.size()) {
    return Fail(ctx, absl::StrCat("cannot swap axes of ", in.DebugString(), " into ",
                                     out.DebugString(), " on the GPU"));
  }
  int a = 0, b = 0;
  absl::Status s = NormalizeAxis(p.dim1, nd, "dim1", &a);
  if (s.ok()) s = NormalizeAxis(p.dim2, nd, "dim2", &b);
  if (!s.ok()) return Fail(ctx, std::string(s.message()));
  const std::vector<int64_t> st = StridesOf(in.shape());
  StridedDims d;
  d.ndim = nd;
  int64_t dst = 1;
  for (int k = nd - 1; k >= 0; --k) {
    const int src_axis = k == a ? b : (k == b ? a : k);
    d.dims[k] = in.shape()[src_axis];
    d.src_strides[k] = st[src_axis];
    d.dst_strides[k] = dst;
    dst *= d.dims[k];
  }
  SYMX_CUDA_LAUNCH(ctx, LaunchStridedCopy(DTypeSize(in.dtype()), in.read_raw_data(),
                                          out.raw_data(), d, in.size(), device->stream()));
  return absl::OkStatus();
}

absl::StatusOr<ChannelDims> PReLUDims(const KernelContext& ctx, const Tensor& data,
                                      const Tensor& gamma) {
  const Shape& s = data.shape();
  if (s.ndim() < 2) {
    return Fail(ctx, absl::StrCat("prelu needs data with at least 2 dims, got ", s.ToString()));
  }
  ChannelDims d;
  d.outer = s[0];
  d.channels = s[1];
  for (int i = 2; i < s.ndim(); ++i) d.inner *= s[i];
  d.shared = gamma.size() == 1;
  if (!d.shared && gamma.size() != d.channels) {
    return Fail(ctx, absl::StrCat("gamma of shape ", gamma.shape().ToString(), " for data ",
                                     s.ToString(), " (expected ", d.channels, " or 1 slopes)"));
  }
  return d;
}

ChannelDims Elementwise(const Tensor& x) {
  ChannelDims d;
  d.outer = x.size();
  return d;
}

LeakyFn LeakyFnOf(LeakyReLUType type) {
  switch (type) {
    case LeakyReLUType::kELU:
      return LeakyFn::kELU;
    case LeakyReLUType::kSELU:
      return LeakyFn::kSELU;
    case LeakyReLUType::kGELU:
      return LeakyFn::kGELU;
    default:
      return LeakyFn::kLeaky;
  }
}

// Inputs: data[, gamma]. Outputs: out[, mask (rrelu)].
absl::Status LeakyReLUForward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const auto& p = ctx.param<LeakyReLUParam>();
  const Tensor& x = ctx.inputs[0];
  const Tensor& y = ctx.outputs[0];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, x.dtype()));
  if (p.type == LeakyReLUType::kPReLU) {
    SYMX_ASSIGN_OR_RETURN(ChannelDims d, PReLUDims(ctx, x, ctx.inputs[1]));
    SYMX_CUDA_LAUNCH(ctx, LaunchPReLU(t, x.read_raw_data(), ctx.inputs[1].read_raw_data(),
                                      nullptr, d, y.raw_data(), device->stream()));
    return absl::OkStatus();
  }
  if (p.type == LeakyReLUType::kRReLU) {
    // Training: a slope per element, uniform in [lower_bound, upper_bound),
    // kept in the mask; inference: the mean slope.
    const Tensor& mask = ctx.outputs[1];
    if (ctx.is_train) {
      SYMX_CUDA_LAUNCH(ctx, LaunchUniform(t, device->rng()(), p.lower_bound, p.upper_bound,
                                          mask.raw_data(), mask.size(), device->stream()));
    } else {
      SYMX_CUDA_LAUNCH(ctx, LaunchFill(t, (p.lower_bound + p.upper_bound) / 2, mask.raw_data(),
                                       mask.size(), device->stream()));
    }
    SYMX_CUDA_LAUNCH(ctx, LaunchPReLU(t, x.read_raw_data(), nullptr, mask.read_raw_data(),
                                      Elementwise(x), y.raw_data(), device->stream()));
    return absl::OkStatus();
  }
  SYMX_CUDA_LAUNCH(ctx, LaunchLeaky(LeakyFnOf(p.type), t, x.read_raw_data(), p.slope,
                                    y.raw_data(), x.size(), device->stream()));
  return absl::OkStatus();
}

// prelu's gamma gradient terms before the per-channel sum.
size_t LeakyReLUWorkspace(const NodeAttrs& attrs, const std::vector<Shape>& in,
                          const std::vector<Shape>&, DType dtype) {
  if (!Param<LeakyReLUParam>(attrs).has_gamma() || in.size() < 2) return 0;
  return static_cast<size_t>(in[1].Size()) * DTypeSize(dtype);
}

// Inputs: ograd, data, [gamma], output, [mask]. Outputs: grad data[, grad gamma].
absl::Status LeakyReLUBackward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const auto& p = ctx.param<LeakyReLUParam>();
  const Tensor& g = ctx.inputs[0];
  const Tensor& x = ctx.inputs[1];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, g.dtype()));
  void* dx = OutputWanted(ctx.req, 0) ? ctx.outputs[0].raw_data() : nullptr;
  if (p.type == LeakyReLUType::kPReLU) {
    const Tensor& gamma = ctx.inputs[2];
    SYMX_ASSIGN_OR_RETURN(ChannelDims d, PReLUDims(ctx, x, gamma));
    const bool want_gamma = ctx.outputs.size() > 1 && OutputWanted(ctx.req, 1);
    void* terms = want_gamma ? ctx.workspace.raw_data() : nullptr;
    SYMX_CUDA_LAUNCH(ctx, LaunchPReLUGrad(t, g.read_raw_data(), x.read_raw_data(),
                                          gamma.read_raw_data(), nullptr, d, dx, terms,
                                          device->stream()));
    if (want_gamma) {
      StridedDims kept, reduced;
      if (!d.shared) {
        kept.ndim = 1;
        kept.dims[0] = d.channels;
        kept.src_strides[0] = d.inner;
      }
      reduced.ndim = d.shared ? 1 : 2;
      if (d.shared) {
        reduced.dims[0] = x.size();
        reduced.src_strides[0] = 1;
      } else {
        reduced.dims[0] = d.outer;
        reduced.src_strides[0] = d.channels * d.inner;
        reduced.dims[1] = d.inner;
        reduced.src_strides[1] = 1;
      }
      SYMX_CUDA_LAUNCH(ctx, LaunchReduceStrided(ReduceFn::kSum, t, terms, kept, reduced, 1.0,
                                                ctx.outputs[1].raw_data(), gamma.size(),
                                                device->stream()));
    }
    return absl::OkStatus();
  }
  if (dx == nullptr) return absl::OkStatus();
  if (p.type == LeakyReLUType::kRReLU) {
    SYMX_CUDA_LAUNCH(ctx, LaunchPReLUGrad(t, g.read_raw_data(), x.read_raw_data(), nullptr,
                                          ctx.inputs[3].read_raw_data(), Elementwise(x), dx,
                                          nullptr, device->stream()));
    return absl::OkStatus();
  }
  SYMX_CUDA_LAUNCH(ctx, LaunchLeakyGrad(LeakyFnOf(p.type), t, g.read_raw_data(),
                                        x.read_raw_data(), ctx.inputs[2].read_raw_data(), p.slope,
                                        dx, g.size(), device->stream()));
  return absl::OkStatus();
}

// LRN over (N, C, H, W) data.
absl::StatusOr<LrnDims> LrnDimsOf(const KernelContext& ctx, const Tensor& x,
                                  const std::vector<Tensor>& same) {
  const Shape& s = x.shape();
  if (s.ndim() != 4) {
    return Fail(ctx, absl::StrCat("data ", s.ToString(), " must have 4 dims"));
  }
  for (const Tensor& t : same) {
    if (t.size() != x.size()) {
      return Fail(ctx, absl::StrCat(t.DebugString(), " should hold ", x.size(), " values"));
    }
    if (t.dtype() != x.dtype()) return UnsupportedDType(ctx, t.dtype());
  }
  const auto& p = ctx.param<LRNParam>();
  LrnDims d;
  d.batch = s[0];
  d.channels = s[1];
  d.spatial = s[2] * s[3];
  d.nsize = p.nsize;
  d.alpha = p.alpha;
  d.beta = p.beta;
  d.knorm = p.knorm;
  return d;
}

// Outputs: out, tmp_norm.
absl::Status Lrn(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& x = ctx.inputs[0];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, x.dtype()));
  SYMX_ASSIGN_OR_RETURN(LrnDims d, LrnDimsOf(ctx, x, ctx.outputs));
  SYMX_CUDA_LAUNCH(ctx, LaunchLrn(t, x.read_raw_data(), d, ctx.outputs[0].raw_data(),
                                  ctx.outputs[1].raw_data(), device->stream()));
  return absl::OkStatus();
}

// Inputs: ograd, data, tmp_norm. Output: grad data.
absl::Status LrnBackward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& gx = ctx.outputs[0];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, gx.dtype()));
  SYMX_ASSIGN_OR_RETURN(LrnDims d, LrnDimsOf(ctx, gx, ctx.inputs));
  SYMX_CUDA_LAUNCH(ctx, LaunchLrnGrad(t, ctx.inputs[0].read_raw_data(),
                                      ctx.inputs[1].read_raw_data(),
                                      ctx.inputs[2].read_raw_data(), d, gx.raw_data(),
                                      device->stream()));
  return absl::OkStatus();
}

}  // namespace

SYMX_REGISTER_KERNEL("LeakyReLU", kGPU, LeakyReLUForward);
SYMX_REGISTER_KERNEL("_backward_LeakyReLU", kGPU, .fn = LeakyReLUBackward,
                     .workspace = LeakyReLUWorkspace);
SYMX_REGISTER_KERNEL("Dropout", kGPU, DropoutForward);
SYMX_REGISTER_KERNEL("_backward_Dropout", kGPU, DropoutBackward);
SYMX_REGISTER_KERNEL("Embedding", kGPU, EmbeddingForward);
SYMX_REGISTER_KERNEL("_backward_Embedding", kGPU, .fn = EmbeddingBackward,
                     .workspace = EmbeddingBackwardWorkspace);
SYMX_REGISTER_KERNEL("where", kGPU, Where);
SYMX_REGISTER_KERNEL("_backward_where", kGPU, WhereBackward);
SYMX_REGISTER_KERNEL("clip", kGPU, Clip);
SYMX_REGISTER_KERNEL("_backward_clip", kGPU, ClipBackward);
SYMX_REGISTER_KERNEL("softmin", kGPU, Softmin);
SYMX_REGISTER_KERNEL("_backward_softmin", kGPU, SoftminBackward);
SYMX_REGISTER_KERNEL("SoftmaxActivation", kGPU, SoftmaxActivation);
SYMX_REGISTER_KERNEL("_backward_SoftmaxActivation", kGPU, SoftmaxActivationBackward);
SYMX_REGISTER_KERNEL("SwapAxis", kGPU, SwapAxis);

SYMX_REGISTER_KERNEL("LRN", kGPU, Lrn);
SYMX_REGISTER_KERNEL("_backward_LRN", kGPU, LrnBackward);

}  // namespace cuda
}  // namespace symx
