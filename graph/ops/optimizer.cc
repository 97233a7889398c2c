// The optimizer family: MXNet 1.9.1's fused update operators, which
// mx.optimizer's optimizers call once per parameter and step:
//   sgd_update, sgd_mom_update, mp_sgd_update, mp_sgd_mom_update,
//   nag_mom_update, mp_nag_mom_update, adam_update, rmsprop_update,
//   rmspropalex_update, ftrl_update, ftml_update, signsgd_update,
//   signum_update, lamb_update_phase1/2, mp_lamb_update_phase1/2.
//
// Facts from MXNet 1.9.1 (src/operator/optimizer_op.cc, -inl.h):
// - The output is the new weight (lamb_update_phase1's: the direction g);
//   callers pass out=weight, which the in-place pair (weight, output) allows.
// - The states (momentum, mean, var, n, z, d, v, delta, the float32 master
//   copy weight32 of the mp_ forms) are inputs the op writes, MXNet's
//   FMutateInputs, which nnvm lists as auxiliary states: here AuxInputs, so
//   list_auxiliary_states names them as MXNet's does. Unlike BatchNorm's
//   moving statistics they are written on every call, training or not.
// - Parameters are float32 fields (lr, wd, ...), rounded so here; lr is
//   required (wd too for lamb_update_phase1, t for ftml and LAMB phase 1).
//   clip_gradient < 0 (default -1) turns clipping off; FTML calls it
//   clip_grad. lazy_update only matters for row_sparse arrays (none here).
// - The mp_ forms take a float16 (or any float) weight and gradient with
//   float32 states and master copy, compute in float32 and write the master
//   copy and the weight's cast.
// - multi_sgd_update, multi_sgd_mom_update, multi_mp_sgd_update,
//   multi_mp_sgd_mom_update and their preloaded_ forms update num_weights
//   weights at once (inputs weight_i, grad_i[, mom_i][, weight32_i], the
//   preloaded_ forms then lrs and wds as float32 arrays; outputs one per
//   weight). MXNet's Python SGD reaches them through get_updater (its
//   aggregate path, even for one weight): their rule is sgd_mom_update's
//   with a zero momentum when there is none, so w + (-lr * wd * w - lr * g),
//   not sgd_update's (1 - lr * wd) * w - lr * g, and the last bit can differ.
// - mp_lamb_update_phase2 writes the master copy weight32 with the new
//   weight: MXNet 1.9.1's kernel declares that write (FMutateInputs) but never
//   makes it, leaving the copy stale; its optimizer reaches the aggregated
//   multi_mp_lamb_update instead, which does write it.
// - No gradient: these are updates, not functions to differentiate.
#include "graph/ops/optimizer.h"

#include <algorithm>
#include <cmath>
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

// Which fields an op's parameter struct has, in MXNet's naming.
enum Field : uint32_t {
  kLr = 1 << 0,
  kWd = 1 << 1,
  kRescale = 1 << 2,
  kClip = 1 << 3,
  kMomentum = 1 << 4,
  kLazy = 1 << 5,
  kAdam = 1 << 6,     // beta1, beta2, epsilon
  kRMSProp = 1 << 7,  // gamma1, epsilon, clip_weights
  kGamma2 = 1 << 8,   // rmspropalex
  kFtrl = 1 << 9,     // lamda1, beta
  kFTML = 1 << 10,    // beta1, beta2, epsilon, t, clip_grad (not clip_gradient)
  kWdLh = 1 << 11,    // signum
  kLamb1 = 1 << 12,   // beta1, beta2, epsilon, t, bias_correction; wd required
  kLamb2 = 1 << 13,   // lower_bound, upper_bound
};

// Float32 as MXNet stores its float parameters.
float F32(double v) { return static_cast<float>(v); }

