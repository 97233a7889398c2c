// The optimizers of MXNet 1.x's mx.optimizer for the C++ trainer, each step
// the engine's update operator or the imperative arithmetic MXNet's Python
// optimizer runs (graph/ops/optimizer.cc, train/nd.h), so a step here rounds
// as MXNet 1.9.1's does (tests/train/optimizer_test.cc replays the golden
// cases tools/golden/make_python_train_golden.py recorded from MXNet).
//
//   sgd (ccsgd)  momentum                       multi_sgd_(mom_)update
//   nag          momentum                       nag_mom_update / sgd_update
//   signum       momentum=0.9, wd_lh            signum_update / signsgd_update
//   lars         momentum, eta, eps,            multi_sgd_mom_update with
//                momentum_correction            per-layer rates
//   dcasgd       momentum, lamda                arithmetic
//   adam         beta1, beta2, epsilon          adam_update
//   adamw        beta1, beta2, epsilon, eta     _adamw_update (decoupled decay)
//   rmsprop      gamma1, gamma2, epsilon,       rmsprop_update /
//                centered, clip_weights         rmspropalex_update
//   adagrad      eps                            arithmetic
//   adadelta     rho, epsilon                   arithmetic
//   adamax       beta1, beta2                   arithmetic
//   nadam        beta1, beta2, epsilon,         arithmetic
//                schedule_decay
//   ftrl         lamda1, beta                   ftrl_update
//   ftml         beta1, beta2, epsilon          ftml_update
//   lamb         beta1, beta2, epsilon,         lamb_update_phase1/2
//                lower_bound, upper_bound,
//                bias_correction
//   sgld                                        arithmetic + N(0, lr) noise
//   groupadagrad epsilon                        _contrib_group_adagrad_update
//
// Every optimizer also takes learning_rate, wd, rescale_grad, clip_gradient,
// multi_precision, begin_num_update (OptimizerOptions). As in MXNet:
// - the rate is the schedule's at num_update (the largest update count of
//   any index) when there is one, else learning_rate; per-index lr_mult and
//   wd_mult scale rate and decay;
// - an index's count goes up before its rate is read; t (Adam's bias
//   correction, FTML, LAMB, Nadam) is that index's count;
// - state is made on an index's first update with the weight's shape, dtype
//   and device; with multi_precision a float16/bfloat16 weight keeps a
//   float32 master copy: SGD, NAG and LARS step it with their mp_ operators,
//   the others step the copy with a float32 cast of the gradient and write
//   its cast back into the weight;
// - clip_gradient unset is MXNet's None (no clipping).
// Update with several indices at once is MXNet's Updater with a list: SGD
// and LARS update groups of aggregate_num (OptimizerOptions::aggregate_num,
// default 4) weights with one multi_ operator, the others one by one.
// Errors throw symx::Error naming the optimizer and index.
#ifndef SYMX_TRAIN_OPTIMIZER_H_
#define SYMX_TRAIN_OPTIMIZER_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "devices/tensor.h"
#include "graph/attrs.h"
#include "train/lr_scheduler.h"

namespace symx::train {

struct OptimizerOptions {
  // MXNet's learning_rate; unset: the optimizer's default (0.01; adam, nadam,
  // lamb, rmsprop 0.001; adamax 0.002; ftrl 0.1).
  std::optional<double> lr;
  double wd = 0.0;
  double rescale_grad = 1.0;
  std::optional<double> clip_gradient;  // unset: MXNet's None
  bool multi_precision = false;
  int64_t begin_num_update = 0;
  // The rate comes from here when set (its base_lr is its own: MXNet's
  // optimizer overwrites it with learning_rate; pass it made with that rate).
  std::shared_ptr<LRScheduler> lr_scheduler;
  uint64_t seed = 0;  // sgld's noise
  // MXNet's MXNET_OPTIMIZER_AGGREGATION_SIZE, read by the caller (the CLI):
  // how many weights one aggregated update takes; unset: the optimizer's
  // default (sgd, lars 4; lamb 45).
  std::optional<int64_t> aggregate_num;
};

class Optimizer {
 public:
  virtual ~Optimizer() = default;
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  // Updates `weight` in place from `grad` (same shape, dtype and device).
  void Update(int index, const Tensor& weight, const Tensor& grad);
  // Several at once, as MXNet's Updater given lists.
  void Update(const std::vector<int>& indices, const std::vector<Tensor>& weights,
              const std::vector<Tensor>& grads);

