// CUDA kernels of the loss family: SoftmaxOutput, Linear/Logistic/MAE
// RegressionOutput, MakeLoss, SVMOutput, softmax_cross_entropy and
// IdentityAttachKLSparseReg, with MXNet 1.x's gradients exactly as the
// CPU kernels (devices/cpu/softmax_kernels.cc states the rules).
#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/cuda/elemwise_launch.h"
#include "devices/cuda/kernel_util.h"
#include "devices/cuda/loss_launch.h"
#include "devices/cuda/softmax_launch.h"
#include "devices/geometry/axis_layout.h"
#include "graph/ops/loss.h"

namespace symx {
namespace cuda {
namespace {

absl::Status SameSize(const KernelContext& ctx, const Tensor& a, const Tensor& b) {
  if (a.size() == b.size()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": ", a.DebugString(), " and ",
                                                 b.DebugString(), " differ in size"));
}

absl::Status LabelType(const KernelContext& ctx, const Tensor& data, const Tensor& label) {
  if (label.dtype() == data.dtype()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": label ", label.DebugString(),
                                                 " must have the data's dtype (",
                                                 DTypeName(data.dtype()), ")"));
}

// The label's gradient (output 1, when present) is zero.
absl::Status ZeroLabelGrad(const KernelContext& ctx, CudaDevice* device) {
  if (ctx.outputs.size() < 2 || !OutputWanted(ctx.req, 1)) return absl::OkStatus();
  return device->Memset(ctx.outputs[1].raw_data(), 0, ctx.outputs[1].nbytes());
}

absl::Status SoftmaxOutputForward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& x = ctx.inputs[0];
  const Tensor& y = ctx.outputs[0];
  SYMX_RETURN_IF_ERROR(SameSize(ctx, x, y));
  if (x.shape().ndim() < 2) {
    return absl::InvalidArgumentError(
        absl::StrCat(ctx.Where(), ": data ", x.DebugString(), " needs at least 2 dims"));
  }
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, x.dtype()));
  const AxisLayout l = SoftmaxOutputLayout(ctx.param<SoftmaxOutputParam>(), x.shape());
  SYMX_CUDA_LAUNCH(ctx, LaunchSoftmax(t, x.read_raw_data(), l.outer, l.n, l.inner, 1.0, false,
                                      y.raw_data(), device->stream()));
  return absl::OkStatus();
}

int64_t ClassOf(double v) {
  if (!(v > -2147483648.0 && v < 2147483648.0)) return INT64_MIN;
  return static_cast<int64_t>(static_cast<int>(v));
}

// Inputs: output, label. Outputs: grad data, grad label.
absl::Status SoftmaxOutputBackward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const auto& p = ctx.param<SoftmaxOutputParam>();
  const Tensor& out = ctx.inputs[0];
  const Tensor& label = ctx.inputs[1];
  const Tensor& grad = ctx.outputs[0];
  SYMX_RETURN_IF_ERROR(SameSize(ctx, out, grad));
  SYMX_RETURN_IF_ERROR(LabelType(ctx, out, label));
  if (out.shape().ndim() < 2) {
    return absl::InvalidArgumentError(
        absl::StrCat(ctx.Where(), ": output ", out.DebugString(), " needs at least 2 dims"));
  }
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, out.dtype()));
  SYMX_RETURN_IF_ERROR(ZeroLabelGrad(ctx, device));
  if (label.shape() == out.shape()) {
    // Per-class probabilities as the label: (out - label) * grad_scale.
    SYMX_CUDA_LAUNCH(ctx,
                     LaunchBinary(BinaryFn::kSub, t, out.read_raw_data(), label.read_raw_data(),
                                  grad.raw_data(), grad.size(), device->stream()));
    SYMX_CUDA_LAUNCH(ctx, LaunchScalar(ScalarFn::kMul, t, grad.read_raw_data(), p.grad_scale,
                                       grad.raw_data(), grad.size(), device->stream()));
    return absl::OkStatus();
  }
  const AxisLayout l = SoftmaxOutputLayout(p, out.shape());
  const int64_t positions = l.outer * l.inner;
  const int64_t entries = label.size();
  if (p.multi_output ? entries != positions : entries < positions) {
    return absl::InvalidArgumentError(
        absl::StrCat(ctx.Where(), ": label ", label.DebugString(), " should have ", positions,
                     " entries (one class per position) for output ", out.DebugString()));
  }
  SoftmaxOutputGradArgs a;
  a.outer = l.outer;
  a.classes = l.n;
  a.inner = l.inner;
  a.entries = entries;
  a.smooth_alpha = p.smooth_alpha;
  a.use_ignore = p.use_ignore;
  // The ignore label as the label dtype sees it, then as a class.
  a.ignore = ClassOf(out.dtype() == DType::kFloat64
                         ? p.ignore_label
                         : static_cast<double>(static_cast<float>(p.ignore_label)));
  // With normalization=valid the kernel divides by the count it takes.
  a.valid_normalization = p.normalization == "valid";
  a.scale = SoftmaxOutputScale(p, l, entries, 1);
  SYMX_CUDA_LAUNCH(
      ctx, LaunchSoftmaxOutputGrad(t, out.read_raw_data(), label.read_raw_data(), a,
                                   ctx.workspace.defined() ? ctx.workspace.raw_data() : nullptr,
                                   grad.raw_data(), device->stream()));
  return absl::OkStatus();
}

