// The contributed optimizer family: MXNet 1.9.1's helpers of LARS and AMP and
// its contrib update operators (src/operator/contrib/):
//   multi_sum_sq, multi_lars, all_finite, multi_all_finite, reset_arrays,
//   _adamw_update, _mp_adamw_update, _contrib_group_adagrad_update,
//   _multi_adamw_update, _multi_mp_adamw_update, _multi_lamb_update,
//   _multi_mp_lamb_update.
//
// Facts from MXNet 1.9.1:
// - multi_sum_sq: one float32 sum of squares (no square root) per array;
//   multi_lars: LARS's per-layer rates from those sums (float32 only).
// - all_finite / multi_all_finite: a (1,) float32 flag, filled with 1 first
//   when init_output, then set to 0 by any element that is not finite once
//   cast to float32; without init_output it only ever clears, so AMP ANDs
//   chunks of arrays into one flag.
// - reset_arrays zeroes its num_arrays inputs (all mutated, so all auxiliary
//   here) and has no output at all.
// - _adamw_update (weight, grad, mean, var, rescale_grad): decoupled weight
//   decay, no bias correction (callers fold it into lr):
//     g = clip(rescale * grad); mean, var moving averages;
//     weight -= eta * (lr * mean / (sqrt(var) + epsilon) + wd * weight).
//   rescale_grad is a tensor whose first element is read; when it is 0, NaN
//   or infinite the op does nothing at all (AMP's skipped step): weight,
//   states and the output are left as they are. MXNet's kernel also writes
//   the rescaled, clipped gradient back into its grad input, which is not a
//   declared mutation (an accident of its in-place expression); here grad is
//   left untouched. _mp_adamw_update steps the float32 master copy weight32.
//   clip_gradient clips when >= 0 (0 clips every gradient to 0), as in every
//   op of this file, whatever MXNet's docs say.
// - _contrib_group_adagrad_update (weight, grad, history): AdaGrad with one
//   history value per row of the weight (history is (rows, 1)):
//     history[r] += mean over the row of g^2; weight -= lr * g / sqrt(history + epsilon).
//   MXNet 1.9.1 registers only its row_sparse kernel, so a dense gradient
//   fails there ("not implemented"); here the dense rule is that kernel's
//   applied to every row.
// - _multi_adamw_update / _multi_mp_adamw_update: num_weights (at most 50)
//   AdamW steps with per-weight lrs, wds and etas and one rescale_grad array
//   (last input, same skip rule); their moving averages are computed as
//   beta * (s - g) + g. _multi_lamb_update / _multi_mp_lamb_update:
//   num_tensors (at most 45) LAMB steps with learning_rates, wds and an
//   integer step_count per tensor; the trust ratio's |w| comes from the
//   weight inputs (the float16 weights in the mp_ form, not weight32), and
//   only |w| is bounded by lower_bound / upper_bound (0 counts as a bound).
//   MXNet checks neither limit (its kernels overflow a fixed block), names
//   the inputs wrongly and leaves the outputs' shapes uninferred: here the
//   limits are errors, the names are weight_i, grad_i, mean_i, var_i,
//   weight32_i (then rescale_grad), and the outputs are inferred.
// - No gradient: these are updates and statistics, not functions to
//   differentiate.
#include "graph/ops/optimizer_contrib.h"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "graph/infer_util.h"
#include "graph/op.h"
#include "graph/ops/op_helpers.h"

