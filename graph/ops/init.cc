// Registers the creation ops: _zeros, _ones, _full (value), _arange, _eye, _linspace and
// _zeros_without_dtype. They have no inputs, so they are not differentiable; their output
// dtype is the `dtype` attribute (_zeros_without_dtype: dtype -1, the default, leaves it to
// the output's use). _contrib_arange_like takes _arange's values to its input's shape (or to
// one axis of it) and dtype; the input only lends its shape, and gets a zero gradient.
//
// MXNet's legacy shape semantics apply to `shape`: a 0 entry is a dim to be inferred and an
// empty (or absent) shape is wholly unknown; inference then takes the missing dims from how
// the output is used (zeros(shape=(0, 3)) + x gets x's first dim). _arange's infer_range=True
// likewise takes its length from its consumers. `ctx` is accepted for compatibility and
// ignored: placement is the executor's (group2ctx), as for every other node.
#include "graph/ops/init.h"

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/infer_util.h"
#include "graph/op.h"
#include "graph/ops/op_helpers.h"

namespace symx {

int64_t ArangeLength(const ArangeParam& p) {
  const double start = p.stop ? p.start : 0.0;
  const double stop = p.stop ? *p.stop : p.start;
  return static_cast<int64_t>(std::ceil((stop - start) / p.step)) * p.repeat;
}

namespace {

const std::vector<std::string> kInitDtypes = {"bfloat16", "bool",  "float16", "float32", "float64",
                                              "int32",    "int64", "int8",    "uint8"};
const std::vector<std::string> kArangeDtypes = {"bfloat16", "float16", "float32", "float64",
                                                "int32",    "int64",   "int8",    "uint8"};

DType ReadDtype(ParamReader* r, const std::vector<std::string>& choices) {
  const std::string name = r->Enum("dtype", choices, "float32");
  absl::StatusOr<DType> t = ParseDType(name);
  return t.ok() ? *t : DType::kFloat32;
}

// Legacy shape text: 0 (or -1) = unknown dim, () = unknown shape.
Shape ReadShape(ParamReader* r, const AttrMap& attrs) {
  std::optional<std::vector<int64_t>> dims = r->OptionalTuple("shape");
  if (!dims) return Shape();
  for (int64_t d : *dims) {
    if (d < -1) {
      r->Fail("shape", "dims must be non-negative (0 = inferred from the output's use)");
      return Shape();
    }
  }
  std::vector<int64_t> legacy = *dims;
  for (int64_t& d : legacy) {
    if (d < 0) d = 0;
  }
  return Shape::FromLegacy(legacy);
}

absl::StatusOr<OpParamPtr> ParseInit(const AttrMap& attrs, double value) {
  ParamReader r(attrs);
  auto p = std::make_shared<InitParam>();
  p->shape = ReadShape(&r, attrs);
  r.String("ctx", "");
  p->dtype = ReadDtype(&r, kInitDtypes);
  p->value = value;
  return r.Finish(std::move(p));
}

absl::StatusOr<OpParamPtr> ParseZeros(const AttrMap& attrs) { return ParseInit(attrs, 0.0); }
absl::StatusOr<OpParamPtr> ParseOnes(const AttrMap& attrs) { return ParseInit(attrs, 1.0); }

absl::StatusOr<OpParamPtr> ParseFull(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<InitParam>();
  p->shape = ReadShape(&r, attrs);
  r.String("ctx", "");
  p->dtype = ReadDtype(&r, kInitDtypes);
  p->value = r.Float("value");
  return r.Finish(std::move(p));
}

absl::StatusOr<OpParamPtr> ParseArange(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<ArangeParam>();
  p->start = r.Float("start");
  p->stop = r.OptionalFloat("stop");
  p->step = r.Float("step", 1.0);
  p->repeat = r.Int("repeat", 1);
  p->infer_range = r.Bool("infer_range", false);
  r.String("ctx", "");
  p->dtype = ReadDtype(&r, kArangeDtypes);
  if (p->step == 0) {
    r.Fail("step", "arange does not support step=0");
  } else if (p->repeat <= 0) {
    r.Fail("repeat", "arange only supports repeat > 0");
  } else if (!p->infer_range) {
    const double start = p->stop ? p->start : 0.0;
    const double stop = p->stop ? *p->stop : p->start;
    if (!std::isfinite(start) || !std::isfinite(stop) || !std::isfinite(p->step) ||
        (p->step > 0 && !(start < stop)) || (p->step < 0 && !(start > stop))) {
      r.Fail(p->stop ? "stop" : "start",
             absl::StrCat("invalid range (start, stop, step) = (", FormatDouble(start), ", ",
                          FormatDouble(stop), ", ", FormatDouble(p->step), ")"));
    } else if (std::ceil((stop - start) / p->step) * static_cast<double>(p->repeat) > 1e15) {
      r.Fail("step", "the range has too many elements");
    }
  }
  return r.Finish(std::move(p));
}

absl::Status InferInitShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                            std::vector<Shape>* out) {
  return AssignShape(out, 0, Param<InitParam>(attrs).shape, "output");
}

absl::Status InferInitType(const NodeAttrs& attrs, std::vector<DType>* in,
                           std::vector<DType>* out) {
  return AssignType(out, 0, Param<InitParam>(attrs).dtype, "output");
}

absl::Status InferArangeShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                              std::vector<Shape>* out) {
  const auto& p = Param<ArangeParam>(attrs);
  if (p.infer_range) {
    SYMX_RETURN_IF_ERROR(AssignShape(out, 0, Shape::UnknownDims(1), "output"));
    const Shape& o = (*out)[0];
    if (o[0] >= 0 && o[0] % p.repeat != 0) {
      return absl::InvalidArgumentError(absl::StrCat("_arange: the inferred length ", o[0],
                                                     " is not a multiple of repeat=", p.repeat));
    }
    return absl::OkStatus();
  }
  return AssignShape(out, 0, Shape{ArangeLength(p)}, "output");
}