// 8 bytes of device memory for the count of valid labels / loss values.
size_t CountWorkspace(const NodeAttrs&, const std::vector<Shape>&, const std::vector<Shape>&,
                      DType) {
  return 8;
}

enum class Regression { kLinear, kLogistic, kMAE };

template <Regression R>
absl::Status RegressionForward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& x = ctx.inputs[0];
  const Tensor& y = ctx.outputs[0];
  SYMX_RETURN_IF_ERROR(SameSize(ctx, x, y));
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, x.dtype()));
  if constexpr (R == Regression::kLogistic) {
    SYMX_CUDA_LAUNCH(ctx, LaunchUnary(UnaryFn::kSigmoid, t, x.read_raw_data(), y.raw_data(),
                                      x.size(), device->stream()));
    return absl::OkStatus();
  }
  return CopyOnStream(ctx, x, y);
}

// Inputs: output, label. grad = (out - label) * grad_scale / (label size / rows),
// its sign for MAE.
template <Regression R>
absl::Status RegressionBackward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const auto& p = ctx.param<RegressionParam>();
  const Tensor& out = ctx.inputs[0];
  const Tensor& label = ctx.inputs[1];
  const Tensor& grad = ctx.outputs[0];
  SYMX_RETURN_IF_ERROR(SameSize(ctx, out, grad));
  SYMX_RETURN_IF_ERROR(SameSize(ctx, out, label));
  SYMX_RETURN_IF_ERROR(LabelType(ctx, out, label));
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, out.dtype()));
  SYMX_RETURN_IF_ERROR(ZeroLabelGrad(ctx, device));
  if (grad.size() == 0) return absl::OkStatus();
  const double scale = RegressionScale(p, label.shape());
  SYMX_CUDA_LAUNCH(ctx, LaunchBinary(BinaryFn::kSub, t, out.read_raw_data(), label.read_raw_data(),
                                     grad.raw_data(), grad.size(), device->stream()));
  if constexpr (R == Regression::kMAE) {
    SYMX_CUDA_LAUNCH(ctx, LaunchUnary(UnaryFn::kSignPositive, t, grad.read_raw_data(),
                                      grad.raw_data(), grad.size(), device->stream()));
  }
  SYMX_CUDA_LAUNCH(ctx, LaunchScalar(ScalarFn::kMul, t, grad.read_raw_data(), scale,
                                     grad.raw_data(), grad.size(), device->stream()));
  return absl::OkStatus();
}

absl::Status MakeLossForward(const KernelContext& ctx) {
  SYMX_RETURN_IF_ERROR(SameSize(ctx, ctx.inputs[0], ctx.outputs[0]));
  return CopyOnStream(ctx, ctx.inputs[0], ctx.outputs[0]);
}

// grad_scale everywhere, divided by the rows (batch) or by the count of loss
// values above valid_thresh (valid).
absl::Status MakeLossBackward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const auto& p = ctx.param<MakeLossParam>();
  const Tensor& grad = ctx.outputs[0];
  if (grad.size() == 0) return absl::OkStatus();
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, grad.dtype()));
  const double scale = MakeLossScale(p, grad.shape());
  if (p.normalization == "valid") {
    if (ctx.inputs.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(ctx.Where(), ": normalization=valid needs the forward output as an input"));
    }
    const Tensor& out = ctx.inputs[0];
    SYMX_RETURN_IF_ERROR(SameSize(ctx, out, grad));
    if (out.dtype() != grad.dtype()) return UnsupportedDType(ctx, out.dtype());
    SYMX_CUDA_LAUNCH(ctx, LaunchFillDividedByCountAbove(
                              t, out.read_raw_data(), out.size(), p.valid_thresh, scale,
                              ctx.workspace.raw_data(), grad.raw_data(), device->stream()));
    return absl::OkStatus();
  }
  SYMX_CUDA_LAUNCH(ctx, LaunchFill(t, scale, grad.raw_data(), grad.size(), device->stream()));
  return absl::OkStatus();
}

