// The optimizer family's operand checks (graph/ops/optimizer.cc), for the CPU
// and the CUDA kernels alike: sizes and dtypes as the schemas infer them,
// which a direct kernel call or a hand-built graph may break.
#ifndef SYMX_DEVICES_GEOMETRY_UPDATE_OPERANDS_H_
#define SYMX_DEVICES_GEOMETRY_UPDATE_OPERANDS_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "devices/kernel.h"
#include "devices/tensor.h"
#include "graph/dtype.h"

namespace symx {

// One weight's operands, inputs [first, first + count) and `out`: each as
// many elements as the weight (those at the offsets in `norms`, LAMB phase
// 2's r1 and r2, one), the weight's dtype for the first `num_low` and
// float32 after them; the weight float32, float64 or float16, and `low`'s
// dtype (a multi_ op's weights share weight_0's); `out` of dtype `out_dtype`
// (unknown: `low`; mp_lamb_update_phase1's direction is float32), as a
// kernel writes it.
inline absl::Status CheckUpdateOperands(const KernelContext& ctx, size_t first, size_t count,
                                        size_t num_low, const Tensor& out, DType low,
                                        std::initializer_list<size_t> norms = {},
                                        DType out_dtype = DType::kUnknown) {
  if (first + count > ctx.inputs.size()) {
    return Fail(
        ctx, absl::StrCat("expected at least ", first + count, " inputs, got ", ctx.inputs.size()));
  }
  const Tensor& weight = ctx.inputs[first];
  if (low != DType::kFloat32 && low != DType::kFloat64 && low != DType::kFloat16) {
    return UnsupportedDType(ctx, low);
  }
  for (size_t k = 0; k < count; ++k) {
    const Tensor& t = ctx.inputs[first + k];
    const bool norm = std::find(norms.begin(), norms.end(), k) != norms.end();
    const int64_t size = norm ? 1 : weight.size();
    if (t.size() != size) {
      return Fail(ctx, absl::StrCat("input ", first + k, " ", t.DebugString(), " should have ",
                                    size, " elements"));
    }
    const DType want = k < num_low ? low : DType::kFloat32;
    if (t.dtype() != want) {
      return Fail(ctx, absl::StrCat("input ", first + k, " is ", DTypeName(t.dtype()),
                                    ", expected ", DTypeName(want)));
    }
  }
  if (out.size() != weight.size()) {
    return Fail(ctx, absl::StrCat("output ", out.DebugString(), " should have ", weight.size(),
                                  " elements"));
  }
  const DType want_out = out_dtype == DType::kUnknown ? low : out_dtype;
  if (out.dtype() != want_out) {
    return Fail(ctx, absl::StrCat("output is ", DTypeName(out.dtype()), ", expected ",
                                  DTypeName(want_out)));
  }
  return absl::OkStatus();
}

// A multi-tensor update's operands: n groups of `stride` inputs (the first
// `num_low` of each in weight_0's dtype, the rest float32) and `extra`
// inputs after them (AdamW's rescale_grad), n outputs; checked before
// anything is written.
inline absl::Status CheckMultiUpdateOperands(const KernelContext& ctx, int64_t n, size_t stride,
                                             size_t num_low, size_t extra) {
  if (ctx.inputs.size() != n * stride + extra || ctx.outputs.size() != static_cast<size_t>(n)) {
    return Fail(ctx,
                absl::StrCat(n, " weights need ", n * stride + extra, " inputs and ", n,
                             " outputs, got ", ctx.inputs.size(), " and ", ctx.outputs.size()));
  }
  const DType t = ctx.inputs[0].dtype();
  for (int64_t i = 0; i < n; ++i) {
    SYMX_RETURN_IF_ERROR(CheckUpdateOperands(ctx, i * stride, stride, num_low, ctx.outputs[i], t));
  }
  return absl::OkStatus();
}

// The preloaded_multi_ forms' last two inputs: n float32 rates and weight
// decays.
inline absl::Status CheckPreloadedRates(const KernelContext& ctx, int64_t n, int64_t at) {
  for (int64_t k : {at, at + 1}) {
    const Tensor& t = ctx.inputs[k];
    if (t.size() != n || t.dtype() != DType::kFloat32) {
      return Fail(ctx, absl::StrCat(k == at ? "lrs " : "wds ", t.DebugString(), " should be ", n,
                                    " float32 values"));
    }
  }
  return absl::OkStatus();
}

// multi_lars: lrs, weights_sum_sq, grads_sum_sq, wds and the output, float32
// arrays of one size.
inline absl::Status CheckLarsOperands(const KernelContext& ctx) {
  const Tensor& out = ctx.outputs[0];
  for (size_t i = 0; i < ctx.inputs.size(); ++i) {
    const Tensor& t = ctx.inputs[i];
    if (t.dtype() != DType::kFloat32) return UnsupportedDType(ctx, t.dtype());
    if (t.size() != out.size()) {
      return Fail(ctx, absl::StrCat("input ", i, " ", t.DebugString(), " should have ", out.size(),
                                    " elements"));
    }
  }
  if (out.dtype() != DType::kFloat32) return UnsupportedDType(ctx, out.dtype());
  return absl::OkStatus();
}

}  // namespace symx

#endif  // SYMX_DEVICES_GEOMETRY_UPDATE_OPERANDS_H_
