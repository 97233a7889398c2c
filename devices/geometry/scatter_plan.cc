#include "devices/geometry/scatter_plan.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "devices/geometry/index_position.h"

namespace symx {

absl::Status NdRows(const KernelContext& ctx, const Shape& target, const Shape& index_shape,
                    const std::vector<double>& values, std::vector<int64_t>* rows, int64_t* slice) {
  if (index_shape.ndim() < 2 || index_shape[0] < 1 || index_shape[0] > target.ndim()) {
    return Fail(
        ctx, absl::StrCat("indices ", index_shape.ToString(), " do not index ", target.ToString()));
  }
  const int m = static_cast<int>(index_shape[0]);
  const int64_t count = static_cast<int64_t>(values.size()) / m;
  *slice = 1;
  for (int d = m; d < target.ndim(); ++d) *slice *= target[d];
  rows->assign(count, 0);
  for (int64_t y = 0; y < count; ++y) {
    int64_t row = 0;
    for (int d = 0; d < m; ++d) {
      const double v = values[d * count + y];
      const int64_t at = GatherNdPosition(v, target[d]);
      if (at < 0) {
        return absl::OutOfRangeError(absl::StrCat(ctx.Where(), ": index ", FormatIndexValue(v),
                                                  " is out of bounds for axis ", d, " with size ",
                                                  target[d], " (indices column ", y, ")"));
      }
      row = row * target[d] + at;
    }
    (*rows)[y] = row;
  }
  return absl::OkStatus();
}

absl::Status AxisRows(const KernelContext& ctx, const std::vector<double>& values, int64_t n,
                      std::vector<int64_t>* rows) {
  rows->assign(values.size(), 0);
  for (size_t i = 0; i < values.size(); ++i) {
    const double v = values[i];
    if (!(v > -1.0 && v < static_cast<double>(n))) {
      return absl::OutOfRangeError(absl::StrCat(ctx.Where(), ": index ", FormatIndexValue(v),
                                                " (entry ", i, ") is out of bounds for ", n,
                                                " rows"));
    }
    (*rows)[i] = static_cast<int64_t>(std::trunc(v));
  }
  return absl::OkStatus();
}

void RowColumnCells(const std::vector<double>& values, int64_t m, std::vector<int64_t>* cells,
                    std::vector<int64_t>* sources) {
  cells->clear();
  sources->clear();
  for (size_t i = 0; i < values.size(); ++i) {
    const double v = values[i];
    if (!(v > -1.0 && v < static_cast<double>(m))) continue;
    cells->push_back(static_cast<int64_t>(i) * m + static_cast<int64_t>(std::trunc(v)));
    sources->push_back(static_cast<int64_t>(i));
  }
}

}  // namespace symx
