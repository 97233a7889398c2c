#include "train/optimizer.h"

#include <algorithm>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/error.h"
#include "train/nd.h"
#include "train/optimizer_family.h"
#include "train/spec.h"

namespace symx::train {
namespace {

[[noreturn]] void Fail(const std::string& message) {
  throw Error(absl::InvalidArgumentError(message));
}

bool IsFloat(DType d) {
  return d == DType::kFloat32 || d == DType::kFloat64 || d == DType::kFloat16 ||
         d == DType::kBFloat16;
}

std::vector<internal::OptimizerEntry> AllOptimizers() {
  std::vector<internal::OptimizerEntry> all = internal::SgdFamily();
  for (const internal::OptimizerEntry& e : internal::AdaptiveFamily()) all.push_back(e);
  return all;
}

}  // namespace

namespace internal {

size_t AggregationSize(const OptimizerOptions& options, size_t fallback, size_t most) {
  int64_t n = options.aggregate_num.value_or(static_cast<int64_t>(fallback));
  if (most > 0) n = std::clamp<int64_t>(n, 1, static_cast<int64_t>(most));
  return n < 0 ? 0 : static_cast<size_t>(n);
}

}  // namespace internal

Optimizer::Optimizer(std::string name, const OptimizerOptions& options, double default_lr)
    : options_(options),
      lr_(options.lr.value_or(default_lr)),
      name_(std::move(name)),
      num_update_(options.begin_num_update) {}

int64_t Optimizer::update_count(int index) const {
  auto it = counts_.find(index);
  return it == counts_.end() ? 0 : it->second - options_.begin_num_update;
}

std::string Optimizer::index_name(int index) const {
  auto it = names_.find(index);
  return it == names_.end() ? std::to_string(index) : it->second;
}

double Optimizer::learning_rate() {
  return options_.lr_scheduler ? (*options_.lr_scheduler)(num_update_) : lr_;
}

void Optimizer::set_learning_rate(double lr) {
  if (options_.lr_scheduler) {
    Fail(
        absl::StrCat(name_, ": the lr schedule sets the rate; set_learning_rate would be ignored"));
  }
  lr_ = lr;
}

std::vector<Tensor> Optimizer::state(int index) const {
  auto it = slots_.find(index);
  return it == slots_.end() ? std::vector<Tensor>() : it->second.state;
}

Tensor Optimizer::master_copy(int index) const {
  auto it = slots_.find(index);
  return it == slots_.end() ? Tensor() : it->second.master;
}

void Optimizer::CheckPair(int index, const Tensor& weight, const Tensor& grad) const {
  const std::string where =
      absl::StrCat(name_, " update of index ", index, " (", index_name(index), ")");
  if (!weight.defined() || !grad.defined()) Fail(where + ": undefined weight or gradient");
  if (weight.shape() != grad.shape()) {
    Fail(absl::StrCat(where, ": weight shape ", weight.shape().ToString(),
                      " differs from gradient shape ", grad.shape().ToString()));
  }
  if (weight.dtype() != grad.dtype()) {
    Fail(absl::StrCat(where, ": weight dtype ", DTypeName(weight.dtype()),
                      " differs from gradient dtype ", DTypeName(grad.dtype())));
  }
  if (!IsFloat(weight.dtype())) {
    Fail(absl::StrCat(where, ": dtype ", DTypeName(weight.dtype()),
                      " is not a floating-point type"));
  }
  if (weight.ctx() != grad.ctx()) {
    Fail(absl::StrCat(where, ": weight on ", weight.ctx().ToString(), " but gradient on ",
                      grad.ctx().ToString()));
  }
}

void Optimizer::Count(int index) {
  auto it = counts_.find(index);
  if (it == counts_.end()) it = counts_.emplace(index, options_.begin_num_update).first;
  ++it->second;
  num_update_ = std::max(num_update_, it->second);
}

std::vector<Optimizer::Rates> Optimizer::GroupRates(const std::vector<int>& indices) {
  const double lr = learning_rate();
  std::vector<Rates> rates;
  for (int i : indices) {
    auto lm = lr_mult_.find(i);
    auto wm = wd_mult_.find(i);
    double wd_mult = 1.0;
    if (wm != wd_mult_.end()) {
      wd_mult = wm->second;
    } else if (auto n = names_.find(i); n != names_.end() && !DecaysByName(n->second)) {
      wd_mult = 0.0;
    }
    rates.push_back(
        {lr * (lm == lr_mult_.end() ? 1.0 : lm->second), options_.wd * wd_mult, counts_.at(i)});
  }
  return rates;
}

bool Optimizer::DecaysByName(const std::string& name) const {
  return absl::EndsWith(name, "_weight") || absl::EndsWith(name, "_gamma");
}

bool Optimizer::UsesMasterCopy(const Tensor& weight) const {
  return options_.multi_precision &&
         (weight.dtype() == DType::kFloat16 || weight.dtype() == DType::kBFloat16);
}

Optimizer::Slot& Optimizer::SlotFor(int index, const Tensor& weight) {
  Slot& slot = slots_[index];
  if (!slot.made) {
    if (UsesMasterCopy(weight)) {
      slot.master = nd::Cast(weight, DType::kFloat32);
      slot.state = CreateState(slot.master);
    } else {
      slot.state = CreateState(weight);
    }
    slot.made = true;
  }
  return slot;
}

void Optimizer::AddClip(AttrMap& attrs, const char* key) const {
  if (options_.clip_gradient && *options_.clip_gradient != 0) {
    attrs[key] = nd::Num(*options_.clip_gradient);
  }
}

AttrMap Optimizer::UpdateAttrs(const Rates& r) const {
  AttrMap a = {{"lr", nd::Num(r.lr)},
               {"wd", nd::Num(r.wd)},
               {"rescale_grad", nd::Num(options_.rescale_grad)}};
  AddClip(a);
  return a;
}

Tensor Optimizer::RescaledGradient(const Tensor& grad) const {
  Tensor g = nd::MulScalar(grad, options_.rescale_grad);
  if (options_.clip_gradient) g = nd::Clip(g, -*options_.clip_gradient, *options_.clip_gradient);
  return g;
}

std::vector<Tensor> Optimizer::ZeroStates(const Tensor& w, int n) {
  std::vector<Tensor> s;
  for (int i = 0; i < n; ++i) s.push_back(nd::ZerosLike(w));
  return s;
}

void Optimizer::StepMultiPrecision(int, const Tensor&, const Tensor&, std::vector<Tensor>&,
                                   const Tensor&, const Rates&) {
  Fail(absl::StrCat(name_, " has no fused multi-precision step"));
}

void Optimizer::StepGroup(const std::vector<int>&, const std::vector<Tensor>&,
                          const std::vector<Tensor>&, bool) {
  Fail(absl::StrCat(name_, " does not aggregate updates"));
}

void Optimizer::Update(int index, const Tensor& weight, const Tensor& grad) {
  Update(std::vector<int>{index}, std::vector<Tensor>{weight}, std::vector<Tensor>{grad});
}

void Optimizer::Update(const std::vector<int>& indices, const std::vector<Tensor>& weights,
                       const std::vector<Tensor>& grads) {
  if (weights.size() != indices.size() || grads.size() != indices.size()) {
    Fail(absl::StrCat(name_, " update: ", indices.size(), " indices, ", weights.size(),
                      " weights and ", grads.size(), " gradients"));
  }
  for (size_t k = 0; k < indices.size(); ++k) CheckPair(indices[k], weights[k], grads[k]);
  const size_t chunk = aggregate_num();
  // One at a time: an optimizer that does not aggregate, and a master copy
  // no fused operator takes (bfloat16).
  auto one_by_one = [&](size_t k) {
    const int i = indices[k];
    Count(i);
    const Rates rates = GroupRates({i})[0];
    Slot& slot = SlotFor(i, weights[k]);
    if (!UsesMasterCopy(weights[k])) {
      Step(i, weights[k], grads[k], slot.state, rates);
    } else if (Fused(weights[k])) {
      StepMultiPrecision(i, weights[k], grads[k], slot.state, slot.master, rates);
    } else {
      Step(i, slot.master, nd::Cast(grads[k], DType::kFloat32), slot.state, rates);
      nd::Assign(weights[k], nd::Cast(slot.master, weights[k].dtype()));
    }
  };
  if (chunk == 0) {
    for (size_t k = 0; k < indices.size(); ++k) one_by_one(k);
    return;
  }
  // As MXNet's Updater: weights of one dtype and device together, in
  // chunks of aggregate_num, each counted and then stepped as one.
  std::vector<std::pair<DType, Context>> kinds;
  std::vector<std::vector<size_t>> groups;
  for (size_t k = 0; k < indices.size(); ++k) {
    const std::pair<DType, Context> kind{weights[k].dtype(), weights[k].ctx()};
    auto it = std::find(kinds.begin(), kinds.end(), kind);
    if (it == kinds.end()) {
      kinds.push_back(kind);
      groups.emplace_back();
      it = kinds.end() - 1;
    }
    groups[it - kinds.begin()].push_back(k);
  }
  for (const std::vector<size_t>& group : groups) {
    if (UsesMasterCopy(weights[group[0]]) && !Fused(weights[group[0]])) {
      for (size_t k : group) one_by_one(k);
      continue;
    }
    for (size_t start = 0; start < group.size(); start += chunk) {
      std::vector<int> ids;
      std::vector<Tensor> ws, gs;
      for (size_t k = start; k < std::min(group.size(), start + chunk); ++k) {
        ids.push_back(indices[group[k]]);
        ws.push_back(weights[group[k]]);
        gs.push_back(grads[group[k]]);
      }
      for (int i : ids) Count(i);
      for (size_t k = 0; k < ids.size(); ++k) SlotFor(ids[k], ws[k]);
      StepGroup(ids, ws, gs, UsesMasterCopy(ws[0]));
    }
  }
}

std::string Optimizer::Describe() const {
  std::string s = absl::StrCat(name_, "(");
  if (options_.lr_scheduler) {
    absl::StrAppend(&s, "lr ", options_.lr_scheduler->Describe());
  } else {
    absl::StrAppend(&s, "lr ", lr_);
  }
  const std::string settings = DescribeSettings();
  if (!settings.empty()) absl::StrAppend(&s, ", ", settings);
  absl::StrAppend(&s, ", wd ", options_.wd);
  if (options_.clip_gradient) absl::StrAppend(&s, ", clip_gradient ", *options_.clip_gradient);
  if (options_.multi_precision) absl::StrAppend(&s, ", multi_precision");
  return s + ")";
}

std::unique_ptr<Optimizer> CreateOptimizer(const std::string& text,
                                           const OptimizerOptions& defaults) {
  const Spec spec = ParseSpec(text, "--optimizer");
  SpecReader r(spec, absl::StrCat("optimizer '", spec.name, "'"));
  OptimizerOptions o = defaults;
  if (auto v = r.Double("learning_rate")) o.lr = *v;
  if (auto v = r.Double("wd")) o.wd = *v;
  if (auto v = r.Double("rescale_grad")) o.rescale_grad = *v;
  if (auto v = r.Double("clip_gradient")) o.clip_gradient = *v;
  if (auto v = r.Bool("multi_precision")) o.multi_precision = *v;
  if (auto v = r.Int("begin_num_update")) o.begin_num_update = *v;
  if (auto v = r.Int("aggregate_num")) o.aggregate_num = *v;
  if (o.lr && !(*o.lr >= 0)) r.Fail("learning_rate", "must not be negative");
  if (!(o.wd >= 0)) r.Fail("wd", "must not be negative");
  if (o.begin_num_update < 0) r.Fail("begin_num_update", "must not be negative");
  for (const internal::OptimizerEntry& e : AllOptimizers()) {
    if (spec.name == e.name) {
      std::unique_ptr<Optimizer> opt = e.make(r, o);
      r.Finish();
      return opt;
    }
  }
  Fail(absl::StrCat("unknown optimizer '", spec.name,
                    "' (known: ", absl::StrJoin(OptimizerNames(), ", "), ")"));
}

std::vector<std::string> OptimizerNames() {
  std::vector<std::string> names;
  for (const internal::OptimizerEntry& e : AllOptimizers()) names.push_back(e.name);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace symx::train
