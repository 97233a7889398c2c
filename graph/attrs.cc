#include "graph/attrs.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace symx {

const std::vector<std::string>& HiddenKeys() {
  static const auto* keys = new std::vector<std::string>{"ctx_group", "lr_mult", "wd_mult",
                                                         "force_mirroring", "mirror_stage"};
  return *keys;
}

bool IsHiddenKeyName(absl::string_view key) {
  for (const std::string& k : HiddenKeys()) {
    if (key == k) return true;
  }
  return false;
}

bool IsDunderKey(absl::string_view key) {
  return key.size() > 4 && absl::StartsWith(key, "__") && absl::EndsWith(key, "__");
}

std::string NormalizeAttrKey(absl::string_view key) {
  if (IsHiddenKeyName(key)) return absl::StrCat("__", key, "__");
  return std::string(key);
}

std::string FormatDouble(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof(buf), "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  std::string s(buf);
  // Python's repr: exponent with at least two digits, "1e-05".
  size_t e = s.find('e');
  if (e != std::string::npos) {
    std::string mantissa = s.substr(0, e);
    char sign = s[e + 1];
    std::string digits = s.substr(e + 2);
    while (digits.size() > 1 && digits[0] == '0') digits.erase(0, 1);
    if (digits.size() < 2) digits = "0" + digits;
    return absl::StrCat(mantissa, "e", std::string(1, sign), digits);
  }
  if (s.find('.') == std::string::npos) s += ".0";
  return s;
}

AttrValue::AttrValue(double v) : text_(FormatDouble(v)) {}

AttrValue::AttrValue(std::initializer_list<int64_t> tuple)
    : AttrValue(std::vector<int64_t>(tuple)) {}

AttrValue::AttrValue(const std::vector<int64_t>& tuple) {
  if (tuple.size() == 1) {
    text_ = absl::StrCat("(", tuple[0], ",)");
  } else {
    text_ = absl::StrCat("(", absl::StrJoin(tuple, ", "), ")");
  }
}

}  // namespace symx
