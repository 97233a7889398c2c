// The adaptive C++ optimizers (train/optimizer.h): adam, adamw, rmsprop,
// adagrad, adadelta, adamax, nadam, ftrl, ftml, lamb, sgld, groupadagrad,
// each as MXNet 1.9.1's Python optimizer of the name: its fused update
// operator where MXNet has one, else its arithmetic op by op
// (python/symx/_nd_optimizers.py runs the same).
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "graph/error.h"
#include "train/nd.h"
#include "train/optimizer_family.h"

namespace symx::train::internal {
namespace {

class FusedBase : public Optimizer {
 protected:
  using Optimizer::Optimizer;
  // rescale * grad + wd * w, then clipped (Adamax, Nadam).
  Tensor RescaledWithDecay(const Tensor& grad, const Tensor& w, double wd) const {
    Tensor g = nd::Add(nd::MulScalar(grad, options_.rescale_grad), nd::MulScalar(w, wd));
    if (options_.clip_gradient) {
      g = nd::Clip(g, -*options_.clip_gradient, *options_.clip_gradient);
    }
    return g;
  }
};

// adam_update with the bias corrections folded into the rate.
class Adam : public FusedBase {
 public:
  Adam(const OptimizerOptions& o, double b1, double b2, double eps)
      : FusedBase("adam", o, 0.001), b1_(b1), b2_(b2), eps_(eps) {}

 protected:
  std::vector<Tensor> CreateState(const Tensor& w) override { return ZeroStates(w, 2); }
  void Step(int, const Tensor& w, const Tensor& g, std::vector<Tensor>& s,
            const Rates& r) override {
    Rates c = r;
    const double t = static_cast<double>(r.t);
    c.lr *= std::sqrt(1.0 - std::pow(b2_, t)) / (1.0 - std::pow(b1_, t));
    AttrMap a = UpdateAttrs(c);
    a["beta1"] = nd::Num(b1_);
    a["beta2"] = nd::Num(b2_);
    a["epsilon"] = nd::Num(eps_);
    nd::Call("adam_update", {w, g, s[0], s[1]}, a, w);
  }
  std::string DescribeSettings() const override {
    return absl::StrCat("beta1 ", b1_, ", beta2 ", b2_, ", epsilon ", eps_);
  }

 private:
  double b1_, b2_, eps_;
};

// Loshchilov & Hutter's AdamW as MXNet 2.0's optimizer runs it (1.9.1 has
// the _adamw_update operator but no optimizer on it): decay decoupled from
// the gradient, w -= lr_t * (mean / (sqrt(var) + epsilon) + wd * w), lr_t
// bias-corrected when correct_bias; rescale_grad goes in as an array, and a
// step whose rescale is 0 or not finite is skipped by the operator.
class AdamW : public FusedBase {
 public:
  AdamW(const OptimizerOptions& o, double b1, double b2, double eps, bool correct_bias)
      : FusedBase("adamw", o, 0.001), b1_(b1), b2_(b2), eps_(eps), correct_bias_(correct_bias) {}

 protected:
  bool fused_multi_precision() const override { return true; }
  std::vector<Tensor> CreateState(const Tensor& w) override { return ZeroStates(w, 2); }
  void Step(int, const Tensor& w, const Tensor& g, std::vector<Tensor>& s,
            const Rates& r) override {
    nd::Call("_adamw_update", {w, g, s[0], s[1], RescaleArray(w)}, Attrs(r), w);
  }
  void StepMultiPrecision(int, const Tensor& w, const Tensor& g, std::vector<Tensor>& s,
                          const Tensor& master, const Rates& r) override {
    nd::Call("_mp_adamw_update", {w, g, s[0], s[1], master, RescaleArray(w)}, Attrs(r), w);
  }
  std::string DescribeSettings() const override {
    return absl::StrCat("beta1 ", b1_, ", beta2 ", b2_, ", epsilon ", eps_,
                        correct_bias_ ? "" : ", no bias correction");
  }

