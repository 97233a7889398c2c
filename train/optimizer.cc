#include "train/optimizer.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "graph/error.h"

namespace symx::train {
namespace {

[[noreturn]] void Fail(const std::string& message) {
  throw Error(absl::InvalidArgumentError(message));
}

bool IsHost(const Context& ctx) { return ctx.type != DeviceType::kGPU && ctx.rank < 0; }

// clip_gradient <= 0 disables clipping, as MXNet's -1 default.
template <typename T>
inline T Clip(T x, T bound) {
  if (bound <= 0) return x;
  return std::min(std::max(x, -bound), bound);
}

Tensor ZerosLike(const Tensor& t) {
  absl::StatusOr<Tensor> z = Tensor::Zeros(t.shape(), t.dtype(), t.ctx());
  if (!z.ok()) throw Error(z.status());
  return *z;
}

template <typename T>
void SgdKernel(T* w, const T* g, T* mom, int64_t n, double lr, double wd, double momentum,
               double rescale, double clip) {
  const T lr_t = static_cast<T>(lr), wd_t = static_cast<T>(wd), m_t = static_cast<T>(momentum);
  const T rescale_t = static_cast<T>(rescale), clip_t = static_cast<T>(clip);
  if (mom == nullptr) {
    for (int64_t i = 0; i < n; ++i) {
      w[i] -= lr_t * (Clip(rescale_t * g[i], clip_t) + wd_t * w[i]);
    }
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    mom[i] = m_t * mom[i] - lr_t * (Clip(rescale_t * g[i], clip_t) + wd_t * w[i]);
    w[i] += mom[i];
  }
}

template <typename T>
void AdamKernel(T* w, const T* g, T* mean, T* var, int64_t n, double lr_t, double wd, double beta1,
                double beta2, double eps, double rescale, double clip) {
  const T lr = static_cast<T>(lr_t), wd_t = static_cast<T>(wd);
  const T b1 = static_cast<T>(beta1), b2 = static_cast<T>(beta2), e = static_cast<T>(eps);
  const T rescale_t = static_cast<T>(rescale), clip_t = static_cast<T>(clip);
  for (int64_t i = 0; i < n; ++i) {
    T grad = Clip(rescale_t * g[i] + wd_t * w[i], clip_t);
    mean[i] = b1 * mean[i] + (T(1) - b1) * grad;
    var[i] = b2 * var[i] + (T(1) - b2) * grad * grad;
    w[i] -= lr * mean[i] / (std::sqrt(var[i]) + e);
  }
}

}  // namespace

int64_t Optimizer::update_count(int index) const {
  auto it = counts_.find(index);
  return it == counts_.end() ? 0 : it->second;
}

Optimizer::Step Optimizer::BeginUpdate(int index, const Tensor& weight, const Tensor& grad) {
  std::string where = absl::StrCat(name(), " update of index ", index);
  if (!weight.defined() || !grad.defined()) Fail(where + ": undefined weight or gradient");
  if (weight.shape() != grad.shape()) {
    Fail(absl::StrCat(where, ": weight shape ", weight.shape().ToString(),
                      " differs from gradient shape ", grad.shape().ToString()));
  }
  if (weight.dtype() != grad.dtype()) {
    Fail(absl::StrCat(where, ": weight dtype ", DTypeName(weight.dtype()),
                      " differs from gradient dtype ", DTypeName(grad.dtype())));
  }
  if (weight.dtype() != DType::kFloat32 && weight.dtype() != DType::kFloat64) {
    Fail(absl::StrCat(where, ": dtype ", DTypeName(weight.dtype()),
                      " is not supported (float32 and float64 are)"));
  }
  if (!IsHost(weight.ctx()) || !IsHost(grad.ctx())) {
    Fail(absl::StrCat(where, ": tensors must be on a CPU device, got ", weight.ctx().ToString(),
                      " and ", grad.ctx().ToString()));
  }
  auto lm = lr_mult_.find(index);
  auto wm = wd_mult_.find(index);
  Step step;
  step.lr = options_.lr * (lm == lr_mult_.end() ? 1.0 : lm->second);
  step.wd = options_.wd * (wm == wd_mult_.end() ? 1.0 : wm->second);
  step.t = ++counts_[index] + begin_num_update_;
  return step;
}

void SGD::Update(int index, const Tensor& weight, const Tensor& grad) {
  Step step = BeginUpdate(index, weight, grad);
  Tensor mom;
  if (momentum_ != 0.0) {
    Tensor& state = mom_[index];
    if (!state.defined()) state = ZerosLike(weight);
    mom = state;
  }
  const int64_t n = weight.size();
  if (weight.dtype() == DType::kFloat32) {
    SgdKernel<float>(weight.data<float>(), grad.data<float>(),
                     mom.defined() ? mom.data<float>() : nullptr, n, step.lr, step.wd, momentum_,
                     options_.rescale_grad, options_.clip_gradient);
  } else {
    SgdKernel<double>(weight.data<double>(), grad.data<double>(),
                      mom.defined() ? mom.data<double>() : nullptr, n, step.lr, step.wd, momentum_,
                      options_.rescale_grad, options_.clip_gradient);
  }
}

Tensor SGD::momentum_state(int index) const {
  auto it = mom_.find(index);
  return it == mom_.end() ? Tensor() : it->second;
}

void Adam::Update(int index, const Tensor& weight, const Tensor& grad) {
  Step step = BeginUpdate(index, weight, grad);
  Tensor& mean = mean_[index];
  Tensor& var = var_[index];
  if (!mean.defined()) {
    mean = ZerosLike(weight);
    var = ZerosLike(weight);
  }
  const double t = static_cast<double>(step.t);
  const double lr_t = step.lr * std::sqrt(1.0 - std::pow(beta2_, t)) / (1.0 - std::pow(beta1_, t));
  const int64_t n = weight.size();
  if (weight.dtype() == DType::kFloat32) {
    AdamKernel<float>(weight.data<float>(), grad.data<float>(), mean.data<float>(),
                      var.data<float>(), n, lr_t, step.wd, beta1_, beta2_, eps_,
                      options_.rescale_grad, options_.clip_gradient);
  } else {
    AdamKernel<double>(weight.data<double>(), grad.data<double>(), mean.data<double>(),
                       var.data<double>(), n, lr_t, step.wd, beta1_, beta2_, eps_,
                       options_.rescale_grad, options_.clip_gradient);
  }
}

std::unique_ptr<Optimizer> CreateOptimizer(const std::string& name, const OptimizerOptions& options,
                                           double momentum) {
  std::string lower = absl::AsciiStrToLower(name);
  if (lower == "sgd") {
    SGDOptions o;
    static_cast<OptimizerOptions&>(o) = options;
    o.momentum = momentum;
    return std::make_unique<SGD>(o);
  }
  if (lower == "adam") {
    AdamOptions o;
    static_cast<OptimizerOptions&>(o) = options;
    return std::make_unique<Adam>(o);
  }
  Fail(absl::StrCat("unknown optimizer '", name, "' (known: sgd, adam)"));
}

}  // namespace symx::train
