// CPU kernels of the sequence family (graph/ops/sequence.cc): SequenceMask,
// SequenceLast, SequenceReverse and _backward_SequenceLast. Steps and lengths
// come from devices/geometry/sequence_index.h, as on the GPU. Only the mask's
// fill depends on the dtype; everything else moves whole steps of bytes, so
// every dtype MXNet accepts runs natively.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "devices/cpu/kernel_util.h"
#include "devices/dtype_switch.h"
#include "devices/geometry/sequence_index.h"
#include "graph/ops/sequence.h"

namespace symx {
namespace cpu {
namespace {

// MXNet's data and length dtypes (its MSHADOW_TYPE_SWITCH).
bool MxnetDType(DType t) {
  switch (t) {
    case DType::kFloat32:
    case DType::kFloat64:
    case DType::kFloat16:
    case DType::kUint8:
    case DType::kInt8:
    case DType::kInt32:
    case DType::kInt64:
      return true;
    default:
      return false;
  }
}

// The (steps, batch, rest) view of `data` and the step count of each batch
// entry: `lengths` (when given) through `to_steps`, else every step.
struct SeqRun {
  SequenceDims d;
  std::vector<double> lengths;  // empty without use_sequence_length
};

absl::StatusOr<SeqRun> SeqRunOf(const KernelContext& ctx, const Tensor& data,
                                const Tensor* lengths) {
  const auto& p = ctx.param<SequenceParam>();
  const Shape& s = data.shape();
  if (s.ndim() < 2) return Fail(ctx, absl::StrCat("data ", s.ToString(), " needs 2 or more dims"));
  if (!MxnetDType(data.dtype())) return UnsupportedDType(ctx, data.dtype());
  SeqRun r;
  r.d = SequenceDimsOf(s.dims(), p.axis);
  if (p.use_sequence_length) {
    if (lengths == nullptr) return Fail(ctx, "sequence_length is missing");
    if (!MxnetDType(lengths->dtype())) return UnsupportedDType(ctx, lengths->dtype());
    if (lengths->size() != r.d.batch) {
      return Fail(ctx, absl::StrCat("sequence_length ", lengths->shape().ToString(),
                                    " should hold one length per batch entry (", r.d.batch, ")"));
    }
    SYMX_ASSIGN_OR_RETURN(r.lengths, HostDoubles(*lengths));
  }
  return r;
}

const Tensor* LengthInput(const KernelContext& ctx, size_t i) {
  return ctx.inputs.size() > i ? &ctx.inputs[i] : nullptr;
}

// SequenceLast's step per batch entry; an error names the first length
// outside [1, steps].
absl::StatusOr<std::vector<int64_t>> LastSteps(const KernelContext& ctx, const SeqRun& r) {
  const std::string bad = LastLengthError(r.lengths, r.d.steps);
  if (!bad.empty()) return Fail(ctx, bad);
  std::vector<int64_t> last(r.d.batch, r.d.steps - 1);
  for (size_t b = 0; b < r.lengths.size(); ++b) last[b] = LastStep(r.lengths[b], r.d.steps);
  return last;
}

// Copies `rows` steps of `bytes` each: dst step j from src step src_of(j).
template <typename SrcOf>
void CopySteps(const KernelContext& ctx, int64_t rows, size_t bytes, const uint8_t* src,
               uint8_t* dst, SrcOf src_of) {
  ParallelFor(ctx, rows, static_cast<double>(bytes) / 4 + 1, [&](int64_t r0, int64_t r1) {
    for (int64_t j = r0; j < r1; ++j) {
      const int64_t from = src_of(j);
      if (from >= 0) {
        std::memcpy(dst + j * bytes, src + from * bytes, bytes);
      } else {
        std::memset(dst + j * bytes, 0, bytes);
      }
    }
  });
}

template <typename T>
void FillMasked(const KernelContext& ctx, const SeqRun& r, double value, T* out) {
  const T fill = CastValue<T>(value);
  ParallelFor(ctx, r.d.batch, static_cast<double>(r.d.steps * r.d.rest),
              [&](int64_t b0, int64_t b1) {
                for (int64_t b = b0; b < b1; ++b) {
                  const int64_t len = ClampedLength(r.lengths[b], r.d.steps);
                  for (int64_t t = len; t < r.d.steps; ++t) {
                    T* row = out + StepOffset(r.d, t, b);
                    for (int64_t k = 0; k < r.d.rest; ++k) row[k] = fill;
                  }
                }
              });
}

absl::Status SequenceMaskForward(const KernelContext& ctx) {
  const Tensor& x = ctx.inputs[0];
  const Tensor& y = ctx.outputs[0];
  SYMX_ASSIGN_OR_RETURN(SeqRun r, SeqRunOf(ctx, x, LengthInput(ctx, 1)));
  SYMX_RETURN_IF_ERROR(CheckSameSize(ctx, x, y));
  if (y.dtype() != x.dtype()) return UnsupportedDType(ctx, y.dtype());
  if (y.raw_data() != x.read_raw_data()) std::memcpy(y.raw_data(), x.read_raw_data(), x.nbytes());
  if (r.lengths.empty()) return absl::OkStatus();
  const double value = ctx.param<SequenceParam>().value;
  SYMX_DTYPE_SWITCH_ALL(x.dtype(), T, FillMasked<T>(ctx, r, value, y.data<T>()));
  return absl::OkStatus();
}

absl::Status SequenceLastForward(const KernelContext& ctx) {
  const Tensor& x = ctx.inputs[0];
  const Tensor& y = ctx.outputs[0];
  SYMX_ASSIGN_OR_RETURN(SeqRun r, SeqRunOf(ctx, x, LengthInput(ctx, 1)));
  SYMX_RETURN_IF_ERROR(CheckSize(ctx, y, r.d.batch * r.d.rest, "output"));
  if (y.dtype() != x.dtype()) return UnsupportedDType(ctx, y.dtype());
  SYMX_ASSIGN_OR_RETURN(std::vector<int64_t> last, LastSteps(ctx, r));
  const size_t row = static_cast<size_t>(r.d.rest) * DTypeSize(x.dtype());
  // Rows of `rest` elements: StepOffset / rest is the source row.
  CopySteps(ctx, r.d.batch, row, static_cast<const uint8_t*>(x.read_raw_data()),
            static_cast<uint8_t*>(y.raw_data()),
            [&](int64_t b) { return StepOffset(r.d, last[b], b) / r.d.rest; });
  return absl::OkStatus();
}

// Inputs: ograd (batch, rest...), [sequence_length]. Output: grad data.
absl::Status SequenceLastBackward(const KernelContext& ctx) {
  const Tensor& g = ctx.inputs[0];
  const Tensor& gx = ctx.outputs[0];
  SYMX_ASSIGN_OR_RETURN(SeqRun r, SeqRunOf(ctx, gx, LengthInput(ctx, 1)));
  SYMX_RETURN_IF_ERROR(CheckSize(ctx, g, r.d.batch * r.d.rest, "ograd"));
  if (g.dtype() != gx.dtype()) return UnsupportedDType(ctx, g.dtype());
  SYMX_ASSIGN_OR_RETURN(std::vector<int64_t> last, LastSteps(ctx, r));
  const size_t row = static_cast<size_t>(r.d.rest) * DTypeSize(gx.dtype());
  // Every row of the gradient gathers: its batch entry's head row at the last
  // step, zero elsewhere.
  CopySteps(ctx, r.d.steps * r.d.batch, row, static_cast<const uint8_t*>(g.read_raw_data()),
            static_cast<uint8_t*>(gx.raw_data()), [&](int64_t j) -> int64_t {
              int64_t t = 0, b = 0;
              StepOf(r.d, j * r.d.rest, &t, &b);
              return t == last[b] ? b : -1;
            });
  return absl::OkStatus();
}

absl::Status SequenceReverseForward(const KernelContext& ctx) {
  const Tensor& x = ctx.inputs[0];
  const Tensor& y = ctx.outputs[0];
  SYMX_ASSIGN_OR_RETURN(SeqRun r, SeqRunOf(ctx, x, LengthInput(ctx, 1)));
  SYMX_RETURN_IF_ERROR(CheckSameSize(ctx, x, y));
  if (y.dtype() != x.dtype()) return UnsupportedDType(ctx, y.dtype());
  const size_t row = static_cast<size_t>(r.d.rest) * DTypeSize(x.dtype());
  CopySteps(ctx, r.d.steps * r.d.batch, row, static_cast<const uint8_t*>(x.read_raw_data()),
            static_cast<uint8_t*>(y.raw_data()), [&](int64_t j) {
              int64_t t = 0, b = 0;
              StepOf(r.d, j * r.d.rest, &t, &b);
              const int64_t len =
                  r.lengths.empty() ? r.d.steps : ClampedLength(r.lengths[b], r.d.steps);
              return StepOffset(r.d, ReversedStep(t, len), b) / r.d.rest;
            });
  return absl::OkStatus();
}

}  // namespace

SYMX_REGISTER_KERNEL("SequenceMask", kCPU, SequenceMaskForward);
SYMX_REGISTER_KERNEL("SequenceLast", kCPU, SequenceLastForward);
SYMX_REGISTER_KERNEL("_backward_SequenceLast", kCPU, SequenceLastBackward);
SYMX_REGISTER_KERNEL("SequenceReverse", kCPU, SequenceReverseForward);

}  // namespace cpu
}  // namespace symx