 private:
  AttrMap Attrs(const Rates& r) const {
    double eta = r.lr;
    if (correct_bias_) {
      const double t = static_cast<double>(r.t);
      eta *= std::sqrt(1.0 - std::pow(b2_, t)) / (1.0 - std::pow(b1_, t));
    }
    AttrMap a = {{"lr", "1"},
                 {"eta", nd::Num(eta)},
                 {"wd", nd::Num(r.wd)},
                 {"beta1", nd::Num(b1_)},
                 {"beta2", nd::Num(b2_)},
                 {"epsilon", nd::Num(eps_)}};
    AddClip(a);
    return a;
  }
  Tensor RescaleArray(const Tensor& w) const {
    const Tensor host = Tensor::FromVector(Shape{1}, {options_.rescale_grad}, DType::kFloat32);
    return ValueOrThrow(CopyToNew(host, w.ctx(), DType::kFloat32));
  }
  double b1_, b2_, eps_;
  bool correct_bias_;
};

// Tieleman & Hinton's RMSProp, or Graves' centered form.
class RmsProp : public FusedBase {
 public:
  RmsProp(const OptimizerOptions& o, double gamma1, double gamma2, double eps, bool centered,
          std::optional<double> clip_weights)
      : FusedBase("rmsprop", o, 0.001),
        gamma1_(gamma1),
        gamma2_(gamma2),
        eps_(eps),
        centered_(centered),
        clip_weights_(clip_weights) {}

 protected:
  std::vector<Tensor> CreateState(const Tensor& w) override {
    return ZeroStates(w, centered_ ? 3 : 1);
  }
  void Step(int, const Tensor& w, const Tensor& g, std::vector<Tensor>& s,
            const Rates& r) override {
    AttrMap a = UpdateAttrs(r);
    a["gamma1"] = nd::Num(gamma1_);
    a["epsilon"] = nd::Num(eps_);
    if (clip_weights_ && *clip_weights_ != 0) a["clip_weights"] = nd::Num(*clip_weights_);
    if (!centered_) {
      nd::Call("rmsprop_update", {w, g, s[0]}, a, w);
    } else {
      a["gamma2"] = nd::Num(gamma2_);
      nd::Call("rmspropalex_update", {w, g, s[0], s[1], s[2]}, a, w);
    }
  }
  std::string DescribeSettings() const override {
    return absl::StrCat("gamma1 ", gamma1_,
                        centered_ ? absl::StrCat(", gamma2 ", gamma2_, ", centered") : "",
                        ", epsilon ", eps_);
  }

 private:
  double gamma1_, gamma2_, eps_;
  bool centered_;
  std::optional<double> clip_weights_;
};

// Duchi et al.'s AdaGrad: history += g^2; w += (g / sqrt(history + eps) + wd * w) * -lr.
class AdaGrad : public FusedBase {
 public:
  AdaGrad(const OptimizerOptions& o, double eps) : FusedBase("adagrad", o), eps_(eps) {}

 protected:
  std::vector<Tensor> CreateState(const Tensor& w) override { return ZeroStates(w, 1); }
  void Step(int, const Tensor& w, const Tensor& grad, std::vector<Tensor>& s,
            const Rates& r) override {
    const Tensor g = RescaledGradient(grad);
    nd::AddInto(s[0], nd::Square(g));
    const Tensor div = nd::Div(g, nd::Sqrt(nd::PlusScalar(s[0], eps_)));
    nd::AddInto(w, nd::MulScalar(nd::Add(div, nd::MulScalar(w, r.wd)), -r.lr));
  }
  std::string DescribeSettings() const override { return absl::StrCat("eps ", eps_); }

 private:
  double eps_;
};

// Zeiler's AdaDelta (the rate is not used).
class AdaDelta : public FusedBase {
 public:
  AdaDelta(const OptimizerOptions& o, double rho, double eps)
      : FusedBase("adadelta", o), rho_(rho), eps_(eps) {}

 protected:
  std::vector<Tensor> CreateState(const Tensor& w) override { return ZeroStates(w, 2); }
  void Step(int, const Tensor& w, const Tensor& grad, std::vector<Tensor>& s,
            const Rates& r) override {
    const Tensor g = RescaledGradient(grad);
    const Tensor &acc_g = s[0], &acc_delta = s[1];
    nd::MulScalarInto(acc_g, rho_);
    nd::AddInto(acc_g, nd::Mul(nd::MulScalar(g, 1.0 - rho_), g));
    const Tensor delta = nd::Mul(
        nd::Div(nd::Sqrt(nd::PlusScalar(acc_delta, eps_)), nd::Sqrt(nd::PlusScalar(acc_g, eps_))),
        g);
    nd::MulScalarInto(acc_delta, rho_);
    nd::AddInto(acc_delta, nd::Mul(nd::MulScalar(delta, 1.0 - rho_), delta));
    nd::SubInto(w, nd::Add(delta, nd::MulScalar(w, r.wd)));
  }
  std::string DescribeSettings() const override {
    return absl::StrCat("rho ", rho_, ", epsilon ", eps_);
  }

