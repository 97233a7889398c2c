// Registers the random family's samplers: _random_X (scalar parameters and an
// output `shape`), _random_X_like (its input's shape and dtype) and _sample_X
// (one distribution per element of its parameter arrays) for X = uniform,
// normal, gamma, exponential, poisson, negative_binomial and
// generalized_negative_binomial, _random_randint, _shuffle (rows in a random
// order) and _sample_multinomial (with get_prob's log-probabilities and their
// gradient, _backward_sample_multinomial) and _sample_unique_zipfian.
//
// MXNet 1.9.1's parameters, defaults and checks: a range violation MXNet
// reports when the kernel runs (scale <= 0, low > high) is an error here when
// the node is made. `shape` takes MXNet's legacy 0 dims, filled from the
// output's use as the creation ops do (graph/ops/init.cc). The samplers are
// not differentiable: _random_X has no inputs, and the _like and _sample_X
// forms give their inputs a zero gradient, as MXNet's MakeZeroGradNodes.
// How the numbers are drawn: devices/geometry/random_draws.h.
#include "graph/ops/random.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/infer_util.h"
#include "graph/op.h"
#include "graph/ops/op_helpers.h"

namespace symx {
namespace {

using D = RandomDistribution;

// A distribution's name in its ops' names, its parameters (MXNet's names,
// defaults and array-input names) and their ranges.
struct Distribution {
  D dist;
  const char* name;  // _random_<name>, _sample_<name>
  const char* key_a;
  double def_a;
  const char* key_b;  // nullptr: one parameter
  double def_b;
  const char* input_a;  // _sample_<name>'s inputs
  const char* input_b;
};

const std::vector<Distribution>& Distributions() {
  static const auto* list = new std::vector<Distribution>{
      {D::kUniform, "uniform", "low", 0.0, "high", 1.0, "low", "high"},
      {D::kNormal, "normal", "loc", 0.0, "scale", 1.0, "mu", "sigma"},
      {D::kGamma, "gamma", "alpha", 1.0, "beta", 1.0, "alpha", "beta"},
      {D::kExponential, "exponential", "lam", 1.0, nullptr, 0.0, "lam", nullptr},
      {D::kPoisson, "poisson", "lam", 1.0, nullptr, 0.0, "lam", nullptr},
      {D::kNegativeBinomial, "negative_binomial", "k", 1.0, "p", 1.0, "k", "p"},
      {D::kGeneralizedNegativeBinomial, "generalized_negative_binomial", "mu", 1.0, "alpha", 1.0,
       "mu", "alpha"},
  };
  return *list;
}

const Distribution& Find(D dist) {
  for (const Distribution& d : Distributions()) {
    if (d.dist == dist) return d;
  }
  return Distributions()[0];
}

const std::vector<std::string> kFloatDtypes = {"None", "float16", "float32", "float64"};

bool IsFloatOutput(DType t) {
  return t == DType::kFloat16 || t == DType::kFloat32 || t == DType::kFloat64;
}

// "None" -> kUnknown, else the named dtype.
DType ReadDtype(ParamReader* r, const std::vector<std::string>& choices) {
  const std::string name = r->Enum("dtype", choices, "None");
  if (name == "None") return DType::kUnknown;
  absl::StatusOr<DType> t = ParseDType(name);
  return t.ok() ? *t : DType::kUnknown;
}

// MXNet's legacy output shape: 0 (or -1) = a dim inferred from the output's
// use, () or absent = wholly unknown.
Shape ReadLegacyShape(ParamReader* r) {
  std::optional<std::vector<int64_t>> dims = r->OptionalTuple("shape");
  if (!dims) return Shape();
  std::vector<int64_t> legacy = *dims;
  for (int64_t& d : legacy) {
    if (d < -1) {
      r->Fail("shape", "dims must be non-negative (0 = inferred from the output's use)");
      return Shape();
    }
    if (d < 0) d = 0;
  }
  return Shape::FromLegacy(legacy);
}

// The ranges MXNet's kernels check, as parse errors naming the key.
void CheckRange(ParamReader* r, D dist, double a, double b) {
  switch (dist) {
    case D::kUniform:
      if (!(a <= b)) r->Fail("low", "low must be less than or equal to high");
      break;
    case D::kNormal:
      if (!(b > 0)) r->Fail("scale", "the normal distribution's scale must be positive");
      break;
    case D::kGamma:
      if (!(a > 0)) r->Fail("alpha", "the gamma distribution's alpha must be positive");
      if (!(b > 0)) r->Fail("beta", "the gamma distribution's beta must be positive");
      break;
    case D::kExponential:
      if (!(a > 0)) r->Fail("lam", "the exponential distribution's lam must be positive");
      break;
    case D::kPoisson:
      if (!(a >= 0)) r->Fail("lam", "the Poisson distribution's lam must be non-negative");
      break;
    case D::kNegativeBinomial:
      if (!(a >= 0)) r->Fail("k", "the negative binomial's k must be non-negative");
      if (!(b >= 0 && b <= 1)) r->Fail("p", "the negative binomial's p must be in [0, 1]");
      break;
    case D::kGeneralizedNegativeBinomial:
      if (!(a >= 0)) r->Fail("mu", "the generalized negative binomial's mu must be non-negative");
      if (!(b >= 0)) {
        r->Fail("alpha", "the generalized negative binomial's alpha must be non-negative");
      }
      break;
  }
}

absl::StatusOr<OpParamPtr> ParseRandom(const AttrMap& attrs, D dist, bool like) {
  const Distribution& d = Find(dist);
  ParamReader r(attrs);
  auto p = std::make_shared<RandomParam>();
  p->dist = dist;
  // negative_binomial's k is an integer in MXNet.
  p->a = dist == D::kNegativeBinomial ? static_cast<double>(r.Int(d.key_a, 1))
                                      : r.Float(d.key_a, d.def_a);
  if (d.key_b != nullptr) p->b = r.Float(d.key_b, d.def_b);
  CheckRange(&r, dist, p->a, p->b);
  if (!like) {
    p->shape = ReadLegacyShape(&r);
    r.String("ctx", "");
    p->dtype = ReadDtype(&r, kFloatDtypes);
  }
  return r.Finish(std::move(p));
}

absl::StatusOr<OpParamPtr> ParseRandInt(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<RandIntParam>();
  p->low = r.Int("low");
  p->high = r.Int("high");
  // MXNet accepts low == high and then divides by zero.
  if (!(p->low < p->high)) r.Fail("high", "high must be greater than low");
  p->shape = ReadLegacyShape(&r);
  r.String("ctx", "");
  p->dtype = ReadDtype(&r, {"None", "int32", "int64"});
  return r.Finish(std::move(p));
}

absl::StatusOr<OpParamPtr> ParseSample(const AttrMap& attrs, D dist) {
  ParamReader r(attrs);
  auto p = std::make_shared<SampleParam>();
  p->dist = dist;
  p->shape = r.Tuple("shape", {});
  for (int64_t s : p->shape) {
    if (s <= 0) r.Fail("shape", "every dim of the sample shape must be positive");
  }
  p->dtype = ReadDtype(&r, kFloatDtypes);
  return r.Finish(std::move(p));
}

// The output dtype of an op without typed inputs: the one its use gives,
// which must be `requested` when that is set, else `requested`, else `def`.
absl::Status InferOutputType(std::vector<DType>* out, DType requested, DType def,
                             bool (*allowed)(DType), const char* allowed_text) {
  DType t = (*out)[0];
  if (t == DType::kUnknown) t = requested != DType::kUnknown ? requested : def;
  if (!allowed(t)) {
    return absl::InvalidArgumentError(
        absl::StrCat("the output's dtype must be ", allowed_text, ", not ", DTypeName(t)));
  }
  return AssignType(out, 0, requested != DType::kUnknown ? requested : t, "output");
}

absl::Status InferRandomShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                              std::vector<Shape>* out) {
  return AssignShape(out, 0, Param<RandomParam>(attrs).shape, "output");
}

absl::Status InferRandomType(const NodeAttrs& attrs, std::vector<DType>* in,
                             std::vector<DType>* out) {
  return InferOutputType(out, Param<RandomParam>(attrs).dtype, DType::kFloat32, IsFloatOutput,
                         "float16, float32 or float64");
}

absl::Status InferRandIntShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                               std::vector<Shape>* out) {
  return AssignShape(out, 0, Param<RandIntParam>(attrs).shape, "output");
}

