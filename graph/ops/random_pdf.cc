// Registers the random_pdf family: _random_pdf_X (X = uniform, normal, gamma,
// exponential, poisson, negative_binomial, generalized_negative_binomial,
// dirichlet), the density (or with is_log its logarithm) of each sample
// under its distribution, and _backward_pdf_X, MXNet's gradients of the
// samples and the parameters.
//
// Shapes as MXNet 1.9.1: the parameter arrays share one shape, the sample's
// leading dims (each distribution has a block of samples); the output has the
// sample's shape. Dirichlet's alpha keeps the sample's last axis (the
// components), which the output drops (a 1-D sample gives (1,)). Every input
// and the output share one float dtype. MXNet infers nothing until every
// input's ndim is known, and neither does this.
#include "graph/ops/random_pdf.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/infer_util.h"
#include "graph/op.h"
#include "graph/ops/op_helpers.h"

namespace symx {
namespace {

struct Law {
  PdfLaw law;
  const char* name;
  std::vector<std::string> params;  // the inputs after "sample"
};

const std::vector<Law>& Laws() {
  static const auto* laws = new std::vector<Law>{
      {PdfLaw::kUniform, "uniform", {"low", "high"}},
      {PdfLaw::kNormal, "normal", {"mu", "sigma"}},
      {PdfLaw::kGamma, "gamma", {"alpha", "beta"}},
      {PdfLaw::kExponential, "exponential", {"lam"}},
      {PdfLaw::kPoisson, "poisson", {"lam"}},
      {PdfLaw::kNegativeBinomial, "negative_binomial", {"k", "p"}},
      {PdfLaw::kGeneralizedNegativeBinomial, "generalized_negative_binomial", {"mu", "alpha"}},
      {PdfLaw::kDirichlet, "dirichlet", {"alpha"}},
  };
  return *laws;
}

absl::StatusOr<OpParamPtr> ParsePdf(const AttrMap& attrs, PdfLaw law) {
  ParamReader r(attrs);
  auto p = std::make_shared<PdfParam>();
  p->law = law;
  p->is_log = r.Bool("is_log", false);
  return r.Finish(std::move(p));
}

absl::Status InferPdfShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                           std::vector<Shape>* out) {
  const bool vector_params = Param<PdfParam>(attrs).law == PdfLaw::kDirichlet;
  for (const Shape& s : *in) {
    if (!s.ndim_known()) return absl::OkStatus();
  }
  for (size_t i = 2; i < in->size(); ++i) {
    SYMX_RETURN_IF_ERROR(AssignShape(in, i, (*in)[1], "parameter array"));
  }
  const Shape& sample = (*in)[0];
  const int pdim = (*in)[1].ndim();
  if (pdim > sample.ndim() || (vector_params && sample.ndim() == 0)) {
    return absl::InvalidArgumentError(absl::StrCat("the samples ", sample.ToString(),
                                                   " must have at least the parameters' dims ",
                                                   (*in)[1].ToString()));
  }
  std::vector<int64_t> params(sample.dims().begin(), sample.dims().begin() + pdim);
  if (vector_params && pdim > 0) params.back() = sample.dims().back();
  for (size_t i = 1; i < in->size(); ++i) {
    SYMX_RETURN_IF_ERROR(AssignShape(in, i, Shape(params), "parameter array"));
  }
  if (!vector_params) return AssignShape(out, 0, sample, "output");
  if (sample.ndim() == 1) return AssignShape(out, 0, Shape{1}, "output");
  return AssignShape(out, 0,
                     Shape(std::vector<int64_t>(sample.dims().begin(), sample.dims().end() - 1)),
                     "output");
}

absl::Status InferPdfType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  DType t = (*out)[0];
  for (DType x : *in) {
    if (x != DType::kUnknown) t = x;
  }
  if (t == DType::kUnknown) return absl::OkStatus();
  if (t != DType::kFloat16 && t != DType::kFloat32 && t != DType::kFloat64) {
    return absl::InvalidArgumentError(
        absl::StrCat("the samples' and parameters' dtype must be float16, float32 or float64, "
                     "not ",
                     DTypeName(t)));
  }
  for (size_t i = 0; i < in->size(); ++i) {
    SYMX_RETURN_IF_ERROR(AssignType(in, i, t, i == 0 ? "sample" : "parameter array"));
  }
  return AssignType(out, 0, t, "output");
}

const bool kRegistered = [] {
  for (const Law& law : Laws()) {
    const PdfLaw l = law.law;
    const std::string name = law.name;
    std::vector<std::string> inputs = {"sample"};
    inputs.insert(inputs.end(), law.params.begin(), law.params.end());
    const std::string backward = "_backward_pdf_" + name;
    OpRegistry::Global()
        .Register("_random_pdf_" + name)
        .Describe(absl::StrCat("The ", name,
                               " density (log density with is_log) of each sample under the "
                               "distribution its block of samples belongs to."))
        .AddAlias("random_pdf_" + name)
        .SetParse([l](const AttrMap& a) { return ParsePdf(a, l); })
        .SetInputNames(inputs)
        .SetInferShape(InferPdfShape)
        .SetInferType(InferPdfType)
        .SetGradient([backward](const NodePtr& node, const std::vector<NodeEntry>& ograds) {
          if (!ograds[0].node) return ZeroGradient(node, ograds);
          std::vector<NodeEntry> in = {ograds[0]};
          in.insert(in.end(), node->inputs.begin(), node->inputs.end());
          in.push_back(Out(node, 0));
          return MakeBackwardNode(backward, node, in);
        });
    std::vector<std::string> backward_inputs = {"ograd"};
    backward_inputs.insert(backward_inputs.end(), inputs.begin(), inputs.end());
    backward_inputs.push_back("output");
    const int grads = static_cast<int>(inputs.size());
    RegisterBackwardOp(
        backward, [l](const AttrMap& a) { return ParsePdf(a, l); }, backward_inputs,
        [grads](const NodeAttrs&) { return grads; });
  }
  return true;
}();

}  // namespace
}  // namespace symx
