// Parameters of the random_pdf family (graph/ops/random_pdf.cc): the
// densities _random_pdf_X of samples under distributions whose parameters
// are arrays, read by the schemas and the CPU and CUDA kernels.
#ifndef SYMX_GRAPH_OPS_RANDOM_PDF_H_
#define SYMX_GRAPH_OPS_RANDOM_PDF_H_

#include "graph/param.h"

namespace symx {

// The laws; the kernels' DensityLaw (devices/geometry/random_densities.h)
// has the same values.
enum class PdfLaw : int {
  kUniform = 0,                      // low, high
  kNormal = 1,                       // mu, sigma
  kGamma = 2,                        // alpha, beta (a rate, as MXNet's density)
  kExponential = 3,                  // lam
  kPoisson = 4,                      // lam
  kNegativeBinomial = 5,             // k, p
  kGeneralizedNegativeBinomial = 6,  // mu, alpha
  kDirichlet = 7,                    // alpha (a vector along the last axis)
};

// The X of the _random_pdf_X and _backward_pdf_X names, in PdfLaw's order.
inline constexpr const char* kPdfLawNames[] = {"uniform",
                                               "normal",
                                               "gamma",
                                               "exponential",
                                               "poisson",
                                               "negative_binomial",
                                               "generalized_negative_binomial",
                                               "dirichlet"};

// _random_pdf_X and _backward_pdf_X: the law, and whether the output is the
// log density.
struct PdfParam : OpParam {
  PdfLaw law = PdfLaw::kUniform;
  bool is_log = false;
};

}  // namespace symx

#endif  // SYMX_GRAPH_OPS_RANDOM_PDF_H_
