// The densities of the random_pdf family (graph/ops/random_pdf.cc) and their
// gradients, written once for the CPU kernels and (compiled by nvcc) the GPU
// kernels.
//
// MXNet 1.9.1's formulas (src/operator/random/pdf_op.h), in double: the
// gamma density's beta is a rate (the sampler's is a scale); the uniform
// density is 1 / (high - low) whatever the sample; the discrete laws'
// gradients with respect to the sample are 0. Gradients are of the log
// density; the kernels scale them by the output gradient, times the density
// unless is_log.
#ifndef SYMX_DEVICES_GEOMETRY_RANDOM_DENSITIES_H_
#define SYMX_DEVICES_GEOMETRY_RANDOM_DENSITIES_H_

#include <math.h>

#include "devices/geometry/random_draws.h"
#include "devices/geometry/special_functions.h"

namespace symx {

// The laws, with the values of the schemas' PdfLaw (graph/ops/random_pdf.h;
// the CPU kernels check that they agree).
enum class DensityLaw : int {
  kUniform = 0,                      // a = low, b = high
  kNormal = 1,                       // a = mu, b = sigma
  kGamma = 2,                        // a = alpha, b = beta (a rate)
  kExponential = 3,                  // a = lam
  kPoisson = 4,                      // a = lam
  kNegativeBinomial = 5,             // a = k, b = p
  kGeneralizedNegativeBinomial = 6,  // a = mu, b = alpha
  kDirichlet = 7,                    // a vector alpha (DirichletLogDensity)
};

// log P(x) of the negative binomial with k failures allowed, success chance p.
SYMX_HOST_DEVICE inline double NegBinomialLogDensity(double k, double p, double x) {
  return (LogGamma(x + k) - LogGamma(x + 1) - LogGamma(k)) + k * log(p) + x * log(1 - p);
}

// The log density of x under a scalar law with parameters (a, b).
SYMX_HOST_DEVICE inline double LogDensity(DensityLaw law, double x, double a, double b) {
  constexpr double kLogSqrt2Pi = 0.91893853320467274178;
  switch (law) {
    case DensityLaw::kUniform:
      return -log(b - a);
    case DensityLaw::kNormal:
      return -0.5 * (x - a) * (x - a) / (b * b) - (kLogSqrt2Pi + log(b));
    case DensityLaw::kGamma:
      return a * log(b) + (a - 1) * log(x) - b * x - LogGamma(a);
    case DensityLaw::kExponential:
      return log(a) - a * x;
    case DensityLaw::kPoisson:
      return x * log(a) - LogGamma(x + 1) - a;
    case DensityLaw::kNegativeBinomial:
      return NegBinomialLogDensity(a, b, x);
    case DensityLaw::kGeneralizedNegativeBinomial:
      return NegBinomialLogDensity(1.0 / b, 1.0 / (a * b + 1.0), x);
    case DensityLaw::kDirichlet:
      break;
  }
  return 0.0;
}

// The gradient of the log density with respect to x, a and b, each times
// `scale`, as MXNet differentiates it.
SYMX_HOST_DEVICE inline void LogDensityGrad(DensityLaw law, double x, double a, double b,
                                            double scale, double* gx, double* ga, double* gb) {
  *gx = *ga = *gb = 0;
  switch (law) {
    case DensityLaw::kUniform:
      *ga = scale / (b - a);
      *gb = scale / (a - b);
      return;
    case DensityLaw::kNormal:
      *ga = scale * (x - a) / (b * b);
      *gb = scale * ((x - a) * (x - a) - b * b) / (b * b * b);
      *gx = scale * (a - x) / (b * b);
      return;
    case DensityLaw::kGamma:
      *ga = scale * (log(b) + log(x) - Digamma(a));
      *gb = scale * (a / b - x);
      *gx = scale * ((a - 1) / x - b);
      return;
    case DensityLaw::kExponential:
      *ga = scale * (1 / a - x);
      *gx = -scale * a;
      return;
    case DensityLaw::kPoisson:
      *ga = scale * (x / a - 1);
      return;
    case DensityLaw::kNegativeBinomial:
      *ga = scale * ((Digamma(x + a) - Digamma(a)) + log(b));
      *gb = scale * (a / b - x / (1 - b));
      return;
    case DensityLaw::kGeneralizedNegativeBinomial: {
      const double k = 1.0 / b, p = 1.0 / (a * b + 1.0), den = a * b + 1.0;
      const double gk = scale * ((Digamma(x + k) - Digamma(k)) + log(p));
      const double gp = scale * (k / p - x / (1 - p));
      *ga = -gp * b / (den * den);
      *gb = -gk / (b * b) - gp * a / (den * den);
      return;
    }
    case DensityLaw::kDirichlet:
      return;
  }
}

// The Dirichlet log density of x under alpha, k components (`x(j)` and
// `alpha(j)` read component j).
template <typename ReadX, typename ReadA>
SYMX_HOST_DEVICE inline double DirichletLogDensity(ReadX x, ReadA alpha, int64_t k) {
  double sum_alpha = 0, sum_lgamma = 0, sum_sample = 0;
  for (int64_t j = 0; j < k; ++j) {
    const double a = alpha(j);
    sum_alpha += a;
    sum_lgamma += LogGamma(a);
    sum_sample += (a - 1) * log(x(j));
  }
  return sum_sample + (LogGamma(sum_alpha) - sum_lgamma);
}

}  // namespace symx

#endif  // SYMX_DEVICES_GEOMETRY_RANDOM_DENSITIES_H_
