// Optimizers with MXNet 1.x's update rules (python/mxnet/optimizer.py and the
// sgd_update / sgd_mom_update / adam_update operators).
//
//   SGD  (momentum 0):  w = w - lr * (clip(rescale * g) + wd * w)
//   SGD  (momentum m):  mom = m * mom - lr * (clip(rescale * g) + wd * w);  w += mom
//   Adam:               g = clip(rescale * g + wd * w)
//                       mean = b1 * mean + (1 - b1) * g
//                       var  = b2 * var  + (1 - b2) * g^2
//                       lr_t = lr * sqrt(1 - b2^t) / (1 - b1^t)   (t: this index's update count)
//                       w   -= lr_t * mean / (sqrt(var) + eps)
//
// clip(x) clamps to [-clip_gradient, clip_gradient]; clip_gradient <= 0 means
// no clipping (MXNet uses -1). Note that SGD clips before adding weight decay
// and Adam after, as MXNet does. Per-index lr_mult and wd_mult scale lr and wd
// (MXNet's set_lr_mult / set_wd_mult; the trainer sets wd_mult 0 for biases).
//
// State (momentum, mean, var, step count) is created on an index's first
// update, with the weight's shape and dtype. Weights and gradients must be
// float32 or float64 host (CPU) tensors of the same shape and dtype. Errors
// throw symx::Error naming the index.
#ifndef SYMX_TRAIN_OPTIMIZER_H_
#define SYMX_TRAIN_OPTIMIZER_H_

#include <map>
#include <memory>
#include <string>

#include "devices/tensor.h"

namespace symx::train {

// Settings every optimizer shares.
struct OptimizerOptions {
  double lr = 0.01;
  double wd = 0.0;
  double rescale_grad = 1.0;
  double clip_gradient = -1.0;  // <= 0: no clipping
};

class Optimizer {
 public:
  explicit Optimizer(const OptimizerOptions& options) : options_(options) {}
  virtual ~Optimizer() = default;
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  // Updates `weight` in place from `grad`, using and updating index's state.
  virtual void Update(int index, const Tensor& weight, const Tensor& grad) = 0;
  virtual std::string name() const = 0;

  double lr() const { return options_.lr; }
  void set_lr(double lr) { options_.lr = lr; }
  void set_rescale_grad(double rescale) { options_.rescale_grad = rescale; }
  void set_wd(double wd) { options_.wd = wd; }
  void set_clip_gradient(double clip) { options_.clip_gradient = clip; }
  // Update counts start here (MXNet's begin_num_update, e.g. resuming a run):
  // Adam's bias correction then uses t = begin + updates of the index.
  void set_begin_num_update(int64_t begin) { begin_num_update_ = begin; }
  void set_lr_mult(int index, double mult) { lr_mult_[index] = mult; }
  void set_wd_mult(int index, double mult) { wd_mult_[index] = mult; }
  // Number of updates applied to `index` so far.
  int64_t update_count(int index) const;

 protected:
  // lr and wd for `index` after its multipliers; counts the update.
  struct Step {
    double lr, wd;
    int64_t t;  // 1 for the first update of this index (plus begin_num_update)
  };
  Step BeginUpdate(int index, const Tensor& weight, const Tensor& grad);

  OptimizerOptions options_;

 private:
  std::map<int, double> lr_mult_, wd_mult_;
  std::map<int, int64_t> counts_;
  int64_t begin_num_update_ = 0;
};

struct SGDOptions : OptimizerOptions {
  double momentum = 0.0;
};

class SGD : public Optimizer {
 public:
  explicit SGD(const SGDOptions& options) : Optimizer(options), momentum_(options.momentum) {}
  void Update(int index, const Tensor& weight, const Tensor& grad) override;
  std::string name() const override { return "sgd"; }
  // The momentum buffer of `index` (undefined before its first update or
  // when momentum is 0).
  Tensor momentum_state(int index) const;

 private:
  double momentum_;
  std::map<int, Tensor> mom_;
};

struct AdamOptions : OptimizerOptions {
  AdamOptions() { lr = 0.001; }
  double beta1 = 0.9;
  double beta2 = 0.999;
  double epsilon = 1e-8;
};

class Adam : public Optimizer {
 public:
  explicit Adam(const AdamOptions& options)
      : Optimizer(options), beta1_(options.beta1), beta2_(options.beta2), eps_(options.epsilon) {}
  void Update(int index, const Tensor& weight, const Tensor& grad) override;
  std::string name() const override { return "adam"; }

 private:
  double beta1_, beta2_, eps_;
  std::map<int, Tensor> mean_, var_;
};

// "sgd" or "adam" (case-insensitive) with `momentum` used by SGD only; Adam
// keeps its default betas and epsilon. Throws symx::Error for other names.
std::unique_ptr<Optimizer> CreateOptimizer(const std::string& name, const OptimizerOptions& options,
                                           double momentum);

}  // namespace symx::train

#endif  // SYMX_TRAIN_OPTIMIZER_H_
