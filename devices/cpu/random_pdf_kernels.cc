// CPU kernels of the random_pdf family (graph/ops/random_pdf.cc):
// _random_pdf_X and _backward_pdf_X. The densities are
// devices/geometry/random_densities.h's, in double, rounded once to the
// dtype. Distribution j owns the samples [j * block, (j + 1) * block); the
// backward runs one distribution per task, so each parameter's gradient is
// one sum over its block, with no races.
#include <cmath>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "devices/cpu/kernel_util.h"
#include "devices/geometry/random_densities.h"
#include "devices/geometry/random_operands.h"
#include "graph/ops/random_pdf.h"

namespace symx {
namespace cpu {
namespace {

static_assert(static_cast<int>(PdfLaw::kUniform) == static_cast<int>(DensityLaw::kUniform) &&
                  static_cast<int>(PdfLaw::kNormal) == static_cast<int>(DensityLaw::kNormal) &&
                  static_cast<int>(PdfLaw::kGamma) == static_cast<int>(DensityLaw::kGamma) &&
                  static_cast<int>(PdfLaw::kExponential) ==
                      static_cast<int>(DensityLaw::kExponential) &&
                  static_cast<int>(PdfLaw::kPoisson) == static_cast<int>(DensityLaw::kPoisson) &&
                  static_cast<int>(PdfLaw::kNegativeBinomial) ==
                      static_cast<int>(DensityLaw::kNegativeBinomial) &&
                  static_cast<int>(PdfLaw::kGeneralizedNegativeBinomial) ==
                      static_cast<int>(DensityLaw::kGeneralizedNegativeBinomial) &&
                  static_cast<int>(PdfLaw::kDirichlet) == static_cast<int>(DensityLaw::kDirichlet),
              "the schemas' and the kernels' laws differ");

// The sizes of one call: `dists` distributions of `block` densities each,
// `k` components per sample (Dirichlet; 1 otherwise).
template <typename T>
void PdfForwardT(const KernelContext& ctx, const PdfParam& p, const PdfDims& d, const T* x,
                 const T* a, const T* b, T* out) {
  const auto law = static_cast<DensityLaw>(p.law);
  ParallelFor(ctx, d.dists * d.block, 40.0 * static_cast<double>(d.k), [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) {
      const int64_t j = i / d.block;
      double lpdf = 0;
      if (law == DensityLaw::kDirichlet) {
        const T* xi = x + i * d.k;
        const T* aj = a + j * d.k;
        lpdf = DirichletLogDensity([xi](int64_t c) { return ToDouble<T>(xi[c]); },
                                   [aj](int64_t c) { return ToDouble<T>(aj[c]); }, d.k);
      } else {
        lpdf = LogDensity(law, ToDouble<T>(x[i]), ToDouble<T>(a[j]),
                          b != nullptr ? ToDouble<T>(b[j]) : 0.0);
      }
      out[i] = FromDouble<T>(p.is_log ? lpdf : std::exp(lpdf));
    }
  });
}

absl::Status PdfForward(const KernelContext& ctx) {
  const auto& p = ctx.param<PdfParam>();
  std::vector<const Tensor*> params;
  for (size_t i = 1; i < ctx.inputs.size(); ++i) params.push_back(&ctx.inputs[i]);
  const Tensor& out = ctx.outputs[0];
  SYMX_ASSIGN_OR_RETURN(
      PdfDims d, PdfOperandDims(ctx, ctx.inputs[0], params, out, p.law == PdfLaw::kDirichlet));
  SYMX_FLOAT_STORAGE_SWITCH(
      ctx, out.dtype(), T,
      PdfForwardT<T>(ctx, p, d, ctx.inputs[0].read_data<T>(), params[0]->read_data<T>(),
                     params.size() > 1 ? params[1]->read_data<T>() : nullptr, out.data<T>()));
  return absl::OkStatus();
}

// Inputs: ograd, sample, params..., the forward output. Outputs: the
// gradients of the sample and of each parameter array.
template <typename T>
void PdfBackwardT(const KernelContext& ctx, const PdfParam& p, const PdfDims& d, const T* og,
                  const T* x, const T* a, const T* b, const T* y, T* gx, T* ga, T* gb) {
  const auto law = static_cast<DensityLaw>(p.law);
  const double cost = 60.0 * static_cast<double>(d.block * d.k);
  ParallelFor(ctx, d.dists, cost, [&](int64_t lo, int64_t hi) {
    for (int64_t j = lo; j < hi; ++j) {
      if (law == DensityLaw::kDirichlet) {
        const T* aj = a + j * d.k;
        double sum_alpha = 0;
        for (int64_t c = 0; c < d.k; ++c) sum_alpha += ToDouble<T>(aj[c]);
        const double psi_sum = Digamma(sum_alpha);
        for (int64_t c = 0; c < d.k; ++c) ga[j * d.k + c] = FromDouble<T>(0.0);
        for (int64_t c = 0; c < d.k; ++c) {
          const double ac = ToDouble<T>(aj[c]), psi_a = Digamma(ac);
          double sum = 0;
          for (int64_t i = j * d.block; i < (j + 1) * d.block; ++i) {
            const double scale = ToDouble<T>(og[i]) * (p.is_log ? 1.0 : ToDouble<T>(y[i]));
            const double xc = ToDouble<T>(x[i * d.k + c]);
            sum += scale * (std::log(xc) + (psi_sum - psi_a));
            gx[i * d.k + c] = FromDouble<T>(scale * (ac - 1) / xc);
          }
          ga[j * d.k + c] = FromDouble<T>(sum);
        }
        continue;
      }
      const double aj = ToDouble<T>(a[j]), bj = b != nullptr ? ToDouble<T>(b[j]) : 0.0;
      double sum_a = 0, sum_b = 0;
      for (int64_t i = j * d.block; i < (j + 1) * d.block; ++i) {
        const double scale = ToDouble<T>(og[i]) * (p.is_log ? 1.0 : ToDouble<T>(y[i]));
        double dx = 0, da = 0, db = 0;
        LogDensityGrad(law, ToDouble<T>(x[i]), aj, bj, scale, &dx, &da, &db);
        gx[i] = FromDouble<T>(dx);
        sum_a += da;
        sum_b += db;
      }
      ga[j] = FromDouble<T>(sum_a);
      if (gb != nullptr) gb[j] = FromDouble<T>(sum_b);
    }
  });
}

absl::Status PdfBackward(const KernelContext& ctx) {
  const auto& p = ctx.param<PdfParam>();
  const size_t n = ctx.inputs.size();
  if (n < 4 || ctx.outputs.size() != n - 2) return Fail(ctx, "wrong operand count");
  std::vector<const Tensor*> params;
  for (size_t i = 2; i + 1 < n; ++i) params.push_back(&ctx.inputs[i]);
  const Tensor& y = ctx.inputs[n - 1];
  SYMX_ASSIGN_OR_RETURN(PdfDims d,
                        PdfOperandDims(ctx, ctx.inputs[1], params, y, p.law == PdfLaw::kDirichlet));
  if (ctx.inputs[0].size() != y.size()) return Fail(ctx, "ograd differs from the output in size");
  for (size_t i = 0; i < ctx.outputs.size(); ++i) {
    const Tensor& want = i == 0 ? ctx.inputs[1] : *params[i - 1];
    SYMX_RETURN_IF_ERROR(CheckSameSize(ctx, ctx.outputs[i], want));
  }
  const bool two = params.size() > 1;
  SYMX_FLOAT_STORAGE_SWITCH(
      ctx, y.dtype(), T,
      PdfBackwardT<T>(ctx, p, d, ctx.inputs[0].read_data<T>(), ctx.inputs[1].read_data<T>(),
                      params[0]->read_data<T>(), two ? params[1]->read_data<T>() : nullptr,
                      y.read_data<T>(), ctx.outputs[0].data<T>(), ctx.outputs[1].data<T>(),
                      two ? ctx.outputs[2].data<T>() : nullptr));
  return absl::OkStatus();
}

const bool kRegistered = [] {
  for (const char* name : kPdfLawNames) {
    const std::string n = name;
    KernelRegistry::Register("_random_pdf_" + n, DeviceType::kCPU, KernelInfo{.fn = PdfForward});
    KernelRegistry::Register("_backward_pdf_" + n, DeviceType::kCPU, KernelInfo{.fn = PdfBackward});
  }
  return true;
}();

}  // namespace
}  // namespace cpu
}  // namespace symx
