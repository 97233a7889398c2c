// CUDA kernels of the random_pdf family (graph/ops/random_pdf.cc):
// _random_pdf_X and _backward_pdf_X, on devices/cuda/random_pdf.cu.
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/cuda/kernel_util.h"
#include "devices/cuda/random_pdf_launch.h"
#include "devices/geometry/random_operands.h"
#include "graph/ops/random_pdf.h"

namespace symx {
namespace cuda {
namespace {

absl::Status PdfForward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const auto& p = ctx.param<PdfParam>();
  std::vector<const Tensor*> params;
  for (size_t i = 1; i < ctx.inputs.size(); ++i) params.push_back(&ctx.inputs[i]);
  const Tensor& out = ctx.outputs[0];
  SYMX_ASSIGN_OR_RETURN(
      PdfDims d, PdfOperandDims(ctx, ctx.inputs[0], params, out, p.law == PdfLaw::kDirichlet));
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, out.dtype()));
  SYMX_CUDA_LAUNCH(ctx, LaunchPdf(t, static_cast<int>(p.law), p.is_log,
                                  ctx.inputs[0].read_raw_data(), params[0]->read_raw_data(),
                                  params.size() > 1 ? params[1]->read_raw_data() : nullptr, d.dists,
                                  d.block, d.k, out.raw_data(), device->stream()));
  return absl::OkStatus();
}

// Inputs: ograd, sample, params..., the forward output.
absl::Status PdfBackward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const auto& p = ctx.param<PdfParam>();
  const size_t n = ctx.inputs.size();
  if (n < 4 || ctx.outputs.size() != n - 2) return Fail(ctx, "wrong operand count");
  std::vector<const Tensor*> params;
  for (size_t i = 2; i + 1 < n; ++i) params.push_back(&ctx.inputs[i]);
  const Tensor& y = ctx.inputs[n - 1];
  SYMX_ASSIGN_OR_RETURN(PdfDims d,
                        PdfOperandDims(ctx, ctx.inputs[1], params, y, p.law == PdfLaw::kDirichlet));
  if (ctx.inputs[0].size() != y.size()) return Fail(ctx, "ograd differs from the output in size");
  for (size_t i = 0; i < ctx.outputs.size(); ++i) {
    const Tensor& want = i == 0 ? ctx.inputs[1] : *params[i - 1];
    if (ctx.outputs[i].size() != want.size()) return Fail(ctx, "a gradient has the wrong size");
  }
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, y.dtype()));
  const bool two = params.size() > 1;
  SYMX_CUDA_LAUNCH(
      ctx, LaunchPdfGrad(t, static_cast<int>(p.law), p.is_log, ctx.inputs[0].read_raw_data(),
                         ctx.inputs[1].read_raw_data(), params[0]->read_raw_data(),
                         two ? params[1]->read_raw_data() : nullptr, y.read_raw_data(), d.dists,
                         d.block, d.k, ctx.outputs[0].raw_data(), ctx.outputs[1].raw_data(),
                         two ? ctx.outputs[2].raw_data() : nullptr, device->stream()));
  return absl::OkStatus();
}

const bool kRegistered = [] {
  for (const char* name : kPdfLawNames) {
    const std::string n = name;
    KernelRegistry::Register("_random_pdf_" + n, DeviceType::kGPU, KernelInfo{.fn = PdfForward});
    KernelRegistry::Register("_backward_pdf_" + n, DeviceType::kGPU, KernelInfo{.fn = PdfBackward});
  }
  return true;
}();

}  // namespace
}  // namespace cuda
}  // namespace symx
