// Attribute maps: a node's string attributes, kept exactly as the user wrote them
// (that is what MXNet writes back to JSON), plus the hidden-key conventions.
//
// Hidden keys are system attributes stored as "__k__" (ctx_group, lr_mult,
// wd_mult, force_mirroring, mirror_stage). Op parameter parsers never see them.
#ifndef SYMX_GRAPH_ATTRS_H_
#define SYMX_GRAPH_ATTRS_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace symx {

using AttrMap = std::map<std::string, std::string>;

// The keys MXNet stores hidden ("ctx_group" is stored as "__ctx_group__").
const std::vector<std::string>& HiddenKeys();
bool IsHiddenKeyName(absl::string_view key);  // "ctx_group", "lr_mult", ...
// "__x__" (any x).
bool IsDunderKey(absl::string_view key);
// "ctx_group" -> "__ctx_group__" for hidden keys; other keys unchanged.
std::string NormalizeAttrKey(absl::string_view key);

// A value formatted the way MXNet's Python front end formats attribute values
// (str() of the Python value): 3 -> "3", true -> "True", 0.5 -> "0.5",
// {3, 3} -> "(3, 3)". Lets C++ callers pass typed values.
class AttrValue {
 public:
  AttrValue(const char* s) : text_(s) {}              // NOLINT: implicit by design
  AttrValue(std::string s) : text_(std::move(s)) {}   // NOLINT
  AttrValue(absl::string_view s) : text_(s) {}        // NOLINT
  AttrValue(int v) : text_(std::to_string(v)) {}      // NOLINT
  AttrValue(int64_t v) : text_(std::to_string(v)) {}  // NOLINT
  AttrValue(bool v) : text_(v ? "True" : "False") {}  // NOLINT
  AttrValue(double v);                                // NOLINT
  AttrValue(std::initializer_list<int64_t> tuple);    // NOLINT
  AttrValue(const std::vector<int64_t>& tuple);       // NOLINT
  const std::string& str() const { return text_; }

 private:
  std::string text_;
};

// Shortest decimal text that reads back as the same double, Python style
// ("2.0", "0.1", "1e-05").
std::string FormatDouble(double v);

}  // namespace symx

#endif  // SYMX_GRAPH_ATTRS_H_
