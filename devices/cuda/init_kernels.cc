// CUDA kernels of the init family (graph/ops/init.cc): _arange,
// _contrib_arange_like, _eye, _full, _linspace, _ones, _zeros,
// _zeros_without_dtype.
#include <cstring>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "devices/cuda/elemwise_kernels.h"
#include "devices/cuda/elemwise_launch.h"
#include "devices/cuda/init_launch.h"
#include "devices/cuda/kernel_util.h"
#include "devices/dtype_switch.h"
#include "graph/ops/init.h"

namespace symx {
namespace cuda {
namespace {

// `v` cast to integer type T (bool included) and widened to int64 (0 for
// other types).
template <typename T>
int64_t IntegerFill(double v) {
  if constexpr (std::is_integral_v<T>) {
    return static_cast<int64_t>(CastFillValue<T>(v));
  } else {
    return 0;
  }
}

// _arange, with the CPU kernel's rules (devices/cpu/init_kernels.cc).
absl::Status Arange(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const auto& p = ctx.param<ArangeParam>();
  const Tensor& out = ctx.outputs[0];
  // With infer_range, or a stop, the range starts at start; else it is [0, start).
  const double start = p.stop || p.infer_range ? p.start : 0.0;
  if (p.repeat <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": repeat must be positive"));
  }
  SYMX_ASSIGN_OR_RETURN(Elem t, AnyElem(ctx, out.dtype()));
  int64_t s0 = 0, st = 0;
  SYMX_DTYPE_SWITCH_ALL(out.dtype(), T, {
    s0 = IntegerFill<T>(start);
    st = IntegerFill<T>(p.step);
  });
  SYMX_CUDA_LAUNCH(ctx, LaunchArange(t, start, p.step, s0, st, p.repeat, out.raw_data(), out.size(),
                                     device->stream()));
  return absl::OkStatus();
}

absl::Status Full(const KernelContext& ctx) { return FillWith(ctx, ctx.param<InitParam>().value); }

absl::Status ArangeLike(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const auto& p = ctx.param<ArangeLikeParam>();
  const Tensor& out = ctx.outputs[0];
  if (p.repeat <= 0) {
    return absl::InvalidArgumentError(absl::StrCat(ctx.Where(), ": repeat must be positive"));
  }
  SYMX_ASSIGN_OR_RETURN(Elem t, AnyElem(ctx, out.dtype()));
  int64_t s0 = 0, st = 0;
  SYMX_DTYPE_SWITCH_ALL(out.dtype(), T, {
    s0 = IntegerFill<T>(p.start);
    st = IntegerFill<T>(p.step);
  });
  SYMX_CUDA_LAUNCH(ctx, LaunchArange(t, p.start, p.step, s0, st, p.repeat, out.raw_data(),
                                     out.size(), device->stream()));
  return absl::OkStatus();
}

absl::Status Eye(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const auto& p = ctx.param<EyeParam>();
  const Tensor& out = ctx.outputs[0];
  const int64_t rows = p.N, cols = p.M > 0 ? p.M : p.N;
  if (out.size() != rows * cols) {
    return absl::InvalidArgumentError(
        absl::StrCat(ctx.Where(), ": output ", out.DebugString(), " is not ", rows, " x ", cols));
  }
  SYMX_ASSIGN_OR_RETURN(Elem t, AnyElem(ctx, out.dtype()));
  SYMX_CUDA_LAUNCH(ctx, LaunchEye(t, rows, cols, p.k, out.raw_data(), device->stream()));
  return absl::OkStatus();
}

absl::Status Linspace(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const auto& p = ctx.param<LinspaceParam>();
  const Tensor& out = ctx.outputs[0];
  const int64_t steps = p.endpoint ? p.num - 1 : p.num;
  const double step = steps > 0 ? (p.stop - p.start) / static_cast<double>(steps) : 0.0;
  SYMX_ASSIGN_OR_RETURN(Elem t, AnyElem(ctx, out.dtype()));
  SYMX_CUDA_LAUNCH(ctx,
                   LaunchLinspace(t, p.start, step, out.raw_data(), out.size(), device->stream()));
  return absl::OkStatus();
}

}  // namespace

SYMX_REGISTER_KERNEL("_zeros", kGPU, Full);
SYMX_REGISTER_KERNEL("_ones", kGPU, Full);
SYMX_REGISTER_KERNEL("_full", kGPU, Full);
SYMX_REGISTER_KERNEL("_arange", kGPU, Arange);
SYMX_REGISTER_KERNEL("_contrib_arange_like", kGPU, ArangeLike);
SYMX_REGISTER_KERNEL("_eye", kGPU, Eye);
SYMX_REGISTER_KERNEL("_linspace", kGPU, Linspace);
SYMX_REGISTER_KERNEL("_zeros_without_dtype", kGPU, Full);

}  // namespace cuda

}  // namespace symx
