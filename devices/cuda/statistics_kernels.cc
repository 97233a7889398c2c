// CUDA kernels of the statistics family (graph/ops/statistics.cc): _histogram
// and _contrib_hawkesll with its backward, on the launchers of
// devices/cuda/statistics_launch.h.
#include <cstdint>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/cuda/kernel_util.h"
#include "devices/cuda/statistics_launch.h"
#include "graph/ops/statistics.h"

namespace symx {
namespace cuda {
namespace {

absl::Status Histogram(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const auto& p = ctx.param<HistogramParam>();
  const Tensor& data = ctx.inputs[0];
  switch (data.dtype()) {
    case DType::kFloat32:
    case DType::kFloat64:
    case DType::kFloat16:
    case DType::kUint8:
    case DType::kInt8:
    case DType::kInt32:
    case DType::kInt64:
      break;
    default:
      return UnsupportedDType(ctx, data.dtype());
  }
  SYMX_ASSIGN_OR_RETURN(Elem t, AnyElem(ctx, data.dtype()));
  const int64_t nbins = ctx.outputs[0].shape().Size();
  if (ctx.outputs[1].shape().Size() != nbins + 1) {
    return Fail(ctx, absl::StrCat(nbins, " counts need ", nbins + 1, " edges, got ",
                                  ctx.outputs[1].shape().ToString()));
  }
  const void* bins = p.uniform ? nullptr : ctx.inputs[1].read_raw_data();
  SYMX_CUDA_LAUNCH(
      ctx, LaunchHistogram(t, data.read_raw_data(), data.shape().Size(), bins, nbins, p.lo, p.hi,
                           ctx.outputs[1].raw_data(),
                           static_cast<int64_t*>(ctx.outputs[0].raw_data()), device->stream()));
  return absl::OkStatus();
}

// The forward's inputs from `first` on, with marks and lengths read to the
// host (one small copy and a synchronization per call) so that a mark outside
// [0, K) or a length beyond T is the CPU's error naming the sample.
absl::StatusOr<HawkesArgs> HawkesArgsOf(const KernelContext& ctx, size_t first) {
  const std::vector<Tensor>& in = ctx.inputs;
  HawkesArgs a;
  a.n = in[first].shape()[0];
  a.k = in[first].shape()[1];
  a.t = in[first + 4].shape()[1];
  SYMX_ASSIGN_OR_RETURN(std::vector<double> marks, HostDoubles(in[first + 5]));
  SYMX_ASSIGN_OR_RETURN(std::vector<double> lengths, HostDoubles(in[first + 6]));
  for (int64_t i = 0; i < a.n; ++i) {
    if (!(lengths[i] <= static_cast<double>(a.t))) {
      return Fail(ctx, absl::StrCat("valid_length[", i, "] = ", lengths[i], " exceeds the ", a.t,
                                    " events of lags"));
    }
    for (int64_t j = 0; j < a.t && static_cast<double>(j) < lengths[i]; ++j) {
      const double m = marks[i * a.t + j];
      if (!(m > -1.0 && m < static_cast<double>(a.k))) {
        return Fail(ctx, absl::StrCat("marks[", i, ", ", j, "] = ", m, " is not a process in [0, ",
                                      a.k, ")"));
      }
    }
  }
  const void** ptrs[] = {&a.mu,   &a.alpha, &a.beta,         &a.state,
                         &a.lags, &a.marks, &a.valid_length, &a.max_time};
  for (size_t i = 0; i < 8; ++i) *ptrs[i] = in[first + i].read_raw_data();
  return a;
}

absl::StatusOr<std::pair<Elem, Elem>> HawkesElems(const KernelContext& ctx, DType data,
                                                  DType marks) {
  if (data != DType::kFloat32 && data != DType::kFloat64) return UnsupportedDType(ctx, data);
  if (marks == DType::kFloat16 || marks == DType::kBFloat16 || marks == DType::kBool) {
    return UnsupportedDType(ctx, marks);
  }
  SYMX_ASSIGN_OR_RETURN(Elem d, FloatElem(ctx, data));
  SYMX_ASSIGN_OR_RETURN(Elem m, AnyElem(ctx, marks));
  return std::make_pair(d, m);
}

absl::Status Hawkes(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  SYMX_ASSIGN_OR_RETURN(auto elems, HawkesElems(ctx, ctx.inputs[0].dtype(), ctx.inputs[5].dtype()));
  SYMX_ASSIGN_OR_RETURN(HawkesArgs a, HawkesArgsOf(ctx, 0));
  SYMX_CUDA_LAUNCH(
      ctx, LaunchHawkes(elems.first, elems.second, a, ctx.outputs[0].raw_data(),
                        ctx.outputs[1].raw_data(), ctx.workspace.raw_data(), device->stream()));
  return absl::OkStatus();
}

// Inputs: ll's head gradient, then the forward inputs. Outputs: the gradients
// of lda, alpha, beta.
absl::Status HawkesBackward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  SYMX_ASSIGN_OR_RETURN(auto elems, HawkesElems(ctx, ctx.inputs[1].dtype(), ctx.inputs[6].dtype()));
  SYMX_ASSIGN_OR_RETURN(HawkesArgs a, HawkesArgsOf(ctx, 1));
  SYMX_CUDA_LAUNCH(ctx, LaunchHawkesBackward(
                            elems.first, elems.second, a, ctx.inputs[0].read_raw_data(),
                            ctx.outputs[0].raw_data(), ctx.outputs[1].raw_data(),
                            ctx.outputs[2].raw_data(), ctx.workspace.raw_data(), device->stream()));
  return absl::OkStatus();
}

// Scratch rows of n * k values: 1 for the forward, 5 for the backward.
size_t HawkesWorkspaceOf(const std::vector<Shape>& in, size_t first, DType t, int rows) {
  if (in.size() <= first) return 0;
  return static_cast<size_t>(in[first].Size()) * rows * (t == DType::kFloat64 ? 8 : 4);
}

size_t HawkesWorkspace(const NodeAttrs&, const std::vector<Shape>& in, const std::vector<Shape>&,
                       DType t) {
  return HawkesWorkspaceOf(in, 0, t, 1);
}

size_t HawkesBackwardWorkspace(const NodeAttrs&, const std::vector<Shape>& in,
                               const std::vector<Shape>&, DType t) {
  return HawkesWorkspaceOf(in, 1, t, 5);
}

}  // namespace

SYMX_REGISTER_KERNEL("_histogram", kGPU, Histogram);
SYMX_REGISTER_KERNEL("_contrib_hawkesll", kGPU, .fn = Hawkes, .workspace = HawkesWorkspace);
SYMX_REGISTER_KERNEL("_backward_contrib_hawkesll", kGPU, .fn = HawkesBackward,
                     .workspace = HawkesBackwardWorkspace);

}  // namespace cuda
}  // namespace symx
