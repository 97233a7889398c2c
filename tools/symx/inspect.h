// `symx inspect`: loads a symbol file, infers shapes and dtypes from the given
// input shapes, and reports arguments, auxiliary states, outputs, every node's
// output shapes and the parameter count, as a table or as JSON.
#ifndef SYMX_TOOLS_SYMX_INSPECT_H_
#define SYMX_TOOLS_SYMX_INSPECT_H_

#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "graph/dtype.h"
#include "graph/shape.h"

namespace symx::cli {

struct InspectOptions {
  std::string symbol_path;
  std::map<std::string, Shape> shapes;
  std::map<std::string, DType> dtypes;
  bool json = false;
};

// Throws symx::Error on bad input (unreadable file, unknown names, conflicts).
void RunInspect(const InspectOptions& options, std::ostream& out);

// Entry point from main: parses `args` (after "inspect"), returns the exit code.
int InspectMain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace symx::cli

#endif  // SYMX_TOOLS_SYMX_INSPECT_H_
