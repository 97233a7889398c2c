// The SGD family of the C++ optimizers (train/optimizer.h): sgd (ccsgd),
// nag, signum, lars, dcasgd, each as MXNet 1.9.1's Python optimizer of the
// name (python/symx/_sgd_optimizers.py and _nd_optimizers.py run the same
// operators).
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/error.h"
#include "train/nd.h"
#include "train/optimizer_family.h"

namespace symx::train::internal {
namespace {

// A momentum buffer, none without momentum (MXNet's create_state).
std::vector<Tensor> MomentumState(const Tensor& w, double momentum) {
  if (momentum == 0.0) return {};
  return {nd::ZerosLike(w)};
}

// SGD and LARS: every step is one multi_(mp_)sgd_(mom_)update, as MXNet's
// SGD runs for any dense update (its rule is sgd_mom_update's, also without
// momentum).
class SgdBase : public Optimizer {
 public:
  SgdBase(const char* name, const OptimizerOptions& o, double momentum)
      : Optimizer(name, o), momentum_(momentum), aggregate_(AggregationSize(o, 4, 0)) {}
  size_t aggregate_num() const override { return aggregate_; }

 protected:
  bool fused_multi_precision() const override { return true; }
  std::vector<Tensor> CreateState(const Tensor& w) override { return MomentumState(w, momentum_); }
  void Step(int index, const Tensor& w, const Tensor& g, std::vector<Tensor>& state,
            const Rates& rates) override {
    Run({index}, {w}, {g}, {&state}, {}, {rates});
  }
  void StepMultiPrecision(int index, const Tensor& w, const Tensor& g, std::vector<Tensor>& state,
                          const Tensor& master, const Rates& rates) override {
    Run({index}, {w}, {g}, {&state}, {master}, {rates});
  }
  void StepGroup(const std::vector<int>& ids, const std::vector<Tensor>& ws,
                 const std::vector<Tensor>& gs, bool multi_precision) override {
    std::vector<std::vector<Tensor>*> states;
    std::vector<Tensor> masters;
    for (size_t k = 0; k < ids.size(); ++k) {
      Slot& slot = SlotFor(ids[k], ws[k]);
      states.push_back(&slot.state);
      if (multi_precision) masters.push_back(slot.master);
    }
    Run(ids, ws, gs, states, masters, GroupRates(ids));
  }
  // LARS: each layer's rate, and the momentum correction.
  virtual std::vector<Rates> LayerRates(const std::vector<int>&, const std::vector<Tensor>&,
                                        const std::vector<Tensor>&, std::vector<Rates> rates) {
    return rates;
  }
  virtual double Momentum() { return momentum_; }
  std::string DescribeSettings() const override { return absl::StrCat("momentum ", momentum_); }

  double momentum_;

 private:
  void Run(const std::vector<int>& ids, const std::vector<Tensor>& ws,
           const std::vector<Tensor>& gs, const std::vector<std::vector<Tensor>*>& states,
           const std::vector<Tensor>& masters, std::vector<Rates> rates) {
    rates = LayerRates(ids, ws, gs, std::move(rates));
    const bool mom = momentum_ > 0;
    const bool mp = !masters.empty();
    std::vector<Tensor> inputs;
    std::vector<double> lrs, wds;
    for (size_t k = 0; k < ws.size(); ++k) {
      inputs.push_back(ws[k]);
      inputs.push_back(gs[k]);
      if (mom) inputs.push_back((*states[k])[0]);
      if (mp) inputs.push_back(masters[k]);
      lrs.push_back(rates[k].lr);
      wds.push_back(rates[k].wd);
    }
    AttrMap attrs = {{"num_weights", std::to_string(ws.size())},
                     {"lrs", nd::Tuple(lrs)},
                     {"wds", nd::Tuple(wds)},
                     {"rescale_grad", nd::Num(options_.rescale_grad)}};
    if (mom) attrs["momentum"] = nd::Num(Momentum());
    AddClip(attrs);
    nd::CallInto(absl::StrCat("multi_", mp ? "mp_" : "", "sgd_", mom ? "mom_" : "", "update"),
                 inputs, attrs, ws);
  }

  size_t aggregate_;
};

class Sgd : public SgdBase {
 public:
  Sgd(const char* name, const OptimizerOptions& o, double momentum) : SgdBase(name, o, momentum) {}
};

// You et al.'s layer-wise rates: lr * eta * |w| / (|g| * rescale + wd * |w| +
// eps) for every weight but *bias, *gamma, *beta (and where |w| or |g| is 0),
// from MXNet's multi_sum_sq and multi_lars operators; with
// momentum_correction the momentum scales by the schedule's change.
class Lars : public SgdBase {
 public:
  Lars(const OptimizerOptions& o, double momentum, double eta, double eps, bool correction)
      : SgdBase("lars", o, momentum), eta_(eta), eps_(eps), correction_(correction) {}