absl::StatusOr<OpParamPtr> ParseUpdate(const AttrMap& attrs, uint32_t fields) {
  ParamReader r(attrs);
  auto p = std::make_shared<UpdateParam>();
  if (fields & kLr) p->lr = F32(r.Float("lr"));
  if (fields & kLamb1) {
    p->wd = F32(r.Float("wd"));
  } else if (fields & kWd) {
    p->wd = F32(r.Float("wd", 0.0));
  }
  if (fields & kRescale) p->rescale_grad = F32(r.Float("rescale_grad", 1.0));
  if (fields & kClip) p->clip_gradient = F32(r.Float("clip_gradient", -1.0));
  if (fields & kMomentum) p->momentum = F32(r.Float("momentum", 0.0));
  if (fields & kLazy) r.Bool("lazy_update", true);  // dense arrays: no effect
  if (fields & kAdam) {
    p->beta1 = F32(r.Float("beta1", 0.9));
    p->beta2 = F32(r.Float("beta2", 0.999));
    p->epsilon = F32(r.Float("epsilon", 1e-8));
  }
  if (fields & kRMSProp) {
    p->gamma1 = F32(r.Float("gamma1", 0.95));
    p->epsilon = F32(r.Float("epsilon", 1e-8));
    p->clip_weights = F32(r.Float("clip_weights", -1.0));
  }
  if (fields & kGamma2) p->gamma2 = F32(r.Float("gamma2", 0.9));
  if (fields & kFtrl) {
    p->lamda1 = F32(r.Float("lamda1", 0.01));
    p->beta = F32(r.Float("beta", 1.0));
  }
  if (fields & kFTML) {
    p->beta1 = F32(r.Float("beta1", 0.6));
    p->beta2 = F32(r.Float("beta2", 0.999));
    p->epsilon = F32(r.Float("epsilon", 1e-8));
    p->t = r.Int("t");
    p->clip_gradient = F32(r.Float("clip_grad", -1.0));
  }
  if (fields & kWdLh) p->wd_lh = F32(r.Float("wd_lh", 0.0));
  if (fields & kLamb1) {
    p->beta1 = F32(r.Float("beta1", 0.9));
    p->beta2 = F32(r.Float("beta2", 0.999));
    p->epsilon = F32(r.Float("epsilon", 1e-6));
    p->t = r.Int("t");
    p->bias_correction = r.Bool("bias_correction", true);
  }
  if (fields & kLamb2) {
    p->lower_bound = F32(r.Float("lower_bound", -1.0));
    p->upper_bound = F32(r.Float("upper_bound", -1.0));
  }
  if (((fields & kFTML) || (fields & kLamb1)) && p->t < 1) {
    r.Fail("t", "must be >= 1 (the update count, from 1)");
  }
  return r.Finish(std::move(p));
}

// Every input and the output have the weight's shape; LAMB phase 2's r1 and
// r2 (inputs 2 and 3) are one-element norms.
absl::Status InferUpdateShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                              std::vector<Shape>* out) {
  const bool lamb2 =
      attrs.op->name() == "lamb_update_phase2" || attrs.op->name() == "mp_lamb_update_phase2";
  if (!lamb2) return InferSameShape(in, out);
  std::vector<Shape> same = {(*in)[0], (*in)[1]};
  if (in->size() > 4) same.push_back((*in)[4]);
  SYMX_RETURN_IF_ERROR(InferSameShape(&same, out));
  (*in)[0] = same[0];
  (*in)[1] = same[1];
  if (in->size() > 4) (*in)[4] = same[2];
  for (size_t i : {2, 3}) {
    SYMX_RETURN_IF_ERROR(AssignShape(in, i, Shape{1}, i == 2 ? "input r1" : "input r2"));
  }
  return absl::OkStatus();
}

// The mp_ forms: inputs [0, num_low) and the output have the weight's dtype
// (float16 usually); the rest are float32. The others: one dtype everywhere.
absl::Status InferMixedPrecisionType(const NodeAttrs& attrs, std::vector<DType>* in,
                                     std::vector<DType>* out, size_t num_low, bool out_float32) {
  const std::vector<std::string> names = attrs.op->InputNames(attrs);
  DType low = DType::kUnknown;
  for (size_t i = 0; i < num_low; ++i) {
    if ((*in)[i] != DType::kUnknown) low = (*in)[i];
  }
  if (out_float32) {
    SYMX_RETURN_IF_ERROR(AssignType(out, 0, DType::kFloat32, "output"));
  } else if (low == DType::kUnknown && (*out)[0] != DType::kUnknown) {
    low = (*out)[0];
  }
  for (size_t i = num_low; i < in->size(); ++i) {
    SYMX_RETURN_IF_ERROR(AssignType(in, i, DType::kFloat32, "input " + names[i]));
  }
  if (low == DType::kUnknown) return absl::OkStatus();
  for (size_t i = 0; i < num_low; ++i) {
    SYMX_RETURN_IF_ERROR(AssignType(in, i, low, "input " + names[i]));
  }
  return out_float32 ? absl::OkStatus() : AssignType(out, 0, low, "output");
}

struct UpdateOp {
  const char* name;
  const char* describe;
  std::vector<std::string> inputs;
  std::vector<int> aux;  // the state inputs the op writes
  uint32_t fields;
  size_t num_low = 0;        // mp_ forms: how many inputs have the weight's dtype (0: one dtype)
  bool out_float32 = false;  // mp_lamb_update_phase1: its direction is float32
};

