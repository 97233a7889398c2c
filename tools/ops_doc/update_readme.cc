// Rewrites the operator list in the README given as the only argument
// (atomically), or prints the list when there is none.
#include <cstdio>
#include <iostream>

#include "graph/file_io.h"
#include "tools/ops_doc/ops_markdown.h"

int main(int argc, char** argv) {
  const std::string block = symx::OperatorsMarkdown();
  if (argc < 2) {
    std::cout << block;
    return 0;
  }
  const std::string path = argv[1];
  absl::StatusOr<std::string> text = symx::ReadFileBytes(path);
  if (!text.ok()) {
    std::cerr << text.status().message() << "\n";
    return 1;
  }
  std::optional<std::string> updated = symx::ReplaceOperatorsBlock(*text, block);
  if (!updated) {
    std::cerr << path << ": no operator list (lines '" << symx::kOpsBegin << "' ... '"
              << symx::kOpsEnd << "')\n";
    return 1;
  }
  absl::Status s = symx::WriteFileBytes(path, [&](const symx::ByteSink& sink) {
    sink(updated->data(), updated->size());
  });
  if (!s.ok()) {
    std::cerr << s.message() << "\n";
    return 1;
  }
  std::cout << "updated " << path << "\n";
  return 0;
}
