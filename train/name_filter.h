// NameFilter: parameter names matched against a regular expression (the
// whole name), e.g. `symx train --fixed-params 'conv.*'`.
#ifndef SYMX_TRAIN_NAME_FILTER_H_
#define SYMX_TRAIN_NAME_FILTER_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace symx::train {

class NameFilter {
 public:
  // Errors name the pattern and what is wrong with it. `what` prefixes them
  // ("fixed_params").
  static absl::StatusOr<NameFilter> Create(const std::string& pattern, const std::string& what);
  bool Matches(const std::string& name) const;

 private:
  struct Pattern;  // the std::regex, kept out of this header (see BUILD)
  explicit NameFilter(std::shared_ptr<const Pattern> re) : re_(std::move(re)) {}
  std::shared_ptr<const Pattern> re_;
};

}  // namespace symx::train

#endif  // SYMX_TRAIN_NAME_FILTER_H_
