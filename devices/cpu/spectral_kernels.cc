// CPU kernels of the spectral family (graph/ops/spectral.cc): _contrib_fft and
// _contrib_ifft, one transform per row of the last axis (devices/cpu/dft.h:
// O(d log d) for any length), computed in double for float32 data too
// (MXNet's GPU-only kernels use cuFFT in float32, so symx's float32 results
// are at least as accurate). Rows are spread over the device's pool, sharing
// one plan.
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

}  // namespace

SYMX_REGISTER_KERNEL("_contrib_fft", kCPU, Fft);
SYMX_REGISTER_KERNEL("_contrib_ifft", kCPU, Ifft);

}  // namespace cpu
}  // namespace symx