absl::Status InferRandIntType(const NodeAttrs& attrs, std::vector<DType>* in,
                              std::vector<DType>* out) {
  return InferOutputType(
      out, Param<RandIntParam>(attrs).dtype, DType::kInt32,
      [](DType t) { return t == DType::kInt32 || t == DType::kInt64; }, "int32 or int64");
}

absl::Status InferLikeType(const NodeAttrs& attrs, std::vector<DType>* in,
                           std::vector<DType>* out) {
  DType t = (*in)[0] != DType::kUnknown ? (*in)[0] : (*out)[0];
  if (t == DType::kUnknown) return absl::OkStatus();
  if (!IsFloatOutput(t)) {
    return absl::InvalidArgumentError(
        absl::StrCat("the input's dtype must be float16, float32 or float64, not ", DTypeName(t)));
  }
  SYMX_RETURN_IF_ERROR(AssignType(in, 0, t, "input data"));
  return AssignType(out, 0, t, "output");
}

// Parameter arrays of one shape S; the output S + shape. The output's
// leading dims give S back.
absl::Status InferSampleShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                              std::vector<Shape>* out) {
  const auto& p = Param<SampleParam>(attrs);
  const int extra = static_cast<int>(p.shape.size());
  Shape params;
  const Shape& o = (*out)[0];
  if (o.ndim_known() && o.ndim() >= extra) {
    params = Shape(std::vector<int64_t>(o.dims().begin(), o.dims().end() - extra));
  }
  for (size_t i = 0; i < in->size(); ++i) {
    if (!(*in)[i].ndim_known()) continue;
    if (params.ndim_known() && params.ndim() != (*in)[i].ndim()) {
      return absl::InvalidArgumentError(
          absl::StrCat("the parameter arrays' shapes differ: ", params.ToString(), " and ",
                       (*in)[i].ToString(), " (with the output ", o.ToString(), ")"));
    }
    if (!params.ndim_known()) {
      params = (*in)[i];
    } else if (!MergeShape(&params, (*in)[i])) {
      return absl::InvalidArgumentError(
          absl::StrCat("the parameter arrays' shapes differ: ", params.ToString(), " and ",
                       (*in)[i].ToString()));
    }
  }
  if (!params.ndim_known()) return absl::OkStatus();
  for (size_t i = 0; i < in->size(); ++i) {
    SYMX_RETURN_IF_ERROR(AssignShape(in, i, params, "parameter array"));
  }
  std::vector<int64_t> dims = params.dims();
  dims.insert(dims.end(), p.shape.begin(), p.shape.end());
  return AssignShape(out, 0, Shape(dims), "output");
}

