#include "tools/symx/bound_model.h"

#include <algorithm>
#include <random>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "devices/npy.h"
#include "devices/params_io.h"
#include "graph/dtype.h"
#include "graph/error.h"
#include "graph/node.h"
#include "graph/op.h"
#include "tools/symx/command.h"
#include "train/mixed_precision.h"

namespace symx::cli {
namespace {

[[noreturn]] void Fail(const std::string& message) {
  throw Error(absl::InvalidArgumentError(message));
}

bool Contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// A short list of names for messages.
std::string NameList(const std::vector<std::string>& names) {
  constexpr size_t kMax = 12;
  std::vector<std::string> head(names.begin(), names.begin() + std::min(names.size(), kMax));
  std::string out = absl::StrJoin(head, ", ");
  if (names.size() > kMax) absl::StrAppend(&out, ", ... (", names.size(), " in all)");
  return out;
}

uint64_t NameHash(const std::string& name) {
  uint64_t h = 1469598103934665603ULL;  // FNV-1a
  for (unsigned char c : name) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

bool TrueAttr(const AttrMap& dict, const std::string& key) {
  auto it = dict.find(key);
  return it != dict.end() && (it->second == "True" || it->second == "true" || it->second == "1");
}

struct Params {
  std::map<std::string, Tensor> arg, aux;
};

Params LoadParamsFor(const std::string& path, const std::vector<std::string>& args,
                     const std::vector<std::string>& aux) {
  NamedTensors nt = ValueOrThrow(LoadParams(path));
  // mx.nd.save(f, {}) writes the same bytes as an empty list: no parameters.
  if (nt.tensors.empty()) return Params{};
  if (!nt.is_dict()) {
    Fail(absl::StrCat(
        path, ": holds a list of ", nt.tensors.size(),
        " unnamed arrays; parameters must be a dict (arg:NAME/aux:NAME or NAME keys)"));
  }
  Params p;
  for (size_t i = 0; i < nt.names.size(); ++i) {
    const std::string& key = nt.names[i];
    std::string name = key;
    bool want_arg = true, want_aux = true;
    if (absl::StartsWith(key, "arg:")) {
      name = key.substr(4);
      want_aux = false;
    } else if (absl::StartsWith(key, "aux:")) {
      name = key.substr(4);
      want_arg = false;
    }
    const bool is_arg = want_arg && Contains(args, name);
    const bool is_aux = !is_arg && want_aux && Contains(aux, name);
    if (!is_arg && !is_aux) {
      if (want_arg && !want_aux) {
        Fail(absl::StrCat(path, ": key '", key,
                          "' names no argument of the model (arguments: ", NameList(args), ")"));
      }
      if (want_aux && !want_arg) {
        Fail(absl::StrCat(path, ": key '", key,
                          "' names no auxiliary state of the model (auxiliary states: ",
                          aux.empty() ? "none" : NameList(aux), ")"));
      }
      Fail(absl::StrCat(path, ": key '", key,
                        "' is neither an argument nor an auxiliary state of the model "
                        "(arguments: ",
                        NameList(args), ")"));
    }
    if (!nt.tensors[i].defined()) Fail(absl::StrCat(path, ": key '", key, "' holds no array"));
    std::map<std::string, Tensor>& dst = is_arg ? p.arg : p.aux;
    if (!dst.emplace(name, nt.tensors[i]).second) {
      Fail(absl::StrCat(path, ": '", name, "' is given twice"));
    }
  }
  return p;
}

// Integer-valued inputs: variable name -> exclusive upper bound.
std::map<std::string, int64_t> IntegerInputs(const Symbol& symbol,
                                             const std::map<std::string, Shape>& shapes) {
  std::map<std::string, int64_t> out;
  Symbol internals = symbol.GetInternals();
  std::vector<Shape> entry_shapes;
  bool inferred = false;
  for (const NodeEntry& e : internals.outputs()) {
    const Node& node = *e.node;
    if (node.is_variable() || e.index != 0) continue;
    const std::string& op = node.op()->name();
    if (op == "SoftmaxOutput" && node.inputs.size() >= 2 && node.inputs[1].node->is_variable()) {
      if (!inferred) {
        entry_shapes = internals.InferShapePartial(shapes).out_shapes;
        inferred = true;
      }
      // The class count: the data shape of the node (its output 0 has it).
      Shape data;
      for (size_t i = 0; i < internals.outputs().size(); ++i) {
        const NodeEntry& o = internals.outputs()[i];
        if (o.node == node.inputs[0].node && o.index == node.inputs[0].index) {
          data = entry_shapes[i];
        }
      }
      if (!data.fully_known() || data.ndim() < 1 || data.Size() == 0) continue;
      int64_t classes;
      if (TrueAttr(node.attrs.dict, "multi_output")) {
        classes = data.ndim() >= 2 ? data[1] : 1;
      } else if (TrueAttr(node.attrs.dict, "preserve_shape")) {
        classes = data[data.ndim() - 1];
      } else {
        classes = data.Size() / data[0];
      }
      out[node.inputs[1].node->name()] = std::max<int64_t>(classes, 1);
    } else if (op == "Embedding" && !node.inputs.empty() && node.inputs[0].node->is_variable()) {
      auto it = node.attrs.dict.find("input_dim");
      int64_t dim;
      if (it != node.attrs.dict.end() && absl::SimpleAtoi(it->second, &dim) && dim > 0) {
        out[node.inputs[0].node->name()] = dim;
      }
    }
  }
  return out;
}

void Fill(const Tensor& arr, const std::string& name, uint64_t seed, double lo, double hi,
          int64_t int_bound) {
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ULL ^ NameHash(name));
  std::vector<double> v(static_cast<size_t>(arr.size()));
  if (int_bound > 0) {
    std::uniform_int_distribution<int64_t> dist(0, int_bound - 1);
    for (double& x : v) x = static_cast<double>(dist(rng));
  } else {
    std::uniform_real_distribution<double> dist(lo, hi);
    for (double& x : v) x = dist(rng);
  }
  ThrowIfError(CopyTensor(Tensor::FromVector(arr.shape(), v, arr.dtype()), arr));
}

// Adds the shape of an array the user gave; a --shape for the same name must
// agree with it (0 dims there are unknown).
void MergeShapeOrFail(std::map<std::string, Shape>* shapes, const std::string& name,
                      const Shape& shape, const std::string& what) {
  auto [it, inserted] = shapes->emplace(name, shape);
  if (inserted) return;
  Shape merged = Shape::FromLegacy(it->second.dims());
  if (!MergeShape(&merged, shape)) {
    Fail(absl::StrCat(what, " gives '", name, "' the shape ", shape.ToString(),
                      ", but --shape gives ", it->second.ToString()));
  }
  it->second = shape;
}

// With --params, every parameter and aux state must come from the file:
// filling a forgotten weight with random numbers would give plausible-looking
// wrong outputs. Inputs are what the user gave (--input, --shape) and labels
// (MXNet's *label arguments), which inference does not read.
// Returns the names --params lacks (aux states marked); fails on any unless
// --allow-missing.
std::vector<std::string> CheckMissingParams(const ModelSpec& spec, const Params& params,
                                            const std::map<std::string, Tensor>& inputs,
                                            const std::vector<std::string>& args,
                                            const std::vector<std::string>& aux) {
  std::vector<std::string> missing;
  for (const std::string& name : args) {
    if (params.arg.count(name) || inputs.count(name) || spec.shapes.count(name) ||
        absl::EndsWith(name, "label")) {
      continue;
    }
    missing.push_back(name);
  }
  for (const std::string& name : aux) {
    if (!params.aux.count(name)) missing.push_back(name + " (aux)");
  }
  if (missing.empty() || spec.allow_missing) return missing;
  Fail(absl::StrCat(spec.params_path, " lacks ", missing.size(), " parameter",
                    missing.size() == 1 ? "" : "s", " the model needs: ", NameList(missing),
                    ". Add them to the file, give inputs with --input/--shape, or pass "
                    "--allow-missing to fill them from the seed"));
}

}  // namespace

void ApplyModelFlags(const ParsedArgs& parsed, const std::string& usage, ModelSpec* spec) {
  if (parsed.positional.size() != 1) {
    throw UsageError(parsed.positional.empty()
                         ? "expected a MODEL-symbol.json argument"
                         : absl::StrCat("expected one MODEL-symbol.json argument, got ",
                                        parsed.positional.size()),
                     usage);
  }
  spec->symbol_path = parsed.positional[0];
  auto usage_if = [&](const absl::Status& s) {
    if (!s.ok()) throw UsageError(std::string(s.message()));
  };
  std::set<std::string> input_names;
  for (const auto& [flag, value] : parsed.values) {
    if (flag == "--shape") {
      auto kv = ParseShapeFlag(value);
      usage_if(kv.status());
      if (!spec->shapes.emplace(kv->first, kv->second).second) {
        throw UsageError(absl::StrCat("--shape given twice for '", kv->first, "'"));
      }
    } else if (flag == "--group2ctx") {
      auto kv = ParseGroup2CtxFlag(value);
      usage_if(kv.status());
      if (!spec->group2ctx.emplace(kv->first, kv->second).second) {
        throw UsageError(absl::StrCat("--group2ctx given twice for group '", kv->first, "'"));
      }
    } else if (flag == "--input") {
      auto kv = ParseNameValueFlag(value, "--input");
      usage_if(kv.status());
      if (!input_names.insert(kv->first).second) {
        throw UsageError(absl::StrCat("--input given twice for '", kv->first, "'"));
      }
      spec->inputs.push_back(*kv);
    }
  }
  if (auto ctx = SingleValue(parsed, "--ctx")) {
    auto c = ParseContext(*ctx);
    usage_if(c.status());
    spec->ctx = *c;
  }
  if (auto p = SingleValue(parsed, "--params")) spec->params_path = *p;
  if (auto d = SingleValue(parsed, "--dtype")) {
    auto dtype = ParseDType(*d);
    usage_if(dtype.status());
    if (spec->shapes.empty()) throw UsageError("--dtype applies to the --shape inputs: give one");
    spec->dtype = *dtype;
  }
  if (auto seed = SingleValue(parsed, "--seed")) {
    spec->seed = static_cast<uint64_t>(ParseIntFlag("--seed", *seed, 0));
  }
  if (auto t = SingleValue(parsed, "--comm-timeout")) {
    spec->comm_timeout = ParseSecondsFlag("--comm-timeout", *t);
  }
  spec->train = HasSwitch(parsed, "--train");
  spec->allow_missing = HasSwitch(parsed, "--allow-missing");
  if (spec->allow_missing && spec->params_path.empty()) {
    throw UsageError("--allow-missing needs --params (without it every parameter is filled)",
                     usage);
  }
}

BoundModel BindModel(const ModelSpec& spec) {
  BoundModel m;
  m.symbol = Symbol::Load(spec.symbol_path);
  if (spec.mixed_precision) {
    m.symbol = train::ToMixedPrecision(
        m.symbol, {*spec.mixed_precision, *spec.mixed_precision == DType::kFloat16});
  }
  const std::vector<std::string> args = m.symbol.ListArguments();
  const std::vector<std::string> aux = m.symbol.ListAuxiliaryStates();

  Params params;
  if (!spec.params_path.empty()) params = LoadParamsFor(spec.params_path, args, aux);

  std::map<std::string, Tensor> inputs;
  for (const auto& [name, path] : spec.inputs) {
    if (!Contains(args, name)) {
      Fail(absl::StrCat("--input ", name, "=", path, ": '", name,
                        "' is not an argument of the model (arguments: ", NameList(args), ")"));
    }
    if (params.arg.count(name)) {
      Fail(absl::StrCat("'", name, "' is given both by --input and in ", spec.params_path));
    }
    inputs[name] = ValueOrThrow(LoadNpy(path));
  }

  // Shapes the user stated (flags and .npy files), then the parameters'.
  std::map<std::string, Shape> shapes = spec.shapes;
  for (const auto& [name, t] : inputs) {
    MergeShapeOrFail(&shapes, name, t.shape(), "--input " + name);
  }
  ShapeInference implied = m.symbol.InferShapePartial(shapes);
  auto check_param = [&](const std::map<std::string, Tensor>& given,
                         const std::vector<std::string>& names, const std::vector<Shape>& want) {
    for (size_t i = 0; i < names.size(); ++i) {
      auto it = given.find(names[i]);
      if (it == given.end()) continue;
      auto flag = spec.shapes.find(names[i]);
      if (flag != spec.shapes.end()) {
        Shape merged = Shape::FromLegacy(flag->second.dims());
        if (!MergeShape(&merged, it->second.shape())) {
          Fail(absl::StrCat(spec.params_path, ": '", names[i], "' has shape ",
                            it->second.shape().ToString(), ", but --shape gives ",
                            flag->second.ToString()));
        }
      }
      if (want[i].fully_known() && want[i] != it->second.shape()) {
        Fail(absl::StrCat(spec.params_path, ": '", names[i], "' has shape ",
                          it->second.shape().ToString(), ", but the model needs ",
                          want[i].ToString(), " for the given input shapes"));
      }
    }
  };
  check_param(params.arg, args, implied.arg_shapes);
  check_param(params.aux, aux, implied.aux_shapes);
  if (!spec.params_path.empty()) {
    m.missing_params = CheckMissingParams(spec, params, inputs, args, aux);
  }
  for (const auto& [name, t] : params.arg) shapes[name] = t.shape();
  for (const auto& [name, t] : params.aux) shapes[name] = t.shape();

  SimpleBindOptions o;
  o.ctx = spec.ctx;
  o.group2ctx = spec.group2ctx;
  o.grad_req = spec.train ? GradReq::kWrite : GradReq::kNull;
  if (spec.train && !spec.input_grads) {
    std::map<std::string, GradReq> reqs;
    for (const std::string& name : args) {
      const bool input = inputs.count(name) || spec.shapes.count(name) ||
                         absl::EndsWith(name, "label") || name == train::kLossScaleName;
      reqs[name] = input ? GradReq::kNull : GradReq::kWrite;
    }
    o.grad_req = reqs;
  }
  o.shapes = shapes;
  std::map<std::string, DType> types;
  if (spec.dtype.has_value()) {
    for (const auto& [name, shape] : spec.shapes) {
      if (!absl::EndsWith(name, "label")) types[name] = *spec.dtype;
    }
    o.type_dict = types;
  }
  o.comm = spec.comm;
  o.comm_timeout = spec.comm_timeout;
  o.engine = spec.engine;
  m.exe = Executor::SimpleBind(m.symbol, o);
  m.output_shapes = m.symbol.InferShapePartial(shapes).out_shapes;
  m.output_types = m.symbol.InferTypePartial(types).out_types;

  // Arrays of other ranks are undefined here; their ranks fill them.
  m.exe->CopyParamsFrom(params.arg, params.aux);
  std::map<std::string, Tensor> arg_arrays = m.exe->arg_dict();
  std::map<std::string, Tensor> aux_arrays = m.exe->aux_dict();
  auto here = [&](const std::map<std::string, Tensor>& arrays, const std::string& name) {
    return arrays.at(name).defined();
  };
  for (const auto& [name, t] : params.arg) {
    if (here(arg_arrays, name)) m.from_params.push_back(name);
  }
  for (const auto& [name, t] : params.aux) {
    if (here(aux_arrays, name)) m.from_params.push_back(name);
  }
  for (const auto& [name, t] : inputs) {
    if (!here(arg_arrays, name)) continue;
    ThrowIfError(CopyTensor(t, arg_arrays.at(name)));
    m.from_inputs.push_back(name);
  }

  std::map<std::string, int64_t> ints = IntegerInputs(m.symbol, shapes);
  for (const std::string& name : args) {
    if (params.arg.count(name) || inputs.count(name) || !here(arg_arrays, name)) continue;
    auto it = ints.find(name);
    Fill(arg_arrays.at(name), name, spec.seed, -1.0, 1.0, it == ints.end() ? 0 : it->second);
    m.filled.push_back(name);
  }
  for (const std::string& name : aux) {
    if (params.aux.count(name) || !here(aux_arrays, name)) continue;
    Fill(aux_arrays.at(name), name, spec.seed, 0.0, 1.0, 0);
    m.filled.push_back(name);
  }
  return m;
}

std::vector<Tensor> OnesHeadGrads(const BoundModel& model) {
  std::vector<Tensor> out;
  for (size_t i = 0; i < model.output_shapes.size(); ++i) {
    const DType dtype =
        model.output_types[i] == DType::kUnknown ? DType::kFloat32 : model.output_types[i];
    Tensor t = ValueOrThrow(Tensor::Empty(model.output_shapes[i], dtype));
    t.Fill(1.0);
    out.push_back(t);
  }
  return out;
}

}  // namespace symx::cli
