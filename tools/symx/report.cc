#include "tools/symx/report.h"

#include <algorithm>
#include <iomanip>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace symx::cli {

void PrintTable(std::ostream& out, const std::string& title, const std::vector<TableRow>& rows) {
  out << title << " (" << rows.size() << "):\n";
  if (rows.empty()) {
    out << "\n";
    return;
  }
  std::vector<std::string> shapes;
  size_t name_width = 4, shape_width = 5;
  for (const TableRow& r : rows) {
    std::string s = "?";
    if (r.shape.ndim_known()) {
      std::vector<std::string> parts;
      for (int i = 0; i < r.shape.ndim(); ++i) {
        parts.push_back(r.shape.dim_known(i) ? absl::StrCat(r.shape[i]) : "?");
      }
      s = absl::StrCat("(", absl::StrJoin(parts, ","), ")");
    }
    shapes.push_back(s);
    name_width = std::max(name_width, r.name.size());
    shape_width = std::max(shape_width, s.size());
  }
  out << "  " << std::left << std::setw(name_width) << "name"
      << "  " << std::setw(shape_width) << "shape"
      << "  dtype\n";
  for (size_t i = 0; i < rows.size(); ++i) {
    out << "  " << std::left << std::setw(name_width) << rows[i].name << "  "
        << std::setw(shape_width) << shapes[i] << "  " << DTypeName(rows[i].dtype) << "\n";
  }
  out << "\n";
}

std::string OneLine(const std::string& message) {
  std::vector<std::string> parts;
  for (absl::string_view line : absl::StrSplit(message, '\n')) {
    line = absl::StripAsciiWhitespace(line);
    if (!line.empty()) parts.emplace_back(line);
  }
  return absl::StrJoin(parts, "; ");
}

}  // namespace symx::cli
