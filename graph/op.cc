#include "graph/op.h"

#include <algorithm>
#include <cstdlib>
#include <iostream>

#include "absl/strings/str_cat.h"

namespace symx {
namespace {

// Every input and output takes the dtype of the first known one.
absl::Status SameTypeEverywhere(const NodeAttrs& attrs, std::vector<DType>* in,
                                std::vector<DType>* out) {
  DType known = DType::kUnknown;
  for (DType t : *in) {
    if (t != DType::kUnknown) {
      known = t;
      break;
    }
  }
  if (known == DType::kUnknown) {
    for (DType t : *out) {
      if (t != DType::kUnknown) {
        known = t;
        break;
      }
    }
  }
  if (known == DType::kUnknown) return absl::OkStatus();
  auto assign = [&](std::vector<DType>* v, const char* what) -> absl::Status {
    for (size_t i = 0; i < v->size(); ++i) {
      if ((*v)[i] == DType::kUnknown) {
        (*v)[i] = known;
      } else if ((*v)[i] != known) {
        return absl::InvalidArgumentError(absl::StrCat("Type inconsistent for ", what, " ", i,
                                                       ", Provided = ", DTypeName((*v)[i]),
                                                       ", inferred type = ", DTypeName(known)));
      }
    }
    return absl::OkStatus();
  };
  SYMX_RETURN_IF_ERROR(assign(in, "input"));
  return assign(out, "output");
}

// Edit distance, for "did you mean" in unknown-op errors.
size_t Distance(absl::string_view a, absl::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      bool same = std::tolower(a[i - 1]) == std::tolower(b[j - 1]);
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (same ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

}  // namespace

Op::Op(std::string name, std::string source_file)
    : name_(std::move(name)),
      source_file_(std::move(source_file)),
      parse_(ParseNoParams),
      input_names_([](const NodeAttrs&) { return std::vector<std::string>{"data"}; }),
      output_names_([](const NodeAttrs&) { return std::vector<std::string>{"output"}; }),
      aux_inputs_([](const NodeAttrs&) { return std::vector<int>{}; }),
      infer_type_(SameTypeEverywhere),
      inplace_([](const NodeAttrs&) { return std::vector<std::pair<int, int>>{}; }) {}

std::vector<std::string> Op::InputNames(const NodeAttrs& attrs) const {
  return input_names_(attrs);
}
std::vector<std::string> Op::OutputNames(const NodeAttrs& attrs) const {
  return output_names_(attrs);
}
int Op::NumInputs(const NodeAttrs& attrs) const {
  return static_cast<int>(input_names_(attrs).size());
}
int Op::NumOutputs(const NodeAttrs& attrs) const {
  return static_cast<int>(output_names_(attrs).size());
}
int Op::NumVisibleOutputs(const NodeAttrs& attrs) const {
  return num_visible_outputs_ ? num_visible_outputs_(attrs) : NumOutputs(attrs);
}
std::vector<int> Op::AuxInputs(const NodeAttrs& attrs) const { return aux_inputs_(attrs); }

Op& Op::Describe(std::string text) {
  description_ = std::move(text);
  return *this;
}
Op& Op::AddAlias(std::string alias) {
  OpRegistry::Global().AddAlias(alias, this);
  aliases_.push_back(std::move(alias));
  return *this;
}
Op& Op::SetParse(ParseFn fn) {
  parse_ = std::move(fn);
  return *this;
}
Op& Op::SetInputNames(std::vector<std::string> names) {
  input_names_ = [names](const NodeAttrs&) { return names; };
  return *this;
}
Op& Op::SetInputNames(NamesFn fn) {
  input_names_ = std::move(fn);
  return *this;
}
Op& Op::SetOutputNames(std::vector<std::string> names) {
  output_names_ = [names](const NodeAttrs&) { return names; };
  return *this;
}
Op& Op::SetOutputNames(NamesFn fn) {
  output_names_ = std::move(fn);
  return *this;
}
Op& Op::SetNumVisibleOutputs(CountFn fn) {
  num_visible_outputs_ = std::move(fn);
  return *this;
}
Op& Op::SetAuxInputs(IndicesFn fn) {
  aux_inputs_ = std::move(fn);
  return *this;
}
Op& Op::SetVariadic(std::string count_key) {
  variadic_key_ = std::move(count_key);
  return *this;
}
Op& Op::SetInputVarAttrs(InputVarAttrsFn fn) {
  input_var_attrs_ = std::move(fn);
  return *this;
}
Op& Op::SetInferShape(InferShapeFn fn) {
  infer_shape_ = std::move(fn);
  return *this;
}
Op& Op::SetInferType(InferTypeFn fn) {
  infer_type_ = std::move(fn);
  return *this;
}
Op& Op::SetGradient(GradientFn fn) {
  gradient_ = std::move(fn);
  return *this;
}
Op& Op::SetInferenceOnly() {
  inference_only_ = true;
  return *this;
}

Op& Op::SetNonDifferentiable() {
  non_differentiable_ = true;
  return *this;
}
Op& Op::SetSubgraphs(int count, SubgraphCheckFn check) {
  num_subgraphs_ = count;
  check_subgraphs_ = std::move(check);
  return *this;
}
Op& Op::SetInplace(InplaceFn fn) {
  inplace_ = std::move(fn);
  return *this;
}
Op& Op::SetInplace(std::vector<std::pair<int, int>> pairs) {
  inplace_ = [pairs](const NodeAttrs&) { return pairs; };
  return *this;
}
Op& Op::SetLoss() {
  is_loss_ = true;
  return *this;
}
Op& Op::SetBackward() {
  is_backward_ = true;
  return *this;
}
Op& Op::SetPrecisionClass(PrecisionClass c) {
  precision_class_ = c;
  return *this;
}
Op& Op::SetIndexInputs(std::vector<int> inputs) {
  index_inputs_ = std::move(inputs);
  return *this;
}
Op& Op::SetAttrsPerCall(std::vector<std::string> keyed_by_value) {
  attrs_per_call_ = true;
  attrs_keyed_by_value_ = std::move(keyed_by_value);
  return *this;
}

Op& Op::SetValueDependentShape(std::vector<int> value_inputs, ValueShapeFn fn) {
  value_inputs_ = std::move(value_inputs);
  value_shape_ = std::move(fn);
  return *this;
}

Op& Op::SetLayoutAgnostic() {
  layout_agnostic_ = true;
  return *this;
}
bool Op::IsIndexInput(int i) const {
  return std::find(index_inputs_.begin(), index_inputs_.end(), i) != index_inputs_.end();
}

OpRegistry& OpRegistry::Global() {
  static OpRegistry* registry = new OpRegistry();
  return *registry;
}

Op& OpRegistry::Register(const std::string& name, const char* file) {
  if (by_name_.count(name)) {
    // Two registrations of one name is a build mistake, found at startup.
    std::cerr << "symx: op '" << name << "' registered twice\n";
    std::abort();
  }
  ops_.push_back(std::make_unique<Op>(name, file));
  by_name_[name] = ops_.back().get();
  return *ops_.back();
}

void OpRegistry::AddAlias(const std::string& alias, const Op* op) {
  if (by_name_.count(alias)) {
    std::cerr << "symx: op alias '" << alias << "' registered twice\n";
    std::abort();
  }
  by_name_[alias] = op;
}

const Op* OpRegistry::Find(absl::string_view name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

absl::StatusOr<const Op*> OpRegistry::Lookup(absl::string_view name) const {
  if (const Op* op = Find(name)) return op;
  std::string best;
  size_t best_distance = 4;
  for (const auto& [key, op] : by_name_) {
    if (key.empty() || key[0] == '_') continue;  // internal names are not suggested
    size_t d = Distance(name, key);
    if (d < best_distance) {
      best_distance = d;
      best = key;
    }
  }
  std::string hint = best.empty() ? "" : absl::StrCat(" (did you mean '", best, "'?)");
  return absl::NotFoundError(absl::StrCat("unknown op '", name, "'", hint));
}

std::vector<const Op*> OpRegistry::List() const {
  std::vector<const Op*> out;
  for (const auto& op : ops_) out.push_back(op.get());
  std::sort(out.begin(), out.end(), [](const Op* a, const Op* b) { return a->name() < b->name(); });
  return out;
}

}  // namespace symx