  const std::string& name() const { return name_; }
  // The base rate of the next update: the schedule's at num_update, or lr.
  // (Asking a factor schedule may advance it, as in MXNet.)
  double learning_rate();
  // Throws when a schedule sets the rate (MXNet refuses too).
  void set_learning_rate(double lr);
  double wd() const { return options_.wd; }
  void set_wd(double wd) { options_.wd = wd; }
  double rescale_grad() const { return options_.rescale_grad; }
  void set_rescale_grad(double rescale) { options_.rescale_grad = rescale; }
  void set_clip_gradient(std::optional<double> clip) { options_.clip_gradient = clip; }
  void set_lr_mult(int index, double mult) { lr_mult_[index] = mult; }
  // MXNet's idx2name: a named index without a wd_mult of its own decays only
  // if its name ends in _weight or _gamma (lars: _weight), and lars leaves
  // the rate of *bias, *gamma, *beta alone.
  void set_index_name(int index, std::string name) { names_[index] = std::move(name); }
  std::string index_name(int index) const;
  void set_wd_mult(int index, double mult) { wd_mult_[index] = mult; }
  int64_t num_update() const { return num_update_; }
  int64_t update_count(int index) const;
  // The arrays an index's state holds (momentum, mean, var, ...), empty
  // before its first update; master_copy: the float32 copy, or undefined.
  std::vector<Tensor> state(int index) const;
  Tensor master_copy(int index) const;
  // How many weights one aggregated update takes (0: one at a time).
  virtual size_t aggregate_num() const { return 0; }
  // "sgd(lr 0.05, momentum 0.9, wd 0.0001)"
  std::string Describe() const;

 protected:
  // `default_lr`: the rate when options.lr is unset.
  Optimizer(std::string name, const OptimizerOptions& options, double default_lr = 0.01);

  // This step's rate and decay for an index (multipliers applied) and its
  // update count t.
  struct Rates {
    double lr, wd;
    int64_t t;
  };
  // The arrays of a fresh state for `weight` (float32 for a master copy).
  virtual std::vector<Tensor> CreateState(const Tensor& weight) = 0;
  virtual void Step(int index, const Tensor& weight, const Tensor& grad, std::vector<Tensor>& state,
                    const Rates& rates) = 0;
  // SGD, NAG, LARS, AdamW: the mp_ operators step a float16 weight and its
  // master copy together (MXNet's have no bfloat16 form: a bfloat16 weight
  // steps its copy as the other optimizers do).
  virtual bool fused_multi_precision() const { return false; }
  bool Fused(const Tensor& weight) const {
    return fused_multi_precision() && weight.dtype() == DType::kFloat16;
  }
  virtual void StepMultiPrecision(int index, const Tensor& weight, const Tensor& grad,
                                  std::vector<Tensor>& state, const Tensor& master,
                                  const Rates& rates);
  // SGD, LARS: one multi_ call for `group` (indices into the lists). The
  // counts are taken; Rates come from GroupRates.
  virtual void StepGroup(const std::vector<int>& indices, const std::vector<Tensor>& weights,
                         const std::vector<Tensor>& grads, bool multi_precision);
  // The rates of indices counted together (one schedule read).
  std::vector<Rates> GroupRates(const std::vector<int>& indices);
  // The state arrays and master copy of an index, made on first use.
  struct Slot {
    bool made = false;
    std::vector<Tensor> state;
    Tensor master;
  };
  Slot& SlotFor(int index, const Tensor& weight);
  bool UsesMasterCopy(const Tensor& weight) const;
  // Whether a named index decays by default (MXNet's set_wd_mult).
  virtual bool DecaysByName(const std::string& name) const;
  // Settings for Describe ("momentum 0.9").
  virtual std::string DescribeSettings() const { return ""; }
  // The clip_gradient attribute of a fused op: given only when set and
  // nonzero, as MXNet's optimizers pass it.
  void AddClip(AttrMap& attrs, const char* key = "clip_gradient") const;
  // What most update operators take: lr, wd, rescale_grad (and clip).
  AttrMap UpdateAttrs(const Rates& rates) const;
  // g = clip(rescale_grad * grad), MXNet's Python arithmetic (clipping when
  // clip_gradient is set at all).
  Tensor RescaledGradient(const Tensor& grad) const;
  // `n` zero arrays like `w`.
  static std::vector<Tensor> ZeroStates(const Tensor& w, int n);

  OptimizerOptions options_;
  double lr_;

 private:
  void CheckPair(int index, const Tensor& weight, const Tensor& grad) const;
  void Count(int index);
  std::string name_;
  std::map<int, double> lr_mult_, wd_mult_;
  std::map<int, std::string> names_;
  std::map<int, int64_t> counts_;
  int64_t num_update_;
  std::map<int, Slot> slots_;
};

// An optimizer from its spelling NAME[:KEY=VALUE,...] ("adam",
// "sgd:momentum=0.9", "lamb:beta1=0.8,upper_bound=2"): the name as in the
// table above (any case), the keys its settings and the common ones
// (learning_rate, wd, rescale_grad, clip_gradient, multi_precision,
// begin_num_update), which override `defaults`. Throws symx::Error for an
// unknown optimizer or setting, naming it and listing the known ones.
std::unique_ptr<Optimizer> CreateOptimizer(const std::string& spec,
                                           const OptimizerOptions& defaults = {});
// The names CreateOptimizer knows, sorted.
std::vector<std::string> OptimizerNames();

}  // namespace symx::train

#endif  // SYMX_TRAIN_OPTIMIZER_H_