Op& RegisterUpdate(const UpdateOp& u, const char* file = __builtin_FILE()) {
  const uint32_t fields = u.fields;
  Op& op = OpRegistry::Global()
               .Register(u.name, file)
               .Describe(u.describe)
               .SetParse([fields](const AttrMap& a) { return ParseUpdate(a, fields); })
               .SetInputNames(u.inputs)
               .SetOutputNames({"output"})
               .SetInferShape(InferUpdateShape)
               .SetInplace({{0, 0}})
               .SetNonDifferentiable()
               .SetAttrsPerCall();
  if (!u.aux.empty()) {
    const std::vector<int> aux = u.aux;
    op.SetAuxInputs([aux](const NodeAttrs&) { return aux; });
  }
  if (u.num_low > 0) {
    const size_t num_low = u.num_low;
    const bool out_float32 = u.out_float32;
    op.SetInferType([num_low, out_float32](const NodeAttrs& attrs, std::vector<DType>* in,
                                           std::vector<DType>* out) {
      return InferMixedPrecisionType(attrs, in, out, num_low, out_float32);
    });
  }
  return op;
}

constexpr uint32_t kSGDFields = kLr | kWd | kRescale | kClip | kLazy;
constexpr uint32_t kSGDMomFields = kSGDFields | kMomentum;
constexpr uint32_t kNAGFields = kLr | kWd | kRescale | kClip | kMomentum;

[[maybe_unused]] const bool registered = [] {
  RegisterUpdate({"sgd_update",
                  "weight = (1 - lr * wd) * weight - lr * clip(rescale_grad * grad)",
                  {"weight", "grad"},
                  {},
                  kSGDFields});
  RegisterUpdate({"sgd_mom_update",
                  "mom = momentum * mom - lr * wd * weight - lr * clip(rescale_grad * grad); "
                  "weight += mom",
                  {"weight", "grad", "mom"},
                  {2},
                  kSGDMomFields});
  RegisterUpdate({"mp_sgd_update",
                  "sgd_update on the float32 master copy weight32",
                  {"weight", "grad", "weight32"},
                  {2},
                  kSGDFields,
                  2});
  RegisterUpdate({"mp_sgd_mom_update",
                  "sgd_mom_update on the float32 master copy weight32",
                  {"weight", "grad", "mom", "weight32"},
                  {2, 3},
                  kSGDMomFields,
                  2});
  RegisterUpdate({"nag_mom_update",
                  "Nesterov momentum: mom *= momentum; weight -= mom - (momentum + 1) * (mom - "
                  "lr * (clip(rescale_grad * grad) + wd * weight)); mom -= lr * (...)",
                  {"weight", "grad", "mom"},
                  {2},
                  kNAGFields});
  RegisterUpdate({"mp_nag_mom_update",
                  "nag_mom_update on the float32 master copy weight32",
                  {"weight", "grad", "mom", "weight32"},
                  {2, 3},
                  kNAGFields,
                  2});
  RegisterUpdate({"adam_update",
                  "g = clip(rescale_grad * grad + wd * weight); mean, var moving averages; "
                  "weight -= lr * mean / (sqrt(var) + epsilon)",
                  {"weight", "grad", "mean", "var"},
                  {2, 3},
                  kSGDFields | kAdam});
  RegisterUpdate({"rmsprop_update",
                  "n = (1 - gamma1) * g^2 + gamma1 * n; weight -= lr * g / sqrt(n + epsilon)",
                  {"weight", "grad", "n"},
                  {2},
                  kLr | kWd | kRescale | kClip | kRMSProp});
  RegisterUpdate({"rmspropalex_update",
                  "Graves' centered RMSProp (n, g, delta)",
                  {"weight", "grad", "n", "g", "delta"},
                  {2, 3, 4},
                  kLr | kWd | kRescale | kClip | kRMSProp | kGamma2});
  RegisterUpdate({"ftrl_update",
                  "FTRL-Proximal (z, n)",
                  {"weight", "grad", "z", "n"},
                  {2, 3},
                  kLr | kWd | kRescale | kClip | kFtrl});
  RegisterUpdate({"ftml_update",
                  "Follow the Moving Leader (d, v, z) at step t",
                  {"weight", "grad", "d", "v", "z"},
                  {2, 3, 4},
                  kLr | kWd | kRescale | kFTML});
  RegisterUpdate({"signsgd_update",
                  "weight = (1 - lr * wd) * weight - lr * sign(grad)",
                  {"weight", "grad"},
                  {},
                  kLr | kWd | kRescale | kClip});
  RegisterUpdate({"signum_update",
                  "mom = momentum * mom - (1 - momentum) * (wd * weight + clip(rescale_grad * "
                  "grad)); weight = (1 - lr * wd_lh) * weight + lr * sign(mom)",
                  {"weight", "grad", "mom"},
                  {2},
                  kLr | kWd | kRescale | kClip | kMomentum | kWdLh});
  RegisterUpdate({"lamb_update_phase1",
                  "LAMB's direction: Adam's moving averages (bias-corrected) plus wd * weight",
                  {"weight", "grad", "mean", "var"},
                  {2, 3},
                  kRescale | kClip | kLamb1});
  RegisterUpdate({"lamb_update_phase2",
                  "weight -= lr * r1 / r2 * g, r1 (|weight|) bounded by lower/upper_bound",
                  {"weight", "g", "r1", "r2"},
                  {},
                  kLr | kLamb2});
  RegisterUpdate({"mp_lamb_update_phase1",
                  "lamb_update_phase1 on the float32 master copy",
                  {"weight", "grad", "mean", "var", "weight32"},
                  {2, 3},  // weight32 is read only (MXNet mutates mean and var)
                  kRescale | kClip | kLamb1,
                  2,
                  true});
  RegisterUpdate({"mp_lamb_update_phase2",
                  "lamb_update_phase2 on the float32 master copy",
                  {"weight", "g", "r1", "r2", "weight32"},
                  {4},
                  kLr | kLamb2,
                  1});
  return true;
}();

