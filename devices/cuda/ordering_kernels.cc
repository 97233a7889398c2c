// CUDA kernels of the ordering family (graph/ops/ordering.cc): _np_cumsum,
// argmax, argmax_channel, argmin, argsort, sort, topk, with their backward ops.
//
// CUDA kernels of sort, argsort and topk (and their backwards) over
// devices/cuda/ordering.cu's stable segmented sort. Ties keep their order, as in
// MXNet's GPU kernels; the CPU kernels reproduce MXNet's CPU std::sort, so
// the two devices may order equal values differently.
#include <limits>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/cuda/kernel_util.h"
#include "devices/cuda/reduce_kernels.h"
#include "devices/kernel.h"
#include "graph/ops/ordering.h"
#include "devices/cuda/ordering_launch.h"

namespace symx {
namespace cuda {
namespace {

// The (outer, n, inner) view along an optional axis (None: flattened),
// checked against the data.
absl::StatusOr<AxisLayout> ColumnsAlong(const KernelContext& ctx, const Tensor& data,
                                        std::optional<int64_t> axis) {
  const int nd = data.shape().ndim();
  std::optional<int> ax;
  if (axis.has_value()) {
    const int64_t a = *axis < 0 ? *axis + nd : *axis;
    if (a < 0 || a >= nd) {
      return absl::InvalidArgumentError(
          absl::StrCat(ctx.Where(), ": axis ", *axis, " is out of range for ", data.DebugString()));
    }
    ax = static_cast<int>(a);
  }
  return MakeAxisLayout(data.shape(), ax);
}

// argmax/argmin (axis None: the flattened array) and argmax_channel (axis
// 1): positions as values of the data's type, as on CPU.
absl::Status ArgExtreme(const KernelContext& ctx, std::optional<int64_t> axis, bool max) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& data = ctx.inputs[0];
  const Tensor& out = ctx.outputs[0];
  if (out.dtype() != data.dtype()) return UnsupportedDType(ctx, out.dtype());
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, data.dtype()));
  SYMX_ASSIGN_OR_RETURN(AxisLayout l, ColumnsAlong(ctx, data, axis));
  const int64_t rows = l.outer * l.inner;
  if (out.size() != rows || (l.n == 0 && rows > 0)) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": output ", out.DebugString(),
                                                   " does not fit data ", data.DebugString()));
  }
  SYMX_CUDA_LAUNCH(ctx, LaunchArgExtreme(t, data.read_raw_data(), l.outer, l.n, l.inner, max,
                                         out.raw_data(), device->stream()));
  return absl::OkStatus();
}

absl::Status Argmax(const KernelContext& ctx) {
  return ArgExtreme(ctx, ctx.param<ArgReduceParam>().axis, true);
}

absl::Status Argmin(const KernelContext& ctx) {
  return ArgExtreme(ctx, ctx.param<ArgReduceParam>().axis, false);
}

absl::Status ArgmaxChannel(const KernelContext& ctx) { return ArgExtreme(ctx, 1, true); }

absl::Status Cumsum(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& in = ctx.inputs[0];
  const Tensor& out = ctx.outputs[0];
  if (out.size() != in.size()) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": output ", out.DebugString(),
                                                   " does not fit input ", in.DebugString()));
  }
  SYMX_ASSIGN_OR_RETURN(Elem it, AnyElem(ctx, in.dtype()));
  SYMX_ASSIGN_OR_RETURN(Elem ot, AnyElem(ctx, out.dtype()));
  if (out.dtype() == DType::kBool) return UnsupportedDType(ctx, out.dtype());
  SYMX_ASSIGN_OR_RETURN(AxisLayout l, ColumnsAlong(ctx, in, ctx.param<CumsumParam>().axis));
  SYMX_CUDA_LAUNCH(ctx, LaunchCumsum(it, in.read_raw_data(), ot, out.raw_data(), l.outer, l.n,
                                     l.inner, device->stream()));
  return absl::OkStatus();
}

