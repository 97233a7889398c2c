// CPU kernels of the spectral family (graph/ops/spectral.cc): _contrib_fft,
// _contrib_ifft and _contrib_count_sketch. The transforms run one per row of
// the last axis (devices/cpu/dft.h: O(d log d) for any length), in double for
// float32 data too (MXNet's GPU-only kernels use cuFFT in float32, so symx's
// float32 results are at least as accurate); rows are spread over the
// device's pool, sharing one plan. The count sketch sums each row's columns
// in input order.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "devices/cpu/dft.h"
#include "devices/cpu/kernel_util.h"
#include "graph/ops/spectral.h"

namespace symx {
namespace cpu {
namespace {

// forward: rows of d reals -> rows of d interleaved complex values.
// inverse: rows of d interleaved complex values -> the real parts of their
// unnormalized inverse transforms.
template <typename T>
absl::Status TransformT(const KernelContext& ctx, bool forward) {
  const Tensor& in = ctx.inputs[0];
  const Shape& s = in.shape();
  if (s.ndim() < 1) return Fail(ctx, absl::StrCat("data ", s.ToString(), " needs 1 or more dims"));
  const int64_t last = s[s.ndim() - 1];
  const int64_t d = forward ? last : last / 2;
  const int64_t rows = d == 0 ? 0 : s.Size() / last;
  const T* x = in.data<T>();
  T* y = ctx.outputs[0].data<T>();
  if (rows == 0) return absl::OkStatus();
  const double cost = 5.0 * static_cast<double>(d) * (1 + std::log2(static_cast<double>(d)));
  const DftPlan plan(d);
  ParallelFor(ctx, rows, cost, [&](int64_t begin, int64_t end) {
    std::vector<DftPlan::Complex> a(d), b(d), scratch;
    for (int64_t r = begin; r < end; ++r) {
      if (forward) {
        const T* row = x + r * d;
        for (int64_t j = 0; j < d; ++j) a[j] = {static_cast<double>(row[j]), 0.0};
        plan.Forward(a.data(), b.data(), &scratch);
        T* out = y + r * 2 * d;
        for (int64_t k = 0; k < d; ++k) {
          out[2 * k] = static_cast<T>(b[k].real());
          out[2 * k + 1] = static_cast<T>(b[k].imag());
        }
      } else {
        const T* row = x + r * 2 * d;
        for (int64_t j = 0; j < d; ++j) {
          a[j] = {static_cast<double>(row[2 * j]), static_cast<double>(row[2 * j + 1])};
        }
        plan.Inverse(a.data(), b.data(), &scratch);
        T* out = y + r * d;
        for (int64_t k = 0; k < d; ++k) out[k] = static_cast<T>(b[k].real());
      }
    }
  });
  return absl::OkStatus();
}

absl::Status Transform(const KernelContext& ctx, bool forward) {
  switch (ctx.inputs[0].dtype()) {
    case DType::kFloat32:
      return TransformT<float>(ctx, forward);
    case DType::kFloat64:
      return TransformT<double>(ctx, forward);
    default:
      return UnsupportedDType(ctx, ctx.inputs[0].dtype());
  }
}

absl::Status Fft(const KernelContext& ctx) { return Transform(ctx, true); }
absl::Status Ifft(const KernelContext& ctx) { return Transform(ctx, false); }

// _contrib_count_sketch's column of each input column (h truncated), checked
// against out_dim.
template <typename T>
absl::StatusOr<std::vector<int64_t>> SketchColumns(const KernelContext& ctx, const Tensor& h,
                                                   int64_t d) {
  const auto& p = ctx.param<CountSketchParam>();
  if (h.shape().Size() != d) {
    return Fail(ctx, absl::StrCat("h ", h.shape().ToString(), " needs ", d, " entries"));
  }
  std::vector<int64_t> cols(d);
  const T* hv = h.data<T>();
  for (int64_t i = 0; i < d; ++i) {
    const double v = static_cast<double>(hv[i]);
    if (!(v > -1.0 && v < static_cast<double>(p.out_dim))) {
      return Fail(ctx, absl::StrCat("h[", i, "] = ", v, " is not a column in [0, ", p.out_dim,
                                    ") (out_dim)"));
    }
    cols[i] = static_cast<int64_t>(v);
  }
  return cols;
}

// Inputs: data, h, s. Rows in order, columns accumulated in input order.
template <typename T>
absl::Status CountSketchT(const KernelContext& ctx) {
  const auto& p = ctx.param<CountSketchParam>();
  const Tensor& data = ctx.inputs[0];
  const int64_t d = data.shape()[data.shape().ndim() - 1];
  SYMX_ASSIGN_OR_RETURN(std::vector<int64_t> cols, SketchColumns<T>(ctx, ctx.inputs[1], d));
  const T* x = data.data<T>();
  const T* s = ctx.inputs[2].data<T>();
  T* y = ctx.outputs[0].data<T>();
  const int64_t rows = ctx.outputs[0].shape().Size() / p.out_dim;
  ParallelFor(ctx, rows, static_cast<double>(d + p.out_dim), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      T* out = y + r * p.out_dim;
      std::fill(out, out + p.out_dim, T(0));
      const T* in = x + r * d;
      for (int64_t i = 0; i < d; ++i) out[cols[i]] += s[i] * in[i];
    }
  });
  return absl::OkStatus();
}

// Inputs: ograd, h, s. Output: data's gradient, s[i] * ograd[r, h[i]].
template <typename T>
absl::Status CountSketchBackwardT(const KernelContext& ctx) {
  const auto& p = ctx.param<CountSketchParam>();
  const Tensor& dx = ctx.outputs[0];
  const int64_t d = dx.shape()[dx.shape().ndim() - 1];
  SYMX_ASSIGN_OR_RETURN(std::vector<int64_t> cols, SketchColumns<T>(ctx, ctx.inputs[1], d));
  const T* g = ctx.inputs[0].data<T>();
  const T* s = ctx.inputs[2].data<T>();
  T* out = dx.data<T>();
  const int64_t rows = ctx.inputs[0].shape().Size() / p.out_dim;
  ParallelFor(ctx, rows, static_cast<double>(d), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      for (int64_t i = 0; i < d; ++i) out[r * d + i] = s[i] * g[r * p.out_dim + cols[i]];
    }
  });
  return absl::OkStatus();
}

absl::Status CountSketch(const KernelContext& ctx) {
  switch (ctx.inputs[0].dtype()) {
    case DType::kFloat32:
      return CountSketchT<float>(ctx);
    case DType::kFloat64:
      return CountSketchT<double>(ctx);
    default:
      return UnsupportedDType(ctx, ctx.inputs[0].dtype());
  }
}

absl::Status CountSketchBackward(const KernelContext& ctx) {
  switch (ctx.inputs[0].dtype()) {
    case DType::kFloat32:
      return CountSketchBackwardT<float>(ctx);
    case DType::kFloat64:
      return CountSketchBackwardT<double>(ctx);
    default:
      return UnsupportedDType(ctx, ctx.inputs[0].dtype());
  }
}

}  // namespace

SYMX_REGISTER_KERNEL("_contrib_fft", kCPU, Fft);
SYMX_REGISTER_KERNEL("_contrib_ifft", kCPU, Ifft);
SYMX_REGISTER_KERNEL("_contrib_count_sketch", kCPU, CountSketch);
SYMX_REGISTER_KERNEL("_backward_contrib_count_sketch", kCPU, CountSketchBackward);

}  // namespace cpu
}  // namespace symx