namespace symx {
namespace {

float F32(double v) { return static_cast<float>(v); }

// More arrays than any model has: a typo (num_arrays=1e12) is an error, not
// an allocation.
constexpr int64_t kMaxArrays = 1 << 20;

// An op's count attribute, also before the node's attributes are parsed
// (input names are asked for first); out of range falls back to 1 and the
// parse reports it.
int64_t CountOf(const NodeAttrs& attrs, const char* key, int64_t def, int64_t max) {
  auto it = attrs.dict.find(key);
  int64_t n = def;
  if (it != attrs.dict.end() && !absl::SimpleAtoi(it->second, &n)) return 1;
  return n < 1 || n > max ? 1 : n;
}

int64_t NumArrays(const NodeAttrs& attrs) {
  if (attrs.parsed) return Param<ArrayListParam>(attrs).num_arrays;
  return CountOf(attrs, "num_arrays", 1, kMaxArrays);
}

std::vector<std::string> ArrayNames(const NodeAttrs& attrs) {
  std::vector<std::string> names;
  for (int64_t i = 0; i < NumArrays(attrs); ++i) names.push_back(absl::StrCat("array_", i));
  return names;
}

// `required`: MXNet's num_arrays has no default (multi_sum_sq,
// reset_arrays); positional calls fill it in (the op is variadic).
absl::StatusOr<OpParamPtr> ParseArrayList(const AttrMap& attrs, bool counted, bool required,
                                          bool flag) {
  ParamReader r(attrs);
  auto p = std::make_shared<ArrayListParam>();
  if (counted) {
    p->num_arrays = required ? r.Int("num_arrays") : r.Int("num_arrays", 1);
    if (p->num_arrays < 1 || p->num_arrays > kMaxArrays) {
      r.Fail("num_arrays", absl::StrCat("must be in [1, ", kMaxArrays, "]"));
    }
  }
  if (flag) p->init_output = r.Bool("init_output", true);
  return r.Finish(std::move(p));
}

// Every input has one dtype (the kernels read all arrays as array_0's).
absl::Status SameInputType(const NodeAttrs& attrs, std::vector<DType>* in) {
  DType t = DType::kUnknown;
  for (DType d : *in) {
    if (d != DType::kUnknown) {
      t = d;
      break;
    }
  }
  if (t == DType::kUnknown) return absl::OkStatus();
  const std::vector<std::string> names = attrs.op->InputNames(attrs);
  for (size_t i = 0; i < in->size(); ++i) {
    SYMX_RETURN_IF_ERROR(AssignType(in, i, t, "input " + names[i]));
  }
  return absl::OkStatus();
}

// 0-d arrays are refused, as MXNet's inference does.
absl::Status NoScalarInputs(const NodeAttrs& attrs, const std::vector<Shape>& in) {
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i].ndim() == 0) {
      return ShapeError(absl::StrCat("input array_", i), in[i], "at least one dimension");
    }
  }
  return absl::OkStatus();
}

// The finite flag: a (1,) float32 output whatever the inputs.
absl::Status FlagShape(const NodeAttrs&, std::vector<Shape>*, std::vector<Shape>* out) {
  return AssignShape(out, 0, Shape{1}, "output");
}
absl::Status FlagType(const NodeAttrs&, std::vector<DType>*, std::vector<DType>* out) {
  return AssignType(out, 0, DType::kFloat32, "output");
}

// ------------------------------------------------------------ LARS and AMP helpers

[[maybe_unused]] const bool helpers_registered = [] {
  OpRegistry::Global()
      .Register("multi_sum_sq")
      .Describe("The sum of squares of each of num_arrays arrays (float32, no square root)")
      .SetParse([](const AttrMap& a) { return ParseArrayList(a, true, true, false); })
      .SetInputNames(ArrayNames)
      .SetOutputNames({"output"})
      .SetVariadic("num_arrays")
      .SetInferShape([](const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
        SYMX_RETURN_IF_ERROR(NoScalarInputs(attrs, *in));
        return AssignShape(out, 0, Shape{NumArrays(attrs)}, "output");
      })
      .SetInferType([](const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
        SYMX_RETURN_IF_ERROR(SameInputType(attrs, in));
        return AssignType(out, 0, DType::kFloat32, "output");
      })
      .SetNonDifferentiable();

  OpRegistry::Global()
      .Register("multi_lars")
      .Describe(
          "LARS's rates: lrs * eta * |w| / (|g| * rescale_grad + wds * |w| + eps) from "
          "the sums of squares of weights and gradients (lrs where either is 0)")
      .SetParse([](const AttrMap& attrs) -> absl::StatusOr<OpParamPtr> {
        ParamReader r(attrs);
        auto p = std::make_shared<LarsParam>();
        p->eta = F32(r.Float("eta"));
        p->eps = F32(r.Float("eps"));
        p->rescale_grad = F32(r.Float("rescale_grad", 1.0));
        return r.Finish(std::move(p));
      })
      .SetInputNames({"lrs", "weights_sum_sq", "grads_sum_sq", "wds"})
      .SetOutputNames({"output"})
      .SetInferShape([](const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out) {
        return InferSameShape(in, out);
      })
      .SetInplace({{0, 0}})
      .SetNonDifferentiable()
      .SetAttrsPerCall();

  OpRegistry::Global()
      .Register("all_finite")
      .Describe(
          "A (1,) float32 flag: 0 if any element of data is not finite (as float32); "
          "init_output first sets it to 1")
      .SetParse([](const AttrMap& a) { return ParseArrayList(a, false, false, true); })
      .SetInputNames({"data"})
      .SetOutputNames({"output"})
      .SetInferShape(FlagShape)
      .SetInferType(FlagType)
      .SetNonDifferentiable();

  OpRegistry::Global()
      .Register("multi_all_finite")
      .Describe("all_finite over num_arrays arrays of one dtype")
      .SetParse([](const AttrMap& a) { return ParseArrayList(a, true, false, true); })
      .SetInputNames(ArrayNames)
      .SetOutputNames({"output"})
      .SetVariadic("num_arrays")
      .SetInferShape(FlagShape)
      .SetInferType([](const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
        // MXNet reads every array as array_0's dtype and fails at run time
        // on a mix: here inference says so first.
        SYMX_RETURN_IF_ERROR(SameInputType(attrs, in));
        return FlagType(attrs, in, out);
      })
      .SetNonDifferentiable();

  OpRegistry::Global()
      .Register("reset_arrays")
      .Describe("Sets every element of its num_arrays arrays to zero; no output")
      .SetParse([](const AttrMap& a) { return ParseArrayList(a, true, true, false); })
      .SetInputNames(ArrayNames)
      .SetOutputNames(std::vector<std::string>{})
      .SetVariadic("num_arrays")
      .SetAuxInputs([](const NodeAttrs& attrs) {
        std::vector<int> aux;
        for (int64_t i = 0; i < NumArrays(attrs); ++i) aux.push_back(static_cast<int>(i));
        return aux;
      })
      .SetInferShape([](const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>*) {
        return NoScalarInputs(attrs, *in);
      })
      .SetInferType([](const NodeAttrs&, std::vector<DType>*, std::vector<DType>*) {
        return absl::OkStatus();
      })
      .SetNonDifferentiable();
  return true;
}();

