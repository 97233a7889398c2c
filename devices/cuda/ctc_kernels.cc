// CUDA kernels of CTCLoss and _backward_CTCLoss. The host reads and checks
// the labels and lengths (devices/geometry/ctc_plan.h, the CPU's rules and errors:
// one small device-to-host copy per call), uploads the samples' table, and
// devices/cuda/ctc.cu runs the recurrences, one block per sample.
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/geometry/ctc_math.h"
#include "devices/geometry/ctc_plan.h"
#include "devices/cuda/kernel_util.h"
#include "devices/cuda/ctc_launch.h"
#include "devices/cuda/elemwise_launch.h"

namespace symx {
namespace cuda {
namespace {

// Bytes of the scratch doubles, then of the samples' table.
size_t ScratchBytes(const CtcDims& d) {
  return static_cast<size_t>(d.batch * CtcScratchPerSample(d)) * sizeof(double);
}
size_t MetaBytes(const CtcDims& d) {
  return static_cast<size_t>(d.batch * CtcMetaPerSample(d.max_symbols())) * sizeof(int64_t);
}

size_t CtcGpuWorkspace(const NodeAttrs&, const std::vector<Shape>& in, const std::vector<Shape>&,
                       DType) {
  const CtcDims d = CtcDimsOf(in, true);
  return ScratchBytes(d) + MetaBytes(d);
}

absl::Status CtcForward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  SYMX_ASSIGN_OR_RETURN(const CtcDims d, CheckCtcCall(ctx));
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, ctx.inputs[0].dtype()));
  if (d.batch == 0) return absl::OkStatus();
  SYMX_ASSIGN_OR_RETURN(const std::vector<CtcSample> samples, ReadCtcSamples(ctx, d));
  SYMX_ASSIGN_OR_RETURN(char* ws, WorkspaceOf(ctx, ScratchBytes(d) + MetaBytes(d)));
  const std::vector<int64_t> meta = CtcSampleTable(d, samples);
  auto* table = reinterpret_cast<int64_t*>(ws + ScratchBytes(d));
  SYMX_RETURN_IF_ERROR(device->CopyFromHost(meta.data(), table, MetaBytes(d)));
  SYMX_CUDA_LAUNCH(ctx, LaunchCtcLoss(t, ctx.inputs[0].read_raw_data(), d.tmax, d.batch, d.alphabet,
                                      d.max_symbols(), table, reinterpret_cast<double*>(ws),
                                      CtcScratchPerSample(d), ctx.outputs[1].raw_data(),
                                      ctx.outputs[0].raw_data(), device->stream()));
  return absl::OkStatus();
}

// gdata[t, b, k] = ograd[b] * grad[t, b, k].
absl::Status CtcBackward(const KernelContext& ctx) {
  if (!OutputWanted(ctx.req, 0)) return absl::OkStatus();
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& og = ctx.inputs[0];
  const Tensor& grad = ctx.inputs[1];
  const Tensor& out = ctx.outputs[0];
  if (grad.shape().ndim() != 3 || out.shape() != grad.shape() || og.size() != grad.shape()[1]) {
    return Fail(ctx, absl::StrCat("gradient ", grad.DebugString(), " does not match ograd ",
                                  og.DebugString(), " and output ", out.DebugString()));
  }
  if (og.dtype() != grad.dtype() || out.dtype() != grad.dtype()) {
    return UnsupportedDType(ctx, og.dtype());
  }
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, grad.dtype()));
  SYMX_ASSIGN_OR_RETURN(BroadcastDims bd, MakeBroadcastDims(ctx, Shape({grad.shape()[1], 1}),
                                                            grad.shape(), out.shape()));
  SYMX_CUDA_LAUNCH(ctx, LaunchBroadcast(BinaryFn::kMul, t, og.read_raw_data(), grad.read_raw_data(),
                                        out.raw_data(), bd, out.size(), device->stream()));
  return absl::OkStatus();
}

}  // namespace

SYMX_REGISTER_KERNEL("CTCLoss", kGPU, .fn = CtcForward, .workspace = CtcGpuWorkspace);
SYMX_REGISTER_KERNEL("_backward_CTCLoss", kGPU, CtcBackward);

}  // namespace cuda
}  // namespace symx