absl::Status InferArangeType(const NodeAttrs& attrs, std::vector<DType>* in,
                             std::vector<DType>* out) {
  return AssignType(out, 0, Param<ArangeParam>(attrs).dtype, "output");
}

// ----------------------------------------------------------------------------- _eye

const std::vector<std::string> kEyeDtypes = {"float16", "float32", "float64", "int32",
                                             "int64",   "int8",    "uint8"};

absl::StatusOr<OpParamPtr> ParseEye(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<EyeParam>();
  p->N = r.Int("N");
  p->M = r.Int("M", 0);
  p->k = r.Int("k", 0);
  r.String("ctx", "");
  p->dtype = ReadDtype(&r, kEyeDtypes);
  if (p->N < 0) r.Fail("N", "must be non-negative");
  if (p->M < 0) r.Fail("M", "must be non-negative (0: N columns)");
  return r.Finish(std::move(p));
}

absl::Status InferEyeShape(const NodeAttrs& attrs, std::vector<Shape>*, std::vector<Shape>* out) {
  const auto& p = Param<EyeParam>(attrs);
  return AssignShape(out, 0, Shape{p.N, p.M > 0 ? p.M : p.N}, "output");
}

// ----------------------------------------------------------------------------- _linspace

const std::vector<std::string> kLinspaceDtypes = {"bfloat16", "float16", "float32", "float64",
                                                  "int32",    "int64",   "int8",    "uint8"};

absl::StatusOr<OpParamPtr> ParseLinspace(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<LinspaceParam>();
  p->start = r.Float("start");
  p->stop = r.Float("stop");
  p->num = r.Int("num");
  p->endpoint = r.Bool("endpoint", true);
  r.String("ctx", "");
  p->dtype = ReadDtype(&r, kLinspaceDtypes);
  if (p->num < 0) r.Fail("num", "must be non-negative");
  return r.Finish(std::move(p));
}

// -----------------------------------------------------------------------------
// _contrib_arange_like

absl::StatusOr<OpParamPtr> ParseArangeLike(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<ArangeLikeParam>();
  p->start = r.Float("start", 0.0);
  p->step = r.Float("step", 1.0);
  p->repeat = r.Int("repeat", 1);
  r.String("ctx", "");
  p->axis = r.OptionalInt("axis");
  if (p->repeat <= 0) r.Fail("repeat", "must be positive");
  return r.Finish(std::move(p));
}

absl::Status InferArangeLikeShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                                  std::vector<Shape>* out) {
  const auto& p = Param<ArangeLikeParam>(attrs);
  const Shape& data = (*in)[0];
  if (!p.axis) return AssignShape(out, 0, data, "output");
  if (!data.ndim_known()) return AssignShape(out, 0, Shape::UnknownDims(1), "output");
  int ax = 0;
  SYMX_RETURN_IF_ERROR(NormalizeAxis(*p.axis, data.ndim(), "axis", &ax));
  return AssignShape(out, 0, Shape{data[ax]}, "output");
}

// -----------------------------------------------------------------------------
// _zeros_without_dtype

