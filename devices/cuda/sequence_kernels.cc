// CUDA kernels of the sequence family (graph/ops/sequence.cc): SequenceMask,
// SequenceLast, SequenceReverse and _backward_SequenceLast, on the launchers
// of devices/cuda/sequence_launch.h. SequenceLast reads its lengths on the
// host first (one small copy and a synchronization per call) so that a
// length outside the data is the CPU's error naming the entry.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "devices/cuda/kernel_util.h"
#include "devices/cuda/sequence_launch.h"
#include "devices/dtype_switch.h"
#include "devices/geometry/sequence_index.h"
#include "graph/ops/sequence.h"

namespace symx {
namespace cuda {
namespace {

// MXNet's data and length dtypes; data may also be bfloat16 (the CPU widens it).
bool SeqDType(DType t, bool data) {
  switch (t) {
    case DType::kFloat32:
    case DType::kFloat64:
    case DType::kFloat16:
    case DType::kUint8:
    case DType::kInt8:
    case DType::kInt32:
    case DType::kInt64:
      return true;
    case DType::kBFloat16:
      return data;
    default:
      return false;
  }
}

struct SeqArgs {
  SequenceDims d;
  const void* lengths = nullptr;
  Elem length_type = Elem::kF32;
};

// `data` has the data's shape (the gradient's, for the backward op).
absl::StatusOr<SeqArgs> SeqArgsOf(const KernelContext& ctx, const Tensor& data, size_t len_input) {
  const auto& p = ctx.param<SequenceParam>();
  const Shape& s = data.shape();
  if (s.ndim() < 2) return Fail(ctx, absl::StrCat("data ", s.ToString(), " needs 2 or more dims"));
  if (!SeqDType(data.dtype(), true)) return UnsupportedDType(ctx, data.dtype());
  SeqArgs a;
  a.d = SequenceDimsOf(s.dims(), p.axis);
  if (p.use_sequence_length) {
    if (ctx.inputs.size() <= len_input) return Fail(ctx, "sequence_length is missing");
    const Tensor& len = ctx.inputs[len_input];
    if (!SeqDType(len.dtype(), false)) return UnsupportedDType(ctx, len.dtype());
    if (len.size() != a.d.batch) {
      return Fail(ctx, absl::StrCat("sequence_length ", len.shape().ToString(),
                                    " should hold one length per batch entry (", a.d.batch, ")"));
    }
    a.lengths = len.read_raw_data();
    SYMX_ASSIGN_OR_RETURN(a.length_type, AnyElem(ctx, len.dtype()));
  }
  return a;
}

absl::Status CheckLastLengths(const KernelContext& ctx, const SeqArgs& a, size_t len_input) {
  if (a.lengths == nullptr) return absl::OkStatus();
  SYMX_ASSIGN_OR_RETURN(std::vector<double> lengths, HostDoubles(ctx.inputs[len_input]));
  const std::string bad = LastLengthError(lengths, a.d.steps);
  if (!bad.empty()) return Fail(ctx, bad);
  return absl::OkStatus();
}

absl::Status SequenceMask(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& x = ctx.inputs[0];
  const Tensor& y = ctx.outputs[0];
  SYMX_ASSIGN_OR_RETURN(SeqArgs a, SeqArgsOf(ctx, x, 1));
  if (y.dtype() != x.dtype() || y.size() != x.size()) return UnsupportedDType(ctx, y.dtype());
  uint64_t bits = 0;
  const double value = ctx.param<SequenceParam>().value;
  SYMX_DTYPE_SWITCH_ALL(x.dtype(), T, {
    const T fill = CastValue<T>(value);
    std::memcpy(&bits, &fill, sizeof(T));
  });
  SYMX_CUDA_LAUNCH(ctx, LaunchSequenceMask(DTypeSize(x.dtype()), x.read_raw_data(), a.length_type,
                                           a.lengths, a.d, bits, y.raw_data(), device->stream()));
  return absl::OkStatus();
}

absl::Status SequenceReverse(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& x = ctx.inputs[0];
  const Tensor& y = ctx.outputs[0];
  SYMX_ASSIGN_OR_RETURN(SeqArgs a, SeqArgsOf(ctx, x, 1));
  if (y.dtype() != x.dtype() || y.size() != x.size()) return UnsupportedDType(ctx, y.dtype());
  SYMX_CUDA_LAUNCH(
      ctx, LaunchSequenceReverse(DTypeSize(x.dtype()), x.read_raw_data(), a.length_type, a.lengths,
                                 a.d, y.raw_data(), device->stream()));
  return absl::OkStatus();
}

absl::Status SequenceLast(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& x = ctx.inputs[0];
  const Tensor& y = ctx.outputs[0];
  SYMX_ASSIGN_OR_RETURN(SeqArgs a, SeqArgsOf(ctx, x, 1));
  if (y.dtype() != x.dtype() || y.size() != a.d.batch * a.d.rest) {
    return Fail(ctx, absl::StrCat("output ", y.DebugString(), " does not match data"));
  }
  SYMX_RETURN_IF_ERROR(CheckLastLengths(ctx, a, 1));
  SYMX_CUDA_LAUNCH(ctx, LaunchSequenceLast(DTypeSize(x.dtype()), x.read_raw_data(), a.length_type,
                                           a.lengths, a.d, y.raw_data(), device->stream()));
  return absl::OkStatus();
}

// Inputs: ograd, [sequence_length]. Output: grad data.
absl::Status SequenceLastBackward(const KernelContext& ctx) {
  SYMX_ASSIGN_OR_RETURN(CudaDevice * device, StepDevice(ctx));
  const Tensor& g = ctx.inputs[0];
  const Tensor& gx = ctx.outputs[0];
  SYMX_ASSIGN_OR_RETURN(SeqArgs a, SeqArgsOf(ctx, gx, 1));
  if (g.dtype() != gx.dtype() || g.size() != a.d.batch * a.d.rest) {
    return Fail(ctx, absl::StrCat("ograd ", g.DebugString(), " does not match the gradient"));
  }
  SYMX_RETURN_IF_ERROR(CheckLastLengths(ctx, a, 1));
  SYMX_CUDA_LAUNCH(ctx,
                   LaunchSequenceLastGrad(DTypeSize(gx.dtype()), g.read_raw_data(), a.length_type,
                                          a.lengths, a.d, gx.raw_data(), device->stream()));
  return absl::OkStatus();
}

}  // namespace

SYMX_REGISTER_KERNEL("SequenceMask", kGPU, SequenceMask);
SYMX_REGISTER_KERNEL("SequenceLast", kGPU, SequenceLast);
SYMX_REGISTER_KERNEL("_backward_SequenceLast", kGPU, SequenceLastBackward);
SYMX_REGISTER_KERNEL("SequenceReverse", kGPU, SequenceReverse);

}  // namespace cuda
}  // namespace symx