// Inputs: ograd. Output: grad data.
absl::Status CumsumBackward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& og = ctx.inputs[0];
  const Tensor& grad = ctx.outputs[0];
  if (og.size() != grad.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        ctx.Where(), ": output gradient ", og.DebugString(), " does not fit ", grad.DebugString()));
  }
  SYMX_ASSIGN_OR_RETURN(Elem ot, FloatElem(ctx, og.dtype()));
  SYMX_ASSIGN_OR_RETURN(Elem gt, FloatElem(ctx, grad.dtype()));
  SYMX_ASSIGN_OR_RETURN(AxisLayout l, ColumnsAlong(ctx, grad, ctx.param<CumsumParam>().axis));
  SYMX_CUDA_LAUNCH(ctx, LaunchCumsumGrad(ot, og.read_raw_data(), gt, grad.raw_data(), l.outer, l.n,
                                         l.inner, device->stream()));
  return absl::OkStatus();
}

}  // namespace

SYMX_REGISTER_KERNEL("argmax", kGPU, Argmax);
SYMX_REGISTER_KERNEL("argmin", kGPU, Argmin);
SYMX_REGISTER_KERNEL("argmax_channel", kGPU, ArgmaxChannel);
SYMX_REGISTER_KERNEL("_np_cumsum", kGPU, Cumsum);
SYMX_REGISTER_KERNEL("_backward_np_cumsum", kGPU, CumsumBackward);

}  // namespace cuda

