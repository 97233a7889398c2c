#include "train/spec.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "graph/error.h"

namespace symx::train {
namespace {

[[noreturn]] void Fail(const std::string& message) {
  throw Error(absl::InvalidArgumentError(message));
}

// Splits on commas outside brackets.
std::vector<std::string> SplitTopLevel(absl::string_view text) {
  std::vector<std::string> parts;
  std::string cur;
  int depth = 0;
  for (char c : text) {
    if (c == '[' || c == '(') ++depth;
    if ((c == ']' || c == ')') && depth > 0) --depth;
    if (c == ',' && depth == 0) {
      parts.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  parts.push_back(cur);
  return parts;
}

}  // namespace

Spec ParseSpec(const std::string& text, const std::string& what) {
  Spec spec;
  const size_t colon = text.find(':');
  spec.name = absl::AsciiStrToLower(absl::StripAsciiWhitespace(text.substr(0, colon)));
  if (spec.name.empty()) Fail(absl::StrCat(what, " '", text, "' has no name"));
  if (colon == std::string::npos) return spec;
  for (const std::string& part : SplitTopLevel(absl::string_view(text).substr(colon + 1))) {
    const size_t eq = part.find('=');
    if (eq == std::string::npos) {
      Fail(absl::StrCat(what, " '", text, "': setting '", part, "' is not KEY=VALUE"));
    }
    const std::string key(absl::StripAsciiWhitespace(part.substr(0, eq)));
    const std::string value(absl::StripAsciiWhitespace(part.substr(eq + 1)));
    if (key.empty()) Fail(absl::StrCat(what, " '", text, "': setting '", part, "' has no key"));
    if (!spec.values.emplace(key, value).second) {
      Fail(absl::StrCat(what, " '", text, "' sets '", key, "' twice"));
    }
  }
  return spec;
}

void SpecReader::Fail(const std::string& key, const std::string& message) const {
  train::Fail(absl::StrCat(what_, ": ", key, " ", message));
}

const std::string* SpecReader::Take(const std::string& key) {
  asked_.insert(key);
  auto it = spec_.values.find(key);
  return it == spec_.values.end() ? nullptr : &it->second;
}

std::optional<double> SpecReader::Double(const std::string& key) {
  const std::string* v = Take(key);
  if (v == nullptr) return std::nullopt;
  double d;
  if (!absl::SimpleAtod(*v, &d)) Fail(key, absl::StrCat("must be a number, got '", *v, "'"));
  return d;
}

std::optional<int64_t> SpecReader::Int(const std::string& key) {
  const std::string* v = Take(key);
  if (v == nullptr) return std::nullopt;
  int64_t i;
  if (!absl::SimpleAtoi(*v, &i)) Fail(key, absl::StrCat("must be an integer, got '", *v, "'"));
  return i;
}

std::optional<bool> SpecReader::Bool(const std::string& key) {
  const std::string* v = Take(key);
  if (v == nullptr) return std::nullopt;
  const std::string lower = absl::AsciiStrToLower(*v);
  if (lower == "true" || lower == "1") return true;
  if (lower == "false" || lower == "0") return false;
  Fail(key, absl::StrCat("must be true or false, got '", *v, "'"));
}

std::optional<std::string> SpecReader::String(const std::string& key) {
  const std::string* v = Take(key);
  if (v == nullptr) return std::nullopt;
  return *v;
}

std::optional<std::vector<int64_t>> SpecReader::IntList(const std::string& key) {
  const std::string* v = Take(key);
  if (v == nullptr) return std::nullopt;
  absl::string_view body = absl::StripAsciiWhitespace(*v);
  if (absl::ConsumePrefix(&body, "[")) {
    if (!absl::ConsumeSuffix(&body, "]")) Fail(key, absl::StrCat("has an open '[': '", *v, "'"));
  } else if (absl::ConsumePrefix(&body, "(")) {
    if (!absl::ConsumeSuffix(&body, ")")) Fail(key, absl::StrCat("has an open '(': '", *v, "'"));
  }
  std::vector<int64_t> out;
  for (absl::string_view item : absl::StrSplit(body, ',')) {
    item = absl::StripAsciiWhitespace(item);
    int64_t i;
    if (!absl::SimpleAtoi(item, &i)) {
      Fail(key, absl::StrCat("must be a list of integers, got '", *v, "'"));
    }
    out.push_back(i);
  }
  return out;
}

void SpecReader::Finish() const {
  for (const auto& [key, value] : spec_.values) {
    if (asked_.count(key) == 0) {
      train::Fail(absl::StrCat(what_, " has no setting '", key,
                               "' (it has: ", absl::StrJoin(asked_, ", "), ")"));
    }
  }
}

}  // namespace symx::train