// ------------------------------------------------------------ AdamW

absl::StatusOr<OpParamPtr> ParseAdamW(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<AdamWParam>();
  p->lr = F32(r.Float("lr"));
  p->beta1 = F32(r.Float("beta1", 0.9));
  p->beta2 = F32(r.Float("beta2", 0.999));
  p->epsilon = F32(r.Float("epsilon", 1e-8));
  p->wd = F32(r.Float("wd", 0.0));
  p->eta = F32(r.Float("eta"));
  p->clip_gradient = F32(r.Float("clip_gradient", -1.0));
  return r.Finish(std::move(p));
}

// Inputs at `low` (and the output) share the weight's dtype; those at
// `high` are float32.
absl::Status InferLowHighType(const NodeAttrs& attrs, std::vector<DType>* in,
                              std::vector<DType>* out, const std::vector<size_t>& low,
                              const std::vector<size_t>& high) {
  const std::vector<std::string> names = attrs.op->InputNames(attrs);
  for (size_t i : high) {
    SYMX_RETURN_IF_ERROR(AssignType(in, i, DType::kFloat32, "input " + names[i]));
  }
  DType t = (*out)[0];
  for (size_t i : low) {
    if ((*in)[i] != DType::kUnknown) t = (*in)[i];
  }
  if (t == DType::kUnknown) return absl::OkStatus();
  for (size_t i : low) SYMX_RETURN_IF_ERROR(AssignType(in, i, t, "input " + names[i]));
  return AssignType(out, 0, t, "output");
}

// The weight's operands (the first `count` inputs) and the output have one
// shape. rescale_grad (last) may have any shape, its first element is read;
// unknown, it is taken as (1,). MXNet's mp_ form checks only weight and grad
// against the output, though its kernel reads the states element by element:
// here they are checked too.
absl::Status InferAdamWShape(std::vector<Shape>* in, std::vector<Shape>* out, size_t count) {
  std::vector<Shape> same(in->begin(), in->begin() + count);
  SYMX_RETURN_IF_ERROR(InferSameShape(&same, out));
  std::copy(same.begin(), same.end(), in->begin());
  if (!in->back().ndim_known()) (*in)[in->size() - 1] = Shape{1};
  return absl::OkStatus();
}

