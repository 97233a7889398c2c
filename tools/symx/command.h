// What every symx subcommand shares: the exit-code policy and flag-value
// parsing that reports usage errors.
//
// Exit codes: 0 success; 1 bad input (a missing or malformed file, a shape
// mismatch, an engine error); 2 bad usage (unknown flag, malformed flag value,
// missing argument); 3 a feature this build does not have (the engine
// reports it as unimplemented: an op with no kernel for a device or dtype, or
// no gradient). The cause is always one line on stderr, "symx <command>: <cause>".
#ifndef SYMX_TOOLS_SYMX_COMMAND_H_
#define SYMX_TOOLS_SYMX_COMMAND_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "devices/engine_options.h"
#include "distributed/communicator.h"
#include "tools/symx/flags.h"

namespace symx::cli {

// Thrown for bad usage (exit 2); `usage` is printed after the cause when set.
class UsageError : public std::runtime_error {
 public:
  explicit UsageError(const std::string& cause, std::string usage = "")
      : std::runtime_error(cause), usage_(std::move(usage)) {}
  const std::string& usage() const { return usage_; }

 private:
  std::string usage_;
};

// Throws UsageError for a failed flag-parsing status.
void UsageIfError(const absl::Status& status);

// The job this process belongs to, made once by main: under mpirun with
// several ranks, the MPI world; otherwise one process (no communicator).
struct Job {
  std::shared_ptr<Communicator> comm;
  // Intra-op threads this process may use in all (its share of the host's
  // cores under mpirun); 0: leave the CPU devices' default
  // (SYMX_CPU_THREADS or every core).
  int cpu_threads = 0;
  // Every bind's switches, from the SYMX_* environment variables
  // (tools/env/engine_env.h), read once by main.
  EngineOptions engine;
  int rank() const { return comm == nullptr ? 0 : comm->rank(); }
  int size() const { return comm == nullptr ? 1 : comm->size(); }
  bool root() const { return rank() == 0; }
  // "rank 1: " in a job of several ranks, "" otherwise.
  std::string Tag() const;
};

// Runs `body`, mapping UsageError to 2, symx::Error to 1 (3 when the engine
// says unimplemented) and other exceptions to 1, printing the one-line cause
// ("symx <command>: [rank R: ]<cause>").
int RunCommand(const std::string& command, std::ostream& err, const std::function<void()>& body,
               const Job& job = {});

// The value of a flag that may be given at most once (nullopt when absent).
std::optional<std::string> SingleValue(const ParsedArgs& parsed, const std::string& flag);
bool HasSwitch(const ParsedArgs& parsed, const std::string& flag);

// Flag values: "--epochs 3". Errors are UsageErrors naming the flag.
int64_t ParseIntFlag(absl::string_view flag, absl::string_view text, int64_t min_value);
double ParseDoubleFlag(absl::string_view flag, absl::string_view text);
// "--comm-timeout 30": positive seconds.
absl::Duration ParseSecondsFlag(absl::string_view flag, absl::string_view text);
// "--dtype float16", one of `allowed`: "<flag> must be a, b or c, got 'x'".
DType ParseDTypeChoiceFlag(absl::string_view flag, absl::string_view text,
                           const std::vector<DType>& allowed);

}  // namespace symx::cli

#endif  // SYMX_TOOLS_SYMX_COMMAND_H_
