#include "tools/symx/flags.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace symx::cli {
namespace {

bool Contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

absl::StatusOr<std::pair<std::string, std::string>> SplitAssignment(absl::string_view text,
                                                                    absl::string_view flag) {
  size_t eq = text.find('=');
  if (eq == absl::string_view::npos || eq == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag, " expects NAME=VALUE, got \"", text, "\""));
  }
  return std::make_pair(std::string(text.substr(0, eq)), std::string(text.substr(eq + 1)));
}

}  // namespace

absl::StatusOr<ParsedArgs> ParseArgs(const std::vector<std::string>& args,
                                     const std::vector<std::string>& value_flags,
                                     const std::vector<std::string>& switch_flags) {
  ParsedArgs out;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (!absl::StartsWith(a, "-") || a == "-") {
      out.positional.push_back(a);
      continue;
    }
    std::string flag = a;
    std::string value;
    bool has_value = false;
    if (size_t eq = a.find('='); eq != std::string::npos && absl::StartsWith(a, "--")) {
      flag = a.substr(0, eq);
      value = a.substr(eq + 1);
      has_value = true;
    }
    if (Contains(switch_flags, flag)) {
      if (has_value) return absl::InvalidArgumentError(absl::StrCat(flag, " takes no value"));
      out.switches.push_back(flag);
    } else if (Contains(value_flags, flag)) {
      if (!has_value) {
        if (i + 1 >= args.size()) {
          return absl::InvalidArgumentError(absl::StrCat(flag, " needs a value"));
        }
        value = args[++i];
      }
      out.values.emplace(flag, value);
    } else {
      return absl::InvalidArgumentError(absl::StrCat("unknown option ", flag));
    }
  }
  return out;
}

absl::StatusOr<std::pair<std::string, Shape>> ParseShapeFlag(absl::string_view text) {
  auto kv = SplitAssignment(text, "--shape");
  if (!kv.ok()) return kv.status();
  absl::StatusOr<std::vector<int64_t>> dims = ParseIntTuple(kv->second);
  if (!dims.ok() || dims->empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--shape ", text, ": expected NAME=D0,D1,... with non-negative integers"));
  }
  for (int64_t d : *dims) {
    if (d < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("--shape ", text, ": dimensions must not be negative"));
    }
  }
  return std::make_pair(kv->first, Shape(*dims));
}

absl::StatusOr<std::pair<std::string, DType>> ParseDtypeFlag(absl::string_view text) {
  auto kv = SplitAssignment(text, "--dtype");
  if (!kv.ok()) return kv.status();
  absl::StatusOr<DType> t = ParseDType(kv->second);
  if (!t.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("--dtype ", text, ": ", t.status().message()));
  }
  return std::make_pair(kv->first, *t);
}

absl::StatusOr<std::pair<std::string, std::string>> ParseNameValueFlag(absl::string_view text,
                                                                       absl::string_view flag) {
  auto kv = SplitAssignment(text, flag);
  if (!kv.ok()) return kv.status();
  if (kv->second.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(flag, " ", text, ": the value is empty"));
  }
  return kv;
}

absl::StatusOr<std::pair<std::string, Context>> ParseGroup2CtxFlag(absl::string_view text) {
  auto kv = ParseNameValueFlag(text, "--group2ctx");
  if (!kv.ok()) return kv.status();
  absl::StatusOr<Context> ctx = ParseContext(kv->second);
  if (!ctx.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--group2ctx ", text, ": ", ctx.status().message()));
  }
  return std::make_pair(kv->first, *ctx);
}

}  // namespace symx::cli