 private:
  double rho_, eps_;
};

// Adam with the infinity norm (Kingma & Ba, section 7).
class Adamax : public FusedBase {
 public:
  Adamax(const OptimizerOptions& o, double b1, double b2)
      : FusedBase("adamax", o, 0.002), b1_(b1), b2_(b2) {}

 protected:
  std::vector<Tensor> CreateState(const Tensor& w) override { return ZeroStates(w, 2); }
  void Step(int, const Tensor& w, const Tensor& grad, std::vector<Tensor>& s,
            const Rates& r) override {
    const double lr = r.lr / (1.0 - std::pow(b1_, static_cast<double>(r.t)));
    const Tensor g = RescaledWithDecay(grad, w, r.wd);
    nd::MulScalarInto(s[0], b1_);
    nd::AddInto(s[0], nd::MulScalar(g, 1.0 - b1_));
    nd::Assign(s[1], nd::Maximum(nd::MulScalar(s[1], b2_), nd::Abs(g)));
    nd::SubInto(w, nd::Div(nd::MulScalar(s[0], lr), s[1]));
  }
  std::string DescribeSettings() const override {
    return absl::StrCat("beta1 ", b1_, ", beta2 ", b2_);
  }

 private:
  double b1_, b2_;
};

// Adam with Nesterov momentum (Dozat) and its momentum schedule, which every
// index shares, as MXNet's.
class Nadam : public FusedBase {
 public:
  Nadam(const OptimizerOptions& o, double b1, double b2, double eps, double decay)
      : FusedBase("nadam", o, 0.001), b1_(b1), b2_(b2), eps_(eps), decay_(decay) {}

 protected:
  std::vector<Tensor> CreateState(const Tensor& w) override { return ZeroStates(w, 2); }
  void Step(int, const Tensor& w, const Tensor& grad, std::vector<Tensor>& s,
            const Rates& r) override {
    const double t = static_cast<double>(r.t);
    const Tensor g = RescaledWithDecay(grad, w, r.wd);
    const double mom_t = b1_ * (1.0 - 0.5 * std::pow(0.96, t * decay_));
    const double mom_next = b1_ * (1.0 - 0.5 * std::pow(0.96, (t + 1) * decay_));
    m_schedule_ *= mom_t;
    const double m_schedule_next = m_schedule_ * mom_next;
    const Tensor &m = s[0], &v = s[1];
    nd::MulScalarInto(m, b1_);
    nd::AddInto(m, nd::MulScalar(g, 1.0 - b1_));
    nd::MulScalarInto(v, b2_);
    nd::AddInto(v, nd::Mul(nd::MulScalar(g, 1.0 - b2_), g));
    const Tensor g_prime = nd::DivScalar(g, 1.0 - m_schedule_);
    const Tensor m_prime = nd::DivScalar(m, 1.0 - m_schedule_next);
    const Tensor v_prime = nd::DivScalar(v, 1.0 - std::pow(b2_, t));
    const Tensor m_bar =
        nd::Add(nd::MulScalar(g_prime, 1.0 - mom_t), nd::MulScalar(m_prime, mom_next));
    nd::SubInto(w, nd::Div(nd::MulScalar(m_bar, r.lr), nd::PlusScalar(nd::Sqrt(v_prime), eps_)));
  }
  std::string DescribeSettings() const override {
    return absl::StrCat("beta1 ", b1_, ", beta2 ", b2_, ", epsilon ", eps_, ", schedule_decay ",
                        decay_);
  }

 private:
  double b1_, b2_, eps_, decay_;
  double m_schedule_ = 1.0;
};

// McMahan et al.'s FTRL-Proximal (ftrl_update; state z, n).
class Ftrl : public FusedBase {
 public:
  Ftrl(const OptimizerOptions& o, double lamda1, double beta)
      : FusedBase("ftrl", o, 0.1), lamda1_(lamda1), beta_(beta) {}

