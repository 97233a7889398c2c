// The C++ optimizers against MXNet 1.9.1: every golden case of
// tests/python/golden/train_golden.json (lists of updates, rate changes and
// multiplier changes played on MXNet's optimizer through get_updater, by
// tools/golden/make_python_train_golden.py) whose optimizer the C++ library
// has is replayed here and must give MXNet's weights after every update; then
// the library's own rules and errors.
#include "train/optimizer.h"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <set>
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "graph/error.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/executor/executor_test_util.h"
#include "tests/expect_contains.h"
#include "train/lr_scheduler.h"
#include "train/nd.h"

namespace symx::train {
namespace {

using nlohmann::json;

const json& Golden() {
  static const json* golden = [] {
    std::ifstream in("tests/python/golden/train_golden.json");
    EXPECT_TRUE(in.good()) << "train_golden.json is missing";
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    // Python's json writes NaN (a metric case), which strict JSON lacks.
    for (size_t at = text.find("NaN"); at != std::string::npos; at = text.find("NaN", at)) {
      text.replace(at, 3, "null");
    }
    return new json(json::parse(text));
  }();
  return *golden;
}

Tensor FromJson(const json& rows, DType dtype) {
  std::vector<double> values;
  int64_t cols = 0;
  for (const json& row : rows) {
    cols = static_cast<int64_t>(row.size());
    for (const json& v : row) values.push_back(v.get<double>());
  }
  return Tensor::FromVector(Shape{static_cast<int64_t>(rows.size()), cols}, values, dtype);
}

DType DTypeOf(const std::string& name) {
  if (name == "float64") return DType::kFloat64;
  if (name == "float16") return DType::kFloat16;
  return DType::kFloat32;
}

std::string ValueText(const json& v) {
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_array()) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) absl::StrAppend(&s, i ? "," : "", ValueText(v[i]));
    return s + "]";
  }
  return v.dump();
}

// The case's scheduler as MXNet made it; the optimizer's learning_rate, when
// given, becomes its base_lr as MXNet's optimizer sets it.
std::shared_ptr<LRScheduler> Scheduler(const json& c) {
  if (!c.contains("lr_scheduler") || c["lr_scheduler"].is_null()) return nullptr;
  const json& s = c["lr_scheduler"];
  static const std::map<std::string, std::string> kNames = {{"FactorScheduler", "factor"},
                                                            {"MultiFactorScheduler", "multifactor"},
                                                            {"PolyScheduler", "poly"},
                                                            {"CosineScheduler", "cosine"}};
  std::string spec = kNames.at(s["class"].get<std::string>()) + ":";
  bool first = true;
  for (const auto& [key, value] : s["kwargs"].items()) {
    absl::StrAppend(&spec, first ? "" : ",", key, "=", ValueText(value));
    first = false;
  }
  std::shared_ptr<LRScheduler> sched = ParseLRScheduler(spec);
  if (c["kwargs"].contains("learning_rate")) {
    sched->set_base_lr(c["kwargs"]["learning_rate"].get<double>());
  }
  return sched;
}

// Optimizers MXNet has that the C++ library leaves to Python (see
// optimizer.h): LBSGD and the Test optimizer.
const std::set<std::string> kPythonOnly = {"lbsgd", "test"};

struct Replayed {
  std::vector<Tensor> after;
  int64_t num_update;
};

