// CUDA kernels of the spectral family (graph/ops/spectral.cc): the count sketch
// (devices/cuda/spectral.cu), and _contrib_fft and _contrib_ifft through
// cuFFT's batched complex-to-complex transforms (C2C in float32 as MXNet, Z2Z
// in float64), one row per transform. fft first spreads
// the real rows into complex ones (imaginary parts 0) in the workspace and
// transforms them straight into the output, whose interleaved pairs are
// cuFFT's complex layout; ifft transforms into the workspace and keeps the
// real parts. Plans are made per call, on the step's stream, as MXNet does.
#include <cufft.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/cuda/kernel_util.h"
#include "devices/cuda/spectral_launch.h"
#include "devices/cuda/strided_launch.h"
#include "graph/ops/spectral.h"

namespace symx {
namespace cuda {
namespace {

absl::Status CufftError(const KernelContext& ctx, cufftResult r, const char* call) {
  return Fail(ctx, absl::StrCat(call, " failed (cufftResult ", static_cast<int>(r), ")"));
}

// A batched 1-D plan for `rows` transforms of length d, destroyed on scope exit.
class Plan {
 public:
  ~Plan() {
    if (made_) cufftDestroy(plan_);
  }
  absl::Status Make(const KernelContext& ctx, int d, int rows, bool f64, cudaStream_t s) {
    cufftResult r = cufftPlanMany(&plan_, 1, &d, nullptr, 1, d, nullptr, 1, d,
                                  f64 ? CUFFT_Z2Z : CUFFT_C2C, rows);
    if (r != CUFFT_SUCCESS) return CufftError(ctx, r, "cufftPlanMany");
    made_ = true;
    r = cufftSetStream(plan_, s);
    if (r != CUFFT_SUCCESS) return CufftError(ctx, r, "cufftSetStream");
    return absl::OkStatus();
  }
  absl::Status Exec(const KernelContext& ctx, bool f64, const void* in, void* out, int dir) {
    cufftResult r =
        f64 ? cufftExecZ2Z(plan_, static_cast<cufftDoubleComplex*>(const_cast<void*>(in)),
                           static_cast<cufftDoubleComplex*>(out), dir)
            : cufftExecC2C(plan_, static_cast<cufftComplex*>(const_cast<void*>(in)),
                           static_cast<cufftComplex*>(out), dir);
    return r == CUFFT_SUCCESS ? absl::OkStatus()
                              : CufftError(ctx, r, f64 ? "cufftExecZ2Z" : "cufftExecC2C");
  }