absl::Status InferSampleType(const NodeAttrs& attrs, std::vector<DType>* in,
                             std::vector<DType>* out) {
  DType t = DType::kUnknown;
  for (DType x : *in) {
    if (x == DType::kUnknown) continue;
    if (t != DType::kUnknown && x != t) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the parameter arrays' dtypes differ: ", DTypeName(t), " and ", DTypeName(x)));
    }
    t = x;
  }
  if (t == DType::kUnknown) return absl::OkStatus();
  for (size_t i = 0; i < in->size(); ++i) {
    SYMX_RETURN_IF_ERROR(AssignType(in, i, t, "parameter array"));
  }
  return InferOutputType(out, Param<SampleParam>(attrs).dtype, DType::kFloat32, IsFloatOutput,
                         "float16, float32 or float64");
}

const bool kRegistered = [] {
  for (const Distribution& d : Distributions()) {
    const D dist = d.dist;
    const std::string name = d.name;
    Op& op = OpRegistry::Global()
                 .Register("_random_" + name)
                 .Describe(absl::StrCat("Samples of the ", name,
                                        " distribution in an array of `shape` and `dtype` "
                                        "(0 dims inferred from its use)."))
                 .SetParse([dist](const AttrMap& a) { return ParseRandom(a, dist, false); })
                 .SetInputNames(std::vector<std::string>{})
                 .SetInferShape(InferRandomShape)
                 .SetInferType(InferRandomType)
                 .SetNonDifferentiable();
    op.AddAlias("random_" + name);
    if (dist == D::kUniform || dist == D::kNormal) op.AddAlias(name);
    OpRegistry::Global()
        .Register("_random_" + name + "_like")
        .Describe(absl::StrCat("Samples of the ", name,
                               " distribution in an array of its input's shape and dtype."))
        .SetParse([dist](const AttrMap& a) { return ParseRandom(a, dist, true); })
        .SetInputNames({"data"})
        .SetInferShape([](const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out) {
          return InferSameShape(in, out);
        })
        .SetInferType(InferLikeType)
        .SetGradient(ZeroGradient);
    std::vector<std::string> inputs = {d.input_a};
    if (d.input_b != nullptr) inputs.push_back(d.input_b);
    OpRegistry::Global()
        .Register("_sample_" + name)
        .Describe(absl::StrCat("Samples of ", name,
                               " distributions, `shape` from each one whose parameters "
                               "the input arrays hold (output: their shape + `shape`)."))
        .AddAlias("sample_" + name)
        .SetParse([dist](const AttrMap& a) { return ParseSample(a, dist); })
        .SetInputNames(inputs)
        .SetInferShape(InferSampleShape)
        .SetInferType(InferSampleType)
        .SetGradient(ZeroGradient);
  }
  return true;
}();

