// Rewrites docs/operators.md from MXNet 1.9.1's registry dump and symx's
// registry: bazel run //tools/registry:update_op_table -- $PWD
#include <iostream>

#include "absl/strings/str_cat.h"
#include "graph/file_io.h"
#include "tools/registry/op_table.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: update_op_table WORKSPACE_DIR\n";
    return 2;
  }
  const std::string root = argv[1];
  absl::StatusOr<symx::CoverageReport> report = symx::BuildCoverageReport(root);
  if (!report.ok()) {
    std::cerr << "update_op_table: " << report.status().message() << "\n";
    return 1;
  }
  const std::string path = absl::StrCat(root, "/", symx::kOperatorsDocPath);
  absl::Status written = symx::WriteFileBytes(
      path, [&](const symx::ByteSink& sink) { sink(report->doc.data(), report->doc.size()); });
  if (!written.ok()) {
    std::cerr << "update_op_table: " << written.message() << "\n";
    return 1;
  }
  std::cout << "wrote " << path << "\n";
  return 0;
}
