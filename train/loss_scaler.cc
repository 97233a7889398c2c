#include "train/loss_scaler.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/error.h"

namespace symx::train {
namespace {

bool PowerOfTwo(double v) {
  int exp = 0;
  return v > 0 && std::isfinite(v) && std::frexp(v, &exp) == 0.5;
}

bool IsFloat(DType t) {
  return t == DType::kFloat32 || t == DType::kFloat64 || t == DType::kFloat16 ||
         t == DType::kBFloat16;
}

}  // namespace

LossScaler::LossScaler(const LossScalerOptions& o) : options_(o), scale_(o.initial_scale) {
  for (double v : {o.initial_scale, o.max_scale, o.min_scale}) {
    if (!PowerOfTwo(v)) {
      throw Error(absl::InvalidArgumentError(
          absl::StrCat("loss scale: ", v, " is not a positive power of two")));
    }
  }
  if (!(o.min_scale <= o.initial_scale && o.initial_scale <= o.max_scale)) {
    throw Error(absl::InvalidArgumentError(absl::StrCat("loss scale: the initial scale ",
                                                        o.initial_scale, " is outside [",
                                                        o.min_scale, ", ", o.max_scale, "]")));
  }
  if (o.window < 1) {
    throw Error(absl::InvalidArgumentError(
        absl::StrCat("loss scale: the growth window must be at least 1 step, got ", o.window)));
  }
}

bool LossScaler::Update(bool finite) {
  if (!finite) {
    scale_ = std::max(options_.min_scale, scale_ / 2);
    good_ = 0;
    ++skipped_;
    return false;
  }
  if (++good_ >= options_.window) {
    scale_ = std::min(options_.max_scale, scale_ * 2);
    good_ = 0;
  }
  return true;
}

bool AllFinite(const Tensor& t) {
  if (!t.defined() || t.size() == 0 || !IsFloat(t.dtype())) return true;
  Tensor host = t;
  if (t.ctx().type != DeviceType::kCPU) {
    host = ValueOrThrow(CopyToNew(t, Context::CPU(), t.dtype()));
  }
  if (host.dtype() == DType::kFloat32) {
    const float* p = static_cast<const float*>(host.read_raw_data());
    for (int64_t i = 0; i < host.size(); ++i) {
      if (!std::isfinite(p[i])) return false;
    }
    return true;
  }
  for (double v : host.ToDoubles()) {
    if (!std::isfinite(v)) return false;
  }
  return true;
}

bool AllFinite(const std::map<std::string, Tensor>& tensors) {
  for (const auto& [name, t] : tensors) {
    if (!AllFinite(t)) return false;
  }
  return true;
}

}  // namespace symx::train