Replayed Replay(const json& c) {
  OptimizerOptions o;
  o.lr_scheduler = Scheduler(c);
  std::string spec = c["optimizer"].get<std::string>();
  bool first = true;
  for (const auto& [key, value] : c["kwargs"].items()) {
    absl::StrAppend(&spec, first ? ":" : ",", key, "=", ValueText(value));
    first = false;
  }
  std::unique_ptr<Optimizer> opt = CreateOptimizer(spec, o);
  std::map<std::string, int> index_of;
  if (c.contains("idx2name")) {
    for (const json& p : c["idx2name"]) {
      opt->set_index_name(p[0].get<int>(), p[1].get<std::string>());
      index_of[p[1].get<std::string>()] = p[0].get<int>();
    }
  }
  // Variable attributes (__lr_mult__, __wd_mult__ of the case's symbol).
  if (c.contains("sym")) {
    for (const auto& [name, attrs] : c["sym"].items()) {
      if (attrs.contains("lr_mult")) opt->set_lr_mult(index_of.at(name), attrs["lr_mult"]);
      if (attrs.contains("wd_mult")) opt->set_wd_mult(index_of.at(name), attrs["wd_mult"]);
    }
  }
  const DType dtype = DTypeOf(c["dtype"]);
  std::map<int, Tensor> weights;
  for (const json& w : c["weights"]) weights[w[0].get<int>()] = FromJson(w[1], dtype);
  Replayed r;
  for (const json& a : c["actions"]) {
    const std::string kind = a[0];
    if (kind == "update") {
      const int i = a[1];
      opt->Update(i, weights.at(i), FromJson(a[2], dtype));
      r.after.push_back(nd::Copy(weights.at(i)));
    } else if (kind == "update_all") {
      std::vector<int> ids;
      std::vector<Tensor> ws, gs;
      for (const json& p : a[1]) {
        ids.push_back(p[0]);
        ws.push_back(weights.at(p[0].get<int>()));
        gs.push_back(FromJson(p[1], dtype));
      }
      opt->Update(ids, ws, gs);
      for (int i : ids) r.after.push_back(nd::Copy(weights.at(i)));
    } else if (kind == "set_lr_mult" || kind == "set_wd_mult") {
      // MXNet's set_lr_mult/set_wd_mult replace every multiplier: the
      // symbol's attributes (and, for wd, 0 for names that do not decay),
      // then the given ones, an index's before its name's.
      const bool lr = kind == "set_lr_mult";
      const char* attr = lr ? "lr_mult" : "wd_mult";
      std::map<int, double> mult;
      for (const auto& [name, i] : index_of) {
        const bool decays = absl::EndsWith(name, "_weight") || absl::EndsWith(name, "_gamma");
        mult[i] = lr || decays ? 1.0 : 0.0;
        if (c.contains("sym") && c["sym"].contains(name) && c["sym"][name].contains(attr)) {
          mult[i] = c["sym"][name][attr];
        }
      }
      for (const json& p : a[1]) {
        if (p[0].is_string()) mult[index_of.at(p[0].get<std::string>())] = p[1];
      }
      for (const json& p : a[1]) {
        if (!p[0].is_string()) mult[p[0].get<int>()] = p[1];
      }
      for (const auto& [i, m] : mult) {
        if (lr) {
          opt->set_lr_mult(i, m);
        } else {
          opt->set_wd_mult(i, m);
        }
      }
    } else if (kind == "set_learning_rate") {
      opt->set_learning_rate(a[1]);
    } else if (kind == "setattr") {
      const std::string attr = a[1];
      const double v = a[2];
      if (attr == "lr") {
        opt->set_learning_rate(v);
      } else if (attr == "wd") {
        opt->set_wd(v);
      } else if (attr == "rescale_grad") {
        opt->set_rescale_grad(v);
      } else if (attr == "clip_gradient") {
        opt->set_clip_gradient(v);
      } else {
        ADD_FAILURE() << "unknown attribute " << attr;
      }
    } else {
      ADD_FAILURE() << "unknown action " << kind;
    }
  }
  r.num_update = opt->num_update();
  return r;
}

TEST(OptimizerGolden, EveryCaseMatchesMXNet) {
  int replayed = 0;
  for (const json& c : Golden()["optimizer"]) {
    const std::string name = c["name"];
    if (kPythonOnly.count(c["optimizer"].get<std::string>())) continue;
    SCOPED_TRACE(name);
    Replayed r = Replay(c);
    ASSERT_EQ(r.after.size(), c["after"].size());
    const DType dtype = DTypeOf(c["dtype"]);
    // As the Python test: MXNet's float32 hyperparameters bound float64's
    // agreement; pure float16 kernels round per operation in MXNet.
    double rtol = 1e-5, atol = 1e-6;
    if (dtype == DType::kFloat16 && !c["kwargs"].value("multi_precision", false)) {
      rtol = 2e-3;
      atol = 1e-3;
    }
    for (size_t step = 0; step < r.after.size(); ++step) {
      ASSERT_EQ(r.after[step].dtype(), dtype);
      const std::vector<double> got = r.after[step].ToDoubles();
      const std::vector<double> want = FromJson(c["after"][step], DType::kFloat64).ToDoubles();
      ASSERT_EQ(got.size(), want.size());
      for (size_t k = 0; k < got.size(); ++k) {
        EXPECT_NEAR(got[k], want[k], atol + rtol * std::abs(want[k]))
            << "update " << step << " element " << k;
      }
    }
    EXPECT_EQ(r.num_update, c["num_update"].get<int64_t>());
    ++replayed;
  }
  // Every case but LBSGD's and Test's (four of them).
  EXPECT_GE(replayed, 58);
}