namespace cuda {
namespace {

// The rows along the op's axis (None: the flattened array), unchecked: shape
// inference has checked the axis.
SortDims RowsOf(const TopKParam& p, const Shape& s) {
  std::optional<int> axis;
  if (p.axis.has_value()) {
    axis = static_cast<int>(*p.axis < 0 ? *p.axis + s.ndim() : *p.axis);
  }
  const AxisLayout l = MakeAxisLayout(s, axis);
  SortDims d;
  d.outer = l.outer;
  d.n = l.n;
  d.inner = l.inner;
  return d;
}

absl::StatusOr<SortDims> CheckedRows(const KernelContext& ctx, const Shape& s) {
  const auto& p = ctx.param<TopKParam>();
  if (p.axis.has_value() && (*p.axis >= s.ndim() || *p.axis < -s.ndim())) {
    return Fail(ctx, absl::StrCat("axis ", *p.axis, " is out of range for ", s.ToString()));
  }
  return RowsOf(p, s);
}

size_t TopKWorkspace(const NodeAttrs& attrs, const std::vector<Shape>& in,
                     const std::vector<Shape>&, DType dtype) {
  if (in.empty() || dtype == DType::kUnknown) return 0;
  const Elem t = static_cast<Elem>(static_cast<int>(dtype));
  if (!IsKnownElem(t)) return 0;
  return SortWorkspaceBytes(t, RowsOf(Param<TopKParam>(attrs), in[0]));
}

// Outputs by ret: value -> (values[, indices hidden]); indices -> (indices);
// mask -> (mask); both -> (values, indices).
absl::Status TopK(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const auto& p = ctx.param<TopKParam>();
  const Tensor& data = ctx.inputs[0];
  SYMX_ASSIGN_OR_RETURN(Elem t, AnyElem(ctx, data.dtype()));
  SYMX_ASSIGN_OR_RETURN(SortDims d, CheckedRows(ctx, data.shape()));
  const int64_t k = p.k <= 0 ? d.n : p.k;
  if (k < 1 || k > d.n) {
    return Fail(ctx, absl::StrCat("k = ", p.k, " does not fit an axis of ", d.n, " elements"));
  }
  const int64_t rows = d.outer * d.inner;
  const int64_t out_k = p.ret == TopKReturn::kMask ? d.n : k;
  for (const Tensor& o : ctx.outputs) {
    if (o.size() != rows * out_k) {
      return Fail(ctx, absl::StrCat("output ", o.DebugString(), " should have ", rows * out_k,
                                    " elements"));
    }
  }
  const size_t need = SortWorkspaceBytes(t, d);
  if (need == 0) {
    return Fail(ctx, absl::StrCat("cannot sort ", data.DebugString(),
                                  " on the GPU: more than 2^31 - 1 elements"));
  }
  SYMX_ASSIGN_OR_RETURN(char* workspace, WorkspaceOf(ctx, need));
  const void* keys = nullptr;
  const int32_t* pos = nullptr;
  SYMX_CUDA_LAUNCH(ctx, LaunchSortRows(t, data.read_raw_data(), d, p.is_ascend, workspace,
                                       ctx.workspace.nbytes(), &keys, &pos, device->stream()));
  const cudaStream_t s = device->stream();
  switch (p.ret) {
    case TopKReturn::kMask:
      if (ctx.outputs[0].dtype() != data.dtype()) {
        return UnsupportedDType(ctx, ctx.outputs[0].dtype());
      }
      SYMX_CUDA_LAUNCH(ctx, LaunchTopKOutputs(t, keys, pos, d, k, true, ctx.outputs[0].raw_data(),
                                              t, nullptr, s));
      return absl::OkStatus();
    case TopKReturn::kIndices: {
      SYMX_ASSIGN_OR_RETURN(Elem it, AnyElem(ctx, ctx.outputs[0].dtype()));
      SYMX_CUDA_LAUNCH(ctx, LaunchTopKOutputs(t, keys, pos, d, k, false, nullptr, it,
                                              ctx.outputs[0].raw_data(), s));
      return absl::OkStatus();
    }
    case TopKReturn::kValue:
    case TopKReturn::kBoth: {
      if (ctx.outputs[0].dtype() != data.dtype()) {
        return UnsupportedDType(ctx, ctx.outputs[0].dtype());
      }
      SYMX_ASSIGN_OR_RETURN(Elem it, AnyElem(ctx, ctx.outputs[1].dtype()));
      SYMX_CUDA_LAUNCH(ctx, LaunchTopKOutputs(t, keys, pos, d, k, false, ctx.outputs[0].raw_data(),
                                              it, ctx.outputs[1].raw_data(), s));
      return absl::OkStatus();
    }
  }
  return absl::OkStatus();
}

// Inputs: ograd (values), indices. Output: grad data.
absl::Status TopKBackward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& og = ctx.inputs[0];
  const Tensor& idx = ctx.inputs[1];
  const Tensor& grad = ctx.outputs[0];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, grad.dtype()));
  SYMX_ASSIGN_OR_RETURN(Elem it, AnyElem(ctx, idx.dtype()));
  if (og.dtype() != grad.dtype()) return UnsupportedDType(ctx, og.dtype());
  SYMX_ASSIGN_OR_RETURN(SortDims d, CheckedRows(ctx, grad.shape()));
  const int64_t rows = d.outer * d.inner;
  const int64_t k = rows == 0 ? 0 : og.size() / rows;
  if (og.size() != rows * k || idx.size() != og.size() || k > d.n) {
    return Fail(ctx, absl::StrCat("output gradient ", og.DebugString(), " and indices ",
                                  idx.DebugString(), " do not fit data ", grad.shape().ToString()));
  }
  SYMX_ASSIGN_OR_RETURN(char* ws, WorkspaceOf(ctx, sizeof(unsigned long long)));
  auto* first_bad = reinterpret_cast<unsigned long long*>(ws);
  SYMX_RETURN_IF_ERROR(ResetFirstFlagged(device, first_bad));
  SYMX_CUDA_LAUNCH(ctx, LaunchTopKGrad(t, og.read_raw_data(), it, idx.read_raw_data(), d, k,
                                       grad.raw_data(), first_bad, device->stream()));
  SYMX_ASSIGN_OR_RETURN(int64_t bad, ReadFirstFlagged(device, first_bad));
  if (bad < 0) return absl::OkStatus();
  SYMX_ASSIGN_OR_RETURN(Tensor host, CopyToNew(idx, Context::CPU(0), DType::kFloat64));
  return Fail(ctx, absl::StrCat("index ", host.read_data<double>()[bad], " outside an axis of ",
                                d.n, " elements"));
}

size_t TopKBackwardWorkspace(const NodeAttrs&, const std::vector<Shape>&, const std::vector<Shape>&,
                             DType) {
  return sizeof(uint64_t);
}

}  // namespace

SYMX_REGISTER_KERNEL("sort", kGPU, .fn = TopK, .workspace = TopKWorkspace);
SYMX_REGISTER_KERNEL("argsort", kGPU, .fn = TopK, .workspace = TopKWorkspace);
SYMX_REGISTER_KERNEL("topk", kGPU, .fn = TopK, .workspace = TopKWorkspace);
SYMX_REGISTER_KERNEL("_backward_sort", kGPU, .fn = TopKBackward,
                     .workspace = TopKBackwardWorkspace);
SYMX_REGISTER_KERNEL("_backward_topk", kGPU, .fn = TopKBackward,
                     .workspace = TopKBackwardWorkspace);

}  // namespace cuda

}  // namespace symx