// (output, label) -> (grad data, 0).
absl::Status SVMOutputBackward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const auto& p = ctx.param<SVMOutputParam>();
  const Tensor& out = ctx.inputs[0];
  const Tensor& label = ctx.inputs[1];
  const Tensor& grad = ctx.outputs[0];
  SYMX_RETURN_IF_ERROR(SameSize(ctx, out, grad));
  SYMX_RETURN_IF_ERROR(LabelType(ctx, out, label));
  SYMX_ASSIGN_OR_RETURN(Elem t, Float32Or64Elem(ctx, out.dtype()));
  SYMX_RETURN_IF_ERROR(ZeroLabelGrad(ctx, device));
  if (out.size() == 0) return absl::OkStatus();
  SvmGradArgs a;
  a.cols = out.shape()[out.shape().ndim() - 1];
  a.rows = out.size() / a.cols;
  if (label.size() != a.rows) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": label ", label.DebugString(),
                                                   " needs one class per row of ",
                                                   out.DebugString()));
  }
  a.margin = p.margin;
  a.reg = p.regularization_coefficient;
  a.linear = p.use_linear;
  SYMX_CUDA_LAUNCH(ctx, LaunchSvmGrad(t, out.read_raw_data(), label.read_raw_data(), a,
                                      grad.raw_data(), device->stream()));
  return absl::OkStatus();
}

// Row losses (rows doubles) and the bad-label flag.
size_t CrossEntropyWorkspace(const NodeAttrs&, const std::vector<Shape>& in,
                             const std::vector<Shape>&, DType) {
  const int64_t rows = in.empty() || in[0].ndim() < 1 ? 0 : in[0][0];
  return 256 + static_cast<size_t>(rows) * sizeof(double);
}

// A flagged row's label, read back after the launch, is the error MXNet
// lacks (it reads past the row).
absl::Status CheckLabels(const KernelContext& ctx, CudaDevice* device, unsigned long long* flag,
                         const Tensor& label, int64_t cols) {
  SYMX_ASSIGN_OR_RETURN(int64_t row, ReadFirstFlagged(device, flag));
  if (row < 0) return absl::OkStatus();
  SYMX_ASSIGN_OR_RETURN(std::vector<double> labels, HostDoubles(label));
  return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": label ", labels[row], " of row ",
                                                 row, " is not a class in [0, ", cols, ")"));
}

absl::Status SoftmaxCrossEntropyForward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& data = ctx.inputs[0];
  const Tensor& label = ctx.inputs[1];
  SYMX_RETURN_IF_ERROR(LabelType(ctx, data, label));
  SYMX_ASSIGN_OR_RETURN(Elem t, Float32Or64Elem(ctx, data.dtype()));
  const int64_t rows = data.shape()[0], cols = data.shape()[1];
  SYMX_ASSIGN_OR_RETURN(char* ws, WorkspaceOf(ctx, 256 + rows * sizeof(double)));
  auto* flag = reinterpret_cast<unsigned long long*>(ws);
  SYMX_RETURN_IF_ERROR(ResetFirstFlagged(device, flag));
  SYMX_CUDA_LAUNCH(
      ctx, LaunchSoftmaxCrossEntropy(t, data.read_raw_data(), label.read_raw_data(), rows, cols,
                                     reinterpret_cast<double*>(ws + 256), flag,
                                     ctx.outputs[0].raw_data(), device->stream()));
  return CheckLabels(ctx, device, flag, label, cols);
}