// ------------------------------------------------------------ multi_ forms

// More weights than any model has: a bound on the names and slots a typo
// could ask for (num_weights=1e12 must be an error, not an allocation).
constexpr int64_t kMaxWeights = 1 << 20;

absl::StatusOr<OpParamPtr> ParseMultiUpdate(const AttrMap& attrs, const MultiUpdateLayout& l) {
  ParamReader r(attrs);
  auto p = std::make_shared<UpdateParam>();
  p->num_weights = r.Int("num_weights", 1);
  if (p->num_weights < 1 || p->num_weights > kMaxWeights) {
    r.Fail("num_weights", absl::StrCat("must be in [1, ", kMaxWeights, "]"));
  }
  if (!l.preloaded) {
    for (const char* key : {"lrs", "wds"}) {
      std::vector<float>& v = std::string(key) == "lrs" ? p->lrs : p->wds;
      for (double x : r.FloatTuple(key)) v.push_back(F32(x));
      if (static_cast<int64_t>(v.size()) != p->num_weights) {
        r.Fail(key,
               absl::StrCat("must hold num_weights (", p->num_weights, ") values, not ", v.size()));
      }
    }
  }
  p->rescale_grad = F32(r.Float("rescale_grad", 1.0));
  p->clip_gradient = F32(r.Float("clip_gradient", -1.0));
  if (l.momentum) p->momentum = F32(r.Float("momentum", 0.0));
  return r.Finish(std::move(p));
}

// The weight count, also when input names are asked for before the node's
// attributes are parsed (as for Concat's num_args).
int64_t NumWeights(const NodeAttrs& attrs) {
  if (attrs.parsed) return Param<UpdateParam>(attrs).num_weights;
  auto it = attrs.dict.find("num_weights");
  int64_t n = 1;
  if (it != attrs.dict.end() && !absl::SimpleAtoi(it->second, &n)) return 1;
  return n < 1 || n > kMaxWeights ? 1 : n;  // out of range: the parse reports it
}

std::vector<std::string> MultiInputNames(const NodeAttrs& attrs, const MultiUpdateLayout& l) {
  std::vector<std::string> names;
  for (int64_t i = 0; i < NumWeights(attrs); ++i) {
    names.push_back(absl::StrCat("weight_", i));
    names.push_back(absl::StrCat("grad_", i));
    if (l.momentum) names.push_back(absl::StrCat("mom_", i));
    if (l.mixed_precision) names.push_back(absl::StrCat("weight32_", i));
  }
  if (l.preloaded) {
    names.push_back("lrs");
    names.push_back("wds");
  }
  return names;
}

absl::Status InferMultiShape(const NodeAttrs& attrs, std::vector<Shape>* in,
                             std::vector<Shape>* out, const MultiUpdateLayout& l) {
  const int64_t n = NumWeights(attrs);
  const int stride = l.stride();
  for (int64_t i = 0; i < n; ++i) {
    std::vector<Shape> group(in->begin() + i * stride, in->begin() + (i + 1) * stride);
    std::vector<Shape> one = {(*out)[i]};
    SYMX_RETURN_IF_ERROR(InferSameShape(&group, &one));
    std::copy(group.begin(), group.end(), in->begin() + i * stride);
    (*out)[i] = one[0];
  }
  if (l.preloaded) {
    SYMX_RETURN_IF_ERROR(AssignShape(in, n * stride, Shape{n}, "input lrs"));
    SYMX_RETURN_IF_ERROR(AssignShape(in, n * stride + 1, Shape{n}, "input wds"));
  }
  return absl::OkStatus();
}

