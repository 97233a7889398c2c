// Small text-report helpers shared by symx subcommands.
#ifndef SYMX_TOOLS_SYMX_REPORT_H_
#define SYMX_TOOLS_SYMX_REPORT_H_

#include <ostream>
#include <string>
#include <vector>

#include "graph/dtype.h"
#include "graph/shape.h"

namespace symx::cli {

struct TableRow {
  std::string name;
  Shape shape;
  DType dtype;
};

// "Title (n):" and aligned "name  shape  dtype" rows; unknown dims print as "?".
void PrintTable(std::ostream& out, const std::string& title, const std::vector<TableRow>& rows);

// A multi-line error message folded into one line ("a; b; c"), so that every
// failure ends in a one-line cause.
std::string OneLine(const std::string& message);

}  // namespace symx::cli

#endif  // SYMX_TOOLS_SYMX_REPORT_H_
