#include "tools/ops_doc/ops_markdown.h"

#include <set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "graph/op.h"

namespace symx {
namespace {

// Inserted by the executor, never written in a model file.
const std::set<std::string> kInternal = {"_CrossDeviceCopy", "_send", "_recv"};

}  // namespace

std::string OperatorsMarkdown() {
  std::vector<std::string> items;
  for (const Op* op : OpRegistry::Global().List()) {
    if (op->is_backward() || kInternal.count(op->name())) continue;
    std::string item = absl::StrCat("`", op->name(), "`");
    if (!op->aliases().empty()) {
      std::vector<std::string> aliases;
      for (const std::string& a : op->aliases()) aliases.push_back(absl::StrCat("`", a, "`"));
      absl::StrAppend(&item, " (", absl::StrJoin(aliases, ", "), ")");
    }
    items.push_back(std::move(item));
  }
  // Filled to 100 columns: a list, not a table, keeps 160+ names short.
  std::string text = absl::StrCat(items.size(), " operators, by MXNet's names (aliases in parentheses):");
  size_t column = text.size();
  for (size_t i = 0; i < items.size(); ++i) {
    const std::string item = items[i] + (i + 1 < items.size() ? "," : ".");
    if (column + 1 + item.size() > 100) {
      absl::StrAppend(&text, "\n", item);
      column = item.size();
    } else {
      absl::StrAppend(&text, " ", item);
      column += 1 + item.size();
    }
  }
  return absl::StrCat(kOpsBegin, "\n", text, "\n", kOpsEnd, "\n");
}

std::optional<std::string> FindOperatorsBlock(absl::string_view text) {
  size_t begin = text.find(kOpsBegin);
  size_t end = text.find(kOpsEnd);
  if (begin == absl::string_view::npos || end == absl::string_view::npos || end < begin) {
    return std::nullopt;
  }
  end += absl::string_view(kOpsEnd).size();
  if (end < text.size() && text[end] == '\n') ++end;
  return std::string(text.substr(begin, end - begin));
}

std::optional<std::string> ReplaceOperatorsBlock(absl::string_view text, absl::string_view block) {
  std::optional<std::string> old = FindOperatorsBlock(text);
  if (!old) return std::nullopt;
  size_t begin = text.find(kOpsBegin);
  return absl::StrCat(text.substr(0, begin), block, text.substr(begin + old->size()));
}

}  // namespace symx