 protected:
  std::vector<Rates> LayerRates(const std::vector<int>& ids, const std::vector<Tensor>& ws,
                                const std::vector<Tensor>& gs, std::vector<Rates> rates) override {
    const double lr = learning_rate();
    last_lr_ = cur_lr_ < 0 ? lr : cur_lr_;
    cur_lr_ = lr;
    // MXNet's: the sums of squares (multi_sum_sq) and the rates
    // (multi_lars) of the layers that get their own, in float32.
    std::vector<size_t> layers;
    std::vector<Tensor> lw, lg;
    std::vector<double> lrs, wds;
    for (size_t k = 0; k < ids.size(); ++k) {
      const std::string name = index_name(ids[k]);
      if (absl::EndsWith(name, "gamma") || absl::EndsWith(name, "beta") ||
          absl::EndsWith(name, "bias")) {
        continue;
      }
      layers.push_back(k);
      lw.push_back(ws[k]);
      lg.push_back(gs[k]);
      lrs.push_back(rates[k].lr);
      wds.push_back(rates[k].wd);
    }
    if (layers.empty()) return rates;
    const AttrMap count = {{"num_arrays", std::to_string(layers.size())}};
    const Tensor w_sum_sq = nd::Call("multi_sum_sq", lw, count);
    const Tensor g_sum_sq = nd::Call("multi_sum_sq", lg, count);
    const Shape n{static_cast<int64_t>(layers.size())};
    auto on_device = [&](const std::vector<double>& v) {
      return ValueOrThrow(
          CopyToNew(Tensor::FromVector(n, v, DType::kFloat32), ws[0].ctx(), DType::kFloat32));
    };
    const std::vector<double> scaled =
        nd::Call("multi_lars", {on_device(lrs), w_sum_sq, g_sum_sq, on_device(wds)},
                 {{"eta", nd::Num(eta_)},
                  {"eps", nd::Num(eps_)},
                  {"rescale_grad", nd::Num(options_.rescale_grad)}})
            .ToDoubles();
    for (size_t j = 0; j < layers.size(); ++j) rates[layers[j]].lr = scaled[j];
    return rates;
  }
  bool DecaysByName(const std::string& name) const override {
    return absl::EndsWith(name, "_weight");
  }
  double Momentum() override {
    if (correction_ && last_lr_ != 0) return momentum_ * (cur_lr_ / last_lr_);
    return momentum_;
  }
  std::string DescribeSettings() const override {
    return absl::StrCat("momentum ", momentum_, ", eta ", eta_, ", eps ", eps_);
  }

 private:
  double eta_, eps_;
  bool correction_;
  double last_lr_ = -1, cur_lr_ = -1;
};

// Nesterov momentum: nag_mom_update, or sgd_update without momentum.
class Nag : public Optimizer {
 public:
  Nag(const OptimizerOptions& o, double momentum) : Optimizer("nag", o), momentum_(momentum) {}

 protected:
  bool fused_multi_precision() const override { return true; }
  std::vector<Tensor> CreateState(const Tensor& w) override { return MomentumState(w, momentum_); }
  AttrMap Attrs(const Rates& r) const {
    AttrMap a = UpdateAttrs(r);
    if (momentum_ > 0) a["momentum"] = nd::Num(momentum_);
    return a;
  }
  void Step(int, const Tensor& w, const Tensor& g, std::vector<Tensor>& state,
            const Rates& r) override {
    if (state.empty()) {
      nd::Call("sgd_update", {w, g}, Attrs(r), w);
    } else {
      nd::Call("nag_mom_update", {w, g, state[0]}, Attrs(r), w);
    }
  }
  void StepMultiPrecision(int, const Tensor& w, const Tensor& g, std::vector<Tensor>& state,
                          const Tensor& master, const Rates& r) override {
    if (state.empty()) {
      nd::Call("mp_sgd_update", {w, g, master}, Attrs(r), w);
    } else {
      nd::Call("mp_nag_mom_update", {w, g, state[0], master}, Attrs(r), w);
    }
  }
  std::string DescribeSettings() const override { return absl::StrCat("momentum ", momentum_); }

 private:
  double momentum_;
};

// Steps of the sign of a momentum (signum_update) or of the gradient
// (signsgd_update, momentum 0); wd_lh: decoupled weight decay.
class Signum : public Optimizer {
 public:
  Signum(const OptimizerOptions& o, double momentum, double wd_lh)
      : Optimizer("signum", o), momentum_(momentum), wd_lh_(wd_lh) {}

