// CUDA kernels of the deformable family (graph/ops/deformable.cc):
// _contrib_DeformableConvolution, _contrib_ModulatedDeformableConvolution and
// their backward ops, as the CPU computes them (devices/cpu/deformable_kernels.cc):
// per sample, deformable im2col (devices/cuda/deformable.cu) and one batched
// cuBLAS GEMM over the groups. The workspace holds the column buffer and, for
// a half-type data gradient, its float accumulator.
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/cuda/cublas_gemm.h"
#include "devices/cuda/deformable_launch.h"
#include "devices/cuda/kernel_util.h"
#include "devices/geometry/deformable_geom.h"
#include "devices/geometry/deformable_sample.h"
#include "devices/kernel.h"
#include "graph/op.h"
#include "graph/ops/deformable.h"

namespace symx {
namespace cuda {
namespace {

constexpr size_t kAlign = 256;
size_t RoundUp(size_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

bool Plain4d(const Shape& data, const Shape& out) {
  return data.ndim() == 4 && out.ndim() == 4 && data[0] == out[0];
}

size_t ForwardWorkspace(const NodeAttrs& attrs, const std::vector<Shape>& in,
                        const std::vector<Shape>& out, DType dtype) {
  if (in.empty() || out.empty() || !Plain4d(in[0], out[0])) return 0;
  const DeformGeom g = DeformGeomOf(Param<DeformableConvParam>(attrs), in[0], out[0]);
  return RoundUp(static_cast<size_t>(g.col_elems()) * DTypeSize(dtype));
}

// Backward inputs: ograd (the output's shape), data, ...
size_t BackwardWorkspace(const NodeAttrs& attrs, const std::vector<Shape>& in,
                         const std::vector<Shape>&, DType dtype) {
  if (in.size() < 2 || !Plain4d(in[1], in[0])) return 0;
  const DeformGeom g = DeformGeomOf(Param<DeformableConvParam>(attrs), in[1], in[0]);
  size_t bytes = RoundUp(static_cast<size_t>(g.col_elems()) * DTypeSize(dtype));
  if (IsHalf(dtype)) bytes += static_cast<size_t>(in[1].Size()) * sizeof(float);
  return bytes;
}

absl::Status CheckShapes(const KernelContext& ctx, const Shape& data, const Shape& out) {
  if (!Plain4d(data, out)) {
    return Fail(ctx, absl::StrCat("unexpected shapes: data ", data.ToString(), ", output ",
                                  out.ToString()));
  }
  return absl::OkStatus();
}

const char* At(const Tensor& t, int64_t elems, size_t elem_bytes) {
  return static_cast<const char*>(t.read_raw_data()) + elems * static_cast<int64_t>(elem_bytes);
}
char* MutAt(const Tensor& t, int64_t elems, size_t elem_bytes) {
  return static_cast<char*>(t.raw_data()) + elems * static_cast<int64_t>(elem_bytes);
}

// Forward inputs: data, offset, [mask], weight, [bias].
absl::Status DeformableForward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const auto& p = ctx.param<DeformableConvParam>();
  const Tensor& data = ctx.inputs[0];
  const Tensor& out = ctx.outputs[0];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, data.dtype()));
  SYMX_RETURN_IF_ERROR(CheckShapes(ctx, data.shape(), out.shape()));
  const DeformGeom g = DeformGeomOf(p, data.shape(), out.shape());
  const int64_t N = data.shape()[0], L = g.out_size(), F = p.num_filter, G = p.num_group;
  const int64_t Fg = F / G, Kdim = g.channels / G * g.taps();
  const size_t es = DTypeSize(data.dtype());
  if (N * F * L == 0) return absl::OkStatus();
  cudaStream_t s = device->stream();
  if (Kdim == 0) {
    SYMX_CUDA_LAUNCH(ctx, cudaMemsetAsync(out.raw_data(), 0, out.nbytes(), s));
  }
  const int64_t x_per = g.channels * g.height * g.width;
  const int64_t off_per = 2 * g.deformable_groups * g.taps() * L;
  const int64_t mask_per = g.deformable_groups * g.taps() * L;
  const Tensor& weight = ctx.inputs[p.weight_input()];
  char* col = nullptr;
  if (Kdim > 0) {
    SYMX_ASSIGN_OR_RETURN(col, WorkspaceOf(ctx, static_cast<size_t>(g.col_elems()) * es));
  }
  for (int64_t n = 0; n < N && Kdim > 0; ++n) {
    SYMX_CUDA_LAUNCH(
        ctx,
        LaunchDeformIm2col(t, At(data, n * x_per, es), At(ctx.inputs[1], n * off_per, es),
                           p.modulated ? At(ctx.inputs[2], n * mask_per, es) : nullptr, g, col, s));
    SYMX_RETURN_IF_ERROR(Gemm(ctx, device, t, false, false, Fg, L, Kdim, weight.read_raw_data(),
                              Kdim, col, L, MutAt(out, n * F * L, es), L, 1, 0, G, Fg * Kdim,
                              Kdim * L, Fg * L));
  }
  if (!p.no_bias) {
    SYMX_CUDA_LAUNCH(ctx, LaunchDeformAddBias(t, ctx.inputs[p.weight_input() + 1].read_raw_data(),
                                              N, F, L, out.raw_data(), s));
  }
  return absl::OkStatus();
}

// Backward inputs: ograd, data, offset, [mask], weight. Outputs: grads of
// data, offset, [mask], weight, [bias].
absl::Status DeformableBackward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const auto& p = ctx.param<DeformableConvParam>();
  const Tensor& dy = ctx.inputs[0];
  const Tensor& data = ctx.inputs[1];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, data.dtype()));
  SYMX_RETURN_IF_ERROR(CheckShapes(ctx, data.shape(), dy.shape()));
  const DeformGeom g = DeformGeomOf(p, data.shape(), dy.shape());
  const int64_t N = data.shape()[0], L = g.out_size(), F = p.num_filter, G = p.num_group;
  const int64_t Fg = F / G, Kdim = g.channels / G * g.taps();
  const size_t es = DTypeSize(data.dtype());
  const int mask_at = p.modulated ? 2 : -1;
  const int weight_at = p.weight_input();  // in the outputs; the inputs hold it one later
  const int bias_at = weight_at + 1;
  const Tensor* dx = OutputWanted(ctx.req, 0) ? &ctx.outputs[0] : nullptr;
  const Tensor* doffset = OutputWanted(ctx.req, 1) ? &ctx.outputs[1] : nullptr;
  const Tensor* dmask =
      mask_at >= 0 && OutputWanted(ctx.req, mask_at) ? &ctx.outputs[mask_at] : nullptr;
  const Tensor* dw = OutputWanted(ctx.req, weight_at) ? &ctx.outputs[weight_at] : nullptr;
  const Tensor* db =
      !p.no_bias && static_cast<int>(ctx.outputs.size()) > bias_at && OutputWanted(ctx.req, bias_at)
          ? &ctx.outputs[bias_at]
          : nullptr;
  cudaStream_t s = device->stream();
  for (const Tensor* o : {dx, doffset, dmask, dw}) {
    if (o != nullptr && o->nbytes() > 0) {
      SYMX_CUDA_LAUNCH(ctx, cudaMemsetAsync(o->raw_data(), 0, o->nbytes(), s));
    }
  }
  const size_t col_bytes = RoundUp(static_cast<size_t>(g.col_elems()) * es);
  const bool half = IsHalf(data.dtype());
  char* ws = nullptr;
  const size_t ws_bytes =
      col_bytes + (half && dx ? static_cast<size_t>(data.shape().Size()) * sizeof(float) : 0);
  if (ws_bytes > 0) {
    SYMX_ASSIGN_OR_RETURN(ws, WorkspaceOf(ctx, ws_bytes));
  }
  char* col = ws;
  float* dx_half_acc = half && dx ? reinterpret_cast<float*>(ws + col_bytes) : nullptr;
  if (dx_half_acc != nullptr && data.shape().Size() > 0) {
    SYMX_CUDA_LAUNCH(ctx,
                     cudaMemsetAsync(dx_half_acc, 0,
                                     static_cast<size_t>(data.shape().Size()) * sizeof(float), s));
  }
  const int64_t x_per = g.channels * g.height * g.width;
  const int64_t off_per = 2 * g.deformable_groups * g.taps() * L;
  const int64_t mask_per = g.deformable_groups * g.taps() * L;
  const Tensor& offset = ctx.inputs[2];
  const Tensor* mask = p.modulated ? &ctx.inputs[3] : nullptr;
  const Tensor& weight = ctx.inputs[weight_at + 1];
  for (int64_t n = 0; n < N && Kdim > 0 && L > 0; ++n) {
    const void* dy_n = At(dy, n * F * L, es);
    const void* x_n = At(data, n * x_per, es);
    const void* off_n = At(offset, n * off_per, es);
    const void* mask_n = mask ? At(*mask, n * mask_per, es) : nullptr;
    if (dx || doffset || dmask) {
      SYMX_RETURN_IF_ERROR(Gemm(ctx, device, t, true, false, Kdim, L, Fg, weight.read_raw_data(),
                                Kdim, dy_n, L, col, L, 1, 0, G, Fg * Kdim, Fg * L, Kdim * L));
      void* dx_acc = nullptr;
      if (dx) {
        dx_acc = half ? static_cast<void*>(dx_half_acc + n * x_per)
                      : static_cast<void*>(MutAt(*dx, n * x_per, es));
      }
      SYMX_CUDA_LAUNCH(ctx,
                       LaunchDeformCol2im(t, col, x_n, off_n, mask_n, g, dx_acc,
                                          doffset ? MutAt(*doffset, n * off_per, es) : nullptr,
                                          dmask ? MutAt(*dmask, n * mask_per, es) : nullptr, s));
    }
    if (dw) {
      SYMX_CUDA_LAUNCH(ctx, LaunchDeformIm2col(t, x_n, off_n, mask_n, g, col, s));
      SYMX_RETURN_IF_ERROR(Gemm(ctx, device, t, false, true, Fg, Kdim, L, dy_n, L, col, L,
                                dw->raw_data(), Kdim, 1, 1, G, Fg * L, Kdim * L, Fg * Kdim));
    }
  }
  if (dx_half_acc != nullptr) {
    SYMX_CUDA_LAUNCH(ctx,
                     LaunchDeformRoundHalf(t, dx_half_acc, data.shape().Size(), dx->raw_data(), s));
  }
  if (db) {
    SYMX_CUDA_LAUNCH(ctx, LaunchDeformBiasGrad(t, dy.read_raw_data(), N, F, L, db->raw_data(), s));
  }
  return absl::OkStatus();
}

}  // namespace

SYMX_REGISTER_KERNEL("_contrib_DeformableConvolution", kGPU, .fn = DeformableForward,
                     .workspace = ForwardWorkspace);
SYMX_REGISTER_KERNEL("_backward_DeformableConvolution", kGPU, .fn = DeformableBackward,
                     .workspace = BackwardWorkspace);
SYMX_REGISTER_KERNEL("_contrib_ModulatedDeformableConvolution", kGPU, .fn = DeformableForward,
                     .workspace = ForwardWorkspace);
SYMX_REGISTER_KERNEL("_backward_ModulatedDeformableConvolution", kGPU, .fn = DeformableBackward,
                     .workspace = BackwardWorkspace);

}  // namespace cuda
}  // namespace symx