absl::StatusOr<OpParamPtr> ParseZerosWithoutDtype(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<InitParam>();
  p->shape = ReadShape(&r, attrs);
  r.String("ctx", "");
  // MXNet's integer type flag (-1: none); a dtype name is taken too.
  p->dtype = DType::kUnknown;
  const std::string text = r.String("dtype", "-1");
  if (text != "-1") {
    absl::StatusOr<DType> t = ParseDType(text);
    if (t.ok()) {
      p->dtype = *t;
    } else {
      r.Fail("dtype", "must be a type flag (-1: none) or a dtype name");
    }
  }
  return r.Finish(std::move(p));
}

absl::Status InferZerosWithoutDtypeType(const NodeAttrs& attrs, std::vector<DType>* in,
                                        std::vector<DType>* out) {
  const DType t = Param<InitParam>(attrs).dtype;
  if (t == DType::kUnknown) return absl::OkStatus();
  return AssignType(out, 0, t, "output");
}

}  // namespace

SYMX_REGISTER_OP("_zeros")
    .Describe("An array of zeros of `shape` and `dtype` (0 dims inferred from its use).")
    .SetParse(ParseZeros)
    .SetInputNames(std::vector<std::string>{})
    .SetInferShape(InferInitShape)
    .SetInferType(InferInitType)
    .SetNonDifferentiable();

SYMX_REGISTER_OP("_ones")
    .Describe("An array of ones of `shape` and `dtype` (0 dims inferred from its use).")
    .SetParse(ParseOnes)
    .SetInputNames(std::vector<std::string>{})
    .SetInferShape(InferInitShape)
    .SetInferType(InferInitType)
    .SetNonDifferentiable();

SYMX_REGISTER_OP("_full")
    .Describe("An array of `shape` and `dtype` filled with `value` (cast to the dtype).")
    .SetParse(ParseFull)
    .SetInputNames(std::vector<std::string>{})
    .SetInferShape(InferInitShape)
    .SetInferType(InferInitType)
    .SetNonDifferentiable();

SYMX_REGISTER_OP("_arange")
    .Describe(
        "start, start + step, ... up to stop (exclusive; stop=None: [0, start)), each value "
        "`repeat` times; infer_range=True takes the length from the output's use.")
    .SetParse(ParseArange)
    .SetInputNames(std::vector<std::string>{})
    .SetInferShape(InferArangeShape)
    .SetInferType(InferArangeType)
    .SetNonDifferentiable();

SYMX_REGISTER_OP("_eye")
    .Describe("An N x M matrix (M = 0: N x N) with ones on diagonal k, zeros elsewhere.")
    .SetParse(ParseEye)
    .SetInputNames(std::vector<std::string>{})
    .SetInferShape(InferEyeShape)
    .SetInferType([](const NodeAttrs& attrs, std::vector<DType>*, std::vector<DType>* out) {
      return AssignType(out, 0, Param<EyeParam>(attrs).dtype, "output");
    })
    .SetNonDifferentiable();

SYMX_REGISTER_OP("_linspace")
    .Describe(
        "num evenly spaced values from start to stop (stop included when endpoint), each "
        "computed in double and cast to dtype.")
    .SetParse(ParseLinspace)
    .SetInputNames(std::vector<std::string>{})
    .SetInferShape([](const NodeAttrs& attrs, std::vector<Shape>*, std::vector<Shape>* out) {
      return AssignShape(out, 0, Shape{Param<LinspaceParam>(attrs).num}, "output");
    })
    .SetInferType([](const NodeAttrs& attrs, std::vector<DType>*, std::vector<DType>* out) {
      return AssignType(out, 0, Param<LinspaceParam>(attrs).dtype, "output");
    })
    .SetNonDifferentiable();

SYMX_REGISTER_OP("_contrib_arange_like")
    .Describe(
        "start + (i / repeat) * step over the input's shape (or, with axis, over that axis "
        "alone), in the input's dtype.")
    .SetParse(ParseArangeLike)
    .SetInputNames({"data"})
    .SetInferShape(InferArangeLikeShape)
    .SetGradient(ZeroGradient);

SYMX_REGISTER_OP("_zeros_without_dtype")
    .Describe("Zeros of `shape`; dtype -1 (the default) takes the dtype from the output's use.")
    .SetParse(ParseZerosWithoutDtype)
    .SetInputNames(std::vector<std::string>{})
    .SetInferShape(InferInitShape)
    .SetInferType(InferZerosWithoutDtypeType)
    .SetNonDifferentiable();

}  // namespace symx
