#include "train/initializer.h"

#include <cmath>
#include <functional>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "graph/error.h"
#include "nlohmann/json.hpp"

namespace symx::train {
namespace {

using Json = nlohmann::ordered_json;

[[noreturn]] void Fail(const std::string& message) {
  throw Error(absl::InvalidArgumentError(message));
}

// Draws arr.size() values with `draw` and stores them (converted) into `arr`.
void FillWith(const Tensor& arr, const std::function<double()>& draw) {
  std::vector<double> values(static_cast<size_t>(arr.size()));
  for (double& v : values) v = draw();
  Tensor host = Tensor::FromVector(arr.shape(), values, arr.dtype());
  ThrowIfError(CopyTensor(host, arr));
}

std::string FactorName(Xavier::FactorType f) {
  switch (f) {
    case Xavier::FactorType::kAvg:
      return "avg";
    case Xavier::FactorType::kIn:
      return "in";
    case Xavier::FactorType::kOut:
      return "out";
  }
  return "avg";
}

// A number given as a JSON number or a numeric string ("2", as Python may dump).
double NumberArg(const Json& kwargs, const std::string& key, double fallback,
                 const std::string& text) {
  if (!kwargs.contains(key)) return fallback;
  const Json& v = kwargs[key];
  if (v.is_number()) return v.get<double>();
  double d;
  if (v.is_string() && absl::SimpleAtod(v.get<std::string>(), &d)) return d;
  Fail(absl::StrCat("initializer ", text, ": '", key, "' must be a number, got ", v.dump()));
}

std::string StringArg(const Json& kwargs, const std::string& key, const std::string& fallback,
                      const std::string& text) {
  if (!kwargs.contains(key)) return fallback;
  const Json& v = kwargs[key];
  if (!v.is_string()) {
    Fail(absl::StrCat("initializer ", text, ": '", key, "' must be a string, got ", v.dump()));
  }
  return v.get<std::string>();
}

Xavier::FactorType ParseFactor(const std::string& s, const std::string& text) {
  if (s == "avg") return Xavier::FactorType::kAvg;
  if (s == "in") return Xavier::FactorType::kIn;
  if (s == "out") return Xavier::FactorType::kOut;
  Fail(absl::StrCat("initializer ", text, ": factor_type '", s, "' is not avg, in or out"));
}

void CheckKeys(const Json& kwargs, const std::vector<std::string>& known, const std::string& text) {
  for (auto it = kwargs.begin(); it != kwargs.end(); ++it) {
    bool ok = false;
    for (const std::string& k : known) ok |= (k == it.key());
    if (!ok) Fail(absl::StrCat("initializer ", text, ": unknown argument '", it.key(), "'"));
  }
}

}  // namespace

void Constant::InitWeight(const std::string&, const Tensor& arr, Rng&) const { arr.Fill(value_); }

std::string Constant::Dumps() const {
  return Json::array({"constant", Json{{"value", value_}}}).dump();
}

void Uniform::InitWeight(const std::string&, const Tensor& arr, Rng& rng) const {
  std::uniform_real_distribution<double> dist(-scale_, scale_);
  FillWith(arr, [&] { return dist(rng); });
}

std::string Uniform::Dumps() const {
  return Json::array({"uniform", Json{{"scale", scale_}}}).dump();
}

void Normal::InitWeight(const std::string&, const Tensor& arr, Rng& rng) const {
  std::normal_distribution<double> dist(0.0, sigma_);
  FillWith(arr, [&] { return dist(rng); });
}

std::string Normal::Dumps() const {
  return Json::array({"normal", Json{{"sigma", sigma_}}}).dump();
}

double Xavier::Scale(const std::string& name, const Shape& shape) const {
  if (!shape.fully_known() || shape.ndim() < 2) {
    Fail(absl::StrCat("Xavier initializer cannot be applied to vector ", name, " (shape ",
                      shape.ToString(), "). It requires at least 2D."));
  }
  double hw_scale = 1.0;
  for (int i = 2; i < shape.ndim(); ++i) hw_scale *= static_cast<double>(shape[i]);
  const double fan_in = static_cast<double>(shape[1]) * hw_scale;
  const double fan_out = static_cast<double>(shape[0]) * hw_scale;
  double factor = 1.0;
  switch (factor_type_) {
    case FactorType::kAvg:
      factor = (fan_in + fan_out) / 2.0;
      break;
    case FactorType::kIn:
      factor = fan_in;
      break;
    case FactorType::kOut:
      factor = fan_out;
      break;
  }
  if (factor <= 0) {
    Fail(absl::StrCat("Xavier initializer: ", name, " (shape ", shape.ToString(),
                      ") has a zero fan"));
  }
  return std::sqrt(magnitude_ / factor);
}

void Xavier::InitWeight(const std::string& name, const Tensor& arr, Rng& rng) const {
  const double scale = Scale(name, arr.shape());
  if (rnd_type_ == RndType::kUniform) {
    std::uniform_real_distribution<double> dist(-scale, scale);
    FillWith(arr, [&] { return dist(rng); });
  } else {
    std::normal_distribution<double> dist(0.0, scale);
    FillWith(arr, [&] { return dist(rng); });
  }
}

std::string Xavier::Dumps() const {
  return Json::array({KindName(),
                      Json{{"rnd_type", rnd_type_ == RndType::kUniform ? "uniform" : "gaussian"},
                           {"factor_type", FactorName(factor_type_)},
                           {"magnitude", magnitude_}}})
      .dump();
}

std::string MSRAPrelu::Dumps() const {
  return Json::array(
             {KindName(), Json{{"factor_type", FactorName(factor_type_)}, {"slope", slope_}}})
      .dump();
}

std::unique_ptr<Initializer> CreateInitializer(const std::string& description) {
  const std::string text(absl::StripAsciiWhitespace(description));
  std::string name;
  Json kwargs = Json::object();
  if (absl::StartsWith(text, "[") || absl::StartsWith(text, "\"")) {
    Json doc = Json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (doc.is_discarded()) Fail(absl::StrCat("initializer ", text, ": malformed JSON"));
    if (doc.is_string()) {
      name = doc.get<std::string>();
    } else if (doc.is_array() && !doc.empty() && doc.size() <= 2 && doc[0].is_string() &&
               (doc.size() == 1 || doc[1].is_object())) {
      name = doc[0].get<std::string>();
      if (doc.size() == 2) kwargs = doc[1];
    } else {
      Fail(absl::StrCat("initializer ", text, ": expected [\"name\", {arguments}]"));
    }
  } else {
    name = text;
  }
  name = absl::AsciiStrToLower(name);
  if (name == "zero" || name == "zeros") {
    CheckKeys(kwargs, {}, text);
    return std::make_unique<Constant>(0.0);
  }
  if (name == "one" || name == "ones") {
    CheckKeys(kwargs, {}, text);
    return std::make_unique<Constant>(1.0);
  }
  if (name == "constant") {
    CheckKeys(kwargs, {"value"}, text);
    return std::make_unique<Constant>(NumberArg(kwargs, "value", 0.0, text));
  }
  if (name == "uniform") {
    CheckKeys(kwargs, {"scale"}, text);
    return std::make_unique<Uniform>(NumberArg(kwargs, "scale", 0.07, text));
  }
  if (name == "normal") {
    CheckKeys(kwargs, {"sigma"}, text);
    return std::make_unique<Normal>(NumberArg(kwargs, "sigma", 0.01, text));
  }
  if (name == "xavier") {
    CheckKeys(kwargs, {"rnd_type", "factor_type", "magnitude"}, text);
    std::string rnd = StringArg(kwargs, "rnd_type", "uniform", text);
    if (rnd != "uniform" && rnd != "gaussian") {
      Fail(absl::StrCat("initializer ", text, ": rnd_type '", rnd, "' is not uniform or gaussian"));
    }
    return std::make_unique<Xavier>(
        rnd == "uniform" ? Xavier::RndType::kUniform : Xavier::RndType::kGaussian,
        ParseFactor(StringArg(kwargs, "factor_type", "avg", text), text),
        NumberArg(kwargs, "magnitude", 3.0, text));
  }
  if (name == "msraprelu") {
    CheckKeys(kwargs, {"factor_type", "slope"}, text);
    return std::make_unique<MSRAPrelu>(
        ParseFactor(StringArg(kwargs, "factor_type", "avg", text), text),
        NumberArg(kwargs, "slope", 0.25, text));
  }
  if (name == "orthogonal" || name == "bilinear" || name == "load" || name == "mixed" ||
      name == "lstmbias" || name == "fusedrnn") {
    Fail(absl::StrCat("initializer '", name,
                      "' is not supported by symx (supported: zeros, ones, "
                      "constant, uniform, normal, xavier, msraprelu)"));
  }
  Fail(absl::StrCat("unknown initializer '", text,
                    "' (supported: zeros, ones, constant, uniform, normal, xavier, msraprelu)"));
}

void InitParameter(const Initializer& default_init, const std::string& name,
                   const std::string& init_attr, const Tensor& arr, Rng& rng) {
  if (!init_attr.empty()) {
    CreateInitializer(init_attr)->InitWeight(name, arr, rng);
    return;
  }
  auto ends = [&](absl::string_view suffix) { return absl::EndsWith(name, suffix); };
  if (ends("weight")) {
    default_init.InitWeight(name, arr, rng);
  } else if (ends("bias") || ends("beta") || ends("moving_mean") || ends("moving_inv_var") ||
             ends("moving_avg") || ends("min")) {
    arr.Fill(0.0);
  } else if (ends("gamma") || ends("moving_var") || ends("max")) {
    arr.Fill(1.0);
  } else {
    Fail(absl::StrCat("Unknown initialization pattern for ", name,
                      ". Default initialization is limited to \"weight\", \"bias\", \"gamma\" "
                      "(1.0), and \"beta\" (0.0); give the variable an __init__ attribute"));
  }
}

void InitParameters(const Symbol& symbol, const Initializer& default_init,
                    const std::map<std::string, Tensor>& arrays, const std::set<std::string>& skip,
                    Rng& rng) {
  std::map<std::string, AttrMap> attrs = symbol.AttrDict();
  for (const auto& [name, arr] : arrays) {
    if (skip.count(name) || !arr.defined()) continue;
    std::string init_attr;
    auto it = attrs.find(name);
    if (it != attrs.end()) {
      auto init = it->second.find("__init__");
      if (init != it->second.end()) init_attr = init->second;
    }
    InitParameter(default_init, name, init_attr, arr, rng);
  }
}

}  // namespace symx::train
