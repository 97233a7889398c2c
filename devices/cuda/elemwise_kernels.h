// The elementwise kernel templates of the CUDA kernels (unary, binary and
// array-with-scalar ops, identities and fills), shared by the families that
// register them (elemwise, binary, compare, init, shape).
#ifndef SYMX_DEVICES_CUDA_ELEMWISE_KERNELS_H_
#define SYMX_DEVICES_CUDA_ELEMWISE_KERNELS_H_

#include <cstring>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "devices/cuda/kernel_util.h"
#include "devices/dtype_switch.h"
#include "graph/ops/elemwise.h"
#include "graph/ops/init.h"
#include "devices/cuda/elemwise_launch.h"

namespace symx {
namespace cuda {

template <UnaryFn F>
absl::Status Unary(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& x = ctx.inputs[0];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, x.dtype()));
  SYMX_CUDA_LAUNCH(ctx, LaunchUnary(F, t, x.read_raw_data(), ctx.outputs[0].raw_data(), x.size(),
                                    device->stream()));
  return absl::OkStatus();
}

template <BinaryFn F>
absl::Status Binary(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& a = ctx.inputs[0];
  const Tensor& b = ctx.inputs[1];
  const Tensor& out = ctx.outputs[0];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, out.dtype()));
  if (a.size() == out.size() && b.size() == out.size()) {
    SYMX_CUDA_LAUNCH(ctx, LaunchBinary(F, t, a.read_raw_data(), b.read_raw_data(), out.raw_data(),
                                       out.size(), device->stream()));
    return absl::OkStatus();
  }
  SYMX_ASSIGN_OR_RETURN(BroadcastDims d, MakeBroadcastDims(ctx, a.shape(), b.shape(), out.shape()));
  SYMX_CUDA_LAUNCH(ctx, LaunchBroadcast(F, t, a.read_raw_data(), b.read_raw_data(), out.raw_data(),
                                        d, out.size(), device->stream()));
  return absl::OkStatus();
}

template <ScalarFn F>
absl::Status WithScalar(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& x = ctx.inputs[0];
  SYMX_ASSIGN_OR_RETURN(Elem t, FloatElem(ctx, x.dtype()));
  double scalar = ctx.param<ScalarParam>().scalar;
  if (F >= ScalarFn::kEqual) {
    // Comparisons see the scalar in the array's dtype, as MXNet does (a
    // float16 array compares with the scalar rounded to float16).
    char buf[8];
    ConvertElements(&scalar, DType::kFloat64, buf, x.dtype(), 1);
    ConvertElements(buf, x.dtype(), &scalar, DType::kFloat64, 1);
  }
  SYMX_CUDA_LAUNCH(ctx, LaunchScalar(F, t, x.read_raw_data(), scalar, ctx.outputs[0].raw_data(),
                                     x.size(), device->stream()));
  return absl::OkStatus();
}

// Same bytes, maybe another shape: _copy, BlockGrad, Reshape and kin.
inline absl::Status Identity(const KernelContext& ctx) {
  return CopyOnStream(ctx, ctx.inputs[0], ctx.outputs[0]);
}

// The value cast on the host as the CPU kernels cast fill values
// (CastFillValue: integers wrap), stored as its bits.
inline absl::Status FillWith(const KernelContext& ctx, double value) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& out = ctx.outputs[0];
  SYMX_RETURN_IF_ERROR(AnyElem(ctx, out.dtype()).status());
  uint64_t bits = 0;
  SYMX_DTYPE_SWITCH_ALL(out.dtype(), T, {
    const T v = CastFillValue<T>(value);
    std::memcpy(&bits, &v, sizeof(T));
  });
  SYMX_CUDA_LAUNCH(ctx, LaunchFillBits(DTypeSize(out.dtype()), bits, out.raw_data(), out.size(),
                                       device->stream()));
  return absl::OkStatus();
}

}  // namespace cuda
}  // namespace symx

#endif  // SYMX_DEVICES_CUDA_ELEMWISE_KERNELS_H_
