#include "graph/infer_util.h"

#include "absl/strings/str_cat.h"

namespace symx {

absl::Status AssignShape(std::vector<Shape>* shapes, size_t index, const Shape& inferred,
                         absl::string_view what) {
  Shape merged = (*shapes)[index];
  if (!MergeShape(&merged, inferred)) {
    return absl::InvalidArgumentError(absl::StrCat("Shape inconsistent for ", what,
                                                   ", Provided = ", (*shapes)[index].ToString(),
                                                   ", inferred shape = ", inferred.ToString()));
  }
  (*shapes)[index] = merged;
  return absl::OkStatus();
}

absl::Status AssignType(std::vector<DType>* types, size_t index, DType inferred,
                        absl::string_view what) {
  if (inferred == DType::kUnknown) return absl::OkStatus();
  DType& slot = (*types)[index];
  if (slot == DType::kUnknown) {
    slot = inferred;
    return absl::OkStatus();
  }
  if (slot != inferred) {
    return absl::InvalidArgumentError(absl::StrCat("Type inconsistent for ", what,
                                                   ", Provided = ", DTypeName(slot),
                                                   ", inferred type = ", DTypeName(inferred)));
  }
  return absl::OkStatus();
}

absl::Status ShapeError(absl::string_view what, const Shape& shape, absl::string_view expected) {
  return absl::InvalidArgumentError(
      absl::StrCat("invalid shape ", shape.ToString(), " for ", what, ": expected ", expected));
}

absl::Status InferSameShape(std::vector<Shape>* in, std::vector<Shape>* out) {
  Shape merged;
  auto merge_all = [&](std::vector<Shape>* v, const char* kind) -> absl::Status {
    for (size_t i = 0; i < v->size(); ++i) {
      if (!MergeShape(&merged, (*v)[i])) {
        return absl::InvalidArgumentError(absl::StrCat("Shape inconsistent for ", kind, " ", i,
                                                       ", Provided = ", (*v)[i].ToString(),
                                                       ", inferred shape = ", merged.ToString()));
      }
    }
    return absl::OkStatus();
  };
  absl::Status s = merge_all(in, "input");
  if (s.ok()) s = merge_all(out, "output");
  if (!s.ok()) return s;
  for (Shape& x : *in) x = merged;
  for (Shape& x : *out) x = merged;
  return absl::OkStatus();
}

absl::Status NormalizeAxis(int64_t axis, int ndim, absl::string_view what, int* out) {
  if (axis < -ndim || axis >= ndim) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " ", axis, " is out of range for ", ndim, " dimensions"));
  }
  *out = static_cast<int>(axis < 0 ? axis + ndim : axis);
  return absl::OkStatus();
}

}  // namespace symx
