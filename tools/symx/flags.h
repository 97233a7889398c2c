// Command-line parsing for the symx tool: options are parsed once, at the edge,
// into plain structs; subcommands never read argv or the environment.
#ifndef SYMX_TOOLS_SYMX_FLAGS_H_
#define SYMX_TOOLS_SYMX_FLAGS_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "devices/context.h"
#include "graph/dtype.h"
#include "graph/shape.h"

namespace symx::cli {

// argv split into "--flag value" pairs (also "--flag=value"), bare switches and
// positional arguments. Which flags take values is given by the subcommand.
struct ParsedArgs {
  std::vector<std::string> positional;
  std::multimap<std::string, std::string> values;  // flag -> value, repeats kept
  std::vector<std::string> switches;
};

absl::StatusOr<ParsedArgs> ParseArgs(const std::vector<std::string>& args,
                                     const std::vector<std::string>& value_flags,
                                     const std::vector<std::string>& switch_flags);

// "data=1,3,224,224" -> {"data", Shape{1,3,224,224}}. A dim of 0 means unknown.
absl::StatusOr<std::pair<std::string, Shape>> ParseShapeFlag(absl::string_view text);
// "data=float16" -> {"data", kFloat16}.
absl::StatusOr<std::pair<std::string, DType>> ParseDtypeFlag(absl::string_view text);
// "NAME=VALUE" for `flag` (used in messages): {"NAME", "VALUE"}; VALUE must not
// be empty.
absl::StatusOr<std::pair<std::string, std::string>> ParseNameValueFlag(absl::string_view text,
                                                                       absl::string_view flag);
// "dev1=cpu(1)" -> {"dev1", cpu(1)} (--group2ctx).
absl::StatusOr<std::pair<std::string, Context>> ParseGroup2CtxFlag(absl::string_view text);

}  // namespace symx::cli

#endif  // SYMX_TOOLS_SYMX_FLAGS_H_