void RegisterAdamW(const char* name, bool mixed) {
  std::vector<std::string> inputs = {"weight", "grad", "mean", "var"};
  std::vector<int> aux = {2, 3};
  if (mixed) {
    inputs.push_back("weight32");
    aux.push_back(4);
  }
  inputs.push_back("rescale_grad");
  const size_t count = inputs.size() - 1;
  OpRegistry::Global()
      .Register(name)
      .Describe(mixed ? "_adamw_update on the float32 master copy weight32"
                      : "AdamW: g = clip(rescale_grad * grad); mean, var moving averages; "
                        "weight -= eta * (lr * mean / (sqrt(var) + epsilon) + wd * weight); "
                        "nothing happens when rescale_grad[0] is 0 or not finite")
      .SetParse(ParseAdamW)
      .SetInputNames(inputs)
      .SetOutputNames({"output"})
      .SetAuxInputs([aux](const NodeAttrs&) { return aux; })
      .SetInferShape([count](const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out) {
        return InferAdamWShape(in, out, count);
      })
      .SetInferType(
          [mixed](const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
            if (mixed) return InferLowHighType(attrs, in, out, {0, 1}, {2, 3, 4, 5});
            return InferLowHighType(attrs, in, out, {0, 1, 2, 3}, {4});
          })
      .SetInplace({{0, 0}})
      .SetNonDifferentiable()
      .SetAttrsPerCall();
}

// ------------------------------------------------------------ GroupAdaGrad

// weight, grad and the output have one shape (at least 1-d); history has
// one value per row of the weight ((rows, 1) when unknown).
absl::Status InferGroupAdagradShape(const NodeAttrs&, std::vector<Shape>* in,
                                    std::vector<Shape>* out) {
  std::vector<Shape> same = {(*in)[0], (*in)[1]};
  SYMX_RETURN_IF_ERROR(InferSameShape(&same, out));
  (*in)[0] = same[0];
  (*in)[1] = same[1];
  const Shape& w = (*in)[0];
  if (w.ndim() == 0) return ShapeError("input weight", w, "at least one dimension");
  if (!w.ndim_known() || !w.dim_known(0)) return absl::OkStatus();
  Shape& h = (*in)[2];
  if (!h.ndim_known()) {
    h = Shape{w[0], 1};
    return absl::OkStatus();
  }
  if (h.fully_known() && (h.ndim() == 0 || h[0] != w[0] || h.Size() != w[0])) {
    return ShapeError("input history", h,
                      absl::StrCat("one value per row of the weight: (", w[0], ", 1)"));
  }
  return absl::OkStatus();
}

[[maybe_unused]] const bool updates_registered = [] {
  RegisterAdamW("_adamw_update", false);
  RegisterAdamW("_mp_adamw_update", true);
  OpRegistry::Global()
      .Register("_contrib_group_adagrad_update")
      .Describe(
          "AdaGrad with one history value per weight row: history += mean of the row's "
          "g^2; weight -= lr * g / sqrt(history + epsilon)")
      .SetParse([](const AttrMap& attrs) -> absl::StatusOr<OpParamPtr> {
        ParamReader r(attrs);
        auto p = std::make_shared<GroupAdagradParam>();
        p->lr = F32(r.Float("lr"));
        p->rescale_grad = F32(r.Float("rescale_grad", 1.0));
        p->clip_gradient = F32(r.Float("clip_gradient", -1.0));
        p->epsilon = F32(r.Float("epsilon", 1e-5));
        return r.Finish(std::move(p));
      })
      .SetInputNames({"weight", "grad", "history"})
      .SetOutputNames({"output"})
      .SetAuxInputs([](const NodeAttrs&) { return std::vector<int>{2}; })
      .SetInferShape(InferGroupAdagradShape)
      .SetInplace({{0, 0}})
      .SetNonDifferentiable()
      .SetAttrsPerCall();
  return true;
}();

// ------------------------------------------------------------ multi-tensor AdamW and LAMB

// The inputs of each weight: weight_i, grad_i, mean_i, var_i[, weight32_i].
int Stride(bool mixed) { return mixed ? 5 : 4; }

int64_t NumWeights(const NodeAttrs& attrs, bool lamb) {
  if (attrs.parsed) {
    return lamb ? Param<MultiLambParam>(attrs).num_tensors : Param<AdamWParam>(attrs).num_weights;
  }
  return lamb ? CountOf(attrs, "num_tensors", 1, kMaxLambTensors)
              : CountOf(attrs, "num_weights", 1, kMaxAdamWWeights);
}