 protected:
  std::vector<Tensor> CreateState(const Tensor& w) override { return ZeroStates(w, 2); }
  void Step(int, const Tensor& w, const Tensor& g, std::vector<Tensor>& s,
            const Rates& r) override {
    AttrMap a = UpdateAttrs(r);
    a["lamda1"] = nd::Num(lamda1_);
    a["beta"] = nd::Num(beta_);
    nd::Call("ftrl_update", {w, g, s[0], s[1]}, a, w);
  }
  std::string DescribeSettings() const override {
    return absl::StrCat("lamda1 ", lamda1_, ", beta ", beta_);
  }

 private:
  double lamda1_, beta_;
};

// Zheng & Kwok's Follow the Moving Leader (ftml_update; state d, v, z).
class Ftml : public FusedBase {
 public:
  Ftml(const OptimizerOptions& o, double b1, double b2, double eps)
      : FusedBase("ftml", o), b1_(b1), b2_(b2), eps_(eps) {}

 protected:
  std::vector<Tensor> CreateState(const Tensor& w) override { return ZeroStates(w, 3); }
  void Step(int, const Tensor& w, const Tensor& g, std::vector<Tensor>& s,
            const Rates& r) override {
    AttrMap a = {{"lr", nd::Num(r.lr)},
                 {"wd", nd::Num(r.wd)},
                 {"rescale_grad", nd::Num(options_.rescale_grad)},
                 {"t", std::to_string(r.t)},
                 {"beta1", nd::Num(b1_)},
                 {"beta2", nd::Num(b2_)},
                 {"epsilon", nd::Num(eps_)}};
    AddClip(a, "clip_grad");  // FTML's operator names it so
    nd::Call("ftml_update", {w, g, s[0], s[1], s[2]}, a, w);
  }
  std::string DescribeSettings() const override {
    return absl::StrCat("beta1 ", b1_, ", beta2 ", b2_, ", epsilon ", eps_);
  }

 private:
  double b1_, b2_, eps_;
};

// You et al.'s LAMB as MXNet 1.9.1's: lists (every update the trainer makes)
// go aggregate_num at a time (MXNET_OPTIMIZER_AGGREGATION_SIZE, default and
// at most 45) through _multi_lamb_update (_multi_mp_lamb_update for float16
// with multi_precision); with aggregate_num 1, each weight's
// lamb_update_phase1 direction scaled by |w| / |direction| in
// lamb_update_phase2. Bounds, when given, bound |w|.
class Lamb : public FusedBase {
 public:
  Lamb(const OptimizerOptions& o, double b1, double b2, double eps, std::optional<double> lower,
       std::optional<double> upper, bool bias_correction)
      : FusedBase("lamb", o, 0.001),
        b1_(b1),
        b2_(b2),
        eps_(eps),
        lower_(lower),
        upper_(upper),
        bias_correction_(bias_correction),
        aggregate_(AggregationSize(o, 45, 45)) {}
  size_t aggregate_num() const override { return aggregate_ > 1 ? aggregate_ : 0; }

 protected:
  // _multi_mp_lamb_update; one weight at a time steps its float32 copy.
  bool fused_multi_precision() const override { return aggregate_num() > 0; }
  std::vector<Tensor> CreateState(const Tensor& w) override { return ZeroStates(w, 2); }
  AttrMap Common() const {
    AttrMap a = {{"beta1", nd::Num(b1_)},
                 {"beta2", nd::Num(b2_)},
                 {"epsilon", nd::Num(eps_)},
                 {"bias_correction", bias_correction_ ? "True" : "False"},
                 {"rescale_grad", nd::Num(options_.rescale_grad)}};
    AddClip(a);
    return a;
  }
  void AddBounds(AttrMap& a) const {
    if (lower_ && *lower_ != 0) a["lower_bound"] = nd::Num(*lower_);
    if (upper_ && *upper_ != 0) a["upper_bound"] = nd::Num(*upper_);
  }
  void Step(int, const Tensor& w, const Tensor& g, std::vector<Tensor>& s,
            const Rates& r) override {
    AttrMap a = Common();
    a["t"] = std::to_string(r.t);
    a["wd"] = nd::Num(r.wd);
    const Tensor direction = nd::Call("lamb_update_phase1", {w, g, s[0], s[1]}, a);
    AttrMap b = {{"lr", nd::Num(r.lr)}};
    AddBounds(b);
    nd::Call("lamb_update_phase2", {w, direction, nd::Norm(w), nd::Norm(direction)}, b, w);
  }
  void StepGroup(const std::vector<int>& ids, const std::vector<Tensor>& ws,
                 const std::vector<Tensor>& gs, bool multi_precision) override {
    const std::vector<Rates> rates = GroupRates(ids);
    std::vector<Tensor> inputs;
    std::vector<double> lrs, wds, steps;
    for (size_t k = 0; k < ids.size(); ++k) {
      Slot& slot = SlotFor(ids[k], ws[k]);
      inputs.insert(inputs.end(), {ws[k], gs[k], slot.state[0], slot.state[1]});
      if (multi_precision) inputs.push_back(slot.master);
      lrs.push_back(rates[k].lr);
      wds.push_back(rates[k].wd);
      steps.push_back(static_cast<double>(rates[k].t));
    }
    AttrMap a = Common();
    AddBounds(a);
    a["num_tensors"] = std::to_string(ids.size());
    a["learning_rates"] = nd::Tuple(lrs);
    a["wds"] = nd::Tuple(wds);
    a["step_count"] = nd::Tuple(steps);
    nd::CallInto(multi_precision ? "_multi_mp_lamb_update" : "_multi_lamb_update", inputs, a, ws);
  }
  std::string DescribeSettings() const override {
    return absl::StrCat("beta1 ", b1_, ", beta2 ", b2_, ", epsilon ", eps_);
  }