absl::StatusOr<OpParamPtr> ParseShuffle(const AttrMap& attrs) {
  ParamReader r(attrs);
  return r.Finish(std::make_shared<OpParam>());
}

absl::StatusOr<OpParamPtr> ParseMultinomial(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<MultinomialParam>();
  p->shape = r.Tuple("shape", {});
  for (int64_t s : p->shape) {
    if (s <= 0) r.Fail("shape", "every dim of the sample shape must be positive");
  }
  p->get_prob = r.Bool("get_prob", false);
  const std::string t =
      r.Enum("dtype", {"uint8", "int32", "float16", "float32", "float64"}, "int32");
  absl::StatusOr<DType> dtype = ParseDType(t);
  p->dtype = dtype.ok() ? *dtype : DType::kInt32;
  return r.Finish(std::move(p));
}

bool GetProb(const NodeAttrs& attrs) {
  auto p = ParamsOf<MultinomialParam>(attrs, ParseMultinomial);
  return p != nullptr && p->get_prob;
}

// A 1-D input gives `shape` (or (1,)) draws; an N-D one, its leading dims
// followed by `shape`.
absl::Status InferMultinomialShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                                   std::vector<Shape>* out) {
  const auto& p = Param<MultinomialParam>(attrs);
  const Shape& data = (*in)[0];
  if (!data.ndim_known()) return absl::OkStatus();
  if (data.ndim() < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("the probabilities must have at least 1 dim, not ", data.ToString()));
  }
  std::vector<int64_t> dims(data.dims().begin(), data.dims().end() - 1);
  dims.insert(dims.end(), p.shape.begin(), p.shape.end());
  if (dims.empty()) dims.push_back(1);
  for (size_t i = 0; i < out->size(); ++i) {
    SYMX_RETURN_IF_ERROR(AssignShape(out, i, Shape(dims), i == 0 ? "output" : "prob"));
  }
  return absl::OkStatus();
}

absl::Status InferMultinomialType(const NodeAttrs& attrs, std::vector<DType>* in,
                                  std::vector<DType>* out) {
  SYMX_RETURN_IF_ERROR(AssignType(out, 0, Param<MultinomialParam>(attrs).dtype, "output"));
  const DType t = (*in)[0];
  if (t == DType::kUnknown) return absl::OkStatus();
  if (!IsFloatOutput(t)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the probabilities' dtype must be float16, float32 or float64, not ", DTypeName(t)));
  }
  if (out->size() > 1) return AssignType(out, 1, t, "prob");
  return absl::OkStatus();
}

// Only the log-probabilities carry a gradient: d log p[k] / d p[k] = 1 / p[k]
// at each drawn k.
std::vector<NodeEntry> MultinomialGradient(const NodePtr& node,
                                           const std::vector<NodeEntry>& ograds) {
  if (ograds.size() < 2 || !ograds[1].node) return ZeroGradient(node, ograds);
  return MakeBackwardNode("_backward_sample_multinomial", node,
                          {ograds[1], node->inputs[0], Out(node, 0)});
}

