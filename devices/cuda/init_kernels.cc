// CUDA kernels of the init family (graph/ops/init.cc): _arange, _full, _ones,
// _zeros, with their backward ops.
#include <cstring>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "devices/cuda/elemwise_kernels.h"
#include "devices/cuda/kernel_util.h"
#include "devices/dtype_switch.h"
#include "graph/ops/init.h"
#include "devices/cuda/elemwise_launch.h"

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

}  // namespace

SYMX_REGISTER_KERNEL("_zeros", kGPU, Full);
SYMX_REGISTER_KERNEL("_ones", kGPU, Full);
SYMX_REGISTER_KERNEL("_full", kGPU, Full);
SYMX_REGISTER_KERNEL("_arange", kGPU, Arange);

}  // namespace cuda

}  // namespace symx
