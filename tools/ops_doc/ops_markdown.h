// The operator list README.md shows: every forward op in the registry with its
// aliases, between two marker lines, so a test can compare the README with
// the registry and a tool can rewrite the block.
#ifndef SYMX_TOOLS_OPS_DOC_OPS_MARKDOWN_H_
#define SYMX_TOOLS_OPS_DOC_OPS_MARKDOWN_H_

#include <optional>
#include <string>

#include "absl/strings/string_view.h"

namespace symx {

inline constexpr char kOpsBegin[] = "<!-- operators: generated from the op registry -->";
inline constexpr char kOpsEnd[] = "<!-- operators: end -->";

// The block, markers included, ending in a newline.
std::string OperatorsMarkdown();

// `text` with its block replaced by `block`; nullopt when the markers are
// missing or out of order.
std::optional<std::string> ReplaceOperatorsBlock(absl::string_view text, absl::string_view block);

// The block currently in `text` (markers included), or nullopt.
std::optional<std::string> FindOperatorsBlock(absl::string_view text);

}  // namespace symx

#endif  // SYMX_TOOLS_OPS_DOC_OPS_MARKDOWN_H_
