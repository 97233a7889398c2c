// DType: element types, numbered as MXNet's type flags (these numbers are written
// into .params files and `__dtype__` attributes, so they must never change).
#ifndef SYMX_GRAPH_DTYPE_H_
#define SYMX_GRAPH_DTYPE_H_

#include <cstddef>
#include <ostream>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace symx {

enum class DType : int {
  kUnknown = -1,
  kFloat32 = 0,
  kFloat64 = 1,
  kFloat16 = 2,
  kUint8 = 3,
  kInt32 = 4,
  kInt8 = 5,
  kInt64 = 6,
  kBool = 7,
  kInt16 = 8,
  kUint16 = 9,
  kUint32 = 10,
  kUint64 = 11,
  kBFloat16 = 12,
};

// "float32", ... ; "unknown" for kUnknown.
std::string DTypeName(DType dtype);
// Bytes per element (0 for kUnknown).
size_t DTypeSize(DType dtype);
// True for a flag in [0, 12].
bool IsValidTypeFlag(int flag);
// Accepts a name ("float32", "int64", "bool", numpy-style "float" = float32) or a
// type flag written as a number ("0"). Errors name the text.
absl::StatusOr<DType> ParseDType(absl::string_view text);

inline std::ostream& operator<<(std::ostream& os, DType t) { return os << DTypeName(t); }

}  // namespace symx

#endif  // SYMX_GRAPH_DTYPE_H_