TEST(OptimizerGolden, SchedulesMatchMXNet) {
  static const std::map<std::string, std::string> kNames = {{"FactorScheduler", "factor"},
                                                            {"MultiFactorScheduler", "multifactor"},
                                                            {"PolyScheduler", "poly"},
                                                            {"CosineScheduler", "cosine"}};
  int checked = 0;
  for (const json& c : Golden()["lr_scheduler"]) {
    std::string spec = kNames.at(c["class"].get<std::string>()) + ":";
    bool first = true;
    for (const auto& [key, value] : c["kwargs"].items()) {
      absl::StrAppend(&spec, first ? "" : ",", key, "=", ValueText(value));
      first = false;
    }
    SCOPED_TRACE(spec);
    std::unique_ptr<LRScheduler> s = ParseLRScheduler(spec);
    if (!c["set_base_lr"].is_null()) s->set_base_lr(c["set_base_lr"].get<double>());
    ASSERT_EQ(c["queries"].size(), c["values"].size());
    for (size_t q = 0; q < c["queries"].size(); ++q) {
      const double want = c["values"][q];
      EXPECT_NEAR((*s)(c["queries"][q].get<int64_t>()), want, 1e-15 + 1e-12 * std::abs(want))
          << "query " << q << " (num_update " << c["queries"][q] << ")";
    }
    ++checked;
  }
  EXPECT_GE(checked, 10);
}

// ------------------------------------------------------------ by hand

Tensor Vec(const std::vector<double>& v, DType dtype = DType::kFloat32) {
  return Tensor::FromVector(Shape{static_cast<int64_t>(v.size())}, v, dtype);
}

void ExpectNear(const Tensor& t, const std::vector<double>& want, double tol) {
  std::vector<double> got = t.ToDoubles();
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "element " << i;
}

using ::symx::testing::ErrorOf;

TEST(Optimizer, SgdMomentumTwoSteps) {
  // The operator's rates are float32 (0.1f), as MXNet's: 1e-8 for float64.
  auto sgd = CreateOptimizer("sgd:momentum=0.9,learning_rate=0.1");
  Tensor w = Vec({1.0}, DType::kFloat64);
  sgd->Update(3, w, Vec({1.0}, DType::kFloat64));
  ExpectNear(w, {0.9}, 1e-8);  // mom = -0.1
  ASSERT_EQ(sgd->state(3).size(), 1u);
  ExpectNear(sgd->state(3)[0], {-0.1}, 1e-8);
  sgd->Update(3, w, Vec({1.0}, DType::kFloat64));
  ExpectNear(w, {0.71}, 1e-8);  // mom = 0.9 * -0.1 - 0.1
  EXPECT_EQ(sgd->update_count(3), 2);
  EXPECT_EQ(sgd->num_update(), 2);
}

TEST(Optimizer, NamedIndicesDecayOnlyWeightsAndGammas) {
  auto sgd = CreateOptimizer("sgd:learning_rate=1,wd=0.5");
  sgd->set_index_name(0, "fc_weight");
  sgd->set_index_name(1, "fc_bias");
  sgd->set_index_name(2, "bn_gamma");
  sgd->set_wd_mult(1, 2.0);  // an explicit multiplier wins over the name
  Tensor w0 = Vec({1}), w1 = Vec({1}), w2 = Vec({1}), w3 = Vec({1});
  sgd->Update({0, 1, 2}, {w0, w1, w2}, {Vec({0}), Vec({0}), Vec({0})});
  ExpectNear(w0, {0.5}, 1e-7);
  ExpectNear(w1, {0.0}, 1e-7);
  ExpectNear(w2, {0.5}, 1e-7);
  sgd->set_index_name(3, "bn_beta");
  sgd->Update(3, w3, Vec({0}));
  ExpectNear(w3, {1.0}, 1e-7);
  // lars decays *_weight alone.
  auto lars = CreateOptimizer("lars:learning_rate=1,wd=0.5");
  lars->set_index_name(0, "bn_gamma");
  Tensor g = Vec({1});
  lars->Update(0, g, Vec({0}));
  ExpectNear(g, {1.0}, 1e-7);
}

