#include "train/name_filter.h"

#include <regex>

#include "absl/strings/str_cat.h"

namespace symx::train {

struct NameFilter::Pattern {
  std::regex re;
};

absl::StatusOr<NameFilter> NameFilter::Create(const std::string& pattern, const std::string& what) {
  try {
    return NameFilter(std::make_shared<const Pattern>(Pattern{std::regex(pattern)}));
  } catch (const std::regex_error& e) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " '", pattern, "' is not a regular expression: ", e.what()));
  }
}

bool NameFilter::Matches(const std::string& name) const { return std::regex_match(name, re_->re); }

}  // namespace symx::train
