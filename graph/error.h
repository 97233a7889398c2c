// symx::Error: the one exception type of the public C++ API.
//
// Inside the engine every fallible function returns absl::Status/StatusOr with a
// message that carries its context (file, node, op, argument, shapes). Public entry
// points that cannot return a status (operator overloads, constructors, the Symbol
// API) convert at one boundary with ThrowIfError/ValueOrThrow. The CLI catches
// symx::Error, prints its message and exits non-zero.
#ifndef SYMX_GRAPH_ERROR_H_
#define SYMX_GRAPH_ERROR_H_

#include <stdexcept>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace symx {

class Error : public std::runtime_error {
 public:
  explicit Error(const absl::Status& status)
      : std::runtime_error(std::string(status.message())), code_(status.code()) {}
  absl::StatusCode code() const { return code_; }

 private:
  absl::StatusCode code_;
};

inline void ThrowIfError(const absl::Status& status) {
  if (!status.ok()) throw Error(status);
}

template <typename T>
T ValueOrThrow(absl::StatusOr<T> value) {
  if (!value.ok()) throw Error(value.status());
  return *std::move(value);
}

// Prefixes a status message with context, keeping its code: "while X: <message>".
absl::Status Annotate(const absl::Status& status, absl::string_view context);

}  // namespace symx

// Returns early from the enclosing function when `expr` (an absl::Status) fails.
#define SYMX_RETURN_IF_ERROR(expr)               \
  do {                                           \
    ::absl::Status symx_status_ = (expr);        \
    if (!symx_status_.ok()) return symx_status_; \
  } while (0)

#define SYMX_CONCAT_INNER_(a, b) a##b
#define SYMX_CONCAT_(a, b) SYMX_CONCAT_INNER_(a, b)

// `SYMX_ASSIGN_OR_RETURN(auto x, StatusOrExpr());` declares x or returns the error.
#define SYMX_ASSIGN_OR_RETURN(lhs, expr) \
  SYMX_ASSIGN_OR_RETURN_IMPL_(SYMX_CONCAT_(symx_statusor_, __LINE__), lhs, expr)
#define SYMX_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                \
  if (!tmp.ok()) return tmp.status();               \
  lhs = std::move(tmp).value()

#endif  // SYMX_GRAPH_ERROR_H_
