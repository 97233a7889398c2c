#include "tools/symx/command.h"

#include <algorithm>
#include <cmath>
#include <iterator>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "graph/error.h"
#include "tools/symx/report.h"

namespace symx::cli {

void UsageIfError(const absl::Status& status) {
  if (!status.ok()) throw UsageError(std::string(status.message()));
}

std::string Job::Tag() const { return size() > 1 ? absl::StrCat("rank ", rank(), ": ") : ""; }

int RunCommand(const std::string& command, std::ostream& err, const std::function<void()>& body,
               const Job& job) {
  const std::string prefix = absl::StrCat("symx ", command, ": ", job.Tag());
  // One write per line: std::cerr is unbuffered, and under mpirun the
  // launcher's abort banner can land between the pieces of a line written
  // piecewise (seen: "symx train: rank 0: ----" with the cause lines later).
  auto line = [&](const char* what) {
    const std::string text = absl::StrCat(prefix, OneLine(what), "\n");
    err.write(text.data(), static_cast<std::streamsize>(text.size()));
    err.flush();
  };
  try {
    body();
  } catch (const UsageError& e) {
    line(e.what());
    if (!e.usage().empty() && job.root()) err << e.usage();
    return 2;
  } catch (const Error& e) {
    line(e.what());
    return e.code() == absl::StatusCode::kUnimplemented ? 3 : 1;
  } catch (const std::exception& e) {
    line(e.what());
    return 1;
  }
  return 0;
}

std::optional<std::string> SingleValue(const ParsedArgs& parsed, const std::string& flag) {
  auto range = parsed.values.equal_range(flag);
  if (range.first == range.second) return std::nullopt;
  if (std::next(range.first) != range.second) throw UsageError(flag + " given twice");
  return range.first->second;
}

bool HasSwitch(const ParsedArgs& parsed, const std::string& flag) {
  for (const std::string& s : parsed.switches) {
    if (s == flag) return true;
  }
  return false;
}

int64_t ParseIntFlag(absl::string_view flag, absl::string_view text, int64_t min_value) {
  int64_t v;
  if (!absl::SimpleAtoi(text, &v)) {
    throw UsageError(absl::StrCat(flag, " expects an integer, got \"", text, "\""));
  }
  if (v < min_value) throw UsageError(absl::StrCat(flag, " must be at least ", min_value));
  return v;
}

double ParseDoubleFlag(absl::string_view flag, absl::string_view text) {
  double v;
  if (!absl::SimpleAtod(text, &v) || !std::isfinite(v)) {
    throw UsageError(absl::StrCat(flag, " expects a number, got \"", text, "\""));
  }
  return v;
}

absl::Duration ParseSecondsFlag(absl::string_view flag, absl::string_view text) {
  double v = ParseDoubleFlag(flag, text);
  if (!(v > 0)) throw UsageError(absl::StrCat(flag, " must be a positive number of seconds"));
  return absl::Seconds(v);
}

DType ParseDTypeChoiceFlag(absl::string_view flag, absl::string_view text,
                           const std::vector<DType>& allowed) {
  absl::StatusOr<DType> t = ParseDType(text);
  if (t.ok() && std::find(allowed.begin(), allowed.end(), *t) != allowed.end()) return *t;
  std::string names;
  for (size_t i = 0; i < allowed.size(); ++i) {
    absl::StrAppend(&names,
                    i == 0                    ? ""
                    : i + 1 == allowed.size() ? " or "
                                              : ", ",
                    DTypeName(allowed[i]));
  }
  throw UsageError(absl::StrCat(flag, " must be ", names, ", got '", text, "'"));
}

}  // namespace symx::cli