// (ograd, data, label) -> (ograd (softmax - onehot), 0).
absl::Status SoftmaxCrossEntropyBackward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& g = ctx.inputs[0];
  const Tensor& data = ctx.inputs[1];
  const Tensor& label = ctx.inputs[2];
  SYMX_RETURN_IF_ERROR(LabelType(ctx, data, label));
  SYMX_ASSIGN_OR_RETURN(Elem t, Float32Or64Elem(ctx, data.dtype()));
  SYMX_RETURN_IF_ERROR(ZeroLabelGrad(ctx, device));
  if (!OutputWanted(ctx.req, 0)) return absl::OkStatus();
  const int64_t rows = data.shape()[0], cols = data.shape()[1];
  SYMX_ASSIGN_OR_RETURN(char* ws, WorkspaceOf(ctx, 256));
  auto* flag = reinterpret_cast<unsigned long long*>(ws);
  SYMX_RETURN_IF_ERROR(ResetFirstFlagged(device, flag));
  SYMX_CUDA_LAUNCH(ctx, LaunchSoftmaxCrossEntropyGrad(t, g.read_raw_data(), data.read_raw_data(),
                                                      label.read_raw_data(), rows, cols, flag,
                                                      ctx.outputs[0].raw_data(), device->stream()));
  return CheckLabels(ctx, device, flag, label, cols);
}

// (ograd, data, moving_avg) -> grad data; moving_avg updated first.
absl::Status KLSparseRegBackward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const auto& p = ctx.param<KLSparseRegParam>();
  const Tensor& data = ctx.inputs[1];
  const Tensor& avg = ctx.inputs[2];
  SYMX_ASSIGN_OR_RETURN(Elem t, Float32Or64Elem(ctx, data.dtype()));
  if (avg.dtype() != data.dtype()) return UnsupportedDType(ctx, avg.dtype());
  KlSparseArgs a;
  a.outer = data.shape()[0];
  a.channels = data.shape()[1];
  a.inner = a.outer * a.channels == 0 ? 0 : data.size() / (a.outer * a.channels);
  if (avg.size() != a.channels) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": moving_avg ", avg.DebugString(),
                                                   " needs one entry per channel of ",
                                                   data.DebugString()));
  }
  a.target = p.sparseness_target;
  a.penalty = p.penalty;
  a.momentum = p.momentum;
  void* gx = OutputWanted(ctx.req, 0) ? ctx.outputs[0].raw_data() : nullptr;
  SYMX_CUDA_LAUNCH(ctx,
                   LaunchKlSparseRegGrad(t, ctx.inputs[0].read_raw_data(), data.read_raw_data(),
                                         avg.raw_data(), a, gx, device->stream()));
  return absl::OkStatus();
}

}  // namespace

SYMX_REGISTER_KERNEL("SVMOutput", kGPU, MakeLossForward);
SYMX_REGISTER_KERNEL("_backward_SVMOutput", kGPU, SVMOutputBackward);
SYMX_REGISTER_KERNEL("softmax_cross_entropy", kGPU, .fn = SoftmaxCrossEntropyForward,
                     .workspace = CrossEntropyWorkspace);
SYMX_REGISTER_KERNEL("_backward_softmax_cross_entropy", kGPU, .fn = SoftmaxCrossEntropyBackward,
                     .workspace = CrossEntropyWorkspace);
SYMX_REGISTER_KERNEL("IdentityAttachKLSparseReg", kGPU, MakeLossForward);
SYMX_REGISTER_KERNEL("_backward_IdentityAttachKLSparseReg", kGPU, KLSparseRegBackward);

SYMX_REGISTER_KERNEL("SoftmaxOutput", kGPU, SoftmaxOutputForward);
SYMX_REGISTER_KERNEL("_backward_SoftmaxOutput", kGPU, .fn = SoftmaxOutputBackward,
                     .workspace = CountWorkspace);
SYMX_REGISTER_KERNEL("LinearRegressionOutput", kGPU, RegressionForward<Regression::kLinear>);
SYMX_REGISTER_KERNEL("LogisticRegressionOutput", kGPU, RegressionForward<Regression::kLogistic>);
SYMX_REGISTER_KERNEL("MAERegressionOutput", kGPU, RegressionForward<Regression::kMAE>);
SYMX_REGISTER_KERNEL("_backward_LinearRegressionOutput", kGPU,
                     RegressionBackward<Regression::kLinear>);
SYMX_REGISTER_KERNEL("_backward_LogisticRegressionOutput", kGPU,
                     RegressionBackward<Regression::kLogistic>);
SYMX_REGISTER_KERNEL("_backward_MAERegressionOutput", kGPU, RegressionBackward<Regression::kMAE>);
SYMX_REGISTER_KERNEL("MakeLoss", kGPU, MakeLossForward);
SYMX_REGISTER_KERNEL("_backward_MakeLoss", kGPU, .fn = MakeLossBackward,
                     .workspace = CountWorkspace);

}  // namespace cuda
}  // namespace symx