 private:
  cufftHandle plan_ = 0;
  bool made_ = false;
};

// Copies n elements of `bytes` bytes with the given element strides.
StridedDims Strides1(int64_t n, int64_t src_stride, int64_t dst_stride) {
  StridedDims d;
  d.ndim = 1;
  d.dims[0] = n;
  d.src_strides[0] = src_stride;
  d.dst_strides[0] = dst_stride;
  return d;
}

absl::Status Transform(const KernelContext& ctx, bool forward) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& in = ctx.inputs[0];
  const DType t = in.dtype();
  if (t != DType::kFloat32 && t != DType::kFloat64) return UnsupportedDType(ctx, t);
  const bool f64 = t == DType::kFloat64;
  const size_t bytes = f64 ? 8 : 4;
  const Shape& s = in.shape();
  if (s.ndim() < 1) return Fail(ctx, absl::StrCat("data ", s.ToString(), " needs 1 or more dims"));
  const int64_t last = s[s.ndim() - 1];
  const int64_t d = forward ? last : last / 2;
  if (d == 0 || s.Size() == 0) return absl::OkStatus();
  const int64_t rows = s.Size() / last;
  if (d > INT_MAX || rows > INT_MAX) {
    return Fail(ctx, absl::StrCat("data ", s.ToString(), " is too large for one cuFFT plan"));
  }
  const int64_t n = rows * d;  // complex values
  void* ws = ctx.workspace.raw_data();
  cudaStream_t stream = device->stream();
  Plan plan;
  SYMX_RETURN_IF_ERROR(plan.Make(ctx, static_cast<int>(d), static_cast<int>(rows), f64, stream));
  if (forward) {
    SYMX_CUDA_LAUNCH(ctx, cudaMemsetAsync(ws, 0, 2 * n * bytes, stream));
    SYMX_CUDA_LAUNCH(
        ctx, LaunchStridedCopy(bytes, in.read_raw_data(), ws, Strides1(n, 1, 2), n, stream));
    return plan.Exec(ctx, f64, ws, ctx.outputs[0].raw_data(), CUFFT_FORWARD);
  }
  SYMX_RETURN_IF_ERROR(plan.Exec(ctx, f64, in.read_raw_data(), ws, CUFFT_INVERSE));
  SYMX_CUDA_LAUNCH(
      ctx, LaunchStridedCopy(bytes, ws, ctx.outputs[0].raw_data(), Strides1(n, 2, 1), n, stream));
  return absl::OkStatus();
}

// Room for the rows as complex values: as many reals as the complex side
// (fft's output, ifft's input) holds.
size_t TransformWorkspace(const NodeAttrs&, const std::vector<Shape>& in,
                          const std::vector<Shape>& out, DType t) {
  if (in.empty() || out.empty()) return 0;
  const int64_t complex_reals = std::max(in[0].Size(), out[0].Size());
  return static_cast<size_t>(complex_reals) * (t == DType::kFloat64 ? 8 : 4);
}

absl::Status Fft(const KernelContext& ctx) { return Transform(ctx, true); }
absl::Status Ifft(const KernelContext& ctx) { return Transform(ctx, false); }

// h read to the host (one small copy and a synchronization per call) so that
// an index outside [0, out_dim) is the CPU's error naming the entry.
absl::Status CheckSketchColumns(const KernelContext& ctx, const Tensor& h, int64_t d) {
  const auto& p = ctx.param<CountSketchParam>();
  if (h.shape().Size() != d) {
    return Fail(ctx, absl::StrCat("h ", h.shape().ToString(), " needs ", d, " entries"));
  }
  SYMX_ASSIGN_OR_RETURN(std::vector<double> cols, HostDoubles(h));
  for (int64_t i = 0; i < d; ++i) {
    if (!(cols[i] > -1.0 && cols[i] < static_cast<double>(p.out_dim))) {
      return Fail(ctx, absl::StrCat("h[", i, "] = ", cols[i], " is not a column in [0, ", p.out_dim,
                                    ") (out_dim)"));
    }
  }
  return absl::OkStatus();
}

// Inputs: data, h, s.
absl::Status CountSketch(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const auto& p = ctx.param<CountSketchParam>();
  const Tensor& x = ctx.inputs[0];
  if (x.dtype() != DType::kFloat32 && x.dtype() != DType::kFloat64) {
    return UnsupportedDType(ctx, x.dtype());
  }
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, x.dtype()));
  const int64_t d = x.shape()[x.shape().ndim() - 1];
  SYMX_RETURN_IF_ERROR(CheckSketchColumns(ctx, ctx.inputs[1], d));
  const int64_t rows = ctx.outputs[0].shape().Size() / p.out_dim;
  SYMX_CUDA_LAUNCH(ctx, LaunchCountSketch(t, x.read_raw_data(), ctx.inputs[1].read_raw_data(),
                                          ctx.inputs[2].read_raw_data(), rows, d, p.out_dim,
                                          ctx.outputs[0].raw_data(), device->stream()));
  return absl::OkStatus();
}

// Inputs: ograd, h, s. Output: data's gradient.
absl::Status CountSketchBackward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const auto& p = ctx.param<CountSketchParam>();
  const Tensor& g = ctx.inputs[0];
  if (g.dtype() != DType::kFloat32 && g.dtype() != DType::kFloat64) {
    return UnsupportedDType(ctx, g.dtype());
  }
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, g.dtype()));
  const Shape& dx = ctx.outputs[0].shape();
  const int64_t d = dx[dx.ndim() - 1];
  SYMX_RETURN_IF_ERROR(CheckSketchColumns(ctx, ctx.inputs[1], d));
  const int64_t rows = g.shape().Size() / p.out_dim;
  SYMX_CUDA_LAUNCH(ctx,
                   LaunchCountSketchBackward(t, g.read_raw_data(), ctx.inputs[1].read_raw_data(),
                                             ctx.inputs[2].read_raw_data(), rows, d, p.out_dim,
                                             ctx.outputs[0].raw_data(), device->stream()));
  return absl::OkStatus();
}

}  // namespace

SYMX_REGISTER_KERNEL("_contrib_fft", kGPU, .fn = Fft, .workspace = TransformWorkspace);
SYMX_REGISTER_KERNEL("_contrib_ifft", kGPU, .fn = Ifft, .workspace = TransformWorkspace);
SYMX_REGISTER_KERNEL("_contrib_count_sketch", kGPU, CountSketch);
SYMX_REGISTER_KERNEL("_backward_contrib_count_sketch", kGPU, CountSketchBackward);

}  // namespace cuda
}  // namespace symx