 private:
  double b1_, b2_, eps_;
  std::optional<double> lower_, upper_;
  bool bias_correction_;
  size_t aggregate_;
};

// Stochastic gradient Langevin dynamics: half a gradient step plus N(0, lr)
// noise from a generator seeded by options.seed (not MXNet's stream).
class Sgld : public FusedBase {
 public:
  explicit Sgld(const OptimizerOptions& o) : FusedBase("sgld", o), rng_(o.seed) {}

 protected:
  std::vector<Tensor> CreateState(const Tensor&) override { return {}; }
  void Step(int, const Tensor& w, const Tensor& grad, std::vector<Tensor>&,
            const Rates& r) override {
    const Tensor g = RescaledGradient(grad);
    nd::AddInto(w, nd::MulScalar(nd::Add(g, nd::MulScalar(w, r.wd)), -r.lr / 2));
    std::normal_distribution<double> normal(0.0, std::sqrt(r.lr));
    std::vector<double> noise(static_cast<size_t>(w.size()));
    for (double& x : noise) x = normal(rng_);
    const Tensor host = Tensor::FromVector(w.shape(), noise, w.dtype());
    nd::AddInto(w, ValueOrThrow(CopyToNew(host, w.ctx(), w.dtype())));
  }

 private:
  std::mt19937_64 rng_;
};

// AdaGrad with one history value per row of a 2-d weight (the mean of the
// row's squared gradients accumulates); weight decay is refused, as MXNet's.
class GroupAdaGrad : public FusedBase {
 public:
  GroupAdaGrad(const OptimizerOptions& o, double eps) : FusedBase("groupadagrad", o), eps_(eps) {}

 protected:
  std::vector<Tensor> CreateState(const Tensor& w) override {
    if (w.shape().ndim() != 2) {
      throw Error(absl::InvalidArgumentError(
          absl::StrCat("groupadagrad updates 2-d weights, got shape ", w.shape().ToString())));
    }
    return {ValueOrThrow(Tensor::Zeros(Shape{w.shape()[0], 1}, w.dtype(), w.ctx()))};
  }
  void Step(int index, const Tensor& w, const Tensor& grad, std::vector<Tensor>& s,
            const Rates& r) override {
    if (r.wd != 0) {
      throw Error(absl::InvalidArgumentError(absl::StrCat(
          "groupadagrad does not support weight decay (index ", index, " has wd ", r.wd, ")")));
    }
    const Tensor g = RescaledGradient(grad);
    nd::AddInto(s[0], nd::Call("mean", {nd::Square(g)}, {{"axis", "1"}, {"keepdims", "True"}}));
    nd::SubInto(w, nd::Div(nd::MulScalar(g, r.lr), nd::Sqrt(nd::PlusScalar(s[0], eps_))));
  }
  std::string DescribeSettings() const override { return absl::StrCat("epsilon ", eps_); }

