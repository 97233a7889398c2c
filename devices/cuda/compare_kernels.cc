// CUDA kernels of the compare family (graph/ops/compare.cc): _equal,
// _equal_scalar, _greater, _greater_equal, _greater_equal_scalar,
// _greater_scalar, _lesser, _lesser_equal, _lesser_equal_scalar,
// _lesser_scalar, _logical_and, _logical_and_scalar, _logical_or,
// _logical_or_scalar, _logical_xor, _logical_xor_scalar, _not_equal,
// _not_equal_scalar, broadcast_equal, broadcast_greater,
// broadcast_greater_equal, broadcast_lesser, broadcast_lesser_equal,
// broadcast_logical_and, broadcast_logical_or, broadcast_logical_xor,
// broadcast_not_equal, logical_not, with their backward ops.
#include <cstring>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "devices/cuda/elemwise_kernels.h"
#include "devices/cuda/kernel_util.h"
#include "devices/dtype_switch.h"
#include "devices/cuda/elemwise_launch.h"

namespace symx {
namespace cuda {
namespace {}  // namespace

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
