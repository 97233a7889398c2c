#include "train/lr_scheduler.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/error.h"
#include "train/spec.h"

namespace symx::train {
namespace {

[[noreturn]] void Fail(const std::string& message) {
  throw Error(absl::InvalidArgumentError(message));
}

}  // namespace

LRScheduler::LRScheduler(double base_lr, const WarmupOptions& warmup)
    : base_lr_(base_lr), warmup_(warmup), warmup_final_lr_(base_lr) {
  if (warmup.steps < 0) Fail(absl::StrCat("warmup_steps must not be negative, got ", warmup.steps));
  if (warmup.begin_lr > base_lr) {
    Fail(absl::StrCat("warmup_begin_lr (", warmup.begin_lr, ") must not exceed base_lr (", base_lr,
                      ")"));
  }
  if (warmup.mode != "linear" && warmup.mode != "constant") {
    Fail(absl::StrCat("warmup_mode must be linear or constant, got '", warmup.mode, "'"));
  }
}

double LRScheduler::WarmupLr(int64_t num_update) const {
  if (warmup_.mode == "constant") return warmup_.begin_lr;
  return warmup_.begin_lr + (warmup_final_lr_ - warmup_.begin_lr) *
                                static_cast<double>(num_update) /
                                static_cast<double>(warmup_.steps);
}

std::string LRScheduler::DescribeWarmup() const {
  if (warmup_.steps == 0) return "";
  return absl::StrCat(", warmup ", warmup_.mode, " from ", warmup_.begin_lr, " over ",
                      warmup_.steps, " updates");
}

FactorScheduler::FactorScheduler(int64_t step, double factor, double stop_factor_lr, double base_lr,
                                 const WarmupOptions& warmup)
    : LRScheduler(base_lr, warmup), step_(step), factor_(factor), stop_factor_lr_(stop_factor_lr) {
  if (step < 1) Fail(absl::StrCat("factor schedule: step must be at least 1, got ", step));
  if (factor > 1.0) Fail(absl::StrCat("factor schedule: factor must be at most 1, got ", factor));
}

double FactorScheduler::operator()(int64_t num_update) {
  if (InWarmup(num_update)) return WarmupLr(num_update);
  while (num_update > count_ + step_) {
    count_ += step_;
    base_lr_ = std::max(base_lr_ * factor_, stop_factor_lr_);
  }
  return base_lr_;
}

std::string FactorScheduler::Describe() const {
  return absl::StrCat("factor(x", factor_, " every ", step_, " updates, from ", warmup_final_lr_,
                      ", floor ", stop_factor_lr_, DescribeWarmup(), ")");
}

MultiFactorScheduler::MultiFactorScheduler(std::vector<int64_t> steps, double factor,
                                           double base_lr, const WarmupOptions& warmup)
    : LRScheduler(base_lr, warmup), steps_(std::move(steps)), factor_(factor) {
  if (steps_.empty()) Fail("multifactor schedule: step must list at least one update count");
  for (size_t i = 0; i < steps_.size(); ++i) {
    if (steps_[i] < 1) Fail(absl::StrCat("multifactor schedule: step ", steps_[i], " is below 1"));
    if (i > 0 && steps_[i] <= steps_[i - 1]) {
      Fail(absl::StrCat("multifactor schedule: steps must increase, got ",
                        absl::StrJoin(steps_, ",")));
    }
  }
  if (factor > 1.0) {
    Fail(absl::StrCat("multifactor schedule: factor must be at most 1, got ", factor));
  }
}

double MultiFactorScheduler::operator()(int64_t num_update) {
  if (InWarmup(num_update)) return WarmupLr(num_update);
  while (next_ < steps_.size() && num_update > steps_[next_]) {
    ++next_;
    base_lr_ *= factor_;
  }
  return base_lr_;
}

std::string MultiFactorScheduler::Describe() const {
  return absl::StrCat("multifactor(x", factor_, " after updates ", absl::StrJoin(steps_, ","),
                      ", from ", warmup_final_lr_, DescribeWarmup(), ")");
}

DecayScheduler::DecayScheduler(Shape shape, int64_t max_update, double base_lr, double final_lr,
                               double pwr, const WarmupOptions& warmup)
    : LRScheduler(base_lr, warmup),
      shape_(shape),
      max_update_(max_update),
      start_lr_(base_lr),
      final_lr_(final_lr),
      pwr_(pwr) {
  const char* name = shape == Shape::kPoly ? "poly" : "cosine";
  if (max_update < 1) {
    Fail(absl::StrCat(name, " schedule: max_update must be at least 1, got ", max_update));
  }
  if (max_update == warmup.steps) {
    // MXNet divides by zero at that update.
    Fail(absl::StrCat(name, " schedule: max_update (", max_update,
                      ") equals warmup_steps: the decay between them would be empty"));
  }
}

double DecayScheduler::operator()(int64_t num_update) {
  if (InWarmup(num_update)) return WarmupLr(num_update);
  if (num_update <= max_update_) {
    const double progress = static_cast<double>(num_update - warmup_.steps) /
                            static_cast<double>(max_update_ - warmup_.steps);
    const double left =
        shape_ == Shape::kPoly ? std::pow(1 - progress, pwr_) : (1 + std::cos(M_PI * progress)) / 2;
    base_lr_ = final_lr_ + (start_lr_ - final_lr_) * left;
  }
  return base_lr_;
}

std::string DecayScheduler::Describe() const {
  return absl::StrCat(
      shape_ == Shape::kPoly ? absl::StrCat("poly(power ", pwr_, ", ") : std::string("cosine("),
      "from ", start_lr_, " to ", final_lr_, " at update ", max_update_, DescribeWarmup(), ")");
}

std::unique_ptr<LRScheduler> ParseLRScheduler(const std::string& text, double default_base_lr) {
  const Spec spec = ParseSpec(text, "--lr-schedule");
  SpecReader r(spec, absl::StrCat("lr schedule '", spec.name, "'"));
  const double base_lr = r.Double("base_lr", default_base_lr);
  WarmupOptions warmup;
  warmup.steps = r.Int("warmup_steps").value_or(0);
  warmup.begin_lr = r.Double("warmup_begin_lr", 0.0);
  warmup.mode = r.String("warmup_mode").value_or("linear");
  std::unique_ptr<LRScheduler> s;
  if (spec.name == "factor") {
    const std::optional<int64_t> step = r.Int("step");
    const double factor = r.Double("factor", 1.0);
    const double stop = r.Double("stop_factor_lr", 1e-8);
    if (!step) r.Fail("step", "is required (updates between decays)");
    r.Finish();
    s = std::make_unique<FactorScheduler>(*step, factor, stop, base_lr, warmup);
  } else if (spec.name == "multifactor") {
    const std::optional<std::vector<int64_t>> steps = r.IntList("step");
    const double factor = r.Double("factor", 1.0);
    if (!steps) r.Fail("step", "is required (the update counts to decay after, [N1,N2,...])");
    r.Finish();
    s = std::make_unique<MultiFactorScheduler>(*steps, factor, base_lr, warmup);
  } else if (spec.name == "poly" || spec.name == "cosine") {
    const bool poly = spec.name == "poly";
    const std::optional<int64_t> max_update = r.Int("max_update");
    const double final_lr = r.Double("final_lr", 0.0);
    const double pwr = poly ? r.Double("pwr", 2.0) : 2.0;
    if (!max_update) r.Fail("max_update", "is required (the update the decay ends at)");
    r.Finish();
    s = std::make_unique<DecayScheduler>(
        poly ? DecayScheduler::Shape::kPoly : DecayScheduler::Shape::kCosine, *max_update, base_lr,
        final_lr, pwr, warmup);
  } else {
    Fail(absl::StrCat("unknown lr schedule '", spec.name,
                      "' (known: factor, multifactor, poly, cosine)"));
  }
  return s;
}

}  // namespace symx::train