 private:
  double eps_;
};

std::optional<double> Bound(SpecReader& r, const char* key) { return r.Double(key); }

}  // namespace

std::vector<OptimizerEntry> AdaptiveFamily() {
  return {
      {"adam",
       [](SpecReader& r, const OptimizerOptions& o) -> std::unique_ptr<Optimizer> {
         const double b1 = r.Double("beta1", 0.9), b2 = r.Double("beta2", 0.999);
         const double eps = r.Double("epsilon", 1e-8);
         r.Bool("lazy_update");  // row_sparse only
         return std::make_unique<Adam>(o, b1, b2, eps);
       }},
      {"adamw",
       [](SpecReader& r, const OptimizerOptions& o) -> std::unique_ptr<Optimizer> {
         const double b1 = r.Double("beta1", 0.9), b2 = r.Double("beta2", 0.999);
         const double eps = r.Double("epsilon", 1e-6);
         const bool correct_bias = r.Bool("correct_bias").value_or(true);
         return std::make_unique<AdamW>(o, b1, b2, eps, correct_bias);
       }},
      {"rmsprop",
       [](SpecReader& r, const OptimizerOptions& o) -> std::unique_ptr<Optimizer> {
         const double g1 = r.Double("gamma1", 0.9), g2 = r.Double("gamma2", 0.9);
         const double eps = r.Double("epsilon", 1e-8);
         const bool centered = r.Bool("centered").value_or(false);
         return std::make_unique<RmsProp>(o, g1, g2, eps, centered, r.Double("clip_weights"));
       }},
      {"adagrad",
       [](SpecReader& r, const OptimizerOptions& o) -> std::unique_ptr<Optimizer> {
         return std::make_unique<AdaGrad>(o, r.Double("eps", 1e-7));
       }},
      {"adadelta",
       [](SpecReader& r, const OptimizerOptions& o) -> std::unique_ptr<Optimizer> {
         const double rho = r.Double("rho", 0.9);
         return std::make_unique<AdaDelta>(o, rho, r.Double("epsilon", 1e-5));
       }},
      {"adamax",
       [](SpecReader& r, const OptimizerOptions& o) -> std::unique_ptr<Optimizer> {
         const double b1 = r.Double("beta1", 0.9);
         return std::make_unique<Adamax>(o, b1, r.Double("beta2", 0.999));
       }},
      {"nadam",
       [](SpecReader& r, const OptimizerOptions& o) -> std::unique_ptr<Optimizer> {
         const double b1 = r.Double("beta1", 0.9), b2 = r.Double("beta2", 0.999);
         const double eps = r.Double("epsilon", 1e-8);
         return std::make_unique<Nadam>(o, b1, b2, eps, r.Double("schedule_decay", 0.004));
       }},
      {"ftrl",
       [](SpecReader& r, const OptimizerOptions& o) -> std::unique_ptr<Optimizer> {
         const double lamda1 = r.Double("lamda1", 0.01);
         return std::make_unique<Ftrl>(o, lamda1, r.Double("beta", 1.0));
       }},
      {"ftml",
       [](SpecReader& r, const OptimizerOptions& o) -> std::unique_ptr<Optimizer> {
         const double b1 = r.Double("beta1", 0.6), b2 = r.Double("beta2", 0.999);
         return std::make_unique<Ftml>(o, b1, b2, r.Double("epsilon", 1e-8));
       }},
      {"lamb",
       [](SpecReader& r, const OptimizerOptions& o) -> std::unique_ptr<Optimizer> {
         const double b1 = r.Double("beta1", 0.9), b2 = r.Double("beta2", 0.999);
         const double eps = r.Double("epsilon", 1e-6);
         const std::optional<double> lower = Bound(r, "lower_bound");
         const std::optional<double> upper = Bound(r, "upper_bound");
         const bool bias = r.Bool("bias_correction").value_or(true);
         return std::make_unique<Lamb>(o, b1, b2, eps, lower, upper, bias);
       }},
      {"sgld",
       [](SpecReader&, const OptimizerOptions& o) -> std::unique_ptr<Optimizer> {
         return std::make_unique<Sgld>(o);
       }},
      {"groupadagrad",
       [](SpecReader& r, const OptimizerOptions& o) -> std::unique_ptr<Optimizer> {
         return std::make_unique<GroupAdaGrad>(o, r.Double("eps", 1e-5));
       }},
  };
}

}  // namespace symx::train::internal
