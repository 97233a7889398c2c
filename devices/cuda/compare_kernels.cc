// CUDA kernels of the compare family (graph/ops/compare.cc): _equal,
// _equal_scalar, _greater, _greater_equal, _greater_equal_scalar,
// _greater_scalar, _lesser, _lesser_equal, _lesser_equal_scalar,
// _lesser_scalar, _logical_and, _logical_and_scalar, _logical_or,
// _logical_or_scalar, _logical_xor, _logical_xor_scalar, _not_equal,
// _not_equal_scalar, broadcast_equal, broadcast_greater,
// broadcast_greater_equal, broadcast_lesser, broadcast_lesser_equal,
// broadcast_logical_and, broadcast_logical_or, broadcast_logical_xor,
// broadcast_not_equal, logical_not, _contrib_allclose, with their backward ops.
#include <cstring>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "devices/cuda/compare_launch.h"
#include "devices/cuda/elemwise_kernels.h"
#include "devices/cuda/elemwise_launch.h"
#include "devices/cuda/kernel_util.h"
#include "devices/dtype_switch.h"
#include "graph/ops/compare.h"

namespace symx {
namespace cuda {
namespace {

absl::Status AllClose(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const auto& p = ctx.param<AllCloseParam>();
  const Tensor& a = ctx.inputs[0];
  const Tensor& b = ctx.inputs[1];
  if (a.size() != b.size() || a.dtype() != b.dtype()) {
    return absl::InvalidArgumentError(
        absl::StrCat(ctx.Where(), ": a ", a.DebugString(), " and b ", b.DebugString(), " differ"));
  }
  switch (a.dtype()) {
    case DType::kFloat32:
    case DType::kFloat64:
    case DType::kFloat16:
    case DType::kUint8:
    case DType::kInt8:
    case DType::kInt32:
    case DType::kInt64:
      break;
    default:
      return UnsupportedDType(ctx, a.dtype());
  }
  SYMX_CUDA_LAUNCH(
      ctx, LaunchAllClose(static_cast<Elem>(static_cast<int>(a.dtype())), a.read_raw_data(),
                          b.read_raw_data(), a.size(), static_cast<float>(p.rtol),
                          static_cast<float>(p.atol), p.equal_nan, ctx.outputs[0].data<uint8_t>(),
                          device->stream()));
  return absl::OkStatus();
}

}  // namespace

SYMX_REGISTER_KERNEL("_contrib_allclose", kGPU, AllClose);

SYMX_REGISTER_KERNEL("logical_not", kGPU, Unary<UnaryFn::kLogicalNot>);

// Comparisons and logic: one-shape, scalar and broadcast forms.
#define SYMX_GPU_COMPARE(name, fn)                                          \
  SYMX_REGISTER_KERNEL("_" name, kGPU, Binary<BinaryFn::fn>);               \
  SYMX_REGISTER_KERNEL("_" name "_scalar", kGPU, WithScalar<ScalarFn::fn>); \
  SYMX_REGISTER_KERNEL("broadcast_" name, kGPU, Binary<BinaryFn::fn>)
SYMX_GPU_COMPARE("equal", kEqual);
SYMX_GPU_COMPARE("not_equal", kNotEqual);
SYMX_GPU_COMPARE("greater", kGreater);
SYMX_GPU_COMPARE("greater_equal", kGreaterEqual);
SYMX_GPU_COMPARE("lesser", kLesser);
SYMX_GPU_COMPARE("lesser_equal", kLesserEqual);
SYMX_GPU_COMPARE("logical_and", kLogicalAnd);
SYMX_GPU_COMPARE("logical_or", kLogicalOr);
SYMX_GPU_COMPARE("logical_xor", kLogicalXor);

}  // namespace cuda

}  // namespace symx