// MXNet 1.9.1's FListInputNames of these ops repeats one name per weight
// ("weight_0" for every input of weight 0, reading past its name table for
// larger counts): here each input has its own name, rescale_grad last.
std::vector<std::string> MultiInputNames(const NodeAttrs& attrs, bool mixed, bool lamb) {
  std::vector<std::string> names;
  for (int64_t i = 0; i < NumWeights(attrs, lamb); ++i) {
    for (const char* base : {"weight_", "grad_", "mean_", "var_"}) {
      names.push_back(absl::StrCat(base, i));
    }
    if (mixed) names.push_back(absl::StrCat("weight32_", i));
  }
  if (!lamb) names.push_back("rescale_grad");
  return names;
}

// A float tuple with one value per weight.
std::vector<float> PerWeight(ParamReader* r, const char* key, int64_t n, const char* count_key) {
  std::vector<float> v;
  for (double x : r->FloatTuple(key)) v.push_back(F32(x));
  if (static_cast<int64_t>(v.size()) != n) {
    r->Fail(key, absl::StrCat("must hold ", count_key, " (", n, ") values, not ", v.size()));
  }
  return v;
}

// A multi-tensor op's count (num_weights, num_tensors): MXNet's kernels hold
// at most `most` and do not check.
int64_t TensorCount(ParamReader* r, const char* key, int64_t most, const char* what) {
  const int64_t n = r->Int(key, 1);
  if (n < 1 || n > most) {
    r->Fail(key, absl::StrCat("must be in [1, ", most, "] (MXNet's multi-tensor ", what,
                              " takes at most ", most, " a call)"));
  }
  return n;
}

absl::StatusOr<OpParamPtr> ParseMultiAdamW(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<AdamWParam>();
  p->num_weights = TensorCount(&r, "num_weights", kMaxAdamWWeights, "AdamW");
  p->lrs = PerWeight(&r, "lrs", p->num_weights, "num_weights");
  p->beta1 = F32(r.Float("beta1", 0.9));
  p->beta2 = F32(r.Float("beta2", 0.999));
  p->epsilon = F32(r.Float("epsilon", 1e-8));
  p->wds = PerWeight(&r, "wds", p->num_weights, "num_weights");
  p->etas = PerWeight(&r, "etas", p->num_weights, "num_weights");
  p->clip_gradient = F32(r.Float("clip_gradient", -1.0));
  return r.Finish(std::move(p));
}

absl::StatusOr<OpParamPtr> ParseMultiLamb(const AttrMap& attrs) {
  ParamReader r(attrs);
  auto p = std::make_shared<MultiLambParam>();
  p->num_tensors = TensorCount(&r, "num_tensors", kMaxLambTensors, "LAMB");
  p->learning_rates = PerWeight(&r, "learning_rates", p->num_tensors, "num_tensors");
  p->beta1 = F32(r.Float("beta1", 0.9));
  p->beta2 = F32(r.Float("beta2", 0.999));
  p->epsilon = F32(r.Float("epsilon", 1e-6));
  p->wds = PerWeight(&r, "wds", p->num_tensors, "num_tensors");
  p->rescale_grad = F32(r.Float("rescale_grad", 1.0));
  p->lower_bound = F32(r.Float("lower_bound", -1.0));
  p->upper_bound = F32(r.Float("upper_bound", -1.0));
  p->clip_gradient = F32(r.Float("clip_gradient", -1.0));
  p->bias_correction = r.Bool("bias_correction", true);
  p->step_count = r.Tuple("step_count");
  if (static_cast<int64_t>(p->step_count.size()) != p->num_tensors) {
    r.Fail("step_count", absl::StrCat("must hold num_tensors (", p->num_tensors, ") values, not ",
                                      p->step_count.size()));
  }
  return r.Finish(std::move(p));
}

// Each weight's inputs and its output have one shape (MXNet checks them on
// copies and never fills the output's, so its callers must pass out=; here
// the outputs are inferred). rescale_grad: any shape, (1,) when unknown.
absl::Status InferMultiShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                             std::vector<Shape>* out, bool mixed, bool lamb) {
  const int stride = Stride(mixed);
  for (int64_t i = 0; i < NumWeights(attrs, lamb); ++i) {
    std::vector<Shape> group(in->begin() + i * stride, in->begin() + (i + 1) * stride);
    std::vector<Shape> one = {(*out)[i]};
    SYMX_RETURN_IF_ERROR(InferSameShape(&group, &one));
    std::copy(group.begin(), group.end(), in->begin() + i * stride);
    (*out)[i] = one[0];
  }
  if (!lamb && !in->back().ndim_known()) (*in)[in->size() - 1] = Shape{1};
  return absl::OkStatus();
}