absl::Status InferMultiType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out,
                            const MultiUpdateLayout& l) {
  const int64_t n = NumWeights(attrs);
  const int stride = l.stride();
  const std::vector<std::string> names = MultiInputNames(attrs, l);
  for (int64_t i = 0; i < n; ++i) {
    // weight_i, grad_i and output i share a dtype; the states are float32
    // in the mp_ forms, else that dtype too.
    const int64_t base = i * stride;
    const int num_low = l.mixed_precision ? 2 : stride;
    DType low = (*out)[i];
    for (int k = 0; k < num_low; ++k) {
      if ((*in)[base + k] != DType::kUnknown) low = (*in)[base + k];
    }
    for (int k = 0; k < stride; ++k) {
      const DType want = k < num_low ? low : DType::kFloat32;
      if (want == DType::kUnknown) continue;
      SYMX_RETURN_IF_ERROR(AssignType(in, base + k, want, "input " + names[base + k]));
    }
    if (low != DType::kUnknown) {
      SYMX_RETURN_IF_ERROR(AssignType(out, i, low, absl::StrCat("output ", i)));
    }
  }
  if (l.preloaded) {
    for (int64_t k : {n * stride, n * stride + 1}) {
      SYMX_RETURN_IF_ERROR(AssignType(in, k, DType::kFloat32, "input " + names[k]));
    }
  }
  return absl::OkStatus();
}

Op& RegisterMultiUpdate(const std::string& name, const char* file = __builtin_FILE()) {
  const MultiUpdateLayout l = MultiUpdateLayoutOf(name);
  return OpRegistry::Global()
      .Register(name, file)
      .Describe(absl::StrCat("Updates num_weights weights at once with sgd",
                             l.momentum ? "_mom" : "", "_update's rule",
                             l.mixed_precision ? " on their float32 master copies" : "",
                             l.preloaded ? "; lrs and wds are input arrays" : ""))
      .SetParse([l](const AttrMap& a) { return ParseMultiUpdate(a, l); })
      .SetInputNames([l](const NodeAttrs& attrs) { return MultiInputNames(attrs, l); })
      .SetOutputNames([](const NodeAttrs& attrs) {
        std::vector<std::string> names;
        for (int64_t i = 0; i < NumWeights(attrs); ++i) names.push_back(absl::StrCat("output", i));
        return names;
      })
      .SetAuxInputs([l](const NodeAttrs& attrs) {
        std::vector<int> aux;
        for (int64_t i = 0; i < NumWeights(attrs); ++i) {
          for (int k = 2; k < l.stride(); ++k) aux.push_back(static_cast<int>(i * l.stride() + k));
        }
        return aux;
      })
      .SetInferShape([l](const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
        return InferMultiShape(attrs, in, out, l);
      })
      .SetInferType([l](const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
        return InferMultiType(attrs, in, out, l);
      })
      .SetInplace([l](const NodeAttrs& attrs) {
        std::vector<std::pair<int, int>> pairs;
        for (int64_t i = 0; i < NumWeights(attrs); ++i) {
          pairs.emplace_back(static_cast<int>(i * l.stride()), static_cast<int>(i));
        }
        return pairs;
      })
      .SetNonDifferentiable()
      .SetAttrsPerCall({"num_weights"});
}

[[maybe_unused]] const bool multi_registered = [] {
  for (const char* name :
       {"multi_sgd_update", "multi_sgd_mom_update", "multi_mp_sgd_update",
        "multi_mp_sgd_mom_update", "preloaded_multi_sgd_update", "preloaded_multi_sgd_mom_update",
        "preloaded_multi_mp_sgd_update", "preloaded_multi_mp_sgd_mom_update"}) {
    RegisterMultiUpdate(name);
  }
  return true;
}();

}  // namespace

MultiUpdateLayout MultiUpdateLayoutOf(const std::string& op_name) {
  MultiUpdateLayout l;
  l.preloaded = op_name.rfind("preloaded_", 0) == 0;
  l.momentum = op_name.find("_mom_") != std::string::npos;
  l.mixed_precision = op_name.find("_mp_") != std::string::npos;
  return l;
}

}  // namespace symx