TEST(Optimizer, MultiPrecisionKeepsAFloat32MasterCopy) {
  // 1 + 1e-4 is 1 in bfloat16 and in float16: only the master copy sees the
  // small steps add up.
  for (DType low : {DType::kFloat16, DType::kBFloat16}) {
    for (const char* spec : {"sgd:learning_rate=1e-4,multi_precision=true",
                             "adam:learning_rate=1e-4,multi_precision=true",
                             "nag:learning_rate=1e-4,momentum=0.5,multi_precision=true"}) {
      SCOPED_TRACE(absl::StrCat(spec, " ", DTypeName(low)));
      auto opt = CreateOptimizer(spec);
      Tensor w = Vec({1.0}, low);
      for (int i = 0; i < 200; ++i) opt->Update(0, w, Vec({-1.0}, low));
      ASSERT_TRUE(opt->master_copy(0).defined());
      EXPECT_EQ(opt->master_copy(0).dtype(), DType::kFloat32);
      EXPECT_GT(opt->master_copy(0).ToDoubles()[0], 1.015);
      EXPECT_GT(w.ToDoubles()[0], 1.0);  // the cast of the copy
      EXPECT_EQ(w.dtype(), low);
    }
  }
  // Without multi_precision there is no copy.
  auto sgd = CreateOptimizer("sgd");
  Tensor w = Vec({1.0}, DType::kFloat16);
  sgd->Update(0, w, Vec({-1.0}, DType::kFloat16));
  EXPECT_FALSE(sgd->master_copy(0).defined());
}

TEST(Optimizer, AggregatesInChunksOfTheEnvironmentSize) {
  // MXNet's SGD runs multi_sgd_mom_update over groups of
  // MXNET_OPTIMIZER_AGGREGATION_SIZE weights; the numbers are those of one
  // weight at a time, which is what the chunking must not change.
  std::vector<Tensor> a, b;
  for (const char* size : {"4", "2", "0"}) {
    auto sgd = CreateOptimizer(
        absl::StrCat("sgd:momentum=0.9,learning_rate=0.1,wd=0.01,aggregate_num=", size));
    EXPECT_EQ(sgd->aggregate_num(), static_cast<size_t>(std::atoi(size)));
    std::vector<Tensor> ws, gs;
    std::vector<int> ids;
    for (int i = 0; i < 5; ++i) {
      ids.push_back(i);
      ws.push_back(Vec({1.0 + i, -2.0}));
      gs.push_back(Vec({0.5, 0.25 * i}));
    }
    sgd->Update(ids, ws, gs);
    sgd->Update(ids, ws, gs);
    (a.empty() ? a : b) = ws;
    if (!b.empty()) {
      for (int i = 0; i < 5; ++i) ExpectNear(b[i], a[i].ToDoubles(), 0);
    }
  }
}

TEST(Optimizer, LambListsTakeTheAggregatedOperatorWithThePhasesNumbers) {
  // Default: _multi_lamb_update over the list (MXNet's Updater path);
  // aggregate_num 1 (MXNET_OPTIMIZER_AGGREGATION_SIZE=1): the phases per weight.
  std::vector<std::vector<double>> results[2];
  for (int run = 0; run < 2; ++run) {
    OptimizerOptions o;
    if (run == 1) o.aggregate_num = 1;
    auto lamb = CreateOptimizer("lamb:learning_rate=0.01,wd=0.01,lower_bound=0.1,upper_bound=5", o);
    EXPECT_EQ(lamb->aggregate_num(), run == 0 ? 45u : 0u);
    std::vector<Tensor> ws = {Vec({1.0, -2.0, 0.5}), Vec({0.3, 0.4}), Vec({-1.5})};
    for (int step = 0; step < 3; ++step) {
      lamb->Update({0, 1, 2}, ws, {Vec({0.2, 0.1, -0.3}), Vec({-1.0, 0.5}), Vec({0.25})});
    }
    for (const Tensor& w : ws) results[run].push_back(w.ToDoubles());
  }
  for (size_t k = 0; k < 3; ++k) ExpectNear(Vec(results[0][k]), results[1][k], 1e-6);
  EXPECT_NE(results[0][0], (std::vector<double>{1.0, -2.0, 0.5}));
}

