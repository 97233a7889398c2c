// CPU kernels of the amp family (graph/ops/amp.cc): amp_cast, amp_multicast
// and their backward ops. Each output is its input converted to the output's
// dtype (inference decided which inputs change); an input already in the
// output's dtype is copied, or left alone when the output is the input.
// Every storage dtype; never half-widened (the conversions are the point).
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "devices/cpu/kernel_util.h"
#include "devices/tensor.h"
#include "graph/error.h"

namespace symx {
namespace cpu {
namespace {

absl::Status ConvertTo(const KernelContext& ctx, const Tensor& in, const Tensor& out) {
  if (in.dtype() == DType::kUnknown) return UnsupportedDType(ctx, in.dtype());
  if (out.dtype() == DType::kUnknown) return UnsupportedDType(ctx, out.dtype());
  if (in.size() != out.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat(ctx.Where(), ": input has ", in.size(), " elements, output ", out.size()));
  }
  const int64_t n = in.size();
  const char* s = static_cast<const char*>(in.read_raw_data());
  char* d = static_cast<char*>(out.raw_data());
  if (in.dtype() == out.dtype()) {
    if (s != d) std::memcpy(d, s, out.nbytes());
    return absl::OkStatus();
  }
  const size_t sb = DTypeSize(in.dtype()), db = DTypeSize(out.dtype());
  ParallelFor(ctx, n, 4.0, [&](int64_t begin, int64_t end) {
    ConvertElements(s + begin * sb, in.dtype(), d + begin * db, out.dtype(), end - begin);
  });
  return absl::OkStatus();
}

// amp_cast, amp_multicast and both gradients: output i from input i.
absl::Status ConvertEach(const KernelContext& ctx) {
  if (ctx.inputs.size() != ctx.outputs.size()) {
    return absl::InternalError(absl::StrCat(ctx.Where(), ": ", ctx.inputs.size(), " inputs for ",
                                            ctx.outputs.size(), " outputs"));
  }
  for (size_t i = 0; i < ctx.inputs.size(); ++i) {
    if (i < ctx.req.size() && ctx.req[i] == OpReq::kNull) continue;
    SYMX_RETURN_IF_ERROR(ConvertTo(ctx, ctx.inputs[i], ctx.outputs[i]));
  }
  return absl::OkStatus();
}

SYMX_REGISTER_KERNEL("amp_cast", kCPU, .fn = ConvertEach, .widening = HalfWidening::kNever);
SYMX_REGISTER_KERNEL("_backward_amp_cast", kCPU, .fn = ConvertEach,
                     .widening = HalfWidening::kNever);
SYMX_REGISTER_KERNEL("amp_multicast", kCPU, .fn = ConvertEach, .widening = HalfWidening::kNever);
SYMX_REGISTER_KERNEL("_backward_amp_multicast", kCPU, .fn = ConvertEach,
                     .widening = HalfWidening::kNever);

}  // namespace
}  // namespace cpu
}  // namespace symx
