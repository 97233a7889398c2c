#include "graph/dtype.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace symx {
namespace {

struct TypeInfo {
  DType dtype;
  const char* name;
  size_t size;
};

constexpr TypeInfo kTypes[] = {
    {DType::kFloat32, "float32", 4},   {DType::kFloat64, "float64", 8},
    {DType::kFloat16, "float16", 2},   {DType::kUint8, "uint8", 1},
    {DType::kInt32, "int32", 4},       {DType::kInt8, "int8", 1},
    {DType::kInt64, "int64", 8},       {DType::kBool, "bool", 1},
    {DType::kInt16, "int16", 2},       {DType::kUint16, "uint16", 2},
    {DType::kUint32, "uint32", 4},     {DType::kUint64, "uint64", 8},
    {DType::kBFloat16, "bfloat16", 2},
};

}  // namespace

bool IsValidTypeFlag(int flag) { return flag >= 0 && flag <= 12; }

std::string DTypeName(DType dtype) {
  int flag = static_cast<int>(dtype);
  if (!IsValidTypeFlag(flag)) return "unknown";
  return kTypes[flag].name;
}

size_t DTypeSize(DType dtype) {
  int flag = static_cast<int>(dtype);
  if (!IsValidTypeFlag(flag)) return 0;
  return kTypes[flag].size;
}

absl::StatusOr<DType> ParseDType(absl::string_view text) {
  for (const TypeInfo& t : kTypes) {
    if (text == t.name) return t.dtype;
  }
  if (text == "float") return DType::kFloat32;
  if (text == "double") return DType::kFloat64;
  if (text == "half") return DType::kFloat16;
  int flag = 0;
  if (absl::SimpleAtoi(text, &flag) && IsValidTypeFlag(flag)) {
    return static_cast<DType>(flag);
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown dtype \"", text,
                   "\" (expected float32, float64, float16, bfloat16, uint8, int8, int16, "
                   "int32, int64, uint16, uint32, uint64, bool or a type flag 0-12)"));
}

}  // namespace symx
