// Learning-rate schedules, MXNet 1.x's mx.lr_scheduler for the C++ trainer:
// the rate as a function of num_update, the largest number of updates any
// weight has had (the optimizer's count), number for number with MXNet 1.9.1
// (tests/train/lr_scheduler_test.cc replays the golden queries that
// tools/golden/make_python_train_golden.py recorded from MXNet).
//
//   factor:      base_lr * factor^k after k*step updates, never below
//                stop_factor_lr
//   multifactor: base_lr * factor^k once k of the increasing `steps` are passed
//   poly:        final_lr + (base_lr - final_lr) * (1 - p)^pwr
//   cosine:      final_lr + (base_lr - final_lr) * (1 + cos(pi * p)) / 2
//                (p: progress from the warmup's end to max_update, then flat)
//
// Every schedule warms up first: for num_update < warmup_steps the rate is
// warmup_begin_lr, rising linearly to base_lr ("linear") or flat ("constant").
// As MXNet's, factor and multifactor remember the rate they reached (a smaller
// count later does not raise it again), and an optimizer given a scheduler
// sets its base_lr to the optimizer's rate.
#ifndef SYMX_TRAIN_LR_SCHEDULER_H_
#define SYMX_TRAIN_LR_SCHEDULER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace symx::train {

struct WarmupOptions {
  int64_t steps = 0;
  double begin_lr = 0;
  std::string mode = "linear";  // linear | constant
};

class LRScheduler {
 public:
  virtual ~LRScheduler() = default;
  // The rate for `num_update` (may advance the schedule's state).
  virtual double operator()(int64_t num_update) = 0;
  // What the schedule reads as its start (factor, multifactor: the current
  // rate, which they decay; poly, cosine: read only when made, as MXNet's).
  double base_lr() const { return base_lr_; }
  void set_base_lr(double lr) { base_lr_ = lr; }
  // "factor(step=3, factor=0.5, ...)": what the schedule is, for reports.
  virtual std::string Describe() const = 0;

 protected:
  // Throws symx::Error for a negative warmup, a begin rate above base_lr or
  // an unknown mode.
  LRScheduler(double base_lr, const WarmupOptions& warmup);
  bool InWarmup(int64_t num_update) const { return num_update < warmup_.steps; }
  double WarmupLr(int64_t num_update) const;
  std::string DescribeWarmup() const;

  double base_lr_;
  WarmupOptions warmup_;
  double warmup_final_lr_;  // base_lr when made
};

class FactorScheduler : public LRScheduler {
 public:
  FactorScheduler(int64_t step, double factor = 1, double stop_factor_lr = 1e-8,
                  double base_lr = 0.01, const WarmupOptions& warmup = {});
  double operator()(int64_t num_update) override;
  std::string Describe() const override;

 private:
  int64_t step_;
  double factor_, stop_factor_lr_;
  int64_t count_ = 0;  // the update count the current rate started after
};

class MultiFactorScheduler : public LRScheduler {
 public:
  MultiFactorScheduler(std::vector<int64_t> steps, double factor = 1, double base_lr = 0.01,
                       const WarmupOptions& warmup = {});
  double operator()(int64_t num_update) override;
  std::string Describe() const override;

 private:
  std::vector<int64_t> steps_;
  double factor_;
  size_t next_ = 0;  // the first boundary not yet passed
};

// Poly and cosine: from the rate they were made with to final_lr between the
// warmup's end and max_update, then constant.
class DecayScheduler : public LRScheduler {
 public:
  enum class Shape { kPoly, kCosine };
  DecayScheduler(Shape shape, int64_t max_update, double base_lr = 0.01, double final_lr = 0,
                 double pwr = 2, const WarmupOptions& warmup = {});
  double operator()(int64_t num_update) override;
  std::string Describe() const override;

 private:
  Shape shape_;
  int64_t max_update_;
  double start_lr_, final_lr_, pwr_;
};

// A schedule from its command-line spelling, NAME[:KEY=VALUE[,KEY=VALUE]...]:
//   factor:step=N[,factor=F][,stop_factor_lr=X]
//   multifactor:step=[N1,N2,...][,factor=F]
//   poly:max_update=N[,pwr=P][,final_lr=X]
//   cosine:max_update=N[,final_lr=X]
// each also with base_lr (default: `default_base_lr`, the trainer's --lr),
// warmup_steps, warmup_begin_lr, warmup_mode. Steps count updates (batches),
// as MXNet's. Throws symx::Error naming the key at fault (unknown, missing,
// repeated, not a number, out of range).
std::unique_ptr<LRScheduler> ParseLRScheduler(const std::string& spec,
                                              double default_base_lr = 0.01);

}  // namespace symx::train

#endif  // SYMX_TRAIN_LR_SCHEDULER_H_