// Every weight_i, grad_i and output i share one dtype (the kernel takes
// weight_0's for all, as MXNet's one-dtype rule); the states are float32 in
// the mp_ forms, else that dtype too. rescale_grad: MXNet ties it to the
// weights' dtype (its Python wrapper's float32 array then fails for float16
// weights); here any float dtype is read, float32 when unknown.
absl::Status InferMultiType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out,
                            bool mixed, bool lamb) {
  const int stride = Stride(mixed);
  const int num_low = mixed ? 2 : stride;
  const int64_t n = NumWeights(attrs, lamb);
  const std::vector<std::string> names = MultiInputNames(attrs, mixed, lamb);
  DType low = DType::kUnknown;
  for (int64_t i = 0; i < n && low == DType::kUnknown; ++i) {
    if ((*out)[i] != DType::kUnknown) low = (*out)[i];
    for (int k = 0; k < num_low; ++k) {
      if ((*in)[i * stride + k] != DType::kUnknown) low = (*in)[i * stride + k];
    }
  }
  for (int64_t i = 0; i < n; ++i) {
    for (int k = 0; k < stride; ++k) {
      const DType want = k < num_low ? low : DType::kFloat32;
      if (want == DType::kUnknown) continue;
      SYMX_RETURN_IF_ERROR(AssignType(in, i * stride + k, want, "input " + names[i * stride + k]));
    }
    if (low != DType::kUnknown) {
      SYMX_RETURN_IF_ERROR(AssignType(out, i, low, absl::StrCat("output ", i)));
    }
  }
  if (!lamb && in->back() == DType::kUnknown) in->back() = DType::kFloat32;
  return absl::OkStatus();
}

void RegisterMulti(const char* name, bool mixed, bool lamb, const char* describe) {
  OpRegistry::Global()
      .Register(name)
      .Describe(describe)
      .SetParse(lamb ? ParseMultiLamb : ParseMultiAdamW)
      .SetInputNames(
          [mixed, lamb](const NodeAttrs& attrs) { return MultiInputNames(attrs, mixed, lamb); })
      .SetOutputNames([lamb](const NodeAttrs& attrs) {
        std::vector<std::string> names;
        for (int64_t i = 0; i < NumWeights(attrs, lamb); ++i) {
          names.push_back(absl::StrCat("output", i));
        }
        return names;
      })
      .SetAuxInputs([mixed, lamb](const NodeAttrs& attrs) {
        std::vector<int> aux;
        const int stride = Stride(mixed);
        for (int64_t i = 0; i < NumWeights(attrs, lamb); ++i) {
          for (int k = 2; k < stride; ++k) aux.push_back(static_cast<int>(i * stride + k));
        }
        return aux;
      })
      .SetInferShape(
          [mixed, lamb](const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
            return InferMultiShape(attrs, in, out, mixed, lamb);
          })
      .SetInferType(
          [mixed, lamb](const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
            return InferMultiType(attrs, in, out, mixed, lamb);
          })
      .SetInplace([mixed, lamb](const NodeAttrs& attrs) {
        std::vector<std::pair<int, int>> pairs;
        for (int64_t i = 0; i < NumWeights(attrs, lamb); ++i) {
          pairs.emplace_back(static_cast<int>(i * Stride(mixed)), static_cast<int>(i));
        }
        return pairs;
      })
      .SetNonDifferentiable()
      .SetAttrsPerCall({lamb ? "num_tensors" : "num_weights"});
}

[[maybe_unused]] const bool multi_registered = [] {
  RegisterMulti("_multi_adamw_update", false, false,
                "_adamw_update on num_weights weights with their lrs, wds and etas; one "
                "rescale_grad array, last");
  RegisterMulti("_multi_mp_adamw_update", true, false,
                "_multi_adamw_update on the float32 master copies weight32_i");
  RegisterMulti("_multi_lamb_update", false, true,
                "LAMB on num_tensors weights: Adam's direction (bias-corrected at step_count) plus "
                "wds * weight, scaled by |weight| / |direction| and learning_rates");
  RegisterMulti("_multi_mp_lamb_update", true, true,
                "_multi_lamb_update on the float32 master copies weight32_i (the trust ratio's "
                "|weight| from the float16 weights, as MXNet)");
  return true;
}();

}  // namespace
}  // namespace symx
