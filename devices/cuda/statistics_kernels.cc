// CUDA kernels of the statistics family (graph/ops/statistics.cc): _histogram,
// on the launcher of devices/cuda/statistics_launch.h.
#include <cstdint>

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

}  // namespace

SYMX_REGISTER_KERNEL("_histogram", kGPU, Histogram);

}  // namespace cuda
}  // namespace symx