Op& backward_multinomial_registration =
    RegisterBackwardOp("_backward_sample_multinomial", ParseMultinomial,
                       {"ograd_prob", "data", "sample"}, [](const NodeAttrs&) { return 1; });

absl::StatusOr<OpParamPtr> ParseUniqueZipfian(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<UniqueZipfianParam>();
  p->range_max = r.Int("range_max");
  if (p->range_max <= 0) r.Fail("range_max", "the number of classes must be positive");
  p->shape = r.OptionalTuple("shape").value_or(std::vector<int64_t>{});  // MXNet: None
  if (!p->shape.empty()) {
    if (p->shape.size() != 2 || p->shape[0] < 0 || p->shape[1] < 0) {
      r.Fail("shape", "must be (batch_size, num_sampled)");
    } else if (p->shape[1] > p->range_max) {
      r.Fail("shape", "cannot sample more distinct classes than range_max");
    }
  }
  return r.Finish(std::move(p));
}

absl::Status InferUniqueZipfianShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                                     std::vector<Shape>* out) {
  const auto& p = Param<UniqueZipfianParam>(attrs);
  if (p.shape.empty()) {
    // MXNet takes the shape from the samples' use.
    const Shape& o = (*out)[0];
    if (o.ndim() == 2 && o.dim_known(0)) return AssignShape(out, 1, Shape{o[0]}, "num_tries");
    return absl::OkStatus();
  }
  SYMX_RETURN_IF_ERROR(AssignShape(out, 0, Shape(p.shape), "samples"));
  return AssignShape(out, 1, Shape{p.shape[0]}, "num_tries");
}

}  // namespace

SYMX_REGISTER_OP("_sample_unique_zipfian")
    .Describe(
        "Per row of shape (batch, n): n distinct classes of [0, range_max) drawn from the "
        "log-uniform law lround(exp(u log(range_max))) - 1, and each row's number of draws.")
    .SetParse(ParseUniqueZipfian)
    .SetInputNames(std::vector<std::string>{})
    .SetOutputNames({"output0", "output1"})
    .SetInferShape(InferUniqueZipfianShape)
    .SetInferType([](const NodeAttrs&, std::vector<DType>* in, std::vector<DType>* out) {
      SYMX_RETURN_IF_ERROR(AssignType(out, 0, DType::kInt64, "samples"));
      return AssignType(out, 1, DType::kInt64, "num_tries");
    })
    .SetNonDifferentiable();

SYMX_REGISTER_OP("_shuffle")
    .Describe("The input's rows (its slices along axis 0) in a random order.")
    .AddAlias("shuffle")
    .SetParse(ParseShuffle)
    .SetInputNames({"data"})
    .SetInferShape([](const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out) {
      return InferSameShape(in, out);
    })
    .SetInferType([](const NodeAttrs&, std::vector<DType>* in, std::vector<DType>* out) {
      SYMX_RETURN_IF_ERROR(AssignType(in, 0, (*out)[0], "input data"));
      return AssignType(out, 0, (*in)[0], "output");
    })
    .SetNonDifferentiable();

SYMX_REGISTER_OP("_sample_multinomial")
    .Describe(
        "`shape` draws from each categorical distribution along the input's last axis "
        "(indices, of `dtype`); get_prob=True also gives each draw's log-probability.")
    .AddAlias("sample_multinomial")
    .SetParse(ParseMultinomial)
    .SetInputNames({"data"})
    .SetOutputNames([](const NodeAttrs& attrs) {
      // MXNet's default names (output0, output1 for two outputs).
      return GetProb(attrs) ? std::vector<std::string>{"output0", "output1"}
                            : std::vector<std::string>{"output"};
    })
    .SetInferShape(InferMultinomialShape)
    .SetInferType(InferMultinomialType)
    .SetGradient(MultinomialGradient);

SYMX_REGISTER_OP("_random_randint")
    .Describe(
        "Integers uniform in [low, high) in an array of `shape` and `dtype` (int32, "
        "int64).")
    .AddAlias("random_randint")
    .SetParse(ParseRandInt)
    .SetInputNames(std::vector<std::string>{})
    .SetInferShape(InferRandIntShape)
    .SetInferType(InferRandIntType)
    .SetNonDifferentiable();

}  // namespace symx