 protected:
  std::vector<Tensor> CreateState(const Tensor& w) override { return MomentumState(w, momentum_); }
  void Step(int, const Tensor& w, const Tensor& g, std::vector<Tensor>& state,
            const Rates& r) override {
    AttrMap a = UpdateAttrs(r);
    if (state.empty()) {
      nd::Call("signsgd_update", {w, g}, a, w);
      return;
    }
    if (momentum_ > 0) a["momentum"] = nd::Num(momentum_);
    a["wd_lh"] = nd::Num(wd_lh_);
    nd::Call("signum_update", {w, g, state[0]}, a, w);
  }
  std::string DescribeSettings() const override {
    return absl::StrCat("momentum ", momentum_, ", wd_lh ", wd_lh_);
  }

 private:
  double momentum_, wd_lh_;
};

// Delay-compensated asynchronous SGD (Zheng et al.), MXNet's arithmetic:
// step = -lr * (g + wd * w + lamda * g * g * (w - w_previous)).
class Dcasgd : public Optimizer {
 public:
  Dcasgd(const OptimizerOptions& o, double momentum, double lamda)
      : Optimizer("dcasgd", o), momentum_(momentum), lamda_(lamda) {}

 protected:
  std::vector<Tensor> CreateState(const Tensor& w) override {
    if (momentum_ == 0.0) return {nd::Copy(w)};
    return {nd::ZerosLike(w), nd::Copy(w)};  // momentum, previous weight
  }
  void Step(int, const Tensor& w, const Tensor& grad, std::vector<Tensor>& state,
            const Rates& r) override {
    const Tensor g = RescaledGradient(grad);
    const Tensor& previous = state.back();
    // -lr * (g + wd * w + lamda * g * g * (w - previous))
    Tensor sum = nd::Add(g, nd::MulScalar(w, r.wd));
    Tensor delay = nd::Mul(nd::Mul(nd::MulScalar(g, lamda_), g), nd::Sub(w, previous));
    Tensor step = nd::MulScalar(nd::Add(sum, delay), -r.lr);
    if (state.size() == 2) {
      nd::MulScalarInto(state[0], momentum_);
      nd::AddInto(state[0], step);
      step = state[0];
    }
    nd::Assign(previous, w);
    nd::AddInto(w, step);
  }
  std::string DescribeSettings() const override {
    return absl::StrCat("momentum ", momentum_, ", lamda ", lamda_);
  }

 private:
  double momentum_, lamda_;
};

double Momentum(SpecReader& r, double fallback) {
  const double m = r.Double("momentum", fallback);
  if (!(m >= 0 && m < 1)) r.Fail("momentum", absl::StrCat("must be in [0, 1), got ", m));
  return m;
}

}  // namespace

std::vector<OptimizerEntry> SgdFamily() {
  return {
      {"sgd",
       [](SpecReader& r, const OptimizerOptions& o) -> std::unique_ptr<Optimizer> {
         const double m = Momentum(r, 0.0);
         r.Bool("lazy_update");  // row_sparse only: dense arrays update alike
         return std::make_unique<Sgd>("sgd", o, m);
       }},
      {"ccsgd",
       [](SpecReader& r, const OptimizerOptions& o) -> std::unique_ptr<Optimizer> {
         return std::make_unique<Sgd>("ccsgd", o, Momentum(r, 0.0));
       }},
      {"nag",
       [](SpecReader& r, const OptimizerOptions& o) -> std::unique_ptr<Optimizer> {
         return std::make_unique<Nag>(o, Momentum(r, 0.0));
       }},
      {"signum",
       [](SpecReader& r, const OptimizerOptions& o) -> std::unique_ptr<Optimizer> {
         const double m = Momentum(r, 0.9);
         return std::make_unique<Signum>(o, m, r.Double("wd_lh", 0.0));
       }},
      {"lars",
       [](SpecReader& r, const OptimizerOptions& o) -> std::unique_ptr<Optimizer> {
         const double m = Momentum(r, 0.0);
         const double eta = r.Double("eta", 0.001), eps = r.Double("eps", 0.0);
         const bool correction = r.Bool("momentum_correction").value_or(true);
         r.Bool("lazy_update");
         return std::make_unique<Lars>(o, m, eta, eps, correction);
       }},
      {"dcasgd",
       [](SpecReader& r, const OptimizerOptions& o) -> std::unique_ptr<Optimizer> {
         const double m = Momentum(r, 0.0);
         return std::make_unique<Dcasgd>(o, m, r.Double("lamda", 0.04));
       }},
  };
}

}  // namespace symx::train::internal