TEST(Optimizer, EveryNamedOptimizerSteps) {
  for (const std::string& name : OptimizerNames()) {
    SCOPED_TRACE(name);
    auto opt = CreateOptimizer(name);
    EXPECT_EQ(opt->name(), name);
    Tensor w = Tensor::FromVector(Shape{2, 2}, {1, -1, 0.5, 2}, DType::kFloat32);
    const std::vector<double> before = w.ToDoubles();
    for (int i = 0; i < 3; ++i) {
      opt->Update(0, w, Tensor::FromVector(Shape{2, 2}, {0.3, -0.2, 0.1, 0.4}, DType::kFloat32));
    }
    EXPECT_NE(w.ToDoubles(), before);
    for (double v : w.ToDoubles()) EXPECT_TRUE(std::isfinite(v));
    EXPECT_EQ(opt->update_count(0), 3);
    EXPECT_FALSE(opt->Describe().empty());
  }
}

TEST(Optimizer, AdamWDecaysApartFromTheGradient) {
  // One step from zero state: mean = 0.1 g, var = 0.001 g^2, so with bias
  // correction lr_t * mean / sqrt(var) = lr * sign(g) (epsilon aside), and
  // the decay adds lr_t * wd * w.
  auto adamw = CreateOptimizer("adamw:learning_rate=0.01,wd=0.1,epsilon=0");
  Tensor w = Vec({2.0, -1.0});
  adamw->Update(0, w, Vec({0.5, -0.25}));
  const double lr_t = 0.01 * std::sqrt(1 - 0.999) / (1 - 0.9);
  ExpectNear(w, {2.0 - 0.01 - lr_t * 0.1 * 2.0, -1.0 + 0.01 + lr_t * 0.1 * 1.0}, 1e-6);
  // A rescale that is not finite skips the step (the operator's rule).
  adamw->set_rescale_grad(std::nan(""));
  const std::vector<double> before = w.ToDoubles();
  adamw->Update(0, w, Vec({0.5, 0.5}));
  ExpectNear(w, before, 0);
}

TEST(Optimizer, Errors) {
  EXPECT_CONTAINS(ErrorOf([] { CreateOptimizer("adagrid"); }), "unknown optimizer 'adagrid'");
  EXPECT_CONTAINS(ErrorOf([] { CreateOptimizer("adam:beta3=0.1"); }), "no setting 'beta3'");
  EXPECT_CONTAINS(ErrorOf([] { CreateOptimizer("adam:beta1=x"); }), "beta1 must be a number");
  EXPECT_CONTAINS(ErrorOf([] { CreateOptimizer("sgd:momentum=1.5"); }), "momentum must be in");
  EXPECT_CONTAINS(ErrorOf([] { CreateOptimizer("sgd:momentum"); }), "not KEY=VALUE");
  EXPECT_CONTAINS(ErrorOf([] { CreateOptimizer("sgd:wd=1,wd=2"); }), "sets 'wd' twice");
  EXPECT_CONTAINS(ErrorOf([] { CreateOptimizer("sgd:wd=-1"); }), "wd must not be negative");
  auto sgd = CreateOptimizer("sgd");
  sgd->set_index_name(4, "fc_weight");
  EXPECT_CONTAINS(ErrorOf([&] {
                    sgd->Update(4, Vec({1, 2}), Vec({1}));
                  }),
                  "sgd update of index 4 (fc_weight): weight shape [2] differs");
  EXPECT_CONTAINS(ErrorOf([&] { sgd->Update(0, Vec({1}), Vec({1}, DType::kFloat64)); }),
                  "differs from gradient dtype float64");
  EXPECT_CONTAINS(ErrorOf([&] {
                    sgd->Update(0, Tensor::FromVector(Shape{1}, {1}, DType::kInt32),
                                Tensor::FromVector(Shape{1}, {1}, DType::kInt32));
                  }),
                  "not a floating-point type");
  EXPECT_CONTAINS(ErrorOf([&] {
                    sgd->Update({0, 1}, {Vec({1})}, {Vec({1})});
                  }),
                  "2 indices, 1 weights");
  OptimizerOptions o;
  o.lr_scheduler = ParseLRScheduler("factor:step=2");
  auto scheduled = CreateOptimizer("sgd", o);
  EXPECT_CONTAINS(ErrorOf([&] { scheduled->set_learning_rate(0.1); }), "lr schedule sets the rate");
  auto group = CreateOptimizer("groupadagrad");
  EXPECT_CONTAINS(ErrorOf([&] { group->Update(0, Vec({1}), Vec({1})); }), "2-d weights");
}

}  // namespace
}  // namespace symx::train
