#include "graph/param.h"

#include <cmath>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "graph/shape.h"

namespace symx {
namespace {

bool ParseBoolText(absl::string_view s, bool* out) {
  if (s == "True" || s == "true" || s == "1") {
    *out = true;
    return true;
  }
  if (s == "False" || s == "false" || s == "0") {
    *out = false;
    return true;
  }
  return false;
}

bool ParseIntText(absl::string_view s, int64_t* out) {
  s = absl::StripAsciiWhitespace(s);
  if (!s.empty() && (s.back() == 'L' || s.back() == 'l')) s.remove_suffix(1);
  return absl::SimpleAtoi(s, out);
}

bool ParseFloatText(absl::string_view s, double* out) {
  s = absl::StripAsciiWhitespace(s);
  if (s == "inf" || s == "+inf") {
    *out = INFINITY;
    return true;
  }
  if (s == "-inf") {
    *out = -INFINITY;
    return true;
  }
  return absl::SimpleAtod(s, out) && !std::isnan(*out);
}

// The record RecordParams fills on this thread, if it is running.
thread_local ParamRecord* g_record = nullptr;

std::string TupleText(const std::vector<int64_t>& t) {
  return absl::StrCat("(", absl::StrJoin(t, ", "), ")");
}

std::string FloatText(double v) { return absl::StrFormat("%.17g", v); }

}  // namespace

bool ParamReader::Recording() { return g_record != nullptr; }

void ParamReader::Note(absl::string_view key, bool required, std::string default_text) {
  for (const ParamSpec& s : g_record->specs) {
    if (s.key == key) return;  // asked twice (e.g. Enum with a default asks Enum)
  }
  g_record->specs.push_back(ParamSpec{std::string(key), required, std::move(default_text)});
}

ParamRecord RecordParams(const std::function<absl::StatusOr<OpParamPtr>(const AttrMap&)>& parse,
                         const AttrMap& attrs) {
  ParamRecord record;
  ParamRecord* outer = g_record;
  g_record = &record;
  (void)parse(attrs);
  g_record = outer;
  return record;
}

const std::string* ParamReader::Lookup(absl::string_view key, bool required) {
  known_.insert(std::string(key));
  auto it = attrs_.find(std::string(key));
  if (it == attrs_.end()) {
    if (required && error_.ok()) {
      error_ =
          absl::InvalidArgumentError(absl::StrCat("required attribute '", key, "' is missing"));
    }
    return nullptr;
  }
  return &it->second;
}

void ParamReader::Bad(absl::string_view key, const std::string& value, absl::string_view expected) {
  if (Recording()) {
    g_record->refused.push_back(absl::StrCat(key, ": \"", value, "\" (expected ", expected, ")"));
  }
  if (!error_.ok()) return;
  error_ = absl::InvalidArgumentError(absl::StrCat("invalid value for attribute '", key, "': \"",
                                                   value, "\" (expected ", expected, ")"));
}

void ParamReader::Fail(absl::string_view key, absl::string_view why) {
  auto it = attrs_.find(std::string(key));
  std::string value = it == attrs_.end() ? "" : it->second;
  // A check of a value that was never given (a required one, missing) is not
  // a refusal of a spelling.
  if (Recording() && it != attrs_.end()) {
    g_record->refused.push_back(absl::StrCat(key, ": \"", value, "\" (", why, ")"));
  }
  if (!error_.ok()) return;
  error_ = absl::InvalidArgumentError(
      absl::StrCat("invalid value for attribute '", key, "': \"", value, "\" (", why, ")"));
}

int64_t ParamReader::Int(absl::string_view key) {
  if (Recording()) Note(key, true, "");
  const std::string* v = Lookup(key, true);
  int64_t out = 0;
  if (v && !ParseIntText(*v, &out)) Bad(key, *v, "an integer");
  return out;
}

int64_t ParamReader::Int(absl::string_view key, int64_t def) {
  if (Recording()) Note(key, false, absl::StrCat(def));
  const std::string* v = Lookup(key, false);
  if (!v) return def;
  int64_t out = def;
  if (!ParseIntText(*v, &out)) Bad(key, *v, "an integer");
  return out;
}

std::optional<int64_t> ParamReader::OptionalInt(absl::string_view key) {
  if (Recording()) Note(key, false, "None");
  const std::string* v = Lookup(key, false);
  if (!v || *v == "None") return std::nullopt;
  int64_t out = 0;
  if (!ParseIntText(*v, &out)) Bad(key, *v, "an integer or None");
  return out;
}

std::optional<int64_t> ParamReader::OptionalInt(absl::string_view key, std::optional<int64_t> def) {
  if (Recording()) Note(key, false, def ? absl::StrCat(*def) : "None");
  if (attrs_.find(std::string(key)) == attrs_.end()) {
    known_.insert(std::string(key));
    return def;
  }
  return OptionalInt(key);
}

double ParamReader::Float(absl::string_view key) {
  if (Recording()) Note(key, true, "");
  const std::string* v = Lookup(key, true);
  double out = 0;
  if (v && !ParseFloatText(*v, &out)) Bad(key, *v, "a number");
  return out;
}

double ParamReader::Float(absl::string_view key, double def) {
  if (Recording()) Note(key, false, FloatText(def));
  const std::string* v = Lookup(key, false);
  if (!v) return def;
  double out = def;
  if (!ParseFloatText(*v, &out)) Bad(key, *v, "a number");
  return out;
}

double ParamReader::FloatOrNan(absl::string_view key, double def) {
  if (Recording()) Note(key, false, FloatText(def));
  const std::string* v = Lookup(key, false);
  if (!v) return def;
  const std::string lower = absl::AsciiStrToLower(absl::StripAsciiWhitespace(*v));
  if (lower == "nan" || lower == "-nan" || lower == "+nan") return NAN;
  double out = def;
  if (!ParseFloatText(*v, &out)) Bad(key, *v, "a number or nan");
  return out;
}

std::optional<double> ParamReader::OptionalFloat(absl::string_view key) {
  if (Recording()) Note(key, false, "None");
  const std::string* v = Lookup(key, false);
  if (!v || *v == "None") return std::nullopt;
  double out = 0;
  if (!ParseFloatText(*v, &out)) Bad(key, *v, "a number or None");
  return out;
}

bool ParamReader::Bool(absl::string_view key, bool def) {
  if (Recording()) Note(key, false, def ? "1" : "0");
  const std::string* v = Lookup(key, false);
  if (!v) return def;
  bool out = def;
  if (!ParseBoolText(*v, &out)) Bad(key, *v, "True, False, true, false, 1 or 0");
  return out;
}

bool ParamReader::BoolOrNone(absl::string_view key, bool def) {
  if (Recording()) Note(key, false, def ? "1" : "0");
  auto it = attrs_.find(std::string(key));
  if (it != attrs_.end() && it->second == "None") {
    known_.insert(std::string(key));
    return def;
  }
  return Bool(key, def);
}

std::string ParamReader::String(absl::string_view key) {
  if (Recording()) Note(key, true, "");
  const std::string* v = Lookup(key, true);
  return v ? *v : std::string();
}

std::string ParamReader::String(absl::string_view key, absl::string_view def) {
  if (Recording()) Note(key, false, std::string(def));
  const std::string* v = Lookup(key, false);
  return v ? *v : std::string(def);
}

std::string ParamReader::Enum(absl::string_view key, const std::vector<std::string>& choices) {
  if (Recording()) Note(key, true, "");
  const std::string* v = Lookup(key, true);
  if (!v) return choices.empty() ? "" : choices[0];
  for (const std::string& c : choices) {
    if (*v == c) return c;
  }
  Bad(key, *v, absl::StrCat("one of ", absl::StrJoin(choices, ", ")));
  return choices.empty() ? "" : choices[0];
}

std::string ParamReader::Enum(absl::string_view key, const std::vector<std::string>& choices,
                              absl::string_view def) {
  if (Recording()) Note(key, false, std::string(def));
  if (attrs_.find(std::string(key)) == attrs_.end()) {
    known_.insert(std::string(key));
    return std::string(def);
  }
  return Enum(key, choices);
}

std::vector<int64_t> ParamReader::Tuple(absl::string_view key) {
  if (Recording()) Note(key, true, "");
  const std::string* v = Lookup(key, true);
  if (!v) return {};
  absl::StatusOr<std::vector<int64_t>> t = ParseIntTuple(*v);
  if (!t.ok()) {
    Bad(key, *v, "a tuple of integers such as (3, 3)");
    return {};
  }
  return *t;
}

std::vector<int64_t> ParamReader::Tuple(absl::string_view key, const std::vector<int64_t>& def) {
  if (Recording()) Note(key, false, TupleText(def));
  if (attrs_.find(std::string(key)) == attrs_.end()) {
    known_.insert(std::string(key));
    return def;
  }
  return Tuple(key);
}

std::optional<std::vector<int64_t>> ParamReader::OptionalTuple(absl::string_view key) {
  if (Recording()) Note(key, false, "None");
  const std::string* v = Lookup(key, false);
  if (!v || *v == "None") return std::nullopt;
  absl::StatusOr<std::vector<int64_t>> t = ParseIntTuple(*v);
  if (!t.ok()) {
    Bad(key, *v, "a tuple of integers such as (3, 3), or None");
    return std::nullopt;
  }
  return *t;
}

std::vector<double> ParamReader::FloatTuple(absl::string_view key,
                                            const std::vector<double>& def) {
  if (Recording()) {
    std::vector<std::string> parts;
    for (double d : def) parts.push_back(FloatText(d));
    Note(key, false, absl::StrCat("(", absl::StrJoin(parts, ", "), ")"));
  }
  const std::string* v = Lookup(key, false);
  if (!v) return def;
  absl::StatusOr<std::vector<double>> t = ParseFloatTuple(*v);
  if (!t.ok()) {
    Bad(key, *v, "a tuple of floats such as (0.5, 1)");
    return def;
  }
  return *t;
}

std::vector<double> ParamReader::FloatTuple(absl::string_view key) {
  if (Recording()) Note(key, true, "");
  if (!Lookup(key, true)) return {};
  return FloatTuple(key, {});
}

DType ParamReader::Dtype(absl::string_view key, DType def) {
  if (Recording()) Note(key, false, std::string(DTypeName(def)));
  if (attrs_.find(std::string(key)) == attrs_.end()) {
    known_.insert(std::string(key));
    return def;
  }
  return Dtype(key);
}

DType ParamReader::Dtype(absl::string_view key) {
  if (Recording()) Note(key, true, "");
  const std::string* v = Lookup(key, true);
  if (!v) return DType::kUnknown;
  absl::StatusOr<DType> t = ParseDType(*v);
  if (!t.ok()) {
    Bad(key, *v, "a dtype name such as float32");
    return DType::kUnknown;
  }
  return *t;
}

std::optional<DType> ParamReader::OptionalDtype(absl::string_view key) {
  if (Recording()) Note(key, false, "None");
  const std::string* v = Lookup(key, false);
  if (!v || *v == "None") return std::nullopt;
  absl::StatusOr<DType> t = ParseDType(*v);
  if (!t.ok()) {
    Bad(key, *v, "a dtype name such as float32, or None");
    return std::nullopt;
  }
  return *t;
}

absl::StatusOr<OpParamPtr> ParamReader::Finish(OpParamPtr param) {
  if (Recording()) {
    for (const auto& [key, value] : attrs_) {
      if (!IsDunderKey(key) && !known_.count(key)) g_record->unknown.push_back(key);
    }
  }
  if (!error_.ok()) return error_;
  for (const auto& [key, value] : attrs_) {
    if (IsDunderKey(key) || known_.count(key)) continue;
    std::string accepted =
        known_.empty() ? "none" : absl::StrJoin(known_.begin(), known_.end(), ", ");
    return absl::InvalidArgumentError(
        absl::StrCat("unknown attribute '", key, "' = \"", value, "\" (accepted: ", accepted, ")"));
  }
  return param;
}

absl::StatusOr<OpParamPtr> ParseNoParams(const AttrMap& attrs) {
  ParamReader r(attrs);
  return r.Finish(std::make_shared<OpParam>());
}

}  // namespace symx
